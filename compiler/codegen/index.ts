/**
 * Code generation entry: IR → the files of generated/<edition>/ (see docs/CONTRACTS.md,
 * "Code generation entry" and "Generated API", and compiler/codegen/README.md).
 */
import { IndentationText, NewLineKind, Project, QuoteKind, type StatementStructures } from "ts-morph";
import { editionFolder, type IREdition } from "../ir/types.js";
import { boardStatements } from "./board.js";
import { indexStatements } from "./index-file.js";
import { rulesStatements } from "./rules.js";
import { stateFile } from "./state.js";
import { tablesStatements } from "./tables.js";
import { validatorStatements } from "./validators.js";

export { CodegenError } from "./expr.js";

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
export async function generateEdition(ir: IREdition): Promise<GeneratedFile[]> {
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
    let text = sf.getFullText();
    if (!text.endsWith("\n")) text += "\n";
    out.push({ path: `${dir}/${name}`, content: text });
  }
  out.push({ path: `${dir}/state.ts`, content: await stateFile(ir) });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
