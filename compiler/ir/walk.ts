/**
 * Generic traversal of IR expressions: the direct sub-expressions of a node, so passes that only
 * need to visit (collect variables, positions, …) do not each spell out every node kind.
 */
import type { Domain, Expr, IREdition } from "./types.js";

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
 * route clause (land, sea, port, max_seas, passes), and every table's keys and row guards.
 */
export function editionExprs(ir: IREdition): Expr[] {
  return [
    ...ir.rules.map((r) => r.when),
    ...ir.exemptions.map((x) => x.when),
    ...ir.invariants.map((i) => i.expr),
    ...ir.routes.flatMap((r) => [r.land, r.sea, r.port, ...(r.maxSeas ? [r.maxSeas] : []), r.passes]),
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
