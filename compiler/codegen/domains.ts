/**
 * The finite domain of each parameter of an action, for `legalMoves` (legal-moves.ts): enums and
 * booleans range over their values; an `int`, `string` or `list<string>` parameter ranges over
 * what a forbid rule of the action bounds it to — a rule that holds wherever the action's scope
 * holds (unscoped, or scoped to the action's `during`) and that no exemption lifts, so every value
 * outside the domain is forbidden by it:
 *
 * - `int n`: `n < c or …` (a literal lower bound) and `n > e or …` (an upper bound `e` read from
 *   the state and the parameters bound before `n`): `c..e`;
 * - `string s`: `not (some v in L: v.f = s and …)`: the distinct `v.f` of the elements of `L` that
 *   meet the other conjuncts;
 * - `list<string> xs`: `some x in xs: not (some v in L: v.f = x and …)`: the subsets of that set
 *   (without repeats, in `L`'s order; a list with a repeated or reordered value is not listed);
 * - a board space `b` (a parameter of type `Space`, the board's enum): `not adjacent(a, b) or …`,
 *   also as `not (… and adjacent(a, b) and …)`, with `a` a space parameter bound before `b`: the
 *   spaces connected to `a` (`neighbors(a)`, in the enum's order, as the plain enum loop would
 *   meet them) instead of every space — his `move_formation`'s destination (move.connection).
 *
 * Parameters are bound in declaration order; a bound may read only the parameters before it.
 */
import type { Expr, IRAction, IRParam, IRRule } from "../ir/types.js";
import { actorParam } from "../ir/derived.js";
import { freeVars } from "../ir/walk.js";
import type { EditionContext } from "./context.js";
import { dslType } from "./emit.js";

/** How `legalMoves` binds one parameter. */
export type ParamDomain =
  | { k: "enum"; param: IRParam; name: string }
  | { k: "bool"; param: IRParam }
  | { k: "int"; param: IRParam; lo: number; hi: Expr }
  | { k: "member" | "subset"; param: IRParam; list: Expr; elemVar: string; field: string; filter?: Expr; max: number }
  /** the spaces connected to the earlier space parameter `of` (board `neighbors`, in space order) */
  | { k: "neighbors"; param: IRParam; name: string; of: string };

/** The domains of an action's parameters but the actor, in declaration order, or why there are none. */
export type EnumerationPlan = { domains: ParamDomain[] } | { skip: string };

const flat = (e: Expr, k: "and" | "or"): Expr[] => (e.k === k ? e.args.flatMap((x) => flat(x, k)) : [e]);
const isVar = (e: Expr, name: string): boolean => e.k === "var" && e.name === name;

/** Whether `e` reads only the variables in `ok`. */
function readsOnly(e: Expr, ok: ReadonlySet<string>): boolean {
  for (const v of freeVars(e).keys()) if (!ok.has(v)) return false;
  return true;
}

/** The rules that may bound a parameter: forbid rules of the action, in force wherever its scope holds, that no exemption lifts. */
function boundingRules(cx: EditionContext, a: IRAction): IRRule[] {
  const during = a.scope?.during;
  // a scoped rule is in force wherever the action's scope holds when each phase of it lies within the rule's
  const within = (rs: NonNullable<IRRule["scope"]>): boolean =>
    during !== undefined && during.every((d) => rs.phase === d.phase && (rs.segment === undefined || rs.segment === d.segment));
  return cx.rules.filter((r) => r.action === a.name && r.kind === "forbid" && cx.lifts(r).length === 0 && (!r.scope || within(r.scope)));
}

/** `not (some v in L: v.f = x and rest)` → L, v, f and rest (rest may not read x). */
function membership(e: Expr, x: string, bound: ReadonlySet<string>): { list: Expr; elemVar: string; field: string; filter?: Expr } | undefined {
  if (e.k !== "not" || e.arg.k !== "quant" || e.arg.q !== "some" || e.arg.domain.k !== "list") return undefined;
  const q = e.arg;
  const list = q.domain.k === "list" ? q.domain.expr : undefined;
  if (!list || !readsOnly(list, bound)) return undefined;
  const conj = flat(q.body, "and");
  const i = conj.findIndex(
    (c) =>
      c.k === "cmp" &&
      c.op === "=" &&
      ((c.left.k === "field" && isVar(c.left.obj, q.var) && isVar(c.right, x)) || (c.right.k === "field" && isVar(c.right.obj, q.var) && isVar(c.left, x))),
  );
  if (i < 0) return undefined;
  const eq = conj[i] as Extract<Expr, { k: "cmp" }>;
  const fieldExpr = (eq.left.k === "field" ? eq.left : eq.right) as Extract<Expr, { k: "field" }>;
  if (fieldExpr.type.k !== "string") return undefined;
  const rest = conj.filter((_, j) => j !== i);
  const inner = new Set([...bound, q.var]);
  if (!rest.every((c) => readsOnly(c, inner))) return undefined;
  const filter: Expr | undefined = rest.length === 0 ? undefined : rest.length === 1 ? rest[0] : { k: "and", args: rest, type: { k: "bool" } };
  return { list, elemVar: q.var, field: fieldExpr.field, ...(filter ? { filter } : {}) };
}

/**
 * The negated conjuncts a condition is true by, at its top (`A or not B or not (C and D)` → B, C,
 * D): each is forbidden-by-its-absence — the condition holds wherever one of them is false.
 */
function negatedAtTop(e: Expr): Expr[] {
  return flat(e, "or").flatMap((d) => (d.k !== "not" ? [] : d.arg.k === "and" ? flat(d.arg, "and") : [d.arg]));
}

/** `b`'s domain as the neighbours of an earlier space parameter, from a bounding rule's `not adjacent(a, b)` (see the header), or undefined. */
function neighborDomain(p: IRParam, rules: readonly IRRule[], spaceParams: ReadonlySet<string>): ParamDomain | undefined {
  if (p.type.k !== "enum") return undefined;
  for (const r of rules) {
    for (const c of negatedAtTop(r.when)) {
      if (c.k !== "board" || c.fn !== "adjacent") continue;
      const [a, b] = c.args;
      if (a?.k === "var" && spaceParams.has(a.name) && b !== undefined && isVar(b, p.name)) return { k: "neighbors", param: p, name: p.type.name, of: a.name };
    }
  }
  return undefined;
}

/** The domain of one non-enum parameter from the bounding rules, or undefined. */
function derived(p: IRParam, rules: readonly IRRule[], bound: ReadonlySet<string>): ParamDomain | undefined {
  if (p.type.k === "int") {
    let lo: number | undefined;
    let hi: Expr | undefined;
    for (const r of rules) {
      for (const d of flat(r.when, "or")) {
        if (d.k !== "cmp") continue;
        const [op, l, rt] = d.left.k === "var" ? [d.op, d.left, d.right] : d.op === "<" ? [">", d.right, d.left] : d.op === ">" ? ["<", d.right, d.left] : [d.op, d.left, d.right];
        if (!isVar(l, p.name)) continue;
        if (op === "<" && rt.k === "lit" && typeof rt.value === "number") lo = Math.max(lo ?? rt.value, rt.value);
        else if (op === ">" && hi === undefined && readsOnly(rt, bound)) hi = rt;
      }
    }
    return lo !== undefined && hi !== undefined ? { k: "int", param: p, lo, hi } : undefined;
  }
  if (p.type.k === "string") {
    for (const r of rules) {
      const m = membership(r.when, p.name, bound);
      if (m) return { k: "member", param: p, ...m, max: 1 };
    }
    return undefined;
  }
  if (p.type.k === "list" && p.type.elem.k === "string") {
    for (const r of rules) {
      const w = r.when;
      if (w.k !== "quant" || w.q !== "some" || w.domain.k !== "list" || !isVar(w.domain.expr, p.name)) continue;
      const m = membership(w.body, w.var, bound);
      if (m) return { k: "subset", param: p, ...m, max: p.type.bound };
    }
  }
  return undefined;
}

/** How `legalMoves` enumerates an action's moves, or why it does not. */
export function enumerationPlan(cx: EditionContext, a: IRAction): EnumerationPlan {
  const me = actorParam(a);
  if (!me) return { skip: "no actor parameter" };
  const rules = boundingRules(cx, a);
  const bound = new Set<string>([me.name]);
  const domains: ParamDomain[] = [];
  const bad: IRParam[] = [];
  // the parameters of the board's space type bound so far (those `neighbors` may range from); a
  // sub-enum of it is left alone (its plain loop meets only its members, `neighbors` every space)
  const spaceParams = new Set<string>();
  for (const p of a.params) {
    if (p.actor) continue;
    let d: ParamDomain | undefined;
    const isSpace = cx.ir.board !== undefined && p.type.k === "enum" && p.type.name === "Space";
    if (p.type.k === "enum") d = (isSpace ? neighborDomain(p, rules, spaceParams) : undefined) ?? { k: "enum", param: p, name: p.type.name };
    else if (p.type.k === "bool") d = { k: "bool", param: p };
    else d = derived(p, rules, bound);
    if (d) domains.push(d);
    else bad.push(p);
    bound.add(p.name);
    if (isSpace) spaceParams.add(p.name);
  }
  if (bad.length) return { skip: `parameter ${bad.map((p) => `\`${p.name}: ${dslType(p.type)}\``).join(", ")} ranges over no finite domain (no rule bounds it)` };
  return { domains };
}
