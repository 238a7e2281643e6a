/**
 * The calls the expression checker (expr.ts) hands off: table lookups `t(args)` / `t(args).field`
 * (arguments within the parameters' declared domains, RW3103; a record result needs a field,
 * RW3104), the board builtin `distance(a, b)` (RW3010 for two literal spaces no path joins) and
 * `reachable(route(args), from, to)`.
 */
import type { Span } from "../diagnostics/types.js";
import type { Expr, Type } from "../ir/types.js";
import type { Expr as Ast } from "../syntax/ast.js";
import { boardDistances, unreachableDistance } from "../ir/board.js";
import { DISTANCE } from "./builtins.js";
import { enumType, typeName, type ParamInfo } from "./env.js";
import type { Diagnostic } from "../diagnostics/types.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type { Ctx, Env } from "./env.js";
import type { Resolution } from "./resolution.js";
import type { Reporter } from "./util.js";
import { didYouMean, listedNames, type Help } from "./util.js";
import { intBounds } from "./arith.js";

/** What these checks use of the expression checker (expr.ts `ExprChecker`, which implements it). */
export interface CallChecker {
  readonly env: Env;
  readonly r: Reporter;
  readonly res?: Resolution;
  /** Check `e` against type `want` (RW3001 naming `what`). */
  expect(e: Ast, ctx: Ctx, want: Type, what: string): Expr | undefined;
  /** Check call arguments against parameters (RW3003). */
  args(args: Ast[], params: ParamInfo[], ctx: Ctx, callee: string, span: Span): Expr[] | undefined;
  /** An IR node at a span of the context's file. */
  mk(e: Expr, ctx: Ctx, span: Span): Expr;
  /** Report an error; gives undefined. */
  err(ctx: Ctx, code: DiagnosticCode, msg: string, span: Span, help?: Help, related?: Diagnostic["related"]): undefined;
  /** Record a use of a resolution key at a span. */
  used(ctx: Ctx, span: Span, key: string, type?: Type): void;
}

const BOOL: Type = { k: "bool" };
const INT: Type = { k: "int" };
const distanceCache = new WeakMap<CallChecker, number[][]>();

/**
 * `t(args)` / `t(args).field`: a table lookup. Every argument must lie in its parameter's
 * declared domain (so the lookup never falls outside the table the prover checked): enums and
 * bools by type, a ranged `int` by the argument's known bounds (a literal, a schema
 * `minimum`/`maximum`, or both branches of an `if`).
 */
export function tableCall(x: CallChecker, e: Extract<Ast, { k: "call" }>, ctx: Ctx, field?: { name: string; span: Span }, span?: Span): Expr | undefined {
  const n = e.callee.name;
  const t = x.env.tables!.get(n)!;
  x.used(ctx, e.callee.span, `table:${n}`, t.result);
  if (!t.params || !t.result) return undefined; // its signature already failed
  const args = x.args(e.args, t.params.map((p) => ({ name: p.name, type: p.type, actor: false })), ctx, n, e.span);
  if (!args) return undefined;
  let ok = true;
  args.forEach((a, i) => {
    const p = t.params![i]!;
    if (p.type.k !== "int" || (p.type.min === undefined && p.type.max === undefined)) return;
    const b = intBounds(a, ctx.facts, enumType(x.env, "Space")?.members.length ?? 0);
    const lo = p.type.min ?? -Infinity;
    const hi = p.type.max ?? Infinity;
    if (!b || b[0] < lo || b[1] > hi) {
      ok = false;
      x.err(ctx, "RW3103", `argument \`${p.name}\` of table \`${n}\` may lie outside ${lo}..${hi}${b ? ` (it ranges over ${b[0]}..${b[1]})` : ""}`, e.args[i]!.span,
        `pass a literal, a bounded count or state field, or guard the call: \`${e.args[i]!.k === "name" ? e.args[i]!.name : "x"} >= ${lo === -Infinity ? "…" : lo} and ${e.args[i]!.k === "name" ? e.args[i]!.name : "x"} <= ${hi === Infinity ? "…" : hi} and ${n}(…)\` (the guard before the call, in the same \`and\`)`);
    }
  });
  if (!ok) return undefined;
  const res = t.result;
  if (res.k === "record") {
    if (!field) {
      const names = res.fields.map((f) => f.name);
      return x.err(ctx, "RW3104", `table \`${n}\` gives a record: pick one of its fields`, e.span, `write \`${n}(…).${names[0]}\` (fields: ${names.join(", ")})`);
    }
    const f = res.fields.find((x) => x.name === field.name);
    if (!f) {
      const names = res.fields.map((x) => x.name);
      return x.err(ctx, "RW2001", `table \`${n}\` has no field \`${field.name}\``, field.span, didYouMean(field.name, names, listedNames("fields", names, { verb: "Use", noun: "field" })));
    }
    return x.mk({ k: "table", table: n, args, field: f.name, type: f.type }, ctx, span ?? e.span);
  }
  if (field) {
    return x.err(ctx, "RW3008", `\`.${field.name}\` reads a record field, but table \`${n}\` gives \`${typeName(res)}\``, field.span, "only record-valued tables have fields");
  }
  return x.mk({ k: "table", table: n, args, type: res }, ctx, e.span);
}

/**
 * `distance(a, b)`: Space × Space → int in 0..n (n = the board's space count, the value of a
 * pair no path joins). Two literal spaces the board does not connect are a warning (RW3010):
 * the call is then the constant n, which is almost surely not what the rule means.
 */
export function distanceCall(x: CallChecker, e: Extract<Ast, { k: "call" }>, ctx: Ctx): Expr | undefined {
  const env = x.env;
  const space = enumType(env, "Space");
  if (!space || !env.board) return undefined; // the board failed
  x.used(ctx, e.callee.span, `builtin:${DISTANCE}`, INT);
  const params: ParamInfo[] = [{ name: "from", type: space, actor: false }, { name: "to", type: space, actor: false }];
  const args = x.args(e.args, params, ctx, DISTANCE, e.span);
  if (!args) return undefined;
  const [from, to] = args as [Expr, Expr];
  const n = space.members.length;
  if (from.k === "lit" && to.k === "lit") {
    const order = space.members;
    const i = order.indexOf(String(from.value));
    const j = order.indexOf(String(to.value));
    const far = unreachableDistance(n);
    if (i >= 0 && j >= 0 && distancesOf(x, order)[i]![j] === far) {
      x.r.report("RW3010", `no path on the board joins \`${String(from.value)}\` and \`${String(to.value)}\`: \`distance\` gives ${far} (the space count)`, ctx.file, e.span,
        "check board.json's connections, or compare with a space the board connects");
    }
  }
  return x.mk({ k: "distance", from, to, type: { k: "int", min: 0, max: n } }, ctx, e.span);
}

/** The board's distance matrix in `order`, computed once per checker (one edition). */
function distancesOf(x: CallChecker, order: string[]): number[][] {
  let d = distanceCache.get(x);
  if (!d) distanceCache.set(x, (d = boardDistances(x.env.board!, order)));
  return d;
}

/** `reachable(route(args), from, to)`: a known route (RW2006), its arguments and two spaces. */
export function reachCall(x: CallChecker, e: Extract<Ast, { k: "reach" }>, ctx: Ctx): Expr | undefined {
  const env = x.env;
  const route = env.routes.get(e.route.name);
  if (route) x.used(ctx, e.route.span, `route:${e.route.name}`);
  if (!route) return x.err(ctx, "RW2006", `unknown route \`${e.route.name}\``, e.route.span, didYouMean(e.route.name, env.routes.keys(), "declare it with `route`"));
  const space = enumType(env, "Space");
  if (!route.params || !space) return undefined;
  const args = x.args(e.args, route.params, ctx, e.route.name, e.route.span);
  const from = x.expect(e.from, ctx, space, "the start of `reachable`");
  const to = x.expect(e.to, ctx, space, "the end of `reachable`");
  if (!args || !from || !to) return undefined;
  return x.mk({ k: "reach", route: e.route.name, args, from, to, type: BOOL }, ctx, e.span);
}
