/**
 * A concrete state and action as values of the leaves of a query ("pins") and a Z3 model of
 * them, so the obligation's own formula can be evaluated on that state (README "Fast proofs").
 *
 * Leaf → value: a leaf's path (`state.wars[3].a`, `state.hands[france]#len`, `action.target`)
 * is read from the JSON; a leaf under a map is an application of the map's function, which is
 * pinned at every key the JSON has (`state.spaces[*].unrest` at all 148 spaces). Strings are
 * pinned to their atom code (a string no rule mentions gets a fresh code, one per distinct
 * string). A leaf the JSON has no value for (a list slot past the list's length) stays free: the
 * encoding never reads it unguarded, and what a formula still says about free terms is decided by
 * Z3 (solve.ts `holdsOn`). A formula that does not hold on the pins only says "this state is no
 * witness".
 */
import type { Expr as ZExpr, Model } from "z3-solver";
import type { Type } from "../../ir/types.js";
import type { Encoder, Leaf } from "./encoder.js";

type EV = ZExpr<"main">;
type Json = unknown;

export interface Pinned {
  /** the state's and action's values of the leaves: a constant leaf, or a map function at one key tuple */
  values: Assignment[];
  /** why a leaf could not be pinned (a value of the wrong type, an unknown enum member) */
  problems: string[];
}

export type Assignment = { leaf: EV; value: EV } | { fn: MapFn; keys: EV[]; value: EV };
type MapFn = NonNullable<ReturnType<Encoder["terms"]["mapFn"]>>;

type Seg = { k: "field"; name: string } | { k: "key"; key: string } | { k: "len" };

/** `state.hands[france][3].home` → root `state`, segments field hands, key france, key 3, field home. */
export function parsePath(path: string): { root: string; segs: Seg[] } | undefined {
  const m = /^(state|action)/.exec(path);
  if (!m) return undefined;
  const segs: Seg[] = [];
  let i = m[0].length;
  while (i < path.length) {
    const rest = path.slice(i);
    let t: RegExpExecArray | null;
    if ((t = /^\.([A-Za-z_][A-Za-z0-9_]*)/.exec(rest))) segs.push({ k: "field", name: t[1] });
    else if ((t = /^\[([^\]]+)\]/.exec(rest))) segs.push({ k: "key", key: t[1] });
    else if ((t = /^#len$/.exec(rest))) segs.push({ k: "len" });
    else return undefined;
    i += t[0].length;
  }
  return { root: m[1], segs };
}

/** The JSON value of a leaf path (`state.wars[2].a`, `state.hands[france]#len`, `action.target`) in a state and action; undefined when absent. */
export function valueAt(path: string, state: Json, action: Json): Json {
  const p = parsePath(path);
  return p ? at(p.root === "state" ? state : action, p.segs) : undefined;
}

/** The JSON value at `segs` below `v` (undefined when absent). */
function at(v: Json, segs: Seg[]): Json {
  let cur: Json = v;
  for (const s of segs) {
    if (cur === undefined || cur === null) return undefined;
    if (s.k === "len") return Array.isArray(cur) ? cur.length : undefined;
    if (s.k === "field") cur = typeof cur === "object" && !Array.isArray(cur) ? (cur as Record<string, Json>)[s.name] : undefined;
    else if (Array.isArray(cur)) cur = /^\d+$/.test(s.key) ? cur[Number(s.key)] : undefined;
    else cur = typeof cur === "object" ? (cur as Record<string, Json>)[s.key] : undefined;
  }
  return cur;
}

/**
 * The pins of `leaves` (names as in `Encoder.leaves`) for a concrete state and action.
 * @param state complete state JSON (validated against the schema by the caller)
 * @param action flat action JSON (`{ action, ...params }`)
 */
export function pinState(enc: Encoder, leaves: Iterable<string>, state: Json, action: Json, memo?: PinMemo): Pinned {
  const { ctx } = enc;
  let values: Assignment[] = [];
  let problems: string[] = [];
  const fresh = memo?.fresh ?? new Map<string, number>();
  const roots: Record<string, Json> = { state, action };
  const ints = intVals(enc);
  const int = (n: number): EV => {
    let v = ints.get(n);
    if (!v) ints.set(n, (v = ctx.Int.val(n) as unknown as EV));
    return v;
  };

  const valueTerm = (t: Type, v: Json, isLen: boolean, where: string): EV | undefined => {
    if (isLen) return typeof v === "number" ? int(v) : undefined;
    switch (t.k) {
      case "bool":
        if (typeof v === "boolean") return ctx.Bool.val(v) as unknown as EV;
        break;
      case "int":
        if (typeof v === "number" && Number.isInteger(v)) return int(v);
        break;
      case "string":
        if (typeof v === "string") {
          let code = enc.terms.atoms.get(v) ?? fresh.get(v);
          if (code === undefined) fresh.set(v, (code = enc.terms.atomNames.length + fresh.size));
          return int(code);
        }
        break;
      case "enum": {
        const i = typeof v === "string" ? enc.terms.baseMembers(t).indexOf(v) : -1;
        if (i >= 0) return enc.terms.enumVal(t.base, i);
        break;
      }
    }
    problems.push(`${where}: ${JSON.stringify(v)} is not a ${t.k === "enum" ? t.base : t.k}`);
    return undefined;
  };

  const done = new Set<string>();
  const all: Assignment[] = [];
  const allProblems: string[] = [];
  for (const name of leaves) {
    const leaf = enc.terms.leaves.get(name);
    if (!leaf) continue;
    const key = leaf.pattern ?? name;
    if (done.has(key)) continue;
    done.add(key);
    const hit = memo?.byLeaf.get(key);
    if (hit) {
      all.push(...hit.values);
      allProblems.push(...hit.problems);
      continue;
    }
    values = [];
    problems = [];
    pinLeaf(leaf, name);
    memo?.byLeaf.set(key, { values, problems });
    all.push(...values);
    allProblems.push(...problems);
  }
  values = all;
  problems = allProblems;
  return { values, problems };

  function pinLeaf(leaf: Leaf, name: string): void {
    if (leaf.pattern) {
      pinMap(enc, leaf, roots, valueTerm, values);
      return;
    }
    const p = parsePath(name);
    if (!p) return;
    const v = at(roots[p.root], p.segs);
    if (v === undefined) return;
    const isLen = p.segs[p.segs.length - 1]?.k === "len";
    const val = valueTerm(leaf.type, v, isLen, name);
    if (val) values.push({ leaf: leaf.e as EV, value: val });
  }
}

/** The pins of one concrete state already computed, per leaf name or map pattern (one memo per state and action). */
export interface PinMemo {
  byLeaf: Map<string, { values: Assignment[]; problems: string[] }>;
  /** codes given to strings no rule mentions */
  fresh: Map<string, number>;
}

const intMemo = new WeakMap<Encoder, Map<number, EV>>();
function intVals(enc: Encoder): Map<number, EV> {
  let m = intMemo.get(enc);
  if (!m) intMemo.set(enc, (m = new Map()));
  return m;
}

/**
 * A Z3 model that gives every pinned leaf its value (constants, and map functions at the pinned
 * keys; any other key, constant or route gets Z3's completion). `model.eval(formula, true)` then
 * evaluates a formula on the concrete state without a search — exact for a formula with no route
 * (routes are uninterpreted: their completion is arbitrary, so a formula that calls one needs a
 * pinned check instead). The caller releases the model.
 */
export function concreteModel(enc: Encoder, values: Assignment[]): Model<"main"> {
  const model = new enc.ctx.Model();
  const fns = new Map<MapFn, ReturnType<Model<"main">["addFuncInterp"]>>();
  for (const a of values) {
    if ("leaf" in a) {
      model.updateValue(a.leaf, a.value);
      continue;
    }
    let fi = fns.get(a.fn);
    if (!fi) fns.set(a.fn, (fi = model.addFuncInterp(a.fn, a.value as never)));
    fi.addEntry(a.keys, a.value);
  }
  return model;
}

/** Pins a map's function at every key tuple the JSON has. */
function pinMap(
  enc: Encoder,
  leaf: Leaf,
  roots: Record<string, Json>,
  valueTerm: (t: Type, v: Json, isLen: boolean, where: string) => EV | undefined,
  values: Assignment[],
): void {
  const f = enc.terms.mapFn(leaf.pattern!);
  const p = parsePath(leaf.pattern!);
  if (!f || !p) return;
  const bases = leaf.bases!;
  const isLen = p.segs[p.segs.length - 1]?.k === "len";
  // walk the JSON along the pattern; every `[*]` fans out over the JSON object's keys that are
  // members of the map's key enum
  const walk = (v: Json, i: number, keys: EV[], names: string[]): void => {
    if (v === undefined || v === null) return;
    if (i === p.segs.length) {
      const val = valueTerm(leaf.type, v, false, `${leaf.pattern} at ${names.join(", ")}`);
      if (val) values.push({ fn: f, keys, value: val });
      return;
    }
    const s = p.segs[i];
    if (s.k === "len") {
      if (Array.isArray(v)) {
        const val = valueTerm(leaf.type, v.length, isLen, leaf.pattern!);
        if (val) values.push({ fn: f, keys, value: val });
      }
      return;
    }
    if (s.k === "key" && s.key === "*") {
      if (typeof v !== "object" || Array.isArray(v)) return;
      const base = bases[keys.length];
      const members = enc.terms.baseMembers({ k: "enum", name: base, base, members: [] });
      for (const [k, sub] of Object.entries(v as Record<string, Json>)) {
        const code = members.indexOf(k);
        if (code >= 0) walk(sub, i + 1, [...keys, enc.terms.enumVal(base, code)], [...names, k]);
      }
      return;
    }
    walk(at(v, [s]), i + 1, keys, names);
  };
  walk(roots[p.root], 0, [], []);
}
