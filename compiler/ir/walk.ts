/**
 * Generic traversal of IR expressions: the direct sub-expressions of a node, so passes that only
 * need to visit (collect variables, positions, …) do not each spell out every node kind.
 */
import type { Domain, Expr, IREdition, Type } from "./types.js";

/** The expressions a quantifier or aggregate domain reads (a list expression, a board fn's args). */
export function domainExprs(d: Domain): Expr[] {
  return d.k === "list" ? [d.expr] : d.k === "board" ? d.args : [];
}

/** The direct sub-expressions of `e`, in source order (domain, then `where`, then body). */
export function children(e: Expr): Expr[] {
  switch (e.k) {
    case "field": return [e.obj];
    case "index": return [e.obj, e.key];
    case "not": case "neg": case "len": return [e.arg];
    case "and": case "or": return e.args;
    case "implies": case "cmp": case "arith": return [e.left, e.right];
    case "ite": return [e.cond, e.then, e.else];
    case "in": return [e.elem, e.set];
    case "setlit": return e.items;
    case "board": return e.args;
    case "reach": return [...e.args, e.from, e.to];
    case "distance": return [e.from, e.to];
    case "table": return e.args;
    case "quant": return [...domainExprs(e.domain), e.body];
    case "agg": return [...domainExprs(e.domain), ...(e.where ? [e.where] : []), ...(e.body ? [e.body] : [])];
    default: return [];
  }
}

/**
 * The root expressions of an edition: every rule's and exemption's `when`, every invariant, every
 * route clause (land, sea, port, max_seas, max_steps, passes), and every table's keys and row guards.
 */
export function editionExprs(ir: IREdition): Expr[] {
  return [
    ...ir.rules.map((r) => r.when),
    ...ir.exemptions.map((x) => x.when),
    ...ir.invariants.map((i) => i.expr),
    ...ir.routes.flatMap((r) => [r.land, r.sea, r.port, ...(r.maxSeas ? [r.maxSeas] : []), ...(r.maxSteps ? [r.maxSteps] : []), r.passes]),
    ...(ir.tables ?? []).flatMap((t) => [...t.keys, ...t.rows.flatMap((row) => (row.guard ? [row.guard] : []))]),
  ];
}

/** Whether `e` or one of its sub-expressions satisfies `pred`. */
export function someExpr(e: Expr, pred: (x: Expr) => boolean): boolean {
  return pred(e) || children(e).some((c) => someExpr(c, pred));
}

/** The routes an expression calls (`reachable(r(…), …)`), added to `out`. */
export function routesIn(e: Expr, out: Set<string>): void {
  if (e.k === "reach") out.add(e.route);
  for (const c of children(e)) routesIn(c, out);
}

/** The result tables an expression looks up, added to `out`. */
export function tablesIn(e: Expr, out: Set<string>): void {
  if (e.k === "table") out.add(e.table);
  for (const c of children(e)) tablesIn(c, out);
}

/**
 * The free variables of `e` — the `var` nodes not bound by an enclosing quantifier or aggregate
 * inside `e` (a binder's variable is bound in its `where` and body, not in its domain) — each
 * with the type of its first occurrence, sorted by name. For a rule's condition: the action
 * parameters it reads; for a route clause: the route's parameters and the clause variable.
 */
export function freeVars(e: Expr): Map<string, Type> {
  const out = new Map<string, Type>();
  const walk = (x: Expr, bound: ReadonlySet<string>): void => {
    if (x.k === "var") {
      if (!bound.has(x.name) && !out.has(x.name)) out.set(x.name, x.type);
    } else if (x.k === "quant" || x.k === "agg") {
      for (const d of domainExprs(x.domain)) walk(d, bound);
      const inner = new Set(bound).add(x.var);
      const scoped = x.k === "quant" ? [x.body] : [...(x.where ? [x.where] : []), ...(x.body ? [x.body] : [])];
      for (const b of scoped) walk(b, inner);
    } else for (const c of children(x)) walk(c, bound);
  };
  walk(e, new Set());
  return new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
