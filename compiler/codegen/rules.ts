/**
 * generated/<edition>/rules.ts: the catalogue (RULES, EXEMPTIONS, REMOVED_RULES, INVARIANTS,
 * ACTIONS) as frozen constant data, sorted by id (actions by name). Rules and exemptions carry
 * their provenance: the defining file, the module (or null) and the edition that added or
 * overrode them (`change`).
 */
import { jsString } from "./escape.js";
import { editionFolder, type IREdition, type Provenance } from "../ir/types.js";
import { header } from "./header.js";
import { dslType, objectLiteral } from "./emit.js";
import { byId, type EditionContext } from "./context.js";

function list(name: string, type: string, doc: string, rows: string[]): string {
  return `/** ${doc} */\nexport const ${name}: ${type} = Object.freeze([\n${rows.map((r) => `  ${r},`).join("\n")}\n]);`;
}

/** `{ …, groups: ["*"] }`: objectLiteral plus array-of-string fields. */
function withArrays(o: Record<string, unknown>, arrays: Record<string, string[]>): string {
  const base = objectLiteral(o);
  const extra = Object.entries(arrays).map(([k, v]) => `${k}: Object.freeze([${v.map((x) => jsString(x)).join(", ")}])`);
  return `${base.slice(0, -2)}, ${extra.join(", ")} }`;
}

/** The provenance columns of a catalogue row (hand-built IR without provenance: this edition defined it). */
function origin(ir: IREdition, p: Provenance | undefined): Record<string, unknown> {
  return { module: p?.module ?? null, edition: p?.edition ?? editionFolder(ir), change: p?.change ?? "defined" };
}

/** The statements of generated/<edition>/rules.ts. */
export function rulesStatements(cx: EditionContext): string[] {
  const { ir } = cx;
  const s: string[] = [header(ir, `The rule catalogue of ${ir.title}.`)];
  s.push(`import type { ActionInfo, ExemptionInfo, InvariantInfo, RemovedRuleInfo, RuleInfo } from "./index.js";`);
  s.push(
    [
      `/** Every rule id, sorted: the values of \`RuleId\`. */`,
      `export const RULE_IDS = Object.freeze([${cx.rules.map((r) => jsString(r.id)).join(", ")}] as const);`,
      `/** A rule id of this edition (\`Violation.rule\`). */`,
      `export type RuleId = (typeof RULE_IDS)[number];`,
      `/** Every exemption id, sorted: the values of \`ExemptionId\`. */`,
      `export const EXEMPTION_IDS = Object.freeze([${cx.exemptions.map((e) => jsString(e.id)).join(", ")}] as const);`,
      `/** An exemption id of this edition. */`,
      `export type ExemptionId = (typeof EXEMPTION_IDS)[number];`,
    ].join("\n"),
  );
  s.push(
    list(
      "RULES",
      "readonly RuleInfo[]",
      "Every rule, sorted by id.",
      cx.rules.map((r) =>
          withArrays(
            { id: r.id, kind: r.kind, action: r.action, citation: r.citation.text, title: r.title, file: r.pos.file, line: r.pos.line, column: r.pos.column, ...origin(ir, r.provenance) },
            { groups: r.groups },
          ),
        ),
    ),
  );
  s.push(
    list(
      "EXEMPTIONS",
      "readonly ExemptionInfo[]",
      "Every exemption, sorted by id: the groups and rule ids it lifts.",
      cx.exemptions.map((e) => withArrays({ id: e.id, citation: e.citation.text, title: e.title, file: e.pos.file, line: e.pos.line, column: e.pos.column, ...origin(ir, e.provenance) }, { groups: e.groups, rules: e.rules })),
    ),
  );
  s.push(
    list(
      "REMOVED_RULES",
      "readonly RemovedRuleInfo[]",
      "Rules of a parent edition that this variant (or an ancestor variant) removed, sorted by id.",
      byId(ir.removed ?? []).map((x) => objectLiteral({ id: x.id, reason: x.reason, edition: x.edition, file: x.pos.file, line: x.pos.line, removedFile: x.removedPos.file, removedLine: x.removedPos.line })),
    ),
  );
  s.push(
    list(
      "INVARIANTS",
      "readonly InvariantInfo[]",
      "Every invariant, sorted by id.",
      cx.invariants.map((i) => objectLiteral({ id: i.id, title: i.title, file: i.pos.file, line: i.pos.line })),
    ),
  );
  s.push(
    list(
      "ACTIONS",
      "readonly ActionInfo[]",
      "Every action with its parameters (types as the rules spell them), whether some rule restricts it (`encoded`; legalMoves leaves the others out unless asked) and its declared scope, sorted by name.",
      cx.actions.map((a) => {
        const sc = a.scope;
        const during = sc?.during ? `during: Object.freeze([${sc.during.map((d) => `Object.freeze(${objectLiteral({ phase: d.phase, ...(d.segment !== undefined ? { segment: d.segment } : {}) })})`).join(", ")}]), ` : "";
        const scope = sc ? `, scope: Object.freeze({ ${during}${objectLiteral({ activeOnly: sc.activeOnly, citation: sc.citation.text }).slice(2)})` : "";
        const encoded = cx.rules.some((r) => r.action === a.name);
        return `{ name: ${jsString(a.name)}, params: Object.freeze([${a.params.map((p) => objectLiteral({ name: p.name, type: dslType(p.type), actor: p.actor })).join(", ")}]), encoded: ${encoded}${scope} }`;
      }),
    ),
  );
  return s;
}
