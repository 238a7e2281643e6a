/**
 * The reference evaluator: an interpreter over the IR (compiler/ir/types.ts) that gives the same
 * verdicts as the generated validators (docs/CONTRACTS.md "Verdict semantics"), read straight
 * from the IR at run time with nothing compiled.
 *
 * It exists as a second, independent reading of the language's semantics: `test/interpret.test.ts`
 * runs it against the generated validators on every scenario and on generated states, and the
 * benchmarks (bench/) time it beside them. It is written to be obviously right, not fast: a
 * recursive walk over `Expr`, a plain breadth-first route search, no caching across calls.
 *
 * Nothing here imports codegen, verify, z3 or generated/ (arrows point down the pipeline).
 */
import { actorParam, isActorOnly, liftedBy } from "../ir/derived.js";
import type { Board, Domain, Expr, IRAction, IREdition, IRExemption, IRRoute, IRRule, IRTable, TablePattern, Type } from "../ir/types.js";

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
  /** For every action whose oblige rules fire for `actor`: the action and those rule ids. */
  obligedActions(state: unknown, actor: string): { action: string; rules: string[] }[];
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
}

/** An expression the interpreter cannot evaluate (a construct the IR does not define). */
export class InterpretError extends Error {}

type Value = unknown;
type Env = Map<string, Value>;
type Rec = Record<string, Value>;

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byId = <T extends { id: string }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => cmpStr(a.id, b.id));

const NONE: readonly never[] = Object.freeze([]);

/** Board facts, derived from `ir.board` as dsl/README.md "Board builtins" and "Routes" define them. */
class BoardFacts {
  readonly type = new Map<string, Board["spaces"][number]["type"]>();
  readonly home = new Map<string, string[]>();
  /** every connection, any type (adjacent, neighbors) */
  readonly any = new Map<string, Set<string>>();
  /** route steps by kind: land–land normal, land–land pass, land–sea port, sea–sea */
  readonly land = new Map<string, Set<string>>();
  readonly pass = new Map<string, Set<string>>();
  readonly port = new Map<string, Set<string>>();
  readonly sea = new Map<string, Set<string>>();

  constructor(board: Board) {
    for (const s of board.spaces) {
      this.type.set(s.id, s.type);
      this.home.set(s.id, s.home);
      for (const m of [this.any, this.land, this.pass, this.port, this.sea]) m.set(s.id, new Set());
    }
    const link = (m: Map<string, Set<string>>, a: string, b: string) => {
      m.get(a)?.add(b);
      m.get(b)?.add(a);
    };
    for (const c of board.connections) {
      link(this.any, c.from, c.to);
      const aSea = this.isSea(c.from);
      const bSea = this.isSea(c.to);
      // a connection whose type does not fit its two ends counts for adjacency only
      if (c.type === "normal" && !aSea && !bSea) link(this.land, c.from, c.to);
      else if (c.type === "pass" && !aSea && !bSea) link(this.pass, c.from, c.to);
      else if (c.type === "port" && aSea !== bSea) link(this.port, c.from, c.to);
      else if (c.type === "sea" && aSea && bSea) link(this.sea, c.from, c.to);
    }
  }

  isSea(s: string): boolean {
    return this.type.get(s) === "sea";
  }
  isLand(s: string): boolean {
    return this.type.has(s) && !this.isSea(s);
  }
  /**
   * `distance(a, b)`: breadth-first search over every connection (any type) from a, counting
   * steps; the space count when b cannot be reached (dsl/README.md "Board builtins").
   */
  distance(a: string, b: string): number {
    if (a === b) return 0;
    const seen = new Set([a]);
    let frontier = [a];
    for (let d = 1; frontier.length; d++) {
      const next: string[] = [];
      for (const x of frontier) {
        for (const y of this.any.get(x) ?? []) {
          if (y === b) return d;
          if (!seen.has(y)) {
            seen.add(y);
            next.push(y);
          }
        }
      }
      frontier = next;
    }
    return this.type.size;
  }

  /** the ports on sea zone z, or the sea zones of port q (port connections of the space) */
  portLinks(s: string): string[] {
    return [...(this.port.get(s) ?? [])];
  }
}

/**
 * Builds the interpreter of an edition.
 * @param ir a checked edition (as `loadEdition` returns it)
 */
export function createInterpreter(ir: IREdition): Interpreter {
  const board = new BoardFacts(ir.board);
  const actions = new Map<string, IRAction>(ir.actions.map((a) => [a.name, a]));
  const routes = new Map<string, IRRoute>(ir.routes.map((r) => [r.name, r]));
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

  // ---- expressions ------------------------------------------------------------------------

  function evaluate(e: Expr, state: Value, env: Env): Value {
    switch (e.k) {
      case "lit":
        return e.value;
      case "var": {
        if (!env.has(e.name)) throw new InterpretError(`unbound variable \`${e.name}\``);
        return env.get(e.name);
      }
      case "state":
        return state;
      case "field":
        return (evaluate(e.obj, state, env) as Rec)[e.field];
      case "index":
        return (evaluate(e.obj, state, env) as Rec)[evaluate(e.key, state, env) as string];
      case "not":
        return !evaluate(e.arg, state, env);
      case "and":
        return e.args.every((a) => evaluate(a, state, env) === true);
      case "or":
        return e.args.some((a) => evaluate(a, state, env) === true);
      case "implies":
        return !evaluate(e.left, state, env) || evaluate(e.right, state, env) === true;
      case "cmp": {
        const l = evaluate(e.left, state, env);
        const r = evaluate(e.right, state, env);
        switch (e.op) {
          case "=": return l === r;
          case "!=": return l !== r;
          case "<": return (l as number) < (r as number);
          case "<=": return (l as number) <= (r as number);
          case ">": return (l as number) > (r as number);
          case ">=": return (l as number) >= (r as number);
        }
        throw new InterpretError(`unknown comparison ${String((e as { op: unknown }).op)}`);
      }
      case "arith": {
        const l = evaluate(e.left, state, env) as number;
        const r = evaluate(e.right, state, env) as number;
        return e.op === "+" ? l + r : e.op === "-" ? l - r : l * r;
      }
      case "neg":
        return -(evaluate(e.arg, state, env) as number);
      case "ite":
        return evaluate(e.cond, state, env) ? evaluate(e.then, state, env) : evaluate(e.else, state, env);
      case "in": {
        const x = evaluate(e.elem, state, env);
        if (e.set.k === "setlit") return e.set.items.some((it) => evaluate(it, state, env) === x);
        return (evaluate(e.set, state, env) as Value[]).includes(x);
      }
      case "setlit":
        throw new InterpretError("a set literal outside `in`");
      case "quant": {
        const want = e.q === "some";
        for (const x of domain(e.domain, state, env)) {
          if ((bind(env, e.var, x, () => evaluate(e.body, state, env)) === true) === want) return want;
        }
        return !want;
      }
      case "agg":
        return aggregate(e, state, env);
      case "len":
        return (evaluate(e.arg, state, env) as Value[]).length;
      case "board":
        return boardFn(e.fn, e.args.map((a) => evaluate(a, state, env) as string));
      case "table": {
        const t = tables.get(e.table);
        if (!t) throw new InterpretError(`unknown table \`${e.table}\``);
        const v = t.rows[rowOf(t, e.args.map((a) => evaluate(a, state, env)))]!.value;
        return e.field !== undefined ? (v as Rec)[e.field] : v;
      }
      case "distance":
        return board.distance(evaluate(e.from, state, env) as string, evaluate(e.to, state, env) as string);
      case "reach": {
        const r = routes.get(e.route);
        if (!r) throw new InterpretError(`unknown route \`${e.route}\``);
        const args = e.args.map((a) => evaluate(a, state, env));
        return reachable(r, args, evaluate(e.from, state, env) as string, evaluate(e.to, state, env) as string, state);
      }
    }
    throw new InterpretError(`unknown expression kind \`${(e as { k: string }).k}\``);
  }

  /** Evaluates `f` with `name` bound to `value`, then restores the previous binding. */
  function bind<T>(env: Env, name: string, value: Value, f: () => T): T {
    const had = env.has(name);
    const old = env.get(name);
    env.set(name, value);
    try {
      return f();
    } finally {
      if (had) env.set(name, old);
      else env.delete(name);
    }
  }

  function domain(d: Domain, state: Value, env: Env): readonly Value[] {
    switch (d.k) {
      case "enum":
        return d.type.members;
      case "list":
        return evaluate(d.expr, state, env) as Value[];
      case "board": {
        const s = evaluate(d.args[0]!, state, env) as string;
        if (d.fn === "neighbors") return [...(board.any.get(s) ?? [])];
        // ports_of on a land space and sea_zones_of on a sea zone are empty
        if (d.fn === "ports_of") return board.isSea(s) ? board.portLinks(s) : [];
        if (d.fn === "sea_zones_of") return board.isSea(s) ? [] : board.portLinks(s);
        throw new InterpretError(`unknown board domain \`${String(d.fn)}\``);
      }
    }
  }

  function aggregate(e: Extract<Expr, { k: "agg" }>, state: Value, env: Env): number {
    const values: number[] = [];
    for (const x of domain(e.domain, state, env)) {
      bind(env, e.var, x, () => {
        if (e.where && evaluate(e.where, state, env) !== true) return;
        values.push(e.op === "count" ? 1 : (evaluate(e.body!, state, env) as number));
      });
    }
    switch (e.op) {
      case "count":
        return values.length;
      case "sum":
        return values.reduce((a, b) => a + b, 0);
      case "max":
        return values.length ? Math.max(...values) : 0;
      case "min":
        return values.length ? Math.min(...values) : 0;
      case "sum_highest":
        return values
          .sort((a, b) => b - a)
          .slice(0, e.n ?? 0)
          .reduce((a, b) => a + b, 0);
    }
  }

  function boardFn(fn: Extract<Expr, { k: "board" }>["fn"], a: string[]): boolean {
    const [s, t] = a as [string, string];
    const type = board.type.get(s);
    switch (fn) {
      case "is_land": return board.isLand(s);
      case "is_sea": return board.isSea(s);
      case "is_port": return board.isLand(s) && board.portLinks(s).length > 0;
      case "is_fortified": return type === "key" || type === "fortress" || type === "capital" || type === "electorate";
      case "is_key": return type === "key" || type === "capital";
      case "is_electorate": return type === "electorate";
      case "is_capital": return type === "capital" && (board.home.get(s) ?? []).includes(t);
      case "is_home": return (board.home.get(s) ?? []).includes(t);
      case "adjacent": return board.any.get(s)?.has(t) ?? false;
      case "pass_between": return board.pass.get(s)?.has(t) ?? false;
      case "port_on": return board.isLand(s) && board.isSea(t) && (board.port.get(s)?.has(t) ?? false);
    }
    throw new InterpretError(`unknown board function \`${String(fn)}\``);
  }

  /**
   * `reachable(r(args), from, to)`: breadth-first search over (space, sea zones used so far).
   * Steps: land→land over normal connections (and pass connections when `passes` holds), land→sea
   * from a space meeting `port`, sea→land onto a space meeting `land` and `port`, sea→sea. Every
   * land space meets `land`, every sea zone `sea`, and at most `max_seas` sea zones are used.
   */
  function reachable(r: IRRoute, args: Value[], from: string, to: string, state: Value): boolean {
    const env: Env = new Map(r.params.map((p, i) => [p.name, args[i]]));
    const clause = (e: Expr, v: string, s: string) => bind(env, v, s, () => evaluate(e, state, env)) === true;
    const landOk = (s: string) => clause(r.land, r.landVar, s);
    const seaOk = (s: string) => clause(r.sea, r.seaVar, s);
    const portOk = (s: string) => clause(r.port, r.portVar, s);
    const passes = evaluate(r.passes, state, env) === true;
    // a path never needs to cross a sea zone twice, so "unlimited" is the number of sea zones
    const seaCount = [...board.type.values()].filter((t) => t === "sea").length;
    const maxSeas = r.maxSeas === null ? seaCount : Math.min(evaluate(r.maxSeas, state, env) as number, seaCount);

    let start: number;
    if (board.isSea(from)) {
      if (maxSeas < 1 || !seaOk(from)) return false;
      start = 1;
    } else {
      if (!board.isLand(from) || !landOk(from)) return false;
      start = 0;
    }
    if (from === to) return true;
    const seen = new Set<string>([`${from}/${start}`]);
    const queue: [string, number][] = [[from, start]];
    const visit = (s: string, k: number): boolean => {
      const key = `${s}/${k}`;
      if (seen.has(key)) return false;
      seen.add(key);
      if (s === to) return true;
      queue.push([s, k]);
      return false;
    };
    for (let head = 0; head < queue.length; head++) {
      const [u, k] = queue[head]!;
      if (board.isSea(u)) {
        if (k < maxSeas) for (const v of board.sea.get(u)!) if (seaOk(v) && visit(v, k + 1)) return true;
        for (const v of board.port.get(u)!) if (landOk(v) && portOk(v) && visit(v, k)) return true;
      } else {
        for (const v of board.land.get(u)!) if (landOk(v) && visit(v, k)) return true;
        if (passes) for (const v of board.pass.get(u)!) if (landOk(v) && visit(v, k)) return true;
        if (k < maxSeas && portOk(u)) for (const v of board.port.get(u)!) if (seaOk(v) && visit(v, k + 1)) return true;
      }
    }
    return false;
  }

  // ---- tables -------------------------------------------------------------------------------

  /** Whether `v` lies in the domain of a table parameter of type `t` (int range, bool, enum member). */
  function inDomain(t: Type, v: Value): boolean {
    if (t.k === "int") return Number.isInteger(v) && (t.min === undefined || (v as number) >= t.min) && (t.max === undefined || (v as number) <= t.max);
    if (t.k === "bool") return typeof v === "boolean";
    if (t.k === "enum") return t.members.includes(v as string);
    return false;
  }

  function matches(p: TablePattern, key: Value): boolean {
    switch (p.k) {
      case "any":
        return true;
      case "range":
        return (p.min === undefined || (key as number) >= p.min) && (p.max === undefined || (key as number) <= p.max);
      case "bool":
        return key === p.value;
      case "members":
        return p.members.includes(key as string);
    }
  }

  /**
   * The first row of `t` whose patterns match the keys and whose guard holds, for the argument
   * values in parameter order (dsl/README.md "Tables": rows in source order, first match wins).
   */
  function rowOf(t: IRTable, args: Value[]): number {
    t.params.forEach((p, i) => {
      if (!inDomain(p.type, args[i])) throw new RangeError(`${t.name}: ${p.name} is outside its domain, got ${String(args[i])}`);
    });
    const env: Env = new Map(t.params.map((p, i) => [p.name, args[i]]));
    const keys = t.keys.map((k) => evaluate(k, undefined, env));
    const i = t.rows.findIndex((r) => r.patterns.every((p, j) => matches(p, keys[j])) && (r.guard === null || evaluate(r.guard, undefined, env) === true));
    if (i < 0) throw new RangeError(`${t.name}: no row for ${t.params.map((p, j) => `${p.name} ${String(args[j])}`).join(", ")}`);
    return i;
  }

  // ---- rules --------------------------------------------------------------------------------

  /** The action's parameters as an environment (params the action JSON lacks are unbound). */
  function paramsEnv(a: IRAction, action: Record<string, unknown>): Env {
    const env: Env = new Map();
    for (const p of a.params) if (p.name in action) env.set(p.name, action[p.name]);
    return env;
  }

  /** fires(R) = scope ∧ when ∧ no exemption lifting R holds (all in R's action context). */
  function firesIn(r: IRRule, state: Value, env: Env): boolean {
    const s = state as Rec;
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

  function checkAction(a: IRAction, state: Value, action: Record<string, unknown>): Verdict {
    const env = paramsEnv(a, action);
    const violations: Violation[] = [];
    const obliged: string[] = [];
    for (const r of rules) if (r.action === a.name && r.kind === "forbid" && firesIn(r, state, env)) violations.push(violationOf.get(r.id)!);
    const me = actorParam(a);
    if (me) {
      for (const r of rules) {
        if (r.kind !== "oblige" || r.action === a.name || !isActorOnly(actions.get(r.action)!)) continue;
        if (obligeFiresFor(r, state, action[me.name])) violations.push(violationOf.get(r.id)!);
      }
    }
    for (const r of rules) if (r.action === a.name && r.kind === "oblige" && firesIn(r, state, env)) obliged.push(r.id);
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
      const out: { action: string; rules: string[] }[] = [];
      for (const a of [...actions.values()].sort((x, y) => cmpStr(x.name, y.name))) {
        if (!isActorOnly(a)) continue;
        const fired = rules.filter((r) => r.action === a.name && r.kind === "oblige" && obligeFiresFor(r, state, actor)).map((r) => r.id);
        if (fired.length) out.push({ action: a.name, rules: fired });
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
      return rowOf(t, t.params.map((p) => inputs[p.name]));
    },
  };
}
