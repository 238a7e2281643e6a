/**
 * Human rendering of a diagnostic:
 *
 *   dsl/his/war.rules:12:22: error[RW2001]: unknown state field `contoller`
 *      |
 *   12 |   forbid x when state.contoller = a
 *      |                       ^^^^^^^^^
 *   help: did you mean `controller`?
 *
 * Plain text (no colors): the CLI may color it. Columns count UTF-16 code units; a tab in the
 * source line is shown as one space so the caret stays under the right column. Every text that
 * comes from the input (message, help, the source line, file names) goes through `terminalSafe`
 * (terminal.ts): a control character shows as `\u001b`, never reaches the terminal, and the caret
 * stays under the text it marks.
 */
import { terminalSafe } from "./terminal.js";
import type { Diagnostic } from "./types.js";

/** One diagnostic as the CLI prints it (above); `sourceText` is its file's text, for the code frame. */
export function renderDiagnostic(d: Diagnostic, sourceText?: string): string {
  const { line, column, endLine, endColumn } = d.span;
  const t = terminalSafe;
  const out: string[] = [`${t(d.file)}:${line}:${column}: ${d.severity}[${d.code}]: ${t(d.message)}`];
  const lines = sourceText?.split(/\r\n|\r|\n/);
  const src = lines?.[line - 1];
  if (src !== undefined) {
    const text = src.replace(/\t/g, " ");
    const gutter = String(line);
    const pad = " ".repeat(gutter.length);
    const start = Math.max(1, Math.min(column, text.length + 1));
    const end = endLine === line ? Math.max(endColumn, start + 1) : Math.max(text.length + 1, start + 1);
    // widths as shown: an escaped control character takes six columns
    const before = t(text.slice(0, start - 1)).length;
    const marked = t(text.slice(start - 1, end - 1)).length + Math.max(0, end - 1 - text.length);
    out.push(`${pad} |`);
    out.push(`${gutter} | ${t(text)}`);
    out.push(`${pad} | ${" ".repeat(before)}${"^".repeat(Math.max(1, marked))}`);
  }
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
