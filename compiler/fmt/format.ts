/**
 * `formatRules(text)`: the one canonical layout of a rule file. Works on the compiler's own tokens
 * (compiler/syntax/tokens.ts), so the output has exactly the input's tokens in the same order —
 * the AST and the IR cannot change — and every `//` comment, in order:
 *
 * - a declaration starts at column 0; blank lines are collapsed to one; a rule, exemption,
 *   invariant, table, def, route, `override` or `remove` has one blank line before it (before the
 *   comments right above it); no blank lines at the start or end; one final newline;
 * - a continuation line of a declaration is indented by at least 2 spaces (deeper alignment, as
 *   in a long `enum`, is the designer's and kept);
 * - one space between tokens, none inside `(…)`, `[…]`, `list<…>`, before `,` `:` `.` `..`, after
 *   a unary minus, or between a called name and `(`; `{ a }` keeps or drops its inner spaces as
 *   written;
 * - a line longer than `MAX_WIDTH` (130) columns is broken before an `and`, `or` or `implies` (the last
 *   one that fits), the rest indented 2 more;
 * - a table's body `{ … }` has its braces at column 0 and one row per line, indented 2, its
 *   patterns aligned in columns;
 * - trailing comments on consecutive lines are aligned, 2 spaces after the longest line.
 *
 * Line endings: the output uses the file's own line ending — that of its first line break, `\n`,
 * `\r\n` or a lone `\r` (old Mac) — on every line (a file mixing them gets the first one
 * throughout; a file with no line break gets `\n`). The layout is computed on the text with its
 * line breaks made `\n`, as the lexer counts lines (each of the three ends one).
 *
 * Idempotent: formatting the output again gives it back (test/syntax/fmt.test.ts checks these
 * properties with fast-check). A file with a syntax error is not formatted: the result carries
 * the parser's diagnostics instead.
 */
import type { IToken } from "chevrotain";
import type { Diagnostic } from "../diagnostics/types.js";
import { parseRules } from "../syntax/index.js";
import { DECL_KEYWORDS, RulesLexer } from "../syntax/tokens.js";
import { type CommentRange, commentRanges } from "./comments.js";

/** Lines longer than this are broken before `and` / `or` / `implies` where possible (columns). */
export const MAX_WIDTH = 130;

export type FormatResult = { ok: true; text: string } | { ok: false; diagnostics: Diagnostic[] };

const BLOCK_DECLS = new Set(["rule", "exempt", "invariant", "table", "def", "route", "override", "remove"]);
const CALL_KEYWORDS = new Set(["count", "sum", "max", "min", "sum_highest", "reachable"]);
const OPERATORS = new Set(["=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "and", "or", "implies", "in", "not"]);

interface Line {
  /** original 1-based line */
  line: number;
  tokens: IToken[];
  comment?: string;
  /** original indentation (columns) */
  indent: number;
}

/** The line ending of a text: that of its first line break (`\r\n`, a lone `\r`, or `\n`); `\n` when it has none. */
export function lineEndingOf(text: string): "\n" | "\r\n" | "\r" {
  const m = /\r\n|\r|\n/.exec(text);
  return m ? (m[0] as "\n" | "\r\n" | "\r") : "\n";
}

/** The canonical layout of rule file text `input` (`file` names it in diagnostics); `ok: false` with the parser's errors when it has a syntax error. */
export function formatRules(input: string, file = "<input>"): FormatResult {
  const eol = lineEndingOf(input);
  const res = formatLf(input.replace(/\r\n?/g, "\n"), file);
  return res.ok && eol !== "\n" ? { ok: true, text: res.text.replace(/\n/g, eol) } : res;
}

/** A laid-out line before long lines are broken: its text, trailing comment and how it sits among its neighbours. */
interface OutLine {
  text: string;
  comment?: string;
  blankBefore: boolean;
  isRow?: number;
  cells?: string[];
  declBlock?: boolean;
  commentOnly?: boolean;
}

/** A line after long lines are broken: its text, trailing comment and whether a blank line precedes it. */
interface BrokenLine {
  text: string;
  comment?: string;
  blankBefore: boolean;
}

/** The token sets that place lines: declaration starts and ends, table body braces, and table rows (original line → table id). */
interface Marks {
  declStart: Set<IToken>;
  declEnd: Set<IToken>;
  bodyOpen: Set<IToken>;
  bodyClose: Set<IToken>;
  rowLines: Map<number, number>;
}

/** The layout of a text whose line breaks are all `\n`. */
function formatLf(text: string, file: string): FormatResult {
  const parsed = parseRules(text, file);
  const errors = parsed.diagnostics.filter((d) => d.severity === "error");
  if (errors.length) return { ok: false, diagnostics: errors };
  const toks = RulesLexer.tokenize(text).tokens;
  const comments = commentRanges(text);
  const srcLines = text.split("\n");
  const declStart = declStarts(toks);
  const marks: Marks = { declStart, declEnd: declEnds(toks, declStart), ...tableBodies(toks, declStart) };
  const out = layoutLines(groupLines(toks, comments, srcLines), srcLines, marks);
  alignRows(out);
  indentCommentLines(out);
  blankBeforeBlocks(out);
  const res = alignTrailingComments(breakLongLines(out));
  return { ok: true, text: res.join("\n").replace(/\n+$/, "") + "\n" };
}

/** The first token of each declaration, as the parser cuts them. */
function declStarts(toks: IToken[]): Set<IToken> {
  const declStart = new Set<IToken>();
  toks.forEach((t, i) => {
    const prev = toks[i - 1]?.image;
    if ((DECL_KEYWORDS as string[]).includes(t.image) && t.tokenType.name.startsWith("Kw_") && prev !== "." && !(t.image === "rule" && (prev === "override" || prev === "remove"))) declStart.add(t);
  });
  return declStart;
}

/** The last token of each declaration: a `}` that ends one on a line of its own goes to column 0. */
function declEnds(toks: IToken[], declStart: Set<IToken>): Set<IToken> {
  const declEnd = new Set<IToken>();
  toks.forEach((t, i) => {
    if (i > 0 && declStart.has(t)) declEnd.add(toks[i - 1]!);
  });
  if (toks.length) declEnd.add(toks[toks.length - 1]!);
  return declEnd;
}

/** Table bodies: the `{` matching a table declaration's last `}`, that `}`, and the original lines between them (→ table id). */
function tableBodies(toks: IToken[], declStart: Set<IToken>): Pick<Marks, "bodyOpen" | "bodyClose" | "rowLines"> {
  const bodyOpen = new Set<IToken>();
  const bodyClose = new Set<IToken>();
  const rowLines = new Map<number, number>(); // original line → table id
  let tableId = 0;
  for (let i = 0; i < toks.length; i++) {
    if (!declStart.has(toks[i]!) || toks[i]!.image !== "table") continue;
    let j = i + 1;
    while (j < toks.length && !declStart.has(toks[j]!)) j++;
    const last = toks[j - 1]!;
    if (last.image !== "}") continue;
    let depth = 0;
    let k = j - 1;
    for (; k > i; k--) {
      if (toks[k]!.image === "}") depth++;
      if (toks[k]!.image === "{") depth--;
      if (depth === 0) break;
    }
    const open = toks[k]!;
    bodyOpen.add(open);
    bodyClose.add(last);
    tableId++;
    for (let l = open.startLine! + 1; l < last.startLine!; l++) rowLines.set(l, tableId);
  }
  return { bodyOpen, bodyClose, rowLines };
}

/** Tokens and comments grouped by original line, in line order. */
function groupLines(toks: IToken[], comments: CommentRange[], srcLines: string[]): Line[] {
  const lines: Line[] = [];
  const byLine = new Map<number, Line>();
  const lineOf = (n: number): Line => {
    let l = byLine.get(n);
    if (!l) {
      l = { line: n, tokens: [], indent: (/^[ \t]*/.exec(srcLines[n - 1] ?? "")![0]).replace(/\t/g, "  ").length };
      byLine.set(n, l);
      lines.push(l);
    }
    return l;
  };
  for (const t of toks) lineOf(t.startLine!).tokens.push(t);
  for (const c of comments) lineOf(c.line).comment = c.text.replace(/\s+$/, "");
  lines.sort((a, b) => a.line - b.line);
  return lines;
}

/** Each line laid out on its own: comment-only lines, table rows (as cells) and indented code lines. */
function layoutLines(lines: Line[], srcLines: string[], m: Marks): OutLine[] {
  // a line whose first token opens or closes a table body, or a table row
  const out: OutLine[] = [];
  let prevLine = 0;
  for (const l of lines) {
    const blank = out.length > 0 && l.line > prevLine + 1 && srcLines.slice(prevLine, l.line - 1).every((s) => !s.trim());
    prevLine = l.line;
    if (!l.tokens.length) {
      out.push({ text: "", comment: l.comment, blankBefore: blank, commentOnly: true });
      continue;
    }
    const first = l.tokens[0]!;
    const isDecl = m.declStart.has(first);
    const tid = m.rowLines.get(l.line);
    if (tid !== undefined && !l.tokens.some((t) => m.declStart.has(t) || m.bodyClose.has(t) || m.bodyOpen.has(t))) {
      out.push({ text: "", comment: l.comment, blankBefore: blank, isRow: tid, cells: rowCells(l.tokens) });
      continue;
    }
    const indent = isDecl || m.bodyOpen.has(first) || m.bodyClose.has(first) || (first.image === "}" && m.declEnd.has(first)) ? 0 : Math.max(2, l.indent);
    out.push({ text: " ".repeat(indent) + joinTokens(l.tokens), comment: l.comment, blankBefore: blank, declBlock: isDecl && BLOCK_DECLS.has(first.image) });
  }
  return out;
}

/** Aligns table rows in place: pads each pattern cell to its column's width. */
function alignRows(out: OutLine[]): void {
  const widths = new Map<string, number[]>();
  for (const o of out) {
    if (o.isRow === undefined) continue;
    const key = `${o.isRow}:${o.cells!.length}`;
    const w = widths.get(key) ?? [];
    o.cells!.forEach((c, i) => (w[i] = Math.max(w[i] ?? 0, c.length)));
    widths.set(key, w);
  }
  for (const o of out) {
    if (o.isRow === undefined) continue;
    const w = widths.get(`${o.isRow}:${o.cells!.length}`)!;
    const cells = o.cells!;
    o.text = "  " + cells.map((c, i) => (i < cells.length - 1 ? c.padEnd(w[i]!) : c)).join(" ");
  }
}

/** Gives comment-only lines, in place, the indentation of the next code line (0 before a declaration). */
function indentCommentLines(out: OutLine[]): void {
  for (let i = 0; i < out.length; i++) {
    if (!out[i]!.commentOnly) continue;
    let j = i + 1;
    while (j < out.length && out[j]!.commentOnly) j++;
    const next = out[j];
    const ind = next ? /^ */.exec(next.text)![0].length : 0;
    out[i]!.text = " ".repeat(next && !next.commentOnly ? ind : 0);
  }
}

/** Marks, in place, one blank line before a block declaration (before the comments right above it). */
function blankBeforeBlocks(out: OutLine[]): void {
  for (let i = 0; i < out.length; i++) {
    if (!out[i]!.declBlock || out[i]!.blankBefore) continue;
    let j = i;
    while (j > 0 && out[j - 1]!.commentOnly && !out[j]!.blankBefore) j--;
    if (j > 0) out[j]!.blankBefore = true;
  }
}

/** Breaks long lines before `and` / `or` / `implies`; a broken line's comment stays on its last piece. */
function breakLongLines(out: OutLine[]): BrokenLine[] {
  const broken: BrokenLine[] = [];
  for (const o of out) {
    let text = o.text.replace(/\s+$/, "");
    const pieces: string[] = [];
    while (text.length > MAX_WIDTH && o.isRow === undefined) {
      const cut = breakAt(text);
      if (cut < 0) break;
      pieces.push(text.slice(0, cut).replace(/\s+$/, ""));
      const ind = /^ */.exec(text)![0].length;
      text = " ".repeat((pieces.length === 1 ? ind : ind - 2) + 2) + text.slice(cut);
    }
    pieces.push(text);
    pieces.forEach((p, i) => broken.push({ text: p, comment: i === pieces.length - 1 ? o.comment : undefined, blankBefore: i === 0 ? o.blankBefore : false }));
  }
  return broken;
}

/** The output lines, blank lines included: trailing comments aligned over runs of consecutive lines, 2 spaces after the longest. */
function alignTrailingComments(broken: BrokenLine[]): string[] {
  const res: string[] = [];
  for (let i = 0; i < broken.length; ) {
    const b = broken[i]!;
    if (b.comment !== undefined && b.text.trim()) {
      let j = i;
      while (j < broken.length && broken[j]!.comment !== undefined && broken[j]!.text.trim() && (j === i || !broken[j]!.blankBefore)) j++;
      const col = Math.max(...broken.slice(i, j).map((x) => x.text.length)) + 2;
      for (let k = i; k < j; k++) {
        if (k > i || broken[k]!.blankBefore) if (res.length && broken[k]!.blankBefore) res.push("");
        res.push(broken[k]!.text.padEnd(col) + broken[k]!.comment);
      }
      i = j;
      continue;
    }
    if (b.blankBefore && res.length) res.push("");
    res.push(b.comment !== undefined ? b.text + b.comment : b.text);
    i++;
  }
  return res;
}

/** Where to break a long line: before an `and`/`or`/`implies` within the width, outermost first, then the last. */
function breakAt(line: string): number {
  let best = -1;
  let bestDepth = Infinity;
  let inStr = false;
  let depth = 0;
  const indent = /^ */.exec(line)![0].length;
  for (let i = indent; i < line.length && i <= MAX_WIDTH; i++) {
    const ch = line[i]!;
    if (ch === '"') inStr = !inStr;
    if (inStr) continue;
    if ("([{".includes(ch)) depth++;
    if (")]}".includes(ch)) depth--;
    if (i > indent && line[i - 1] === " " && /^(and|or|implies|unless) /.test(line.slice(i)) && depth <= bestDepth) {
      best = i;
      bestDepth = depth;
    }
  }
  return best;
}

/** A table row's cells: each pattern with its comma, the last with its guard and `:`, then the value. */
function rowCells(ts: IToken[]): string[] {
  const cells: IToken[][] = [[]];
  let depth = 0;
  let inValue = false;
  for (const t of ts) {
    cells[cells.length - 1]!.push(t);
    if (inValue) continue;
    if (t.image === "{" || t.image === "(") depth++;
    if (t.image === "}" || t.image === ")") depth--;
    if (depth === 0 && t.image === ",") cells.push([]);
    if (depth === 0 && t.image === ":") {
      inValue = true;
      cells.push([]);
    }
  }
  return cells.filter((c) => c.length).map(joinTokens);
}

/** Tokens of one line, with the canonical spaces between them. */
export function joinTokens(ts: IToken[]): string {
  let s = "";
  let typeDepth = 0;
  const braceSpace: boolean[] = [];
  // `enum Sub : Base { … }` keeps a space before its colon
  const enumColon = ts[0]?.image === "enum" ? ts.findIndex((t) => t.image === ":" ) : -1;
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i]!;
    const p = ts[i - 1];
    const im = t.image;
    if (!p) {
      s += im;
      if (im === "{") braceSpace.push(spaceAfter(t, ts[i + 1]));
      continue;
    }
    const pi = p.image;
    let space = true;
    const prevIsName = /^[A-Za-z_]/.test(pi) && !(p.tokenType.name.startsWith("Kw_") && !CALL_KEYWORDS.has(pi));
    if (i === enumColon && !ts.slice(0, i).some((t) => t.image === "{")) space = true;
    else if ([",", ":", ")", "]", ".", ".."].includes(im)) space = false;
    else if (["(", "[", ".", "..", "@"].includes(pi)) space = false;
    else if (im === "(" && prevIsName) space = false;
    else if (im === "[") space = false;
    else if (im === "<" && pi === "list") {
      space = false;
      typeDepth++;
    } else if (typeDepth > 0 && pi === "<") space = false;
    else if (typeDepth > 0 && im === ">") {
      space = false;
      typeDepth--;
    } else if (pi === "-" && isUnaryMinus(ts, i - 1)) space = false;
    else if (pi === "{") space = braceSpace[braceSpace.length - 1] ?? true;
    else if (im === "}") space = braceSpace[braceSpace.length - 1] ?? true;
    if (im === "}") braceSpace.pop();
    s += (space ? " " : "") + im;
    if (im === "{") braceSpace.push(spaceAfter(t, ts[i + 1]));
  }
  return s;
}

function spaceAfter(t: IToken, next: IToken | undefined): boolean {
  return !next || next.startOffset > t.endOffset! + 1;
}

function isUnaryMinus(ts: IToken[], i: number): boolean {
  const p = ts[i - 1];
  if (!p) return true;
  return OPERATORS.has(p.image) || ["(", "[", ",", ":", "..", "{", "when", "then", "else", "if", "max_seas", "max_steps", "passes", "key", "<=", ">="].includes(p.image) || (p.tokenType.name.startsWith("Kw_") && !["true", "false", "state"].includes(p.image));
}
