/**
 * Proof obligations as data: what to prove about an edition, independent of Z3.
 * One analysis per kind (compiler/ir/analyses.ts; README.md "Analyses" has the queries):
 *
 * - contradiction (error): one per (oblige rule O, forbid rule F) of the same action —
 *   refuted when a state both obliges and forbids the action (with O's parameter values, when it
 *   names them: `oblige play_card(card: c, as: event)`);
 * - obligation_clash (error): one per pair of oblige rules of two different actions that have
 *   an actor, and per pair of obligations with parameters of one action — refuted when one state
 *   obliges the same power to do both (the latter: with different values);
 * - always_forbidden (error): one per action — refuted when no state allows the action at all
 *   (every forbid rule of the action, every oblige rule of another action of the same actor and
 *   the action's own obligations with parameters are the rules that can make it illegal, see
 *   docs/CONTRACTS.md "Verdict semantics");
 * - stuck_power (warning): one per phase that scopes a rule of an action with an actor —
 *   refuted when, in some state of that phase, the active power may not decline and every
 *   declared action is forbidden to it with every choice of parameters;
 * - dead_rule (warning): one per rule — refuted when the rule can never fire;
 * - swallowing_exemption (warning): one per (exemption E, rule R it lifts) — refuted when R can
 *   apply and E lifts it wherever it applies;
 * - redundant_rule (info): one per rule — refuted when the rule can fire and every state it
 *   forbids (obliges) is already forbidden (obliged) by other rules;
 * - table_gap, table_overlap (error): two per result table, see tables.ts — refuted when an
 *   input of the table's domain matches no row (gap) or two rows (overlap).
 *
 * Severities come from DEFAULT_SEVERITY, changed per rule or exemption by `@severity`
 * annotations (dsl/README.md "Severity annotations").
 */
import { ANALYSES, DEFAULT_SEVERITY, type AnalysisKind, type Severity, type SeverityLevel } from "./analyses.js";
import type { IREdition } from "./types.js";
import { actorOf, liftedBy as liftsOf, phaseMoves } from "./derived.js";

export type ObligationKind = AnalysisKind;
export type { Severity, SeverityLevel } from "./analyses.js";

export interface Obligation {
  /** e.g. `his.contradiction.pass.empty_hand~pass.home_card`, `his.dead_rule.dow.scotland`, `his.stuck_power.action_phase` */
  id: string;
  kind: ObligationKind;
  /** the default of the kind, or the level a `@severity` annotation of a subject gives (`off`: never a finding) */
  severity: SeverityLevel;
  /** why the severity differs from the kind's default (the annotation's note) */
  severityNote?: string;
  edition: string;
  /** the action the obligation is about; `*` for stuck_power (every action with an actor) */
  action: string;
  /**
   * contradiction: [oblige, forbid]; obligation_clash: [oblige, oblige]; dead_rule,
   * redundant_rule: [rule, …the rules that could cover it]; swallowing_exemption: [rule];
   * always_forbidden, stuck_power: every rule that can forbid the action(s); tables: none
   */
  rules: string[];
  /** table_gap / table_overlap: the table (their `action` is "" and `rules` is empty) */
  table?: string;
  /** swallowing_exemption: [exemption] */
  exemptions?: string[];
  /** stuck_power: the phase (a member of enum Phase) */
  phase?: string;
  /** the rules and exemptions the obligation is about: their positions locate a finding, their annotations set its severity */
  subjects: string[];
}

/** @deprecated use DEFAULT_SEVERITY from compiler/ir/analyses.ts (kept for existing importers) */
export const SEVERITY: Record<ObligationKind, Severity> = DEFAULT_SEVERITY;

/** A file-system safe form of an obligation id (also used by the CLI). */
export function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._~-]/g, "_");
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

// actor of an action, lifting exemptions, moves and decline of a phase: pure IR facts (compiler/ir/derived.ts)
export { actorOf, declineMove, liftedBy as liftsOf, phaseMoves } from "./derived.js";

/**
 * The phases with a stuck_power obligation: every phase that scopes (`during`) a rule of an
 * action with an actor, in the order of enum Phase.
 */
export function stuckPhases(ir: IREdition): string[] {
  const scoped = new Set(ir.rules.filter((r) => r.scope && actorOf(ir, r.action)).map((r) => r.scope!.phase));
  const order = ir.enums.find((e) => e.name === "Phase")?.members ?? [];
  return [...scoped].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

/** Every obligation of the edition, sorted by id. */
export function obligationsFor(ir: IREdition): Obligation[] {
  const ed = ir.name;
  const out: Obligation[] = [];
  const mk = (kind: ObligationKind, suffix: string, action: string, rules: string[], subjects: string[], extra: Partial<Obligation> = {}) =>
    out.push({ id: `${ed}.${kind}.${suffix}`, kind, ...severityOf(ir, kind, subjects), edition: ed, action, rules, ...extra, subjects });
  const withActor = new Set(ir.actions.filter((a) => a.params.some((p) => p.actor)).map((a) => a.name));
  /** the rules that can make `action` illegal (docs/CONTRACTS.md "Verdict semantics") */
  const forbiddersOf = (action: string) => {
    const forbids = ir.rules.filter((r) => r.action === action && r.kind === "forbid");
    const others = withActor.has(action) ? ir.rules.filter((r) => r.kind === "oblige" && r.action !== action && withActor.has(r.action)) : [];
    // an obligation with parameters forbids its own action's moves with other values
    const bound = ir.rules.filter((r) => r.action === action && r.bind);
    return [...forbids, ...others, ...bound];
  };
  for (const a of ir.actions) {
    const obliges = ir.rules.filter((r) => r.action === a.name && r.kind === "oblige");
    const forbids = ir.rules.filter((r) => r.action === a.name && r.kind === "forbid");
    for (const o of obliges) for (const f of forbids) mk("contradiction", `${o.id}~${f.id}`, a.name, [o.id, f.id], [o.id, f.id]);
    mk("always_forbidden", a.name, a.name, forbiddersOf(a.name).map((r) => r.id).sort(), []);
  }
  // obligation clash: pairs of oblige rules of two different actions with an actor (each pair once)
  const obliges = ir.rules.filter((r) => r.kind === "oblige" && withActor.has(r.action));
  for (let i = 0; i < obliges.length; i++) {
    for (let j = 0; j < obliges.length; j++) {
      const [o1, o2] = [obliges[i], obliges[j]];
      // two obligations of one action clash only when they name its moves' values (and may differ)
      if ((o1.action === o2.action && !(o1.bind && o2.bind)) || o1.id >= o2.id) continue;
      mk("obligation_clash", `${o1.id}~${o2.id}`, o1.action, [o1.id, o2.id], [o1.id, o2.id]);
    }
  }
  for (const r of ir.rules) {
    mk("dead_rule", r.id, r.action, [r.id], [r.id]);
    // redundant: the other rules that could cover every state this one forbids (obliges)
    const coverers = r.kind === "forbid" ? forbiddersOf(r.action).filter((x) => x.id !== r.id) : ir.rules.filter((x) => x.kind === "oblige" && x.action === r.action && x.id !== r.id);
    mk("redundant_rule", r.id, r.action, [r.id, ...coverers.map((x) => x.id).sort()], [r.id]);
    for (const e of liftsOf(ir, r)) mk("swallowing_exemption", `${e.id}~${r.id}`, r.action, [r.id], [e.id, r.id], { exemptions: [e.id] });
  }
  if (withActor.size)
    for (const p of stuckPhases(ir)) {
      const moves = new Set(phaseMoves(ir, p).map((a) => a.name));
      const rules = ir.rules.filter((r) => moves.has(r.action) || (r.kind === "oblige" && withActor.has(r.action))).map((r) => r.id).sort();
      mk("stuck_power", p, "*", rules, [], { phase: p });
    }
  // result tables: a gap and an overlap obligation each (tables.ts); a finding is located at the table
  for (const t of ir.tables ?? []) for (const kind of ["table_gap", "table_overlap"] as const) mk(kind, t.name, "", [], [], { table: t.name });
  return out.sort(byId);
}

const RANK: Record<SeverityLevel, number> = { off: 0, info: 1, warning: 2, error: 3 };

/**
 * The severity of an obligation of `kind` about `subjects`: the kind's default, unless a subject
 * (rule or exemption) gives one with `@severity` — the most severe such override when several do.
 */
export function severityOf(ir: IREdition, kind: ObligationKind, subjects: string[]): { severity: SeverityLevel; severityNote?: string } {
  let best: { severity: SeverityLevel; severityNote?: string } | undefined;
  for (const id of subjects) {
    const decl = ir.rules.find((r) => r.id === id) ?? ir.exemptions.find((e) => e.id === id);
    const o = decl?.severities?.find((s) => s.kind === kind);
    if (!o) continue;
    if (!best || RANK[o.level] > RANK[best.severity]) best = { severity: o.level, severityNote: o.note ?? `@severity ${kind} ${o.level} on \`${id}\`` };
  }
  return best ?? { severity: DEFAULT_SEVERITY[kind] };
}

/** Kinds in report order (for printing summaries). */
export const KIND_ORDER: readonly ObligationKind[] = ANALYSES;
