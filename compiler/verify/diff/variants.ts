/**
 * Rule variants against their edition (the conformance corpus's mutation testing, issue 26 item 5):
 * for a rule with another condition in place of its own — a mutant, compiler/engine/mutants.ts —
 * either a proof that no state of the edition tells the two apart in verdict-only mode, or a
 * state + action where the `allowed` of the edition and of the variant differ.
 *
 * The same encoding and exact solve as the edition diff (`diff.ts`: one `ExactRouteEncoder`,
 * `solveExact` with route refinement, route subsumption lemmas): a variant of rule r changes the
 * `allowed` of action Y exactly when no other rule deciding Y's `allowed` fires and r fires in one
 * and not in the other, so per action Y that r decides the query is
 *
 *   inv ∧ dom ∧ ¬(∨ other rules of Y fire) ∧ (fires_r ⊕ fires_r′)
 *
 * where fires = scope ∧ condition ∧ no exemption lifting r holds. The rules deciding Y's
 * `allowed` are those of the generated `check` and the interpreter (docs/CONTRACTS.md "Verdict
 * semantics"): the forbid rules of Y, and the oblige rules of every other action X that is
 * evaluated from its actor alone (`isActorOnly`), for Y's actor when it is a member of X's actor
 * type. An oblige rule of an action with other parameters decides no `allowed`.
 *
 * unsat for every such action → `equivalent`; sat → `differs` with the decoded state and action
 * (the caller replays it: a model is never trusted unreplayed); a spent budget, an encoding error
 * → `unknown` with its reason, never `equivalent`. Each action's search has its own budget in
 * Z3's deterministic resource units (`rlimit`), so the answer is the same at any load.
 */
import type { Bool, Expr as ZExpr } from "z3-solver";
import type { Expr, IRAction, IREdition, IRRule } from "../../ir/types.js";
import { actorParam, isActorOnly, liftedBy } from "../../ir/derived.js";
import { children } from "../../ir/walk.js";
import { EncodeError, type Env, type Sym } from "../encode/encoder.js";
import { ExactRouteEncoder, type ExactUnit } from "./route-exact.js";
import { varsIn, type RoutePathFn } from "./route-parts.js";
import { factsOf, mapKeyVars, PIN_ABOVE, routeEndVars, solveExact, subsumptions, type SeedContext, type SolveOut } from "./diff.js";
import { Budget, budgetedCheck, getZ3, runExclusive, type Z3Ctx } from "../run/z3.js";
import { sliceInvariants } from "../obligations/slice.js";
import { pinState, type Assignment } from "../encode/concrete.js";
import type { Obligation } from "../../ir/obligations.js";

type B = Bool<"main">;

/** A rule with another condition: `when` in place of rule `rule`'s own. */
export interface RuleVariant {
  id: string;
  rule: string;
  when: Expr;
}

export interface VariantVerdict {
  id: string;
  /** equivalent: proved (every action unsat); differs: a state found; unknown: neither (see `reason`) */
  verdict: "equivalent" | "differs" | "unknown";
  reason?: string;
  /** the action whose `allowed` differs (differs) */
  action?: string;
  /** the decoded state and flat action JSON (differs): complete, to be replayed by the caller */
  witness?: { state: Record<string, unknown>; action: Record<string, unknown> };
  /** Z3 resource units the searches of this variant used (summed over its actions) */
  rlimitUsed: number;
}

export interface VariantOptions {
  /** resource budget of each action's search, in Z3 `rlimit` units (default `DEFAULT_VARIANT_RLIMIT`) */
  rlimit?: number;
  /** CPU-time safety net of each search (ms; default 600 000): only a wedged solver reaches it */
  timeoutMs?: number;
  /** bound of list-typed action parameters (default 4, as `prove`) */
  listBound?: number;
  /**
   * the caller's knowledge that the default state (encode/state-facts.ts `defaultJson`) satisfies
   * every invariant: then each query assumes only the invariants in its cone of influence
   * (obligations/slice.ts, exact under that condition); otherwise all of them. Not used with
   * `brokenInvariants`, whose lazy searches add whichever invariants a state breaks
   */
  defaultsSatisfyInvariants?: boolean;
  /**
   * the ids of the invariants a complete decoded state breaks (the interpreter's
   * `brokenInvariants`): given, each search assumes the invariants lazily — none at first, then
   * those its model's state breaks, solved again until a model's state breaks none (exact: unsat
   * under some of the invariants is unsat under all of them; a state that breaks none satisfies
   * them all). Most mutants are told apart or proved equivalent without the invariants, whose
   * encoding dominates the cost of a query (a pinned query of `control.units`: 7.9 M units with
   * them, 0.9 M without). Absent: every query assumes its invariants up front
   */
  brokenInvariants?: (state: Record<string, unknown>) => string[];
  /**
   * concrete states of the edition (with an action) near which to look first, per action name
   * (the conformance corpus's cases of that action): before the free search of an action, for
   * each seed, every state and action leaf that the mutated rule does not read is pinned to the
   * seed's value (the leaves of the query's parts; the state's other parts decode to the seed's
   * values where the routes were checked on them, else to their defaults) and only the rule's own
   * leaves (and the action parameters it mentions) are left to the solver, under a small budget of
   * its own (`SEED_RLIMIT`). Only a state found counts (it is replayed like any other); unsat or
   * unknown near a seed says nothing, and the free search follows
   */
  seeds?: (action: string, rule: string) => readonly { state: unknown; action: Record<string, unknown> }[];
  /**
   * the path of a route in a concrete state (the interpreter's `routePath`): near a seed, each
   * route call is fixed to the seed's path (`ExactRouteEncoder.seedPaths`) and refined with the
   * interpreter's paths of each model's state (`refineByPaths`). The seed's routes are read under a
   * budget of their own, the size of the search's (so a seed may spend up to twice `SEED_RLIMIT`).
   * Absent: routes near a seed are refined like the free search's
   */
  routePath?: RoutePathFn;
  /** called before each variant (its index, the total) */
  onVariant?: (done: number, total: number, id: string) => void;
}

/** The resource budget of one search near a seed (`VariantOptions.seeds`; Z3 rlimit units). */
export const SEED_RLIMIT = 4_000_000;
/** Seeds tried per action. */
export const SEEDS_PER_ACTION = 3;

/** The default resource budget of one action's search for a variant (Z3 rlimit units). */
export const DEFAULT_VARIANT_RLIMIT = 60_000_000;

/**
 * Decides each variant against the edition (file comment). Variants of one rule share the
 * encoding of the edition's invariants and other rules; the answers come in the variants' order.
 */
export async function compareRuleVariants(ir: IREdition, variants: readonly RuleVariant[], opts: VariantOptions = {}): Promise<VariantVerdict[]> {
  const ctx = await getZ3();
  return runExclusive(() => compareWith(ctx, ir, variants, opts));
}

/** The actions whose `allowed` rule `r` decides (file comment). */
export function decidedActions(ir: IREdition, r: IRRule): IRAction[] {
  if (r.kind === "forbid") return ir.actions.filter((a) => a.name === r.action);
  const own = ir.actions.find((a) => a.name === r.action);
  if (!own || !isActorOnly(own)) return [];
  return ir.actions.filter((a) => a.name !== r.action && actorParam(a) !== undefined);
}

/** The rules deciding the `allowed` of action `a`, in `ir.rules` order. */
function decidingRules(ir: IREdition, a: IRAction): IRRule[] {
  return ir.rules.filter((r) => decidedActions(ir, r).includes(a));
}

/**
 * The diff's encoder, also reading a list at a constant index (`L[0]`): the IR has no list
 * indexing, but the `first_element` mutants do (the slot's value; the mutant itself guards the
 * list's length, as the interpreter reads it).
 */
class VariantEncoder extends ExactRouteEncoder {
  override expr(e: Expr, env: Env): Sym {
    if (e.k !== "index" || e.obj.type.k !== "list" || e.key.k !== "lit" || typeof e.key.value !== "number") return super.expr(e, env);
    const slot = this.terms.listElems(this.expr(e.obj, env))[e.key.value];
    if (!slot) throw new EncodeError(`index ${e.key.value} past the list's bound`);
    return slot.val;
  }
}

async function compareWith(ctx: Z3Ctx, ir: IREdition, variants: readonly RuleVariant[], opts: VariantOptions): Promise<VariantVerdict[]> {
  const rlimit = Math.max(1, Math.floor(opts.rlimit ?? DEFAULT_VARIANT_RLIMIT));
  const timeoutMs = Math.max(1, Math.floor(opts.timeoutMs ?? 600_000));
  const enc = new VariantEncoder(ctx, ir, opts.listBound ?? 4);
  const unit = (f: () => B): ExactUnit => enc.withRoutes(ir.routes, () => enc.unit(f));
  const invariantUnits = new Map(ir.invariants.map((i) => [i.id, unit(() => enc.bool(i.expr, new Map()))]));
  const allInvariants = [...invariantUnits.values()];
  /** the invariants a query over the given rules assumes: its cone of influence when slicing is exact (the mutated condition reads no state its rule does not) */
  const invariantsFor = (rules: IRRule[]): ExactUnit[] =>
    opts.defaultsSatisfyInvariants ? sliceInvariants(ir, { kind: "dead_rule", rules: rules.map((r) => r.id) } as unknown as Obligation).map((i) => invariantUnits.get(i.id)!) : allInvariants;
  const envs = new Map<string, { env: Env; params: ExactUnit }>();
  const envOf = (a: IRAction) => {
    let x = envs.get(a.name);
    if (!x) {
      let env!: Env;
      const params = unit(() => {
        env = enc.actionEnv(a);
        return ctx.Bool.val(true);
      });
      envs.set(a.name, (x = { env, params }));
    }
    return x;
  };
  /** rule r (with condition `when`) fires when action `a` is checked */
  const firesFor = (r: IRRule, when: Expr, a: IRAction): ExactUnit =>
    unit(() => {
      const { env } = envOf(a);
      if (r.action === a.name) return enc.terms.and([enc.ruleCore({ ...r, when }, env), ...liftedBy(ir, r).map((x) => enc.terms.not(enc.bool(x.when, env)))]);
      // an oblige rule of an actor-only action X, for a's actor: only when a's actor is one of X's
      const p = actorParam(ir.actions.find((x) => x.name === r.action)!)!;
      const actor = env.get(actorParam(a)!.name)!;
      const e: Env = new Map([[p.name, actor]]);
      const member = p.type.k === "enum" && actor.k === "e" ? enc.terms.memberE(actor.e, p.type.base, p.type.members.map((m) => enc.terms.enumCode(p.type as Extract<typeof p.type, { k: "enum" }>, m))) : ctx.Bool.val(true);
      return enc.terms.and([member, enc.ruleCore({ ...r, when }, e), ...liftedBy(ir, r).map((x) => enc.terms.not(enc.bool(x.when, e)))]);
    });
  const firing = new Map<string, ExactUnit>();
  const firesOrig = (r: IRRule, a: IRAction): ExactUnit => {
    const k = `${a.name}\u0000${r.id}`;
    let u = firing.get(k);
    if (!u) firing.set(k, (u = firesFor(r, r.when, a)));
    return u;
  };
  const proven = new Map<string, boolean>();
  const out: VariantVerdict[] = [];
  for (const [i, v] of variants.entries()) {
    opts.onVariant?.(i, variants.length, v.id);
    const rule = ir.rules.find((r) => r.id === v.rule);
    if (!rule) {
      out.push({ id: v.id, verdict: "unknown", reason: `no rule \`${v.rule}\` in the edition`, rlimitUsed: 0 });
      continue;
    }
    out.push(await compareOne(ctx, enc, ir, v, rule, { invariantsFor, invariantUnit: (id) => invariantUnits.get(id), brokenInvariants: opts.brokenInvariants, seeds: opts.seeds, routePath: opts.routePath, seedBudget: () => new Budget(SEED_RLIMIT, timeoutMs), envOf, firesFor, firesOrig, proven, budget: () => new Budget(rlimit, timeoutMs) }));
  }
  return out;
}

interface Shared {
  invariantsFor: (rules: IRRule[]) => ExactUnit[];
  invariantUnit: (id: string) => ExactUnit | undefined;
  brokenInvariants: VariantOptions["brokenInvariants"];
  seeds: VariantOptions["seeds"];
  routePath: VariantOptions["routePath"];
  seedBudget: () => Budget;
  envOf: (a: IRAction) => { env: Env; params: ExactUnit };
  firesFor: (r: IRRule, when: Expr, a: IRAction) => ExactUnit;
  firesOrig: (r: IRRule, a: IRAction) => ExactUnit;
  proven: Map<string, boolean>;
  budget: () => Budget;
}

/** One variant over every action its rule decides: the first sat state, else unsat everywhere, else unknown. */
async function compareOne(ctx: Z3Ctx, enc: ExactRouteEncoder, ir: IREdition, v: RuleVariant, rule: IRRule, s: Shared): Promise<VariantVerdict> {
  let used = 0;
  const reasons: string[] = [];
  const actions = decidedActions(ir, rule);
  if (actions.length > 1) {
    // an oblige rule decides every other action of its actor: first the relaxed query over its own
    // action, without the other rules (unsat there is unsat for every action: one solve, not one per action)
    const own = ir.actions.find((a) => a.name === rule.action)!;
    const orig = s.firesOrig(rule, own);
    const mut = s.firesFor(rule, v.when, own);
    if (orig.e.eqIdentity(mut.e)) return { id: v.id, verdict: "equivalent", rlimitUsed: 0 };
    const invariants = s.invariantsFor([rule]);
    const budget = s.budget();
    let res: SolveOut;
    try {
      res = await solveLazily(s, invariants, (assumed) => solveExact(ctx, enc, [...assumed, s.envOf(own).params, orig, mut], assumed, xor(enc, orig.e, mut.e), [], budget, own, []));
    } finally {
      used += budget.used;
    }
    if (res.result === "unsat") return { id: v.id, verdict: "equivalent", rlimitUsed: used };
  }
  // cheap actions first (a sat one ends the search): no route in their rules, fewer forbid rules
  const cost = (a: IRAction) => {
    const rules = decidingRules(ir, a);
    return (rules.some((r) => hasRoute(r.when)) ? 1000 : 0) + rules.filter((r) => r.action === a.name).length;
  };
  const ordered = actions.map((a, i) => ({ a, i, c: cost(a) })).sort((x, y) => x.c - y.c || x.i - y.i).map((x) => x.a);
  for (const a of ordered) {
    try {
      const { env, params } = s.envOf(a);
      const others = decidingRules(ir, a).filter((r) => r.id !== rule.id).map((r) => s.firesOrig(r, a));
      const orig = s.firesOrig(rule, a);
      const mut = s.firesFor(rule, v.when, a);
      if (orig.e.eqIdentity(mut.e)) continue;
      const query = enc.terms.and([...others.map((o) => enc.terms.not(o.e)), xor(enc, orig.e, mut.e)]);
      if (ctx.isFalse(query)) continue;
      const invariants = s.invariantsFor(decidingRules(ir, a));
      // parameters of a large enum used as a map key are pinned per model; routes from them preferred short (diff.ts)
      const keys = new Set<string>();
      for (const r of [...decidingRules(ir, a), { when: v.when, action: rule.action }]) if (r.action === a.name) mapKeyVars(r.when, keys);
      for (const x of ir.exemptions) mapKeyVars(x.when, keys);
      const pinnable = a.params.flatMap((p) => {
        const sym = env.get(p.name);
        return p.type.k === "enum" && p.type.members.length > PIN_ABOVE && keys.has(p.name) && sym?.k === "e" ? [sym.e] : [];
      });
      const ends = new Map<string, string>();
      for (const r of [...decidingRules(ir, a), { when: v.when }]) routeEndVars(r.when, ends);
      const routeEnds = [...ends].flatMap(([f, t]) => {
        const fv = env.get(f);
        const tv = env.get(t);
        return fv?.k === "e" && tv?.k === "e" && pinnable.includes(fv.e) && !pinnable.includes(tv.e) ? [{ from: fv.e as ZExpr<"main">, to: tv.e as ZExpr<"main"> }] : [];
      });
      /** one search of this action under the budget, with `pins` of a seed or none, and near a seed its routes fixed (the invariants as `solveLazily` assumes them) */
      const search = (budget: Budget, pins: (units: ExactUnit[]) => B[], pinned: ZExpr<"main">[], ends: typeof routeEnds, routes?: (units: ExactUnit[]) => Promise<ExactUnit | undefined>, near?: SeedContext) =>
        solveLazily(s, invariants, async (assumed) => {
          let units = [...assumed, params, ...others, orig, mut];
          const fixed = routes && (await routes(units));
          if (fixed) units = [...units, fixed];
          const lemmas = await subsumptions(ctx, enc, units, s.proven);
          return solveExact(ctx, enc, units, [...assumed, ...lemmas, ...(fixed ? [fixed] : [])], query, pins(units), budget, a, pinned, ends, near && { base: near.base, routePath: fixed ? near.routePath : undefined });
        });
      // near each seed first: the leaves the mutated rule does not read pinned to the seed's values
      // (the action's parameters that the rule, its variant or an exemption lifting it mention are free too)
      const mentioned = new Set<string>();
      for (const e of [rule.when, v.when, ...liftedBy(ir, rule).map((x) => x.when)]) varsIn(e, mentioned);
      const free = new Set([...orig.leaves, ...mut.leaves, ...a.params.filter((p) => mentioned.has(p.name)).map((p) => `action.${p.name}`)].map((l) => leafKey(enc, l)));
      for (const seed of (s.seeds?.(a.name, rule.id) ?? []).slice(0, SEEDS_PER_ACTION)) {
        const budget = s.seedBudget();
        // the seed's routes are read with a budget of their own, once per set of route instances
        const routeBudget = s.seedBudget();
        const fixedRoutes = new Map<string, Promise<ExactUnit | undefined>>();
        const routesNear = (units: ExactUnit[]) => {
          const k = [...new Set(units.flatMap((u) => [...u.reach]))].sort((x, y) => x - y).join(",");
          let f = fixedRoutes.get(k);
          if (!f) fixedRoutes.set(k, (f = seedRoutes(ctx, enc, units, seed, s.routePath, routeBudget)));
          return f;
        };
        let res: SolveOut & { unchecked?: boolean };
        try {
          const pinsOf = (units: ExactUnit[]) => {
            const pinned = [...new Set(units.flatMap((u) => [...u.leaves]))].filter((l) => !free.has(leafKey(enc, l)));
            return pinState(enc, pinned, seed.state, seed.action).values.map((x) => pinEquation(x));
          };
          res = await search(budget, pinsOf, [], [], routesNear, { base: { state: seed.state as Record<string, unknown>, action: seed.action }, routePath: s.routePath });
        } catch {
          // an error near a seed (an encoding or decoding failure) says nothing: the next seed, then the free search
          continue;
        } finally {
          used += budget.used + routeBudget.used;
        }
        // only a state known to satisfy the invariants ends the search from a seed (one that would
        // fail the caller's replay must not stand in for the free search's answer)
        if (res.result === "sat" && !res.unchecked) return { id: v.id, verdict: "differs", action: a.name, witness: res.example!, rlimitUsed: used };
      }
      const budget = s.budget();
      let res: SolveOut;
      try {
        res = await search(budget, () => [], pinnable, routeEnds);
      } finally {
        used += budget.used;
      }
      if (res.result === "sat") return { id: v.id, verdict: "differs", action: a.name, witness: res.example!, rlimitUsed: used };
      if (res.result === "unknown") reasons.push(`${a.name}: ${res.reason ?? "unknown"}`);
    } catch (e) {
      reasons.push(`${a.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return reasons.length ? { id: v.id, verdict: "unknown", reason: reasons.join("; "), rlimitUsed: used } : { id: v.id, verdict: "equivalent", rlimitUsed: used };
}

/**
 * One search under the invariants, assumed up front, or lazily when the caller can evaluate them
 * (`VariantOptions.brokenInvariants`): first none, then, while a model's decoded state breaks some,
 * those added and the search run again (at most once per invariant; the budget is the search's
 * whole). A sat answer's model is released here (its decoded state is the answer).
 */
async function solveLazily(s: Shared, invariants: ExactUnit[], solve: (assumed: ExactUnit[]) => Promise<SolveOut>): Promise<SolveOut & { unchecked?: boolean }> {
  const assumed: ExactUnit[] = s.brokenInvariants ? [] : invariants;
  const ids = new Set<string>();
  for (;;) {
    const res = await solve(assumed);
    res.model?.release();
    if (res.result !== "sat" || !s.brokenInvariants) return res;
    let broken: string[];
    try {
      broken = s.brokenInvariants(res.example!.state);
    } catch {
      // an invariant the caller cannot evaluate on this state: its replay decides
      return { ...res, unchecked: true };
    }
    if (!broken.length) return res;
    const added = broken.filter((id) => !ids.has(id) && s.invariantUnit(id));
    // broken although assumed (or unknown to the encoder): the state does not match its model, and the caller's replay rejects it
    if (!added.length) return { ...res, unchecked: true };
    for (const id of added) {
      ids.add(id);
      assumed.push(s.invariantUnit(id)!);
    }
  }
}

/**
 * The routes of a search near a seed fixed to the seed's paths (`ExactRouteEncoder.seedPaths`), as
 * a unit to assert; undefined when the units call no route, no `routePath` is given, or the seed's
 * values do not solve (also when the budget runs out reading them). The route instances' arguments and ends are read from a model with the
 * units' leaves pinned to the seed, their paths from `routePath` on the seed's state.
 */
async function seedRoutes(ctx: Z3Ctx, enc: ExactRouteEncoder, units: ExactUnit[], seed: { state: unknown; action: Record<string, unknown> }, routePath: VariantOptions["routePath"], budget: Budget): Promise<ExactUnit | undefined> {
  const reach = new Set(units.flatMap((u) => [...u.reach]));
  if (!reach.size || !routePath) return undefined;
  const leaves = new Set(units.flatMap((u) => [...u.leaves]));
  const solver = new ctx.Solver();
  try {
    for (const f of factsOf(enc, leaves)) solver.add(f);
    for (const p of pinState(enc, leaves, seed.state as never, seed.action as never).values) solver.add(pinEquation(p));
    if ((await budgetedCheck(ctx, solver, budget)) !== "sat") return undefined;
    const m = solver.model();
    try {
      const r = enc.seedPaths(m, reach, (route, args, from, to) => routePath(route.name, args, from, to, seed.state));
      if (process.env.RW_VERIFY_DEBUG) process.stderr.write(`  seed routes: ${r.constraints.length} routes fixed, ${r.leaves.size} leaves, ${budget.used} rlimit units\n`);
      return { e: enc.terms.and(r.constraints), leaves: r.leaves, routes: new Set(), reach: new Set() };
    } finally {
      m.release();
    }
  } finally {
    solver.release();
  }
}

/** A leaf's identity for pinning: its map pattern (a map is pinned or left free as a whole), else its name. */
const leafKey = (enc: ExactRouteEncoder, name: string): string => enc.terms.leaves.get(name)?.pattern ?? name;

/** A pin as a constraint: the leaf, or the map function at the keys, equal to the value. */
function pinEquation(a: Assignment): B {
  return "leaf" in a ? (a.leaf.eq(a.value) as B) : (a.fn.call(...(a.keys as never[])).eq(a.value) as B);
}

const xor = (enc: ExactRouteEncoder, a: B, b: B): B => enc.terms.or([enc.terms.and([a, enc.terms.not(b)]), enc.terms.and([b, enc.terms.not(a)])]);

/** Whether `e` calls a route (`reachable`). */
function hasRoute(e: Expr): boolean {
  return e.k === "reach" || children(e).some(hasRoute);
}
