/**
 * Z3 model → a complete state JSON (valid against the edition's schema) and a flat action JSON.
 *
 * Leaves the obligation mentioned take their value from the model (a leaf under a map is read
 * from the map's function at every key the model gives one of its applied key tuples); every other field gets a
 * default (false, 0 clamped into [min, max], the first enum member, "", an empty list, a map with
 * every key), or with `base` given (the state and action of a seed the solver searched near)
 * the base's value where it has one of the field's type. Defaults are sound: an unmentioned leaf
 * occurs in no asserted formula.
 */
import type { Expr as ZExpr, Model } from "z3-solver";
import type { IRAction, Type } from "../../ir/types.js";
import type { Encoder } from "./encoder.js";

export interface Decoded {
  state: Record<string, unknown>;
  action: Record<string, unknown>;
}

export function decode(enc: Encoder, model: Model<"main">, leaves: Set<string>, action: IRAction, base?: Decoded): Decoded {
  const { ctx } = enc;
  const used = new Set<string>(enc.terms.atomNames);
  const atomOf = new Map<number, string>();
  const atom = (code: number): string => {
    if (code >= 0 && code < enc.terms.atomNames.length) return enc.terms.atomNames[code];
    let s = atomOf.get(code);
    if (s === undefined) {
      s = `s${code < 0 ? "m" + -code : code}`;
      while (used.has(s)) s += "_";
      used.add(s);
      atomOf.set(code, s);
    }
    return s;
  };
  // leaves under maps are applications of one function per pattern: a concrete path is read
  // from the function when the model's value of some applied key tuple is that path's keys
  const applied = new Map<string, Set<string>>();
  const basesOf = new Map<string, string[]>();
  for (const name of leaves) {
    const leaf = enc.terms.leaves.get(name);
    if (!leaf?.pattern) continue;
    basesOf.set(leaf.pattern, leaf.bases!);
    const concrete = enc.terms.concreteName(leaf, model);
    let set = applied.get(leaf.pattern);
    if (!set) applied.set(leaf.pattern, (set = new Set()));
    set.add(concrete);
  }
  const evalAt = (path: string) => {
    const leaf = leaves.has(path) ? enc.terms.leaves.get(path) : undefined;
    if (leaf) return model.eval(leaf.e, true);
    const keys: string[] = [];
    const pattern = path.replace(/\[([A-Za-z_][A-Za-z0-9_]*)\]/g, (_, k: string) => {
      keys.push(k);
      return "[*]";
    });
    if (!keys.length || !applied.get(pattern)?.has(path)) return undefined;
    const f = enc.terms.mapFn(pattern);
    const bases = basesOf.get(pattern);
    if (!f || !bases) return undefined;
    const args = keys.map((k, i) => enc.terms.enumVal(bases[i], enc.terms.baseMembers({ k: "enum", name: bases[i], base: bases[i], members: [] }).indexOf(k)));
    return model.eval(f.call(...args) as ZExpr<"main">, true);
  };
  const read = (path: string, t?: Type): { b?: boolean; n?: number } | undefined => {
    const v = evalAt(path);
    if (v === undefined) return undefined;
    if (t?.k === "enum") {
      const n = enc.terms.enumIndexOf(t.base, v);
      return n === undefined ? undefined : { n };
    }
    if (ctx.isBool(v)) return { b: ctx.isTrue(v) };
    if (ctx.isIntVal(v)) return { n: Number(v.value()) };
    return undefined;
  };
  // a value the model does not give: the base's (a seed's, when it has one of the type), else the default
  const rec = (b: unknown, k: string | number): unknown => (b !== null && typeof b === "object" ? (b as Record<string, unknown>)[k] : undefined);
  const build = (path: string, t: Type, b?: unknown): unknown => {
    switch (t.k) {
      case "bool":
        return read(path, t)?.b ?? (typeof b === "boolean" ? b : false);
      case "int": {
        const n = read(path, t)?.n;
        if (n === undefined && typeof b === "number" && Number.isInteger(b) && (t.min === undefined || b >= t.min) && (t.max === undefined || b <= t.max)) return b;
        if (n === undefined || (t.min !== undefined && n < t.min) || (t.max !== undefined && n > t.max)) return clampDefault(t);
        return n;
      }
      case "string": {
        const n = read(path, t)?.n;
        return n === undefined ? (typeof b === "string" ? b : "") : atom(n);
      }
      case "enum": {
        const n = read(path, t)?.n;
        const m = n === undefined ? (typeof b === "string" ? b : undefined) : enc.terms.baseMembers(t)[n];
        return m !== undefined && t.members.includes(m) ? m : t.members[0];
      }
      case "record": {
        const o: Record<string, unknown> = {};
        for (const f of t.fields) o[f.name] = build(`${path}.${f.name}`, f.type, rec(b, f.name));
        return o;
      }
      case "map": {
        const o: Record<string, unknown> = {};
        for (const k of t.key.members) o[k] = build(`${path}[${k}]`, t.value, rec(b, k));
        return o;
      }
      case "list": {
        const raw = read(`${path}#len`, { k: "int" })?.n;
        if (raw === undefined && Array.isArray(b)) return b.slice(0, t.bound).map((x, i) => build(`${path}[${i}]`, t.elem, x));
        const len = Math.max(0, Math.min(raw ?? 0, t.bound));
        return Array.from({ length: len }, (_, i) => build(`${path}[${i}]`, t.elem, Array.isArray(b) ? b[i] : undefined));
      }
    }
  };
  const state = build("state", enc.ir.state, base?.state) as Record<string, unknown>;
  const act: Record<string, unknown> = { action: action.name };
  for (const p of action.params) act[p.name] = build(`action.${p.name}`, enc.terms.paramType(p.type), base?.action[p.name]);
  return { state, action: act };
}

/** 0 clamped into [min, max]. */
function clampDefault(t: { min?: number; max?: number }): number {
  let v = 0;
  if (t.min !== undefined && v < t.min) v = t.min;
  if (t.max !== undefined && v > t.max) v = t.max;
  return v;
}
