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
 * source line is shown as one space so the caret stays under the right column.
 */
import type { Diagnostic } from "./types.js";

export function renderDiagnostic(d: Diagnostic, sourceText?: string): string {
  const { line, column, endLine, endColumn } = d.span;
  const out: string[] = [`${d.file}:${line}:${column}: ${d.severity}[${d.code}]: ${d.message}`];
  const lines = sourceText?.split(/\r\n|\r|\n/);
  const src = lines?.[line - 1];
  if (src !== undefined) {
    const text = src.replace(/\t/g, " ");
    const gutter = String(line);
    const pad = " ".repeat(gutter.length);
    const start = Math.max(1, Math.min(column, text.length + 1));
    const end = endLine === line ? Math.max(endColumn, start + 1) : Math.max(text.length + 1, start + 1);
    out.push(`${pad} |`);
    out.push(`${gutter} | ${text}`);
    out.push(`${pad} | ${" ".repeat(start - 1)}${"^".repeat(end - start)}`);
  }
  if (d.help) out.push(`help: ${d.help}`);
  for (const r of d.related ?? []) out.push(`note: ${r.message} at ${r.pos.file}:${r.pos.line}:${r.pos.column}`);
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
