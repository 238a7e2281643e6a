/**
 * `rulewright all` (what `npm start` runs): build, prove and test every bundled edition, then a
 * summary table with each edition's share of the rulebook sources encoded (`rulewright coverage`,
 * no threshold: "-" for an edition no manifest names or when the sources folder is missing).
 * Ends by writing the rulebook report (`rulewright report`, proofs/report/index.html) and printing
 * its path. Exit 0 when everything passed; otherwise the worst exit code of the steps.
 */
import { buildOne } from "./build.js";
import { printProveSummary, proveOne } from "./prove.js";
import { runScenarios } from "./test.js";
import { runCoverage } from "./coverage.js";
import { buildReport } from "./report.js";
import path from "node:path";
import { UsageError, color, type Format } from "./common.js";
import { bundledEditions } from "../engine/editions.js";
import { SolverPool, type ProveOptions } from "../verify/index.js";
import { terminalSafe } from "../diagnostics/terminal.js";

export async function allCommand(opts: { format: Format }): Promise<number> {
  const editions = bundledEditions();
  if (!editions.length) throw new UsageError("no editions found under dsl/", 2);
  const rows: string[][] = [];
  let code = 0;
  const built: string[] = [];
  for (const e of editions) {
    const b = await buildOne(e, { check: false, format: "text" });
    process.stdout.write(`build ${e}: ${b.status} (${b.files.length} files)\n`);
    if (b.status === "error") {
      rows.push([e, color.red("compile errors"), "-", "-", "-", "-"]);
      code = 2;
      continue;
    }
    rows.push([e, b.status, "", "", "", "-"]);
    built.push(e);
  }
  // every edition at once with one pool of solver processes; a variant's obligations identical to
  // its parent's are solved once (memo). The prover's default budget and CPU-time safety net:
  // the verdicts do not depend on how busy the machine is
  const pool = new SolverPool();
  const memo: NonNullable<ProveOptions["memo"]> = new Map();
  let proved: Awaited<ReturnType<typeof proveOne>>[];
  try {
    proved = await Promise.all(built.map((e) => proveOne(e, { format: "text", pool, memo })));
  } finally {
    await pool.close();
  }
  for (const [i, e] of built.entries()) {
    const p = proved[i];
    printProveSummary(p);
    const obs = p.report?.obligations ?? [];
    const n = (v: string) => obs.filter((o) => o.verdict === v).length;
    if (p.failed) code = Math.max(code, 1);
    const row = rows.find((r) => r[0] === e)!;
    row[2] = `${n("proved")}/${obs.length}`;
    row[3] = `${n("refuted")} refuted, ${n("unknown")} unknown`;
  }
  const t = await runScenarios(["test/scenarios"], "text");
  for (const r of t.results.filter((r) => !r.pass)) process.stdout.write(`${color.red("FAIL")} ${terminalSafe(r.file)}:${r.line} ${terminalSafe(r.name)}\n     ${terminalSafe(r.detail)}\n`);
  for (const p of t.problems) process.stdout.write(`${terminalSafe(p.file)}:${p.line}: ${color.red("error")}: ${terminalSafe(p.message)}\n`);
  for (const row of rows) {
    const mine = t.results.filter((r) => r.edition === row[0] || r.edition.endsWith(`/${row[0]}`));
    row[4] = `${mine.filter((r) => r.pass).length}/${mine.length} passed`;
  }
  if (t.failed || t.problems.length) code = Math.max(code, 1);
  let coverageReport: Awaited<ReturnType<typeof runCoverage>>["report"];
  try {
    const cov = runCoverage({ format: "text" });
    coverageReport = cov.report;
    if (cov.exitCode === 2) process.stdout.write(`coverage: ${color.red("the manifests have errors")} (run \`rulewright coverage\`)\n`);
    for (const ed of cov.report?.editions ?? []) {
      const row = rows.find((r) => r[0] === ed.edition);
      if (row && ed.percent !== null) row[5] = `${ed.encoded}/${ed.restriction} (${ed.percent.toFixed(1)}%)`;
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stdout.write(`coverage: not computed (${e.message})\n`);
  }
  const header = ["edition", "build", "proved", "not proved", "scenarios", "sources encoded"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => stripAnsi(r[i]).length)));
  const line = (r: string[]) => r.map((c, i) => c + " ".repeat(widths[i] - stripAnsi(c).length)).join("  ");
  process.stdout.write("\n" + color.bold(line(header)) + "\n" + rows.map(line).join("\n") + "\n");
  process.stdout.write(`${code === 0 ? color.green("all good") : color.red("something failed")} — scenarios: ${t.passed} passed, ${t.failed} failed\n`);
  // the rulebook report of what was just built, proved and tested (compiler/report); a failure
  // to write it is reported, and the exit code stays that of the steps
  let reportFile: string | undefined;
  try {
    const r = await buildReport(built, { testResults: t, coverageReport, quiet: true });
    reportFile = r.file;
    process.stdout.write(`report: ${path.resolve(r.file)} (open it in a browser; ${(r.bytes / 1e6).toFixed(2)} MB, ${(r.ms / 1000).toFixed(1)} s)\n`);
  } catch (e) {
    process.stdout.write(`report: ${color.red("not written")} (${(e as Error).message})\n`);
  }
  if (opts.format === "json") process.stdout.write(JSON.stringify({ code, scenarios: { passed: t.passed, failed: t.failed }, report: reportFile ?? null }) + "\n");
  return code;
}

function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;]*m/g, "");
}
