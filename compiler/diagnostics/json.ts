/**
 * Reading JSON input files (states, actions, fixtures, schemas, boards) with errors a user can
 * act on: line, column and a code frame instead of "position 45" (issue 18). A UTF-8 byte-order
 * mark at the start is accepted.
 *
 * The value comes from `JSON.parse` (exact JSON semantics); on a syntax error, `jsonc-parser`
 * (a scanner with offsets, comments and trailing commas disallowed) locates the first error and
 * `@babel/code-frame` renders the lines around it. `jsonPositions` gives the place of every value
 * of a JSON text by JSON pointer (from `jsonc-parser`'s tree), for diagnostics about a schema or a
 * board; `stableJson` writes a value with its object keys sorted (cache keys, comparisons).
 */
import { codeFrameColumns } from "@babel/code-frame";
import { parse as parseTolerant, parseTree, printParseErrorCode, type Node, type ParseError } from "jsonc-parser";
import { LineIndex } from "./lines.js";
import type { Span } from "./types.js";

/** A JSON syntax error: 1-based line and column, a one-line message, the source lines around it. */
export interface JsonSyntaxError {
  message: string;
  line: number;
  column: number;
  /** the lines around the error with a caret (plain text, no colours) */
  frame: string;
}

/** The text without a leading UTF-8 byte-order mark (U+FEFF). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const WORDS: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "malformed number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: "expected `:`",
  CommaExpected: "expected `,`",
  CloseBraceExpected: "expected `}`",
  CloseBracketExpected: "expected `]`",
  EndOfFileExpected: "unexpected text after the JSON value",
  InvalidCommentToken: "comments are not allowed in JSON",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "malformed number",
  InvalidUnicode: "malformed `\\u` escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in a string (control characters must be escaped)",
};

/**
 * Parses a JSON text (a leading BOM is skipped). Never throws.
 * @returns `{ value }`, or `{ error }` with the line and column of the first syntax error
 */
export function parseJson(raw: string): { value: unknown; error?: undefined } | { value?: undefined; error: JsonSyntaxError } {
  const text = stripBom(raw);
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    const errors: ParseError[] = [];
    parseTolerant(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    const offset = first ? first.offset : 0;
    const { line, column } = new LineIndex(text).positionAt(offset);
    const message = first ? (WORDS[printParseErrorCode(first.error)] ?? printParseErrorCode(first.error)) : ((e as Error).message.split("\n")[0] ?? "invalid JSON");
    // long lines (minified JSON) are cut around the column so the frame stays readable
    const lines = text.split("\n");
    const src = lines[line - 1] ?? "";
    const from = Math.max(0, column - 60);
    const shown = lines.map((l, i) => (i === line - 1 ? (from > 0 ? "…" : "") + src.slice(from, column + 60) : l.slice(0, 120)));
    const frame = codeFrameColumns(shown.join("\n"), { start: { line, column: column - from + (from > 0 ? 1 : 0) } }, { highlightCode: false, linesAbove: 2, linesBelow: 1 });
    return { error: { message, line, column, frame } };
  }
}

/** The span of a value written from `start` to `end` (offsets): its first line only (`Span`'s one-line form). */
function firstLineSpan(lines: LineIndex, start: number, end: number): Span {
  const s = lines.positionAt(start);
  const e = lines.positionAt(Math.max(start, end - 1));
  return { line: s.line, column: s.column, endLine: s.line, endColumn: e.line === s.line ? e.column + 1 : s.column + 1 };
}

/**
 * Positions of the values of a (valid) JSON text by JSON pointer ("" = root, "/a/0/b"; `~` and
 * `/` in keys escaped as `~0`, `~1`). Each span covers the value's first line. A key written twice
 * gets the place of its last value. A text that is not JSON gives the values it could place (a
 * partial map: positions are a convenience). The map of a text is made once and kept for the
 * last few texts (a language server checks an edition on every edit, with the same schema and
 * board: their positions took 20 ms per check on HIS): the same text gives the same map, which
 * callers must not change.
 */
export function jsonPositions(text: string): Map<string, Span> {
  const hit = positionsMemo.get(text);
  if (hit) {
    // most recently used last
    positionsMemo.delete(text);
    positionsMemo.set(text, hit);
    return hit;
  }
  const out = positionsOf(text);
  positionsMemo.set(text, out);
  for (const old of positionsMemo.keys()) if (positionsMemo.size > POSITIONS_MEMO_MAX) positionsMemo.delete(old);
  return out;
}

/** JSON texts whose positions `jsonPositions` keeps (an edition has a schema and a board; a project a few editions). */
const POSITIONS_MEMO_MAX = 8;
const positionsMemo = new Map<string, Map<string, Span>>();

function positionsOf(text: string): Map<string, Span> {
  const out = new Map<string, Span>();
  const lines = new LineIndex(text);
  const esc = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");
  const visit = (n: Node, ptr: string): void => {
    if (n.type === "object") {
      for (const p of n.children ?? []) {
        const [key, value] = p.children ?? [];
        if (key && value && typeof key.value === "string") visit(value, `${ptr}/${esc(key.value)}`);
      }
    } else if (n.type === "array") (n.children ?? []).forEach((c, i) => visit(c, `${ptr}/${i}`));
    out.set(ptr, firstLineSpan(lines, n.offset, n.offset + n.length));
  };
  const root = parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
  if (root) visit(root, "");
  return out;
}

/** The first line and column, as a span of one character: where a JSON text's root is not known. */
export const LINE1: Span = { line: 1, column: 1, endLine: 1, endColumn: 2 };

/** The span of the deepest prefix of JSON pointer `ptr` that `positions` (`jsonPositions`) knows; `LINE1` when none. */
export function spanAt(positions: Map<string, Span>, ptr: string): Span {
  let p = ptr;
  for (;;) {
    const s = positions.get(p);
    if (s) return s;
    if (p === "") return LINE1;
    p = p.slice(0, p.lastIndexOf("/"));
  }
}

/**
 * A value as JSON with every object's keys sorted (code-unit order) and no spaces; keys whose
 * value is `undefined` are left out. Equal values give equal texts whatever the order their keys
 * were written in: cache keys are hashed from it (compiler/verify/cache/keys.ts), and a table
 * scenario's expected result is compared with it (compiler/scenarios/). Changing its output
 * changes every proof-cache key.
 */
export function stableJson(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(stableJson).join(",")}]`;
  if (x && typeof x === "object") {
    return `{${Object.keys(x)
      .sort()
      .filter((k) => (x as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((x as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(x);
}
