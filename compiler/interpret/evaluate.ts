/**
 * The interpreter's evaluation of IR expressions (compiler/ir/types.ts): a recursive walk over
 * `Expr` against a JSON state and an environment of variables, a plain breadth-first route
 * search and the first-match row lookup of result tables. Written to be obviously right, not
 * fast; index.ts builds the verdicts on it.
 */
import type { Domain, Expr, IREdition, IRRoute, IRTable, TablePattern, Type } from "../ir/types.js";
import { BoardFacts } from "./board.js";

/** An expression the interpreter cannot evaluate (a construct the IR does not define). */
export class InterpretError extends Error {}

/** A JSON value of the state or an action. */
export type Value = unknown;
/** The variables in scope: action parameters, route parameters, quantifier variables. */
export type Env = Map<string, Value>;
type Rec = Record<string, Value>;

/** The expressions, routes and tables of one edition, evaluated from the IR at run time. */
export class Evaluator {
  private readonly board: BoardFacts;
  private readonly routes: ReadonlyMap<string, IRRoute>;
  private readonly tables: ReadonlyMap<string, IRTable>;

  constructor(ir: IREdition) {
    this.board = new BoardFacts(ir.board);
    this.routes = new Map(ir.routes.map((r) => [r.name, r]));
    this.tables = new Map((ir.tables ?? []).map((t) => [t.name, t]));
  }

  /** The value of `e` in `state` with the variables of `env`. @throws InterpretError for an unbound variable or an unknown construct */
  evaluate(e: Expr, state: Value, env: Env): Value {
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
        return (this.evaluate(e.obj, state, env) as Rec)[e.field];
      case "index":
        return (this.evaluate(e.obj, state, env) as Rec)[this.evaluate(e.key, state, env) as string];
      case "not":
        return !this.evaluate(e.arg, state, env);
      case "and":
        return e.args.every((a) => this.evaluate(a, state, env) === true);
      case "or":
        return e.args.some((a) => this.evaluate(a, state, env) === true);
      case "implies":
        return !this.evaluate(e.left, state, env) || this.evaluate(e.right, state, env) === true;
      case "cmp": {
        const l = this.evaluate(e.left, state, env);
        const r = this.evaluate(e.right, state, env);
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
        const l = this.evaluate(e.left, state, env) as number;
        const r = this.evaluate(e.right, state, env) as number;
        // `/`: integer division rounding down, by a positive literal (exact within ±(2^53−1))
        return e.op === "+" ? l + r : e.op === "-" ? l - r : e.op === "/" ? Math.floor(l / r) : l * r;
      }
      case "neg":
        return -(this.evaluate(e.arg, state, env) as number);
      case "ite":
        return this.evaluate(e.cond, state, env) ? this.evaluate(e.then, state, env) : this.evaluate(e.else, state, env);
      case "in": {
        const x = this.evaluate(e.elem, state, env);
        if (e.set.k === "setlit") return e.set.items.some((it) => this.evaluate(it, state, env) === x);
        return (this.evaluate(e.set, state, env) as Value[]).includes(x);
      }
      case "setlit":
        throw new InterpretError("a set literal outside `in`");
      case "quant": {
        const want = e.q === "some";
        for (const x of this.domain(e.domain, state, env)) {
          if ((this.bind(env, e.var, x, () => this.evaluate(e.body, state, env)) === true) === want) return want;
        }
        return !want;
      }
      case "agg":
        return this.aggregate(e, state, env);
      case "len":
        return (this.evaluate(e.arg, state, env) as Value[]).length;
      case "board":
        return this.boardFn(e.fn, e.args.map((a) => this.evaluate(a, state, env) as string));
      case "table": {
        const t = this.tables.get(e.table);
        if (!t) throw new InterpretError(`unknown table \`${e.table}\``);
        const v = t.rows[this.rowOf(t, e.args.map((a) => this.evaluate(a, state, env)))]!.value;
        return e.field !== undefined ? (v as Rec)[e.field] : v;
      }
      case "distance":
        return this.board.distance(this.evaluate(e.from, state, env) as string, this.evaluate(e.to, state, env) as string);
      case "reach": {
        const r = this.routes.get(e.route);
        if (!r) throw new InterpretError(`unknown route \`${e.route}\``);
        const args = e.args.map((a) => this.evaluate(a, state, env));
        return this.reachable(r, args, this.evaluate(e.from, state, env) as string, this.evaluate(e.to, state, env) as string, state);
      }
    }
    throw new InterpretError(`unknown expression kind \`${(e as { k: string }).k}\``);
  }

  /** Evaluates `f` with `name` bound to `value`, then restores the previous binding. */
  bind<T>(env: Env, name: string, value: Value, f: () => T): T {
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

  domain(d: Domain, state: Value, env: Env): readonly Value[] {
    switch (d.k) {
      case "enum":
        return d.type.members;
      case "list":
        return this.evaluate(d.expr, state, env) as Value[];
      case "board": {
        const s = this.evaluate(d.args[0]!, state, env) as string;
        if (d.fn === "neighbors") return [...(this.board.any.get(s) ?? [])];
        // ports_of on a land space and sea_zones_of on a sea zone are empty
        if (d.fn === "ports_of") return this.board.isSea(s) ? this.board.portLinks(s) : [];
        if (d.fn === "sea_zones_of") return this.board.isSea(s) ? [] : this.board.portLinks(s);
        throw new InterpretError(`unknown board domain \`${String(d.fn)}\``);
      }
    }
  }

  aggregate(e: Extract<Expr, { k: "agg" }>, state: Value, env: Env): number {
    const values: number[] = [];
    for (const x of this.domain(e.domain, state, env)) {
      this.bind(env, e.var, x, () => {
        if (e.where && this.evaluate(e.where, state, env) !== true) return;
        values.push(e.op === "count" ? 1 : (this.evaluate(e.body!, state, env) as number));
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

  boardFn(fn: Extract<Expr, { k: "board" }>["fn"], a: string[]): boolean {
    const [s, t] = a as [string, string];
    const type = this.board.type.get(s);
    switch (fn) {
      case "is_land": return this.board.isLand(s);
      case "is_sea": return this.board.isSea(s);
      case "is_port": return this.board.isLand(s) && this.board.portLinks(s).length > 0;
      case "is_fortified": return type === "key" || type === "fortress" || type === "capital" || type === "electorate";
      case "is_key": return type === "key" || type === "capital";
      case "is_electorate": return type === "electorate";
      case "is_capital": return type === "capital" && (this.board.home.get(s) ?? []).includes(t);
      case "is_home": return (this.board.home.get(s) ?? []).includes(t);
      case "adjacent": return this.board.any.get(s)?.has(t) ?? false;
      case "pass_between": return this.board.pass.get(s)?.has(t) ?? false;
      case "port_on": return this.board.isLand(s) && this.board.isSea(t) && (this.board.port.get(s)?.has(t) ?? false);
    }
    throw new InterpretError(`unknown board function \`${String(fn)}\``);
  }

  /**
   * `reachable(r(args), from, to)`: breadth-first search over (space, sea zones used so far).
   * Steps: land→land over normal connections (and pass connections when `passes` holds), land→sea
   * from a space meeting `port`, sea→land onto a space meeting `land` and `port`, sea→sea. Every
   * land space meets `land`, every sea zone `sea`, and at most `max_seas` sea zones are used;
   * with `max_steps`, at most that many connections (the queue is first in, first out, so a space
   * is first reached by its fewest steps, and nothing is expanded at the limit).
   */
  reachable(r: IRRoute, args: Value[], from: string, to: string, state: Value): boolean {
    return this.routePath(r, args, from, to, state) !== undefined;
  }

  /**
   * The path `reachable` finds, as nodes from `from` to `to`: the space and the sea zones used on
   * arriving there (a start in a sea zone has used 1); undefined when there is none.
   */
  routePath(r: IRRoute, args: Value[], from: string, to: string, state: Value): { space: string; k: number }[] | undefined {
    const env: Env = new Map(r.params.map((p, i) => [p.name, args[i]]));
    const clause = (e: Expr, v: string, s: string) => this.bind(env, v, s, () => this.evaluate(e, state, env)) === true;
    const landOk = (s: string) => clause(r.land, r.landVar, s);
    const seaOk = (s: string) => clause(r.sea, r.seaVar, s);
    const portOk = (s: string) => clause(r.port, r.portVar, s);
    const passes = this.evaluate(r.passes, state, env) === true;
    // a path never needs to cross a sea zone twice, so "unlimited" is the number of sea zones
    const seaCount = [...this.board.type.values()].filter((t) => t === "sea").length;
    const maxSeas = r.maxSeas === null ? seaCount : Math.min(this.evaluate(r.maxSeas, state, env) as number, seaCount);

    const maxSteps = r.maxSteps === undefined ? Infinity : (this.evaluate(r.maxSteps, state, env) as number);
    if (maxSteps < 0) return undefined;
    let start: number;
    if (this.board.isSea(from)) {
      if (maxSeas < 1 || !seaOk(from)) return undefined;
      start = 1;
    } else {
      if (!this.board.isLand(from) || !landOk(from)) return undefined;
      start = 0;
    }
    if (from === to) return [{ space: from, k: start }];
    // each node reached, with the node it was reached from
    const parent = new Map<string, string | null>([[`${from}/${start}`, null]]);
    const queue: [string, number, number, string][] = [[from, start, 0, `${from}/${start}`]];
    let t = 0;
    let at = "";
    const path = (key: string): { space: string; k: number }[] => {
      const out: { space: string; k: number }[] = [];
      for (let n: string | null = key; n !== null; n = parent.get(n)!) {
        const cut = n.lastIndexOf("/");
        out.unshift({ space: n.slice(0, cut), k: Number(n.slice(cut + 1)) });
      }
      return out;
    };
    const visit = (s: string, k: number): boolean => {
      const key = `${s}/${k}`;
      if (parent.has(key)) return false;
      parent.set(key, at);
      if (s === to) return true;
      queue.push([s, k, t + 1, key]);
      return false;
    };
    for (let head = 0; head < queue.length; head++) {
      const [u, k, steps, key] = queue[head]!;
      if (steps >= maxSteps) break;
      t = steps;
      at = key;
      if (this.board.isSea(u)) {
        if (k < maxSeas) for (const v of this.board.sea.get(u)!) if (seaOk(v) && visit(v, k + 1)) return path(`${v}/${k + 1}`);
        for (const v of this.board.port.get(u)!) if (landOk(v) && portOk(v) && visit(v, k)) return path(`${v}/${k}`);
      } else {
        for (const v of this.board.land.get(u)!) if (landOk(v) && visit(v, k)) return path(`${v}/${k}`);
        if (passes) for (const v of this.board.pass.get(u)!) if (landOk(v) && visit(v, k)) return path(`${v}/${k}`);
        if (k < maxSeas && portOk(u)) for (const v of this.board.port.get(u)!) if (seaOk(v) && visit(v, k + 1)) return path(`${v}/${k + 1}`);
      }
    }
    return undefined;
  }

  // ---- tables ----------------------------------------------------------------------------------

  /** Whether `v` lies in the domain of a table parameter of type `t` (int range, bool, enum member). */
  inDomain(t: Type, v: Value): boolean {
    if (t.k === "int") return Number.isInteger(v) && (t.min === undefined || (v as number) >= t.min) && (t.max === undefined || (v as number) <= t.max);
    if (t.k === "bool") return typeof v === "boolean";
    if (t.k === "enum") return t.members.includes(v as string);
    return false;
  }

  matches(p: TablePattern, key: Value): boolean {
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
  rowOf(t: IRTable, args: Value[]): number {
    t.params.forEach((p, i) => {
      if (!this.inDomain(p.type, args[i])) throw new RangeError(`${t.name}: ${p.name} is outside its domain, got ${String(args[i])}`);
    });
    const env: Env = new Map(t.params.map((p, i) => [p.name, args[i]]));
    const keys = t.keys.map((k) => this.evaluate(k, undefined, env));
    const i = t.rows.findIndex((r) => r.patterns.every((p, j) => this.matches(p, keys[j])) && (r.guard === null || this.evaluate(r.guard, undefined, env) === true));
    if (i < 0) throw new RangeError(`${t.name}: no row for ${t.params.map((p, j) => `${p.name} ${String(args[j])}`).join(", ")}`);
    return i;
  }
}
