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
import type { Bool } from "z3-solver";
import type { IRAction, IREdition, IRRule } from "../ir/types.js";
import { decode } from "./decode.js";
import { canonicalSmt2 } from "./smt2.js";
import { Encoder, type Env, type Unit } from "./encode.js";
import { liftsOf, type Obligation } from "./obligations.js";
import { queryFor, type Query } from "./analyses.js";
import { leafJson, minimizeFacts, solveCanonical, valueOf, type Fact } from "./canon.js";
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
  /** the SMT-LIB text of the query (written as <id>.smt2) */
  smt2: string;
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
  ) {
    this.enc = new Encoder(ctx, ir, listBound);
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

  /** Solves one obligation (never throws: an encoding or solver error is `unknown` with the reason). */
  async solve(ob: Obligation, timeoutMs: number): Promise<SolvedObligation> {
    // result tables have queries of their own (tables.ts): no rules, no state
    if (ob.kind === "table_gap" || ob.kind === "table_overlap") return solveTable(this.ctx, this.enc, ob, timeoutMs);
    let q: Query;
    try {
      q = queryFor(this, ob);
    } catch (e) {
      return { verdict: "unknown", reason: `error: ${e instanceof Error ? e.message : String(e)}`, smt2: `; ${ob.id}: not encoded\n` };
    }
    try {
      return await this.check(ob, q, timeoutMs);
    } catch (e) {
      if (process.env.RW_VERIFY_DEBUG) process.stderr.write(`${ob.id}: ${e instanceof Error ? e.stack : String(e)}\n`);
      return { verdict: "unknown", reason: `error: ${e instanceof Error ? e.message : String(e)}`, smt2: `; ${ob.id}: not solved\n` };
    }
  }

  /** One solver per obligation: domain facts untracked, every part tracked by name. */
  private async check(ob: Obligation, q: Query, timeoutMs: number): Promise<SolvedObligation> {
    const { ctx, enc } = this;
    const leaves = new Set<string>();
    const routes = new Set<string>();
    for (const u of [...q.units, ...q.parts.map((p) => p.unit)]) {
      for (const l of u.leaves) if (!q.bound?.has(l)) leaves.add(l);
      for (const r of u.routes) routes.add(r);
    }
    const solver = new ctx.Solver();
    try {
      solver.set("timeout", timeoutMs);
      // relevancy propagation off: 10-20× faster on the unrolled list quantifiers of HIS
      solver.set("smt.relevancy", 0);
      for (const name of [...leaves].sort()) for (const f of enc.leaves.get(name)?.facts ?? []) solver.add(f);
      for (const f of q.facts ?? []) solver.add(f);
      // tracked by hand (not addAndTrack) so a core can be minimized by re-checking subsets
      const track = new Map<string, Bool<"main">>();
      const exprOf = (p: Tracked) => (p.negate ? enc.not(p.unit.e) : p.unit.e);
      for (const p of [...q.parts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const lit = ctx.Bool.const(p.name);
        solver.add(ctx.Implies(lit, exprOf(p)));
        track.set(p.name, lit);
      }
      const names = [...track.keys()].map((n) => `|${n}|`).join(" ");
      const header = `; ${ob.id}: ${ob.kind} (${ob.severity}) of ${ob.action}; rules ${ob.rules.join(", ") || "(none)"}\n`;
      const smt2 = header + canonicalSmt2(solver.toSmtlib2("unknown")).replace(/\(check-sat\)\s*$/, `(check-sat-assuming (${names}))\n`).replace(/^; *\n/, "");
      const r = await solveCanonical(ctx, enc, solver, leaves, timeoutMs, track);
      if (r.result === "unknown") return { verdict: "unknown", reason: r.reason, smt2 };
      if (r.result === "unsat") {
        const goals = new Set(q.parts.filter((x) => x.name.startsWith("goal:")).map((x) => x.name.slice("goal:".length)));
        const core = (r.core ?? []).filter((id) => !goals.has(id));
        if (q.vacuousUnless && !q.vacuousUnless.some((id) => core.includes(id))) return { verdict: "proved", vacuous: true, core, reason: q.vacuousReason, smt2 };
        return { verdict: q.satMeans === "refuted" ? "proved" : "refuted", core, smt2 };
      }
      const model = r.model!;
      try {
        // INVARIANT: a verdict from a model only if the model satisfies the query. An interrupted
        // check (tiny timeouts) has been seen to answer `sat` with a model that does not.
        const bad = [...q.parts.map((p) => ({ name: p.name, e: exprOf(p) })), ...[...leaves].flatMap((n) => (enc.leaves.get(n)?.facts ?? []).map((e) => ({ name: `domain of ${n}`, e })))].find(
          (x) => ctx.isFalse(model.eval(x.e, true)),
        );
        if (bad) return { verdict: "unknown", reason: `the solver's model does not satisfy \`${bad.name}\` (an interrupted check): not trusted`, smt2 };
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
        const out: SolvedObligation = { verdict: q.satMeans, smt2 };
        if (q.satMeans === "refuted") out.counterexample = ex;
        else out.witness = ex;
        if (q.stuckInfo) out.stuck = q.stuckInfo(model, ex);
        return out;
      } finally {
        model.release();
      }
    } finally {
      solver.release();
    }
  }
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

const provers = new WeakMap<IREdition, Map<number, Prover>>();
/** The memoized prover of an IR object and list bound (see `Prover`). */
export function proverFor(ctx: Z3Ctx, ir: IREdition, listBound: number): Prover {
  let m = provers.get(ir);
  if (!m) provers.set(ir, (m = new Map()));
  let p = m.get(listBound);
  if (!p) m.set(listBound, (p = new Prover(ctx, ir, listBound)));
  return p;
}
