/**
 * IR expressions → straight-line TypeScript expressions.
 *
 * Quantifiers, aggregates and non-trivial `in` tests are lifted into small top-level helper
 * functions (a loop with early exit) whose parameters are the expression's free variables, so
 * nothing is interpreted and no closure is allocated at run time. Identical helpers are shared.
 * Map lookups a body repeats (or makes in a loop without depending on the loop variable) are
 * read once into locals first (`hoist`).
 *
 * Equality tests widen their left operand (`(x as string) === "a"`): TypeScript narrows a
 * compared reference, and a later test of the same reference against another literal (`x = a
 * and (x = b or …)`, or a rule's scope followed by its condition) would otherwise be a type
 * error in the generated code.
 */
import { jsString } from "./escape.js";
import type { Domain, Expr, IREdition, Type } from "../ir/types.js";
import { Names, propAccess, propKey, varName } from "./names.js";
import { children, domainExprs, freeVars } from "../ir/walk.js";

/** A compiled expression and its precedence (higher binds tighter). */
export interface Code {
  code: string;
  prec: number;
}

const P = { cond: 0, or: 1, and: 2, eq: 3, rel: 4, add: 5, mul: 6, unary: 7, primary: 8 } as const;
/** The precedence of `&&`: an operand with a lower one needs parentheses. */
export const AND_PREC: number = P.and;

/** IR variable name → the TypeScript expression that holds it in the current function. */
export type Ctx = ReadonlyMap<string, string>;

export interface Helper {
  name: string;
  doc?: string;
  params: { name: string; type: string }[];
  returnType: string;
  body: string;
}

/** The board builtins as functions exported by board.ts. */
const BOARD_FN: Record<string, string> = {
  is_land: "isLand",
  is_sea: "isSea",
  is_port: "isPort",
  is_fortified: "isFortified",
  is_key: "isKey",
  is_electorate: "isElectorate",
  is_capital: "isCapital",
  is_home: "isHome",
  adjacent: "adjacent",
  pass_between: "passBetween",
  port_on: "portOn",
  distance: "distance",
  ports_of: "portsOf",
  sea_zones_of: "seaZonesOf",
  neighbors: "neighbors",
};

/** The one-space board predicates that test one bit of board.ts's FLAGS (set, or clear for is_land). */
const BOARD_FLAG: Record<string, { bit: string; set: boolean }> = {
  is_land: { bit: "F_SEA", set: false },
  is_sea: { bit: "F_SEA", set: true },
  is_port: { bit: "F_PORT", set: true },
  is_fortified: { bit: "F_FORTIFIED", set: true },
  is_key: { bit: "F_KEY", set: true },
  is_electorate: { bit: "F_ELECTORATE", set: true },
};

/** The context key under which a loop over every space (`some s in Space`) records its index, the number of `s` on the board. */
const spaceNoKey = (v: string): string => `#spaceNo ${v}`;

export class CodegenError extends Error {}

/** TypeScript type of an IR type (structural for records and maps, see README). */
export function tsType(t: Type): string {
  switch (t.k) {
    case "bool":
      return "boolean";
    case "int":
      return "number";
    case "string":
      return "string";
    case "enum":
      return t.name;
    case "list": {
      const e = tsType(t.elem);
      return `readonly ${/^[\w$]+$/.test(e) ? e : `(${e})`}[]`;
    }
    case "map":
      return `{ readonly [k: string]: ${tsType(t.value)} }`;
    case "record":
      return `{ ${t.fields.map((f) => `readonly ${propKey(f.name)}: ${tsType(f.type)}`).join("; ")} }`;
  }
}

/** The widened scalar type used in equality tests and list membership. */
function wideType(t: Type): string {
  switch (t.k) {
    case "bool":
      return "boolean";
    case "int":
      return "number";
    case "string":
    case "enum":
      return "string";
    default:
      throw new CodegenError(`equality on a non-scalar type \`${t.k}\``);
  }
}

function paren(c: Code, min: number): string {
  return c.prec < min ? `(${c.code})` : c.code;
}

/** A key of an expression's meaning (source positions left out). */
export function exprKey(e: Expr): string {
  return JSON.stringify(e, (k, v: unknown) => (k === "pos" ? undefined : v));
}

/**
 * Whether a quantifier's or aggregate's domain is passed to its helper as a value: a list read
 * through a map lookup (`state.hands[p]`), which the caller can share with its other reads.
 */
function passedDomain(e: Extract<Expr, { k: "quant" | "agg" }>): e is Extract<Expr, { k: "quant" | "agg" }> & { domain: { k: "list" } } {
  if (e.k === "agg" && ((e.op === "count" && !e.where) || (e.op === "sum_highest" && (e.n ?? 0) <= 0))) return false; // no helper
  return e.domain.k === "list" && isSimple(e.domain.expr) && someIndex(e.domain.expr);
}

function someIndex(e: Expr): boolean {
  return e.k === "index" || (e.k === "field" && someIndex(e.obj));
}

/** The free variables of a quantifier's or aggregate's body and filter (its domain left out). */
function bodyFreeVars(e: Extract<Expr, { k: "quant" | "agg" }>): Map<string, Type> {
  const out = new Map<string, Type>();
  const parts = e.k === "quant" ? [e.body] : [...(e.where ? [e.where] : []), ...(e.body ? [e.body] : [])];
  for (const p of parts) for (const [n, t] of freeVars(p)) if (n !== e.var) out.set(n, t);
  return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The number of field and index steps of an access path. */
function pathDepth(e: Expr): number {
  return e.k === "field" ? 1 + pathDepth(e.obj) : e.k === "index" ? 1 + pathDepth(e.obj) : 0;
}

/** Whether evaluating the expression twice is cheap and has no lifted call (for `in` chains). */
function isSimple(e: Expr): boolean {
  switch (e.k) {
    case "lit":
    case "var":
    case "state":
      return true;
    case "field":
      return isSimple(e.obj);
    case "index":
      return isSimple(e.obj) && isSimple(e.key);
    default:
      return false;
  }
}

/**
 * One generated module's expression compiler. Lifted helpers accumulate in `helpers`;
 * enum member arrays used as quantifier domains in `enumArrays`; board.ts functions in `boardUsed`.
 */
export class ExprCompiler {
  readonly helpers: Helper[] = [];
  readonly enumArrays = new Map<string, { name: string; members: string[] }>();
  readonly boardUsed = new Set<string>();
  /** lookup functions of tables.ts the compiled expressions call */
  readonly tablesUsed = new Set<string>();
  private readonly byKey = new Map<string, string>();
  /** map lookups already held in a local of the function being compiled: expression key → local */
  private hoisted = new Map<string, string>();
  /** the names of those locals, taken from `names` so that no top-level name is shadowed */
  private readonly localNames = new Map<string, string[]>();

  constructor(
    private readonly ir: IREdition,
    readonly names: Names,
    private readonly enumMembers: ReadonlyMap<string, string[]>,
    /** route name → generated search function name */
    private readonly routeFns: ReadonlyMap<string, string>,
    /** table name → its lookup function in tables.ts */
    private readonly tableFns: ReadonlyMap<string, string> = new Map(),
    /** helpers take no `state` parameter (table expressions never read the state) */
    private readonly stateless = false,
  ) {}

  /** Adds a helper function, or returns the name of an identical one. */
  addHelper(base: string, params: Helper["params"], returnType: string, body: string, doc?: string): string {
    const key = JSON.stringify([params, returnType, body]);
    const found = this.byKey.get(key);
    if (found) return found;
    const name = this.names.take(base);
    this.byKey.set(key, name);
    this.helpers.push({ name, params, returnType, body, doc });
    return name;
  }

  /** The constant array of an enum's members (declared once in the module). */
  enumArray(name: string): string {
    if (name === "Space") {
      this.boardUsed.add("SPACES");
      return "SPACES";
    }
    let a = this.enumArrays.get(name);
    if (!a) {
      const members = this.enumMembers.get(name);
      if (!members) throw new CodegenError(`unknown enum \`${name}\``);
      a = { name: this.names.take(`MEMBERS_${name}`), members };
      this.enumArrays.set(name, a);
    }
    return a.name;
  }

  boardFn(fn: string): string {
    const f = BOARD_FN[fn];
    if (!f) throw new CodegenError(`unknown board function \`${fn}\``);
    this.boardUsed.add(f);
    return f;
  }

  /**
   * Within `inFunction`: the map lookups (`m[k]`, the costly reads of the state) that the
   * expressions `once` (evaluated once in the body) make twice, or `loop` (the body of a loop over
   * `loopVar`) make with keys that do not depend on it, are read into locals here; the returned
   * declarations go first in the body, and the expressions compiled afterwards in that body read
   * the locals. Reading a lookup early is safe: on a state and arguments of the declared types
   * every key is present (the schema requires every key of a map, and the checker lets a map be
   * indexed only by its key type), and a read has no effect.
   */
  hoist(once: readonly Expr[], loop: readonly Expr[], loopVar: string | undefined, ctx: Ctx, base: string): string[] {
    const counts = new Map<string, { e: Expr; n: number; depth: number }>();
    const visit = (x: Expr, weight: number): void => {
      // compiled in helpers of their own (a lookup there is not this body's), but for the list
      // a helper is passed, or the list whose length a `count` is
      if (x.k === "quant" || x.k === "agg") {
        if (passedDomain(x) || (x.k === "agg" && x.op === "count" && !x.where)) for (const d of domainExprs(x.domain)) visit(d, weight);
        return;
      }
      if (x.k === "in" && x.set.k === "setlit" && x.set.items.length > 0 && !isSimple(x.elem)) return;
      if (x.k === "index" && isSimple(x) && (loopVar === undefined || !freeVars(x).has(loopVar))) {
        const key = exprKey(x);
        const c = counts.get(key) ?? { e: x, n: 0, depth: pathDepth(x) };
        c.n += weight;
        counts.set(key, c);
      }
      for (const c of children(x)) visit(c, weight);
    };
    for (const e of once) visit(e, 1);
    for (const e of loop) visit(e, 2);
    const decls: string[] = [];
    // inner lookups first, so that an outer one reads the inner's local
    const chosen = [...counts.entries()].filter(([k, c]) => c.n >= 2 && !this.hoisted.has(k)).sort(([, a], [, b]) => a.depth - b.depth);
    for (const [key, c] of chosen) {
      const code = this.expr(c.e, ctx, base).code;
      const local = this.localName(this.hoisted.size);
      decls.push(`const ${local} = ${code};`);
      this.hoisted.set(key, local);
    }
    return decls;
  }

  /** Runs `f`, the compilation of another function's body: the locals `hoist` made for the current one are out of scope there. */
  inFunction<T>(f: () => T): T {
    const saved = this.hoisted;
    this.hoisted = new Map();
    try {
      return f();
    } finally {
      this.hoisted = saved;
    }
  }

  private localName(i: number): string {
    return this.local("at", i);
  }

  /**
   * The i-th local name with this prefix (`at`, `at_2`, …): taken from the module's names, so
   * that a local never shadows a top-level function or constant.
   */
  local(prefix: string, i: number): string {
    let list = this.localNames.get(prefix);
    if (!list) this.localNames.set(prefix, (list = []));
    while (list.length <= i) list.push(this.names.take(prefix));
    return list[i]!;
  }

  /** Compiles `e` in a function where the IR variables of `ctx` are in scope; `base` names helpers. */
  expr(e: Expr, ctx: Ctx, base: string): Code {
    if (e.k === "index" && this.hoisted.size) {
      const local = this.hoisted.get(exprKey(e));
      if (local !== undefined) return { code: local, prec: P.primary };
    }
    switch (e.k) {
      case "lit":
        if (typeof e.value === "number") return e.value < 0 ? { code: String(e.value), prec: P.unary } : { code: String(e.value), prec: P.primary };
        if (typeof e.value === "boolean") return { code: String(e.value), prec: P.primary };
        return { code: jsString(e.value), prec: P.primary };
      case "var": {
        const v = ctx.get(e.name);
        if (v === undefined) throw new CodegenError(`unbound variable \`${e.name}\``);
        return { code: v, prec: P.primary };
      }
      case "state":
        return { code: "state", prec: P.primary };
      case "field":
        return { code: propAccess(paren(this.expr(e.obj, ctx, base), P.primary), e.field), prec: P.primary };
      case "index":
        // `!`: every key of a map is present (the schema requires them all)
        return { code: `${paren(this.expr(e.obj, ctx, base), P.primary)}[${this.expr(e.key, ctx, base).code}]!`, prec: P.primary };
      case "not":
        return this.negated(e.arg, ctx, base);
      case "neg": {
        const a = this.expr(e.arg, ctx, base);
        // `- -x`, never `--x` (a decrement)
        return { code: `-${a.code.startsWith("-") ? `(${a.code})` : paren(a, P.unary)}`, prec: P.unary };
      }
      case "and":
        if (e.args.length === 0) return { code: "true", prec: P.primary };
        if (e.args.length === 1) return this.expr(e.args[0]!, ctx, base);
        return { code: e.args.map((a) => paren(this.expr(a, ctx, base), P.and)).join(" && "), prec: P.and };
      case "or":
        if (e.args.length === 0) return { code: "false", prec: P.primary };
        if (e.args.length === 1) return this.expr(e.args[0]!, ctx, base);
        // `&&` inside `||` is parenthesized for the reader
        return { code: e.args.map((a) => paren(this.expr(a, ctx, base), P.eq)).join(" || "), prec: P.or };
      case "implies":
        return {
          code: `${paren(this.negated(e.left, ctx, base), P.eq)} || ${paren(this.expr(e.right, ctx, base), P.eq)}`,
          prec: P.or,
        };
      case "cmp": {
        const l = this.expr(e.left, ctx, base);
        const r = this.expr(e.right, ctx, base);
        if (e.op === "=" || e.op === "!=") {
          return { code: `(${l.code} as ${wideType(e.left.type)}) ${e.op === "=" ? "===" : "!=="} ${paren(r, P.rel)}`, prec: P.eq };
        }
        return { code: `${paren(l, P.add)} ${e.op} ${paren(r, P.add)}`, prec: P.rel };
      }
      case "arith": {
        // `/` rounds down (the divisor is a positive literal; exact within ±(2^53−1), as the prover's `div`)
        if (e.op === "/") return { code: `Math.floor(${paren(this.expr(e.left, ctx, base), P.mul)} / ${paren(this.expr(e.right, ctx, base), P.mul + 1)})`, prec: P.primary };
        const prec = e.op === "*" ? P.mul : P.add;
        return { code: `${paren(this.expr(e.left, ctx, base), prec)} ${e.op} ${paren(this.expr(e.right, ctx, base), prec + 1)}`, prec };
      }
      case "ite":
        return {
          code: `${paren(this.expr(e.cond, ctx, base), P.or)} ? ${paren(this.expr(e.then, ctx, base), P.or)} : ${paren(this.expr(e.else, ctx, base), P.cond)}`,
          prec: P.cond,
        };
      case "in":
        return this.inExpr(e, ctx, base);
      case "setlit":
        throw new CodegenError("a set literal outside `in`");
      case "len":
        return { code: `${paren(this.expr(e.arg, ctx, base), P.primary)}.length`, prec: P.primary };
      case "board": {
        // a flag of the space a loop over every space is at: its number is the loop index (no lookup)
        const flag = BOARD_FLAG[e.fn];
        const arg = e.args[0];
        const no = flag && arg?.k === "var" ? ctx.get(spaceNoKey(arg.name)) : undefined;
        if (flag && no !== undefined) {
          this.boardUsed.add("FLAGS");
          this.boardUsed.add(flag.bit);
          return { code: `(FLAGS[${no}]! & ${flag.bit}) ${flag.set ? "!==" : "==="} 0`, prec: P.eq };
        }
        const f = this.boardFn(e.fn);
        return { code: `${f}(${e.args.map((a) => this.expr(a, ctx, base).code).join(", ")})`, prec: P.primary };
      }
      case "distance": {
        // a lookup in the generated DISTANCE matrix (board.ts)
        const f = this.boardFn("distance");
        return { code: `${f}(${this.expr(e.from, ctx, base).code}, ${this.expr(e.to, ctx, base).code})`, prec: P.primary };
      }
      case "reach": {
        const f = this.routeFns.get(e.route);
        if (!f) throw new CodegenError(`unknown route \`${e.route}\``);
        const args = ["state", ...e.args.map((a) => this.expr(a, ctx, base).code), this.expr(e.from, ctx, base).code, this.expr(e.to, ctx, base).code];
        return { code: `${f}(${args.join(", ")})`, prec: P.primary };
      }
      case "table": {
        const f = this.tableFns.get(e.table);
        if (!f) throw new CodegenError(`unknown table \`${e.table}\``);
        this.tablesUsed.add(f);
        const call = `${f}(${e.args.map((a) => this.expr(a, ctx, base).code).join(", ")})`;
        return { code: e.field !== undefined ? propAccess(call, e.field) : call, prec: P.primary };
      }
      case "quant":
        return this.lift(e, ctx, base);
      case "agg":
        if (e.op === "count" && !e.where) {
          // the size of the domain: no loop needed
          return { code: `${this.domainCode(e.domain, ctx, base)}.length`, prec: P.primary };
        }
        return this.lift(e, ctx, base);
    }
  }

  /** `!e`, simplified: `not not x` → `x`, `not (a = b)` → `a !== b`, `not (a < b)` → `a >= b`. */
  negated(e: Expr, ctx: Ctx, base: string): Code {
    if (e.k === "not") return this.expr(e.arg, ctx, base);
    if (e.k === "cmp") {
      const flip = { "=": "!=", "!=": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">" } as const;
      return this.expr({ ...e, op: flip[e.op] }, ctx, base);
    }
    return { code: `!${paren(this.expr(e, ctx, base), P.unary)}`, prec: P.unary };
  }

  private inExpr(e: Extract<Expr, { k: "in" }>, ctx: Ctx, base: string): Code {
    const set = e.set;
    if (set.k === "setlit") {
      if (set.items.length === 0) return { code: "false", prec: P.primary };
      if (!isSimple(e.elem)) return this.lift(e, ctx, base);
      const el = this.expr(e.elem, ctx, base).code;
      const w = wideType(e.elem.type);
      const parts = set.items.map((it) => `(${el} as ${w}) === ${paren(this.expr(it, ctx, base), P.rel)}`);
      return parts.length === 1 ? { code: parts[0]!, prec: P.eq } : { code: parts.join(" || "), prec: P.or };
    }
    if (set.type.k !== "list") throw new CodegenError("`in` over a value that is neither a set literal nor a list");
    const w = wideType(set.type.elem);
    return {
      code: `(${this.expr(set, ctx, base).code} as readonly ${w}[]).includes(${this.expr(e.elem, ctx, base).code})`,
      prec: P.primary,
    };
  }

  private domainCode(d: Domain, ctx: Ctx, base: string): string {
    switch (d.k) {
      case "enum":
        return this.enumArray(d.type.name);
      case "list":
        return paren(this.expr(d.expr, ctx, base), P.primary);
      case "board":
        return `${this.boardFn(d.fn)}(${d.args.map((a) => this.expr(a, ctx, base).code).join(", ")})`;
    }
  }

  /**
   * Lifts a predicate over one bound variable (a route clause) into a helper. Returns the helper
   * name and the arguments for its free variables; the bound variable's value goes last.
   */
  predicate(e: Expr, bound: string, boundType: string, ctx: Ctx, base: string): { name: string; args: string[] } {
    const fv = freeVars(e);
    fv.delete(bound);
    const { params, inner, args } = bindFreeVars(fv, ctx, this.stateless);
    let local = varName(bound);
    for (let i = 2; params.some((p) => p.name === local); i++) local = `${varName(bound)}_${i}`;
    params.push({ name: local, type: boundType });
    inner.set(bound, local);
    const body = this.inFunction(() => [...this.hoist([e], [], undefined, inner, base), `return ${this.expr(e, inner, base).code};`].join("\n"));
    const name = this.addHelper(base, params, "boolean", body);
    return { name, args };
  }

  /**
   * Lifts a quantifier, an aggregate or an `in` test into a helper function over its free
   * variables and returns the call.
   */
  private lift(e: Expr & { k: "quant" | "agg" | "in" }, ctx: Ctx, base: string): Code {
    // a list looked up in a map is read by the caller (where `hoist` can share the lookup) and
    // passed as the helper's last argument `d`
    const list = e.k !== "in" && passedDomain(e) ? this.expr(e.domain.expr, ctx, base).code : undefined;
    return this.inFunction(() => this.liftIn(e, ctx, base, list));
  }

  private liftIn(e: Expr & { k: "quant" | "agg" | "in" }, ctx: Ctx, base: string, list: string | undefined): Code {
    const fv = e.k !== "in" && list !== undefined ? bodyFreeVars(e) : freeVars(e);
    const { params, inner, args } = bindFreeVars(fv, ctx, this.stateless);
    if (e.k !== "in" && list !== undefined) {
      params.push({ name: "d", type: tsType(e.domain.k === "list" ? e.domain.expr.type : e.varType) });
      args.push(list);
    }
    const taken = new Set(params.map((p) => p.name));
    const lines: string[] = [];
    let returnType: string;
    let suffix: string;
    if (e.k === "in") {
      returnType = "boolean";
      suffix = "in";
      const set = e.set as Extract<Expr, { k: "setlit" }>;
      lines.push(`const x = ${paren(this.expr(e.elem, inner, base), P.primary)} as ${wideType(e.elem.type)};`);
      lines.push(`return ${set.items.map((it) => `x === ${paren(this.expr(it, inner, base), P.rel)}`).join(" || ")};`);
    } else {
      let loopVar = varName(e.var);
      for (let i = 2; taken.has(loopVar); i++) loopVar = `${varName(e.var)}_${i}`;
      const inLoop = e.k === "quant" ? [e.body] : [...(e.where ? [e.where] : []), ...(e.body ? [e.body] : [])];
      const dom = list === undefined ? [`const d = ${this.domainCode(e.domain, inner, base)};`] : [];
      const decls = this.hoist([], inLoop, e.var, inner, base);
      let head = [...dom, `for (let i = 0; i < d.length; i++) {`, `  const ${loopVar} = d[i]!;`];
      if (decls.length) {
        // the reads taken out of the loop are made only when it has something to do (every
        // aggregate of an empty domain is 0)
        lines.push(...dom, `if (d.length === 0) return ${e.k === "quant" ? String(e.q === "every") : "0"};`, ...decls);
        head = head.slice(dom.length);
      }
      const body = new Map(inner).set(e.var, loopVar);
      // over every space (d is board.ts's SPACES), the index is the space's number
      if (list === undefined && e.domain.k === "enum" && e.domain.type.name === "Space") body.set(spaceNoKey(e.var), "i");
      if (e.k === "quant") {
        returnType = "boolean";
        suffix = e.q;
        const b = e.q === "some" ? this.expr(e.body, body, base) : { code: "", prec: 0 };
        lines.push(...head);
        lines.push(e.q === "some" ? `  if (${b.code}) return true;` : `  if (${this.negated(e.body, body, base).code}) return false;`);
        lines.push(`}`, e.q === "some" ? `return false;` : `return true;`);
      } else {
        returnType = "number";
        suffix = e.op;
        const where = e.where ? this.negated(e.where, body, base) : null;
        const val = e.body ? this.expr(e.body, body, base).code : "1";
        const skip = where ? [`  if (${where.code}) continue;`] : [];
        switch (e.op) {
          case "count":
            lines.push(`let n = 0;`, ...head, ...skip, `  n++;`, `}`, `return n;`);
            break;
          case "sum":
            lines.push(`let n = 0;`, ...head, ...skip, `  n += ${val};`, `}`, `return n;`);
            break;
          case "max":
          case "min": {
            const better = e.op === "max" ? ">" : "<";
            lines.push(`let m = 0;`, `let any = false;`, ...head, ...skip, `  const b = ${val};`, `  if (!any || b ${better} m) {`, `    m = b;`, `    any = true;`, `  }`, `}`, `// ${e.op} of an empty domain is 0`, `return m;`);
            break;
          }
          case "sum_highest": {
            const n = e.n ?? 0;
            if (n <= 0) {
              return { code: "0", prec: P.primary };
            } else if (n <= 8) {
              // the n largest values so far, t0 ≥ t1 ≥ …, -Infinity when not yet filled
              const t = Array.from({ length: n }, (_, i) => `t${i}`);
              lines.push(`let ${t.map((x) => `${x} = -Infinity`).join(", ")};`, ...head, ...skip, `  const b = ${val};`);
              const insert = (i: number, ind: string): string[] =>
                i === 0 ? [`${ind}t0 = b;`] : [`${ind}if (b > t${i - 1}) {`, `${ind}  t${i} = t${i - 1};`, ...insert(i - 1, ind + "  "), `${ind}} else {`, `${ind}  t${i} = b;`, `${ind}}`];
              lines.push(`  if (b > t${n - 1}) {`, ...insert(n - 1, "    "), `  }`, `}`);
              lines.push(`// sum of the ${n} largest (fewer when the domain is smaller)`);
              lines.push(`return ${t.map((x) => `(${x} === -Infinity ? 0 : ${x})`).join(" + ")};`);
            } else {
              lines.push(`const vs: number[] = [];`, ...head, ...skip, `  vs.push(${val});`, `}`, `vs.sort((a, b) => b - a);`, `let n = 0;`, `for (let k = 0; k < vs.length && k < ${n}; k++) n += vs[k]!;`, `return n;`);
            }
            break;
          }
        }
      }
    }
    const name = this.addHelper(`${base}_${suffix}`, params, returnType, lines.join("\n"));
    return { code: `${name}(${args.join(", ")})`, prec: P.primary };
  }
}

/**
 * The parameters of a lifted helper: `state` (unless stateless), then one per free variable (renamed for the
 * helper's scope), with the caller's expressions for them.
 * @throws CodegenError when a free variable is not bound in `ctx` (malformed IR)
 */
function bindFreeVars(fv: Map<string, Type>, ctx: Ctx, stateless = false): { params: Helper["params"]; inner: Map<string, string>; args: string[] } {
  const params: Helper["params"] = stateless ? [] : [{ name: "state", type: "State" }];
  const inner = new Map<string, string>();
  const args = stateless ? [] : ["state"];
  for (const [name, type] of fv) {
    const local = varName(name);
    params.push({ name: local, type: tsType(type) });
    inner.set(name, local);
    const outer = ctx.get(name);
    if (outer === undefined) throw new CodegenError(`unbound variable \`${name}\``);
    args.push(outer);
  }
  return { params, inner, args };
}
