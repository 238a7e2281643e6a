/**
 * Code actions: the quick fixes of the compiler's diagnostics are their `suggestions`
 * (compiler/diagnostics/types.ts) — a did-you-mean (preferred), each field RW2001 lists, RW2105's
 * citation stub — carried to the editor in the published diagnostic's `data` and back in the
 * code-action request (LSP 3.16+ keeps `data`). Nothing here reads a diagnostic's words. (The
 * proof findings' actions are proving.ts's.)
 */
import type { Span, Suggestion } from "../diagnostics/types.js";

/** One quick fix: its title, whether it is the preferred one, and the edit (in the diagnostic's file). */
export interface QuickFix {
  title: string;
  preferred: boolean;
  span: Span;
  newText: string;
}

/** Whether `x` (a diagnostic's `data` as the client sent it back) is a well-formed suggestion. */
function isSuggestion(x: unknown): x is Suggestion {
  if (!x || typeof x !== "object") return false;
  const s = x as Partial<Suggestion>;
  const r = s.range as Partial<Span> | undefined;
  return typeof s.message === "string" && typeof s.replacement === "string" && !!r && [r.line, r.column, r.endLine, r.endColumn].every((n) => Number.isInteger(n));
}

/** The quick fixes of one diagnostic, from the `data` the server published with it (anything else in `data` is ignored). */
export function quickFixes(data: unknown): QuickFix[] {
  const suggestions = data && typeof data === "object" ? (data as { suggestions?: unknown }).suggestions : undefined;
  if (!Array.isArray(suggestions)) return [];
  return suggestions.filter(isSuggestion).map((s) => ({ title: s.message, preferred: s.preferred === true, span: s.range, newText: s.replacement }));
}
