/**
 * Solving one obligation's query with canonical models and minimized unsat cores, and
 * minimizing a counterexample to the facts that matter. Moved out of index.ts; used by
 * solve.ts. INVARIANT: every check goes through `budgetedCheck` (z3.ts: the obligation's resource
 * budget, GC guard, wall-clock watchdog); no limit here is a wall-clock one.
 */
import type { Bool, Expr as ZExpr, Model, Solver } from "z3-solver";
import type { Type } from "../../ir/types.js";
import type { Encoder } from "../encode/encoder.js";
import { budgetedCheck, type Budget, type Z3Ctx } from "./z3.js";

/**
 * Solves with a canonical model, so witnesses are small, readable and independent of Z3's
 * internal term order (which varies within one process):
 * 1. check assuming every leaf takes its default (false, 0/min, first member, empty list, …);
 *    on unsat, the defaults named in the core are dropped and the check repeated; an unsat core
 *    naming no default is the obligation's real core;
 * 2. on sat, the model is made the lexicographic minimum over the leaves in name order (each
 *    leaf's order: its default first, then ascending): a leaf already at its default costs no
 *    check, others a binary search. Capped at `MAX_PIN_CHECKS` checks and `CANON_RLIMIT` units of
 *    Z3's resource count; past the cap leaves keep their model values (the witness is still a
 *    model, just not canonical). Both caps are deterministic: the same witness at any load.
 * Falls back to one plain check (the rest of the budget) when the defaults keep failing. All
 * preference checks are capped (`CANON_CHECK_RLIMIT`), running out counting as "not satisfiable".
 * Unsat cores are minimized by deletion (re-checking without each part).
 * `onSat` is called with the first model, before it is made canonical (the verdict is known then).
 */
const MAX_PIN_CHECKS = 128;
/** resource-count cap of the canonicalization of one model (past it, leaves keep their model values) */
export const CANON_RLIMIT = 1_000_000;
/** resource-count cap of one preference check (defaults, canonical values, core minimization shortcuts) */
export const CANON_CHECK_RLIMIT = 500_000;
const MAX_DROP_ROUNDS = 12;
export interface Solved {
  result: "sat" | "unsat" | "unknown";
  model?: Model<"main">;
  core?: string[];
  reason?: string;
  checks: number;
}
export async function solveCanonical(
  ctx: Z3Ctx,
  enc: Encoder,
  solver: Solver<"main">,
  leaves: Set<string>,
  budget: Budget,
  track: Map<string, Bool<"main">>,
  onSat?: (model: Model<"main">) => void,
): Promise<Solved> {
  return new Canonical(ctx, enc, solver, leaves, budget, track, onSat).solve();
}

type IntE = ReturnType<Z3Ctx["Int"]["const"]>;

/** One `solveCanonical`: its checks, preferences and pins (see the comment above). */
class Canonical {
  private checks = 0;
  private readonly tracked: Bool<"main">[];
  /** the cap of the checks `run` makes now: a preference check's, or none (the budget's rest) */
  private cap = (): number => CANON_CHECK_RLIMIT;
  /** `pref:<leaf>` → its literal: the leaf at its default (dropped when a core names it) */
  private readonly prefs = new Map<string, Bool<"main">>();
  /** leaf → its `pref:` literal (all of them) */
  private readonly prefLits = new Map<string, Bool<"main">>();
  private readonly pins: Bool<"main">[] = [];
  private pinChecks = MAX_PIN_CHECKS;
  private canonFrom = 0;
  private proxies = 0;
  private model!: Model<"main">;

  constructor(
    private readonly ctx: Z3Ctx,
    private readonly enc: Encoder,
    private readonly solver: Solver<"main">,
    private readonly leaves: Set<string>,
    private readonly budget: Budget,
    private readonly track: Map<string, Bool<"main">>,
    private readonly onSat?: (model: Model<"main">) => void,
  ) {
    this.tracked = [...track.values()];
  }

  private run(assume0: Bool<"main">[], only?: Bool<"main">[]) {
    const assume = [...(only ?? this.tracked), ...assume0];
    this.checks++;
    return budgetedCheck(this.ctx, this.solver, this.budget, assume, this.cap());
  }

  private coreNames(): string[] {
    return [...this.solver.unsatCore()].map((c) => c.toString().replace(/^\|(.*)\|$/, "$1"));
  }

  /** deletion-based: drop each tracked part whose removal keeps the rest unsat (a timeout keeps it) */
  private async minimalCore(names: string[]): Promise<string[]> {
    const { track } = this;
    let core = names.filter((n) => track.has(n)).sort();
    for (const n of [...core]) {
      if (core.length <= 1 || !core.includes(n)) continue;
      const rest = core.filter((x) => x !== n);
      const restLits = rest.map((x) => track.get(x)!);
      // a model under (some of) the defaults shows `n` is needed, cheaply; drop defaults that
      // conflict (named by the core) for a few rounds, then check without any
      const local = new Map(this.prefs);
      let verdict: string = "?";
      for (let round = 0; round < MAX_DROP_ROUNDS && local.size && verdict === "?"; round++) {
        const r = await this.run([...local.values()], restLits);
        if (r === "sat") verdict = "sat";
        else if (r === "unknown") break;
        else {
          const bad = this.coreNames().filter((x) => local.has(x));
          if (!bad.length) verdict = "unsat";
          for (const b of bad) local.delete(b);
        }
      }
      if (verdict === "sat") continue;
      if (verdict === "unsat" || (await this.run([], restLits)) === "unsat") {
        const again = new Set(this.coreNames());
        core = rest.filter((x) => again.has(x));
      }
    }
    return [...new Set(core.map((n) => n.replace(/^[a-z]+:/, "")))].sort();
  }

  async solve(): Promise<Solved> {
    const { ctx, enc, solver, prefs, budget, leaves } = this;
    for (const name of [...leaves].sort()) {
      const leaf = enc.terms.leaves.get(name);
      if (!leaf) continue;
      const d = enc.terms.defaultOf(leaf);
      if (d === undefined) continue;
      const p = ctx.Bool.const(`pref:${name}`);
      solver.add(ctx.Implies(p, (leaf.e as IntE).eq(d as never)));
      prefs.set(`pref:${name}`, p);
      this.prefLits.set(name, p);
    }
    const dropped: string[] = [];
    let sat = false;
    // the checks under defaults are only a shortcut: capped, then the plain check
    this.cap = () => CANON_CHECK_RLIMIT;
    for (let i = 0; i < MAX_DROP_ROUNDS; i++) {
      const r = await this.run([...prefs.values()]);
      if (r === "sat") {
        sat = true;
        break;
      }
      if (r === "unknown") break;
      const names = this.coreNames();
      const bad = names.filter((n) => prefs.has(n));
      if (!bad.length) return { result: "unsat", core: await this.minimalCore(names), checks: this.checks };
      for (const n of bad) {
        prefs.delete(n);
        dropped.push(n.slice("pref:".length));
      }
    }
    if (!sat) {
      // plain check
      this.cap = () => Infinity;
      const r = await this.run([]);
      if (r === "unsat") return { result: "unsat", core: await this.minimalCore(this.coreNames()), checks: this.checks };
      if (r === "unknown") return { result: "unknown", reason: budget.reason(solver), checks: this.checks };
    }
    // Lexicographic minimum over the leaves in name order (value order: the default first, then
    // ascending; bool false < true; enum members in declaration order). A leaf whose current model
    // value is already the minimum is pinned without a check, so the cost is a few checks per leaf
    // that must deviate from its default. Past MAX_PIN_CHECKS a leaf keeps its model value.
    try {
      this.model = solver.model();
    } catch (e) {
      return { result: "unknown", reason: `the solver answered sat without a model (${(e as Error).message})`, checks: this.checks };
    }
    // the satisfiability is decided: the caller may say so before the model is made canonical
    this.onSat?.(this.model);
    this.canonFrom = budget.used;
    // canonicalization checks are only preferences: capped, together within CANON_RLIMIT (running
    // out counts as "not sat")
    this.cap = () => Math.max(1, Math.min(CANON_CHECK_RLIMIT, CANON_RLIMIT - (budget.used - this.canonFrom)));
    const order = [...leaves].filter((n) => enc.terms.leaves.has(n)).sort();
    try {
      for (let i = 0; i < order.length; i++) await this.pinLeaf(order, i);
      if (process.env.RW_VERIFY_DEBUG) process.stderr.write(`  sat checks=${this.checks} pinChecks=${MAX_PIN_CHECKS - this.pinChecks} rlimit=${budget.used} leaves=${leaves.size} dropped=${dropped.length} fellBack=${!sat}\n`);
      return { result: "sat", model: this.model, checks: this.checks };
    } catch (e) {
      this.model.release();
      throw e;
    }
  }

  private spent(): boolean {
    return this.pinChecks <= 0 || this.budget.used - this.canonFrom >= CANON_RLIMIT;
  }

  // INVARIANT: assumptions are always Boolean constants (proxies); formulas as assumptions have
  // crashed the wasm build of Z3.
  private proxy(f: Bool<"main">): Bool<"main"> {
    const p = this.ctx.Bool.const(`pin:${++this.proxies}`);
    this.solver.add(this.ctx.Implies(p, f));
    return p;
  }

  private async ok(extra: Bool<"main">): Promise<boolean> {
    this.pinChecks--;
    return (await this.run([...this.pins, this.proxy(extra)])) === "sat";
  }

  /** kept defaults of the leaves after position i: soft guidance for the models, never decisive */
  private softAfter(order: string[], i: number): Bool<"main">[] {
    return order.slice(i + 1).flatMap((n) => (this.prefs.has(`pref:${n}`) ? [this.prefs.get(`pref:${n}`)!] : []));
  }

  /** a model under the pins, preferably with the later leaves at their defaults */
  private async refresh(order: string[], i: number): Promise<boolean> {
    let r = await this.run([...this.pins, ...this.softAfter(order, i)]);
    if (r !== "sat") r = await this.run(this.pins);
    if (r !== "sat") return false;
    this.model.release();
    this.model = this.solver.model();
    return true;
  }

  /** Pins leaf `order[i]` to the smallest value in its order (default first) still satisfiable with the pins so far. */
  private async pinLeaf(order: string[], i: number): Promise<void> {
    const { ctx, enc, pins } = this;
    const name = order[i];
    const leaf = enc.terms.leaves.get(name)!;
    const t = leaf.type;
    const cur = valueOf(enc, this.model, leaf);
    if (cur === undefined) return;
    const def = enc.terms.defaultValue(leaf);
    const eqVal = (v: number | boolean): Bool<"main"> =>
      t.k === "bool" ? (v ? (leaf.e as Bool<"main">) : (leaf.e as Bool<"main">).not())
      : t.k === "enum" ? ((leaf.e as ZExpr<"main">).eq(enc.terms.enumVal(t.base, v as number)) as Bool<"main">)
      : (leaf.e as IntE).eq(v as number);
    if (cur === def) {
      pins.push(this.prefLits.get(name) ?? this.proxy(eqVal(def)));
      return;
    }
    if (this.spent()) {
      pins.push(this.proxy(eqVal(cur)));
      return;
    }
    // the smallest value in the leaf's order (default first) still satisfiable with the pins
    let best: number | boolean | undefined;
    const defPin = this.prefLits.get(name) ?? this.proxy(eqVal(def));
    this.pinChecks--;
    if ((await this.run([...pins, defPin, ...this.softAfter(order, i)])) === "sat" || ((this.pinChecks--, !this.spent()) && (await this.run([...pins, defPin])) === "sat")) {
      pins.push(defPin);
      this.model.release();
      this.model = this.solver.model();
      return;
    }
    if (t.k === "bool") best = true;
    else if (t.k === "enum") {
      const codes = t.members.map((m) => enc.terms.enumCode(t, m));
      const v = leaf.e as ZExpr<"main">;
      let [a, b] = [1, Math.max(1, codes.indexOf(cur as number))];
      while (a < b && !this.spent()) {
        const mid = Math.floor((a + b) / 2);
        if (await this.ok(enc.terms.memberE(v, t.base, codes.slice(a, mid + 1)))) b = mid;
        else a = mid + 1;
      }
      if (a === b) best = codes[a];
    } else {
      const x = leaf.e as IntE;
      const c = cur as number;
      const floor = def as number;
      let lo = floor + 1;
      let hi = c;
      if (c < floor) {
        // below the default (an unbounded int): only values above it are searched
        if (!this.spent() && (await this.ok(x.gt(floor)))) hi = t.k === "int" && t.max !== undefined ? t.max : floor + (1 << 20);
        else lo = hi = c;
      }
      while (lo < hi && !this.spent()) {
        const mid = Math.floor((lo + hi) / 2);
        if (await this.ok(ctx.And(x.gt(floor), x.le(mid)))) hi = mid;
        else lo = mid + 1;
      }
      if (lo === hi) best = lo;
    }
    pins.push(this.proxy(eqVal(best ?? cur)));
    if (best !== undefined && best !== cur && !(await this.refresh(order, i))) {
      pins.pop();
      pins.push(this.proxy(eqVal(cur)));
    }
  }
}

/** The value of a leaf in a model, comparable with `Encoder.defaultValue`. */
export function valueOf(enc: Encoder, model: Model<"main">, leaf: { e: unknown; type: Type }): number | boolean | undefined {
  const v = model.eval(leaf.e as ZExpr<"main">, true);
  if (leaf.type.k === "enum") return enc.terms.enumIndexOf(leaf.type.base, v);
  if (enc.ctx.isBool(v)) return enc.ctx.isTrue(v);
  if (enc.ctx.isIntVal(v)) return Number(v.value());
  return undefined;
}


/** A fact of an example: a leaf path of the state or action and its value in the model. */
export type { Fact } from "../../ir/proof-report.js";
import type { Fact } from "../../ir/proof-report.js";

/** The JSON value of a leaf in a model (enum member name, string atom), or undefined. */
export function leafJson(enc: Encoder, model: Model<"main">, name: string): unknown {
  const leaf = enc.terms.leaves.get(name);
  if (!leaf) return undefined;
  const v = valueOf(enc, model, leaf);
  if (v === undefined) return undefined;
  const t = leaf.type;
  if (t.k === "enum") return enc.terms.baseMembers(t)[v as number];
  if (t.k === "string") return (v as number) >= 0 && (v as number) < enc.terms.atomNames.length ? enc.terms.atomNames[v as number] : `s${v}`;
  return v;
}

const FACT_CHECKS = 64;
/** resource-count cap of minimizing the facts of one counterexample, and of one of its checks */
export const FACT_RLIMIT = 1_200_000;
export const FACT_CHECK_RLIMIT = 500_000;

/**
 * The facts of a model that matter: a small set S of leaf values such that the invariants and S
 * imply the goal (the obligation's parts other than the invariants) — every model of the
 * invariants that agrees with S is a counterexample too. Found from an unsat core of
 * `inv ∧ S ∧ ¬goal` under one assumption per leaf, then minimized by deletion under a small
 * budget (`FACT_CHECKS` checks, `FACT_RLIMIT` units of the resource count). Returns undefined when the goal is not implied
 * by the leaves alone (an uninterpreted route also decides it) or the budget ran out before the
 * first core: the caller then shows the non-default leaves.
 */
export async function minimizeFacts(
  ctx: Z3Ctx,
  enc: Encoder,
  solver: Solver<"main">,
  model: Model<"main">,
  leaves: string[],
  invLits: Bool<"main">[],
  goal: Bool<"main">,
  budget: Budget,
): Promise<string[] | undefined> {
  const from = budget.used;
  let checks = FACT_CHECKS;
  const neg = ctx.Bool.const("facts:not_goal");
  solver.add(ctx.Implies(neg, ctx.Not(goal)));
  const pins = new Map<string, Bool<"main">>();
  let n = 0;
  for (const name of leaves) {
    const leaf = enc.terms.leaves.get(name);
    if (!leaf) continue;
    const v = model.eval(leaf.e as ZExpr<"main">, true);
    const p = ctx.Bool.const(`fact:${++n}`);
    solver.add(ctx.Implies(p, (leaf.e as ZExpr<"main">).eq(v) as Bool<"main">));
    pins.set(p.toString().replace(/^\|(.*)\|$/, "$1"), p);
    pinNames.set(p, name);
  }
  const check = async (lits: Bool<"main">[]) => {
    checks--;
    return budgetedCheck(ctx, solver, budget, [...invLits, neg, ...lits], Math.min(FACT_CHECK_RLIMIT, from + FACT_RLIMIT - budget.used));
  };
  if ((await check([...pins.values()])) !== "unsat") return undefined;
  let keep = [...solver.unsatCore()].map((c) => pins.get(c.toString().replace(/^\|(.*)\|$/, "$1"))).filter((x): x is Bool<"main"> => !!x);
  for (const p of [...keep]) {
    if (checks <= 0 || budget.used - from >= FACT_RLIMIT) break;
    const rest = keep.filter((x) => x !== p);
    if ((await check(rest)) === "unsat") {
      const again = new Set([...solver.unsatCore()].map((c) => c.toString()));
      keep = rest.filter((x) => again.has(x.toString()));
    }
  }
  return keep.map((p) => pinNames.get(p)!).sort();
}
const pinNames = new WeakMap<object, string>();
