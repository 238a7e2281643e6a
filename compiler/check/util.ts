/**
 * Small helpers of the check phase: the diagnostic sink, positions. Did-you-mean and JSON
 * positions live in compiler/diagnostics/ (suggest.ts, json.ts) and are re-exported here for the
 * checker's files.
 */
import type { Diagnostic, Span } from "../diagnostics/types.js";
import { CATALOG, type DiagnosticCode } from "../diagnostics/catalog.js";
import { helpParts, type Help } from "../diagnostics/suggest.js";
import type { SourcePos } from "../ir/types.js";

export { closest, didYouMean, levenshtein, listedNames, type Help } from "../diagnostics/suggest.js";
export { LINE1, jsonPositions, spanAt } from "../diagnostics/json.js";


export function posOf(file: string, span: Span): SourcePos {
  return { file, line: span.line, column: span.column };
}

export class Reporter {
  readonly diagnostics: Diagnostic[] = [];
  /** Adds one diagnostic; `help` may carry edits (`Help`), which become its `suggestions` (placed on `span` unless they say where). */
  report(code: DiagnosticCode, message: string, file: string, span: Span, help?: Help, related?: Diagnostic["related"]): void {
    this.diagnostics.push({
      code,
      severity: CATALOG[code].severity,
      message,
      file,
      span,
      ...helpParts(help, span),
      ...(related && related.length ? { related } : {}),
    });
  }
  get errorCount(): number {
    return this.diagnostics.filter((d) => d.severity === "error").length;
  }
}


/**
 * RW2105's help with its edit: a citation stub `key §"TODO: section"` inserted after the last of
 * `citations` (after `id` when there is none), with a comma when it follows another citation.
 */
export function citationStub(key: string, citations: readonly { span: Span }[], id: Span, text: string): Help {
  const after = citations.length ? citations[citations.length - 1]!.span : id;
  const at: Span = { line: after.endLine, column: after.endColumn, endLine: after.endLine, endColumn: after.endColumn };
  return { text, suggestions: [{ message: `Add a citation stub for \`${key}\``, replacement: `${citations.length ? "," : ""} ${key} §"TODO: section"`, range: at }] };
}
