/** generated/<edition>/index.ts: the public API (re-exports and the verdict types). */
import type { InterfaceDeclarationStructure } from "ts-morph";
import { StructureKind } from "ts-morph";
import { header } from "./header.js";
import { actionTypeName, checkerName, type EditionContext } from "./context.js";

const iface = (name: string, docs: string, props: [string, string][]): InterfaceDeclarationStructure => ({
  kind: StructureKind.Interface,
  name,
  isExported: true,
  docs: [docs],
  properties: props.map(([n, t]) => ({ name: n, type: t, isReadonly: true })),
});

/** The statements of generated/<edition>/index.ts. */
export function indexStatements(cx: EditionContext): (string | InterfaceDeclarationStructure)[] {
  const { ir, actions } = cx;
  const fns = ["LEGAL_MOVE_ACTIONS", "brokenInvariants", "checkTrusted", ...actions.map(checkerName), "legalMovesTrusted", "obligedActions"].sort();
  const actionTypes = ["Action", ...actions.map(actionTypeName)].sort();
  const tableFns = ["TABLES", "lookup", "lookupRow", ...cx.lookupNames.values()].sort();
  // record-valued tables export their row type (`<Table>Result`, as tables.ts names it)
  const tableTypes = ["TableInfo", ...cx.resultTypeNames.values()].sort();
  return [
    header(ir, `${ir.title}: generated validators (public API).`),
    [
      `// every type of the state (State, its records such as the cards of a hand, and the enums)`,
      `export type * from "./state.js";`,
      `export type { ${actionTypes.join(", ")} } from "./validators.js";`,
      `export { ${fns.join(", ")} } from "./validators.js";`,
      `// the checked entry points: input checked, an InputError ({ ok: false, errors }) for bad input`,
      `export type { CheckResult, CheckedVerdict, InputError, InputProblem } from "./checked.js";`,
      `export { check, legalMoves, validateAction } from "./checked.js";`,
      `export { ACTIONS, EXEMPTIONS, EXEMPTION_IDS, INVARIANTS, REMOVED_RULES, RULES, RULE_IDS } from "./rules.js";`,
      `export type { ExemptionId, RuleId } from "./rules.js";`,
      `import type { ExemptionId, RuleId } from "./rules.js";`,
      `export * as board from "./board.js";`,
      `export type { ${tableTypes.join(", ")} } from "./tables.js";`,
      `export { ${tableFns.join(", ")} } from "./tables.js";`,
      `export type { StateError } from "./validate-state.js";`,
      `export { isValidState, validateState } from "./validate-state.js";`,
    ].join("\n"),
    iface("Violation", "One rule a verdict reports: a forbid rule that fires, or another action's obligation.", [
      ["rule", "RuleId"],
      ["kind", `"forbid" | "obligation"`],
      ["citation", "string"],
      ["title", "string"],
      ["file", "string"],
      ["line", "number"],
      ["column", "number"],
    ]),
    {
      ...iface("ExplainedViolation", "A violation with its reasons (the checked `check`): the values that made the rule fire, keyed by their spelling in the rules (an action parameter, a side of a comparison, the element a `some` found), and a message (the title and those values).", [
        ["values", "{ readonly [k: string]: unknown }"],
        ["message", "string"],
      ]),
      extends: ["Violation"],
    },
    iface("LiftedRule", "A forbid rule of the action whose scope and condition hold but that exemptions lift (the checked `check`'s `lifted`).", [
      ["rule", "RuleId"],
      ["exemptions", "readonly ExemptionId[]"],
    ]),
    iface("Verdict", "The verdict on one action in one state. `allowed` iff there is no violation.", [
      ["allowed", "boolean"],
      ["violations", "readonly Violation[]"],
      ["obliged", "readonly string[]"],
    ]),
    iface(
      "RuleInfo",
      "A rule of the catalogue. Provenance: `file` defines it; `module` is the module it comes from (null if none); `edition` is the edition (folder) that added it or, when `change` is \"overridden\", overrode it.",
      [
        ["id", "string"],
        ["kind", `"forbid" | "oblige"`],
        ["action", "string"],
        ["citation", "string"],
        ["title", "string"],
        ["groups", "readonly string[]"],
        ["file", "string"],
        ["line", "number"],
        ["column", "number"],
        ["module", "string | null"],
        ["edition", "string"],
        ["change", `"defined" | "added" | "overridden"`],
      ],
    ),
    iface("ExemptionInfo", "An exemption of the catalogue: the groups and rule ids it lifts.", [
      ["id", "string"],
      ["citation", "string"],
      ["title", "string"],
      ["groups", "readonly string[]"],
      ["rules", "readonly string[]"],
      ["file", "string"],
      ["line", "number"],
      ["column", "number"],
      ["module", "string | null"],
      ["edition", "string"],
      ["change", `"defined" | "added"`],
    ]),
    iface("RemovedRuleInfo", "A parent's rule that a variant removed (`remove rule`): where, by which edition, and why.", [
      ["id", "string"],
      ["reason", "string"],
      ["edition", "string"],
      ["file", "string"],
      ["line", "number"],
      ["removedFile", "string"],
      ["removedLine", "number"],
    ]),
    iface("InvariantInfo", "An invariant of the catalogue.", [
      ["id", "string"],
      ["title", "string"],
      ["file", "string"],
      ["line", "number"],
    ]),
    iface("ActionInfo", "An action and its parameters (types as the rules spell them); `encoded`: some rule restricts it; `scope`: its declaration's `during` (the phases, each with its segment, in any of which it is a move; absent: every phase) and `actor active` (only the active power takes it) — legalMoves lists it only there.", [
      ["name", "string"],
      ["params", "readonly { readonly name: string; readonly type: string; readonly actor: boolean }[]"],
      ["encoded", "boolean"],
      ["scope?", "{ readonly during?: readonly { readonly phase: string; readonly segment?: string }[]; readonly activeOnly: boolean; readonly citation: string }"],
    ]),
  ];
}
