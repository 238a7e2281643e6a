/**
 * Go to definition, find references: the declaration of the name under the cursor and every
 * place it is used, over every edition the file belongs to (each symbol index is the checker's
 * resolution table, symbols.ts), without duplicates, sorted by file and position.
 */
import type { Span } from "../diagnostics/types.js";
import type { FeatureContext } from "./context.js";
import type { Occurrence } from "./symbols.js";

/** A place in a file: an absolute path and a span. */
export interface Place {
  file: string;
  span: Span;
}

/** The declarations of the name at a 1-based line and column (one per distinct place). */
export function definition(ctx: FeatureContext, file: string, line: number, column: number): Place[] {
  const seen = new Set<string>();
  const out: Place[] = [];
  for (const { index, occ } of ctx.at(file, line, column)) {
    const d = index.defs.get(occ.key);
    if (!d) continue;
    const k = `${d.file}:${d.span.line}:${d.span.column}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ file: d.file, span: d.span });
  }
  return out;
}

/** Every occurrence of the symbol at the position, over every edition the file belongs to. */
export function occurrencesOf(ctx: FeatureContext, file: string, line: number, column: number, includeDeclaration: boolean): Occurrence[] {
  const seen = new Set<string>();
  const out: Occurrence[] = [];
  for (const { index, occ } of ctx.at(file, line, column)) {
    const all = [...index.occurrences.filter((o) => o.key === occ.key)];
    const d = index.defs.get(occ.key);
    if (d && !all.includes(d)) all.push(d);
    for (const o of all) {
      if (!includeDeclaration && o.def) continue;
      const k = `${o.file}:${o.span.line}:${o.span.column}`;
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(o);
    }
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.span.line - b.span.line || a.span.column - b.span.column);
}

/** The places of `occurrencesOf`. */
export function references(ctx: FeatureContext, file: string, line: number, column: number, includeDeclaration: boolean): Place[] {
  return occurrencesOf(ctx, file, line, column, includeDeclaration).map((o) => ({ file: o.file, span: o.span }));
}
