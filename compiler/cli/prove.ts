/**
 * `rulewright prove [editions…]`: runs the Z3 pass and writes proofs/<edition>/.
 *
 * Output: report.json (deterministic: no timings), one .smt2 per obligation, and for every
 * refuted obligation with a counterexample `counterexamples/<id>.state.json` + `.action.json`,
 * replayable with `rulewright check`. Exit 1 when an error-severity obligation is refuted or
 * unknown (an unknown is never a proof), 2 on compile errors / usage, else 0.
 */
import fs from "node:fs";
import path from "node:path";
import { describeTableExample, proveEdition, safeName } from "../verify/index.js";
import { editionFolder } from "../ir/types.js";
import { bundledEditions, compile, errorCount, resolveEdition, UsageError, color, type Format } from "./common.js";

type Report = Awaited<ReturnType<typeof proveEdition>>;
type Obligation = Report["obligations"][number];

export interface ProveResult {
  edition: string;
  dir: string;
  outDir: string;
  report?: Report;
  /** state/action files written per obligation id */
  files?: Map<string, { state: string; action: string }>;
  errors: number;
  failed: boolean;
  ms: number;
}

/** Where proofs of an edition folder go: proofs/<edition> for bundled ones, proofs/.fixtures/<folder name> otherwise (git-ignored). */
export function proofsDirFor(ref: { dir: string; bundled: boolean }, name: string): string {
  return ref.bundled ? path.join("proofs", name) : path.join("proofs", ".fixtures", name);
}

export async function proveOne(arg: string, opts: { format: Format; timeoutMs?: number; out?: string }): Promise<ProveResult> {
  const t0 = performance.now();
  const ref = resolveEdition(arg);
  const res = compile(ref, opts.format);
  const name = path.basename(ref.dir);
  if (!res.edition) return { edition: name, dir: ref.dir, outDir: "", errors: errorCount(res.diagnostics), failed: true, ms: performance.now() - t0 };
  const outDir = opts.out ?? proofsDirFor(ref, name);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const progress = opts.format === "text" && process.stderr.isTTY;
  if (progress) process.stderr.write(`proving ${editionFolder(res.edition)}…\n`);
  const report = await proveEdition(res.edition, { timeoutMs: opts.timeoutMs, outDir });
  // counterexamples and witnesses as files that `rulewright check` replays; the report points at them
  const files = new Map<string, { state: string; action: string }>();
  for (const o of report.obligations) {
    const ex = o.counterexample ?? o.witness;
    if (!ex) continue;
    const cdir = path.join(outDir, o.counterexample ? "counterexamples" : "witnesses");
    fs.mkdirSync(cdir, { recursive: true });
    const base = path.join(cdir, safeName(o.id));
    fs.writeFileSync(base + ".state.json", JSON.stringify(ex.state, null, 2) + "\n");
    fs.writeFileSync(base + ".action.json", JSON.stringify(ex.action, null, 2) + "\n");
    files.set(o.id, { state: base + ".state.json", action: base + ".action.json" });
  }
  fs.writeFileSync(path.join(outDir, "report.json"), JSON.stringify(compactReport(report, files), null, 2) + "\n");
  const failed = report.obligations.some((o) => o.severity === "error" && o.verdict !== "proved");
  return { edition: editionFolder(res.edition), dir: ref.dir, outDir, report, files, errors: 0, failed, ms: performance.now() - t0 };
}

/**
 * The report as written to report.json and printed by `--format json`: no timings (the file is
 * the same from run to run) and, instead of whole states, the files that hold them.
 */
export function compactReport(report: Report, files: Map<string, { state: string; action: string }>): unknown {
  return {
    ...report,
    obligations: report.obligations.map((o) => {
      const { ms: _ms, counterexample, witness, ...rest } = o as Obligation & { ms?: number };
      const f = files.get(o.id);
      const slim = (ex: { action: unknown; replayable?: boolean; reason?: string } | undefined) =>
        ex && { action: ex.action, replayable: ex.replayable, reason: ex.reason, stateFile: f?.state, actionFile: f?.action };
      return { ...rest, counterexample: slim(counterexample), witness: slim(witness) };
    }),
    ms: undefined,
  };
}

/** Prints the human summary of one edition's proofs. */
export function printProveSummary(r: ProveResult): void {
  const out = (s: string) => process.stdout.write(s + "\n");
  if (!r.report) {
    out(`${r.edition}: ${color.red(`${r.errors} compile error(s)`)} — nothing proved`);
    return;
  }
  const obs = r.report.obligations;
  const count = (v: string) => obs.filter((o) => o.verdict === v).length;
  out(`${color.bold(r.edition)}: ${obs.length} obligations — ${color.green(`${count("proved")} proved`)}, ${count("refuted") ? color.red(`${count("refuted")} refuted`) : "0 refuted"}, ${count("unknown") ? color.yellow(`${count("unknown")} unknown`) : "0 unknown"} (${(r.ms / 1000).toFixed(1)} s)`);
  const byKind = new Map<string, Obligation[]>();
  for (const o of obs) byKind.set(o.kind, [...(byKind.get(o.kind) ?? []), o]);
  for (const [kind, list] of [...byKind].sort()) {
    const p = list.filter((o) => o.verdict === "proved").length;
    out(`  ${kind.padEnd(18)} ${String(p).padStart(3)}/${list.length} proved`);
  }
  for (const o of obs.filter((o) => o.verdict !== "proved")) {
    const sev = o.severity === "error" ? color.red(o.severity) : o.severity === "warning" ? color.yellow(o.severity) : o.severity;
    out(`  ${o.verdict === "unknown" ? color.yellow("unknown") : color.red("refuted")} ${sev} ${o.id}`);
    if (o.table !== undefined) out(`    table: ${o.table}`);
    else out(`    rules: ${o.rules.join(", ")}`);
    if (o.example) out(`    ${describeTableExample(o.kind, o.example)}`);
    if (o.core?.length) out(`    unsat core: ${o.core.join(", ")}`);
    if ((o as { reason?: string }).reason) out(`    reason: ${(o as { reason?: string }).reason}`);
    const f = r.files?.get(o.id);
    if (o.counterexample && f) {
      out(`    counterexample action: ${JSON.stringify(o.counterexample.action)}`);
      out(`    replay: npx rulewright check --edition ${r.dir} --state ${f.state} --action ${f.action}`);
    }
  }
  out(`  report: ${path.join(r.outDir, "report.json")}`);
}

export async function proveCommand(editions: string[], opts: { format: Format; timeout?: string; out?: string }): Promise<number> {
  const names = editions.length ? editions : bundledEditions();
  if (!names.length) throw new UsageError("no editions found under dsl/", 2);
  let timeoutMs: number | undefined;
  if (opts.timeout !== undefined) {
    timeoutMs = Number(opts.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout takes a positive number of milliseconds, not \`${opts.timeout}\``, 2);
  }
  if (opts.out && names.length > 1) throw new UsageError("--out takes one edition", 2);
  const results: ProveResult[] = [];
  for (const n of names) results.push(await proveOne(n, { format: opts.format, timeoutMs, out: opts.out }));
  if (opts.format === "json") {
    process.stdout.write(
      JSON.stringify(
        results.map((r) => ({ edition: r.edition, outDir: r.outDir, compileErrors: r.errors, failed: r.failed, report: r.report && compactReport(r.report, r.files ?? new Map()) })),
        null,
        2,
      ) + "\n",
    );
  } else {
    for (const r of results) printProveSummary(r);
  }
  if (results.some((r) => !r.report)) return 2;
  return results.some((r) => r.failed) ? 1 : 0;
}
