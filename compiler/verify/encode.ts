/**
 * IR expressions → Z3 terms.
 *
 * Value encoding (one `Encoder` per edition, leaves shared by every obligation):
 * - bool → Bool const; int → Int const (schema min/max are domain facts); string → Int-coded
 *   atom (only `=`/`!=` are meaningful; the string literals of the edition get codes 0..k-1);
 *   enum → Int code = index in the BASE enum's members, with a domain fact restricting it to the
 *   (maybe subset) type's members.
 * - records, maps and lists are never materialized as a whole: a composite value is a `loc`
 *   (a path into the state / action JSON) or an `ite` of two composites (a map read with a
 *   symbolic key). Leaves are Z3 consts named by their path (`state.hands[france]#len`,
 *   `state.hands[france][3].home`) and are created only when an expression touches them; field
 *   access and indexing push an `ite` down to the leaves.
 * - lists: `bound` slots plus a length leaf `<path>#len` in [0, bound]; quantifiers/aggregates are
 *   unrolled over the slots, guarded by `i < len`.
 * - board functions are interpreted from `ir.board` (finite disjunctions over Space codes).
 * - `reachable(r(args), from, to)` is an uninterpreted Bool function `reach.<r>`; whatever uses it
 *   is recorded so witnesses can be marked non-replayable.
 *
 * Every encoded unit (a rule condition, an invariant, …) is a `Unit`: the term plus the leaves and
 * routes it touched, so an obligation asserts exactly the domain facts of what it mentions.
 */
import type { Arith, Bool, Expr as ZExpr, Sort } from "z3-solver";
import type { Board, Domain, EnumType, Expr, IRAction, IREdition, IRRule, IRTable, TableScalar, Type } from "../ir/types.js";
import { boardDistances } from "../ir/board.js";
import type { Z3Ctx } from "./z3.js";

type B = Bool<"main">;
type I = Arith<"main">;
type EV = ZExpr<"main">;

/** A symbolic value. `c` holds the value when it is known at encoding time (constant folding). */
export type Sym =
  | { k: "b"; e: B; c?: boolean }
  | { k: "i"; e: I; c?: number }
  /** an enum value: a constant of the base enum's datatype sort; `c` = member index */
  | { k: "e"; e: EV; base: string; c?: number }
  /**
   * a composite at a path; under a map the path is a pattern (`state.spaces[*].leaders`) whose
   * `[*]` are filled, in order, by `args` (enum terms of the bases `bases`)
   */
  | { k: "loc"; path: string; type: Type; args?: EV[]; bases?: string[] }
  | { k: "ite"; cond: B; t: Sym; f: Sym; type: Type };

export interface Leaf {
  /** the path, with map keys as member names (`state.spaces[paris].unrest`) or, when symbolic, as `⟨term⟩` */
  name: string;
  type: Type;
  e: B | I | EV;
  /** domain facts about this leaf (bounds, enum membership, list length range) */
  facts: B[];
  /** a leaf under a map: the map function's pattern (`state.spaces[*].unrest`) and its arguments */
  pattern?: string;
  args?: EV[];
  bases?: string[];
}

export interface Unit {
  e: B;
  leaves: Set<string>;
  routes: Set<string>;
}

export type Env = Map<string, Sym>;

/** Thrown for constructs the prover does not support; the obligation becomes `unknown`. */
export class EncodeError extends Error {}

const isScalar = (t: Type) => t.k === "bool" || t.k === "int" || t.k === "string" || t.k === "enum";

export class Encoder {
  readonly leaves = new Map<string, Leaf>();
  /** string literal → atom code */
  readonly atoms: Map<string, number>;
  readonly atomNames: string[];
  private touched = new Set<string>();
  private routesUsed = new Set<string>();
  private readonly enumMembers = new Map<string, string[]>();
  private readonly spaceType: EnumType;
  private readonly reachFns = new Map<string, ReturnType<Z3Ctx["Function"]["declare"]>>();
  private readonly mapFns = new Map<string, ReturnType<Z3Ctx["Function"]["declare"]>>();
  private readonly board: BoardIndex;

  constructor(
    readonly ctx: Z3Ctx,
    readonly ir: IREdition,
    /** bound of action list params (they have no schema maxItems) */
    readonly actionListBound: number,
  ) {
    for (const e of ir.enums) this.enumMembers.set(e.name, e.members);
    if (!this.enumMembers.has("Space")) this.enumMembers.set("Space", ir.board.spaces.map((s) => s.id));
    const spaces = this.enumMembers.get("Space")!;
    this.spaceType = { k: "enum", name: "Space", base: "Space", members: spaces };
    this.board = indexBoard(ir.board, spaces);
    const lits = new Set<string>();
    const visit = (x: unknown): void => {
      if (Array.isArray(x)) x.forEach(visit);
      else if (x && typeof x === "object") {
        const o = x as Record<string, unknown>;
        if (o.k === "lit" && typeof o.value === "string" && (o.type as Type | undefined)?.k === "string") lits.add(o.value);
        for (const v of Object.values(o)) visit(v);
      }
    };
    visit([ir.rules, ir.exemptions, ir.invariants, ir.routes]);
    this.atomNames = [...lits].sort();
    this.atoms = new Map(this.atomNames.map((s, i) => [s, i]));
  }

  // ------------------------------------------------------------------------------------------
  // units

  /** Encodes `f` collecting the leaves and routes it touches. */
  unit(f: () => B): Unit {
    const saveT = this.touched;
    const saveR = this.routesUsed;
    this.touched = new Set();
    this.routesUsed = new Set();
    try {
      const e = f();
      return { e, leaves: this.touched, routes: this.routesUsed };
    } finally {
      this.touched = saveT;
      this.routesUsed = saveR;
    }
  }

  /** Adds a unit encoded separately (inside a quantifier) to the leaves and routes of the unit being encoded. */
  absorb(u: Unit): void {
    for (const l of u.leaves) this.touched.add(l);
    for (const r of u.routes) this.routesUsed.add(r);
  }

  /** The environment of an action: each param is a leaf (scalars) or a loc (lists) under `action.`. */
  actionEnv(action: IRAction): Env {
    const env: Env = new Map();
    for (const p of action.params) env.set(p.name, this.locOrLeaf(`action.${p.name}`, this.paramType(p.type)));
    return env;
  }

  /**
   * The environment of an action with some params bound (`bind`) and the others as leaves named
   * `<prefix>.<param>` (used by stuck_power, whose per-action params are universally quantified).
   */
  actionEnvWith(action: IRAction, prefix: string, bind: Map<string, Sym>): Env {
    const env: Env = new Map();
    for (const p of action.params) env.set(p.name, bind.get(p.name) ?? this.locOrLeaf(`${prefix}.${p.name}`, this.paramType(p.type)));
    return env;
  }

  /** A constant of a scalar type: bool, int, or enum member (by name). */
  constSym(t: Type, v: boolean | number | string): Sym {
    if (t.k === "bool") return this.bv(v as boolean);
    if (t.k === "int") return this.iv(v as number);
    if (t.k === "enum") return this.ev(t.base, this.enumCode(t, v as string));
    throw new EncodeError(`no constant of type ${t.k}`);
  }

  /** Action list params have no schema bound: cap them at `actionListBound`. */
  paramType(t: Type): Type {
    if (t.k !== "list") return t;
    const bound = t.bound > 0 ? Math.min(t.bound, this.actionListBound) : this.actionListBound;
    return { ...t, bound };
  }

  /** scope (state.phase = P ∧ state.segment = S) ∧ when — without exemptions. */
  ruleCore(rule: IRRule, env: Env): B {
    const parts: B[] = [];
    if (rule.scope) {
      parts.push(this.stateEnumIs("phase", rule.scope.phase));
      if (rule.scope.segment !== undefined) parts.push(this.stateEnumIs("segment", rule.scope.segment));
    }
    parts.push(this.bool(rule.when, env));
    return this.and(parts);
  }

  private stateEnumIs(field: string, member: string): B {
    const f = this.ir.state.fields.find((x) => x.name === field);
    if (!f || f.type.k !== "enum") throw new EncodeError(`state.${field} is not an enum field`);
    const v = this.leaf(`state.${field}`, f.type) as EV;
    return v.eq(this.enumVal(f.type.base, this.enumCode(f.type, member)));
  }

  // ------------------------------------------------------------------------------------------
  // leaves

  private locOrLeaf(path: string, type: Type, args?: EV[], bases?: string[]): Sym {
    if (!isScalar(type)) return args?.length ? { k: "loc", path, type, args, bases } : { k: "loc", path, type };
    const e = this.leaf(path, type, args, bases);
    if (type.k === "bool") return { k: "b", e: e as B };
    if (type.k === "enum") return { k: "e", e: e as EV, base: type.base };
    return { k: "i", e: e as I };
  }

  /**
   * The leaf at `name` — a constant; or, under a map (`args` given, `name` a pattern with one
   * `[*]` per argument), the application of the map's uninterpreted function to the keys. One
   * function per pattern makes a lookup with a symbolic key one term instead of an `ite` over
   * every key (148 spaces in Here I Stand).
   */
  leaf(name: string, type: Type, args?: EV[], bases?: string[]): B | I | EV {
    const pattern = args?.length ? name : undefined;
    if (pattern) {
      let i = 0;
      name = pattern.replace(/\[\*\]/g, () => {
        const a = args![i];
        const base = bases![i++];
        const c = this.enumIndexOf(base, a);
        return c === undefined ? `[⟨${a.toString()}⟩]` : `[${this.baseMembers({ k: "enum", name: base, base, members: [] })[c]}]`;
      });
    }
    this.touched.add(name);
    const old = this.leaves.get(name);
    if (old) {
      // One leaf per name: two actions with a same-named parameter of different types would
      // otherwise share a leaf of the first type (e.g. a Power read as a MajorPower).
      if (JSON.stringify(old.type) !== JSON.stringify(type)) {
        throw new EncodeError(`\`${name}\` is used with two types (\`${JSON.stringify(old.type)}\` and \`${JSON.stringify(type)}\`): give the actions' parameters of that name one type`);
      }
      return old.e;
    }
    const { ctx } = this;
    const facts: B[] = [];
    let e: B | I | EV;
    const range = type.k === "bool" ? ctx.Bool.sort() : type.k === "enum" ? this.enumSort(type.base) : ctx.Int.sort();
    const mk = (): ZExpr<"main"> => {
      if (!pattern) return ctx.Const(name, range as Sort<"main">) as ZExpr<"main">;
      let f = this.mapFns.get(pattern);
      if (!f) {
        f = ctx.Function.declare(pattern, ...(bases!.map((b) => this.enumSort(b)) as [Sort<"main">]), range as Sort<"main">);
        this.mapFns.set(pattern, f);
      }
      return f.call(...args!) as ZExpr<"main">;
    };
    if (type.k === "bool") e = mk() as B;
    else if (type.k === "enum") {
      const base = this.baseMembers(type);
      const v = mk() as EV;
      e = v;
      if (type.members.length !== base.length) facts.push(this.memberE(v, type.base, type.members.map((m) => this.enumCode(type, m))));
    } else {
      const v = mk() as I;
      e = v;
      if (type.k === "int") {
        if (type.min !== undefined) facts.push(v.ge(type.min));
        if (type.max !== undefined) facts.push(v.le(type.max));
      } else if (type.k === "list") {
        // the length leaf of a list (type is the list type)
        facts.push(this.and([v.ge(0), v.le(type.bound)]));
      }
    }
    this.leaves.set(name, { name, type, e, facts, ...(pattern ? { pattern, args, bases } : {}) });
    return e;
  }

  /** The function of a map pattern, when some obligation touched it. */
  mapFn(pattern: string): ReturnType<Z3Ctx["Function"]["declare"]> | undefined {
    return this.mapFns.get(pattern);
  }

  /** A leaf's path with its symbolic map keys replaced by their values in a model. */
  concreteName(leaf: Leaf, model: { eval(e: EV, completion?: boolean): EV }): string {
    if (!leaf.pattern) return leaf.name;
    let i = 0;
    return leaf.pattern.replace(/\[\*\]/g, () => {
      const base = leaf.bases![i];
      const c = this.enumIndexOf(base, model.eval(leaf.args![i++], true));
      return `[${c === undefined ? "?" : this.baseMembers({ k: "enum", name: base, base, members: [] })[c]}]`;
    });
  }

  /** The value decoding falls back to for this leaf (a Z3 value), or undefined for none. */
  defaultOf(leaf: Leaf): B | I | EV | undefined {
    const t = leaf.type;
    const { ctx } = this;
    if (t.k === "bool") return ctx.Bool.val(false);
    if (t.k === "int") return ctx.Int.val(Math.min(Math.max(0, t.min ?? 0), t.max ?? Math.max(0, t.min ?? 0)));
    if (t.k === "enum") return this.enumVal(t.base, this.enumCode(t, t.members[0]));
    if (t.k === "list") return ctx.Int.val(0); // a length leaf
    if (t.k === "string") return ctx.Int.val(0);
    return undefined;
  }

  /** `defaultOf` as a plain value: bool, int, enum member index, list length, string atom code. */
  defaultValue(leaf: Leaf): number | boolean {
    const t = leaf.type;
    if (t.k === "bool") return false;
    if (t.k === "int") return Math.min(Math.max(0, t.min ?? 0), t.max ?? Math.max(0, t.min ?? 0));
    if (t.k === "enum") return this.enumCode(t, t.members[0]);
    return 0;
  }

  baseMembers(t: EnumType): string[] {
    return this.enumMembers.get(t.base) ?? this.enumMembers.get(t.name) ?? t.members;
  }

  enumCode(t: EnumType, member: string): number {
    const i = this.baseMembers(t).indexOf(member);
    if (i < 0) throw new EncodeError(`\`${member}\` is not a member of ${t.base}`);
    return i;
  }

  // ------------------------------------------------------------------------------------------
  // helpers with light constant folding

  private bv(c: boolean): Sym {
    return { k: "b", e: this.ctx.Bool.val(c), c };
  }
  private iv(c: number): Sym {
    return { k: "i", e: this.ctx.Int.val(c), c };
  }
  private ev(base: string, c: number): Sym {
    return { k: "e", e: this.enumVal(base, c), base, c };
  }

  private readonly sorts = new Map<string, { sort: Sort<"main">; vals: EV[]; byName: Map<string, number> }>();
  /** The datatype sort of a base enum: one nullary constructor `<Base>.<member>` per member. */
  enumSort(base: string): Sort<"main"> {
    return this.enumInfo(base).sort;
  }
  private enumInfo(base: string) {
    let info = this.sorts.get(base);
    if (!info) {
      const members = this.enumMembers.get(base);
      if (!members) throw new EncodeError(`unknown enum \`${base}\``);
      const dt = this.ctx.Datatype(`${base}`);
      for (const m of members) dt.declare(`${base}.${m}`);
      const sort = dt.create() as unknown as Sort<"main"> & Record<string, EV>;
      const vals = members.map((m) => sort[`${base}.${m}`] as EV);
      const byName = new Map<string, number>();
      vals.forEach((v, i) => {
        byName.set(v.toString(), i);
        byName.set(`${base}.${members[i]}`, i);
        byName.set(`|${base}.${members[i]}|`, i);
      });
      info = { sort, vals, byName };
      this.sorts.set(base, info);
    }
    return info;
  }
  enumVal(base: string, code: number): EV {
    const v = this.enumInfo(base).vals[code];
    if (!v) throw new EncodeError(`no member #${code} in ${base}`);
    return v;
  }
  /** the member index of an enum value from a model, or undefined */
  enumIndexOf(base: string, v: EV): number | undefined {
    return this.enumInfo(base).byName.get(v.toString());
  }
  /** v ∈ {codes} for an enum value: the shorter of a disjunction of equalities or of its complement. */
  memberE(v: EV, base: string, codes: number[]): B {
    const n = this.baseMembers({ k: "enum", name: base, base, members: [] }).length;
    const set = new Set(codes);
    const inside = [...set].sort((a, b) => a - b);
    const outside = Array.from({ length: n }, (_, i) => i).filter((i) => !set.has(i));
    if (outside.length === 0) return this.ctx.Bool.val(true);
    if (inside.length === 0) return this.ctx.Bool.val(false);
    if (inside.length <= outside.length) return this.or(inside.map((c) => v.eq(this.enumVal(base, c))));
    return this.and(outside.map((c) => this.not(v.eq(this.enumVal(base, c)))));
  }

  and(xs: B[]): B {
    const { ctx } = this;
    const keep = xs.filter((x) => !ctx.isTrue(x));
    if (keep.some((x) => ctx.isFalse(x))) return ctx.Bool.val(false);
    if (keep.length === 0) return ctx.Bool.val(true);
    return keep.length === 1 ? keep[0] : ctx.And(...keep);
  }
  or(xs: B[]): B {
    const { ctx } = this;
    const keep = xs.filter((x) => !ctx.isFalse(x));
    if (keep.some((x) => ctx.isTrue(x))) return ctx.Bool.val(true);
    if (keep.length === 0) return ctx.Bool.val(false);
    return keep.length === 1 ? keep[0] : ctx.Or(...keep);
  }
  not(x: B): B {
    const { ctx } = this;
    if (ctx.isTrue(x)) return ctx.Bool.val(false);
    if (ctx.isFalse(x)) return ctx.Bool.val(true);
    return ctx.Not(x);
  }
  private implies(a: B, b: B): B {
    return this.or([this.not(a), b]);
  }

  /** v ∈ codes, as the shorter of the ranges of `codes` or of their complement in [0, n). */
  member(v: I, codes: number[], n: number): B {
    const set = new Set(codes);
    const ranges = (pred: (i: number) => boolean) => {
      const out: [number, number][] = [];
      for (let i = 0; i < n; i++) {
        if (!pred(i)) continue;
        if (out.length && out[out.length - 1][1] === i - 1) out[out.length - 1][1] = i;
        else out.push([i, i]);
      }
      return out;
    };
    const inR = ranges((i) => set.has(i));
    const outR = ranges((i) => !set.has(i));
    const cond = (r: [number, number][]) => this.or(r.map(([a, b]) => (a === b ? v.eq(a) : this.and([v.ge(a), v.le(b)]))));
    if (inR.length <= outR.length + 1) return cond(inR);
    return this.and([v.ge(0), v.lt(n), this.not(cond(outR))]);
  }

  private memberSym(v: Sym, codes: number[], _n?: number): B {
    if (v.k !== "e") throw new EncodeError(`expected an enum value, got ${v.k}`);
    if (v.c !== undefined) return this.ctx.Bool.val(codes.includes(v.c));
    return this.memberE(v.e, v.base, codes);
  }

  asBool(s: Sym): B {
    if (s.k !== "b") throw new EncodeError(`expected a bool value, got ${s.k}`);
    return s.e;
  }
  asInt(s: Sym): I {
    if (s.k !== "i") throw new EncodeError(`expected a scalar value, got ${s.k}`);
    return s.e;
  }

  private mkIte(cond: B, t: Sym, f: Sym): Sym {
    const { ctx } = this;
    if (ctx.isTrue(cond)) return t;
    if (ctx.isFalse(cond)) return f;
    if (t.k === "b" && f.k === "b") return { k: "b", e: ctx.If(cond, t.e, f.e) as B };
    if (t.k === "i" && f.k === "i") return { k: "i", e: ctx.If(cond, t.e, f.e) as I };
    if (t.k === "e" && f.k === "e") return { k: "e", e: ctx.If(cond, t.e, f.e) as EV, base: t.base };
    if ((t.k === "loc" || t.k === "ite") && (f.k === "loc" || f.k === "ite")) return { k: "ite", cond, t, f, type: t.type };
    throw new EncodeError("if-then-else over values of different kinds");
  }

  private eq(a: Sym, b: Sym): B {
    const { ctx } = this;
    if (a.k === "b" && b.k === "b") {
      if (a.c !== undefined && b.c !== undefined) return ctx.Bool.val(a.c === b.c);
      return a.e.eq(b.e);
    }
    if (a.k === "i" && b.k === "i") {
      if (a.c !== undefined && b.c !== undefined) return ctx.Bool.val(a.c === b.c);
      return a.e.eq(b.e);
    }
    if (a.k === "e" && b.k === "e") {
      if (a.base !== b.base) throw new EncodeError(`comparing ${a.base} with ${b.base}`);
      if (a.c !== undefined && b.c !== undefined) return ctx.Bool.val(a.c === b.c);
      return a.e.eq(b.e);
    }
    throw new EncodeError("`=` on composite values is not supported");
  }

  // ------------------------------------------------------------------------------------------
  // composites

  private field(s: Sym, name: string): Sym {
    if (s.k === "ite") return this.mkIte(s.cond, this.field(s.t, name), this.field(s.f, name));
    if (s.k !== "loc" || s.type.k !== "record") throw new EncodeError(`field \`${name}\` of a non-record`);
    const f = s.type.fields.find((x) => x.name === name);
    if (!f) throw new EncodeError(`unknown field \`${name}\` at ${s.path}`);
    return this.locOrLeaf(`${s.path}.${name}`, f.type, s.args, s.bases);
  }

  private index(s: Sym, key: Sym): Sym {
    if (s.k === "ite") return this.mkIte(s.cond, this.index(s.t, key), this.index(s.f, key));
    if (s.k !== "loc" || s.type.k !== "map") throw new EncodeError("index into a non-map");
    const { key: kt, value } = s.type;
    if (key.k !== "e") throw new EncodeError("map key is not an enum value");
    if (key.c !== undefined) {
      const m = this.baseMembers(kt)[key.c];
      if (m === undefined || !kt.members.includes(m)) throw new EncodeError(`key ${m} is not a key of ${s.path}`);
    }
    // every lookup, constant key or not, applies the map's function (see `leaf`)
    const k = key.c !== undefined ? this.enumVal(kt.base, key.c) : key.e;
    return this.locOrLeaf(`${s.path}[*]`, value, [...(s.args ?? []), k], [...(s.bases ?? []), kt.base]);
  }


  private listLen(s: Sym): I {
    if (s.k === "ite") return this.ctx.If(s.cond, this.listLen(s.t), this.listLen(s.f)) as I;
    if (s.k !== "loc" || s.type.k !== "list") throw new EncodeError("length of a non-list");
    return this.leaf(`${s.path}#len`, s.type, s.args, s.bases) as I;
  }

  /** The slots of a list: element i with guard `i < len`. */
  private listElems(s: Sym): { guard: B; val: Sym }[] {
    if (s.k === "ite") {
      const a = this.listElems(s.t);
      const b = this.listElems(s.f);
      const n = Math.max(a.length, b.length);
      const out: { guard: B; val: Sym }[] = [];
      const F = this.ctx.Bool.val(false);
      for (let i = 0; i < n; i++) {
        if (i >= a.length) out.push({ guard: this.and([this.not(s.cond), b[i].guard]), val: b[i].val });
        else if (i >= b.length) out.push({ guard: this.and([s.cond, a[i].guard]), val: a[i].val });
        else out.push({ guard: this.ctx.If(s.cond, a[i].guard, b[i].guard ?? F) as B, val: this.mkIte(s.cond, a[i].val, b[i].val) });
      }
      return out;
    }
    if (s.k !== "loc" || s.type.k !== "list") throw new EncodeError("iteration over a non-list");
    const len = this.listLen(s);
    const out: { guard: B; val: Sym }[] = [];
    for (let i = 0; i < s.type.bound; i++) out.push({ guard: len.gt(i), val: this.locOrLeaf(`${s.path}[${i}]`, s.type.elem, s.args, s.bases) });
    return out;
  }

  /** The elements of a quantifier/aggregate domain, each with the guard under which it is one. */
  private domainElems(d: Domain, env: Env): { guard: B; val: Sym }[] {
    const T = this.ctx.Bool.val(true);
    if (d.k === "enum") return d.type.members.map((m) => ({ guard: T, val: this.ev(d.type.base, this.enumCode(d.type, m)) }));
    if (d.k === "list") return this.listElems(this.expr(d.expr, env));
    const arg = this.expr(d.args[0], env);
    const rel = d.fn === "ports_of" ? this.board.portsOf : d.fn === "sea_zones_of" ? this.board.seaZonesOf : this.board.neighbors;
    // element t is in fn(arg) iff arg ∈ {x | t ∈ rel(x)}
    const inverse = new Map<number, number[]>();
    for (const [x, ts] of rel) for (const t of ts) inverse.set(t, [...(inverse.get(t) ?? []), x]);
    const n = this.board.n;
    const out: { guard: B; val: Sym }[] = [];
    for (const t of [...inverse.keys()].sort((a, b) => a - b)) {
      const g = this.memberSym(arg, inverse.get(t)!, n);
      if (this.ctx.isFalse(g)) continue;
      out.push({ guard: g, val: this.ev("Space", t) });
    }
    return out;
  }

  // ------------------------------------------------------------------------------------------
  // expressions

  bool(e: Expr, env: Env): B {
    return this.asBool(this.expr(e, env));
  }

  expr(e: Expr, env: Env): Sym {
    const { ctx } = this;
    switch (e.k) {
      case "lit": {
        if (typeof e.value === "boolean") return this.bv(e.value);
        if (typeof e.value === "number") return this.iv(e.value);
        if (e.type.k === "enum") return this.ev(e.type.base, this.enumCode(e.type, e.value));
        return this.iv(this.atoms.get(e.value)!);
      }
      case "var": {
        const v = env.get(e.name);
        if (!v) throw new EncodeError(`unbound variable \`${e.name}\``);
        return v;
      }
      case "state":
        return { k: "loc", path: "state", type: this.ir.state };
      case "field":
        return this.field(this.expr(e.obj, env), e.field);
      case "index":
        return this.index(this.expr(e.obj, env), this.expr(e.key, env));
      case "not":
        return this.sb(this.not(this.bool(e.arg, env)));
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
        return this.sb(e.k === "and" ? this.and(parts) : this.or(parts));
      }
      case "implies":
        return this.sb(this.implies(this.bool(e.left, env), this.bool(e.right, env)));
      case "cmp": {
        const l = this.expr(e.left, env);
        const r = this.expr(e.right, env);
        if (e.op === "=") return this.sb(this.eq(l, r));
        if (e.op === "!=") return this.sb(this.not(this.eq(l, r)));
        const a = this.asInt(l);
        const b = this.asInt(r);
        if (l.k === "i" && r.k === "i" && l.c !== undefined && r.c !== undefined) {
          const v = e.op === "<" ? l.c < r.c : e.op === "<=" ? l.c <= r.c : e.op === ">" ? l.c > r.c : l.c >= r.c;
          return this.bv(v);
        }
        return this.sb(e.op === "<" ? a.lt(b) : e.op === "<=" ? a.le(b) : e.op === ">" ? a.gt(b) : a.ge(b));
      }
      case "arith": {
        const l = this.expr(e.left, env);
        const r = this.expr(e.right, env);
        if (l.k === "i" && r.k === "i" && l.c !== undefined && r.c !== undefined)
          return this.iv(e.op === "+" ? l.c + r.c : e.op === "-" ? l.c - r.c : l.c * r.c);
        const a = this.asInt(l);
        const b = this.asInt(r);
        return { k: "i", e: e.op === "+" ? a.add(b) : e.op === "-" ? a.sub(b) : a.mul(b) };
      }
      case "neg": {
        const a = this.expr(e.arg, env);
        if (a.k === "i" && a.c !== undefined) return this.iv(-a.c);
        return { k: "i", e: this.asInt(a).neg() };
      }
      case "ite":
        return this.mkIte(this.bool(e.cond, env), this.expr(e.then, env), this.expr(e.else, env));
      case "in": {
        const x = this.expr(e.elem, env);
        if (e.set.k === "setlit") return this.sb(this.or(e.set.items.map((it) => this.eq(x, this.expr(it, env)))));
        const elems = this.listElems(this.expr(e.set, env));
        return this.sb(this.or(elems.map(({ guard, val }) => this.and([guard, this.eq(x, val)]))));
      }
      case "setlit":
        throw new EncodeError("a set literal is only allowed on the right of `in`");
      case "quant": {
        const parts = this.domainElems(e.domain, env).map(({ guard, val }) => {
          const body = this.bool(e.body, new Map(env).set(e.var, val));
          return e.q === "some" ? this.and([guard, body]) : this.implies(guard, body);
        });
        return this.sb(e.q === "some" ? this.or(parts) : this.and(parts));
      }
      case "agg":
        return { k: "i", e: this.agg(e, env) };
      case "len":
        return { k: "i", e: this.listLen(this.expr(e.arg, env)) };
      case "board":
        return this.sb(this.boardFn(e.fn, e.args.map((a) => this.expr(a, env)), e.args));
      case "reach": {
        this.routesUsed.add(e.route);
        const route = this.ir.routes.find((r) => r.name === e.route);
        if (!route) throw new EncodeError(`unknown route \`${e.route}\``);
        let f = this.reachFns.get(e.route);
        if (!f) {
          const sorts = route.params.map((p) => {
            if (p.type.k === "bool") return ctx.Bool.sort();
            if (p.type.k === "enum") return this.enumSort(p.type.base);
            if (isScalar(p.type)) return ctx.Int.sort();
            throw new EncodeError(`route \`${route.name}\` has a non-scalar parameter \`${p.name}\``);
          });
          const sp = this.enumSort("Space");
          f = ctx.Function.declare(`reach.${e.route}`, ...(sorts as [Sort<"main">]), sp, sp, ctx.Bool.sort());
          this.reachFns.set(e.route, f);
        }
        const args = [...e.args, e.from, e.to].map((a) => {
          const s = this.expr(a, env);
          if (s.k === "b" || s.k === "i" || s.k === "e") return s.e;
          throw new EncodeError("non-scalar route argument");
        });
        return this.sb(f.call(...args) as B);
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
    const d = (this.distMatrix ??= boardDistances(this.ir.board, this.enumMembers.get("Space")!));
    if (a.c !== undefined && b.c !== undefined) return this.iv(d[a.c]![b.c]!);
    if (a.c !== undefined) return this.distRow(a.c, b.e, d);
    if (b.c !== undefined) return this.distRow(b.c, a.e, d);
    const n = d.length;
    let out: I = this.asInt(this.distRow(n - 1, b.e, d));
    for (let x = n - 2; x >= 0; x--) out = this.ctx.If(a.e.eq(this.enumVal("Space", x)), this.asInt(this.distRow(x, b.e, d)), out) as I;
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
      out = this.ctx.If(this.memberE(v, "Space", codes), this.ctx.Int.val(values[i]!), out) as I;
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
            const v = this.asInt(key);
            return this.and([...(p.min !== undefined ? [v.ge(p.min)] : []), ...(p.max !== undefined ? [v.le(p.max)] : [])]);
          }
          case "bool":
            return p.value ? this.asBool(key) : this.not(this.asBool(key));
          case "members": {
            const kt = t.keys[i]!.type;
            if (kt.k !== "enum") throw new EncodeError(`table \`${t.name}\`: a member pattern on a non-enum key`);
            return this.memberSym(key, p.members.map((m) => this.enumCode(kt, m)));
          }
        }
      });
      if (r.guard) parts.push(this.bool(r.guard, env));
      return this.and(parts);
    });
  }

  /** A row value (a scalar of type `t`) as a symbolic value. */
  tableScalar(v: TableScalar, t: Type): Sym {
    if (typeof v === "boolean") return this.bv(v);
    if (typeof v === "number") return this.iv(v);
    if (t.k !== "enum") throw new EncodeError(`table value \`${v}\` of a non-enum type`);
    return this.ev(t.base, this.enumCode(t, v));
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
    for (let i = t.rows.length - 2; i >= 0; i--) out = this.mkIte(conds[i]!, valueOf(i), out);
    return out;
  }

  private sb(e: B): Sym {
    const { ctx } = this;
    if (ctx.isTrue(e)) return this.bv(true);
    if (ctx.isFalse(e)) return this.bv(false);
    return { k: "b", e };
  }

  private agg(e: Extract<Expr, { k: "agg" }>, env: Env): I {
    const { ctx } = this;
    const zero = ctx.Int.val(0);
    const items = this.domainElems(e.domain, env).map(({ guard, val }) => {
      const inner = new Map(env).set(e.var, val);
      const sel = e.where ? this.and([guard, this.bool(e.where, inner)]) : guard;
      const body = e.body ? this.asInt(this.expr(e.body, inner)) : ctx.Int.val(1);
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
          best = ctx.If(this.and([sel, this.or([this.not(has), better])]), body, best) as I;
          has = this.or([has, sel]);
        }
        return ctx.If(has, best, 0) as I;
      }
      case "sum_highest": {
        // element i counts when fewer than n selected elements beat it (ties broken by index)
        const n = e.n ?? 1;
        const parts = items.map(({ sel, body }, i) => {
          const beaters = items
            .map((o, j) => (j === i ? null : this.and([o.sel, j < i ? o.body.ge(body) : o.body.gt(body)])))
            .filter((x): x is B => x !== null && !ctx.isFalse(x));
          const rank = sum(beaters.map((b) => ctx.If(b, 1, 0) as I));
          return ctx.If(this.and([sel, rank.lt(n)]), body, 0) as I;
        });
        return sum(parts);
      }
    }
  }

  private boardFn(fn: string, args: Sym[], exprs: Expr[]): B {
    const { ctx } = this;
    const bd = this.board;
    const unary = (set: Set<number>) => this.memberSym(args[0], [...set], bd.n);
    const binary = (rel: Map<number, number[]>, nb: number) => {
      const [a, b] = args;
      const ac = a.k === "e" ? a.c : undefined;
      const bc = b.k === "e" ? b.c : undefined;
      if (ac !== undefined) return this.memberSym(b, rel.get(ac) ?? [], nb);
      if (bc !== undefined) {
        const xs = [...rel].filter(([, ys]) => ys.includes(bc)).map(([x]) => x);
        return this.memberSym(a, xs, bd.n);
      }
      if (a.k !== "e") throw new EncodeError("board function of a non-enum");
      return this.or([...rel].map(([x, ys]) => this.and([a.e.eq(this.enumVal(a.base, x)), this.memberSym(b, ys, nb)])));
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
        const powers = this.baseMembers(pt);
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
    return this.spaceType;
  }
}

// ---------------------------------------------------------------------------------------------
// board tables

interface BoardIndex {
  n: number;
  code: Map<string, number>;
  land: Set<number>;
  sea: Set<number>;
  port: Set<number>;
  fortified: Set<number>;
  key: Set<number>;
  electorate: Set<number>;
  /** symmetric: every connection */
  neighbors: Map<number, number[]>;
  /** symmetric: pass connections */
  passes: Map<number, number[]>;
  /** land port q → sea zones z with port_on(q, z) */
  portsOn: Map<number, number[]>;
  /** sea zone z → ports on it (domain ports_of) */
  portsOf: Map<number, number[]>;
  /** port q → sea zones (domain sea_zones_of) */
  seaZonesOf: Map<number, number[]>;
}

function indexBoard(board: Board, spaces: string[]): BoardIndex {
  const code = new Map(spaces.map((s, i) => [s, i]));
  const c = (id: string) => {
    const v = code.get(id);
    if (v === undefined) throw new EncodeError(`board space \`${id}\` is not a member of Space`);
    return v;
  };
  const types = new Map(board.spaces.map((s) => [s.id, s.type]));
  const set = (pred: (t: string) => boolean) => new Set(board.spaces.filter((s) => pred(s.type)).map((s) => c(s.id)));
  const add = (m: Map<number, number[]>, a: number, b: number) => {
    const l = m.get(a) ?? [];
    if (!l.includes(b)) l.push(b);
    m.set(a, l);
  };
  const neighbors = new Map<number, number[]>();
  const passes = new Map<number, number[]>();
  const portsOn = new Map<number, number[]>();
  const portsOf = new Map<number, number[]>();
  for (const k of board.connections) {
    const a = c(k.from);
    const b = c(k.to);
    add(neighbors, a, b);
    add(neighbors, b, a);
    if (k.type === "pass") {
      add(passes, a, b);
      add(passes, b, a);
    }
    if (k.type === "port") {
      const [q, z] = types.get(k.from) === "sea" ? [b, a] : [a, b];
      add(portsOn, q, z);
      add(portsOf, z, q);
    }
  }
  for (const m of [neighbors, passes, portsOn, portsOf]) for (const l of m.values()) l.sort((x, y) => x - y);
  const land = set((t) => t !== "sea");
  return {
    n: spaces.length,
    code,
    land,
    sea: set((t) => t === "sea"),
    port: new Set([...portsOn.keys()].filter((q) => land.has(q))),
    fortified: set((t) => t === "key" || t === "fortress" || t === "capital" || t === "electorate"),
    key: set((t) => t === "key" || t === "capital"),
    electorate: set((t) => t === "electorate"),
    neighbors,
    passes,
    portsOn,
    portsOf,
    seaZonesOf: portsOn,
  };
}
