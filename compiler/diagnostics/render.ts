/**
 * Human rendering of a diagnostic:
 *
 *   dsl/his/war.rules:12:22: error[RW2001]: unknown state field `contoller`
 *      |
 *   12 |   forbid x when state.contoller = a
 *      |                       ^^^^^^^^^
 *   help: did you mean `controller`?
 *
 * Plain text (no colors): the CLI may color it. The frame is `@babel/code-frame`'s (the one code
 * frame of the compiler; JSON syntax errors use it too, json.ts), in the layout above. Columns
 * count UTF-16 code units; a tab in the source line is shown as one space so the caret stays
 * under the right column. Every text that
 * comes from the input (message, help, the source line, file names) goes through `terminalSafe`
 * (terminal.ts): a control character shows as `\u001b`, never reaches the terminal, and the caret
 * stays under the text it marks.
 */
import { codeFrameColumns } from "@babel/code-frame";
import { terminalSafe } from "./terminal.js";
import type { Diagnostic } from "./types.js";

/** Characters that end a line for `@babel/code-frame` but not for the rule lexer: held aside while it draws the line. */
const LINE_SEPARATORS = /[\u2028\u2029]/g;

/** code-frame's options for one line numbered `line` (`startLine` is in its code, not in its types: hence a variable). */
function frameOptions(line: number): Parameters<typeof codeFrameColumns>[2] {
  const opts = { highlightCode: false, linesAbove: 0, linesBelow: 0, startLine: line };
  return opts;
}

/** Two private-use characters that `text` does not contain. */
function standIns(text: string): [string, string] {
  const out: string[] = [];
  for (let c = 0xe000; out.length < 2; c++) if (!text.includes(String.fromCharCode(c))) out.push(String.fromCharCode(c));
  return [out[0]!, out[1]!];
}

/**
 * The frame of one source line (`src`, line number `line`): a blank gutter, the line, and carets
 * under columns `column` to `endColumn` (exclusive; undefined: to the end of the line, for a span
 * that goes on to the next lines; at least one caret). The line goes through `terminalSafe`, and
 * the carets are placed under the text as shown (an escaped character is six columns wide).
 */
function sourceFrame(src: string, line: number, column: number, endColumn: number | undefined): string {
  const t = terminalSafe;
  const text = src.replace(/\t/g, " ");
  const start = Math.max(1, Math.min(column, text.length + 1));
  const end = endColumn !== undefined ? Math.max(endColumn, start + 1) : Math.max(text.length + 1, start + 1);
  // widths as shown: an escaped control character takes six columns
  const before = t(text.slice(0, start - 1)).length;
  const marked = Math.max(1, t(text.slice(start - 1, end - 1)).length + Math.max(0, end - 1 - text.length));
  const shown = t(text);
  // private-use characters absent from the line stand in for U+2028 and U+2029 while code-frame draws it
  const [sep, para] = standIns(shown);
  const frame = codeFrameColumns(shown.replace(LINE_SEPARATORS, (c) => (c === "\u2028" ? sep : para)), { start: { line, column: before + 1 }, end: { line, column: before + 1 + marked } }, frameOptions(line));
  // code-frame writes `> 12 | text` and `     | ^^^`: this layout has no `>` column, a blank
  // gutter line first, and a space after the bar even before an empty line
  const [code = "", carets = ""] = frame.split("\n").map((l) => l.slice(2));
  const restored = code.replaceAll(sep, "\u2028").replaceAll(para, "\u2029");
  const pad = " ".repeat(String(line).length);
  return [`${pad} |`, restored.endsWith("|") ? `${restored} ` : restored, carets].join("\n");
}

/** One diagnostic as the CLI prints it (above); `sourceText` is its file's text, for the code frame. */
export function renderDiagnostic(d: Diagnostic, sourceText?: string): string {
  const { line, column, endLine, endColumn } = d.span;
  const t = terminalSafe;
  const out: string[] = [`${t(d.file)}:${line}:${column}: ${d.severity}[${d.code}]: ${t(d.message)}`];
  const src = sourceText?.split(/\r\n|\r|\n/)[line - 1];
  if (src !== undefined) out.push(sourceFrame(src, line, column, endLine === line ? endColumn : undefined));
  if (d.help) out.push(`help: ${t(d.help)}`);
  for (const r of d.related ?? []) out.push(`note: ${t(r.message)} at ${t(r.pos.file)}:${r.pos.line}:${r.pos.column}`);
  return out.join("\n");
}

/** Render many diagnostics; `readSource(file)` gives a file's text (undefined if unreadable). */
export function renderDiagnostics(ds: Diagnostic[], readSource: (file: string) => string | undefined): string {
  const cache = new Map<string, string | undefined>();
  return ds
    .map((d) => {
      if (!cache.has(d.file)) cache.set(d.file, readSource(d.file));
      return renderDiagnostic(d, cache.get(d.file));
    })
    .join("\n\n");
}
