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

/**
 * The rulebook order of an edition's sections (issue 25): each section ranked by the first
 * paragraph of the rulebook sources that names one of its declarations, in the coverage
 * manifests of the edition (`paragraphs` in source-file order, then paragraph number; see
 * compiler/coverage/README.md). A section no manifest names has no rank (undefined).
 */
export function rulebookRanks(sections: Map<string, string[]>, manifests: { edition: string; source: string; paragraphs: { n: number; rules: { id: string }[] }[] }[], edition: string): Map<string, number> {
  const first = new Map<string, number>();
  const mine = manifests.filter((m) => m.edition === edition).sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  mine.forEach((m, fi) => {
    for (const p of m.paragraphs) for (const r of p.rules) {
      const at = fi * 1_000_000 + p.n;
      if (!first.has(r.id) || first.get(r.id)! > at) first.set(r.id, at);
    }
  });
  const ranks = new Map<string, number>();
  for (const [section, ids] of sections) {
    const r = Math.min(...ids.map((id) => first.get(id) ?? Infinity));
    if (Number.isFinite(r)) ranks.set(section, r);
  }
  return ranks;
}
