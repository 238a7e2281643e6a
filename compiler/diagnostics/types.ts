/**
 * Diagnostics are data. Every phase reports problems as `Diagnostic` values; nothing throws on
 * bad user input. The catalog of codes lives in `catalog.ts` (closed: a new code is added there).
 *
 * Message style (after Cedar): short, lowercase, user text in backticks, no trailing period.
 */
export type Severity = "error" | "warning" | "info";

export interface Span {
  /** 1-based */
  line: number;
  /** 1-based */
  column: number;
  /** 1-based, inclusive; same line as `line` when the span is on one line */
  endLine: number;
  /** 1-based, exclusive */
  endColumn: number;
}

/** One edit a diagnostic offers: write `replacement` over `range` (empty range: insert) in the diagnostic's file. */
export interface Suggestion {
  /** what the edit does, as an editor titles it ("Change to `controller`") */
  message: string;
  replacement: string;
  range: Span;
  /** the edit to take when there is one obvious fix (a did-you-mean) */
  preferred?: boolean;
}

export interface Diagnostic {
  /** catalog code, e.g. "RW1001" */
  code: string;
  severity: Severity;
  message: string;
  /** path relative to the repo root (or as given on the command line) */
  file: string;
  span: Span;
  /** one line of advice: what to write instead */
  help?: string;
  /**
   * edits that carry the help out, as data (the language server's quick fixes read these, never
   * the help's words): did-you-mean, the names a list offers, a citation stub
   */
  suggestions?: Suggestion[];
  /**
   * other places that explain this one (e.g. the first definition of a duplicate id); `pos` is
   * the IR's `SourcePos`, spelled out: diagnostics sit under every stage, syntax included, and
   * import nothing of the compiler
   */
  related?: { message: string; pos: { file: string; line: number; column: number } }[];
}
