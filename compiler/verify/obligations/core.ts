/**
 * Reuse by unsat core (README "Incremental proving"): which obligation an unsat core of a verdict
 * stands for. An unsat verdict depends only on the parts its core names, so the prover stores it a
 * second time under the cache key of its core obligation, and a later run whose edits left the
 * core alone reuses it (index.ts). Pure functions of the IR; the cache only stores what they say.
 */
import type { IREdition } from "../../ir/types.js";
import { phaseMoves, type Obligation } from "../../ir/obligations.js";

/**
 * The kinds whose unsat verdict is reused through its unsat core: their query is a conjunction of
 * tracked parts (rules, exemptions, invariants; for stuck_power the phase and one part per move)
 * and the domain facts of the leaves, with no other assertion (encode/queries.ts), so a core that is
 * still asserted, unchanged, is still unsat whatever happened to the other parts.
 */
export const CORE_REUSE_KINDS: ReadonlySet<Obligation["kind"]> = new Set(["redundant_rule", "always_forbidden", "stuck_power"]);

/**
 * The obligation an unsat core of `ob` stands for: `ob` with only the rules the core names (a
 * redundant_rule's subject, `ob.rules[0]`, always kept); keyed by `obligationKeyer`, its key
 * covers those rules, the exemptions lifting them, every invariant, the action and the state
 * type. Undefined when the core cannot stand for `ob` today: it names a rule `ob` no longer has,
 * an invariant the query of `ob` would not assume (`assumed`: the ids of its sliced invariants),
 * or an id that is no rule, exemption or invariant of the edition.
 */
export function coreObligation(ir: IREdition, ob: Obligation, core: readonly string[], assumed: ReadonlySet<string>): Obligation | undefined {
  if (ob.kind === "stuck_power") return stuckCoreObligation(ir, ob, core, assumed);
  const inRules = new Set(ob.rules);
  const named = new Set<string>();
  for (const id of core) {
    if (inRules.has(id)) named.add(id);
    else if (ir.invariants.some((i) => i.id === id)) {
      if (!assumed.has(id)) return undefined;
    } else if (!ir.exemptions.some((e) => e.id === id)) return undefined;
  }
  const subject = ob.kind === "redundant_rule" ? ob.rules[0] : undefined;
  return { ...ob, rules: ob.rules.filter((id) => id === subject || named.has(id)) };
}

/**
 * coreObligation of a stuck_power obligation. Its query (encode/queries.ts stuckQuery) is the phase
 * (with, when the phase declares no decline move, an obligation binding the power) and one part
 * per move `move:<action>`: every choice of the move forbidden, by its forbid rules or an oblige
 * rule of another action. A core names the moves and invariants its proof needs; the obligation
 * it stands for has the forbid rules of those moves and every oblige rule of the phase's
 * obligation (all of them: the binding part and every move part read them), so its key changes
 * with any of them, with the actions, the phase's decline move, the state and the invariants.
 * Undefined when a move of the core is no longer a move of the phase, an invariant is not
 * assumed, an id is unknown, or the edition has no `state.active_power` (the actor is then an
 * action's parameter, chosen by rule order).
 */
function stuckCoreObligation(ir: IREdition, ob: Obligation, core: readonly string[], assumed: ReadonlySet<string>): Obligation | undefined {
  if (!ob.phase) return undefined;
  const phaseMoveList = phaseMoves(ir, ob.phase);
  // the actor is state.active_power when it is an enum of the actors' type (as stuckQuery reads it)
  const actorType = phaseMoveList[0]?.params.find((x) => x.actor)?.type;
  const ap = ir.state.fields.find((f) => f.name === "active_power");
  if (!actorType || actorType.k !== "enum" || ap?.type.k !== "enum" || ap.type.base !== actorType.base) return undefined;
  const moves = new Set(phaseMoveList.map((a) => a.name));
  const used = new Set<string>();
  for (const id of core) {
    if (id.startsWith("move:")) {
      const a = id.slice("move:".length);
      if (!moves.has(a)) return undefined;
      used.add(a);
    } else if (ir.invariants.some((i) => i.id === id)) {
      if (!assumed.has(id)) return undefined;
    } else return undefined;
  }
  const inRules = new Set(ob.rules);
  const rules = ir.rules.filter((r) => inRules.has(r.id) && (r.kind === "oblige" || used.has(r.action))).map((r) => r.id);
  return { ...ob, rules: rules.sort() };
}
