/**
 * Proof obligations as data: what to prove about an edition, independent of Z3.
 *
 * - contradiction (error): one per (oblige rule O, forbid rule F) of the same action —
 *   refuted when a state both obliges and forbids the action;
 * - always_forbidden (error): one per action — refuted when no state allows the action at all
 *   (every forbid rule of the action and every oblige rule of another action of the same actor
 *   are the rules that can make it illegal, see CONTRACTS.md "Verdict semantics");
 * - dead_rule (warning): one per rule — refuted when the rule can never fire.
 * - table_gap, table_overlap (error): two per result table, see tables.ts (`tableObligations`).
 */
import type { IREdition } from "../ir/types.js";

export type ObligationKind = "contradiction" | "always_forbidden" | "dead_rule" | "table_gap" | "table_overlap";
export type Severity = "error" | "warning" | "info";

export interface Obligation {
  /** e.g. `his.contradiction.pass.empty_hand~pass.home_card`, `his.dead_rule.dow.scotland` */
  id: string;
  kind: ObligationKind;
  severity: Severity;
  edition: string;
  action: string;
  /** contradiction: [oblige, forbid]; dead_rule: [rule]; always_forbidden: every rule that can forbid it; tables: none */
  rules: string[];
  /** table_gap / table_overlap: the table (their `action` is "") */
  table?: string;
}

export const SEVERITY: Record<ObligationKind, Severity> = {
  contradiction: "error",
  always_forbidden: "error",
  dead_rule: "warning",
  table_gap: "error",
  table_overlap: "error",
};

/** A file-system safe form of an obligation id (also used by the CLI). */
export function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._~-]/g, "_");
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The actor param name of an action, if it has one. */
export function actorOf(ir: IREdition, action: string): string | undefined {
  return ir.actions.find((a) => a.name === action)?.params.find((p) => p.actor)?.name;
}

/** Every obligation of the edition, sorted by id. */
export function obligationsFor(ir: IREdition): Obligation[] {
  const ed = ir.name;
  const out: Obligation[] = [];
  const mk = (kind: ObligationKind, suffix: string, action: string, rules: string[]) =>
    out.push({ id: `${ed}.${kind}.${suffix}`, kind, severity: SEVERITY[kind], edition: ed, action, rules });
  for (const a of ir.actions) {
    const obliges = ir.rules.filter((r) => r.action === a.name && r.kind === "oblige");
    const forbids = ir.rules.filter((r) => r.action === a.name && r.kind === "forbid");
    for (const o of obliges) for (const f of forbids) mk("contradiction", `${o.id}~${f.id}`, a.name, [o.id, f.id]);
    const others = actorOf(ir, a.name)
      ? ir.rules.filter((r) => r.kind === "oblige" && r.action !== a.name && actorOf(ir, r.action) !== undefined)
      : [];
    mk("always_forbidden", a.name, a.name, [...forbids, ...others].map((r) => r.id).sort());
  }
  for (const r of ir.rules) mk("dead_rule", r.id, r.action, [r.id]);
  return out.sort(byId);
}
