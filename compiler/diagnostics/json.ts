/**
 * Reading JSON input files (states, actions, fixtures, schemas, boards) with errors a user can
 * act on: line, column and a code frame instead of "position 45" (issue 18). A UTF-8 byte-order
 * mark at the start is accepted.
 *
 * The value comes from `JSON.parse` (exact JSON semantics); on a syntax error, `jsonc-parser`
 * (a scanner with offsets, comments and trailing commas disallowed) locates the first error and
 * `@babel/code-frame` renders the lines around it.
 */
import { codeFrameColumns } from "@babel/code-frame";
import { parse as parseTolerant, printParseErrorCode, type ParseError } from "jsonc-parser";

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

function lineCol(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: Math.min(offset, text.length) - start + 1 };
}

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
    const { line, column } = lineCol(text, offset);
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
