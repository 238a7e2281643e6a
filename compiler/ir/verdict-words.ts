/**
 * Words for verdicts: what an obligation claims, what its refutation means, which declaration an
 * id names (rule, exemption, invariant) and where it is, and a fact in readable form. Shared by
 * the text report, SARIF, JUnit, `rulewright explain` and the language server. Pure functions of
 * the IR and a proof report (proof-report.ts).
 */
import type { IREdition, SourcePos } from "./types.js";
import type { Fact, ObligationResult, TableExample } from "./proof-report.js";

export interface IdInfo {
  id: string;
  what: "rule" | "exemption" | "invariant" | "table";
  pos: SourcePos;
  /** `his §11` (rules and exemptions) */
  citation?: string;
  title: string;
}

/** The declaration an id of a report (rules, core, subjects, a table obligation's table) names. */
export function idInfo(ir: IREdition, id: string): IdInfo | undefined {
  const r = ir.rules.find((x) => x.id === id);
  if (r) return { id, what: "rule", pos: r.pos, citation: r.citation.text, title: r.title };
  const e = ir.exemptions.find((x) => x.id === id);
  if (e) return { id, what: "exemption", pos: e.pos, citation: e.citation.text, title: e.title };
  const i = ir.invariants.find((x) => x.id === id);
  if (i) return { id, what: "invariant", pos: i.pos, title: i.title };
  const t = ir.tables?.find((x) => x.name === id);
  if (t) return { id, what: "table", pos: t.pos, citation: t.citation.text, title: t.title };
  return undefined;
}

export const posText = (p: SourcePos) => `${p.file}:${p.line}:${p.column}`;

/** `count(state.hands[france]) = 0`, `state.phase = action_phase`, `action.target = scotland`. */
export function factText(f: Fact): string {
  const v = typeof f.value === "string" ? f.value : JSON.stringify(f.value);
  if (f.path.endsWith("#len")) return `count(${f.path.slice(0, -4)}) = ${v}`;
  return `${f.path} = ${v}`;
}

const q = (s: string) => `\`${s}\``;

/** The other ids of a core (without the subject and without invariants), for "covered by" messages. */
function others(o: ObligationResult, ir: IREdition): string[] {
  return (o.core ?? []).filter((id) => id !== o.rules[0] && !ir.invariants.some((i) => i.id === id));
}

/** One sentence: what the obligation's verdict means for the designer. */
export function verdictMessage(o: ObligationResult, ir: IREdition): string {
  const [a, b] = o.rules;
  if (o.verdict === "unknown") return `not proved: ${claim(o)} (${o.reason ?? "unknown"})`;
  if (o.verdict === "proved") return o.vacuous ? `proved, vacuously: ${o.reason ?? claim(o)}` : `proved: ${claim(o)}`;
  switch (o.kind) {
    case "contradiction":
      return `a state obliges ${q(o.action)} (${q(a)}) and forbids it (${q(b)}) at once`;
    case "obligation_clash": {
      const other = ir.rules.find((r) => r.id === b)?.action ?? "?";
      return `a state obliges one power to ${q(o.action)} (${q(a)}) and to ${q(other)} (${q(b)}), and each obligation forbids the other move`;
    }
    case "always_forbidden":
      return `no legal state allows ${q(o.action)}: ${(o.core ?? []).map(q).join(", ")} forbid it everywhere`;
    case "stuck_power": {
      const s = o.stuck;
      const blocked = s?.blocked.map((x) => `${x.action}${x.everyChoice ? " (every choice)" : ""}: ${x.rules.length ? x.rules.join(", ") : x.everyChoice ? "each choice forbidden by another rule, no one rule forbids them all" : "forbidden, no rule named"}`).join("; ");
      const decline = s?.decline ? `declining (${q(s.decline)}) is forbidden too` : `it may not decline: ${s?.obliged.map(q).join(", ") || "an obligation"} binds it`;
      return `in ${q(o.phase ?? "?")} the active power${s ? ` (${s.actor})` : ""} can be left with no legal move — ${blocked ?? "every declared action is forbidden"}; ${decline}`;
    }
    case "dead_rule": {
      const ex = (o.core ?? []).filter((id) => ir.exemptions.some((e) => e.id === id));
      return ex.length ? `${q(a)} can never take effect: ${ex.map(q).join(", ")} lift${ex.length > 1 ? "" : "s"} it wherever it would fire` : `${q(a)} can never fire`;
    }
    case "swallowing_exemption":
      return `${q(o.exemptions?.[0] ?? "?")} lifts ${q(a)} wherever ${q(a)} applies: the rule never takes effect`;
    case "table_gap":
    case "table_overlap":
      return o.kind === "table_gap" ? `table ${q(o.table ?? "?")} has a gap: an input of its declared domain matches no row` : `table ${q(o.table ?? "?")} has overlapping rows: an input matches two or more rows`;
    case "redundant_rule":
      return `every state ${q(a)} ${ir.rules.find((r) => r.id === a)?.kind === "oblige" ? "obliges" : "forbids"} is already covered by ${others(o, ir).map(q).join(", ") || "other rules"}`;
  }
}

/** What the obligation claims (its proof statement). */
export function claim(o: ObligationResult | { kind: string; rules: string[]; action: string; phase?: string; exemptions?: string[]; table?: string }): string {
  const [a, b] = o.rules;
  switch (o.kind) {
    case "contradiction":
      return `no state both obliges ${q(o.action)} (${q(a)}) and forbids it (${q(b)})`;
    case "obligation_clash":
      return `no state obliges one power to obey both ${q(a)} and ${q(b)}`;
    case "always_forbidden":
      return `some legal state allows ${q(o.action)}`;
    case "stuck_power":
      return `in every ${q(o.phase ?? "?")} state the active power has a legal move or may decline`;
    case "dead_rule":
      return `${q(a)} fires in some legal state`;
    case "swallowing_exemption":
      return `${q(a)} applies in some state where ${q(o.exemptions?.[0] ?? "?")} does not lift it`;
    case "redundant_rule":
      return `${q(a)} alone decides some state (no other rule covers it)`;
    case "table_gap":
      return `every input of table ${q(o.table ?? "?")} in its declared domain matches some row`;
    case "table_overlap":
      return `no input of table ${q(o.table ?? "?")} matches two rows`;
    default:
      return o.kind;
  }
}

/** The rules, exemptions and invariants a finding involves, most relevant first (a table obligation's table, subjects, core, rules). */
export function involved(o: ObligationResult): string[] {
  const ids = [...o.subjects, ...(o.core ?? []), ...(o.kind === "stuck_power" ? (o.stuck?.blocked.flatMap((b) => b.rules) ?? []) : o.kind === "always_forbidden" || o.kind === "redundant_rule" ? [] : o.rules)];
  if (o.kind === "stuck_power") ids.push(...(o.stuck?.obliged ?? []));
  if (o.table !== undefined) ids.unshift(o.table);
  return [...new Set(ids)];
}

/**
 * A one-line description of a refuted table obligation's example (tables.ts): `roll 8, conquistador 0,
 * smallpox false (total 8): no row matches`, or the rows that match an input two or more times.
 */
export function describeTableExample(kind: string, ex: TableExample): string {
  const ins = Object.entries(ex.inputs).map(([k, v]) => `${k} ${v}`).join(", ");
  const keys = ex.keys.filter((k) => !(k.label in ex.inputs)).map((k) => `${k.label} = ${k.value}`);
  const where = keys.length ? ` (${keys.join(", ")})` : "";
  if (kind === "table_gap") return `${ins}${where}: no row matches`;
  const files = [...new Set(ex.rows.map((r) => r.file))];
  const all = ex.rows.length === 2 ? "both" : "all";
  if (files.length === 1) {
    const lines = ex.rows.map((r) => String(r.line));
    return `${ins}${where}: rows ${lines.slice(0, -1).join(", ")} and ${lines[lines.length - 1]} of ${files[0]} ${all} match`;
  }
  return `${ins}${where}: rows ${ex.rows.map((r) => `${r.file}:${r.line}`).join(", ")} ${all} match`;
}
