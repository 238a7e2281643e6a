/**
 * Semantic tokens and folding ranges of a rule file. Tokens: keywords, strings, numbers and
 * sections from the compiler's lexer, then every indexed name by what it names (a declaration
 * marked), then comments; one token per start position (the last kind found wins), one line
 * each. Folding: each declaration over several lines, and each run of comment lines.
 */
import type { Span } from "../diagnostics/types.js";
import { commentRanges } from "../fmt/comments.js";
import { RulesLexer } from "../syntax/tokens.js";
import type { FeatureContext } from "./context.js";

/** The semantic token types the server announces (order = index in the protocol's legend). */
export const TOKEN_TYPES = ["keyword", "string", "number", "comment", "namespace", "function", "enum", "enumMember", "property", "parameter", "variable", "decorator"] as const;
export const TOKEN_MODIFIERS = ["declaration"] as const;


/** One semantic token: a one-line span (1-based), its type, and whether it is a declaration. */
export interface SemanticToken {
  line: number;
  column: number;
  length: number;
  type: (typeof TOKEN_TYPES)[number];
  declaration: boolean;
}

/** The semantic tokens of `file`, sorted by position. */
export function semanticTokens(ctx: FeatureContext, file: string): SemanticToken[] {
  const text = ctx.project.read(file) ?? "";
  const byPos = new Map<string, SemanticToken>();
  const put = (s: Span, type: (typeof TOKEN_TYPES)[number], decl = false) => {
    if (s.line !== s.endLine) return;
    byPos.set(`${s.line}:${s.column}`, { line: s.line, column: s.column, length: s.endColumn - s.column, type, declaration: decl });
  };
  for (const t of RulesLexer.tokenize(text).tokens) {
    const s: Span = { line: t.startLine!, column: t.startColumn!, endLine: t.endLine!, endColumn: t.endColumn! + 1 };
    const n = t.tokenType.name;
    if (n.startsWith("Kw_")) put(s, "keyword");
    else if (n === "StringLit") put(s, "string");
    else if (n === "IntLit") put(s, "number");
    else if (n === "Section" || n === "NamedSection") put(s, "decorator");
  }
  for (const idx of ctx.indexesOf(file).slice(0, 1)) {
    for (const o of idx.occurrences) {
      if (o.file !== file) continue;
      const type = o.kind === "rule" || o.kind === "exempt" || o.kind === "invariant" ? "namespace"
        : o.kind === "action" || o.kind === "def" || o.kind === "route" || o.kind === "table" ? "function"
        : o.kind === "enum" ? "enum" : o.kind === "member" ? "enumMember" : o.kind === "field" ? "property" : o.kind === "param" ? "parameter" : "variable";
      put(o.span, type, o.def);
    }
  }
  for (const c of commentRanges(text)) put({ line: c.line, column: c.column, endLine: c.line, endColumn: c.column + c.length }, "comment");
  return [...byPos.values()].sort((a, b) => a.line - b.line || a.column - b.column);
}

/** A foldable range of lines (1-based, inclusive). */
export interface Fold {
  line: number;
  endLine: number;
  kind: "region" | "comment";
}

/** The folding ranges of `file`: declarations over several lines (regions), then runs of two or more comment lines. */
export function foldingRanges(ctx: FeatureContext, file: string): Fold[] {
  const out: Fold[] = [];
  for (const d of ctx.project.ast(file).decls) if (d.span.endLine > d.span.line) out.push({ line: d.span.line, endLine: d.span.endLine, kind: "region" });
  const text = ctx.project.read(file) ?? "";
  const lines = text.split(/\r\n|\r|\n/);
  let start = -1;
  for (let i = 0; i <= lines.length; i++) {
    const isComment = i < lines.length && /^\s*\/\//.test(lines[i]!);
    if (isComment && start < 0) start = i;
    if (!isComment && start >= 0) {
      if (i - 1 > start) out.push({ line: start + 1, endLine: i, kind: "comment" });
      start = -1;
    }
  }
  return out;
}
