/**
 * The generation itself, on the calling thread: IR → the files of generated/<edition>/.
 * `generateEdition` (index.ts) calls it, or starts generate-worker.mjs, which calls it on a
 * thread with a large stack; this file never starts that thread (no import circle through it).
 */
import { IndentationText, NewLineKind, Project, QuoteKind, type StatementStructures } from "ts-morph";
import { editionFolder, type IREdition } from "../ir/types.js";
import { boardStatements } from "./board.js";
import { checkedStatements } from "./checked.js";
import { editionContext } from "./context.js";
import { indexStatements } from "./index-file.js";
import { rulesStatements } from "./rules.js";
import { stateFile } from "./state.js";
import { tablesStatements } from "./tables.js";
import { validatorStatements } from "./validators.js";
import { pruneUnused } from "./unused.js";
import { schemaFile, validateStateFile } from "./schema.js";

/** The files of generated/<edition>/. */
export type GeneratedFileName = "board.ts" | "checked.ts" | "index.ts" | "rules.ts" | "tables.ts" | "validators.ts" | "state.ts" | "schema.ts" | "validate-state.ts";

/**
 * The files `validators.ts` needs at run time (its other imports are types only): enough to call
 * `check`, `brokenInvariants`, `obligedActions` and `legalMoves` from `validators.ts` itself.
 */
export const CHECKER_FILES: readonly GeneratedFileName[] = ["board.ts", "tables.ts", "validators.ts"];

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
 * The validators of one edition, generated on this thread (TypeScript's parser inside ts-morph
 * recurses on the nesting of the generated expressions: a deeply nested IR needs a large stack).
 * Deterministic: the same IR gives the same bytes, sorted by path. Each file is one pass over the
 * edition's context (context.ts), built once here. `opts.only`: just these files
 * (`CHECKER_FILES`: what a caller that only checks moves needs).
 * @throws CodegenError when the IR holds something the generator cannot express.
 */
export async function generateFiles(ir: IREdition, opts: { only?: readonly GeneratedFileName[] } = {}): Promise<GeneratedFile[]> {
  const dir = `generated/${editionFolder(ir)}`;
  const want = (name: GeneratedFileName) => !opts.only || opts.only.includes(name);
  // what more than one file reads (names, enum members, lifting exemptions, the board), once
  const cx = editionContext(ir);
  // Build every file's statements first, then print each with one createSourceFile.
  const files: [string, (string | StatementStructures)[]][] = [];
  if (want("board.ts")) files.push(["board.ts", boardStatements(cx)]);
  if (want("checked.ts")) files.push(["checked.ts", checkedStatements(cx)]);
  if (want("index.ts")) files.push(["index.ts", indexStatements(cx)]);
  if (want("rules.ts")) files.push(["rules.ts", rulesStatements(cx)]);
  if (want("tables.ts")) files.push(["tables.ts", tablesStatements(cx)]);
  if (want("validators.ts")) files.push(["validators.ts", validatorStatements(cx)]);
  const project = newProject();
  const out: GeneratedFile[] = [];
  for (const [name, statements] of files) {
    // a turn of the event loop between files: a caller that generates while it serves other
    // work (prove hands obligations to its solver processes meanwhile) is not blocked for the whole
    await new Promise<void>((resolve) => setImmediate(resolve));
    const sf = project.createSourceFile(`/${dir}/${name}`, { statements }, { overwrite: true });
    // unused parameters renamed `_x`, unused imports dropped: strict consumers compile it
    let text = pruneUnused(sf.getFullText(), name);
    if (!text.endsWith("\n")) text += "\n";
    out.push({ path: `${dir}/${name}`, content: text });
  }
  if (want("state.ts")) out.push({ path: `${dir}/state.ts`, content: await stateFile(cx) });
  if (want("schema.ts")) out.push({ path: `${dir}/schema.ts`, content: schemaFile(cx) });
  if (want("validate-state.ts")) out.push({ path: `${dir}/validate-state.ts`, content: validateStateFile(cx) });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
