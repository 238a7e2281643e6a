/**
 * Small pure helpers of the report's data (data.ts): the section a declaration is grouped under,
 * the order of the sections, and the state fields an expression reads.
 */
import type { Expr, IREdition, Type } from "../ir/types.js";
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
 * The board spaces an example names through space-typed values only (issue 25: the fact
 * `state.alliances[8].a = genoa` names Genoa the power, not the Genoa space): each action
 * parameter whose type is the board's space enum, each fact whose path is indexed by a space
 * (`state.spaces[paris].unrest`) and each fact whose value has the space type
 * (`state.foo.location = paris`). `facts` are `path = value` strings as the report stores them
 * (paths as in compiler/ir/proof-report.ts: `state.a.b[key]`, `#len`, `action.p`); a path that does
 * not type-check against the edition's state or action is ignored. Returns space ids, sorted.
 */
export function spaceFactIds(ir: IREdition, action: Record<string, unknown>, facts: string[]): string[] {
  const spaceIds = new Set(ir.board.spaces.map((s) => s.id));
  const isSpace = (t: Type | undefined): boolean => !!t && t.k === "enum" && t.members.length > 0 && t.members.every((m) => spaceIds.has(m));
  const out = new Set<string>();
  const params = ir.actions.find((a) => a.name === action.action)?.params ?? [];
  for (const p of params) {
    const v = action[p.name];
    if (isSpace(p.type) && typeof v === "string" && spaceIds.has(v)) out.add(v);
  }
  for (const f of facts) {
    const m = /^(.*?) = (.*)$/.exec(f);
    if (!m) continue;
    const t = typeOfPath(ir, m[1], params, (key, keyType) => {
      if (isSpace(keyType) && spaceIds.has(key)) out.add(key);
    });
    if (isSpace(t) && spaceIds.has(m[2])) out.add(m[2]);
  }
  return [...out].sort();
}

/** The type a fact path reads (undefined when it does not type-check); `onKey` sees each map key with its type. */
function typeOfPath(ir: IREdition, p: string, params: { name: string; type: Type }[], onKey: (key: string, t: Type) => void): Type | undefined {
  const steps = p.match(/\.[A-Za-z0-9_]+|\[[^\]]*\]|#len/g) ?? [];
  const root = p.match(/^[a-z]+/)?.[0];
  let t: Type | undefined;
  if (root === "state") t = ir.state;
  else if (root === "action") {
    const name = steps.shift()?.slice(1);
    t = params.find((x) => x.name === name)?.type;
  } else return undefined;
  for (const s of steps) {
    if (!t) return undefined;
    if (s === "#len") t = { k: "int" };
    else if (s.startsWith(".")) t = t.k === "record" ? t.fields.find((f) => f.name === s.slice(1))?.type : undefined;
    else if (t.k === "map") {
      onKey(s.slice(1, -1), t.key);
      t = t.value;
    } else t = t.k === "list" ? t.elem : undefined;
  }
  return t;
}
