/**
 * The reference evaluator: an interpreter over the IR (compiler/ir/types.ts) that gives the same
 * verdicts as the generated validators (docs/CONTRACTS.md "Verdict semantics"), read straight
 * from the IR at run time with nothing compiled.
 *
 * It exists as a second, independent reading of the language's semantics: `test/interpret/interpret.test.ts`
 * runs it against the generated validators on every scenario and on generated states, and the
 * benchmarks (bench/) time it beside them. It is written to be obviously right, not fast: a
 * recursive walk over `Expr`, a plain breadth-first route search, no caching across calls.
 *
 * Nothing here imports codegen, verify, z3 or generated/ (arrows point down the pipeline).
 */
import { actorParam, bindsActor, isActorOnly, liftedBy } from "../ir/derived.js";
import type { Expr, IRAction, IREdition, IRExemption, IRRule, IRTable } from "../ir/types.js";
import { Evaluator, InterpretError, type Env, type Value } from "./evaluate.js";

export { InterpretError };

/** One violated rule, as the generated validators report it. */
export interface Violation {
  rule: string;
  kind: "forbid" | "obligation";
  citation: string;
  title: string;
  file: string;
  line: number;
  column: number;
}

/** The verdict on one action (same shape and order as the generated `check`). */
export interface Verdict {
  allowed: boolean;
  violations: readonly Violation[];
  obliged: readonly string[];
}

/** The interpreter of one edition. Inputs are the same JSON values the generated validators take. */
export interface Interpreter {
  /** The verdict on any action (dispatches on `action.action`); throws on an unknown action. */
  check(state: unknown, action: unknown): Verdict;
  /**
   * For every action whose oblige rules fire for `actor`: the action and those rule ids; an
   * obligation with parameters (`oblige play_card(card: …)`) is an entry of its own, with the
   * obliged move's `params`.
   */
  obligedActions(state: unknown, actor: string): ObligedAction[];
  /** The ids of the invariants the state breaks, sorted by id. */
  brokenInvariants(state: unknown): string[];
  /** Whether one rule fires (scope, condition, exemptions) for the action's parameters. */
  fires(ruleId: string, state: unknown, action: Record<string, unknown>): boolean;
  /**
   * The index of the first row of result table `table` that matches `inputs` (parameter name →
   * value), as the generated `lookupRow` gives it. Throws a RangeError when an input lies outside
   * the table's domain or no row matches, an InterpretError for an unknown table.
   */
  lookupRow(table: string, inputs: Record<string, unknown>): number;
  /**
   * The path by which `reachable(route(args), from, to)` holds in `state`: its nodes from `from`
   * to `to`, each a space and the sea zones used on arriving there; undefined when there is no
   * path. Throws an InterpretError for an unknown route.
   */
  routePath(route: string, args: unknown[], from: string, to: string, state: unknown): { space: string; k: number }[] | undefined;
}

/** One entry of `obligedActions` (the shape the generated `obligedActions` returns). */
export interface ObligedAction {
  action: string;
  rules: string[];
  /** an obligation with parameters: the value of each parameter but the actor */
  params?: Record<string, unknown>;
}

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byId = <T extends { id: string }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => cmpStr(a.id, b.id));

const NONE: readonly never[] = Object.freeze([]);

/**
 * Builds the interpreter of an edition.
 * @param ir a checked edition (as `loadEdition` returns it)
 */
export function createInterpreter(ir: IREdition): Interpreter {
  const ev = new Evaluator(ir);
  const evaluate = (e: Expr, state: Value, env: Env): Value => ev.evaluate(e, state, env);
  const actions = new Map<string, IRAction>(ir.actions.map((a) => [a.name, a]));
  const tables = new Map<string, IRTable>((ir.tables ?? []).map((t) => [t.name, t]));
  const rules = byId(ir.rules);
  const ruleById = new Map(rules.map((r) => [r.id, r]));
  const invariants = byId(ir.invariants);
  const violationOf = new Map<string, Violation>(
    rules.map((r) => [
      r.id,
      Object.freeze({
        rule: r.id,
        kind: r.kind === "forbid" ? "forbid" : "obligation",
        citation: r.citation.text,
        title: r.title,
        file: r.pos.file,
        line: r.pos.line,
        column: r.pos.column,
      } as Violation),
    ]),
  );
  // the exemptions lifting each rule, tested in id order (as the generated validators test them)
  const liftsOf = new Map<string, IRExemption[]>(rules.map((r) => [r.id, byId(liftedBy(ir, r))]));

  // ---- rules --------------------------------------------------------------------------------

  /** The action's parameters as an environment (params the action JSON lacks are unbound). */
  function paramsEnv(a: IRAction, action: Record<string, unknown>): Env {
    const env: Env = new Map();
    for (const p of a.params) if (p.name in action) env.set(p.name, action[p.name]);
    return env;
  }

  /** fires(R) = scope ∧ when ∧ no exemption lifting R holds (all in R's action context). */
  function firesIn(r: IRRule, state: Value, env: Env): boolean {
    const s = state as Record<string, Value>;
    if (r.scope) {
      if (s.phase !== r.scope.phase) return false;
      if (r.scope.segment !== undefined && s.segment !== r.scope.segment) return false;
    }
    if (evaluate(r.when, state, env) !== true) return false;
    return !liftsOf.get(r.id)!.some((ex) => evaluate(ex.when, state, env) === true);
  }

  /** The oblige rule `r` of an actor-only action, for the given actor value (false when the value is outside that action's actor type). */
  function obligeFiresFor(r: IRRule, state: Value, actor: Value): boolean {
    const other = actions.get(r.action)!;
    const p = actorParam(other)!;
    if (p.type.k === "enum" && !p.type.members.includes(actor as string)) return false;
    return firesIn(r, state, new Map([[p.name, actor]]));
  }

  /** The obliged move's parameter values of an obligation with parameters, for the given actor. */
  function boundValues(r: IRRule, state: Value, actor: Value): Record<string, Value> {
    const p = actorParam(actions.get(r.action)!)!;
    const env: Env = new Map([[p.name, actor]]);
    return Object.fromEntries(r.bind!.map((b) => [b.param, evaluate(b.value, state, env)]));
  }

  function checkAction(a: IRAction, state: Value, action: Record<string, unknown>): Verdict {
    const env = paramsEnv(a, action);
    const violations: Violation[] = [];
    const obliged: string[] = [];
    for (const r of rules) if (r.action === a.name && r.kind === "forbid" && firesIn(r, state, env)) violations.push(violationOf.get(r.id)!);
    const me = actorParam(a);
    if (me) {
      for (const r of rules) {
        if (r.kind !== "oblige" || r.action === a.name || !bindsActor(actions.get(r.action)!, r)) continue;
        if (obligeFiresFor(r, state, action[me.name])) violations.push(violationOf.get(r.id)!);
      }
      // an obligation with parameters of this action: a move with other values violates it
      for (const r of rules) {
        if (r.kind !== "oblige" || r.action !== a.name || !r.bind || !obligeFiresFor(r, state, action[me.name])) continue;
        const values = boundValues(r, state, action[me.name]);
        if (r.bind.every((b) => values[b.param] === action[b.param])) obliged.push(r.id);
        else violations.push(violationOf.get(r.id)!);
      }
    }
    for (const r of rules) if (r.action === a.name && r.kind === "oblige" && !r.bind && firesIn(r, state, env)) obliged.push(r.id);
    return {
      allowed: violations.length === 0,
      violations: violations.length ? violations : NONE,
      obliged: obliged.length ? obliged : NONE,
    };
  }

  return {
    check(state, action) {
      const act = action as Record<string, unknown>;
      const a = actions.get(act.action as string);
      if (!a) throw new InterpretError(`unknown action ${JSON.stringify(act.action)}`);
      return checkAction(a, state, act);
    },
    obligedActions(state, actor) {
      const out: ObligedAction[] = [];
      for (const a of [...actions.values()].sort((x, y) => cmpStr(x.name, y.name))) {
        if (isActorOnly(a)) {
          const fired = rules.filter((r) => r.action === a.name && r.kind === "oblige" && obligeFiresFor(r, state, actor)).map((r) => r.id);
          if (fired.length) out.push({ action: a.name, rules: fired });
          continue;
        }
        for (const r of rules) {
          if (r.action === a.name && r.bind && obligeFiresFor(r, state, actor)) out.push({ action: a.name, rules: [r.id], params: boundValues(r, state, actor) });
        }
      }
      return out;
    },
    brokenInvariants(state) {
      return invariants.filter((inv) => evaluate(inv.expr, state, new Map()) !== true).map((inv) => inv.id);
    },
    fires(ruleId, state, action) {
      const r = ruleById.get(ruleId);
      if (!r) throw new InterpretError(`unknown rule \`${ruleId}\``);
      return firesIn(r, state, paramsEnv(actions.get(r.action)!, action));
    },
    lookupRow(table, inputs) {
      const t = tables.get(table);
      if (!t) throw new InterpretError(`unknown table \`${table}\``);
      return ev.rowOf(t, t.params.map((p) => inputs[p.name]));
    },
    routePath(route, args, from, to, state) {
      const r = ir.routes.find((x) => x.name === route);
      if (!r) throw new InterpretError(`unknown route \`${route}\``);
      return ev.routePath(r, args, from, to, state);
    },
  };
}
