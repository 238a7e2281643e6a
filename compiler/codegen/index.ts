/**
 * Code generation entry: IR → the files of generated/<edition>/ (see docs/CONTRACTS.md,
 * "Code generation entry" and "Generated API", and compiler/codegen/README.md).
 */
import { Worker } from "node:worker_threads";
import { IndentationText, NewLineKind, Project, QuoteKind, type StatementStructures } from "ts-morph";
import { editionFolder, type IREdition } from "../ir/types.js";
import { boardStatements } from "./board.js";
import { indexStatements } from "./index-file.js";
import { rulesStatements } from "./rules.js";
import { stateFile } from "./state.js";
import { tablesStatements } from "./tables.js";
import { validatorStatements } from "./validators.js";
import { pruneUnused } from "./unused.js";
import { schemaFile, validateStateFile } from "./schema.js";

import { CodegenError } from "./expr.js";

export { CodegenError };

export interface GeneratedFile {
  /** relative to the repo root: generated/<edition>/<file>.ts */
  path: string;
  content: string;
}

function newProject(): Project {
  return new Project({
    useInMemoryFileSystem: true,
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
    skipLoadingLibFiles: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      newLineKind: NewLineKind.LineFeed,
      quoteKind: QuoteKind.Double,
      usePrefixAndSuffixTextForRename: false,
      useTrailingCommas: true,
      insertSpaceAfterOpeningAndBeforeClosingNonemptyBraces: true,
    },
  });
}

/**
 * Generates the validators of one edition. Deterministic: the same IR gives the same bytes
 * (no dates, no absolute paths; everything whose order is not semantic is sorted).
 * @throws CodegenError when the IR holds something the generator cannot express.
 */
export async function generateEdition(ir: IREdition, opts?: { largeStack?: boolean }): Promise<GeneratedFile[]> {
  // TypeScript's parser (inside ts-morph) recurses on the nesting of the generated expressions:
  // deeply nested rules (up to the front end's limit of 1024 levels) are generated on a thread
  // with a large stack.
  if (!opts?.largeStack && irDepth(ir) > SHALLOW_IR_DEPTH) return generateOnLargeStack(ir);
  const dir = `generated/${editionFolder(ir)}`;
  // Build every file's statements first, then print each with one createSourceFile.
  const files: [string, (string | StatementStructures)[]][] = [
    ["board.ts", boardStatements(ir)],
    ["index.ts", indexStatements(ir)],
    ["rules.ts", rulesStatements(ir)],
    ["tables.ts", tablesStatements(ir)],
    ["validators.ts", validatorStatements(ir)],
  ];
  const project = newProject();
  const out: GeneratedFile[] = [];
  for (const [name, statements] of files) {
    const sf = project.createSourceFile(`/${dir}/${name}`, { statements }, { overwrite: true });
    // unused parameters renamed `_x`, unused imports dropped: strict consumers compile it
    let text = pruneUnused(sf.getFullText(), name);
    if (!text.endsWith("\n")) text += "\n";
    out.push({ path: `${dir}/${name}`, content: text });
  }
  out.push({ path: `${dir}/state.ts`, content: await stateFile(ir) });
  out.push({ path: `${dir}/schema.ts`, content: schemaFile(ir) });
  out.push({ path: `${dir}/validate-state.ts`, content: validateStateFile(ir) });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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

/** `generateEdition(ir)` on a worker thread with a 256 MB stack. */
function generateOnLargeStack(ir: IREdition): Promise<GeneratedFile[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./generate-worker.mjs", import.meta.url), { workerData: { ir }, resourceLimits: { stackSizeMb: 256 }, stdout: false, stderr: false });
    worker.once("message", (m: { files?: GeneratedFile[]; error?: string }) => {
      void worker.terminate();
      if (m.files) resolve(m.files);
      else reject(new CodegenError(m.error ?? "the code generation thread failed"));
    });
    worker.once("error", (e) => reject(new CodegenError(`the code generation thread failed: ${e.message}`)));
  });
}
