/**
 * The parts of queries, encoded once per edition and kept: invariants, a rule's scope and
 * condition, the exemptions that lift it, `fires(R)` (README "Analyses"), each read in an
 * action's context. queries.ts builds every query from them; run/solve.ts's `Prover` has them and adds solving.
 * Encodings are kept per IR object (and list bound) for the life of the IR: proving the same
 * edition again in one process reuses the same Z3 terms, so Z3 sees identical term ids and gives
 * identical models.
 */
import type { Bool } from "z3-solver";
import type { IRAction, IREdition, IRRule } from "../../ir/types.js";
import { bindEquals } from "../../ir/derived.js";
import { Encoder, type Env, type Unit } from "./encoder.js";
import { liftsOf } from "../../ir/obligations.js";
import type { Tracked } from "../run/results.js";
import type { Z3Ctx } from "../run/z3.js";

export class QueryParts {
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

  /**
   * The move of `R`'s action agrees with the values of an obligation with parameters
   * (`IRRule.bind`): ⋀ param = value, in the action's own context (its parameters are leaves).
   */
  boundMatch(r: IRRule): Unit {
    const { env } = this.envOf(r.action);
    return this.unit(`bind:${r.id}`, () => this.enc.bool(bindEquals(r, this.action(r.action)), env));
  }

  /**
   * R makes a move of `ctxAction` illegal: fires(R), read in that action's context; for an
   * obligation with parameters of that very action, fires(R) ∧ the move's values differ from R's.
   */
  blocks(r: IRRule, ctxAction: string): Unit {
    const f = this.fires(r, ctxAction);
    if (!r.bind || r.action !== ctxAction) return f;
    return joinUnits(this.enc, f, [this.boundMatch(r)]);
  }

  /** fires(R) split into conjuncts: rule:R = scope ∧ when, exempt:E = ¬E.when for each lifting E */
  firesParts(r: IRRule, into: Map<string, Tracked>, ctxAction = r.action): void {
    into.set(`rule:${r.id}`, { name: `rule:${r.id}`, unit: this.ruleCore(r, ctxAction) });
    for (const e of liftsOf(this.ir, r)) into.set(`exempt:${e.id}`, { name: `exempt:${e.id}`, unit: this.exemptHolds(e.id, r, ctxAction), negate: true });
  }
}

export function joinUnits(enc: Encoder, core: Unit, negated: Unit[]): Unit {
  return {
    e: enc.terms.and([core.e, ...negated.map((l) => enc.terms.not(l.e))]),
    leaves: new Set([...core.leaves, ...negated.flatMap((l) => [...l.leaves])]),
    routes: new Set([...core.routes, ...negated.flatMap((l) => [...l.routes])]),
  };
}
