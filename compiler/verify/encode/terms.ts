/**
 * The Z3 terms of an edition (`Terms`: values, leaves, enum sorts, folding helpers, composites);
 * encoder.ts's `Encoder` encodes the expressions over them.
 *
 * (What follows is the encoding as a whole.)
 *
 * Value encoding (one `Encoder` per edition, leaves shared by every obligation):
 * - bool → Bool const; int → Int const (its range is a domain fact: schema min/max, 32-bit where
 *   undeclared, compiler/ir/ints.ts); string → Int-coded
 *   atom (only `=`/`!=` are meaningful; the string literals of the edition get codes 0..k-1);
 *   enum → a constant of the BASE enum's Z3 datatype (one nullary constructor per member,
 *   `enumDatatype` below; a member's code is its index in the base enum), with a domain fact
 *   restricting it to the (maybe subset) type's members.
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
import type { Domain, EnumType, Expr, IRAction, IREdition, IRRule, Type } from "../../ir/types.js";
import type { Z3Ctx } from "../run/z3.js";
import { indexBoard, type BoardIndex } from "./board-index.js";
import { EncodeError } from "./encode-error.js";
import { intRange } from "../../ir/ints.js";

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

export { EncodeError };

export const isScalar = (t: Type) => t.k === "bool" || t.k === "int" || t.k === "string" || t.k === "enum";

/**
 * The Z3 terms of one edition: leaves (created when first touched, with their domain facts),
 * string atoms, enum datatypes, constants, folding connectives and composites (paths, `ite`s).
 * The expressions over them are encoder.ts's `Encoder`, which has one.
 */
export class Terms {
  readonly leaves = new Map<string, Leaf>();
  /** string literal → atom code */
  readonly atoms: Map<string, number>;
  readonly atomNames: string[];
  touched = new Set<string>();
  routesUsed = new Set<string>();
  readonly enumMembers = new Map<string, string[]>();
  readonly spaceType: EnumType;
  readonly reachFns = new Map<string, ReturnType<Z3Ctx["Function"]["declare"]>>();
  readonly mapFns = new Map<string, ReturnType<Z3Ctx["Function"]["declare"]>>();
  readonly board: BoardIndex;

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

  /** Action list params have no schema bound: cap them at `actionListBound`. */
  paramType(t: Type): Type {
    if (t.k !== "list") return t;
    const bound = t.bound > 0 ? Math.min(t.bound, this.actionListBound) : this.actionListBound;
    return { ...t, bound };
  }

  stateEnumIs(field: string, member: string): B {
    const f = this.ir.state.fields.find((x) => x.name === field);
    if (!f || f.type.k !== "enum") throw new EncodeError(`state.${field} is not an enum field`);
    const v = this.leaf(`state.${field}`, f.type) as EV;
    return v.eq(this.enumVal(f.type.base, this.enumCode(f.type, member)));
  }

  // ------------------------------------------------------------------------------------------
  // leaves

  locOrLeaf(path: string, type: Type, args?: EV[], bases?: string[]): Sym {
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
        // the declared bounds; a side left undeclared holds a 32-bit integer (compiler/ir/ints.ts),
        // the range the checker proved every arithmetic result safe for
        const [lo, hi] = intRange(type);
        facts.push(v.ge(lo));
        facts.push(v.le(hi));
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

  bv(c: boolean): Sym {
    return { k: "b", e: this.ctx.Bool.val(c), c };
  }
  iv(c: number): Sym {
    return { k: "i", e: this.ctx.Int.val(c), c };
  }
  ev(base: string, c: number): Sym {
    return { k: "e", e: this.enumVal(base, c), base, c };
  }

  readonly sorts = new Map<string, { sort: Sort<"main">; vals: EV[]; byName: Map<string, number> }>();
  /** The datatype sort of a base enum: one nullary constructor `<Base>.<member>` per member. */
  enumSort(base: string): Sort<"main"> {
    return this.enumInfo(base).sort;
  }
  enumInfo(base: string) {
    let info = this.sorts.get(base);
    if (!info) {
      const members = this.enumMembers.get(base);
      if (!members) throw new EncodeError(`unknown enum \`${base}\``);
      info = enumDatatype(this.ctx, base, members);
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
  implies(a: B, b: B): B {
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

  memberSym(v: Sym, codes: number[], _n?: number): B {
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

  mkIte(cond: B, t: Sym, f: Sym): Sym {
    const { ctx } = this;
    if (ctx.isTrue(cond)) return t;
    if (ctx.isFalse(cond)) return f;
    if (t.k === "b" && f.k === "b") return { k: "b", e: ctx.If(cond, t.e, f.e) as B };
    if (t.k === "i" && f.k === "i") return { k: "i", e: ctx.If(cond, t.e, f.e) as I };
    if (t.k === "e" && f.k === "e") return { k: "e", e: ctx.If(cond, t.e, f.e) as EV, base: t.base };
    if ((t.k === "loc" || t.k === "ite") && (f.k === "loc" || f.k === "ite")) return { k: "ite", cond, t, f, type: t.type };
    throw new EncodeError("if-then-else over values of different kinds");
  }

  eq(a: Sym, b: Sym): B {
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

  field(s: Sym, name: string): Sym {
    if (s.k === "ite") return this.mkIte(s.cond, this.field(s.t, name), this.field(s.f, name));
    if (s.k !== "loc" || s.type.k !== "record") throw new EncodeError(`field \`${name}\` of a non-record`);
    const f = s.type.fields.find((x) => x.name === name);
    if (!f) throw new EncodeError(`unknown field \`${name}\` at ${s.path}`);
    return this.locOrLeaf(`${s.path}.${name}`, f.type, s.args, s.bases);
  }

  index(s: Sym, key: Sym): Sym {
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


  listLen(s: Sym): I {
    if (s.k === "ite") return this.ctx.If(s.cond, this.listLen(s.t), this.listLen(s.f)) as I;
    if (s.k !== "loc" || s.type.k !== "list") throw new EncodeError("length of a non-list");
    return this.leaf(`${s.path}#len`, s.type, s.args, s.bases) as I;
  }

  /** The slots of a list: element i with guard `i < len`. */
  listElems(s: Sym): { guard: B; val: Sym }[] {
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

}

type EnumInfo = { sort: Sort<"main">; vals: EV[]; byName: Map<string, number> };
/** per Z3 context: the datatypes declared so far, by name, with their members */
const datatypes = new WeakMap<object, Map<string, { members: string; info: EnumInfo }[]>>();

/**
 * The datatype sort of an enum: one nullary constructor `<Base>.<member>` per member. A solver
 * process proves several editions in one Z3 context, and Z3 keeps one datatype definition per
 * name: declaring `Phase` again (Virgin Queen's after Here I Stand's) would replace the first
 * definition under the terms already built on it (a crash in the datatype theory). So an enum
 * with the members of one declared before shares its sort, and one with other members gets a
 * name of its own, `<Base>@<n>` (smt2.ts prints it as `<Base>`: a query mentions one edition).
 */
function enumDatatype(ctx: Z3Ctx, base: string, members: string[]): EnumInfo {
  let byBase = datatypes.get(ctx);
  if (!byBase) datatypes.set(ctx, (byBase = new Map()));
  const declared = byBase.get(base) ?? [];
  const key = members.join("\0");
  const same = declared.find((d) => d.members === key);
  if (same) return same.info;
  const dt = ctx.Datatype(declared.length ? `${base}@${declared.length + 1}` : base);
  for (const m of members) dt.declare(`${base}.${m}`);
  const sort = dt.create() as unknown as Sort<"main"> & Record<string, EV>;
  const vals = members.map((m) => sort[`${base}.${m}`] as EV);
  const byName = new Map<string, number>();
  vals.forEach((v, i) => {
    byName.set(v.toString(), i);
    byName.set(`${base}.${members[i]}`, i);
    byName.set(`|${base}.${members[i]}|`, i);
  });
  const info = { sort, vals, byName };
  byBase.set(base, [...declared, { members: key, info }]);
  return info;
}
