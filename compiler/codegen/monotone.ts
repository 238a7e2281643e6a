/**
 * Syntactic monotonicity of route searches in their parameters, for the route result memo of
 * validators.ts: when `reachable(r(…))` can only gain paths as a parameter grows (or only lose
 * them), one search answers others of the same call — a path found under tighter arguments exists
 * under looser ones, and no path under looser arguments means none under tighter ones.
 *
 * The analysis is sound and incomplete: a parameter it cannot classify is `"eq"` (a memo entry
 * answers only a search with the same value). Booleans are ordered `false < true`.
 */
import type { Expr, IRRoute } from "../ir/types.js";
import { children, freeVars } from "../ir/walk.js";

/**
 * How an expression's value moves when one variable grows: `const` (not at all), `up`
 * (never decreases), `down` (never increases), or null (unknown).
 */
export type Polarity = "const" | "up" | "down" | null;

const flip = (p: Polarity): Polarity => (p === "up" ? "down" : p === "down" ? "up" : p);

/** The polarity of two parts that move the result the same way (both `up` → `up`, …). */
function join(a: Polarity, b: Polarity): Polarity {
  if (a === null || b === null) return null;
  if (a === "const") return b;
  if (b === "const" || a === b) return a;
  return null;
}

/** A literal's value on the order false < true, or a number; undefined for anything else. */
function litValue(e: Expr): number | undefined {
  if (e.k !== "lit") return undefined;
  if (typeof e.value === "boolean") return e.value ? 1 : 0;
  return typeof e.value === "number" ? e.value : undefined;
}

/** The polarity of `e` in the variable `x` (a bool or int variable free in `e`). */
export function polarity(e: Expr, x: string): Polarity {
  if (!freeVars(e).has(x)) return "const";
  switch (e.k) {
    case "var":
      return "up";
    case "not":
    case "neg":
      return flip(polarity(e.arg, x));
    case "and":
    case "or":
      return e.args.reduce<Polarity>((p, a) => join(p, polarity(a, x)), "const");
    case "implies":
      return join(flip(polarity(e.left, x)), polarity(e.right, x));
    case "cmp":
      if (e.op === ">" || e.op === ">=") return join(polarity(e.left, x), flip(polarity(e.right, x)));
      if (e.op === "<" || e.op === "<=") return join(flip(polarity(e.left, x)), polarity(e.right, x));
      return null;
    case "arith":
      if (e.op === "+") return join(polarity(e.left, x), polarity(e.right, x));
      if (e.op === "-") return join(polarity(e.left, x), flip(polarity(e.right, x)));
      return null;
    case "ite": {
      const c = polarity(e.cond, x);
      const t = polarity(e.then, x);
      const f = polarity(e.else, x);
      if (c === "const") return join(t, f);
      // a condition that moves picks between two constants: the larger one as it turns true
      const tv = litValue(e.then);
      const fv = litValue(e.else);
      if (tv === undefined || fv === undefined) return null;
      return tv === fv ? "const" : tv > fv ? c : flip(c);
    }
    case "quant": {
      // `some`/`every` over a domain that does not move keep the body's polarity
      const dom = e.domain.k === "list" ? [e.domain.expr] : e.domain.k === "board" ? e.domain.args : [];
      if (e.var === x || dom.some((d) => freeVars(d).has(x))) return null;
      return polarity(e.body, x);
    }
    default:
      // any other node that reads x (a comparison for equality, a lookup keyed by it, …)
      return children(e).every((c) => !freeVars(c).has(x)) ? "const" : null;
  }
}

/**
 * How a route's search answer moves with each of its parameters, in parameter order: `none` (it
 * never changes the answer), `up` (a larger value never loses a path), `down` (a larger value
 * never adds one), `eq` (unknown: only the same value gives the same answer). A parameter is
 * `up` when every land, sea and port clause, `passes`, `max_seas` and `max_steps` is `up` or `const` in it: a
 * larger value then allows every space, connection and sea count it allowed before.
 */
export function routeDirections(r: IRRoute): ("none" | "up" | "down" | "eq")[] {
  const parts = [r.land, r.sea, r.port, r.passes, ...(r.maxSeas ? [r.maxSeas] : []), ...(r.maxSteps ? [r.maxSteps] : [])];
  return r.params.map((p) => {
    // a parameter that a clause variable shadows: left to equality
    if (p.name === r.landVar || p.name === r.seaVar || p.name === r.portVar) return "eq";
    if (p.type.k !== "bool" && p.type.k !== "int") return parts.some((e) => freeVars(e).has(p.name)) ? "eq" : "none";
    const pol = parts.reduce<Polarity>((acc, e) => join(acc, polarity(e, p.name)), "const");
    return pol === "const" ? "none" : pol === null ? "eq" : pol;
  });
}
