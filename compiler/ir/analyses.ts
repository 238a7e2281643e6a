/**
 * The vocabulary of the prover's analyses, shared by the checker (which reads `@severity`
 * annotations in rule files) and compiler/verify (which runs them). Nothing here knows Z3.
 *
 * Default severities follow DESIGN.md "Verification"; the three analyses DESIGN.md does not
 * list are decided here (see compiler/verify/README.md for the reasoning):
 * - `swallowing_exemption` — warning, like `dead_rule`: a rule an exemption lifts wherever it
 *   would apply is a dead rule whose cause is that exemption;
 * - `stuck_power` — warning: the prover only knows the actions an edition declares, so a state
 *   where every declared move is forbidden is often a gap in what the edition models (Here I
 *   Stand's card play) rather than a contradiction; stuck states caused by obligations are
 *   already errors (`contradiction`, `obligation_clash`).
 * - `table_gap`, `table_overlap` — errors: a result table (dsl/README.md "Tables") that misses an
 *   input of its domain, or matches one input with two rows, gives no single answer for it.
 */

/** Every analysis (proof obligation kind), in report order. */
export const ANALYSES = [
  "contradiction",
  "obligation_clash",
  "always_forbidden",
  "stuck_power",
  "dead_rule",
  "swallowing_exemption",
  "redundant_rule",
  "table_gap",
  "table_overlap",
] as const;
export type AnalysisKind = (typeof ANALYSES)[number];

export type Severity = "error" | "warning" | "info";
/** A severity an annotation may give; `off` keeps the analysis running but never reports it as a finding. */
export type SeverityLevel = Severity | "off";
export const SEVERITY_LEVELS: readonly SeverityLevel[] = ["error", "warning", "info", "off"];

export const DEFAULT_SEVERITY: Record<AnalysisKind, Severity> = {
  contradiction: "error",
  obligation_clash: "error",
  always_forbidden: "error",
  stuck_power: "warning",
  dead_rule: "warning",
  swallowing_exemption: "warning",
  redundant_rule: "info",
  table_gap: "error",
  table_overlap: "error",
};

/** The analyses whose obligations are about one rule or a pair of rules (so a rule may override them). */
export const RULE_ANALYSES: readonly AnalysisKind[] = ["contradiction", "obligation_clash", "dead_rule", "swallowing_exemption", "redundant_rule"];
/** The analyses whose obligations are about an exemption. */
export const EXEMPTION_ANALYSES: readonly AnalysisKind[] = ["swallowing_exemption"];

/**
 * `@severity <analysis> <level> "<note>"` written after a rule's (or exemption's) title: the
 * severity of that analysis for the obligations this rule or exemption is the subject of.
 */
export interface SeverityOverride {
  kind: AnalysisKind;
  level: SeverityLevel;
  /** why (shown in reports, e.g. "§9.6 states this ban twice on purpose") */
  note?: string;
  /** where the annotation is (a `SourcePos` of ./types.ts; spelled out so this file imports nothing) */
  pos: { file: string; line: number; column: number };
}
