/**
 * Proof reports as SARIF 2.1.0 (what GitHub code scanning and other CI viewers read).
 *
 * - one run per edition; `tool.driver.rules` = the analyses (contradiction, …), each with its
 *   default severity as `defaultConfiguration.level` (error → error, warning → warning,
 *   info → note);
 * - one result per refuted or unknown obligation: `ruleId` = the analysis, `level` = the
 *   obligation's severity (an annotation may have changed it), `kind: "fail"`; an unknown
 *   (timeout, deadline, crash) is a result too — "not proved" is a failure for CI — with
 *   `properties.verdict: "unknown"` and the reason;
 * - obligations whose severity is `off` (`@severity … off "why"`) are results with an
 *   `inSource` suppression carrying the note, so viewers show them as suppressed;
 * - locations are positions in rule files (relative to the repository root, `%SRCROOT%`): the
 *   subject rule or exemption first, the other involved rules, exemptions and invariants as
 *   `relatedLocations`; an obligation about an action (always_forbidden, stuck_power) points
 *   at the action's declaration, a table obligation (table_gap, table_overlap) at the table's;
 * - `partialFingerprints["rulewright/obligation"]` is the obligation id (stable across runs).
 * Validated against the official schema in test/verify/prove-ci.test.ts.
 */
import type { IREdition, SourcePos } from "../../ir/types.js";
import { ANALYSES, DEFAULT_SEVERITY, type AnalysisKind, type SeverityLevel } from "../../ir/analyses.js";
import type { ObligationResult, ProofReport } from "../run/results.js";
import { claim, describeTableExample, factText, idInfo, involved, verdictMessage } from "../../ir/verdict-words.js";

export interface FormatInput {
  ir: IREdition;
  report: ProofReport;
  /** the `rulewright check …` command that replays an obligation's counterexample, if any */
  replay?: (o: ObligationResult) => string | undefined;
}

const LEVEL: Record<SeverityLevel, "error" | "warning" | "note" | "none"> = { error: "error", warning: "warning", info: "note", off: "none" };

export const ANALYSIS_TEXT: Record<AnalysisKind, { name: string; short: string; help: string }> = {
  contradiction: {
    name: "Contradiction",
    short: "A state where an action is both obliged and forbidden.",
    help: "An oblige rule and a forbid rule of the same action fire in one state. Narrow one of them, or add an exemption, so the obliged move is legal.",
  },
  obligation_clash: {
    name: "ObligationClash",
    short: "A state where one power is obliged to make two different moves.",
    help: "Two oblige rules of different actions fire for the same power in one state; each obligation forbids the other move. Make the conditions exclusive.",
  },
  always_forbidden: {
    name: "AlwaysForbidden",
    short: "No legal state allows the action at all.",
    help: "The rules in the unsat core forbid the action in every state the invariants allow. One of them is too broad, or an invariant too strong.",
  },
  stuck_power: {
    name: "StuckPower",
    short: "A state of a phase where the active power has no legal move and may not decline.",
    help: "Every action the edition declares is forbidden to the active power for every choice of parameters, and it may not decline (the decline move is forbidden or an obligation binds it). Either the rules are too strict or the edition does not declare a move of that phase.",
  },
  dead_rule: {
    name: "DeadRule",
    short: "The rule can never fire.",
    help: "The rule's condition contradicts its scope or the invariants, or an exemption always lifts it (see the unsat core).",
  },
  swallowing_exemption: {
    name: "SwallowingExemption",
    short: "An exemption lifts a rule wherever the rule applies.",
    help: "The exemption's condition holds in every state where the rule would fire, so the rule never takes effect. Narrow the exemption, or drop the rule from what it lifts.",
  },
  table_gap: {
    name: "TableGap",
    short: "An input of a result table's declared domain matches no row.",
    help: "The table gives no result for the input in the message (its keys shown): add a row for it, widen a neighbouring row's range, or narrow the parameter's declared range.",
  },
  table_overlap: {
    name: "TableOverlap",
    short: "An input of a result table matches two or more rows.",
    help: "The rows named in the message all match the input, so the table's result is ambiguous: make their ranges or guards exclusive.",
  },
  redundant_rule: {
    name: "RedundantRule",
    short: "Other rules already decide every state this rule decides.",
    help: "Every state the rule forbids (obliges) is forbidden (obliged) by the rules in the unsat core. If the rulebook states the rule twice on purpose, mark it `@severity redundant_rule off \"why\"`.",
  },
};

function physical(pos: SourcePos) {
  return {
    artifactLocation: { uri: pos.file.split("\\").join("/"), uriBaseId: "%SRCROOT%" },
    region: { startLine: pos.line, startColumn: pos.column },
  };
}

/** Where an obligation's finding is reported, and what else it involves. */
function locationsOf(ir: IREdition, o: ObligationResult) {
  const ids = involved(o);
  const infos = ids.map((id) => idInfo(ir, id)).filter((x): x is NonNullable<typeof x> => !!x);
  let primary: { pos: SourcePos; name: string; kind: string } | undefined;
  const subject = o.subjects.map((id) => idInfo(ir, id)).find((x) => x);
  const table = o.table === undefined ? undefined : ir.tables?.find((t) => t.name === o.table);
  if (table) primary = { pos: table.pos, name: table.name, kind: "table" };
  else if (subject) primary = { pos: subject.pos, name: subject.id, kind: subject.what };
  else {
    const action = ir.actions.find((a) => a.name === o.action) ?? ir.actions.find((a) => a.params.some((p) => p.actor));
    const phase = ir.enums.find((e) => e.name === "Phase");
    const pos = o.kind === "stuck_power" ? (phase?.pos ?? action?.pos) : action?.pos;
    if (pos) primary = { pos, name: o.kind === "stuck_power" ? `Phase.${o.phase}` : (action?.name ?? o.action), kind: o.kind === "stuck_power" ? "phase" : "action" };
  }
  const related = infos
    .filter((i) => !(primary && i.id === primary.name))
    .map((i, n) => ({
      id: n + 1,
      physicalLocation: physical(i.pos),
      message: { text: `${i.id} (${i.what}${i.citation ? `, ${i.citation}` : ""}): ${i.title}` },
    }));
  return { primary, related };
}

function resultOf(input: FormatInput, o: ObligationResult, ruleIndex: number) {
  const { ir } = input;
  const { primary, related } = locationsOf(ir, o);
  const ex = o.counterexample;
  const lines = [verdictMessage(o, ir)];
  if (o.example) lines.push(`Example: ${describeTableExample(o.kind, o.example)}.`);
  if (ex?.facts?.length) lines.push(`Counterexample${ex.minimal ? " (the facts that matter)" : ""}: ${ex.facts.map(factText).join("; ")}; action ${JSON.stringify(ex.action)}.`);
  if (o.core?.length && o.verdict === "refuted") lines.push(`Unsat core: ${o.core.join(", ")}.`);
  const replay = input.replay?.(o);
  if (replay) lines.push(`Replay: ${replay}`);
  const level = o.severity;
  return {
    ruleId: o.kind,
    ruleIndex,
    kind: "fail",
    level: LEVEL[level],
    message: { text: lines.join(" ") },
    ...(primary
      ? { locations: [{ physicalLocation: physical(primary.pos), logicalLocations: [{ name: primary.name, kind: primary.kind === "rule" || primary.kind === "exemption" ? "member" : "type" }] }] }
      : {}),
    ...(related.length ? { relatedLocations: related } : {}),
    partialFingerprints: { "rulewright/obligation": o.id },
    ...(level === "off" ? { suppressions: [{ kind: "inSource", justification: o.severityNote ?? "@severity off" }] } : {}),
    properties: {
      obligation: o.id,
      edition: o.edition,
      verdict: o.verdict,
      severity: o.severity,
      claim: claim(o),
      ...(o.reason ? { reason: o.reason } : {}),
      ...(o.core ? { core: o.core } : {}),
      ...(o.table !== undefined ? { table: o.table } : {}),
      ...(o.example ? { tableExample: o.example } : {}),
      ...(ex ? { counterexample: { action: ex.action, facts: ex.facts ?? [], replayable: ex.replayable } } : {}),
      ...(replay ? { replay } : {}),
    },
  };
}

/** A SARIF 2.1.0 log of one or more proof reports. */
export function toSarif(inputs: FormatInput[], version: string): Record<string, unknown> {
  const rules = ANALYSES.map((k) => ({
    id: k,
    name: ANALYSIS_TEXT[k].name,
    shortDescription: { text: ANALYSIS_TEXT[k].short },
    fullDescription: { text: `${ANALYSIS_TEXT[k].short} ${ANALYSIS_TEXT[k].help}` },
    help: { text: ANALYSIS_TEXT[k].help },
    defaultConfiguration: { level: LEVEL[DEFAULT_SEVERITY[k]] },
    properties: { tags: ["rulebook-consistency"] },
  }));
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: inputs.map((input) => ({
      tool: { driver: { name: "rulewright", version, semanticVersion: version, rules } },
      automationDetails: { id: `rulewright/prove/${input.report.edition}/` },
      invocations: [{ executionSuccessful: true }],
      properties: { edition: input.report.edition, inputHash: input.report.inputHash, summary: input.report.summary },
      results: input.report.obligations.filter((o) => o.verdict !== "proved").map((o) => resultOf(input, o, ANALYSES.indexOf(o.kind))),
    })),
  };
}
