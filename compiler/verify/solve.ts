/**
 * The in-process prover: one obligation → its query (analyses.ts) → Z3 → a verdict with a
 * counterexample or witness (decoded, with the facts that matter) or an unsat core.
 *
 * fires(R) = scope(R) ∧ when(R) ∧ ¬(some exemption lifting R holds), in R's action context
 * (CONTRACTS.md "Verdict semantics"). Assertions are tracked under `inv:<id>`, `rule:<id>` and
 * `exempt:<id>` so unsat cores map back to ids. Table obligations (table_gap, table_overlap) are
 * dispatched to tables.ts. Runs in the worker process (worker.ts) or, with
 * `isolate: false`, in the caller's. Never imports codegen.
 */
import { createHash } from "node:crypto";
import type { Bool, Model } from "z3-solver";
import type { IRAction, IREdition, IRRule } from "../ir/types.js";
import { decode } from "./decode.js";
import { canonicalSmt2 } from "./smt2.js";
import { Encoder, type Env, type Unit } from "./encode.js";
import { liftsOf, type Obligation } from "./obligations.js";
import { queryFor, type Query } from "./analyses.js";
import { guardedCheck, leafJson, minimizeFacts, solveCanonical, valueOf, type Fact } from "./canon.js";
import { concreteModel, defaultJson, pinState, type Assignment, type PinMemo } from "./concrete.js";
import { sliceInvariants } from "./slice.js";
import { solveTable, type TableExample } from "./tables.js";
import type { Z3Ctx } from "./z3.js";

export type { Fact } from "./canon.js";

export interface Example {
  /** a complete state, valid against the edition's JSON Schema */
  state: Record<string, unknown>;
  /** flat action JSON: `{ "action": name, ...params }` */
  action: Record<string, unknown>;
  /** false when the formula mentions a route (routes are uninterpreted in the prover) */
  replayable: boolean;
  reason?: string;
  /**
   * The facts that matter, for a readable summary: for a counterexample, a minimal set of leaf
   * values that (with the invariants) implies the refutation (`minimal: true`); otherwise the
   * leaves whose value is not the default.
   */
  facts?: Fact[];
  minimal?: boolean;
  /** a concrete witness: the scenario or earlier run it was taken from (README "Concrete witnesses") */
  source?: string;
}

/** What a stuck_power counterexample blocks: per action, the rules that forbid it in the state. */
export interface StuckInfo {
  /** the power that has no move (state.active_power) */
  actor: string;
  /** the declared decline move of the phase (`pass`), or null when declining is implicit */
  decline: string | null;
  /** why declining is not possible: the decline move is forbidden, or these obligations bind */
  obliged: string[];
  blocked: { action: string; rules: string[]; everyChoice: boolean }[];
}

export interface SolvedObligation {
  verdict: "proved" | "refuted" | "unknown";
  counterexample?: Example;
  witness?: Example;
  core?: string[];
  reason?: string;
  /** true when the obligation holds only because its subject never applies (see README "Analyses") */
  vacuous?: boolean;
  stuck?: StuckInfo;
  /** refuted table_gap / table_overlap: the offending inputs, their keys and the matching rows (tables.ts) */
  example?: TableExample;
  /**
   * the SMT-LIB text of the query (written as <id>.smt2): always for table obligations, for the
   * others when not proved, or always with `smt2: "all"` (printing a large query costs as much
   * as a concrete witness)
   */
  smt2?: string;
  /** where the time went (run-dependent, like `ms`; absent for cached results) */
  profile?: Profile;
}

/** Wall time (ms) of the steps of one obligation in the solver process (README "Profile"). */
export interface Profile {
  /** building the query: encoding its rules and invariants (the first time in a process; cached after), slicing */
  queryMs: number;
  /** asserting the query in a fresh solver */
  buildMs: number;
  /** printing the canonical SMT-LIB text */
  smt2Ms: number;
  /** trying concrete witness candidates */
  witnessMs: number;
  /** solving: canonical model or minimal core, decoding, facts */
  solveMs: number;
  /** invariants left out by slicing */
  sliced: number;
}

export interface Tracked {
  name: string; // inv:<id> | rule:<id> | exempt:<id>
  unit: Unit;
  negate?: boolean;
}

/**
 * One edition's encoder and its caches. Encodings are kept per IR object (and list bound) for
 * the life of the IR: proving the same edition again in one process reuses the same Z3 terms, so
 * Z3 sees identical term ids and gives identical models.
 */
export class Prover {
  readonly enc: Encoder;
  private readonly cache = new Map<string, Unit | Error>();
  private readonly envs = new Map<string, { env: Env; params: Unit }>();

  constructor(
    readonly ctx: Z3Ctx,
    readonly ir: IREdition,
    readonly listBound: number,
    /** leave out the invariants outside an obligation's cone of influence (slice.ts) */
    readonly slicing = true,
  ) {
    this.enc = new Encoder(ctx, ir, listBound);
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
  /**
   * Whether the default state (decode.ts's defaults) satisfies every invariant: the condition
   * under which slicing is exact (slice.ts). Decided once per prover by Z3 with the default
   * state pinned; false when it does not hold, is unknown, or an invariant cannot be encoded.
   */
  defaultsSatisfyInvariants(): Promise<boolean> {
    this.defaultsOk ??= (async () => {
      const { ctx, enc } = this;
      let invs: Tracked[];
      try {
        invs = this.inv();
      } catch {
        return false;
      }
      if (!invs.length) return true;
      const leaves = new Set(invs.flatMap((i) => [...i.unit.leaves]));
      const { values, problems } = pinState(enc, leaves, defaultJson(this.ir.state), { action: "" });
      if (problems.length) return false;
      const facts = [...leaves].flatMap((n) => enc.leaves.get(n)?.facts ?? []);
      return this.holdsOn(values, [...invs.map((i) => i.unit.e), ...facts], 30_000);
    })();
    return this.defaultsOk;
  }

  /** A lazily encoded, cached unit (an encoding error is cached and rethrown). */
  unit(key: string, f: () => Bool<"main">): Unit {
    let u = this.cache.get(key);
    if (!u) {
      try {
        u = this.enc.unit(f);
      } catch (e) {
        u = e instanceof Error ? e : new Error(String(e));
      }
      this.cache.set(key, u);
    }
    if (u instanceof Error) throw u;
    return u;
  }

  action(name: string): IRAction {
    const a = this.ir.actions.find((x) => x.name === name);
    if (!a) throw new Error(`unknown action \`${name}\``);
    return a;
  }

  rule(id: string): IRRule {
    const r = this.ir.rules.find((x) => x.id === id);
    if (!r) throw new Error(`unknown rule \`${id}\``);
    return r;
  }

  /** action envs: `name` = the action's own params; `name@other` = rules of `name` read with its actor bound to `other`'s actor */
  envOf(action: string, actorFrom?: string): { env: Env; params: Unit } {
    const key = actorFrom ? `${action}@${actorFrom}` : action;
    let v = this.envs.get(key);
    if (!v) {
      let env!: Env;
      const host = this.action(actorFrom ?? action);
      const params = this.enc.unit(() => {
        env = this.enc.actionEnv(host);
        return this.ctx.Bool.val(true);
      });
      if (actorFrom) {
        const own = this.action(action);
        const actor = own.params.find((p) => p.actor)!;
        const hostActor = host.params.find((p) => p.actor)!;
        env = new Map([[actor.name, env.get(hostActor.name)!]]);
      }
      v = { env, params };
      this.envs.set(key, v);
    }
    return v;
  }

  inv(): Tracked[] {
    return this.ir.invariants.map((i) => ({ name: `inv:${i.id}`, unit: this.unit(`inv:${i.id}`, () => this.enc.bool(i.expr, new Map())) }));
  }

  /** scope ∧ when of R, read in `ctxAction`'s context (R's own action, or another one of the same actor) */
  ruleCore(r: IRRule, ctxAction: string): Unit {
    const { env } = this.envOf(r.action, ctxAction === r.action ? undefined : ctxAction);
    return this.unit(`rule:${r.id}@${ctxAction}`, () => this.enc.ruleCore(r, env));
  }

  exemptHolds(exId: string, r: IRRule, ctxAction: string): Unit {
    const ex = this.ir.exemptions.find((e) => e.id === exId)!;
    const { env } = this.envOf(r.action, ctxAction === r.action ? undefined : ctxAction);
    return this.unit(`exempt:${exId}@${r.action}@${ctxAction}`, () => this.enc.bool(ex.when, env));
  }

  /** fires(R) as one unit (for negation) */
  fires(r: IRRule, ctxAction: string): Unit {
    const core = this.ruleCore(r, ctxAction);
    const lifts = liftsOf(this.ir, r).map((e) => this.exemptHolds(e.id, r, ctxAction));
    return joinUnits(this.enc, core, lifts);
  }

  /** fires(R) split into conjuncts: rule:R = scope ∧ when, exempt:E = ¬E.when for each lifting E */
  firesParts(r: IRRule, into: Map<string, Tracked>, ctxAction = r.action): void {
    into.set(`rule:${r.id}`, { name: `rule:${r.id}`, unit: this.ruleCore(r, ctxAction) });
    for (const e of liftsOf(this.ir, r)) into.set(`exempt:${e.id}`, { name: `exempt:${e.id}`, unit: this.exemptHolds(e.id, r, ctxAction), negate: true });
  }

  /**
   * Solves one obligation (never throws: an encoding or solver error is `unknown` with the reason).
   * `candidates`: concrete states to try first (README "Concrete witnesses"); the first one on
   * which the obligation's own formula holds (every leaf pinned to its value, Z3 decides the
   * rest) answers a `proved`-by-witness obligation without a search. Only used for the kinds
   * whose `sat` proves (dead_rule, redundant_rule, always_forbidden, swallowing_exemption).
   */
  async solve(ob: Obligation, timeoutMs: number, candidates: Candidate[] = [], smt2: Smt2Mode = "findings"): Promise<SolvedObligation> {
    // result tables have queries of their own (tables.ts): no rules, no state
    if (ob.kind === "table_gap" || ob.kind === "table_overlap") return solveTable(this.ctx, this.enc, ob, timeoutMs);
    const t0 = performance.now();
    let q: Query;
    try {
      q = queryFor(this, ob);
    } catch (e) {
      return { verdict: "unknown", reason: `error: ${e instanceof Error ? e.message : String(e)}`, smt2: `; ${ob.id}: not encoded\n` };
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
      built = this.build(q, timeoutMs);
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
        const w = await this.tryCandidates(built, q, candidates, timeoutMs);
        prof.witnessMs = lap();
        if (w) return withText(w);
      }
      const r = await this.check(built, q, timeoutMs);
      prof.solveMs = lap();
      return withText(r);
    } catch (e) {
      if (process.env.RW_VERIFY_DEBUG) process.stderr.write(`${ob.id}: ${e instanceof Error ? e.stack : String(e)}\n`);
      return { verdict: "unknown", reason: `error: ${e instanceof Error ? e.message : String(e)}`, smt2: `; ${ob.id}: not solved\n` };
    } finally {
      built?.solver.release();
    }
  }

  /** One solver per obligation: domain facts untracked, every part tracked by name. */
  private build(q: Query, timeoutMs: number): Built {
    const { ctx, enc } = this;
    const leaves = new Set<string>();
    const routes = new Set<string>();
    for (const u of [...q.units, ...q.parts.map((p) => p.unit)]) {
      for (const l of u.leaves) if (!q.bound?.has(l)) leaves.add(l);
      for (const r of u.routes) routes.add(r);
    }
    const solver = new ctx.Solver();
    solver.set("timeout", timeoutMs);
    // relevancy propagation off: 10-20× faster on the unrolled list quantifiers of HIS
    solver.set("smt.relevancy", 0);
    const track = new Map<string, Bool<"main">>();
    const exprOf = (p: Tracked) => (p.negate ? enc.not(p.unit.e) : p.unit.e);
    assertQuery(this, q, leaves, solver, track, exprOf);
    return { solver, leaves, routes, track, exprOf };
  }

  /** The canonical SMT-LIB text of a query: the same assertions in a fresh solver, printed (smt2.ts). */
  private smt2Of(ob: Obligation, q: Query, b: Built): string {
    const { ctx } = this;
    const solver = new ctx.Solver();
    try {
      const track = new Map<string, Bool<"main">>();
      assertQuery(this, q, b.leaves, solver, track, b.exprOf);
      const names = [...track.keys()].map((n) => `|${n}|`).join(" ");
      const header = `; ${ob.id}: ${ob.kind} (${ob.severity}) of ${ob.action}; rules ${ob.rules.join(", ") || "(none)"}\n`;
      return header + canonicalSmt2(solver.toSmtlib2("unknown")).replace(/\(check-sat\)\s*$/, `(check-sat-assuming (${names}))\n`).replace(/^; *\n/, "");
    } finally {
      solver.release();
    }
  }

  /** The part or domain fact a model falsifies (an interrupted check), if any. */
  private falsified(b: Built, q: Query, model: Model<"main">): string | undefined {
    const { ctx, enc } = this;
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
  private async tryCandidates(b: Built, q: Query, candidates: Candidate[], timeoutMs: number): Promise<SolvedObligation | undefined> {
    const { enc } = this;
    const witness = (c: Candidate, model: Model<"main">): SolvedObligation => {
      const ex: Example = { state: c.state, action: c.action, replayable: true, source: c.source };
      ex.facts = factsOf(enc, model, nonDefault(enc, model, [...b.leaves].sort()));
      ex.minimal = false;
      return { verdict: "proved", witness: ex };
    };
    for (const c of candidates) {
      if (c.action.action !== q.exampleAction.name) continue;
      const { values, problems } = pinState(enc, b.leaves, c.state, c.action, this.pinMemo(c));
      if (problems.length) continue;
      // the query's parts and domain facts evaluated on the state (its values pinned)
      if (await this.holdsOn(values, this.assertions(b, q).map((x) => x.e), timeoutMs)) {
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
  private async holdsOn(values: Assignment[], formulas: Bool<"main">[], timeoutMs: number): Promise<boolean> {
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
      const ms = Math.max(1, Math.min(timeoutMs, CANDIDATE_MS));
      solver.set("timeout", ms);
      for (const r of residual) solver.add(r);
      return (await guardedCheck(ctx, solver, ms)) === "sat";
    } finally {
      solver.release();
    }
  }

  /** Every asserted part and domain fact of a built query, named. */
  private assertions(b: Built, q: Query): { name: string; e: Bool<"main"> }[] {
    const { enc } = this;
    return [...q.parts.map((p) => ({ name: p.name, e: b.exprOf(p) })), ...[...b.leaves].flatMap((n) => (enc.leaves.get(n)?.facts ?? []).map((e) => ({ name: `domain of ${n}`, e })))];
  }

  private async check(b: Built, q: Query, timeoutMs: number): Promise<SolvedObligation> {
    const { ctx, enc } = this;
    const { solver, leaves, routes, track, exprOf } = b;
    const r = await solveCanonical(ctx, enc, solver, leaves, timeoutMs, track);
    if (r.result === "unknown") return { verdict: "unknown", reason: r.reason };
    if (r.result === "unsat") {
      const goals = new Set(q.parts.filter((x) => x.name.startsWith("goal:")).map((x) => x.name.slice("goal:".length)));
      const core = (r.core ?? []).filter((id) => !goals.has(id));
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
        const goal = enc.and([...goalParts.map(exprOf), ...(q.facts ?? [])]);
        const invLits = [...track.entries()].filter(([n]) => n.startsWith("inv:")).map(([, l]) => l);
        const min = await minimizeFacts(ctx, enc, solver, model, sorted, invLits, goal);
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
  solver: import("z3-solver").Solver<"main">;
  leaves: Set<string>;
  routes: Set<string>;
  track: Map<string, Bool<"main">>;
  exprOf: (p: Tracked) => Bool<"main">;
}

/** Which obligations carry their SMT-LIB text: every one, or those not proved (findings and unknowns). */
export type Smt2Mode = "all" | "findings";

/** Asserts a query: domain facts and untracked facts as they are, every part under its tracking literal (sorted by name). */
function assertQuery(p: Prover, q: Query, leaves: Set<string>, solver: import("z3-solver").Solver<"main">, track: Map<string, Bool<"main">>, exprOf: (t: Tracked) => Bool<"main">): void {
  const { ctx, enc } = p;
  for (const name of [...leaves].sort()) for (const f of enc.leaves.get(name)?.facts ?? []) solver.add(f);
  for (const f of q.facts ?? []) solver.add(f);
  // tracked by hand (not addAndTrack) so a core can be minimized by re-checking subsets
  for (const part of [...q.parts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const lit = ctx.Bool.const(part.name);
    solver.add(ctx.Implies(lit, exprOf(part)));
    track.set(part.name, lit);
  }
}

/** Per-candidate check time: a pinned query is decided by propagation, or the candidate is skipped. */
const CANDIDATE_MS = 5000;

/**
 * A concrete state offered as a witness (README "Concrete witnesses"): from a scenario or an
 * earlier run's witness, with the generated validator's and the interpreter's agreement already
 * checked by the caller. Only its own formula decides whether it is a witness.
 */
export interface Candidate {
  state: Record<string, unknown>;
  /** flat action JSON; only obligations of this action try it */
  action: Record<string, unknown>;
  /** where it comes from (`test/scenarios/his/pass.yaml:12`, `witness of his.dead_rule.x`) */
  source: string;
}

/** The leaves whose model value differs from the default decoding would give them. */
function nonDefault(enc: Encoder, model: import("z3-solver").Model<"main">, leaves: string[]): string[] {
  return leaves.filter((n) => {
    const leaf = enc.leaves.get(n);
    return !!leaf && valueOf(enc, model, leaf) !== enc.defaultValue(leaf);
  });
}

/** Facts of leaves, with symbolic map keys shown by their model values (deduplicated, sorted by path). */
function factsOf(enc: Encoder, model: import("z3-solver").Model<"main">, names: string[]): Fact[] {
  const out = new Map<string, Fact>();
  for (const n of names) {
    const leaf = enc.leaves.get(n);
    if (!leaf) continue;
    const path = enc.concreteName(leaf, model);
    if (!out.has(path)) out.set(path, { path, value: leafJson(enc, model, n) });
  }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function joinUnits(enc: Encoder, core: Unit, negated: Unit[]): Unit {
  return {
    e: enc.and([core.e, ...negated.map((l) => enc.not(l.e))]),
    leaves: new Set([...core.leaves, ...negated.flatMap((l) => [...l.leaves])]),
    routes: new Set([...core.routes, ...negated.flatMap((l) => [...l.routes])]),
  };
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
