/**
 * Cone-of-influence slicing (README "Slicing"): the invariants an obligation needs are those
 * that share state with its rules, directly or through other invariants. The rest are left out
 * of its query.
 *
 * State is compared by **state paths**: the chain of record fields from `state` down to the
 * first map lookup, list or non-field node (`impulse.cp_left`, `spaces`, `wars`); two paths
 * overlap when one is a prefix of the other, segment by segment. A bare `state` overlaps
 * everything. A rule's paths include its scope (`phase`, `segment`), its exemptions and the
 * clauses of every route it calls; a table lookup reads only its arguments.
 *
 * Soundness (solve.ts applies the slice only when it holds): if the default state — what
 * decode.ts gives every leaf no formula mentions — satisfies every invariant, then a query with
 * the invariants of the slice is satisfiable exactly when the query with all of them is (the
 * others share no leaf with it, and their leaves keep their defaults in a decoded example), and
 * an unsat core of the sliced query is one of the whole query.
 */
import type { Expr, IREdition, IRInvariant } from "../../ir/types.js";
import { children } from "../../ir/walk.js";
import { liftsOf, type Obligation } from "../../ir/obligations.js";

/** The state paths an expression reads (see the file comment), added to `out`. */
export function statePaths(e: Expr, ir: IREdition, out: Set<string>, seenRoutes = new Set<string>()): void {
  const chain = fieldChain(e);
  if (chain !== undefined) {
    out.add(chain);
    return;
  }
  if (e.k === "state") {
    out.add("");
    return;
  }
  if (e.k === "reach" && !seenRoutes.has(e.route)) {
    seenRoutes.add(e.route);
    const r = ir.routes.find((x) => x.name === e.route);
    if (r) for (const c of [r.land, r.sea, r.port, ...(r.maxSeas ? [r.maxSeas] : []), ...(r.maxSteps ? [r.maxSteps] : []), r.passes]) statePaths(c, ir, out, seenRoutes);
    else out.add("");
  }
  for (const c of children(e)) statePaths(c, ir, out, seenRoutes);
}

/** `state.a.b` → "a.b"; undefined when `e` is not a chain of fields ending at `state`. */
function fieldChain(e: Expr): string | undefined {
  const names: string[] = [];
  let cur = e;
  while (cur.k === "field") {
    names.unshift(cur.field);
    cur = cur.obj;
  }
  return cur.k === "state" && names.length ? names.join(".") : undefined;
}

/** Whether two state paths overlap (one is a segment prefix of the other; "" overlaps all). */
export function overlaps(a: string, b: string): boolean {
  if (a === "" || b === "" || a === b) return true;
  return a.startsWith(b + ".") || b.startsWith(a + ".");
}

/** The state paths an obligation's own parts read (rules, scopes, exemptions, routes; stuck_power's phase and active power). */
export function obligationPaths(ir: IREdition, ob: Obligation): Set<string> {
  const out = new Set<string>();
  const byId = new Map(ir.rules.map((r) => [r.id, r]));
  const exIds = new Set(ob.exemptions ?? []);
  for (const id of ob.rules) {
    const r = byId.get(id);
    if (!r) continue;
    if (r.scope) {
      out.add("phase");
      if (r.scope.segment !== undefined) out.add("segment");
    }
    statePaths(r.when, ir, out);
    for (const e of liftsOf(ir, r)) exIds.add(e.id);
  }
  for (const e of ir.exemptions) if (exIds.has(e.id)) statePaths(e.when, ir, out);
  if (ob.kind === "stuck_power") {
    out.add("phase");
    out.add("active_power");
    // every oblige rule of an action with an actor may bind the power, and every forbid rule of a move blocks it
    for (const r of ir.rules) statePaths(r.when, ir, out);
    for (const e of ir.exemptions) statePaths(e.when, ir, out);
  }
  return out;
}

/**
 * The invariants in the obligation's cone of influence, in edition order: every invariant whose
 * paths overlap the obligation's, or those of an invariant already taken (to a fixpoint).
 */
export function sliceInvariants(ir: IREdition, ob: Obligation): IRInvariant[] {
  const reach = [...obligationPaths(ir, ob)];
  const inv = ir.invariants.map((i) => {
    const s = new Set<string>();
    statePaths(i.expr, ir, s);
    return { i, paths: [...s] };
  });
  const taken = new Set<IRInvariant>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const x of inv) {
      if (taken.has(x.i)) continue;
      if (x.paths.some((p) => reach.some((q) => overlaps(p, q)))) {
        taken.add(x.i);
        reach.push(...x.paths);
        grew = true;
      }
    }
  }
  return ir.invariants.filter((i) => taken.has(i));
}
