/**
 * Concrete states as facts, for reports: the default value of every leaf (the one `decode.ts`
 * gives a leaf no formula mentions), the facts of a state that differ from it, and a greedy
 * shrinking of a state/action toward the defaults under a caller's predicate. No Z3 here.
 *
 * Defaults (as in `decode.ts`): false, 0 clamped into [min, max], the first enum member, "",
 * an empty list; records and maps have every field/key.
 */
import type { IRAction, Type } from "../../ir/types.js";

type Json = unknown;

/** The default of a scalar type (undefined for composites). */
export function scalarDefault(t: Type): Json {
  switch (t.k) {
    case "bool":
      return false;
    case "int": {
      let v = 0;
      if (t.min !== undefined && v < t.min) v = t.min;
      if (t.max !== undefined && v > t.max) v = t.max;
      return v;
    }
    case "string":
      return "";
    case "enum":
      return t.members[0];
    default:
      return undefined;
  }
}

/** The default of any type (decode.ts's default state when `t` is the state type): scalars as `scalarDefault`, an empty list, every record field and map key. */
export function defaultJson(t: Type): Json {
  if (t.k === "list") return [];
  if (t.k === "record") return Object.fromEntries(t.fields.map((f) => [f.name, defaultJson(f.type)]));
  if (t.k === "map") return Object.fromEntries(t.key.members.map((k) => [k, defaultJson(t.value)]));
  return scalarDefault(t);
}

/** The record type of an action's parameters (the flat action JSON without its `action` key). */
export function actionType(action: IRAction): Extract<Type, { k: "record" }> {
  return { k: "record", name: action.name, fields: action.params.map((p) => ({ name: p.name, type: p.type })) };
}

const show = (v: Json): string => {
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return `[${v.map(show).join(", ")}]`;
  if (v && typeof v === "object") return `{ ${Object.entries(v as Record<string, Json>).map(([k, x]) => `${k}: ${show(x)}`).join(", ")} }`;
  return JSON.stringify(v);
};

/**
 * The facts of `value` (of type `t`) that differ from the defaults, one string each, in type
 * order: `spaces[paris].controller = france`, `alliances[0] = { a: france, b: scotland }`
 * (a list element is shown whole). `prefix` starts every path.
 */
export function nonDefaultFacts(t: Type, value: Json, prefix = ""): string[] {
  const out: string[] = [];
  const walk = (path: string, t: Type, v: Json) => {
    switch (t.k) {
      case "record": {
        const o = (v ?? {}) as Record<string, Json>;
        for (const f of t.fields) walk(path ? `${path}.${f.name}` : f.name, f.type, o[f.name]);
        return;
      }
      case "map": {
        const o = (v ?? {}) as Record<string, Json>;
        for (const k of t.key.members) walk(`${path}[${k}]`, t.value, o[k]);
        return;
      }
      case "list": {
        const xs = Array.isArray(v) ? v : [];
        xs.forEach((x, i) => out.push(`${path}[${i}] = ${show(x)}`));
        return;
      }
      default:
        if (v !== scalarDefault(t)) out.push(`${path} = ${show(v)}`);
    }
  };
  walk(prefix, t, value);
  return out;
}

/** Every one-step simplification of `value`: a non-default scalar set to its default (an int also next to it), or one list element removed. */
function* simplifications(t: Type, value: Json): Generator<Json> {
  switch (t.k) {
    case "record": {
      const o = value as Record<string, Json>;
      for (const f of t.fields) for (const x of simplifications(f.type, o[f.name])) yield { ...o, [f.name]: x };
      return;
    }
    case "map": {
      const o = value as Record<string, Json>;
      for (const k of t.key.members) for (const x of simplifications(t.value, o[k])) yield { ...o, [k]: x };
      return;
    }
    case "list": {
      const xs = value as Json[];
      for (let i = xs.length - 1; i >= 0; i--) yield [...xs.slice(0, i), ...xs.slice(i + 1)];
      for (let i = 0; i < xs.length; i++) for (const x of simplifications(t.elem, xs[i])) yield [...xs.slice(0, i), x, ...xs.slice(i + 1)];
      return;
    }
    default: {
      const d = scalarDefault(t);
      if (value !== d) yield d;
      // an int far from its default: also the value next to the default (17 → 1)
      if (t.k === "int" && typeof value === "number" && typeof d === "number" && Math.abs(value - d) > 1) yield d + Math.sign(value - d);
    }
  }
}

/**
 * Greedy shrinking: repeatedly applies the first simplification that `keep` accepts, until none
 * does. The result is 1-minimal: resetting any one remaining fact (or removing any one list
 * element) makes `keep` false. `keep(value)` must hold on entry; it is called O(facts) times per
 * pass.
 * `maxSteps` bounds the number of accepted simplifications.
 */
export function shrink(t: Type, value: Json, keep: (v: Json) => boolean, maxSteps = 10_000): Json {
  let cur = value;
  // passes over the simplifications in order; after an accepted one the pass goes on from the
  // same position (the earlier ones are retried by the next pass), so a pass costs O(facts)
  let skip = 0;
  for (let step = 0; step < maxSteps; ) {
    let i = 0;
    let accepted = false;
    for (const c of simplifications(t, cur)) {
      if (i++ < skip) continue;
      if (keep(c)) {
        cur = c;
        skip = i - 1;
        accepted = true;
        step++;
        break;
      }
    }
    if (!accepted) {
      if (skip === 0) return cur;
      skip = 0;
    }
  }
  return cur;
}
