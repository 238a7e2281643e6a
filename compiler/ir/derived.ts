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
import type { Expr, IRAction, IREdition, IRExemption, IRParam, IRRule, Type } from "./types.js";

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
 * Whether an oblige rule binds its actor to one move (docs/CONTRACTS.md "Verdict semantics"): an
 * obligation of an action whose one parameter is its actor, or one that names the values of the
 * other parameters (`oblige play_card(card: c, as: event)`, `IRRule.bind`). Such a rule, when it
 * fires for a power, makes every other action of that power a violation, and (with `bind`) every
 * move of its own action with other values. False for forbid rules.
 */
export function bindsActor(a: IRAction, r: IRRule): boolean {
  return r.kind === "oblige" && (isActorOnly(a) || r.bind !== undefined);
}

/**
 * "The move makes the obligation's values" as an expression: ⋀ param = value over an obligation
 * with parameters (`IRRule.bind`), each parameter read as a variable of its action `a` (the
 * prover's encoding of an obliged move; the validators and the interpreter compare the values).
 */
export function bindEquals(o: IRRule, a: IRAction): Expr {
  const BOOL: Type = { k: "bool" };
  const eqs: Expr[] = o.bind!.map((b) => ({ k: "cmp", op: "=", left: { k: "var", name: b.param, type: a.params.find((p) => p.name === b.param)!.type }, right: b.value, type: BOOL }));
  return eqs.length === 1 ? eqs[0]! : { k: "and", args: eqs, type: BOOL };
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
