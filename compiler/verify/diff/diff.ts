/**
 * Edition diff: for every action two editions both declare, either a proof that the verdicts
 * are the same on every legal state of their shared vocabulary, or concrete states where they
 * differ (DESIGN.md "edition diff", severity info: a report, not a failure).
 *
 * A verdict has two aspects, compared separately (docs/CONTRACTS.md "Verdict semantics"):
 * - allowed: no forbid rule of the action fires and no oblige rule of another action of the same
 *   actor fires (the violated-rule *set* may differ between the editions without a difference);
 * - obliged: some oblige rule of the action fires.
 * For an aspect X the query is inv(A) ∧ inv(B) ∧ dom ∧ (X_A ≠ X_B); unsat = identical, unknown
 * (resource budget spent) = unknown, never identical. Routes are encoded exactly (`route-exact.ts`), so every
 * model is a state the generated validators must agree with; the CLI replays each one.
 *
 * Several states per aspect: after each model the next solve excludes its signature (which rules
 * of either edition fire, and the actor), so the states found differ in why or for whom the
 * verdicts differ; at most `maxStates` per aspect. The CLI shrinks each state with the validators
 * to the facts that matter (no canonical model here: its preference checks cost more than the
 * whole search on Here I Stand).
 *
 * Both editions are encoded with one encoder, so a state is one set of Z3 constants; this needs
 * the same state type, enums and board (`vocabularyProblems`). Never imports codegen.
 */
import type { Bool, Expr as ZExpr, Model, Solver } from "z3-solver";
import type { Expr, IRAction, IREdition, IRRule } from "../../ir/types.js";
import { children } from "../../ir/walk.js";
import type { Env } from "../encode/encoder.js";
import { decode } from "../encode/decode.js";
import { ExactRouteEncoder, type ExactUnit, type Refinement } from "./route-exact.js";
import type { RoutePathFn } from "./route-parts.js";
import { routeGraph } from "../../ir/board.js";
import { actorOf } from "../../ir/derived.js";
import { sharedActions, vocabularyProblems } from "../../ir/vocabulary.js";
import { Budget, budgetedCheck, getZ3, runExclusive, type Z3Ctx } from "../run/z3.js";

export { sharedActions, vocabularyProblems };

type B = Bool<"main">;

export interface DiffOptions {
  /**
   * resource budget of one state search, route refinement included, in units of Z3's
   * deterministic resource count (`rlimit`; default `DEFAULT_DIFF_RLIMIT`): running out is
   * `unknown`, the same on every machine and at any load
   */
  rlimit?: number;
  /** safety net of one state search (ms of this process's CPU time; default `DEFAULT_DIFF_TIMEOUT_MS`): only a wedged solver reaches it */
  timeoutMs?: number;
  /** bound of list-typed action parameters (default 4, as `prove`) */
  listBound?: number;
  /** states looked for per action and aspect (default 3) */
  maxStates?: number;
}

/**
 * The resource budget of one state search (Z3 `rlimit` units): 4× the largest count a search of
 * the bundled comparisons uses (80.2 M: `diff his his-500`, spring_deploy, three route-refinement
 * rounds; the diff tests' fixture variants of his use at most 79.1 M), README "Budgets".
 */
export const DEFAULT_DIFF_RLIMIT = 320_000_000;
/** The safety net of one state search (ms of CPU time): far above what the budget takes, which no load changes. */
export const DEFAULT_DIFF_TIMEOUT_MS = 600_000;
export const DEFAULT_DIFF_STATES = 3;

export type Aspect = "allowed" | "obliged";
export type AspectVerdict = "identical" | "differs" | "unknown";

/** What the prover says one edition does with a candidate state + action. */
export interface PredictedVerdict {
  allowed: boolean;
  obliged: boolean;
  /** ids of the rules that fire: forbid rules of the action, oblige rules of other actions of its actor, oblige rules of the action */
  rules: string[];
}

/** A state + action where the prover finds the two editions' verdicts differ in `aspect`. */
export interface DiffCandidate {
  aspect: Aspect;
  /** complete state JSON, valid against the (shared) schema */
  state: Record<string, unknown>;
  /** flat action JSON */
  action: Record<string, unknown>;
  a: PredictedVerdict;
  b: PredictedVerdict;
}

export interface ActionDiff {
  action: string;
  /** differs: some candidate; unknown: no candidate and some aspect unknown; identical: both aspects proved identical */
  verdict: AspectVerdict;
  aspects: Record<Aspect, AspectVerdict>;
  /** why an aspect is unknown (resource budget spent, unsupported construct) */
  reason?: string;
  candidates: DiffCandidate[];
  /** wall time (strip for determinism) */
  ms: number;
}

export interface EditionDiff {
  a: string;
  b: string;
  actions: ActionDiff[];
  /** actions declared by only one edition, or with other parameters */
  notCompared: { action: string; reason: string }[];
  bounds: { listBound: number; rlimit: number; timeoutMs: number; maxStates: number };
}

/** The editions cannot be compared (they do not share a state vocabulary). */
export class DiffInputError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
  }
}

// ---------------------------------------------------------------------------------------------
// the diff

/**
 * Compares the verdicts of two editions on every shared action.
 * @throws DiffInputError when the editions do not share a state vocabulary (`vocabularyProblems`)
 *   or when their invariants together admit no state.
 */
export async function diffEditions(a: IREdition, b: IREdition, opts: DiffOptions & { names?: { a: string; b: string } } = {}): Promise<EditionDiff> {
  const names = opts.names ?? { a: a.name, b: b.name };
  const problems = vocabularyProblems(a, b, names);
  if (problems.length) throw new DiffInputError(problems);
  const ctx = await getZ3();
  return runExclusive(() => diffWith(ctx, a, b, names, opts));
}

interface Side {
  ir: IREdition;
  unit: (f: () => B) => ExactUnit;
}

/** The rules whose firing decides each aspect of `action` in `ir` (as the generated `check`). */
function decisive(ir: IREdition, action: string): { forbid: IRRule[]; oblige: IRRule[] } {
  const hasActor = actorOf(ir, action) !== undefined;
  const forbid = ir.rules.filter(
    (r) => (r.action === action && r.kind === "forbid") || (hasActor && r.kind === "oblige" && r.action !== action && actorOf(ir, r.action) !== undefined),
  );
  const oblige = ir.rules.filter((r) => r.action === action && r.kind === "oblige");
  const byId = (x: IRRule, y: IRRule) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
  return { forbid: forbid.sort(byId), oblige: oblige.sort(byId) };
}

async function diffWith(ctx: Z3Ctx, a: IREdition, b: IREdition, names: { a: string; b: string }, opts: DiffOptions): Promise<EditionDiff> {
  const timeoutMs = Math.max(1, Math.floor(opts.timeoutMs ?? DEFAULT_DIFF_TIMEOUT_MS));
  const rlimit = Math.max(1, Math.floor(opts.rlimit ?? DEFAULT_DIFF_RLIMIT));
  const budget = () => new Budget(rlimit, timeoutMs);
  const listBound = opts.listBound ?? 4;
  const maxStates = Math.max(1, opts.maxStates ?? DEFAULT_DIFF_STATES);
  // one encoder for both: enums of both (same-named ones are equal), string literals of both
  const merged: IREdition = {
    ...a,
    enums: [...a.enums, ...b.enums.filter((e) => !a.enums.some((x) => x.name === e.name))],
    rules: [...a.rules, ...b.rules],
    exemptions: [...a.exemptions, ...b.exemptions],
    invariants: [...a.invariants, ...b.invariants],
    routes: [...a.routes, ...b.routes],
  };
  const enc = new ExactRouteEncoder(ctx, merged, listBound);
  const side = (ir: IREdition): Side => ({ ir, unit: (f) => enc.withRoutes(ir.routes, () => enc.unit(f)) });
  const A = side(a);
  const B_ = side(b);
  const invariants = [A, B_].flatMap((s) => s.ir.invariants.map((i) => s.unit(() => enc.bool(i.expr, new Map()))));

  // the invariants of both must leave some state
  {
    // (routes in invariants are free here: unsat without them is unsat with them)
    const inv = await plainCheck(ctx, enc, invariants, budget());
    if (inv === "unsat") throw new DiffInputError([`the invariants of ${names.a} and ${names.b} together admit no state`]);
  }

  const { shared, notCompared } = sharedActions(a, b, names);
  // route subsumption verdicts, by pair of route call instances (instances are shared across actions)
  const proven = new Map<string, boolean>();
  const actions: ActionDiff[] = [];
  for (const name of shared) {
    const t0 = performance.now();
    const res: ActionDiff = { action: name, verdict: "identical", aspects: { allowed: "identical", obliged: "identical" }, candidates: [], ms: 0 };
    const reasons: string[] = [];
    try {
      const act = a.actions.find((x) => x.name === name)!;
      let env!: Env;
      const params = enc.unit(() => {
        env = enc.actionEnv(act);
        return ctx.Bool.val(true);
      });
      const envFor = (s: Side, rule: IRRule): Env => {
        if (rule.action === name) return env;
        const own = actorOf(s.ir, rule.action)!;
        return new Map([[own, env.get(actorOf(s.ir, name)!)!]]);
      };
      const fires = (s: Side, r: IRRule): ExactUnit =>
        s.unit(() => {
          const e = envFor(s, r);
          const lifts = s.ir.exemptions.filter((x) => x.rules.includes(r.id) || x.groups.some((g) => r.groups.includes(g)));
          return enc.terms.and([enc.ruleCore(r, e), ...lifts.map((x) => enc.terms.not(enc.bool(x.when, e)))]);
        });
      const sides = [A, B_].map((s) => {
        const d = decisive(s.ir, name);
        return { s, forbid: d.forbid.map((r) => ({ id: r.id, u: fires(s, r) })), oblige: d.oblige.map((r) => ({ id: r.id, u: fires(s, r) })) };
      });
      // parameters of a large enum type used as a map key (`state.spaces[origin]`) are pinned per model
      const keys = new Set<string>();
      for (const x of sides) for (const r of [...x.forbid, ...x.oblige]) {
        const rule = x.s.ir.rules.find((q) => q.id === r.id)!;
        if (rule.action === name) mapKeyVars(rule.when, keys);
      }
      for (const s of [A, B_]) for (const e of s.ir.exemptions) mapKeyVars(e.when, keys);
      const pinnable = act.params.flatMap((p) => {
        const v = env.get(p.name);
        return p.type.k === "enum" && p.type.members.length > PIN_ABOVE && keys.has(p.name) && v?.k === "e" ? [v.e] : [];
      });
      // routes from a pinned parameter to another parameter: the latter is preferred near the former
      const ends = new Map<string, string>();
      for (const x of sides) for (const r of [...x.forbid, ...x.oblige]) routeEndVars(x.s.ir.rules.find((q) => q.id === r.id)!.when, ends);
      const routeEnds = [...ends].flatMap(([f, t]) => {
        const fv = env.get(f);
        const tv = env.get(t);
        return fv?.k === "e" && tv?.k === "e" && pinnable.includes(fv.e) && !pinnable.includes(tv.e) ? [{ from: fv.e, to: tv.e }] : [];
      });
      const actorParam = act.params.find((p) => p.actor)?.name;
      const actor = actorParam ? env.get(actorParam) : undefined;
      const units = [...invariants, params, ...sides.flatMap((x) => [...x.forbid, ...x.oblige].map((f) => f.u))];
      const routeLemmas = await subsumptions(ctx, enc, units, proven);
      for (const aspect of ["allowed", "obliged"] as const) {
        const decisiveOf = (x: (typeof sides)[number]) => (aspect === "allowed" ? x.forbid : x.oblige);
        // Two directions: `hi` says yes (allows / obliges), `lo` says no. A rule of `lo` whose
        // firing term is also one of `hi`'s cannot fire when `hi` says yes, so only `lo`'s own
        // rules can make the difference (an exact simplification; none left → no such state).
        for (const [hi, lo] of [[0, 1], [1, 0]] as const) {
          const own = (aspect === "allowed" ? sides[lo].forbid : sides[hi].oblige).filter(
            (r) => !(aspect === "allowed" ? sides[hi].forbid : sides[lo].oblige).some((q) => q.u.e.eqIdentity(r.u.e)),
          );
          if (!own.length) continue;
          const query =
            aspect === "allowed"
              ? enc.terms.and([...sides[hi].forbid.map((r) => enc.terms.not(r.u.e)), enc.terms.or(own.map((r) => r.u.e))])
              : enc.terms.and([enc.terms.or(own.map((r) => r.u.e)), ...sides[lo].oblige.map((r) => enc.terms.not(r.u.e))]);
          if (ctx.isFalse(query)) continue;
          const blocks: B[] = [];
          for (let n = 0; n < maxStates; n++) {
            const out = await solveExact(ctx, enc, units, [...invariants, ...routeLemmas], query, blocks, budget(), act, pinnable, routeEnds);
            if (out.result === "unsat") break;
            if (out.result === "unknown") {
              if (res.aspects[aspect] !== "differs") res.aspects[aspect] = "unknown";
              reasons.push(`${aspect} (${hi === 0 ? names.a : names.b} ${aspect === "allowed" ? "allows" : "obliges"}): ${out.reason}`);
              break;
            }
            res.aspects[aspect] = "differs";
            const m = out.model!;
            try {
              const holds = (e: B) => ctx.isTrue(m.eval(e, true));
              const predict = (x: (typeof sides)[number]): PredictedVerdict => {
                const f = x.forbid.filter((r) => holds(r.u.e)).map((r) => r.id);
                const o = x.oblige.filter((r) => holds(r.u.e)).map((r) => r.id);
                return { allowed: f.length === 0, obliged: o.length > 0, rules: [...f, ...o].sort() };
              };
              const tp = performance.now();
              res.candidates.push({ aspect, state: out.example!.state, action: out.example!.action, a: predict(sides[0]), b: predict(sides[1]) });
              if (process.env.RW_VERIFY_DEBUG) process.stderr.write(`  diff ${name}: verdicts read from the model in ${Math.round(performance.now() - tp)} ms\n`);
              // the next state must differ in which rules fire (either edition) or in the actor
              const sig: B[] = sides.flatMap((x) => decisiveOf(x).map((r) => (holds(r.u.e) ? r.u.e : enc.terms.not(r.u.e))));
              if (actor && (actor.k === "e" || actor.k === "i" || actor.k === "b")) sig.push((actor.e as ZExpr<"main">).eq(m.eval(actor.e as ZExpr<"main">, true)) as B);
              blocks.push(enc.terms.not(enc.terms.and(sig)));
            } finally {
              m.release();
            }
          }
        }
      }
    } catch (e) {
      for (const k of ["allowed", "obliged"] as const) if (res.aspects[k] === "identical") res.aspects[k] = "unknown";
      reasons.push(`error: ${e instanceof Error ? e.message : String(e)}`);
    }
    res.verdict = res.candidates.length ? "differs" : Object.values(res.aspects).includes("unknown") ? "unknown" : "identical";
    if (reasons.length) res.reason = reasons.join("; ");
    res.ms = Math.round(performance.now() - t0);
    actions.push(res);
  }
  return { a: names.a, b: names.b, actions, notCompared, bounds: { listBound, rlimit, timeoutMs, maxStates } };
}

/** The variables used (directly) as the key of a map lookup in `e`. */
export function mapKeyVars(e: Expr, out: Set<string>): Set<string> {
  if (e.k === "index" && e.key.k === "var") out.add(e.key.name);
  for (const c of children(e)) mapKeyVars(c, out);
  return out;
}

/** `from` var → `to` var of the routes in `e` whose ends are both variables. */
export function routeEndVars(e: Expr, out: Map<string, string>): Map<string, string> {
  if (e.k === "reach" && e.from.k === "var" && e.to.k === "var") out.set(e.from.name, e.to.name);
  for (const c of children(e)) routeEndVars(c, out);
  return out;
}

/**
 * Route subsumption lemmas for the route call instances of `units`: for each ordered pair (a, b)
 * with the same end terms where every path of `a` is a path of `b` (`ExactRouteEncoder.subsumes`),
 * the lemma `reach_a ⇒ reach_b`, as a unit. Valid in every state, so
 * adding it changes no verdict; it lets the solver see at once that a route with more
 * restrictions (his-500's deploy_path_500) never reaches where one with fewer (deploy_path) does
 * not, which refinement alone learns one state at a time. `proven` caches verdicts by pair
 * across actions (instances are shared).
 */
export async function subsumptions(ctx: Z3Ctx, enc: ExactRouteEncoder, units: ExactUnit[], proven: Map<string, boolean>): Promise<ExactUnit[]> {
  const ids = [...new Set(units.flatMap((u) => [...u.reach]))].sort((x, y) => x - y);
  // only instances with the same ends are compared: a rule quantifying over spaces calls a route
  // from each of them (148 calls on Here I Stand), and all pairs of those would be quadratic
  const groups = new Map<string, number[]>();
  for (const id of ids) groups.set(enc.endsKey(id), [...(groups.get(enc.endsKey(id)) ?? []), id]);
  const out: ExactUnit[] = [];
  for (const group of groups.values())
    for (const a of group)
      for (const b of group) {
        if (a === b) continue;
        const key = `${a}>${b}`;
        let ok = proven.get(key);
        if (ok === undefined) {
          ok = await enc.subsumes(a, b);
          proven.set(key, ok);
          if (process.env.RW_VERIFY_DEBUG && ok) process.stderr.write(`  route ${enc.describeInstance(a)} is subsumed by ${enc.describeInstance(b)}\n`);
        }
        if (ok) out.push(enc.unit(() => enc.subsumption(a, b)));
      }
  return out;
}

/** The domain facts of the given leaves (bounds, enum membership, list lengths), in a stable order. */
export function factsOf(enc: ExactRouteEncoder, leaves: Iterable<string>): B[] {
  return [...leaves].sort().flatMap((l) => enc.terms.leaves.get(l)?.facts ?? []);
}

export interface SolveOut {
  result: "sat" | "unsat" | "unknown";
  reason?: string;
  model?: Model<"main">;
  example?: { state: Record<string, unknown>; action: Record<string, unknown> };
}

/**
 * A search near a seed (`variants.ts`): the seed's state and action fill what the model leaves
 * open (`decode`'s base), and with `routePath` (the interpreter's paths on a decoded state) route
 * refinement asks the interpreter instead of searching clause by clause (`refineByPaths`).
 */
export interface SeedContext {
  base: { state: Record<string, unknown>; action: Record<string, unknown> };
  routePath?: RoutePathFn;
}

/** Rounds of route refinement (`ExactRouteEncoder.refine`) one solve may take before it gives up as unknown. */
const MAX_REFINE = 500;
/** Action parameters of an enum type with more members than this, used as a map key, are pinned (see `solveExact`). */
export const PIN_ABOVE = 16;

/**
 * One exact solve of inv ∧ query ∧ blocks (the caller releases the model; `budget` bounds the
 * whole solve, every check of it counted in Z3's resource units; running out is `unknown`):
 * 1. a plain check with the route Bools free (plus the route lemmas found so far): unsat is final;
 * 2. its action parameters of a large enum type (`Space`: a symbolic space index makes every
 *    `state.spaces[origin]…` a 148-way if-then-else) are pinned to the model's values, as hard
 *    constraints that Z3 folds away, and the routes are refined by plain checks until the model's
 *    routes match the validator's search (`ExactRouteEncoder.refine`); unsat under the pins
 *    excludes those values and goes back to 1;
 *    (with the other end of a route from a pinned space preferred within 1, 2, 3 steps of it);
 *    the first exact model is the answer (the CLI shrinks it with the validators).
 * Every lemma holds in every state, so lemmas found under pins stay valid without them.
 */
export async function solveExact(
  ctx: Z3Ctx,
  enc: ExactRouteEncoder,
  units: ExactUnit[],
  invariants: ExactUnit[],
  query: B,
  blocks: B[],
  budget: Budget,
  action: IRAction,
  pinnable: ZExpr<"main">[],
  routeEnds: { from: ZExpr<"main">; to: ZExpr<"main"> }[] = [],
  seed?: SeedContext,
): Promise<SolveOut> {
  const t0 = performance.now();
  const leaves = new Set<string>();
  const reach = new Set<number>();
  for (const u of units) {
    for (const l of u.leaves) leaves.add(l);
    for (const r of u.reach) reach.add(r);
  }
  const lemmas: B[] = [];
  const excluded: B[] = [];
  // the formulas whose values the caller reads from the model (the query, every rule's firing)
  const observed = [query, ...units.map((u) => u.e)];
  const lit = ctx.Bool.const("diff");
  const fresh = (pins: B[]): Solver<"main"> => {
    const solver = new ctx.Solver();
    // relevancy off is faster on the unrolled lists of the first check; with pins, the lemmas'
    // large hypotheses are mostly irrelevant and relevancy pays
    if (!pins.length) solver.set("smt.relevancy", 0);
    for (const f of [...factsOf(enc, leaves), ...invariants.map((i) => i.e), ...blocks, ...excluded, ...lemmas, ...pins]) solver.add(f);
    solver.add(ctx.Implies(lit, query));
    debug(`solver built (${pins.length} pins)`);
    return solver;
  };
  let rounds = 0;
  /** adds the lemmas of a model (and the domain facts of the leaves they bring) to `solver`; true when the model was exact */
  // whether the last model was found exact on the state decoded with the seed's values (by the
  // interpreter's paths), not on `refine`'s defaults: only then may the answer decode with them
  let exactOnBase = false;
  const refine = (solver: Solver<"main">, model: Model<"main">): boolean => {
    const before = new Set(leaves);
    // with the interpreter's paths: only path lemmas, no clause-by-clause search (else, or when a cut is needed, `refine`)
    let ref: Refinement | undefined;
    const routePath = seed?.routePath;
    if (routePath) {
      const { state } = decode(enc, model, leaves, action, seed.base);
      ref = enc.refineByPaths(model, reach, leaves, observed, (r, args, from, to) => routePath(r.name, args, from, to, state));
    }
    exactOnBase = ref !== undefined || reach.size === 0;
    ref ??= enc.refine(model, reach, leaves, observed);
    if (!ref.lemmas.length) return true;
    rounds++;
    lemmas.push(...ref.lemmas);
    for (const f of factsOf(enc, [...leaves].filter((l) => !before.has(l)))) solver.add(f);
    for (const l of ref.lemmas) solver.add(l);
    return false;
  };
  const debug = (what: string) => {
    if (process.env.RW_VERIFY_DEBUG) process.stderr.write(`  diff ${action.name}: ${what} after ${Math.round(performance.now() - t0)} ms , ${budget.used} rlimit units (${rounds} route lemma rounds, ${leaves.size} leaves)\n`);
  };
  const over = (): SolveOut | undefined =>
    rounds > MAX_REFINE
      ? { result: "unknown", reason: `route refinement did not converge in ${MAX_REFINE} rounds` }
      : budget.exhausted || budget.interrupted
        ? { result: "unknown", reason: budget.reason() }
        : undefined;
  /** preference (assumption literals, radius 1, 2, 3) for a route's `to` near its pinned `from` */
  let near: B[] = [];
  const check = async (solver: Solver<"main">): Promise<"sat" | "unsat" | "unknown"> => {
    for (;;) {
      const tc = performance.now();
      const r = await budgetedCheck(ctx, solver, budget, near.length ? [lit, near[0]] : [lit]);
      debug(`check ${r} in ${Math.round(performance.now() - tc)} ms${near.length ? ` (near ${4 - near.length})` : ""}`);
      // unsat under a preference only drops the preference
      if (r === "unsat" && near.length) near = near.slice(1);
      else return r;
    }
  };
  let firstModelNear: Model<"main"> | undefined;
  try {
    for (;;) {
      // 1. free routes, no pins (with nothing to pin, step 2 is the same check: straight there)
      let pins: B[] = [];
      if (pinnable.length) {
        const stop = over();
        if (stop) return stop;
        const solver = fresh([]);
        try {
          const r = await check(solver);
          if (r !== "sat") return r === "unsat" ? { result: "unsat" } : { result: "unknown", reason: budget.reason(solver) };
          const m = solver.model();
          try {
            pins = pinnable.map((p) => p.eq(m.eval(p, true)) as B);
            firstModelNear = routeEnds.length ? m : undefined;
          } finally {
            if (!firstModelNear) m.release();
          }
        } finally {
          solver.release();
        }
      }
      // 2. refine under the pins until the model's routes are exact
      const solver = fresh(pins);
      if (firstModelNear) {
        near = nearPreferences(ctx, enc, routeEnds, solver, firstModelNear);
        firstModelNear.release();
        firstModelNear = undefined;
      } else near = [];
      try {
        for (;;) {
          const stop = over();
          if (stop) return stop;
          const r = await check(solver);
          if (r === "unknown") return { result: "unknown", reason: budget.reason(solver) };
          if (r === "unsat") break;
          const m = solver.model();
          let exact = false;
          try {
            exact = refine(solver, m);
            if (exact) {
              debug("sat");
              // the seed's values fill what the model leaves open only where the routes were checked
              // on them (`refine` reads those leaves at their defaults, and the decoded state must agree)
              const example = decode(enc, m, leaves, action, exactOnBase ? seed?.base : undefined);
              debug("decoded");
              return { result: "sat", model: m, example };
            }
          } finally {
            if (!exact) m.release();
          }
        }
      } finally {
        solver.release();
      }
      // no state with these parameter values: exclude them
      if (!pins.length) return { result: "unsat" };
      excluded.push(enc.terms.not(enc.terms.and(pins)));
    }
  } finally {
    firstModelNear?.release();
  }
}

/**
 * Pins the `to` of the first route whose `from` the model fixes softly near it (assumption
 * literals `near:1..3`, each the ball of that radius around `from`): a short path needs few
 * refinement rounds. None when no route's `from` is a board space.
 */
function nearPreferences(ctx: Z3Ctx, enc: ExactRouteEncoder, routeEnds: { from: ZExpr<"main">; to: ZExpr<"main"> }[], solver: Solver<"main">, m: Model<"main">): B[] {
  const g = routeGraph(enc.ir.board);
  for (const { from, to } of routeEnds) {
    const code = enc.terms.enumIndexOf("Space", m.eval(from, true));
    const start = code === undefined ? -1 : g.ids.indexOf(enc.terms.baseMembers(enc.space)[code]);
    if (start < 0) continue;
    const dist = new Map<number, number>([[start, 0]]);
    const queue = [start];
    for (let h = 0; h < queue.length; h++) {
      const u = queue[h];
      for (const v of [...g.land[u], ...g.pass[u], ...g.port[u], ...g.sea[u]]) if (!dist.has(v)) (dist.set(v, dist.get(u)! + 1), queue.push(v));
    }
    return [1, 2, 3].map((radius) => {
      const p = ctx.Bool.const(`near:${radius}`);
      const ball = [...dist].filter(([, d]) => d <= radius).map(([i]) => to.eq(enc.terms.enumVal("Space", enc.terms.enumCode(enc.space, g.ids[i]))) as B);
      solver.add(ctx.Implies(p, enc.terms.or(ball)));
      return p;
    });
  }
  return [];
}

/** A plain satisfiability check of the units' conjunction (no routes refined: only for route-free units). */
async function plainCheck(ctx: Z3Ctx, enc: ExactRouteEncoder, units: ExactUnit[], budget: Budget): Promise<"sat" | "unsat" | "unknown"> {
  const solver: Solver<"main"> = new ctx.Solver();
  try {
    solver.set("smt.relevancy", 0);
    for (const f of [...factsOf(enc, units.flatMap((u) => [...u.leaves])), ...units.map((u) => u.e)]) solver.add(f);
    return await budgetedCheck(ctx, solver, budget);
  } finally {
    solver.release();
  }
}
