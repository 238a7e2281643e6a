/**
 * A variant's fixture (issue 28, `rulewright init --extends`): a state of the variant derived from
 * its parent's fixture (or, without one, from the prover's default state), with the schema
 * defaults of the variant's new fields, that satisfies every invariant of the variant. When the
 * parent's state breaks a new invariant, the fields that invariant reads are searched (one, then
 * two at a time, over their enum members, booleans and small integer ranges) for values that
 * satisfy every invariant; when none do, the result names the invariants and the fields they read
 * (the facts the designer has to set by hand).
 */
import type { IREdition, Type } from "../ir/types.js";
import { createInterpreter } from "../interpret/index.js";
import { statePaths } from "../verify/obligations/slice.js";
import { defaultJson } from "../verify/encode/state-facts.js";
import { stateProblems, withStateDefaults } from "./validate.js";

type Json = Record<string, unknown>;

/** The result of `deriveFixture`. */
export type DerivedFixture =
  | { ok: true; state: Json; /** the fields changed from the base state, `path = value` */ changed: string[] }
  | { ok: false; /** the invariants no searched change satisfies, each with the state paths it reads */ broken: { id: string; reads: string[] }[]; problems: string[] };

/** Evaluations the search may spend (each is one `brokenInvariants` call of the interpreter). */
const MAX_TRIES = 20_000;

/**
 * Derives a fixture of `ir` from `base` (the parent's fixture; undefined: the default state).
 * Never throws for a bad state: a state the schema rejects is `ok: false` with its problems.
 */
export function deriveFixture(ir: IREdition, base: Json | undefined): DerivedFixture {
  const start = withStateDefaults(ir, base ?? (defaultJson(ir.state) as Json)) as Json;
  const schema = stateProblems(ir, undefined, start);
  if (schema.length) return { ok: false, broken: [], problems: schema };
  const interp = createInterpreter(ir);
  const brokenBy = (s: Json): string[] => {
    try {
      return interp.brokenInvariants(s);
    } catch {
      return ["(the interpreter cannot read this state)"];
    }
  };
  const broken = brokenBy(start);
  if (!broken.length) return { ok: true, state: start, changed: [] };
  const readsOf = (id: string) => {
    const inv = ir.invariants.find((i) => i.id === id);
    const out = new Set<string>();
    if (inv) statePaths(inv.expr, ir, out);
    return [...out].sort();
  };
  // the scalar fields the broken invariants read, with the values to try
  const knobs = [...new Set(broken.flatMap(readsOf))].flatMap((p) => {
    const t = typeAt(ir.state, p);
    const values = t && valuesOf(t);
    return values ? [{ path: p, values }] : [];
  });
  let tries = 0;
  const attempt = (changes: { path: string; value: unknown }[]): Json | undefined => {
    if (++tries > MAX_TRIES) return undefined;
    const s = structuredClone(start);
    for (const c of changes) setAt(s, c.path, c.value);
    return stateProblems(ir, undefined, s).length || brokenBy(s).length ? undefined : s;
  };
  const shown = (cs: { path: string; value: unknown }[]) => cs.map((c) => `state.${c.path} = ${JSON.stringify(c.value)}`);
  for (const k of knobs) {
    for (const v of k.values) {
      const s = attempt([{ path: k.path, value: v }]);
      if (s) return { ok: true, state: s, changed: shown([{ path: k.path, value: v }]) };
    }
  }
  for (let i = 0; i < knobs.length; i++) {
    for (let j = i + 1; j < knobs.length; j++) {
      for (const a of knobs[i]!.values) {
        for (const b of knobs[j]!.values) {
          const cs = [{ path: knobs[i]!.path, value: a }, { path: knobs[j]!.path, value: b }];
          const s = attempt(cs);
          if (s) return { ok: true, state: s, changed: shown(cs) };
          if (tries > MAX_TRIES) break;
        }
      }
    }
  }
  return { ok: false, broken: broken.map((id) => ({ id, reads: readsOf(id) })), problems: [] };
}

/** The type of the state path `p` ("a.b": fields from the root), or undefined past a list or map. */
function typeAt(state: Type, p: string): Type | undefined {
  let t: Type | undefined = state;
  for (const seg of p.split(".")) {
    if (t?.k !== "record") return undefined;
    t = t.fields.find((f) => f.name === seg)?.type;
  }
  return t;
}

/** The values a search tries for a scalar of type `t` (undefined: not searched). */
function valuesOf(t: Type): unknown[] | undefined {
  if (t.k === "bool") return [false, true];
  if (t.k === "enum") return t.members;
  if (t.k === "int" && t.min !== undefined && t.max !== undefined && t.max - t.min <= 64) return Array.from({ length: t.max - t.min + 1 }, (_, i) => t.min! + i);
  return undefined;
}

/** Sets the value at state path `p` ("a.b") in `s` (the records on the way exist: the schema required them). */
function setAt(s: Json, p: string, v: unknown): void {
  const segs = p.split(".");
  let o = s;
  for (const seg of segs.slice(0, -1)) o = o[seg] as Json;
  o[segs[segs.length - 1]!] = v;
}

/**
 * The `complete` of verify's `reuseFromParent` (compiler/verify/cache/reuse.ts) for edition `ir`:
 * a parent's example state made a state of `ir`. The fields outside `readFields` take the values
 * the prover's decoding gives a leaf no formula mentions (`defaultJson`), the fields `ir` lacks are
 * added the same way, fields `ir` does not have are dropped; then, if an invariant of `ir` is
 * broken, the search of `deriveFixture` repairs it. Undefined when no state results, or when the
 * repair would change a field in `readFields` (the obligation's verdict could then differ).
 */
export function exampleCompleter(ir: IREdition): (state: Json, readFields: Set<string> | undefined) => Json | undefined {
  const defaults = defaultJson(ir.state) as Json;
  const names = ir.state.k === "record" ? ir.state.fields.map((f) => f.name) : [];
  return (state, readFields) => {
    const s: Json = {};
    for (const n of names) s[n] = readFields && !readFields.has(n) ? structuredClone(defaults[n]) : n in state ? state[n] : structuredClone(defaults[n]);
    const d = deriveFixture(ir, s);
    if (!d.ok) return undefined;
    for (const n of readFields ?? names) if (JSON.stringify(d.state[n]) !== JSON.stringify(s[n])) return undefined;
    return d.state;
  };
}
