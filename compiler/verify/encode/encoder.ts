/**
 * IR expressions → Z3 terms: `Encoder`, the expressions (literals, fields, operators, quantifiers
 * and aggregates, board functions, distances, table lookups, routes), a rule's scope and
 * condition, an action's parameters, over the edition's `Terms` (terms.ts: values, leaves, enum
 * sorts, composites; its comment describes the encoding as a whole).
 */
import type { Arith, Bool, Expr as ZExpr, Sort } from "z3-solver";
import type { Domain, EnumType, Expr, IRAction, IREdition, IRRule, IRTable, TableScalar, Type } from "../../ir/types.js";
import { boardDistances } from "../../ir/board.js";
import { EncodeError, isScalar, Terms, type Env, type Sym, type Unit } from "./terms.js";
import type { Z3Ctx } from "../run/z3.js";

export { EncodeError, type Env, type Leaf, type Sym, type Unit } from "./terms.js";

type B = Bool<"main">;
type I = Arith<"main">;
type EV = ZExpr<"main">;

/**
 * IR expressions → Z3 terms, one per edition, over its `terms` (terms.ts: leaves, enum sorts,
 * composites). `unit` encodes one formula collecting what it touched; diff/route-exact.ts's
 * `ExactRouteEncoder` refines how routes are encoded.
 */
export class Encoder {
  readonly terms: Terms;

  constructor(
    readonly ctx: Z3Ctx,
    readonly ir: IREdition,
    /** bound of action list params (they have no schema maxItems) */
    readonly actionListBound: number,
  ) {
    this.terms = new Terms(ctx, ir, actionListBound);
  }

  /** Encodes `f` collecting the leaves and routes it touches. */
  unit(f: () => B): Unit {
    return this.terms.unit(f);
  }

  /** The environment of an action: each param is a leaf (scalars) or a loc (lists) under `action.`. */
  actionEnv(action: IRAction): Env {
    const env: Env = new Map();
    for (const p of action.params) env.set(p.name, this.terms.locOrLeaf(`action.${p.name}`, this.terms.paramType(p.type)));
    return env;
  }

  /**
   * The environment of an action with some params bound (`bind`) and the others as leaves named
   * `<prefix>.<param>` (used by stuck_power, whose per-action params are universally quantified).
   */
  actionEnvWith(action: IRAction, prefix: string, bind: Map<string, Sym>): Env {
    const env: Env = new Map();
    for (const p of action.params) env.set(p.name, bind.get(p.name) ?? this.terms.locOrLeaf(`${prefix}.${p.name}`, this.terms.paramType(p.type)));
    return env;
  }

  /** A constant of a scalar type: bool, int, or enum member (by name). */
  constSym(t: Type, v: boolean | number | string): Sym {
    if (t.k === "bool") return this.terms.bv(v as boolean);
    if (t.k === "int") return this.terms.iv(v as number);
    if (t.k === "enum") return this.terms.ev(t.base, this.terms.enumCode(t, v as string));
    throw new EncodeError(`no constant of type ${t.k}`);
  }

  /** scope (state.phase = P ∧ state.segment = S) ∧ when — without exemptions. */
  ruleCore(rule: IRRule, env: Env): B {
    const parts: B[] = [];
    if (rule.scope) {
      parts.push(this.terms.stateEnumIs("phase", rule.scope.phase));
      if (rule.scope.segment !== undefined) parts.push(this.terms.stateEnumIs("segment", rule.scope.segment));
    }
    parts.push(this.bool(rule.when, env));
    return this.terms.and(parts);
  }

  /** The elements of a quantifier/aggregate domain, each with the guard under which it is one. */
  domainElems(d: Domain, env: Env): { guard: B; val: Sym }[] {
    const T = this.ctx.Bool.val(true);
    if (d.k === "enum") return d.type.members.map((m) => ({ guard: T, val: this.terms.ev(d.type.base, this.terms.enumCode(d.type, m)) }));
    if (d.k === "list") return this.terms.listElems(this.expr(d.expr, env));
    const arg = this.expr(d.args[0], env);
    const rel = d.fn === "ports_of" ? this.terms.board.portsOf : d.fn === "sea_zones_of" ? this.terms.board.seaZonesOf : this.terms.board.neighbors;
    // element t is in fn(arg) iff arg ∈ {x | t ∈ rel(x)}
    const inverse = new Map<number, number[]>();
    for (const [x, ts] of rel) for (const t of ts) inverse.set(t, [...(inverse.get(t) ?? []), x]);
    const n = this.terms.board.n;
    const out: { guard: B; val: Sym }[] = [];
    for (const t of [...inverse.keys()].sort((a, b) => a - b)) {
      const g = this.terms.memberSym(arg, inverse.get(t)!, n);
      if (this.ctx.isFalse(g)) continue;
      out.push({ guard: g, val: this.terms.ev("Space", t) });
    }
    return out;
  }

  /** An IR boolean expression as a Z3 term. */
  bool(e: Expr, env: Env): B {
    return this.terms.asBool(this.expr(e, env));
  }

  // ------------------------------------------------------------------------------------------
  // expressions

  expr(e: Expr, env: Env): Sym {
    const { ctx } = this;
    switch (e.k) {
      case "lit": {
        if (typeof e.value === "boolean") return this.terms.bv(e.value);
        if (typeof e.value === "number") return this.terms.iv(e.value);
        if (e.type.k === "enum") return this.terms.ev(e.type.base, this.terms.enumCode(e.type, e.value));
        return this.terms.iv(this.terms.atoms.get(e.value)!);
      }
      case "var": {
        const v = env.get(e.name);
        if (!v) throw new EncodeError(`unbound variable \`${e.name}\``);
        return v;
      }
      case "state":
        return { k: "loc", path: "state", type: this.ir.state };
      case "field":
        return this.terms.field(this.expr(e.obj, env), e.field);
      case "index":
        return this.terms.index(this.expr(e.obj, env), this.expr(e.key, env));
      case "not":
        return this.sb(this.terms.not(this.bool(e.arg, env)));
      case "and":
      case "or": {
        // Encoded left to right, stopping at an operand that folds to the absorbing constant
        // (false for `and`, true for `or`): the rest would be dropped by `and`/`or` anyway.
        const parts: B[] = [];
        for (const a of e.args) {
          const b = this.bool(a, env);
          parts.push(b);
          if (e.k === "and" ? this.ctx.isFalse(b) : this.ctx.isTrue(b)) break;
        }
        return this.sb(e.k === "and" ? this.terms.and(parts) : this.terms.or(parts));
      }
      case "implies":
        return this.sb(this.terms.implies(this.bool(e.left, env), this.bool(e.right, env)));
      case "cmp": {
        const l = this.expr(e.left, env);
        const r = this.expr(e.right, env);
        if (e.op === "=") return this.sb(this.terms.eq(l, r));
        if (e.op === "!=") return this.sb(this.terms.not(this.terms.eq(l, r)));
        const a = this.terms.asInt(l);
        const b = this.terms.asInt(r);
        if (l.k === "i" && r.k === "i" && l.c !== undefined && r.c !== undefined) {
          const v = e.op === "<" ? l.c < r.c : e.op === "<=" ? l.c <= r.c : e.op === ">" ? l.c > r.c : l.c >= r.c;
          return this.terms.bv(v);
        }
        return this.sb(e.op === "<" ? a.lt(b) : e.op === "<=" ? a.le(b) : e.op === ">" ? a.gt(b) : a.ge(b));
      }
      case "arith": {
        const l = this.expr(e.left, env);
        const r = this.expr(e.right, env);
        if (l.k === "i" && r.k === "i" && l.c !== undefined && r.c !== undefined)
          return this.terms.iv(e.op === "+" ? l.c + r.c : e.op === "-" ? l.c - r.c : e.op === "/" ? Math.floor(l.c / r.c) : l.c * r.c);
        const a = this.terms.asInt(l);
        const b = this.terms.asInt(r);
        // `/`: SMT-LIB `div` by a positive constant (the checker's RW3011) is the floor quotient, linear
        return { k: "i", e: e.op === "+" ? a.add(b) : e.op === "-" ? a.sub(b) : e.op === "/" ? a.div(b) : a.mul(b) };
      }
      case "neg": {
        const a = this.expr(e.arg, env);
        if (a.k === "i" && a.c !== undefined) return this.terms.iv(-a.c);
        return { k: "i", e: this.terms.asInt(a).neg() };
      }
      case "ite":
        return this.terms.mkIte(this.bool(e.cond, env), this.expr(e.then, env), this.expr(e.else, env));
      case "in": {
        const x = this.expr(e.elem, env);
        if (e.set.k === "setlit") return this.sb(this.terms.or(e.set.items.map((it) => this.terms.eq(x, this.expr(it, env)))));
        const elems = this.terms.listElems(this.expr(e.set, env));
        return this.sb(this.terms.or(elems.map(({ guard, val }) => this.terms.and([guard, this.terms.eq(x, val)]))));
      }
      case "setlit":
        throw new EncodeError("a set literal is only allowed on the right of `in`");
      case "quant": {
        const parts = this.domainElems(e.domain, env).map(({ guard, val }) => {
          const body = this.bool(e.body, new Map(env).set(e.var, val));
          return e.q === "some" ? this.terms.and([guard, body]) : this.terms.implies(guard, body);
        });
        return this.sb(e.q === "some" ? this.terms.or(parts) : this.terms.and(parts));
      }
      case "agg":
        return { k: "i", e: this.agg(e, env) };
      case "len":
        return { k: "i", e: this.terms.listLen(this.expr(e.arg, env)) };
      case "board":
        return this.sb(this.boardFn(e.fn, e.args.map((a) => this.expr(a, env)), e.args));
      case "reach": {
        this.terms.routesUsed.add(e.route);
        const route = this.ir.routes.find((r) => r.name === e.route);
        if (!route) throw new EncodeError(`unknown route \`${e.route}\``);
        let f = this.terms.reachFns.get(e.route);
        if (!f) {
          const sorts = route.params.map((p) => {
            if (p.type.k === "bool") return ctx.Bool.sort();
            if (p.type.k === "enum") return this.terms.enumSort(p.type.base);
            if (isScalar(p.type)) return ctx.Int.sort();
            throw new EncodeError(`route \`${route.name}\` has a non-scalar parameter \`${p.name}\``);
          });
          const sp = this.terms.enumSort("Space");
          f = ctx.Function.declare(`reach.${e.route}`, ...(sorts as [Sort<"main">]), sp, sp, ctx.Bool.sort());
          this.terms.reachFns.set(e.route, f);
        }
        const syms = [...e.args, e.from, e.to].map((a) => this.expr(a, env));
        const args = syms.map((s) => {
          if (s.k === "b" || s.k === "i" || s.k === "e") return s.e;
          throw new EncodeError("non-scalar route argument");
        });
        const reach = f.call(...args) as B;
        if (!route.maxSteps) return this.sb(reach);
        // `max_steps n`: still uninterpreted, but bounded: a path of at most n connections joins
        // spaces at most n apart (`distance` counts every connection as one step)
        const routeEnv: Env = new Map(route.params.map((p, i) => [p.name, syms[i]!]));
        const limit = this.expr(route.maxSteps, routeEnv);
        if (limit.k !== "i") throw new EncodeError(`max_steps of route \`${route.name}\` is not an int`);
        const d = this.distance(syms[syms.length - 2]!, syms[syms.length - 1]!);
        return this.sb(this.terms.and([reach, (d as { e: I }).e.le(limit.e)]));
      }
      case "table":
        return this.tableLookup(e, env);
      case "distance":
        return this.distance(this.expr(e.from, env), this.expr(e.to, env));
    }
  }

  // ------------------------------------------------------------------------------------------
  // distance

  private distMatrix?: number[][];
  private readonly distRows = new Map<string, I>();

  /**
   * `distance(a, b)`, exact: the board's shortest-path matrix (`boardDistances`) is a constant, so
   * a lookup with a known space folds to the number; with one symbolic space it is the row of the
   * known one as an if-then-else over the distinct distances (`b ∈ {spaces at d1} ? d1 : b ∈ {…
   * at d2} ? d2 : …`, each set the shorter of itself or its complement); with two symbolic spaces,
   * an if-then-else over the first space's members of those rows. The matrix is symmetric (the
   * connections are undirected), so a row serves for a known second space too. Rows are cached
   * per term, so a quantifier unrolled over Space shares them.
   */
  private distance(a: Sym, b: Sym): Sym {
    if (a.k !== "e" || b.k !== "e") throw new EncodeError("`distance` of a non-space value");
    const d = (this.distMatrix ??= boardDistances(this.ir.board, this.terms.enumMembers.get("Space")!));
    if (a.c !== undefined && b.c !== undefined) return this.terms.iv(d[a.c]![b.c]!);
    if (a.c !== undefined) return this.distRow(a.c, b.e, d);
    if (b.c !== undefined) return this.distRow(b.c, a.e, d);
    const n = d.length;
    let out: I = this.terms.asInt(this.distRow(n - 1, b.e, d));
    for (let x = n - 2; x >= 0; x--) out = this.ctx.If(a.e.eq(this.terms.enumVal("Space", x)), this.terms.asInt(this.distRow(x, b.e, d)), out) as I;
    return { k: "i", e: out };
  }

  /** Row `x` of the distance matrix applied to the symbolic space `v`. */
  private distRow(x: number, v: EV, d: number[][]): Sym {
    // the term id, not its text: printing a large term costs more than the row (the cached row keeps v alive)
    const key = `${x}|${v.id()}`;
    const hit = this.distRows.get(key);
    if (hit) return { k: "i", e: hit };
    const row = d[x]!;
    const values = [...new Set(row)].sort((p, q) => p - q);
    let out: I = this.ctx.Int.val(values[values.length - 1]!);
    for (let i = values.length - 2; i >= 0; i--) {
      const codes = row.flatMap((dv, j) => (dv === values[i] ? [j] : []));
      out = this.ctx.If(this.terms.memberE(v, "Space", codes), this.ctx.Int.val(values[i]!), out) as I;
    }
    this.distRows.set(key, out);
    return { k: "i", e: out };
  }

  // ------------------------------------------------------------------------------------------
  // tables

  /** The table of a name. */
  table(name: string): IRTable {
    const t = this.ir.tables?.find((x) => x.name === name);
    if (!t) throw new EncodeError(`unknown table \`${name}\``);
    return t;
  }

  /**
   * For each row of `t`: the condition under which it matches the inputs `args` (one Sym per
   * parameter): every pattern matches its key and the guard holds.
   */
  tableRowConds(t: IRTable, args: Sym[]): B[] {
    const env: Env = new Map(t.params.map((p, i) => [p.name, args[i]!]));
    const keys = t.keys.map((k) => this.expr(k, env));
    return t.rows.map((r) => {
      const parts: B[] = r.patterns.map((p, i) => {
        const key = keys[i]!;
        switch (p.k) {
          case "any":
            return this.ctx.Bool.val(true);
          case "range": {
            if (key.k === "i" && key.c !== undefined) return this.ctx.Bool.val((p.min === undefined || key.c >= p.min) && (p.max === undefined || key.c <= p.max));
            const v = this.terms.asInt(key);
            return this.terms.and([...(p.min !== undefined ? [v.ge(p.min)] : []), ...(p.max !== undefined ? [v.le(p.max)] : [])]);
          }
          case "bool":
            return p.value ? this.terms.asBool(key) : this.terms.not(this.terms.asBool(key));
          case "members": {
            const kt = t.keys[i]!.type;
            if (kt.k !== "enum") throw new EncodeError(`table \`${t.name}\`: a member pattern on a non-enum key`);
            return this.terms.memberSym(key, p.members.map((m) => this.terms.enumCode(kt, m)));
          }
        }
      });
      if (r.guard) parts.push(this.bool(r.guard, env));
      return this.terms.and(parts);
    });
  }

  /** A row value (a scalar of type `t`) as a symbolic value. */
  tableScalar(v: TableScalar, t: Type): Sym {
    if (typeof v === "boolean") return this.terms.bv(v);
    if (typeof v === "number") return this.terms.iv(v);
    if (t.k !== "enum") throw new EncodeError(`table value \`${v}\` of a non-enum type`);
    return this.terms.ev(t.base, this.terms.enumCode(t, v));
  }

  /**
   * `t(args)[.field]`: the value of the first matching row, as an if-then-else chain. The last row's
   * value stands for "no row matches": the checker only admits arguments inside the table's
   * declared domain, where the `table_gap` obligation shows some row always matches.
   */
  private tableLookup(e: Extract<Expr, { k: "table" }>, env: Env): Sym {
    const t = this.table(e.table);
    const conds = this.tableRowConds(t, e.args.map((a) => this.expr(a, env)));
    const valueOf = (i: number): Sym => {
      const v = t.rows[i]!.value;
      if (e.field !== undefined) {
        if (typeof v !== "object" || t.result.k !== "record") throw new EncodeError(`table \`${t.name}\` has no fields`);
        const f = t.result.fields.find((x) => x.name === e.field);
        if (!f) throw new EncodeError(`table \`${t.name}\` has no field \`${e.field}\``);
        return this.tableScalar(v[e.field]!, f.type);
      }
      if (typeof v === "object") throw new EncodeError(`table \`${t.name}\` gives a record: pick a field`);
      return this.tableScalar(v, t.result);
    };
    let out = valueOf(t.rows.length - 1);
    for (let i = t.rows.length - 2; i >= 0; i--) out = this.terms.mkIte(conds[i]!, valueOf(i), out);
    return out;
  }

  private sb(e: B): Sym {
    const { ctx } = this;
    if (ctx.isTrue(e)) return this.terms.bv(true);
    if (ctx.isFalse(e)) return this.terms.bv(false);
    return { k: "b", e };
  }

  private agg(e: Extract<Expr, { k: "agg" }>, env: Env): I {
    const { ctx } = this;
    const zero = ctx.Int.val(0);
    const items = this.domainElems(e.domain, env).map(({ guard, val }) => {
      const inner = new Map(env).set(e.var, val);
      const sel = e.where ? this.terms.and([guard, this.bool(e.where, inner)]) : guard;
      const body = e.body ? this.terms.asInt(this.expr(e.body, inner)) : ctx.Int.val(1);
      return { sel, body };
    }).filter((x) => !ctx.isFalse(x.sel));
    const sum = (xs: I[]): I => (xs.length === 0 ? zero : xs.length === 1 ? xs[0] : (ctx.Sum(xs[0], ...xs.slice(1)) as I));
    switch (e.op) {
      case "count":
        return sum(items.map(({ sel }) => ctx.If(sel, 1, 0) as I));
      case "sum":
        return sum(items.map(({ sel, body }) => ctx.If(sel, body, 0) as I));
      case "max":
      case "min": {
        // fold (has, best); empty → 0
        let has: B = ctx.Bool.val(false);
        let best: I = zero;
        for (const { sel, body } of items) {
          const better = e.op === "max" ? body.gt(best) : body.lt(best);
          best = ctx.If(this.terms.and([sel, this.terms.or([this.terms.not(has), better])]), body, best) as I;
          has = this.terms.or([has, sel]);
        }
        return ctx.If(has, best, 0) as I;
      }
      case "sum_highest": {
        // element i counts when fewer than n selected elements beat it (ties broken by index)
        const n = e.n ?? 1;
        const parts = items.map(({ sel, body }, i) => {
          const beaters = items
            .map((o, j) => (j === i ? null : this.terms.and([o.sel, j < i ? o.body.ge(body) : o.body.gt(body)])))
            .filter((x): x is B => x !== null && !ctx.isFalse(x));
          const rank = sum(beaters.map((b) => ctx.If(b, 1, 0) as I));
          return ctx.If(this.terms.and([sel, rank.lt(n)]), body, 0) as I;
        });
        return sum(parts);
      }
    }
  }

  private boardFn(fn: string, args: Sym[], exprs: Expr[]): B {
    const { ctx } = this;
    const bd = this.terms.board;
    const unary = (set: Set<number>) => this.terms.memberSym(args[0], [...set], bd.n);
    const binary = (rel: Map<number, number[]>, nb: number) => {
      const [a, b] = args;
      const ac = a.k === "e" ? a.c : undefined;
      const bc = b.k === "e" ? b.c : undefined;
      if (ac !== undefined) return this.terms.memberSym(b, rel.get(ac) ?? [], nb);
      if (bc !== undefined) {
        const xs = [...rel].filter(([, ys]) => ys.includes(bc)).map(([x]) => x);
        return this.terms.memberSym(a, xs, bd.n);
      }
      if (a.k !== "e") throw new EncodeError("board function of a non-enum");
      return this.terms.or([...rel].map(([x, ys]) => this.terms.and([a.e.eq(this.terms.enumVal(a.base, x)), this.terms.memberSym(b, ys, nb)])));
    };
    switch (fn) {
      case "is_land":
        return unary(bd.land);
      case "is_sea":
        return unary(bd.sea);
      case "is_port":
        return unary(bd.port);
      case "is_fortified":
        return unary(bd.fortified);
      case "is_key":
        return unary(bd.key);
      case "is_electorate":
        return unary(bd.electorate);
      case "is_capital":
      case "is_home": {
        const pt = exprs[1].type;
        if (pt.k !== "enum") throw new EncodeError(`${fn} takes a power`);
        const powers = this.terms.baseMembers(pt);
        const rel = new Map<number, number[]>();
        for (const s of this.ir.board.spaces) {
          if (fn === "is_capital" && s.type !== "capital") continue;
          const codes = s.home.map((h) => powers.indexOf(h)).filter((c) => c >= 0);
          if (codes.length) rel.set(bd.code.get(s.id)!, codes);
        }
        return binary(rel, powers.length);
      }
      case "adjacent":
        return binary(bd.neighbors, bd.n);
      case "pass_between":
        return binary(bd.passes, bd.n);
      case "port_on":
        return binary(bd.portsOn, bd.n);
    }
    void ctx;
    throw new EncodeError(`unknown board function \`${fn}\``);
  }

  get space(): EnumType {
    return this.terms.spaceType;
  }
}
