/**
 * The library API of the `rulewright` package (`import … from "rulewright"`, ESM or CommonJS):
 * the compiler front end and the code generator. The prover is `rulewright/verify`, the reference
 * interpreter `rulewright/interpret`, the scenario files `rulewright/scenarios`, and the compiled
 * validators of the bundled editions `rulewright/editions/<edition>` (README "Using the
 * validators in an engine"). Nothing here prints or exits; bad input comes back as diagnostics.
 *
 * - `loadEdition(dir, { repoRoot })`: compile an edition folder → `{ edition?: IREdition, diagnostics }`
 *   (edition undefined when a diagnostic is an error; file names in diagnostics relative to repoRoot,
 *   default the working folder).
 * - `generateEdition(ir)`: the TypeScript validators of a compiled edition → `{ path, content }[]`
 *   (paths `generated/<edition>/*.ts`; throws `CodegenError` on an IR it cannot generate).
 * - `parseRules(text, file)`: one rule file → `{ ast, diagnostics }`.
 * - `renderDiagnostic(d, sourceText)`: a diagnostic as the CLI prints it (file:line:column, caret, hint).
 */
export { loadEdition } from "./check/index.js";
export { generateEdition, CodegenError, type GeneratedFile } from "./codegen/index.js";
export { parseRules, declaresEdition, KEYWORDS } from "./syntax/index.js";
export { renderDiagnostic, renderDiagnostics } from "./diagnostics/render.js";
export type { Diagnostic } from "./diagnostics/types.js";
export { editionFolder, type IREdition } from "./ir/types.js";
