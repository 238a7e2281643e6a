/**
 * Small pure helpers of the report's data (data.ts): the section a declaration is grouped under,
 * the order of the sections, and the state fields an expression reads.
 */
import type { Expr } from "../ir/types.js";
import { children } from "../ir/walk.js";

/** "§9.6" for his §9.6, the section's name for a named one. */
export function sectionOf(c: { section: string; named?: true }): string {
  return c.named ? c.section : `§${c.section}`;
}

/** The sort key of a section: numbered sections first, then named ones, then invariants and routes. */
export function sectionKey(s: string): string {
  return s.startsWith("§") ? `0${s}` : s.startsWith("Invariants") || s.startsWith("Routes") ? `2${s}` : `1${s}`;
}

/** The state fields an expression reads, as dotted paths without keys ("spaces.land_units"). */
export function readsOf(e: Expr): string[] {
  const out = new Set<string>();
  const walk = (x: Expr) => {
    const p = statePath(x);
    if (p) out.add(p);
    for (const c of children(x)) walk(c);
  };
  walk(e);
  // keep the longest paths only
  const all = [...out];
  return all.filter((p) => !all.some((q) => q !== p && q.startsWith(p + "."))).sort();
}

/** The dotted state path a field or index expression reads ("spaces.land_units"), null for any other. */
function statePath(x: Expr): string | null {
  if (x.k === "field") {
    if (x.obj.k === "state") return x.field;
    const inner = statePath(x.obj);
    return inner ? `${inner}.${x.field}` : null;
  }
  if (x.k === "index") return statePath(x.obj);
  return null;
}
