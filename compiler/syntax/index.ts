/**
 * Front door of the syntax phase: text → AST + diagnostics. Never throws on bad input.
 * The parsing is parse-file.ts; a file nested deeper than `SHALLOW_NESTING` (depth.ts) is parsed
 * on a large-stack thread (parse-deep.ts).
 */
import type { Diagnostic } from "../diagnostics/types.js";
import type { AstFile } from "./ast.js";
import { parseFile } from "./parse-file.js";
import { parseOnLargeStack } from "./parse-deep.js";
import { Dot, KW, RulesLexer } from "./tokens.js";

export type { AstFile, Decl, Expr, Name, Param, TypeRef } from "./ast.js";
export { KEYWORDS } from "./tokens.js";

/**
 * Parses one rule file. Never throws. Declarations nested deeper than `MAX_NESTING` get RW1007
 * and are left out; a file nested deeper than `SHALLOW_NESTING` is parsed on a large-stack thread
 * (parse-deep.ts) unless `opts.largeStack` says this already is one.
 */
export function parseRules(text: string, file: string, opts?: { largeStack?: boolean }): { ast: AstFile; diagnostics: Diagnostic[] } {
  return parseFile(text, file, opts?.largeStack ? undefined : parseOnLargeStack);
}

/**
 * Whether a rule file's text declares an edition (an `edition` keyword starting a declaration):
 * how the CLI tells edition folders under dsl/ from module folders. Lexes only; never throws.
 */
export function declaresEdition(text: string): boolean {
  const ts = RulesLexer.tokenize(text).tokens;
  return ts.some((t, i) => t.tokenType === KW.edition && (i === 0 || ts[i - 1]!.tokenType !== Dot));
}
