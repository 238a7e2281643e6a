/**
 * `npm run bench`: validator throughput of five engines on the same Here I Stand rules and states,
 * then build/prove scaling; writes bench/results/results.{md,json} and scaling.svg.
 *
 *   npm run bench                        # everything (about 10 minutes on 2 quiet cores)
 *   npm run bench -- --check-only        # only the agreement check (exit 1 on a disagreement)
 *   npm run bench -- --skip-scaling      # throughput only (keeps the scaling results of the run before, with its date)
 *   npm run bench -- --skip-throughput   # scaling only
 *   npm run bench -- --quick             # small sets, short runs, 1×/3× scaling; writes to a temp folder
 *   npm run bench -- --out <dir>         # where to write (default bench/results)
 *   npm run bench -- --render-only       # rewrite results.md, scaling.svg and the README table from results.json
 *
 * Before anything is timed every engine's verdict on every sample is compared with the generated
 * validators'; a disagreement is printed (engine, action, seeds to rebuild the state) and the run
 * stops with exit code 1.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { spawnSync } from "node:child_process";
import { checkAgreement, createEngines } from "./engines/index.js";
import { makeSet, type ActionKind, type Sample } from "./states.js";
import { plan, SEED, sizes } from "./throughput.js";
import { growthExponent, runScaling, segmentExponents, type ScalingResult } from "./scaling/run.js";
import { logLogChart } from "./plot.js";
import { renderMarkdown, renderReadmeSection, type Results, type Row, type Target } from "./report.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

const { values: args } = parseArgs({
  options: {
    "check-only": { type: "boolean", default: false },
    "skip-scaling": { type: "boolean", default: false },
    "skip-throughput": { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    "render-only": { type: "boolean", default: false },
    out: { type: "string" },
  },
  strict: true,
});

const quick = args.quick!;
const SIZES = sizes(quick);
const outDir = args.out ?? (quick ? fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-bench-quick-")) : path.join(ROOT, "bench/results"));

function version(pkg: string): string {
  try {
    return (JSON.parse(fs.readFileSync(require.resolve(`${pkg}/package.json`), "utf8")) as { version: string }).version;
  } catch {
    // packages whose exports hide package.json
    const p = path.join(ROOT, "node_modules", pkg, "package.json");
    return fs.existsSync(p) ? (JSON.parse(fs.readFileSync(p, "utf8")) as { version: string }).version : "?";
  }
}

async function main(): Promise<number> {
  if (args["render-only"]) {
    const results = JSON.parse(fs.readFileSync(path.join(outDir, "results.json"), "utf8")) as Results;
    results.targets = targets(results.throughput, results.scaling);
    write(results);
    log(`rewrote ${path.relative(process.cwd(), outDir)}/results.md${results.scaling ? ", scaling.svg" : ""} from results.json`);
    return 0;
  }
  const started = new Date();
  const t0 = performance.now();
  const loadStart = os.loadavg();
  log(`sets: ${Object.entries(SIZES).map(([k, n]) => `${k} ${n}`).join(", ")} (seed ${SEED})`);
  const sets = Object.fromEntries((Object.keys(SIZES) as ActionKind[]).map((k) => [k, makeSet(k, SIZES[k], SEED)])) as Record<ActionKind, Sample[]>;
  const { engines, cedarVersion } = createEngines();

  log("agreement check: every engine, every sample of its actions");
  const agreement = await checkAgreement(engines, sets);
  for (const [k, v] of Object.entries(agreement.verdicts)) log(`  ${k}: ${v.allowed} allowed, ${v.forbidden} forbidden`);
  if (agreement.disagreements.length) {
    process.stderr.write(`\nDISAGREEMENT: ${agreement.disagreements.length} verdict(s) differ from the generated validators'\n`);
    for (const d of agreement.disagreements.slice(0, 40)) {
      process.stderr.write(`  ${d.engine} on ${d.kind} #${d.index}: ${JSON.stringify(d.action)}\n    generated: ${d.expected}\n    ${d.engine}: ${d.got}\n    state: makeState(${d.stateSeed}, "${d.kind}"), action: makeAction(${d.actionSeed}, "${d.kind}", state) (bench/states.ts)\n`);
    }
    return 1;
  }
  log(`agreement: ${agreement.checks} checks, no disagreement`);
  if (args["check-only"]) return 0;

  const rows: Row[] = [];
  const failures: string[] = [];
  if (!args["skip-throughput"]) {
    for (const { kind, engine } of plan()) {
      log(`timing ${kind} / ${engine}`);
      // Node 20's V8 sometimes dies in its deoptimizer (fatal "unreachable code", SIGTRAP) while
      // timing cedar-wasm calls; such a crash is retried, up to three attempts in all.
      let line = "";
      let attempts = 0;
      let status = "";
      while (attempts < 3) {
        attempts++;
        // the floor is timed in batches of the generated validators' size: a median of single
        // checks and a median of 3-check means are different statistics on a skewed set
        const gen = engine === "hand" ? rows.find((x) => x.kind === kind && x.engine === "generated") : undefined;
        const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", "bench/throughput.ts", kind, engine, ...(quick ? ["--quick"] : []), ...(gen ? ["--batch", String(gen.batch)] : [])], {
          cwd: ROOT,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "inherit"],
          maxBuffer: 16 * 1024 * 1024,
        });
        line = r.status === 0 ? (r.stdout.trim().split("\n").pop() ?? "") : "";
        status = String(r.status ?? r.signal);
        if (line.startsWith("{") || r.signal !== "SIGTRAP") break;
        log(`  the process died (${r.signal}); retrying`);
      }
      if (!line.startsWith("{")) {
        const why = `timing ${kind} / ${engine} failed (exit ${status}, ${attempts} attempt${attempts > 1 ? "s" : ""}); see the messages above`;
        log(why);
        failures.push(why);
        continue;
      }
      const row = JSON.parse(line) as Row;
      if (attempts > 1) row.attempts = attempts;
      log(`  median ${(row.medianNs / 1000).toFixed(3)} µs, p99 ${(row.p99Ns / 1000).toFixed(3)} µs, ${row.bytesPerCheck?.toFixed(0) ?? "?"} B/check`);
      rows.push(row);
    }
  }

  let scaling: ScalingResult | undefined;
  let scalingDate: string | undefined;
  const previous = path.join(outDir, "results.json");
  if (args["skip-scaling"] && !quick && fs.existsSync(previous)) {
    // a throughput-only run keeps the scaling results of the run before it, with that run's date
    const before = JSON.parse(fs.readFileSync(previous, "utf8")) as Results;
    scaling = before.scaling;
    if (scaling) scalingDate = before.scalingDate ?? before.date;
  } else if (!args["skip-scaling"]) {
    scaling = runScaling({
      buildFactors: quick ? [1, 3] : [1, 10, 30, 100],
      proveFactors: quick ? [1, 3] : [1, 10, 30, 100],
      proveTimeoutMs: 10_000,
      killAfterMs: 20 * 60_000,
      log,
    });
  }

  const loadEnd = os.loadavg();
  const results: Results = {
    date: started.toISOString(),
    durationMs: performance.now() - t0,
    quick,
    machine: {
      cpu: os.cpus()[0]?.model ?? "?",
      cores: os.cpus().length,
      memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
      os: `${os.type()} ${os.release()} ${os.arch()}`,
      loadavgStart: loadStart.map((x) => Math.round(x * 100) / 100),
      loadavgEnd: loadEnd.map((x) => Math.round(x * 100) / 100),
    },
    node: process.version,
    versions: {
      tinybench: version("tinybench"),
      "json-rules-engine": version("json-rules-engine"),
      "@cedar-policy/cedar-wasm": version("@cedar-policy/cedar-wasm"),
      cedar: cedarVersion,
      "z3-solver": version("z3-solver"),
      typescript: version("typescript"),
      "ts-morph": version("ts-morph"),
    },
    sets: Object.fromEntries(Object.entries(sets).map(([k, v]) => [k, { samples: v.length, states: new Set(v.map((s) => s.state)).size, ...agreement.verdicts[k]! }])),
    seed: SEED,
    agreement: { checks: agreement.checks, disagreements: 0 },
    throughput: rows,
    failures,
    scaling,
    ...(scalingDate ? { scalingDate } : {}),
    targets: targets(rows, scaling),
  };
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, "results.json"), JSON.stringify(results, null, 2) + "\n");
  write(results);
  log(`wrote ${path.relative(process.cwd(), outDir) || "."}/results.{md,json}${scaling ? " and scaling.svg" : ""} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  process.stdout.write(renderMarkdown(results));
  return failures.length ? 1 : 0;
}

/** Writes results.md, scaling.svg and (a full run into bench/results) the README's table. */
function write(results: Results): void {
  fs.writeFileSync(path.join(outDir, "results.md"), renderMarkdown(results));
  if (results.scaling) fs.writeFileSync(path.join(outDir, "scaling.svg"), plot(results.scaling));
  // a full run into bench/results also refreshes the README's table (between the markers)
  if (!results.quick && !args.out && results.throughput.length && results.scaling) {
    const readme = path.join(ROOT, "README.md");
    const text = fs.readFileSync(readme, "utf8");
    const begin = "<!-- bench:begin (written by npm run bench) -->";
    const end = "<!-- bench:end -->";
    const i = text.indexOf(begin);
    const j = text.indexOf(end);
    if (i >= 0 && j > i) fs.writeFileSync(readme, text.slice(0, i + begin.length) + "\n" + renderReadmeSection(results) + text.slice(j));
  }
}

function plot(s: ScalingResult): string {
  const pts = (f: (p: ScalingResult["synthetic"]["points"][number]) => number | undefined) =>
    s.synthetic.points.map((p) => ({ x: p.rules, y: (f(p) ?? 0) / 1000 })).filter((p) => p.y > 0);
  const ms = (d: Record<string, unknown> | undefined, ...keys: string[]) => (d ? keys.reduce((n, k) => n + Number(d[k] ?? 0), 0) : undefined);
  return logLogChart("rulewright build and prove time against rule count (synthetic k× rulebooks)", "rules in the rulebook", "seconds", [
    { name: "build (in process)", color: "#1f77b4", points: pts((p) => ms(p.build?.detail, "frontMs", "codegenMs", "writeMs")) },
    { name: "build (wall, CLI-like)", color: "#aec7e8", points: pts((p) => p.build?.wallMs) },
    { name: "prove (in process)", color: "#d62728", points: pts((p) => ms(p.prove?.detail, "frontMs", "proveMs")) },
    { name: "prove (wall)", color: "#ff9896", points: pts((p) => p.prove?.wallMs) },
  ]);
}

/** The cold `rulewright prove --no-cache` wall time of the last `npm run bench:prove` (bench/results/prove.json), if any. */
function coldProve(): { s: number; date: string } | undefined {
  const file = path.join(ROOT, "bench", "results", "prove.json");
  if (!fs.existsSync(file)) return undefined;
  const r = JSON.parse(fs.readFileSync(file, "utf8")) as { date: string; rows: { measure: string; value: string }[] };
  const m = /^([\d.]+) s wall/.exec(r.rows.find((x) => x.measure.startsWith("cold "))?.value ?? "");
  return m ? { s: Number(m[1]), date: r.date.slice(0, 10) } : undefined;
}

/** The issue's targets, each with the measured value and met/missed. */
function targets(rows: Row[], s: ScalingResult | undefined): Target[] {
  const out: Target[] = [];
  const row = (kind: ActionKind, engine: string) => rows.find((r) => r.kind === kind && r.engine === engine);
  const ratio = (kind: ActionKind, engine: string) => {
    const a = row(kind, engine);
    const g = row(kind, "generated");
    return a && g ? a.medianNs / g.medianNs : undefined;
  };
  const kinds: ActionKind[] = ["declare_war", "pass", "spring_deploy"];
  for (const k of kinds) {
    const r = ratio(k, "jre");
    if (r !== undefined) out.push({ target: `generated ≥ 20× faster than json-rules-engine (${k}, median)`, goal: 20, measured: r, unit: "×", met: r >= 20 });
  }
  for (const [id, what] of [["cedar-prebuilt", "authorization alone"], ["cedar", "incl. building entities"]] as const) {
    const r = ratio("declare_war", id);
    if (r !== undefined) out.push({ target: `generated ≥ 50× faster than Cedar on the §9.6 bans (${what}, median)`, goal: 50, measured: r, unit: "×", met: r >= 50 });
  }
  for (const k of kinds) {
    const g = row(k, "generated");
    const h = row(k, "hand");
    // issue 17: pass and spring_deploy within 1.5× of the floor, every other action within 2×
    const goal = k === "pass" || k === "spring_deploy" ? 1.5 : 2;
    if (g && h) out.push({ target: `generated within ${goal}× of the hand-written floor (${k}, median)`, goal, measured: g.medianNs / h.medianNs, unit: "× floor", met: g.medianNs / h.medianNs <= goal, lowerIsBetter: true });
  }
  for (const k of ["declare_war", "pass"] as const) {
    const g = row(k, "generated");
    if (g) out.push({ target: `${k} < 1 µs per check (generated, median; p99 ${(g.p99Ns / 1000).toFixed(2)} µs)`, goal: 1, measured: g.medianNs / 1000, unit: "µs", met: g.medianNs < 1000, lowerIsBetter: true });
  }
  const d = row("spring_deploy", "generated");
  if (d) out.push({ target: `full-board spring_deploy < 50 µs per check (generated, median; p99 ${(d.p99Ns / 1000).toFixed(1)} µs)`, goal: 50, measured: d.medianNs / 1000, unit: "µs", met: d.medianNs < 50_000, lowerIsBetter: true });
  if (s) {
    const b = s.bundled.build.wallMs / 1000;
    out.push({ target: `build of all bundled editions (${s.bundled.editions.join(", ")}) < 3 s (CLI wall time)`, goal: 3, measured: b, unit: "s", met: b < 3, lowerIsBetter: true });
    // the README gives one figure for a cold prove: `npm run bench:prove`'s (bench/results/prove.json),
    // when it has run; this run's own scaling measure otherwise
    const cold = coldProve();
    const p = cold?.s ?? s.bundled.proveTotalMs / 1000;
    out.push({ target: `prove of all bundled editions < 20 s (CLI wall time${cold ? `, cold, npm run bench:prove of ${cold.date}` : ""})`, goal: 20, measured: p, unit: "s", met: p < 20, lowerIsBetter: true });
    const pts = (f: (d: Record<string, unknown>) => number, which: "build" | "prove") =>
      s.synthetic.points.filter((p) => p[which]?.detail).map((p) => ({ rules: p.rules, ms: f(p[which]!.detail!) }));
    const growth = (which: "build" | "prove", f: (d: Record<string, unknown>) => number) => {
      const ps = pts(f, which);
      const fit = growthExponent(ps);
      const seg = segmentExponents(ps);
      if (fit === null || !seg.length) return;
      const last = seg[seg.length - 1]!;
      const sorted = [...ps].sort((a, b) => a.rules - b.rules);
      const [a, b] = [sorted[sorted.length - 2]!, sorted[sorted.length - 1]!];
      out.push({
        target: `${which} no worse than linear in rule count (disjoint actions): exponent b of time ∝ rules^b from ${a.rules} to ${b.rules} rules (in-process time; fit over all sizes b = ${fit.toFixed(2)}, by segment ${seg.map((x) => x.toFixed(2)).join(", ")})`,
        goal: 1,
        measured: last,
        unit: "b",
        met: last <= 1.1,
        lowerIsBetter: true,
      });
    };
    growth("build", (d) => Number(d.frontMs) + Number(d.codegenMs) + Number(d.writeMs));
    growth("prove", (d) => Number(d.frontMs) + Number(d.proveMs));
  }
  return out;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(2);
  },
);
