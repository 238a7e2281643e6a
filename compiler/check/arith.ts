/**
 * The expression forms a designer reaches for (issue 28), checked and lowered for expr.ts:
 *
 * - `a / k`: integer division rounding down (toward −∞), the divisor a positive integer literal
 *   (RW3011 otherwise): the IR `arith` op `/`, which the prover encodes as `div` by a constant
 *   (linear arithmetic) and the validators as `Math.floor(a / k)` (exact within ±(2^53−1)).
 * - `min(a, b)`, `max(a, b)`: lowered to `if a <= b then a else b` (`>=` for max), so every
 *   backend reads them as an `ite`.
 * - `x in E` with `E` an enum (a subset like `PlayedPower`): lowered to `x in {members of E}`.
 * - known bounds of an int expression (`intBounds`), narrowed by the guards before it in an
 *   `and` chain or on the left of `implies` (`guardFacts`): a table argument (RW3103) may be a
 *   `count(…)`, a `count(list)`, a `distance`, a sum of those, or anything the guards bound.
 */
import type { Span } from "../diagnostics/types.js";
import type { Domain, Expr, Type } from "../ir/types.js";
import type { Expr as Ast } from "../syntax/ast.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import { comparable, enumType, typeName, type Ctx, type Env, type Facts } from "./env.js";
import type { Help } from "./util.js";

const BOOL: Type = { k: "bool" };
const INT: Type = { k: "int" };

/** What arith.ts uses of the expression checker (expr.ts `ExprChecker`, which implements it). */
export interface ArithChecker {
  readonly env: Env;
  /** Check an expression (with an expected type for an ambiguous member). */
  expr(e: Ast, ctx: Ctx, expected?: Type): Expr | undefined;
  /** An IR node at a span of the context's file. */
  mk(e: Expr, ctx: Ctx, span: Span): Expr;
  /** Report an error; gives undefined. */
  err(ctx: Ctx, code: DiagnosticCode, msg: string, span: Span, help?: Help): undefined;
  /** Record a use of a resolution key at a span. */
  used(ctx: Ctx, span: Span, key: string, type?: Type): void;
}

/**
 * `a / k`: `left` and `right` already checked as ints; the divisor must be a positive integer
 * literal (RW3011 at it otherwise). Gives the IR `arith` node with op `/`.
 */
export function divide(x: ArithChecker, left: Expr, right: Expr, rightAst: Ast, ctx: Ctx, span: Span): Expr | undefined {
  const k = right.k === "lit" && typeof right.value === "number" ? right.value : right.k === "neg" ? -1 : undefined;
  if (k === undefined || k < 1) {
    return x.err(ctx, "RW3011", k === undefined ? "`/` divides by a positive integer literal, not by an expression" : `\`/\` divides by a positive integer literal, not by ${k === 0 ? "0" : "a negative number"}`,
      rightAst.span, "write the divisor as a number, e.g. `state.units / 2` (the quotient rounds down)");
  }
  return x.mk({ k: "arith", op: "/", left, right, type: INT }, ctx, span);
}

/** `min(a, b)` / `max(a, b)` (RW3003 for `sum(a, b)`): lowered to an `ite` over `<=` / `>=`. */
export function pick(x: ArithChecker, e: Extract<Ast, { k: "pick" }>, ctx: Ctx): Expr | undefined {
  if (e.op === "sum") return x.err(ctx, "RW3003", "`sum(…)` adds up a domain, `sum(x in D: …)`; two numbers are added with `+`", e.span, "write `a + b`, or `sum(x in D: body)`");
  const a = x.expr(e.left, ctx, INT);
  const b = x.expr(e.right, ctx, INT);
  if (!a || !b) return undefined;
  for (const [v, ast] of [[a, e.left], [b, e.right]] as const) {
    if (v.type.k !== "int") return x.err(ctx, "RW3002", `\`${e.op}(a, b)\` takes two \`int\`s, found \`${typeName(v.type)}\``, ast.span, "use integer expressions here");
  }
  const cond = x.mk({ k: "cmp", op: e.op === "min" ? "<=" : ">=", left: a, right: b, type: BOOL }, ctx, e.span);
  return x.mk({ k: "ite", cond, then: a, else: b, type: INT }, ctx, e.span);
}

/**
 * `x in E`, `E` an enum name (a subset enum such as `PlayedPower : Power`): `x` must be a value of
 * E's base enum; lowered to `x in {E's members}`. Undefined (and nothing reported) when `right` is
 * not an enum name, so the caller checks it as a set or a list.
 */
export function inEnum(x: ArithChecker, left: Ast, right: Ast, ctx: Ctx, span: Span): Expr | undefined | "not-enum" {
  if (right.k !== "name" || ctx.scope.has(right.name) || !x.env.enums.has(right.name)) return "not-enum";
  const set = enumType(x.env, right.name)!;
  x.used(ctx, right.span, `enum:${right.name}`);
  const base = enumType(x.env, set.base) ?? set;
  const elem = x.expr(left, ctx, base);
  if (!elem) return undefined;
  if (!comparable(elem.type, set)) {
    return x.err(ctx, "RW3001", `\`${typeName(elem.type)}\` tested against enum \`${set.name}\` (members of \`${set.base}\`)`, left.span, `test a \`${set.base}\` value`);
  }
  const items = set.members.map((m) => x.mk({ k: "lit", value: m, type: base }, ctx, right.span));
  const setlit = x.mk({ k: "setlit", items, type: { k: "list", elem: base, bound: items.length } }, ctx, right.span);
  return x.mk({ k: "in", elem, set: setlit, type: BOOL }, ctx, span);
}

/** A structural key of an IR expression: its shape without positions or types. */
export function irKey(e: Expr): string {
  return JSON.stringify(e, (k, v) => (k === "pos" || k === "type" ? undefined : v));
}

/**
 * The bounds that hold after `cond` is true: each conjunct `e >= n`, `e > n`, `e <= n`, `e < n`,
 * `e = n` (or with the literal on the left) bounds `e`. Added to `into` (intersected).
 */
export function guardFacts(cond: Expr, into: Map<string, readonly [number, number]>): void {
  const conj = cond.k === "and" ? cond.args : [cond];
  for (const c of conj) {
    if (c.k !== "cmp" || c.op === "!=") continue;
    const litL = c.left.k === "lit" && typeof c.left.value === "number";
    const litR = c.right.k === "lit" && typeof c.right.value === "number";
    if (litL === litR) continue;
    const subject = litR ? c.left : c.right;
    const n = (litR ? c.right : c.left) as Extract<Expr, { k: "lit" }>;
    const v = n.value as number;
    // normalize to `subject op v`
    const op = litR ? c.op : ({ "<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=" } as const)[c.op];
    const b: [number, number] = op === "=" ? [v, v] : op === ">=" ? [v, Infinity] : op === ">" ? [v + 1, Infinity] : op === "<=" ? [-Infinity, v] : [-Infinity, v - 1];
    const key = irKey(subject);
    const old = into.get(key);
    into.set(key, old ? [Math.max(old[0], b[0]), Math.min(old[1], b[1])] : b);
  }
}

/**
 * Known [min, max] of an int expression, or undefined: a literal, a bounded int type (schema
 * bounds, `distance`), `count(x in D …)` 0..|D|, `count(list)` 0..its bound, `+`/`-`/`*`, `/`, an
 * `if` of those; narrowed by `facts` (the guards before it).
 * @param spaces the board's space count (the size of a board domain)
 */
export function intBounds(e: Expr, facts: Facts | undefined, spaces: number): [number, number] | undefined {
  const own = ownBounds(e, facts, spaces);
  const f = facts?.get(irKey(e));
  if (!f) return own;
  const lo = Math.max(own?.[0] ?? -Infinity, f[0]);
  const hi = Math.min(own?.[1] ?? Infinity, f[1]);
  return Number.isFinite(lo) && Number.isFinite(hi) ? [lo, hi] : undefined;
}

function ownBounds(e: Expr, facts: Facts | undefined, spaces: number): [number, number] | undefined {
  const b = (x: Expr) => intBounds(x, facts, spaces);
  if (e.k === "lit" && typeof e.value === "number") return [e.value, e.value];
  if (e.k === "ite") {
    const a = b(e.then);
    const c = b(e.else);
    return a && c ? [Math.min(a[0], c[0]), Math.max(a[1], c[1])] : undefined;
  }
  if (e.k === "agg" && e.op === "count") return [0, domainSize(e.domain, spaces)];
  if (e.k === "len") return e.arg.type.k === "list" ? [0, e.arg.type.bound] : undefined;
  if (e.k === "arith") {
    const l = b(e.left);
    const r = b(e.right);
    if (!l || !r) return undefined;
    if (e.op === "+") return [l[0] + r[0], l[1] + r[1]];
    if (e.op === "-") return [l[0] - r[1], l[1] - r[0]];
    if (e.op === "/") return [Math.floor(l[0] / r[0]), Math.floor(l[1] / r[0])];
    const ps = [l[0] * r[0], l[0] * r[1], l[1] * r[0], l[1] * r[1]];
    return [Math.min(...ps), Math.max(...ps)];
  }
  if (e.k === "neg") {
    const a = b(e.arg);
    return a && [-a[1], -a[0]];
  }
  if (e.type.k === "int" && e.type.min !== undefined && e.type.max !== undefined) return [e.type.min, e.type.max];
  return undefined;
}

function domainSize(d: Domain, spaces: number): number {
  if (d.k === "enum") return d.type.members.length;
  if (d.k === "board") return spaces;
  return d.expr.type.k === "list" ? d.expr.type.bound : 0;
}
