/**
 * Mutation testing of a conformance corpus (issue 26, item 5): which mutants of the rules
 * (compiler/engine/mutants.ts) the corpus kills in verdict-only mode, and a bounded search for a
 * state that tells a surviving mutant apart, which becomes a new corpus case.
 *
 * Verdict-only: a mutant is killed by a case when the interpreter running the mutated edition
 * answers `allowed` differently from the case's expected `allowed` (or throws: the reference
 * runner counts an engine that fails as a disagreement). Rule ids are not compared.
 *
 * Equivalence is decided by the bounded search (`distinguish`): a mutant no corpus case kills is
 * searched for, best first, from the corpus cases of its action: each step changes one action
 * parameter (every member of an enum, ± 1 of an int, a flipped bool, two parameters swapped) or
 * one value of the state that the mutated rule, its exemptions or the rules that also fire read
 * (recorded through a Proxy while the interpreter evaluates them): a bool flipped, an int ± 1,
 * an enum value replaced by another member, a list reversed, rotated, emptied, one element
 * removed or a copy of one put first. The search is guided by how far a state is from a verdict
 * difference (does the mutated rule fire differently? how many other rules also fire?) and stops
 * after `budget` evaluated candidates. A found state must pass the edition's schema and
 * invariants and get the same verdict from the generated validators as from the interpreter. A
 * mutant the search cannot tell apart is reported `equivalent` — equivalent within the bound,
 * not proved so.
 */
import { isDeepStrictEqual } from "node:util";
import type { IREdition, Type } from "../ir/types.js";
import { actorParam, isActorOnly } from "../ir/derived.js";
import { createInterpreter, type Interpreter } from "../interpret/index.js";
import { mutantsOf, mutateEdition, type Mutant } from "./mutants.js";

/** A corpus case as the mutation run needs it: the state already built from base + patch. */
export interface MutationCase {
  id: string;
  state: unknown;
  action: Record<string, unknown>;
  allowed: boolean;
  /** the ids of the rules the case's verdict reports as violated */
  violations: readonly string[];
}

/** What happened to one mutant. */
export interface MutantResult {
  id: string;
  rule: string;
  op: Mutant["op"];
  detail: string;
  /**
   * killed: a corpus case tells it apart; equivalent: Z3 proved that no state does
   * (compiler/engine/mutation-proof.ts); unknown: neither the search nor Z3 decided it (`reason`)
   */
  status: "killed" | "equivalent" | "unknown";
  /** the id of the first corpus case that kills it */
  by?: string;
  /** what made that case: the scenarios and proof cases (`corpus`), the bounded search, or a replayed Z3 state (`z3`) */
  killedBy?: "corpus" | "search" | "z3";
  /** why unknown: Z3's reason, or that Z3 has no fresh answer for it */
  reason?: string;
}

type Json = unknown;
type Rec = Record<string, Json>;
type Path = (string | number)[];
/** At most this many state values read per rule are changed from one search node (a route search reads hundreds). */
const MAX_PATHS = 64;

/** A verdict as the mutation run reads it: `allowed` and the ids of the violated rules. */
export type CheckFn = (state: unknown, action: unknown) => { allowed: boolean; violations: readonly { rule: string }[] };

/**
 * The verdict-only answer of the edition with mutant `m` on (state, action), given which other
 * rules fire: only the mutated rule changes, so it is evaluated alone (by the interpreter of the
 * mutated edition) and the rest of the verdict is the edition's (`othersFire`). "error" when the
 * mutated rule throws. A forbid rule counts for its own action; an oblige rule of an actor-only
 * action counts for every other action of the same actor (docs/CONTRACTS.md "Verdict semantics").
 */
export function mutantVerdict(ir: IREdition, m: Mutant, mut: Pick<Interpreter, "fires">, state: unknown, action: Rec, othersFire: boolean, origAllowed: boolean): boolean | "error" {
  const rule = ir.rules.find((r) => r.id === m.rule)!;
  let act: Rec | undefined;
  if (rule.kind === "forbid") act = action.action === rule.action ? action : undefined;
  else if (action.action !== rule.action) {
    const own = ir.actions.find((a) => a.name === rule.action);
    const theirs = ir.actions.find((a) => a.name === action.action);
    const p = own && isActorOnly(own) ? actorParam(own) : undefined;
    const q = theirs ? actorParam(theirs) : undefined;
    const v = q ? action[q.name] : undefined;
    if (p && q && (p.type.k !== "enum" || p.type.members.includes(v as string))) act = { action: rule.action, [p.name]: v };
  }
  if (!act) return origAllowed;
  try {
    return !othersFire && !mut.fires(rule.id, state, act);
  } catch {
    return "error";
  }
}

/**
 * Whether (state, action) tells mutant `m` apart in verdict-only mode, replayed: the state and
 * action are valid, the validators (`check`) and the interpreter give the edition the same
 * `allowed`, and the mutant's `allowed` (or its throwing) differs from it.
 */
export function distinguishes(ir: IREdition, m: Mutant, o: { check: CheckFn; interp: Interpreter; mut: Interpreter; valid: (state: unknown, action: Rec) => boolean }, state: unknown, action: Rec): boolean {
  if (!o.valid(state, action)) return false;
  let v;
  try {
    v = o.check(state, action);
    if (o.interp.check(state, action).allowed !== v.allowed) return false;
  } catch {
    return false;
  }
  const others = v.violations.some((x) => x.rule !== m.rule);
  const alone = mutantVerdict(ir, m, o.mut, state, action, others, v.allowed);
  return alone !== v.allowed;
}

/** The cases a mutant of rule `ruleId` can change the verdict of: its action's (every case for an oblige rule, which binds the actor's other actions). */
export function relevantCases<T extends { action: Record<string, unknown> }>(ir: IREdition, ruleId: string, cases: readonly T[]): T[] {
  const rule = ir.rules.find((r) => r.id === ruleId)!;
  return rule.kind === "oblige" ? cases.filter((c) => c.action.action !== rule.action) : cases.filter((c) => c.action.action === rule.action);
}

/**
 * The first case (in order) that kills the mutant in verdict-only mode, or undefined. `violated`
 * gives the ids of the rules a case's state violates (the corpus's expected violations).
 */
export function killingCase(ir: IREdition, mutant: Mutant, cases: readonly (MutationCase & { violations: readonly string[] })[], mut: Pick<Interpreter, "fires"> = createInterpreter(mutateEdition(ir, mutant))): MutationCase | undefined {
  return relevantCases(ir, mutant.rule, cases).find((c) => {
    const others = c.violations.some((r) => r !== mutant.rule);
    return !others && mutantVerdict(ir, mutant, mut, c.state, c.action, false, c.allowed) !== c.allowed;
  });
}

// ---- recording what a rule reads -------------------------------------------------------------

/** Runs `f` on a recording view of `state`; returns the paths read (leaves and lists). */
function readPaths(state: Json, f: (s: Json) => unknown): Path[] {
  const seen = new Map<string, Path>();
  const note = (p: Path): void => {
    const k = p.join("\u0001");
    if (!seen.has(k)) seen.set(k, p);
  };
  const cache = new WeakMap<object, unknown>();
  const wrap = (v: Json, path: Path): Json => {
    if (v === null || typeof v !== "object") return v;
    const hit = cache.get(v as object);
    if (hit) return hit;
    const proxy = new Proxy(v as object, {
      get(t, k, r) {
        if (typeof k === "symbol") return Reflect.get(t, k, r);
        if (k === "length" && Array.isArray(t)) {
          note(path);
          return t.length;
        }
        const val = (t as Rec)[k];
        if (typeof val === "function") return val;
        const key = Array.isArray(t) && /^\d+$/.test(k) ? Number(k) : k;
        const p = [...path, key];
        if (val === null || typeof val !== "object" || Array.isArray(val)) note(p);
        return wrap(val, p);
      },
    });
    cache.set(v as object, proxy);
    return proxy;
  };
  try {
    f(wrap(state, []));
  } catch {
    // a throwing evaluation still read what it read
  }
  return [...seen.values()];
}

const getAt = (s: Json, p: Path): Json => p.reduce<Json>((o, k) => (o === null || typeof o !== "object" ? undefined : (o as Rec)[k as string]), s);

/** `s` with the value at `p` replaced (objects and arrays along the path copied, the rest shared). */
function setAt(s: Json, p: Path, v: Json): Json {
  if (!p.length) return v;
  const [k, ...rest] = p;
  if (Array.isArray(s)) {
    const out = s.slice();
    out[k as number] = setAt(s[k as number], rest, v);
    return out;
  }
  const o = (s ?? {}) as Rec;
  return { ...o, [k as string]: setAt(o[k as string], rest, v) };
}

/** Up to `n` members spread evenly over `xs` (all of them when there are few). */
function spread<T>(xs: readonly T[], n: number): T[] {
  if (xs.length <= n) return [...xs];
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(xs[Math.floor((i * xs.length) / n)]!);
  return out;
}

interface Node {
  state: Json;
  action: Rec;
  key: string;
  depth: number;
  score: number;
}

/** The IR type of the state value at `p` (lists' elements, maps' values, records' fields), or undefined. */
function typeAt(t: Type | undefined, p: Path): Type | undefined {
  for (const k of p) {
    if (!t) return undefined;
    if (t.k === "record") t = t.fields.find((f) => f.name === k)?.type;
    else if (t.k === "map") t = t.value;
    else if (t.k === "list") t = t.elem;
    else return undefined;
  }
  return t;
}

/** New list elements of type `t` built from the action's parameter values (a pair of powers from `by` and `target`, …). */
function elementsFrom(t: Type | undefined, action: Rec, limit = 8): Json[] {
  const vals = Object.entries(action).filter(([k, v]) => k !== "action" && typeof v === "string").map(([, v]) => v as string);
  const fits = (ft: Type, v: string): boolean => ft.k === "enum" && ft.members.includes(v);
  if (t?.k === "enum") return vals.filter((v) => fits(t, v)).slice(0, limit);
  if (t?.k !== "record") return [];
  let out: Rec[] = [{}];
  for (const f of t.fields) {
    const opts: Json[] = f.type.k === "enum" ? [...vals.filter((v) => fits(f.type, v)), f.type.members[0]] : f.type.k === "bool" ? [true, false] : f.type.k === "int" ? [f.type.min ?? 0] : f.type.k === "list" ? [[]] : f.type.k === "string" ? [""] : [undefined];
    out = out.flatMap((o) => [...new Set(opts)].map((v) => ({ ...o, [f.name]: v })));
    if (out.length > limit * 4) out = out.slice(0, limit * 4);
  }
  return out.slice(0, limit);
}

/** The search's neighbours of one (state, action): one change each, with a key naming it (lazily: the budget stops it). */
function* neighbours(ir: IREdition, enumsOf: (v: string) => string[], node: Node, paths: Path[]): Generator<{ state: Json; action: Rec; key: string }> {
  const decl = ir.actions.find((a) => a.name === node.action.action);
  for (const p of decl?.params ?? []) {
    const cur = node.action[p.name];
    const values: Json[] =
      p.type.k === "enum" ? spread(p.type.members, 24) : p.type.k === "bool" ? [!cur] : p.type.k === "int" && typeof cur === "number" ? [cur + 1, cur - 1] : [];
    for (const v of values) if (v !== cur) yield { state: node.state, action: { ...node.action, [p.name]: v }, key: `a:${p.name}=${String(v)}` };
  }
  for (const p of decl?.params ?? []) {
    for (const q of decl!.params) {
      if (p.name >= q.name || p.type.k !== q.type.k || node.action[p.name] === node.action[q.name]) continue;
      yield { state: node.state, action: { ...node.action, [p.name]: node.action[q.name], [q.name]: node.action[p.name] }, key: `a:${p.name}<>${q.name}` };
    }
  }
  for (const p of paths) {
    const v = getAt(node.state, p);
    const at = p.join(".");
    const put = (nv: Json, what: string) => ({ state: setAt(node.state, p, nv), action: node.action, key: `s:${at}:${what}` });
    if (typeof v === "boolean") yield put(!v, "flip");
    else if (typeof v === "number") {
      yield put(v + 1, "+1");
      yield put(v - 1, "-1");
      if (v !== 0) yield put(0, "0");
    } else if (typeof v === "string") {
      for (const m of spread(enumsOf(v), 16)) if (m !== v) yield put(m, m);
    } else if (Array.isArray(v)) {
      for (const x of elementsFrom(typeAt(ir.state, [...p, 0]), node.action)) {
        const j = JSON.stringify(x);
        if (!v.some((y) => JSON.stringify(y) === j)) {
          yield put([...v, x], `add:${j}`);
          if (v.length) yield put([x, ...v], `addfirst:${j}`);
        }
      }
      if (v.length >= 2) yield put([...v].reverse(), "reverse");
      if (v.length >= 3) yield put([...v.slice(1), v[0]], "rotate");
      if (v.length) yield put([], "empty");
      for (let i = 0; i < Math.min(v.length, 6); i++) {
        yield put(v.filter((_, j) => j !== i), `drop${i}`);
        if (i > 0) yield put([v[i], ...v.filter((_, j) => j !== i)], `first${i}`);
      }
      if (v.length && typeof v[0] === "string") for (const m of spread(enumsOf(v[0] as string), 12)) if (!v.includes(m)) yield put([...v, m], `add:${m}`);
      if (v.length && typeof v[0] === "object") yield put([v[0], ...v], "dup0");
    }
  }
}

/**
 * A state and action on which the mutant's verdict-only answer differs from the edition's, found
 * by the bounded best-first search of the module docstring, or undefined within `budget`
 * evaluated candidates. `check` is the edition's verdict (the generated validators), `interp` its
 * interpreter (to record what the rules read); `valid` decides whether a found state may become
 * a case (schema, invariants).
 */
export function distinguish(
  ir: IREdition,
  mutant: Mutant,
  seeds: readonly MutationCase[],
  opts: { check: CheckFn; interp: Interpreter; mut?: Interpreter; valid: (state: unknown, action: Rec) => boolean; budget?: number; maxSeeds?: number; maxDepth?: number },
): { state: unknown; action: Rec; allowed: boolean } | undefined {
  const { check, interp, valid } = opts;
  const mut = opts.mut ?? createInterpreter(mutateEdition(ir, mutant));
  const budget = opts.budget ?? 800;
  const maxDepth = opts.maxDepth ?? 4;
  const memberIndex = new Map<string, string[]>();
  for (const e of ir.enums) for (const m of e.members) if (!memberIndex.has(m) || memberIndex.get(m)!.length < e.members.length) memberIndex.set(m, e.members);
  const enumsOf = (v: string): string[] => memberIndex.get(v) ?? [];
  let used = 0;
  // score: 0 = the verdicts differ; else 1000 when the mutated rule fires the same in both, plus the other rules that fire
  const score = (state: Json, action: Rec): { score: number; found?: boolean; others?: string[] } => {
    used++;
    let v;
    try {
      v = check(state, action);
    } catch {
      return { score: Infinity };
    }
    const inA = v.violations.some((x) => x.rule === mutant.rule);
    const others = v.violations.filter((x) => x.rule !== mutant.rule).map((x) => x.rule);
    const alone = mutantVerdict(ir, mutant, mut, state, action, false, !inA);
    const differs = alone === "error" || !alone !== inA;
    if (differs && (alone === "error" || others.length === 0)) return { score: 0, found: true };
    return { score: (differs ? 0 : 1000) + others.length, others };
  };
  const frontier: (Node & { others: string[] })[] = [];
  const seen = new Set<string>();
  const push = (n: Node & { others: string[] }): void => {
    // insertion keeps the frontier sorted by score, then by arrival (deterministic)
    let i = frontier.length;
    while (i > 0 && frontier[i - 1]!.score > n.score) i--;
    frontier.splice(i, 0, n);
  };
  const relevant = relevantCases(ir, mutant.rule, seeds);
  const scored = relevant.map((c, i) => ({ c, i, s: score(c.state, c.action) })).filter((x) => x.s.score !== Infinity).sort((x, y) => x.s.score - y.s.score || x.i - y.i);
  for (const { c, s } of scored.slice(0, opts.maxSeeds ?? 12)) push({ state: c.state, action: c.action, key: c.id, depth: 0, score: s.score, others: s.others ?? [] });
  const rule = ir.rules.find((r) => r.id === mutant.rule)!;
  while (frontier.length && used < budget) {
    const node = frontier.shift()!;
    const paths = new Map<string, Path>();
    const ownAction = rule.kind === "forbid" ? node.action : { ...node.action, action: rule.action };
    const reads: [Interpreter, string, Rec][] = [[interp, rule.id, ownAction], [mut, rule.id, ownAction], ...node.others.map((r): [Interpreter, string, Rec] => [interp, r, node.action])];
    for (const [i, r, a] of reads) for (const p of readPaths(node.state, (s) => i.fires(r, s, a)).slice(0, MAX_PATHS)) if (paths.size < MAX_PATHS * 2) paths.set(p.join("\u0001"), p);
    for (const nb of neighbours(ir, enumsOf, node, [...paths.values()])) {
      if (used >= budget) break;
      const key = `${node.key}|${nb.key}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const s = score(nb.state, nb.action);
      if (s.found) {
        if (valid(nb.state, nb.action)) return { state: nb.state, action: nb.action, allowed: check(nb.state, nb.action).allowed };
        continue;
      }
      if (s.score !== Infinity && node.depth + 1 < maxDepth) push({ ...nb, key, depth: node.depth + 1, score: s.score, others: s.others ?? [] });
    }
  }
  return undefined;
}

/** `v` with enum members `a` and `b` exchanged wherever they occur: string values and object keys. */
export function swapMembers(v: Json, a: string, b: string): Json {
  if (typeof v === "string") return v === a ? b : v === b ? a : v;
  if (Array.isArray(v)) return v.map((x) => swapMembers(x, a, b));
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v as Rec).map(([k, x]) => [k === a ? b : k === b ? a : k, swapMembers(x, a, b)]));
}

/** The actor an `exempt_actor` mutant skips the rule for: the member its id ends with (`…@when:ottoman`). */
const skippedActor = (m: Mutant): string => m.id.slice(m.id.lastIndexOf(":") + 1);

/** The value of an action's actor parameter (`power`, `by`, …), or undefined for an action without one. */
function actorOf(ir: IREdition, action: Rec): Json {
  const decl = ir.actions.find((a) => a.name === action.action);
  const p = decl && actorParam(decl);
  return p ? action[p.name] : undefined;
}

/**
 * Seeds aimed at the mutation site of an `exempt_actor` mutant (the rule skipped for actor `p`):
 * the cases on which the rule fires for another actor `q`, with `q` and `p` exchanged throughout
 * the state and the action (the same situation seen from `p`'s side). Up to `limit` of them, the
 * cases where the rule fires alone first; none for another operator.
 */
export function actorImages(ir: IREdition, m: Mutant, cases: readonly MutationCase[], limit = 24): MutationCase[] {
  if (m.op !== "exempt_actor") return [];
  const p = skippedActor(m);
  const out: { c: MutationCase; alone: boolean; i: number }[] = [];
  relevantCases(ir, m.rule, cases).forEach((c, i) => {
    if (!c.violations.includes(m.rule)) return;
    const q = actorOf(ir, c.action);
    if (typeof q !== "string" || q === p) return;
    out.push({ c: { ...c, id: `${c.id}~${q}>${p}`, state: swapMembers(c.state, q, p), action: swapMembers(c.action, q, p) as Rec }, alone: c.violations.length === 1, i });
  });
  return out.sort((x, y) => Number(y.alone) - Number(x.alone) || x.i - y.i).slice(0, limit).map((x) => x.c);
}

/**
 * Seeds for an `exempt_actor` mutant (the rule skipped for actor `p`) taken as they are: the
 * cases the rule can decide (`relevantCases`: a forbid rule's action, or an obligation's other
 * actions) whose actor is `p`, where the rule may be one change away from firing (another leader
 * role, a flag flipped, a unit added). Up to `limit` of them, the allowed ones kept first (nothing
 * else forbids them; the search then orders its seeds by its own score); none for another
 * operator.
 */
export function actorCases(ir: IREdition, m: Mutant, cases: readonly MutationCase[], limit = 24): MutationCase[] {
  if (m.op !== "exempt_actor") return [];
  const p = skippedActor(m);
  const own = relevantCases(ir, m.rule, cases).filter((c) => actorOf(ir, c.action) === p);
  return own.map((c, i) => ({ c, i })).sort((x, y) => Number(y.c.allowed) - Number(x.c.allowed) || x.i - y.i).slice(0, limit).map((x) => x.c);
}

const isObj = (v: unknown): v is Rec => v !== null && typeof v === "object" && !Array.isArray(v);

/** How many leaves (scalars, lists compared whole) of `state` differ from `base`'s. */
function differingLeaves(base: unknown, state: unknown): number {
  if (isObj(base) && isObj(state)) {
    let n = 0;
    for (const k of new Set([...Object.keys(base), ...Object.keys(state)])) n += differingLeaves(base[k], state[k]);
    return n;
  }
  return isDeepStrictEqual(base, state) ? 0 : 1;
}

/**
 * `state` moved towards `base` as far as `keep` allows: each differing subtree (objects key by
 * key, lists of equal length element by element) is replaced by the base's when the result is
 * still kept, else looked into. Deterministic (keys in the state's order).
 */
export function shrinkTowards(base: unknown, state: unknown, keep: (s: unknown) => boolean): unknown {
  let cur = state;
  const setAt = (s: unknown, p: (string | number)[], v: unknown): unknown => {
    if (!p.length) return v;
    const [k, ...rest] = p;
    if (Array.isArray(s)) return s.map((x, i) => (i === k ? setAt(x, rest, v) : x));
    return { ...(s as Rec), [k as string]: setAt((s as Rec)[k as string], rest, v) };
  };
  const visit = (b: unknown, s: unknown, p: (string | number)[]): void => {
    if (isDeepStrictEqual(b, s)) return;
    if (p.length && b !== undefined) {
      const next = setAt(cur, p, b);
      if (keep(next)) {
        cur = next;
        return;
      }
    }
    if (isObj(b) && isObj(s)) for (const k of Object.keys(s)) visit(b[k], s[k], [...p, k]);
    else if (Array.isArray(b) && Array.isArray(s) && b.length === s.length) s.forEach((x, i) => visit(b[i], x, [...p, i]));
  };
  visit(base, state, []);
  return cur;
}

/**
 * The mutation run over a corpus: every mutant of the edition, killed by a case or searched for;
 * each found state is returned as a new case (and kills the later mutants it tells apart too).
 * A mutant the search leaves is decided by its committed Z3 answer (`decisions`, from
 * mutation-proof.ts `freshDecisions`): a witness state, replayed here (`distinguishes`), becomes
 * its own case (it is no seed of the search, nor tried on other mutants, so the search runs the
 * same with and without answers); a proof makes it `equivalent`; no answer, or a solver unknown,
 * leaves it `unknown`.
 * Deterministic: the same edition, cases and answers give the same results and the same new cases.
 * @param check the edition's verdict (the generated validators' `check`)
 * @param makeCase turns a found state and action into a corpus case (its id, the validators' verdict)
 */
export function runMutation(
  ir: IREdition,
  cases: readonly MutationCase[],
  opts: {
    check: CheckFn;
    valid: (state: unknown, action: Rec) => boolean;
    /** `from`: the search found the state, or a committed Z3 answer gave it (the only case that may be one already made) */
    makeCase: (found: { state: unknown; action: Rec; allowed: boolean }, mutant: Mutant, from: "search" | "z3") => MutationCase | undefined;
    budget?: number;
    search?: boolean;
    /**
     * fixture states a found state is shrunk towards (`shrinkTowards`, to the one leaving the
     * smallest difference) while it still tells the mutant apart: the case keeps only what kills it
     */
    shrinkBases?: readonly unknown[];
    decisions?: ReadonlyMap<string, { verdict: "equivalent" | "differs" | "unknown"; reason?: string; state?: unknown; action?: Rec }>;
    onMutant?: (done: number, total: number) => void;
  },
): { results: MutantResult[]; added: MutationCase[]; before: number } {
  const interp = createInterpreter(ir);
  const all = [...cases];
  const added: MutationCase[] = [];
  const results: MutantResult[] = [];
  let before = 0;
  const mutants = mutantsOf(ir);
  for (const [i, m] of mutants.entries()) {
    opts.onMutant?.(i, mutants.length);
    const mut = createInterpreter(mutateEdition(ir, m));
    const base = killingCase(ir, m, cases, mut);
    if (base) before++;
    let by = base ?? killingCase(ir, m, added, mut);
    let killedBy: MutantResult["killedBy"] = base ? "corpus" : by ? "search" : undefined;
    const shrunk = (found: { state: unknown; action: Rec; allowed: boolean } | undefined) => {
      if (!found || !opts.shrinkBases?.length) return found;
      const o = { check: opts.check, interp, mut, valid: opts.valid };
      let best: { state: unknown; size: number } | undefined;
      for (const base of opts.shrinkBases) {
        const state = shrinkTowards(base, found.state, (s) => distinguishes(ir, m, o, s, found.action));
        const size = differingLeaves(base, state);
        if (!best || size < best.size) best = { state, size };
      }
      return { ...found, state: best!.state, allowed: opts.check(best!.state, found.action).allowed };
    };
    if (!by && opts.search !== false) {
      const found = shrunk(distinguish(ir, m, all, { check: opts.check, interp, mut, valid: opts.valid, budget: opts.budget }));
      const c = found && opts.makeCase(found, m, "search");
      if (c) {
        added.push(c);
        all.push(c);
        by = c;
        killedBy = "search";
      }
    }
    // aimed at the mutation site of a rule skipped for one actor: the skipped actor's side of
    // the cases where the rule fires, then the skipped actor's own cases
    for (const aimed of [actorImages, actorCases]) {
      if (by || opts.search === false) break;
      const seeds = aimed(ir, m, all);
      const found = shrunk(seeds.length ? distinguish(ir, m, seeds, { check: opts.check, interp, mut, valid: opts.valid, budget: opts.budget }) : undefined);
      const c = found && opts.makeCase(found, m, "search");
      if (c) {
        added.push(c);
        all.push(c);
        by = c;
        killedBy = "search";
      }
    }
    let status: MutantResult["status"] = by ? "killed" : "unknown";
    let reason: string | undefined;
    if (!by) {
      const d = opts.decisions?.get(m.id);
      if (!d) reason = "no fresh Z3 answer (npx rulewright conformance write --prove-mutants)";
      else if (d.verdict === "equivalent") status = "equivalent";
      else if (d.verdict === "unknown") reason = d.reason ?? "unknown";
      else if (!distinguishes(ir, m, { check: opts.check, interp, mut, valid: opts.valid }, d.state, d.action!)) reason = "the committed Z3 state no longer tells it apart";
      else {
        const c = opts.makeCase({ state: d.state, action: d.action!, allowed: opts.check(d.state, d.action!).allowed }, m, "z3");
        if (c) {
          by = c;
          status = "killed";
          killedBy = "z3";
        } else reason = "the committed Z3 state is not a new case";
      }
    }
    results.push({ id: m.id, rule: m.rule, op: m.op, detail: m.detail, status, ...(by ? { by: by.id, killedBy } : {}), ...(reason ? { reason } : {}) });
  }
  return { results, added, before };
}
