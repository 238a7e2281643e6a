/**
 * `npm run fuzz -- [--time 10m] [--seed n] [--out dir]`: runs the fuzz properties of test/fuzz/
 * (the front end, the injection into generated code, and the three-way differential validator ≡
 * interpreter ≡ SMT encoding on mutated scenario states of every bundled edition) for a while, round after round with a
 * new seed each round, and saves every failure, shrunk by fast-check, as a reproducer in `--out`
 * (default `fuzz-reproducers/`, git-ignored): `<property>-<seed>.json` with the input and what
 * went wrong (and `frontend-<seed>.rules`, the rule file itself). A front-end failure is run again
 * first and saved only when it fails again (one that does not is reported, not saved). The CPU
 * time of an input is that of the threads doing its work (test/fuzz/frontend.ts `inputCpu`).
 *
 * Prints one line per round and a summary: inputs tried per property, failures, time. Exit 0
 * when nothing failed, 1 when something did, 2 on bad usage. `npm test` runs the same
 * properties with a fixed seed (test/e2e/fuzz.test.ts).
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { checkFrontEnd, frontEndInput, fuzzHost, seedFiles } from "../test/fuzz/frontend.js";
import { hostileTexts, runInjectionBatch, type Texts } from "../test/fuzz/injection.js";
import { compareSample, loadDiffEdition, mutate, newStats, planArb, type DiffEdition, type DiffStats } from "../test/fuzz/differential.js";
import { bundledEditions } from "../compiler/engine/editions.js";

function usage(msg: string): never {
  process.stderr.write(`error: ${msg}\nusage: npm run fuzz -- [--time 10m] [--seed n] [--out dir]\n`);
  process.exit(2);
}

function duration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(s.trim());
  if (!m) usage(`--time takes a duration like 90s, 10m or 1h, not \`${s}\``);
  const n = Number(m[1]);
  return n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? "ms"] ?? 1);
}

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined) usage(`${name} needs a value`);
  return v;
};
for (const a of args) if (a.startsWith("--") && !["--time", "--seed", "--out"].includes(a)) usage(`unknown option ${a}`);
const budgetMs = duration(opt("--time") ?? "10m");
const baseSeed = Number(opt("--seed") ?? Date.now() % 1_000_000);
if (!Number.isSafeInteger(baseSeed)) usage("--seed takes an integer");
const outDir = path.resolve(opt("--out") ?? "fuzz-reproducers");

const started = Date.now();
const left = () => budgetMs - (Date.now() - started);
const counts = { frontEnd: 0, injection: 0, differential: 0, failures: 0, unreproduced: 0, maxCpuMs: 0 };
// the three-way differential (test/fuzz/differential.ts): every bundled edition loaded once, its
// scenario states compared once, then mutants each round; fire counts summed over the run
const diff: { ed: DiffEdition; stats: DiffStats }[] = [];
// DIFF_EDITIONS: a comma-separated list of editions (default every bundled edition); encoding
// Here I Stand's rules takes about 25 s of CPU per edition before the first round
for (const name of process.env.DIFF_EDITIONS ? process.env.DIFF_EDITIONS.split(",") : bundledEditions()) {
  const ed = await loadDiffEdition(name);
  const stats = newStats(ed.ir);
  for (const s of ed.seeds) compareSample(ed, s, stats);
  counts.differential += ed.seeds.length;
  if (stats.failures.length) {
    counts.failures++;
    const f = save(`differential-${ed.name}-scenarios`, { property: "differential", edition: ed.name, failures: stats.failures });
    process.stdout.write(`differential ${ed.name}: a scenario state FAILED: ${stats.failures[0]} → ${f}\n`);
  }
  diff.push({ ed, stats });
}
const host = fuzzHost();
const seeds = seedFiles();

function save(name: string, data: unknown, extra?: { ext: string; text: string }): string {
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(data, null, 2) + "\n");
  if (extra) fs.writeFileSync(path.join(outDir, `${name}${extra.ext}`), extra.text);
  return file;
}

let round = 0;
try {
  while (left() > 0) {
    const seed = baseSeed + round++;
    /** what each failing input of this round's front-end run went wrong with, the first time */
    const firstProblems = new Map<string, string[]>();
    // front end: 200 inputs a round
    const fe = await fc.check(
      fc.asyncProperty(frontEndInput(seeds), async (input) => {
        counts.frontEnd++;
        const r = await checkFrontEnd(host, input);
        counts.maxCpuMs = Math.max(counts.maxCpuMs, r.cpuMs);
        if (r.problems.length) firstProblems.set(input, r.problems);
        return r.problems.length === 0;
      }),
      { seed, numRuns: 200, interruptAfterTimeLimit: Math.max(1000, left()), markInterruptAsFailure: false },
    );
    // a run cut short by the time limit is not a failure (fast-check may then report one without a counterexample)
    if (fe.failed && fe.counterexample) {
      const input = fe.counterexample![0] as string;
      // a reproducer is saved only when it reproduces: run it again (the CPU limit is a measure)
      const { problems } = await checkFrontEnd(host, input);
      if (problems.length) {
        counts.failures++;
        const f = save(`frontend-${seed}`, { property: "front end", seed, path: fe.counterexamplePath, problems, input }, { ext: ".rules", text: input });
        process.stdout.write(`round ${round}: front end FAILED (seed ${seed}): ${problems[0]} → ${f}\n`);
      } else {
        counts.unreproduced++;
        process.stdout.write(`round ${round}: front end failed once but not when run again (seed ${seed}; not saved): ${firstProblems.get(input)?.[0]?.slice(0, 200) ?? "?"}\n`);
      }
    }
    if (left() <= 3000) break; // a batch of the injection property takes a few seconds
    // injection: 2 batches of 8 editions a round
    const inj = await fc.check(
      fc.asyncProperty(fc.array(hostileTexts, { minLength: 8, maxLength: 8 }), async (batch) => {
        counts.injection += batch.length;
        return (await runInjectionBatch(batch)).every((p) => p.length === 0);
      }),
      { seed, numRuns: 2, interruptAfterTimeLimit: Math.max(1000, left()), markInterruptAsFailure: false },
    );
    if (inj.failed && inj.counterexample) {
      counts.failures++;
      const batch = inj.counterexample![0] as Texts[];
      const problems = await runInjectionBatch(batch);
      const f = save(`injection-${seed}`, { property: "injection", seed, path: inj.counterexamplePath, cases: batch.map((texts, i) => ({ texts, problems: problems[i] })).filter((c) => c.problems!.length) });
      process.stdout.write(`round ${round}: injection FAILED (seed ${seed}) → ${f}\n`);
    }
    // differential: 50 mutants of each edition a round
    for (const { ed, stats } of diff) {
      if (left() <= 0) break;
      const before = stats.samples + stats.discarded;
      const d = fc.check(
        fc.property(planArb, (plan) => {
          const sample = mutate(ed, plan);
          return compareSample(ed, sample, stats).length === 0;
        }),
        { seed, numRuns: 50, interruptAfterTimeLimit: Math.max(1000, left()), markInterruptAsFailure: false },
      );
      counts.differential += stats.samples + stats.discarded - before;
      if (d.failed && d.counterexample) {
        counts.failures++;
        const sample = mutate(ed, d.counterexample[0] as Parameters<typeof mutate>[1]);
        const problems = compareSample(ed, sample, newStats(ed.ir));
        const f = save(`differential-${ed.name}-${seed}`, { property: "differential", edition: ed.name, seed, path: d.counterexamplePath, problems, ...sample });
        process.stdout.write(`round ${round}: differential ${ed.name} FAILED (seed ${seed}): ${problems[0] ?? "?"} → ${f}\n`);
      }
    }
    process.stdout.write(`round ${round} (seed ${seed}): ${counts.frontEnd} rule files, ${counts.injection} hostile editions, ${counts.differential} differential states, ${counts.failures} failures, ${Math.round((Date.now() - started) / 1000)} s\n`);
  }
} finally {
  host.cleanup();
}
for (const { ed, stats } of diff) {
  const never = [...stats.fires].filter(([, n]) => n === 0).map(([id]) => id);
  process.stdout.write(`differential ${ed.name}: ${stats.samples} states (${stats.discarded} mutants discarded), ${stats.fires.size - never.length}/${stats.fires.size} rules reached${never.length ? `; never fired: ${never.join(", ")}` : ""}\n`);
  // the inputs must reach every rule: a rule that never fired is a failure of the run
  if (never.length) counts.failures++;
}
process.stdout.write(
  `fuzz: ${counts.frontEnd + counts.injection + counts.differential} inputs tried (front end ${counts.frontEnd}, injection ${counts.injection}, differential ${counts.differential}), ${counts.failures} failures, ` +
    `${counts.unreproduced ? `${counts.unreproduced} front-end failures that did not reproduce (not saved), ` : ""}` +
    `max ${Math.round(counts.maxCpuMs)} ms CPU per rule file (this thread and the parse thread), ${Math.round((Date.now() - started) / 1000)} s, seeds ${baseSeed}..${baseSeed + round - 1}` +
    (counts.failures ? `; reproducers in ${path.relative(process.cwd(), outDir)}/` : "") + "\n",
);
process.exit(counts.failures ? 1 : 0);
