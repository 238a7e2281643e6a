/**
 * `npm run bench:prove`: how long a user waits for proofs, measured with the CLI as users run it.
 *
 * 1. cold: `rulewright prove --no-cache` of every bundled edition (wall time of the command, and
 *    the solver processes' time per analysis from proofs/<edition>/profile.json);
 * 2. warm: the same with a proof cache that holds the verdicts (a second run);
 * 3. one-rule edit: a copy of dsl/ proved with a cache, one rule of Here I Stand's war.rules
 *    edited, proved again: wall time and the obligations solved again;
 * 4. `rulewright all` (what `npm start` runs) cold and warm.
 *
 * Writes bench/results/prove.md and prove.json (machine, Node, load average), prints the table
 * and, a run into bench/results, rewrites the README's proof times (between the markers
 * `<!-- bench:prove:begin … -->` and `<!-- bench:prove:end -->`): the README's figures are this
 * script's, never typed by hand. Options: `--skip-all` (no `rulewright all` runs), `--out <dir>`,
 * `--render-only` (rewrite the README's block from bench/results/prove.json, measure nothing).
 * Speed is measured here, never in tests.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = process.cwd();
const CLI = path.join(ROOT, "bin", "rulewright.mjs");
const args = process.argv.slice(2);
const outDir = args.includes("--out") ? args[args.indexOf("--out") + 1] : path.join(ROOT, "bench", "results");
const skipAll = args.includes("--skip-all");

interface ProveResults {
  date: string;
  machine: string;
  rows: { measure: string; value: string; target: string; note: string }[];
}

/** The README's proof-times paragraph from a run's results (one sentence per measure). */
function readmeBlock(r: ProveResults): string {
  const items = r.rows.map((x) => `${x.measure}: **${x.value}**${x.note ? ` (${x.note})` : ""}`);
  return [
    `**Proof times** (\`npm run bench:prove\`, bench/results/prove.md; ${r.date.slice(0, 10)}, ${r.machine}):`,
    ...items.map((x) => `- ${x}`),
    "",
  ].join("\n");
}

const BEGIN = "<!-- bench:prove:begin (written by npm run bench:prove) -->";
const END = "<!-- bench:prove:end -->";

/** Rewrites the README's block between BEGIN and END; an error when the markers are missing. */
function writeReadme(r: ProveResults): void {
  const readme = path.join(ROOT, "README.md");
  const text = fs.readFileSync(readme, "utf8");
  const i = text.indexOf(BEGIN);
  const j = text.indexOf(END);
  if (i < 0 || j < i) throw new Error(`README.md has no ${BEGIN} … ${END} block`);
  fs.writeFileSync(readme, text.slice(0, i + BEGIN.length) + "\n" + readmeBlock(r) + text.slice(j));
}

if (args.includes("--render-only")) {
  writeReadme(JSON.parse(fs.readFileSync(path.join(ROOT, "bench", "results", "prove.json"), "utf8")) as ProveResults);
  process.stderr.write("rewrote the README's proof times from bench/results/prove.json\n");
  process.exit(0);
}

interface Run {
  wallS: number;
  code: number;
  out: string;
  err: string;
}

function cli(argv: string[], opts: { cwd?: string } = {}): Run {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, ...argv], { cwd: opts.cwd ?? ROOT, encoding: "utf8", maxBuffer: 1 << 30, env: { ...process.env, FORCE_COLOR: "0" } });
  return { wallS: (performance.now() - t0) / 1000, code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

type Summary = { solved: number; cached: number; reused: number; unknown: number; proved: number; refuted: number };
const summaries = (r: Run): Summary[] => (JSON.parse(r.out) as { report: { summary: Summary } }[]).map((x) => x.report.summary);
const sum = (xs: Summary[], k: keyof Summary) => xs.reduce((n, s) => n + s[k], 0);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-bench-prove-"));
const load0 = os.loadavg()[0];
const rows: { measure: string; value: string; target: string; note: string }[] = [];

// 1. cold
process.stderr.write("cold prove of every bundled edition…\n");
const cold = cli(["prove", "--no-cache", "--format", "json", "--quiet", "--timeout", "60000"]);
if (cold.code !== 0) throw new Error(`cold prove exited ${cold.code}: ${cold.err.slice(-2000)}`);
const cs = summaries(cold);
rows.push({ measure: "cold `rulewright prove --no-cache` (his + his-500 + vq)", value: `${cold.wallS.toFixed(1)} s wall, ${sum(cs, "unknown")} unknown`, target: "≤ 60 s, 0 unknown", note: `${sum(cs, "proved") + sum(cs, "refuted") + sum(cs, "unknown")} obligations: ${sum(cs, "solved")} solved, ${sum(cs, "reused")} shared with his` });

// per analysis, from the cold run's profiles
type P = { kind: string; ms: number; witness?: string; reusedFrom?: string; cached: boolean; queryMs?: number; buildMs?: number; smt2Ms?: number; witnessMs?: number; solveMs?: number };
const perKind = new Map<string, { n: number; concrete: number; solver: number; ms: number; query: number; witness: number; solve: number }>();
for (const e of fs.readdirSync(path.join(ROOT, "proofs")).filter((d) => fs.existsSync(path.join(ROOT, "proofs", d, "profile.json")))) {
  const prof = JSON.parse(fs.readFileSync(path.join(ROOT, "proofs", e, "profile.json"), "utf8")) as { obligations: P[] };
  for (const o of prof.obligations) {
    if (o.cached || o.reusedFrom) continue;
    const k = perKind.get(o.kind) ?? { n: 0, concrete: 0, solver: 0, ms: 0, query: 0, witness: 0, solve: 0 };
    k.n++;
    if (o.witness === "concrete") k.concrete++;
    else k.solver++;
    k.ms += o.ms;
    k.query += o.queryMs ?? 0;
    k.witness += o.witnessMs ?? 0;
    k.solve += (o.solveMs ?? 0) + (o.buildMs ?? 0) + (o.smt2Ms ?? 0);
    perKind.set(o.kind, k);
  }
}

// 2. warm
process.stderr.write("warm prove…\n");
const cache = path.join(tmp, "cache");
const fill = cli(["prove", "--cache-dir", cache, "--format", "json", "--quiet", "--timeout", "60000"]);
if (fill.code !== 0) throw new Error(`prove exited ${fill.code}`);
const warm = cli(["prove", "--cache-dir", cache, "--format", "json", "--quiet"]);
rows.push({ measure: "warm `rulewright prove` (every verdict in the proof cache)", value: `${warm.wallS.toFixed(1)} s wall`, target: "—", note: `${sum(summaries(warm), "solved")} solved` });

// 3. one-rule edit on a copy of dsl/
process.stderr.write("one-rule edit…\n");
const copy = path.join(tmp, "dsl");
fs.cpSync(path.join(ROOT, "dsl"), copy, { recursive: true });
const ed = path.join(copy, "his");
const editCache = path.join(tmp, "edit-cache");
const witnesses = path.join(ROOT, "test", "scenarios");
const before = cli(["prove", ed, "--cache-dir", editCache, "--witnesses", witnesses, "--format", "json", "--quiet", "--timeout", "60000", "--out", path.join(tmp, "out")]);
if (before.code !== 0) throw new Error(`prove of the copy exited ${before.code}: ${before.err.slice(-2000)}`);
const war = path.join(ed, "war.rules");
const text = fs.readFileSync(war, "utf8");
const edited = text.replace(/(rule dow\.venice_england[^\n]*\n\s*forbid declare_war when target = Power\.venice and by = )england/, "$1france");
if (edited === text) throw new Error("the rule to edit (dow.venice_england) was not found");
fs.writeFileSync(war, edited);
const after = cli(["prove", ed, "--cache-dir", editCache, "--witnesses", witnesses, "--format", "json", "--quiet", "--timeout", "60000", "--out", path.join(tmp, "out")]);
const as = summaries(after);
rows.push({ measure: "re-prove after editing one rule (warm cache; his: dow.venice_england)", value: `${after.wallS.toFixed(1)} s wall`, target: "≤ 5 s", note: `${sum(as, "solved")} of ${sum(as, "proved") + sum(as, "refuted") + sum(as, "unknown")} obligations solved again (those the rule takes part in but for the unsat verdicts whose core leaves it out), the rest from the cache; includes starting Node, compiling the edition and loading its validators` });

// 4. rulewright all (npm start)
if (!skipAll) {
  process.stderr.write("rulewright all, cold and warm…\n");
  fs.rmSync(path.join(ROOT, "proofs", ".cache"), { recursive: true, force: true });
  const a1 = cli(["all"]);
  const a2 = cli(["all"]);
  rows.push({ measure: "`npm start` (`rulewright all`), empty proof cache (after `npm ci`)", value: `${a1.wallS.toFixed(1)} s wall`, target: "≤ 3 min with `npm ci`", note: `exit ${a1.code}` });
  rows.push({ measure: "second `npm start` (warm)", value: `${a2.wallS.toFixed(1)} s wall`, target: "≤ 15 s", note: `exit ${a2.code}` });
}

const load1 = os.loadavg()[0];
const cpu = os.cpus();
const machine = `${cpu[0]?.model.trim() ?? "?"} (${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB), Node ${process.version}, load average ${load0.toFixed(2)} at start and ${load1.toFixed(2)} at end`;
const kinds = [...perKind].sort((a, b) => b[1].ms - a[1].ms);
const md = [
  `# Prove benchmark (npm run bench:prove)`,
  ``,
  `${new Date().toISOString().slice(0, 10)}, ${machine}.`,
  ``,
  `| measure | measured | target | note |`,
  `|---|---:|---|---|`,
  ...rows.map((r) => `| ${r.measure} | ${r.value} | ${r.target} | ${r.note} |`),
  ``,
  `Cold run, per analysis (solver processes' wall time per obligation, summed over both processes; obligations shared with another edition not counted):`,
  ``,
  `| analysis | obligations | by a concrete witness | by the solver | total s | encoding s | witnesses s | solver s |`,
  `|---|---:|---:|---:|---:|---:|---:|---:|`,
  ...kinds.map(([k, v]) => `| ${k} | ${v.n} | ${v.concrete} | ${v.solver} | ${(v.ms / 1000).toFixed(1)} | ${(v.query / 1000).toFixed(1)} | ${(v.witness / 1000).toFixed(1)} | ${(v.solve / 1000).toFixed(1)} |`),
  ``,
].join("\n");
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, "prove.md"), md);
const results: ProveResults & { perKind: object } = { date: new Date().toISOString(), machine, rows, perKind: Object.fromEntries(perKind) };
fs.writeFileSync(path.join(outDir, "prove.json"), JSON.stringify(results, null, 2) + "\n");
if (!args.includes("--out")) writeReadme(results);
fs.rmSync(tmp, { recursive: true, force: true });
process.stdout.write(md);
