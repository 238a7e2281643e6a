/**
 * The parts of `route-exact.ts` that need no encoder: terms with their leaves, search nodes and
 * results, a route's structural key, an int expression's upper bound, and the variables an
 * expression mentions.
 */
import type { Bool } from "z3-solver";
import type { Expr, IRRoute } from "../../ir/types.js";
import { children } from "../../ir/walk.js";

type B = Bool<"main">;

/** The largest value an int expression can take, from literals, `if` branches and int bounds (Infinity when unknown). */
export function upperBound(e: Expr): number {
  if (e.k === "lit" && typeof e.value === "number") return e.value;
  if (e.k === "ite") return Math.max(upperBound(e.then), upperBound(e.else));
  if (e.type.k === "int" && e.type.max !== undefined) return e.type.max;
  return Infinity;
}

/** A term with the leaves it reads. */
export interface Term {
  e: B;
  leaves: Set<string>;
}

/** Structural identity of a route: positions dropped, types shortened to kind and base enum. */
const routeKeys = new WeakMap<IRRoute, string>();
export function routeKey(r: IRRoute): string {
  let key = routeKeys.get(r);
  if (key === undefined) {
    key = JSON.stringify(r, (k, v) => (k === "pos" ? undefined : (k === "type" || k === "varType") && v && typeof v === "object" ? `${v.k}:${v.base ?? ""}` : v));
    routeKeys.set(r, key);
  }
  return key;
}

/** A node of the search: space (board order) and sea zones used. */
export interface Node {
  i: number;
  k: number;
}

/** One instance's search on a model's state (`ExactRouteEncoder.searchIn`). */
export interface Search {
  /** board indices of `from` and `to` */
  s0: number;
  t: number;
  /** the first node at `to`, when reached */
  found?: Node;
  parent: Map<number, Node | null>;
  /** the nodes reached, in search order */
  order: Node[];
  key: (n: Node) => number;
  startOk: boolean;
  startTerms: (Term | null)[];
  stepTerms: (m: Node, n: Node) => (Term | null)[];
  succ: (m: Node) => Node[];
}

/** The conditions of the path a search found (its start, then each step), null for "always". */
export function pathParts(sr: Search): (Term | null)[] {
  const path: Node[] = [];
  for (let n: Node | null = sr.found!; n; n = sr.parent.get(sr.key(n)) ?? null) path.unshift(n);
  const parts: (Term | null)[] = [...sr.startTerms];
  for (let h = 1; h < path.length; h++) parts.push(...sr.stepTerms(path[h - 1], path[h]));
  return parts;
}

/** Every variable name an expression mentions (a superset of its free variables). */
export function varsIn(e: Expr, out = new Set<string>()): Set<string> {
  if (e.k === "var") out.add(e.name);
  for (const c of children(e)) varsIn(c, out);
  return out;
}

/** A route's path in a concrete state as the interpreter gives it (`Interpreter.routePath`): nodes from `from` to `to`, each a space and the sea zones used on arriving there; undefined when there is none. */
export type RoutePathFn = (route: string, args: unknown[], from: string, to: string, state: unknown) => { space: string; k: number }[] | undefined;
