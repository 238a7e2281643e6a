/**
 * Proofs reused from the parent (issue 28; the argument is README.md "Proofs reused from the
 * parent"): before a variant is proved, each obligation its own cache does not answer may take
 * the parent's verdict from the parent's proof cache, stored in the variant's cache under the
 * variant's own key (the prover then finds it there like any cached verdict, and the report
 * says where it came from: `fromParent`). Nothing of the prover's code changes, so no existing
 * cache key changes. Three ways, tried in this order:
 *
 * - **same slice** (keys.ts `sliceKeyer`): the obligation's sliced query is the parent's. An unsat
 *   verdict holds as it is; a verdict found on a state only when that state, completed for the
 *   variant, is a state of the variant.
 * - **unsat under fewer constraints**: the same frame (keys.ts `frameKeyer`: rules, exemptions,
 *   actions, routes, tables, enums, board as the parent's) and the variant only adds constraints
 *   (`addedConstraints`: every invariant of the parent kept, every field of the parent the same
 *   or narrower; new invariants and fields). The variant's query is the parent's with more
 *   conjuncts, so the parent's unsat core is still an unsat core of it. A refuted redundant_rule
 *   also needs its rule still to fire in the variant (else a fresh solve calls it vacuous): the
 *   parent's dead_rule witness of that rule, checked for the variant as below; a refuted
 *   swallowing_exemption (the same question, with no witness to check) is solved again.
 * - **witness still valid** (or counterexample): the same frame and added constraints only, and
 *   the parent's state, with the fields the obligation's own formula reads unchanged, made a
 *   state of the variant: new fields at their defaults, re-validated against the variant's schema
 *   and every invariant of the variant evaluated on it by the interpreter (`complete`, given by
 *   the caller); else the obligation is solved again.
 *
 * An `unknown` is never taken over; nor is anything when the variant changed, overrode or removed
 * a rule, exemption, route or table the obligation reads (its frame differs).
 */
import type { IREdition, Type } from "../../ir/types.js";
import type { Example, FromParent, SolvedObligation } from "../../ir/proof-report.js";
import { liftsOf, obligationsFor, type Obligation } from "../../ir/obligations.js";
import { formulaFields, frameKeyer, invariantFrameHash, obligationKeyer, sliceFields, sliceKeyer } from "./keys.js";
import { routesIn } from "../../ir/walk.js";
import type { ProofCache } from "./store.js";

type Json = Record<string, unknown>;

/** What `reuseFromParent` needs besides the two editions and caches. */
export interface ParentReuseOptions {
  listBound: number;
  /** the resource budget of this run (a cached verdict holds under it or not: store.ts `get`) */
  rlimit: number;
  /**
   * The example state of a parent's verdict made a state of the variant: valid against the
   * variant's schema and satisfying every invariant of the variant (evaluated, not assumed).
   * `readFields` are the top-level fields that must stay as they are (undefined: all); every other
   * field may take another value. Returns the state, or undefined / a sentence saying why none.
   */
  complete: (state: Json, readFields: Set<string> | undefined) => Json | string | undefined;
  /**
   * A parent's witness that is no state of the variant, repaired into a candidate (optional):
   * kept in the variant's cache as the obligation's earlier witness, which the prover tries
   * first — judged by the validators and checked on the obligation's own formula there — before
   * it searches. Undefined when none.
   */
  candidate?: (state: Json, action: Json) => { state: Json; action: Json } | undefined;
  /**
   * Whether rule `ruleId` of `ir` fires on a state and action (the interpreter's `fires`): a
   * carried witness of always_forbidden or redundant_rule must not fire the rules the variant
   * added to the obligation (`addedRules`). Without it such witnesses are solved again.
   */
  fires?: (ruleId: string, state: Json, action: Json) => boolean;
  /** only these obligations of the variant (default all) */
  only?: (ob: Obligation) => boolean;
  /** the parent's name as the report gives it (default the parent IR's name) */
  parentName?: string;
}

/** What `reuseFromParent` did. */
export interface ParentReuse {
  /** the obligations answered from the parent's cache */
  reused: string[];
  /** how many of them per reason */
  why: Record<FromParent["why"], number>;
  /** obligations whose parent verdict could not be carried over, each with why (they are solved) */
  rejected: { id: string; why: string }[];
  /** how many rejected witnesses were repaired into candidates for the prover (`candidate`) */
  seeded: number;
  /** what the variant changes besides added constraints (undefined: it only adds constraints) */
  notOnlyAdded?: string;
}

/**
 * Fills `cache` (the variant's) with the parent's verdicts that hold in the variant (see the file
 * comment). Returns what was taken over and what not; nothing is saved (the caller saves).
 */
export function reuseFromParent(ir: IREdition, parentIr: IREdition, cache: ProofCache, parentCache: ProofCache, opts: ParentReuseOptions): ParentReuse {
  const out: ParentReuse = { reused: [], why: { "same slice": 0, "unsat under fewer constraints": 0, "witness still valid": 0 }, rejected: [], seeded: 0 };
  const lb = { listBound: opts.listBound };
  const parentKey = obligationKeyer(parentIr, lb);
  const parentSlice = sliceKeyer(parentIr, lb);
  const parentFrame = frameKeyer(parentIr, lb);
  const parentObs = obligationsFor(parentIr);
  const bySlice = new Map<string, Obligation>();
  const byFrame = new Map<string, Obligation>();
  const byRest = new Map<string, Obligation>();
  for (const ob of parentObs) {
    bySlice.set(parentSlice(ob), ob);
    byFrame.set(parentFrame(ob), ob);
    byRest.set(rest(ob), ob);
  }
  const added = addedConstraints(parentIr, ir);
  if (!added.ok) out.notOnlyAdded = added.why;
  const key = obligationKeyer(ir, lb);
  const slice = sliceKeyer(ir, lb);
  const frame = frameKeyer(ir, lb);
  const parentName = opts.parentName ?? parentIr.name;
  const verdictOf = (pob: Obligation | undefined) => {
    const r = pob && parentCache.get(parentKey(pob), opts.rlimit);
    return r && r.verdict !== "unknown" ? r : undefined;
  };
  const ctx: Ctx = { ir, opts, added, verdictOf, parentOf: (id) => byRest.get(id) };
  for (const ob of obligationsFor(ir)) {
    if (opts.only && !opts.only(ob)) continue;
    const own = key(ob);
    if (cache.get(own, opts.rlimit)) continue;
    const same = bySlice.get(slice(ob));
    let taken: Taken | undefined;
    let r = verdictOf(same);
    if (r) taken = carried(ctx, ob, r, "same slice", sliceFields(ir, ob));
    if (!taken?.result && added.ok) {
      // the same frame, or the parent's once the rules the variant adds to the conjunction are left out
      const extra = addedRules(ir, ob, byRest.get(rest(ob)));
      const pob = byFrame.get(frame(extra ? { ...ob, rules: ob.rules.filter((id) => !extra.includes(id)) } : ob));
      r = verdictOf(pob);
      if (r) taken = carried(ctx, ob, r, r.counterexample || r.witness ? "witness still valid" : "unsat under fewer constraints", formulaFields(ir, ob), extra ?? []);
    }
    if (!taken) continue;
    if (!taken.result) {
      out.rejected.push({ id: ob.id, why: taken.rejected ?? "not carried over" });
      const w = r?.witness && !cache.earlierWitness(ob.id) && opts.candidate?.(r.witness.state as Json, r.witness.action as Json);
      if (w) {
        cache.rememberWitness(ob.id, w);
        out.seeded++;
      }
      continue;
    }
    cache.set(own, { ...taken.result, fromParent: { edition: parentName, why: taken.why, ...(taken.detail ? { detail: taken.detail } : {}) } });
    out.reused.push(ob.id);
    out.why[taken.why]++;
  }
  return out;
}

/** An obligation's id without its edition (the same obligation in the parent and the variant). */
const rest = (ob: Obligation) => (ob.id.startsWith(`${ob.edition}.`) ? ob.id.slice(ob.edition.length + 1) : ob.id);

interface Ctx {
  ir: IREdition;
  opts: ParentReuseOptions;
  added: Added;
  verdictOf: (pob: Obligation | undefined) => SolvedObligation | undefined;
  /** the parent's obligation of the same id (without the edition) */
  parentOf: (restId: string) => Obligation | undefined;
}

interface Taken {
  result?: SolvedObligation;
  why: FromParent["why"];
  detail?: string;
  rejected?: string;
}

/** The parent's verdict as the variant's (its example states completed), or why it cannot be. */
function carried(ctx: Ctx, ob: Obligation, r: SolvedObligation, why: FromParent["why"], keep: Set<string> | undefined, extra: readonly string[] = []): Taken {
  const { opts } = ctx;
  // a stuck power or a table example without a state: only an unsat verdict has neither
  if ((r.stuck || r.example) && !r.counterexample && !r.witness && ob.kind !== "table_gap" && ob.kind !== "table_overlap") return { why, rejected: "the parent's verdict has no state to check" };
  const { profile: _p, fromParent: _f, ...kept } = r;
  if (!r.counterexample && !r.witness) {
    if (why === "same slice") return { why, result: kept };
    const vac = vacuityKept(ctx, ob, r);
    if (vac !== true) return { why, rejected: vac };
    const more = [...ctx.added.invariants, ...extra];
    return { why, result: kept, detail: more.length ? `the parent's unsat core still holds with ${more.join(", ")}` : "the parent's unsat core still holds" };
  }
  if (why !== "same slice" && ctx.added.routed.length) return { why, rejected: `invariant ${ctx.added.routed.join(", ")} reads a route: a state is not checked against it` };
  const fix = (ex: Example | undefined): Example | undefined | string => {
    if (!ex) return undefined;
    const state = opts.complete(ex.state as Json, keep);
    if (typeof state === "object") return { ...ex, state };
    return `the parent's ${r.counterexample ? "counterexample" : "witness"} is no state of the variant${state ? `: ${state}` : ""}`;
  };
  const counterexample = fix(r.counterexample);
  const witness = fix(r.witness);
  if (typeof counterexample === "string") return { why, rejected: counterexample };
  if (typeof witness === "string") return { why, rejected: witness };
  if (extra.length) {
    const ex = (witness ?? counterexample) as Example;
    if (!ex.replayable || !ctx.opts.fires) return { why, rejected: `the variant adds ${extra.join(", ")} to the obligation and the parent's state is not checked against ${extra.length > 1 ? "them" : "it"}` };
    const firing = extra.filter((id) => ctx.opts.fires!(id, ex.state as Json, ex.action as Json));
    if (firing.length) return { why, rejected: `the parent's witness fires ${firing.join(", ")}, which the variant adds` };
  }
  const result = { ...kept, ...(counterexample ? { counterexample } : {}), ...(witness ? { witness } : {}) };
  return { why, result, ...(why === "same slice" ? {} : { detail: `checked on the variant's schema and invariants` }) };
}

/**
 * Whether an unsat verdict carried under added constraints keeps its vacuity (README "Analyses":
 * redundant_rule and swallowing_exemption are refuted only when their rule still fires/applies).
 * A vacuous proof stays vacuous (its core, without the coverers, stays unsat). A refuted
 * redundant_rule needs its rule to fire in the variant: the parent's dead_rule witness of it,
 * checked for the variant; a refuted swallowing_exemption is solved again. True, or why not.
 */
function vacuityKept(ctx: Ctx, ob: Obligation, r: SolvedObligation): true | string {
  if (r.vacuous || (ob.kind !== "redundant_rule" && ob.kind !== "swallowing_exemption")) return true;
  if (ob.kind === "swallowing_exemption") return "a refuted swallowing_exemption needs its rule to apply in the variant: solved again";
  const deadId = `dead_rule.${ob.rules[0]}`;
  const dead = ctx.verdictOf(ctx.parentOf(deadId));
  const deadOb = obligationsFor(ctx.ir).find((o) => rest(o) === deadId);
  if (!dead?.witness || !deadOb) return `no witness that \`${ob.rules[0]}\` still fires in the variant: solved again`;
  const st = ctx.opts.complete(dead.witness.state as Json, formulaFields(ctx.ir, deadOb));
  return typeof st === "object" ? true : `the parent's witness that \`${ob.rules[0]}\` fires is no state of the variant: solved again`;
}

/**
 * The rules the variant adds to an obligation whose query is a conjunction over its rules —
 * always_forbidden (⋀ ¬fires(R)) and redundant_rule (fires(R) ∧ ⋀ ¬fires(C)) — when the parent's
 * obligation of the same id has a subset of its rules (the same subject first): each added rule is
 * one conjunct more. Only rules of the obligation's own action (read in its own context, so the
 * interpreter's `fires` decides them on a witness) and calling no route. Undefined otherwise.
 */
export function addedRules(ir: IREdition, ob: Obligation, pob: Obligation | undefined): string[] | undefined {
  if (!pob || (ob.kind !== "always_forbidden" && ob.kind !== "redundant_rule") || pob.kind !== ob.kind) return undefined;
  if (ob.kind === "redundant_rule" && ob.rules[0] !== pob.rules[0]) return undefined;
  const theirs = new Set(pob.rules);
  if (!pob.rules.every((id) => ob.rules.includes(id))) return undefined;
  const extra = ob.rules.filter((id) => !theirs.has(id));
  if (!extra.length) return undefined;
  const ruleOf = new Map(ir.rules.map((r) => [r.id, r]));
  const plain = extra.every((id) => {
    const r = ruleOf.get(id);
    return r && r.action === ob.action && [r.when, ...liftsOf(ir, r).map((e) => e.when)].every((w) => routesOf(w).size === 0);
  });
  return plain ? extra : undefined;
}

/** How a variant's state space relates to its parent's (`addedConstraints`). */
type Added = { ok: true; invariants: string[]; narrowed: string[]; routed: string[] } | { ok: false; why: string; invariants: string[]; narrowed: string[]; routed: string[] };

/**
 * Whether `ir` only adds constraints to `parent`: every invariant of the parent is one of `ir`'s
 * with the same condition, and every state field of the parent is a field of `ir` of the same
 * or a narrower type (`narrower`). Then every state of `ir` satisfying its invariants, restricted
 * to the parent's fields, is a state of the parent satisfying the parent's. Lists the added
 * invariants, the narrowed fields, and the added invariants that read a route.
 */
export function addedConstraints(parent: IREdition, ir: IREdition): Added {
  const mine = new Map(ir.invariants.map((i) => [i.id, invariantFrameHash(i)]));
  const theirs = new Set(parent.invariants.map((i) => i.id));
  const invariants = ir.invariants.filter((i) => !theirs.has(i.id)).map((i) => i.id);
  const routed = ir.invariants.filter((i) => !theirs.has(i.id) && routesOf(i.expr).size).map((i) => i.id);
  const narrowed: string[] = [];
  const fail = (why: string): Added => ({ ok: false, why, invariants, narrowed, routed });
  for (const i of parent.invariants) {
    const h = mine.get(i.id);
    if (h === undefined) return fail(`invariant ${i.id} of the parent is gone`);
    if (h !== invariantFrameHash(i)) return fail(`invariant ${i.id} differs from the parent's`);
  }
  const fields = new Map(ir.state.fields.map((f) => [f.name, f.type]));
  for (const f of parent.state.fields) {
    const t = fields.get(f.name);
    if (!t) return fail(`state field ${f.name} of the parent is gone`);
    const n = narrower(t, f.type);
    if (n === undefined) return fail(`state field ${f.name} is not the parent's or narrower`);
    if (n) narrowed.push(f.name);
  }
  return { ok: true, invariants, narrowed, routed };
}

const routesOf = (e: IREdition["invariants"][number]["expr"]) => {
  const s = new Set<string>();
  routesIn(e, s);
  return s;
};

/**
 * Whether every value of type `a` is a value of type `b`: true when `a` is strictly narrower
 * somewhere (an enum with fewer members of the same base, an integer range inside, a list
 * bound below), false when the same, undefined when `a` allows a value `b` does not.
 */
export function narrower(a: Type, b: Type): boolean | undefined {
  if (a.k !== b.k) return undefined;
  switch (a.k) {
    case "bool":
    case "string":
      return false;
    case "int": {
      const bb = b as typeof a;
      const lo = bb.min === undefined || (a.min !== undefined && a.min >= bb.min);
      const hi = bb.max === undefined || (a.max !== undefined && a.max <= bb.max);
      return lo && hi ? a.min !== bb.min || a.max !== bb.max : undefined;
    }
    case "enum": {
      const bb = b as typeof a;
      if (a.base !== bb.base || !a.members.every((m) => bb.members.includes(m))) return undefined;
      return a.members.length < bb.members.length;
    }
    case "list": {
      const bb = b as typeof a;
      const e = narrower(a.elem, bb.elem);
      return e === undefined || a.bound > bb.bound ? undefined : e || a.bound < bb.bound;
    }
    case "map": {
      const bb = b as typeof a;
      if (narrower(a.key, bb.key) !== false) return undefined;
      return narrower(a.value, bb.value);
    }
    case "record": {
      const bb = b as typeof a;
      if (a.fields.length !== bb.fields.length) return undefined;
      let any = false;
      for (const f of bb.fields) {
        const g = a.fields.find((x) => x.name === f.name);
        const n = g && narrower(g.type, f.type);
        if (n === undefined) return undefined;
        any ||= n;
      }
      return any;
    }
  }
}
