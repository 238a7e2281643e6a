/**
 * Code generation entry: IR → the files of generated/<edition>/ (see docs/CONTRACTS.md,
 * "Code generation entry" and "Generated API", and compiler/codegen/README.md).
 */
import { Worker } from "node:worker_threads";
import type { IREdition } from "../ir/types.js";
import { CodegenError } from "./expr.js";
import { CHECKER_FILES, generateFiles, type GeneratedFile, type GeneratedFileName } from "./generate.js";

export { CHECKER_FILES, CodegenError, type GeneratedFile, type GeneratedFileName };

/**
 * Generates the validators of one edition. Deterministic: the same IR gives the same bytes
 * (no dates, no absolute paths; everything whose order is not semantic is sorted).
 * `opts.largeStack`: the calling thread has a large stack; generate here even for a deep IR.
 * `opts.only`: just these files (`CHECKER_FILES` for a caller that only checks moves).
 * `opts.actions`: the checkers of these actions only — their rules and every oblige rule (it
 * binds the actor whatever the action); `check` of another action finds no rule of it.
 * @throws CodegenError when the IR holds something the generator cannot express.
 */
export async function generateEdition(ir: IREdition, opts?: { largeStack?: boolean; only?: readonly GeneratedFileName[]; actions?: readonly string[] }): Promise<GeneratedFile[]> {
  if (opts?.actions) {
    const keep = new Set(opts.actions);
    ir = { ...ir, rules: ir.rules.filter((r) => keep.has(r.action) || r.kind === "oblige") };
  }
  // TypeScript's parser (inside ts-morph) recurses on the nesting of the generated expressions:
  // deeply nested rules (up to the front end's limit of 1024 levels) are generated on a thread
  // with a large stack (generate-worker.mjs, which calls generateFiles of generate.ts).
  if (!opts?.largeStack && irDepth(ir) > SHALLOW_IR_DEPTH) return generateOnLargeStack(ir, opts?.only);
  return generateFiles(ir, { only: opts?.only });
}

/** Above this IR expression depth, `generateEdition` runs on a large-stack thread. */
const SHALLOW_IR_DEPTH = 100;

/** The deepest nesting of objects in the IR's rules, exemptions, invariants, defs and tables (iterative). */
export function irDepth(ir: IREdition): number {
  let max = 0;
  const stack: [unknown, number][] = [[[ir.rules, ir.exemptions, ir.invariants, ir.routes, ir.tables ?? []], 0]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    if (n === null || typeof n !== "object") continue;
    if (d > max) max = d;
    for (const v of Array.isArray(n) ? n : Object.values(n)) if (v !== null && typeof v === "object") stack.push([v, d + 1]);
  }
  return max;
}

/** `generateFiles(ir)` on a worker thread with a 256 MB stack. */
function generateOnLargeStack(ir: IREdition, only?: readonly GeneratedFileName[]): Promise<GeneratedFile[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./generate-worker.mjs", import.meta.url), { workerData: { ir, only }, resourceLimits: { stackSizeMb: 256 }, stdout: false, stderr: false });
    worker.once("message", (m: { files?: GeneratedFile[]; error?: string }) => {
      void worker.terminate();
      if (m.files) resolve(m.files);
      else reject(new CodegenError(m.error ?? "the code generation thread failed"));
    });
    worker.once("error", (e) => reject(new CodegenError(`the code generation thread failed: ${e.message}`)));
  });
}
