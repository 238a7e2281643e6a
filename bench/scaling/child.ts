/**
 * One scaling measurement in a fresh process (so peak memory is this measurement's alone):
 *   node --import tsx bench/scaling/child.ts build <edition folder> <out folder>
 *   node --import tsx bench/scaling/child.ts prove <edition folder> <out folder> [timeoutMs]
 * `build` = the front end (parse, check, lower to IR) + code generation + writing the files;
 * `prove` = the front end + every proof obligation (compiler/verify), report written to <out>.
 * Prints one JSON line: phase times (ms), counts, verdict tallies and process.resourceUsage().maxRSS.
 */
import fs from "node:fs";
import path from "node:path";
import { loadEdition } from "../../compiler/check/index.js";

const [mode, dir, out, timeout] = process.argv.slice(2);
if ((mode !== "build" && mode !== "prove") || !dir || !out) {
  process.stderr.write("usage: child.ts build|prove <edition folder> <out folder> [timeoutMs]\n");
  process.exit(2);
}
const t0 = performance.now();
const res = loadEdition(dir, { repoRoot: process.cwd() });
const tFront = performance.now() - t0;
if (!res.edition) {
  process.stderr.write(`${dir}: ${res.diagnostics.filter((d) => d.severity === "error").length} compile error(s): ${res.diagnostics.slice(0, 3).map((d) => `${d.file}:${d.span.line}:${d.span.column} ${d.message}`).join("; ")}\n`);
  process.exit(2);
}
const ir = res.edition;
const result: Record<string, unknown> = { mode, edition: ir.name, rules: ir.rules.length, actions: ir.actions.length, frontMs: tFront };
if (mode === "build") {
  const { generateEdition } = await import("../../compiler/codegen/index.js");
  const t1 = performance.now();
  const files = await generateEdition(ir);
  const t2 = performance.now();
  for (const f of files) {
    const p = path.join(out, f.path);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, f.content);
  }
  Object.assign(result, { codegenMs: t2 - t1, writeMs: performance.now() - t2, bytes: files.reduce((n, f) => n + f.content.length, 0) });
} else {
  const { proveEdition } = await import("../../compiler/verify/index.js");
  const t1 = performance.now();
  const report = await proveEdition(ir, { outDir: out, timeoutMs: timeout ? Number(timeout) : undefined });
  const slowest = [...report.obligations].sort((a, b) => b.ms - a.ms)[0];
  Object.assign(result, {
    proveMs: performance.now() - t1,
    obligations: report.obligations.length,
    summary: report.summary,
    slowest: slowest && { id: slowest.id, ms: slowest.ms, verdict: slowest.verdict },
  });
}
result.totalMs = performance.now() - t0;
result.maxRssKb = process.resourceUsage().maxRSS;
process.stdout.write(JSON.stringify(result) + "\n");
// the Z3 runtime keeps worker threads alive after the last proof
process.exit(0);
