/**
 * Findings in words (issue 25): one explanation of an obligation's verdict, shared by the CLI
 * (`prove`, `explain`), the language server's hover and the rulebook report. Pure functions of the
 * IR and a proof result (proof-report.ts); imports nothing outside compiler/ir, so the report and
 * the language server use it without loading the prover.
 *
 * An explanation says what the analysis asks (`ANALYSIS_WORDS`, also the report's list of
 * analyses), what this verdict means ("proved" for dead_rule means the rule can fire), the
 * finding in the rule's terms (verdict-words.ts `verdictMessage`, the CLI's sentence), the
 * declarations of the unsat core as data a page can link, and the command that replays a
 * counterexample.
 */
import { ANALYSES, DEFAULT_SEVERITY, type AnalysisKind, type Severity } from "./analyses.js";
import type { ObligationResult } from "./proof-report.js";
import type { IREdition } from "./types.js";
import { idInfo, verdictMessage } from "./verdict-words.js";

/** What an analysis asks, and what each verdict of it means, in a designer's words. */
export interface AnalysisWords {
  kind: AnalysisKind;
  /** its name in words ("dead rule") */
  name: string;
  /** the question it answers, one sentence */
  asks: string;
  /** what "proved" means */
  proved: string;
  /** what "refuted" means */
  refuted: string;
  /** the severity of a refutation unless a rule's `@severity` says otherwise */
  severity: Severity;
}

const WORDS: Record<AnalysisKind, Omit<AnalysisWords, "kind" | "severity">> = {
  contradiction: {
    name: "contradiction",
    asks: "Can one state both oblige an action (an `oblige` rule) and forbid it (a `forbid` rule)?",
    proved: "No state obliges the action and forbids it at once: the two rules never clash.",
    refuted: "Some state obliges the action and forbids it at once: a player cannot obey both rules.",
  },
  obligation_clash: {
    name: "obligation clash",
    asks: "Can one state oblige the same power to make two different moves?",
    proved: "No state obliges one power to make both moves.",
    refuted: "Some state obliges one power to make two different moves, and each obligation forbids the other move.",
  },
  always_forbidden: {
    name: "always forbidden",
    asks: "Is the action allowed in at least one legal state?",
    proved: "The action is allowed in some legal state (the witness shows one).",
    refuted: "The action is forbidden in every legal state: no player can ever take it.",
  },
  stuck_power: {
    name: "stuck power",
    asks: "In every state of the phase, does the active power have a legal move, or may it decline to act?",
    proved: "In every state of the phase the active power has a legal move or may decline.",
    refuted: "Some state of the phase leaves the active power with no legal move and no way to decline.",
  },
  dead_rule: {
    name: "dead rule",
    asks: "Can the rule fire: does some legal state meet its condition with no exemption lifting it?",
    proved: "The rule can fire: some legal state triggers it (the witness shows one). It is not dead.",
    refuted: "The rule can never fire: no legal state meets its condition, or an exemption lifts it wherever it would.",
  },
  swallowing_exemption: {
    name: "swallowing exemption",
    asks: "Does the exemption leave the rule it lifts some state to apply in?",
    proved: "The exemption leaves the rule some state where it still applies.",
    refuted: "The exemption lifts the rule wherever the rule would apply: the rule never takes effect.",
  },
  redundant_rule: {
    name: "redundant rule",
    asks: "Does the rule decide some state on its own, where no other rule forbids (or obliges) the same?",
    proved: "The rule alone decides some state: removing it would change a verdict (the witness shows one).",
    refuted: "Every state the rule decides is decided by other rules too: removing it changes no verdict (often on purpose, when the rulebook states a ban twice).",
  },
  table_gap: {
    name: "table gap",
    asks: "Does every input of the table's declared domain match some row?",
    proved: "Every input of the table's domain matches a row.",
    refuted: "Some input of the table's domain matches no row: the table gives no answer for it.",
  },
  table_overlap: {
    name: "table overlap",
    asks: "Does each input of the table match at most one row?",
    proved: "No input matches two rows.",
    refuted: "Some input matches two or more rows: the table gives two answers for it.",
  },
};

/** Every analysis with its words, in report order: the data of the report's "analyses" page. */
export function analysisList(): AnalysisWords[] {
  return ANALYSES.map((kind) => ({ kind, ...WORDS[kind], severity: DEFAULT_SEVERITY[kind] }));
}

/** The words of one analysis (undefined for a kind this version does not know). */
export function analysisWords(kind: string): AnalysisWords | undefined {
  return (ANALYSES as readonly string[]).includes(kind) ? { kind: kind as AnalysisKind, ...WORDS[kind as AnalysisKind], severity: DEFAULT_SEVERITY[kind as AnalysisKind] } : undefined;
}

/** A declaration of an unsat core, as a page links it. */
export interface CoreEntry {
  id: string;
  what: "rule" | "exemption" | "invariant" | "table";
  title: string;
  citation?: string;
  file: string;
  line: number;
}

/** One obligation's verdict explained. */
export interface Explanation {
  kind: string;
  verdict: ObligationResult["verdict"];
  /** the question the analysis answers */
  asks: string;
  /** what this verdict means, one sentence ("The rule can fire: …"); for unknown, why it was not decided */
  means: string;
  /** the finding in the rule's terms (verdict-words.ts `verdictMessage`) */
  finding: string;
  /** the rules, exemptions and invariants of the unsat core, in core order (ids the IR does not know are left out) */
  core: CoreEntry[];
  /** the command that replays the counterexample, when it was written to files */
  replay?: string;
}

/** What a verdict means, one sentence: the analysis's words for it, why it is vacuous, or why it is unknown. */
export function verdictMeaning(o: Pick<ObligationResult, "kind" | "verdict" | "vacuous" | "reason">): string {
  const w = analysisWords(o.kind);
  if (o.verdict === "unknown") return `Not decided: ${o.reason ?? "the prover gave no answer"}.`;
  if (o.verdict === "refuted") return w?.refuted ?? "Refuted.";
  if (o.vacuous) return `Proved only because its subject never applies${o.reason ? ` (${o.reason})` : ""}.`;
  return w?.proved ?? "Proved.";
}

/** The command that replays a counterexample written to `stateFile` and `actionFile` (paths as `prove` wrote them). */
export function replayCommandFor(editionDir: string, stateFile: string, actionFile: string): string {
  return `npx rulewright check --edition ${editionDir} --state ${stateFile} --action ${actionFile}`;
}

/**
 * The explanation of an obligation's verdict. `editionDir` is the edition as `check --edition`
 * takes it (`dsl/his`); the counterexample's `stateFile`/`actionFile` (as report.json holds them)
 * give the replay command.
 */
export function explainObligation(
  o: ObligationResult & { counterexample?: { stateFile?: string; actionFile?: string } },
  ir: IREdition,
  editionDir = `dsl/${ir.folder ?? ir.name}`,
): Explanation {
  const w = analysisWords(o.kind);
  const means = verdictMeaning(o);
  const core: CoreEntry[] = [];
  for (const id of o.core ?? []) {
    const info = idInfo(ir, id);
    if (info) core.push({ id, what: info.what, title: info.title, ...(info.citation ? { citation: info.citation } : {}), file: info.pos.file, line: info.pos.line });
  }
  const ex = o.counterexample;
  const replay = ex?.stateFile && ex.actionFile ? replayCommandFor(editionDir, ex.stateFile, ex.actionFile) : undefined;
  return { kind: o.kind, verdict: o.verdict, asks: w?.asks ?? o.kind, means, finding: verdictMessage(o, ir), core, ...(replay ? { replay } : {}) };
}
