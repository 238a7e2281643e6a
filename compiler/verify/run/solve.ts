/**
 * The in-process prover: one obligation → its query (encode/queries.ts) → Z3 → a verdict with a
 * counterexample or witness (decoded, with the facts that matter) or an unsat core.
 *
 * fires(R) = scope(R) ∧ when(R) ∧ ¬(some exemption lifting R holds), in R's action context
 * (docs/CONTRACTS.md "Verdict semantics"). Assertions are tracked under `inv:<id>`, `rule:<id>` and
 * `exempt:<id>` so unsat cores map back to ids. Table obligations (table_gap, table_overlap) are
 * dispatched to tables.ts. Runs in the worker process (worker.ts) or, with
 * `isolate: false`, in the caller's. Never imports codegen.
 */
import { createHash } from "node:crypto";
import type { Bool, Model } from "z3-solver";
import type { IREdition } from "../../ir/types.js";
import { decode } from "../encode/decode.js";
import { canonicalSmt2 } from "./smt2.js";
import type { Encoder } from "../encode/encoder.js";
import { QueryParts } from "../encode/parts.js";

export { joinUnits } from "../encode/parts.js";
import type { Obligation } from "../../ir/obligations.js";
import { queryFor, type Query } from "../encode/queries.js";
import { leafJson, minimizeFacts, solveCanonical, valueOf, type Fact } from "./canon.js";
import { concreteModel, pinState, valueAt, type Assignment, type PinMemo } from "../encode/concrete.js";
import { defaultJson, scalarDefault } from "../encode/state-facts.js";
import { sliceInvariants } from "../obligations/slice.js";
import { solveTable } from "./tables.js";
import { Budget, budgetedCheck, errorReason, type Z3Ctx } from "./z3.js";

export type { Candidate, Example, Fact, Limits, Profile, Smt2Mode, SolvedObligation, StuckInfo, Tracked } from "./results.js";
import type { Candidate, Example, Limits, Profile, Smt2Mode, SolvedObligation, Tracked } from "./results.js";

/**
 * One edition's prover: its query parts (the encoder and the encodings, `parts`) and what it
 * decided once (the defaults fact, candidates' pins). Encodings are kept per IR object (and list bound) for
 * the life of the IR: proving the same edition again in one process reuses the same Z3 terms, so
 * Z3 sees identical term ids and gives identical models.
 */
export class Prover {
  /** the encoded parts of this edition's queries (encode/parts.ts), which the queries are built from */
  readonly parts: QueryParts;
  readonly ctx: Z3Ctx;
  readonly ir: IREdition;
  readonly enc: Encoder;

  constructor(
    ctx: Z3Ctx,
    ir: IREdition,
    listBound: number,
    /** leave out the invariants outside an obligation's cone of influence (obligations/slice.ts) */
    readonly slicing = true,
  ) {
    this.parts = new QueryParts(ctx, ir, listBound);
    this.ctx = ctx;
    this.ir = ir;
    this.enc = this.parts.enc;
  }

  private readonly pinMemos = new Map<string, PinMemo>();
  /** The pins of a candidate computed so far (a scenario state is tried by many obligations), by the content of its state and action. */
  private pinMemo(c: Candidate): PinMemo {
    const key = createHash("sha256").update(JSON.stringify(c.state)).update("\0").update(JSON.stringify(c.action)).digest("hex");
    let m = this.pinMemos.get(key);
    if (!m) this.pinMemos.set(key, (m = { byLeaf: new Map(), fresh: new Map() }));
    return m;
  }

  private defaultsOk?: Promise<boolean>;
  /** `defaultsSatisfyInvariants()` once decided here, or as given by `knowDefaultsSatisfyInvariants` */
  defaultsKnown?: boolean;
  /**
   * Takes `defaultsSatisfyInvariants()` as already decided (true, from the proof cache, under a
   * key of every input it depends on: cache/keys.ts `defaultsFactKey`), sparing its check: about a
   * second for Here I Stand, paid by every solver process on its first obligation.
   */
  knowDefaultsSatisfyInvariants(): void {
    this.defaultsOk ??= Promise.resolve(true);
    this.defaultsKnown = true;
  }
  /**
   * Whether the default state (decode.ts's defaults) satisfies every invariant: the condition
   * under which slicing is exact (slice.ts). Decided once per prover by Z3 with the default
   * state pinned; false when it does not hold, is unknown, or an invariant cannot be encoded.
   */
  defaultsSatisfyInvariants(): Promise<boolean> {
    this.defaultsOk ??= (async () => {
      const { enc } = this;
      let invs: Tracked[];
      try {
        invs = this.parts.inv();
      } catch {
        return false;
      }
      if (!invs.length) return true;
      const leaves = new Set(invs.flatMap((i) => [...i.unit.leaves]));
      const { values, problems } = pinState(enc, leaves, defaultJson(this.ir.state), { action: "" });
      if (problems.length) return false;
      const facts = [...leaves].flatMap((n) => enc.terms.leaves.get(n)?.facts ?? []);
      // a fact of the process, not of an obligation: a budget of its own
      return this.holdsOn(values, [...invs.map((i) => i.unit.e), ...facts], new Budget(DEFAULTS_RLIMIT, 600_000));
    })().then((ok) => (this.defaultsKnown = ok));
    return this.defaultsOk;
  }

  /**
   * Encodes the query of an obligation without solving it (never throws): the encodings of its
   * state, rules and exemptions are then cached for the obligations of the same action that this
   * prover solves next (README "Concrete witnesses": a solver process encodes while the caller
   * still judges the witnesses).
   */
  async prepare(ob: Obligation): Promise<void> {
    try {
      if (ob.kind === "table_gap" || ob.kind === "table_overlap") return;
      queryFor(this.parts, ob);
      if (this.slicing) await this.defaultsSatisfyInvariants();
    } catch {
      // solve() reports the same error as `unknown`
    }
  }

  /**
   * Solves one obligation (never throws: an encoding or solver error is `unknown` with the reason).
   * `candidates`: concrete states to try first (README "Concrete witnesses"); the first one on
   * which the obligation's own formula holds (every leaf pinned to its value, Z3 decides the
   * rest) answers a `proved`-by-witness obligation without a search. Only used for the kinds
   * whose `sat` proves (dead_rule, redundant_rule, always_forbidden, swallowing_exemption).
   * `limits`: the obligation's resource budget and CPU-time safety net (README "Budgets"),
   * counted from this call; the result records the budget and the count used (`rlimit`).
   * `early`: called with a `refuted` verdict as soon as the solver finds its model, before the
   * counterexample is made canonical and its facts minimal (its facts are then the model's
   * non-default leaves, `minimal: false`); the returned result is the same solve, polished. The
   * verdict does not depend on the polishing (it only picks among models of a satisfiable query).
   */
  async solve(ob: Obligation, limits: Limits, candidates: Candidate[] = [], smt2: Smt2Mode = "findings", early?: (r: SolvedObligation) => void): Promise<SolvedObligation> {
    return (await this.solveOrWitness(ob, limits, candidates, smt2, true, early))!;
  }

  /**
   * `solve` without the search: the verdict when one of `candidates` is a witness (or the
   * obligation cannot be encoded), undefined when none is (the caller then solves it).
   */
  async witness(ob: Obligation, limits: Limits, candidates: Candidate[], smt2: Smt2Mode = "findings"): Promise<SolvedObligation | undefined> {
    return this.solveOrWitness(ob, limits, candidates, smt2, false);
  }

  private async solveOrWitness(ob: Obligation, limits: Limits, candidates: Candidate[], smt2: Smt2Mode, search: boolean, early?: (r: SolvedObligation) => void): Promise<SolvedObligation | undefined> {
    const budget = new Budget(limits.rlimit, limits.timeoutMs, limits.deadline);
    const r = await this.solveWithin(ob, budget, candidates, smt2, search, early);
    return r && { ...r, rlimit: budget.record() };
  }

  private async solveWithin(ob: Obligation, budget: Budget, candidates: Candidate[], smt2: Smt2Mode, search: boolean, early?: (r: SolvedObligation) => void): Promise<SolvedObligation | undefined> {
    // result tables have queries of their own (tables.ts): no rules, no state
    if (ob.kind === "table_gap" || ob.kind === "table_overlap") return solveTable(this.ctx, this.enc, ob, budget);
    const t0 = performance.now();
    let q: Query;
    try {
      q = queryFor(this.parts, ob);
    } catch (e) {
      return { verdict: "unknown", reason: errorReason(e), smt2: `; ${ob.id}: not encoded\n` };
    }
    const prof: Profile = { queryMs: 0, buildMs: 0, smt2Ms: 0, witnessMs: 0, solveMs: 0, sliced: 0 };
    let built: Built | undefined;
    let t = t0;
    const lap = () => {
      const now = performance.now();
      const d = Math.round(now - t);
      t = now;
      return d;
    };
    try {
      if (this.slicing && (await this.defaultsSatisfyInvariants())) {
        const keep = new Set(sliceInvariants(this.ir, ob).map((i) => `inv:${i.id}`));
        const parts = q.parts.filter((p) => !p.name.startsWith("inv:") || keep.has(p.name));
        prof.sliced = q.parts.length - parts.length;
        q = { ...q, parts };
      }
      prof.queryMs = lap();
      built = this.build(q);
      prof.buildMs = lap();
      const withText = (r: SolvedObligation): SolvedObligation => {
        if (smt2 === "all" || r.verdict !== "proved") {
          lap();
          r = { ...r, smt2: this.smt2Of(ob, q, built!) };
          prof.smt2Ms = lap();
        }
        return { ...r, profile: prof };
      };
      if (q.satMeans === "proved" && candidates.length) {
        const w = await this.tryCandidates(built, q, candidates, budget);
        prof.witnessMs = lap();
        if (w) return withText(w);
      }
      if (!search) return undefined;
      const r = await this.check(this.withSolver(built, q), q, budget, early);
      prof.solveMs = lap();
      return withText(r);
    } catch (e) {
      if (process.env.RW_VERIFY_DEBUG) process.stderr.write(`${ob.id}: ${e instanceof Error ? e.stack : String(e)}\n`);
      return { verdict: "unknown", reason: errorReason(e), smt2: `; ${ob.id}: not solved\n` };
    } finally {
      built?.solver?.release();
    }
  }

  /**
   * The leaves, routes and formulas of a query; its solver comes with `withSolver` (a concrete
   * witness is checked without one).
   */
  private build(q: Query): Built {
    const { enc } = this;
    const leaves = new Set<string>();
    const routes = new Set<string>();
    for (const u of [...q.units, ...q.parts.map((p) => p.unit)]) {
      for (const l of u.leaves) if (!q.bound?.has(l)) leaves.add(l);
      for (const r of u.routes) routes.add(r);
    }
    const exprOf = (p: Tracked) => (p.negate ? enc.terms.not(p.unit.e) : p.unit.e);
    return { leaves, routes, exprOf };
  }

  /** One solver per obligation: domain facts untracked, every part tracked by name. */
  private withSolver(b: Built, q: Query): Built & Required<Pick<Built, "solver" | "track">> {
    if (b.solver && b.track) return b as Built & Required<Pick<Built, "solver" | "track">>;
    const { ctx } = this;
    const solver = new ctx.Solver();
    // relevancy propagation off: 10-20× faster on the unrolled list quantifiers of HIS
    solver.set("smt.relevancy", 0);
    const track = new Map<string, Bool<"main">>();
    assertQuery(this.parts, q, b.leaves, solver, track, b.exprOf);
    b.solver = solver;
    b.track = track;
    return b as Built & Required<Pick<Built, "solver" | "track">>;
  }

  /** The canonical SMT-LIB text of a query: the same assertions in a fresh solver, printed (smt2.ts). */
  private smt2Of(ob: Obligation, q: Query, b: Built): string {
    const { ctx } = this;
    const solver = new ctx.Solver();
    try {
      const track = new Map<string, Bool<"main">>();
      assertQuery(this.parts, q, b.leaves, solver, track, b.exprOf);
      const names = [...track.keys()].map((n) => `|${n}|`).join(" ");
      const header = `; ${ob.id}: ${ob.kind} (${ob.severity}) of ${ob.action}; rules ${ob.rules.join(", ") || "(none)"}\n`;
      return header + canonicalSmt2(solver.toSmtlib2("unknown")).replace(/\(check-sat\)\s*$/, `(check-sat-assuming (${names}))\n`).replace(/^; *\n/, "");
    } finally {
      solver.release();
    }
  }

  /** The part or domain fact a model falsifies (an interrupted check), if any. */
  private falsified(b: Built, q: Query, model: Model<"main">): string | undefined {
    const { ctx } = this;
    const bad = this.assertions(b, q).find(
      (x) => ctx.isFalse(model.eval(x.e, true)),
    );
    return bad?.name;
  }

  /**
   * Concrete witnesses first: each candidate's values pinned on every leaf of the query, under
   * every tracked part. The first `sat` whose model satisfies every part is the witness (the
   * candidate's own state and action, which the caller checked the validators agree on).
   */
  private async tryCandidates(b: Built, q: Query, candidates: Candidate[], budget: Budget): Promise<SolvedObligation | undefined> {
    const { enc } = this;
    const witness = (c: Candidate, model: Model<"main">): SolvedObligation => {
      const ex: Example = { state: c.state, action: c.action, replayable: true, source: c.source };
      ex.facts = stateFacts(enc, model, [...b.leaves], c);
      ex.minimal = false;
      return { verdict: "proved", witness: ex };
    };
    for (const c of candidates) {
      if (c.action.action !== q.exampleAction.name) continue;
      const { values, problems } = pinState(enc, b.leaves, c.state, c.action, this.pinMemo(c));
      if (problems.length) continue;
      // the query's parts and domain facts evaluated on the state (its values pinned)
      if (await this.holdsOn(values, this.assertions(b, q).map((x) => x.e), budget)) {
        const model = concreteModel(enc, values);
        try {
          return witness(c, model);
        } finally {
          model.release();
        }
      }
    }
    return undefined;
  }

  /**
   * Whether formulas hold on a concrete state: evaluated on a model of its values (no search).
   * What does not reduce to true or false mentions only what the state does not fix (route
   * answers, map keys outside the map): a small residual formula that Z3 decides at once.
   */
  private async holdsOn(values: Assignment[], formulas: Bool<"main">[], budget: Budget): Promise<boolean> {
    const { ctx, enc } = this;
    const model = concreteModel(enc, values);
    const residual: Bool<"main">[] = [];
    try {
      for (const f of formulas) {
        const v = model.eval(f, false) as Bool<"main">;
        if (ctx.isTrue(v)) continue;
        if (ctx.isFalse(v)) return false;
        residual.push(v);
      }
    } finally {
      model.release();
    }
    if (!residual.length) return true;
    const solver = new ctx.Solver();
    try {
      for (const r of residual) solver.add(r);
      return (await budgetedCheck(ctx, solver, budget, [], CANDIDATE_RLIMIT)) === "sat";
    } finally {
      solver.release();
    }
  }

  /**
   * The unsat core of a query whose goal is split for naming it (`Query.coreParts`): one more
   * check, the invariants of `core` and the split parts each tracked, its core as Z3 gives it
   * (not minimized: each deletion would be another quantified search). When that check does not
   * answer unsat, every split part is named (a core that is always right, and reuses nothing).
   */
  private async coreOfParts(b: Built, q: Query, core: string[], budget: Budget): Promise<string[]> {
    const { ctx } = this;
    const split = q.coreParts!;
    const every = () => [...new Set([...core, ...split.filter((x) => !x.name.startsWith("goal:")).map((x) => x.name)])].sort();
    const kept = new Set(core.map((id) => `inv:${id}`));
    const solver = new ctx.Solver();
    try {
      solver.set("smt.relevancy", 0);
      const track = new Map<string, Bool<"main">>();
      assertQuery(this.parts, { ...q, parts: [...q.parts.filter((x) => kept.has(x.name)), ...split] }, b.leaves, solver, track, b.exprOf);
      if ((await budgetedCheck(ctx, solver, budget, [...track.values()])) !== "unsat") return every();
      const names = [...solver.unsatCore()].map((c) => c.toString().replace(/^\|(.*)\|$/, "$1"));
      return [...new Set(names.filter((n) => !n.startsWith("goal:")).map((n) => n.replace(/^inv:/, "")))].sort();
    } finally {
      solver.release();
    }
  }

  /** Every asserted part and domain fact of a built query, named. */
  private assertions(b: Built, q: Query): { name: string; e: Bool<"main"> }[] {
    const { enc } = this;
    return [...q.parts.map((p) => ({ name: p.name, e: b.exprOf(p) })), ...[...b.leaves].flatMap((n) => (enc.terms.leaves.get(n)?.facts ?? []).map((e) => ({ name: `domain of ${n}`, e })))];
  }

  private async check(b: Built & Required<Pick<Built, "solver" | "track">>, q: Query, budget: Budget, early?: (r: SolvedObligation) => void): Promise<SolvedObligation> {
    const { ctx, enc } = this;
    const { solver, leaves, routes, track, exprOf } = b;
    // the verdict as soon as the first model is found (`solve`'s `early`): the model's
    // non-default leaves as facts, not canonical, not minimal. Never thrown from: the solve goes on
    const onSat =
      early && q.satMeans === "refuted"
        ? (model: Model<"main">) => {
            try {
              if (this.falsified(b, q, model)) return;
              const ex: Example = { ...decode(enc, model, leaves, q.exampleAction), replayable: routes.size === 0 };
              if (routes.size) ex.reason = `depends on route ${[...routes].sort().join(", ")}`;
              q.adjustExample?.(ex, model);
              ex.facts = factsOf(enc, model, nonDefault(enc, model, [...leaves].sort()));
              ex.minimal = false;
              early({ verdict: "refuted", counterexample: ex });
            } catch {
              // the polished result still comes
            }
          }
        : undefined;
    const r = await solveCanonical(ctx, enc, solver, leaves, budget, track, onSat);
    if (r.result === "unknown") return { verdict: "unknown", reason: r.reason };
    if (r.result === "unsat") {
      const goals = new Set(q.parts.filter((x) => x.name.startsWith("goal:")).map((x) => x.name.slice("goal:".length)));
      let core = (r.core ?? []).filter((id) => !goals.has(id));
      if (q.coreParts) core = await this.coreOfParts(b, q, core, budget);
      if (q.vacuousUnless && !q.vacuousUnless.some((id) => core.includes(id))) return { verdict: "proved", vacuous: true, core, reason: q.vacuousReason };
      return { verdict: q.satMeans === "refuted" ? "proved" : "refuted", core };
    }
    const model = r.model!;
    try {
      // INVARIANT: a verdict from a model only if the model satisfies the query. An interrupted
      // check (tiny timeouts) has been seen to answer `sat` with a model that does not.
      const bad = this.falsified(b, q, model);
      if (bad) return { verdict: "unknown", reason: `the solver's model does not satisfy \`${bad}\` (an interrupted check): not trusted` };
      const decoded = decode(enc, model, leaves, q.exampleAction);
      const ex: Example = { ...decoded, replayable: routes.size === 0 };
      if (routes.size) ex.reason = `depends on route ${[...routes].sort().join(", ")}`;
      q.adjustExample?.(ex, model);
      const sorted = [...leaves].sort();
      if (q.satMeans === "refuted") {
        const goalParts = q.parts.filter((p) => !p.name.startsWith("inv:"));
        const goal = enc.terms.and([...goalParts.map(exprOf), ...(q.facts ?? [])]);
        const invLits = [...track.entries()].filter(([n]) => n.startsWith("inv:")).map(([, l]) => l);
        const min = await minimizeFacts(ctx, enc, solver, model, sorted, invLits, goal, budget);
        ex.facts = factsOf(enc, model, min ?? nonDefault(enc, model, sorted));
        ex.minimal = min !== undefined;
      } else {
        ex.facts = factsOf(enc, model, nonDefault(enc, model, sorted));
        ex.minimal = false;
      }
      const out: SolvedObligation = { verdict: q.satMeans };
      if (q.satMeans === "refuted") out.counterexample = ex;
      else out.witness = ex;
      if (q.stuckInfo) out.stuck = q.stuckInfo(model, ex);
      return out;
    } finally {
      model.release();
    }
  }
}

/** The solver of one obligation with its tracked parts (Prover.build). */
interface Built {
  /** the solver with the query asserted (Prover.withSolver) */
  solver?: import("z3-solver").Solver<"main">;
  leaves: Set<string>;
  routes: Set<string>;
  /** part name → its tracking literal, with `solver` */
  track?: Map<string, Bool<"main">>;
  exprOf: (p: Tracked) => Bool<"main">;
}


/** Asserts a query: domain facts and untracked facts as they are, every part under its tracking literal (sorted by name). */
function assertQuery(p: QueryParts, q: Query, leaves: Set<string>, solver: import("z3-solver").Solver<"main">, track: Map<string, Bool<"main">>, exprOf: (t: Tracked) => Bool<"main">): void {
  const { ctx, enc } = p;
  for (const name of [...leaves].sort()) for (const f of enc.terms.leaves.get(name)?.facts ?? []) solver.add(f);
  for (const f of q.facts ?? []) solver.add(f);
  // tracked by hand (not addAndTrack) so a core can be minimized by re-checking subsets
  for (const part of [...q.parts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const lit = ctx.Bool.const(part.name);
    solver.add(ctx.Implies(lit, exprOf(part)));
    track.set(part.name, lit);
  }
}

/** Per-candidate resource-count cap: a pinned query is decided by propagation, or the candidate is skipped. */
export const CANDIDATE_RLIMIT = 3_000_000;
/** Resource budget of deciding whether the default state satisfies the invariants (once per prover). */
const DEFAULTS_RLIMIT = 50_000_000;


/** The leaves whose model value differs from the default decoding would give them. */
function nonDefault(enc: Encoder, model: import("z3-solver").Model<"main">, leaves: string[]): string[] {
  return leaves.filter((n) => {
    const leaf = enc.terms.leaves.get(n);
    return !!leaf && valueOf(enc, model, leaf) !== enc.terms.defaultValue(leaf);
  });
}

/**
 * The facts of a concrete witness: the query's leaves whose value in the state (read from the
 * state itself, at the keys the state gives symbolic map keys) is not the default. A leaf the
 * state has no value for (a list slot past its length) is no fact.
 */
function stateFacts(enc: Encoder, model: import("z3-solver").Model<"main">, names: string[], c: Candidate): Fact[] {
  const out = new Map<string, Fact>();
  for (const n of names) {
    const leaf = enc.terms.leaves.get(n);
    if (!leaf) continue;
    const path = enc.terms.concreteName(leaf, model);
    if (out.has(path) || path.includes("[?]")) continue;
    const v = valueAt(path, c.state, c.action);
    if (v === undefined) continue;
    const def = leaf.type.k === "list" || path.endsWith("#len") ? 0 : scalarDefault(leaf.type);
    if (v !== def) out.set(path, { path, value: v });
  }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Facts of leaves, with symbolic map keys shown by their model values (deduplicated, sorted by path). */
function factsOf(enc: Encoder, model: import("z3-solver").Model<"main">, names: string[]): Fact[] {
  const out = new Map<string, Fact>();
  for (const n of names) {
    const leaf = enc.terms.leaves.get(n);
    if (!leaf) continue;
    const path = enc.terms.concreteName(leaf, model);
    if (!out.has(path)) out.set(path, { path, value: leafJson(enc, model, n) });
  }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}


const provers = new WeakMap<IREdition, Map<string, Prover>>();
/** The memoized prover of an IR object and list bound (see `Prover`). */
export function proverFor(ctx: Z3Ctx, ir: IREdition, listBound: number, slicing = true): Prover {
  let m = provers.get(ir);
  if (!m) provers.set(ir, (m = new Map()));
  const key = `${listBound}/${slicing}`;
  let p = m.get(key);
  if (!p) m.set(key, (p = new Prover(ctx, ir, listBound, slicing)));
  return p;
}
