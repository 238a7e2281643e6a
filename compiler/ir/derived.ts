/**
 * Facts derived from an edition's IR that more than one stage reads: which exemptions lift a
 * rule, the actor of an action, the moves of a phase and its decline move. Each is defined here
 * once, so that codegen, the prover, the interpreter, the report and the CLI cannot drift apart.
 *
 * The IR is never changed once lowered: a fact that costs a pass over the edition (`liftedBy`)
 * is computed once and memoised on the IR's own arrays (a `WeakMap`), so an IR built anew, or
 * one whose `rules` / `exemptions` a caller replaced (`{ ...ir, rules }`), gets fresh answers,
 * and nothing is kept alive once the IR is dropped.
 */
import type { IRAction, IREdition, IRExemption, IRParam, IRRule } from "./types.js";

/** Per `ir.exemptions` array: per rule object, the exemptions that lift it. */
const liftMemo = new WeakMap<readonly IRExemption[], WeakMap<IRRule, readonly IRExemption[]>>();

/**
 * The exemptions that lift `rule` (dsl/README.md "Exemptions"): those naming its id, or one of
 * its groups, in declaration order (`ir.exemptions` order; sort by id where an order by id is
 * wanted). A rule fires only when none of them holds. The array is shared: do not change it.
 */
export function liftedBy(ir: Pick<IREdition, "exemptions">, rule: IRRule): readonly IRExemption[] {
  let byRule = liftMemo.get(ir.exemptions);
  if (!byRule) liftMemo.set(ir.exemptions, (byRule = new WeakMap()));
  let lifts = byRule.get(rule);
  if (!lifts) {
    lifts = ir.exemptions.filter((ex) => ex.rules.includes(rule.id) || ex.groups.some((g) => rule.groups.includes(g)));
    byRule.set(rule, lifts);
  }
  return lifts;
}

/** The rules an exemption lifts (the rules whose `liftedBy` holds it), in `ir.rules` order. */
export function liftedRules(ir: Pick<IREdition, "rules" | "exemptions">, exemption: IRExemption): IRRule[] {
  return ir.rules.filter((r) => liftedBy(ir, r).includes(exemption));
}

/** The acting major power's parameter of an action (`actor p: MajorPower`), if it has one (at most one: the checker). */
export function actorParam(a: IRAction): IRParam | undefined {
  return a.params.find((p) => p.actor);
}

/** The name of the actor parameter of the action named `action`; undefined for an action without one, or an unknown action. */
export function actorOf(ir: Pick<IREdition, "actions">, action: string): string | undefined {
  const a = ir.actions.find((x) => x.name === action);
  return a ? actorParam(a)?.name : undefined;
}

/**
 * Whether an action is evaluated from its actor alone (its only parameter is the actor): its
 * oblige rules bind that power whatever else it does, so `check` of every other action of the
 * same actor reports them (docs/CONTRACTS.md "Verdict semantics"), and `obligedActions` lists them.
 */
export function isActorOnly(a: IRAction): boolean {
  return a.params.length === 1 && a.params[0]!.actor;
}

/**
 * The decline move of a phase: the action its `decline <action> during <phase>` declaration
 * names (dsl/README.md, "Declining to act"; the checker makes sure it is choice-free), e.g.
 * `pass` in the Action Phase. Undefined when the edition declares none for the phase (the checker
 * warns, RW2023, if the phase has moves): the stuck-power analysis then takes declining as
 * possible unless an obligation binds the power.
 */
export function declineMove(ir: Pick<IREdition, "declines">, phase: string): string | undefined {
  return (ir.declines ?? []).find((d) => d.phase === phase)?.action;
}

/**
 * The moves of phase `phase` (a member of enum Phase): the actions with an actor and at least
 * one rule scoped (`during`) to it, and the phase's declared decline move (`declineMove`), in
 * declaration order. An action whose rules are never scoped to the phase (a retreat, placing
 * unrest: steps or reactions the rules allow in any phase) is not one of the moves a power
 * chooses from when the phase asks it to act. The prover's stuck-power analysis reads it.
 */
export function phaseMoves(ir: Pick<IREdition, "actions" | "rules" | "declines">, phase: string): IRAction[] {
  const decline = declineMove(ir, phase);
  return ir.actions.filter((a) => actorParam(a) !== undefined && (a.name === decline || ir.rules.some((r) => r.action === a.name && r.scope?.phase === phase)));
}

/**
 * The members of every enum of the edition by name, and of `Space` — the board's space ids in
 * board order — when the rules declare no enum of that name. The value domain of each enum type.
 */
export function enumMembers(ir: Pick<IREdition, "enums" | "board">): Map<string, string[]> {
  const m = new Map<string, string[]>(ir.enums.map((e) => [e.name, e.members]));
  if (!m.has("Space")) m.set("Space", ir.board.spaces.map((s) => s.id));
  return m;
}
