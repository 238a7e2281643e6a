/**
 * Hover: what the name under the cursor is, in Markdown — a rule's kind, action, phase, title,
 * citation per edition, its reading in English (reading.ts) and the verdicts of its proof
 * obligations (proof-verdicts.ts); an exemption's targets; an invariant's reading; an action's
 * parameters and rule count; a field's type and description from the schema; a table's signature;
 * a def's reading; an enum's members; a local's type.
 */
import path from "node:path";
import type { Span } from "../diagnostics/types.js";
import type { Decl, RuleDecl } from "../syntax/ast.js";
import type { FeatureContext } from "./context.js";
import { verdictLines } from "./proof-verdicts.js";
import { readExpr, readRule } from "./reading.js";
import { occurrenceAt, typeRefText, type EditionIndex, type Occurrence } from "./symbols.js";

/** The hover of the name at a 1-based line and column of `file`: Markdown and the span it is about, or undefined. */
export function hover(ctx: FeatureContext, file: string, line: number, column: number): { markdown: string; span: Span } | undefined {
  // the occurrence from the symbol index of the file's own edition (the folder it is in, else the
  // first edition that includes it); the other editions that include the file add their
  // citations and verdicts from their IRs without an index of their own: the first hover after
  // an edit builds one index, not one per edition
  const dirs = ctx.project.editionsOf(file);
  const own = dirs.find((d) => d === path.dirname(file)) ?? dirs[0];
  let found: { index: EditionIndex; occ: Occurrence } | undefined;
  if (own) {
    const index = ctx.index(own);
    const occ = occurrenceAt(index, file, line, column);
    if (occ) found = { index, occ };
  }
  found ??= ctx.at(file, line, column)[0];
  if (!found) return undefined;
  const { index, occ } = found;
  const md = describe(ctx, index, occ, [index, ...dirs.filter((d) => d !== index.dir).map((dir) => ({ dir }))]);
  return md ? { markdown: md, span: occ.span } : undefined;
}

function findDecl(index: EditionIndex, pred: (d: Decl) => boolean): { decl: Decl; file: string } | undefined {
  return index.decls.find((x) => pred(x.decl));
}

function describe(ctx: FeatureContext, index: EditionIndex, occ: Occurrence, all: readonly { dir: string }[]): string | undefined {
  const rel = (f: string) => ctx.project.rel(f);
  const name = occ.name;
  switch (occ.kind) {
    case "rule": {
      const found = findDecl(index, (d) => (d.k === "rule" && d.id.name === name) || (d.k === "override" && d.rule.id.name === name));
      if (!found) return `**rule** \`${name}\` (not declared in this edition)`;
      const r: RuleDecl = found.decl.k === "override" ? found.decl.rule : (found.decl as RuleDecl);
      const lines = [
        `**rule** \`${r.id.name}\` — ${r.kind} \`${r.action.name}\`${r.during ? ` during \`${r.during.phase.name}${r.during.segment ? "." + r.during.segment.name : ""}\`` : ""}`,
        "",
        `"${r.title}"`,
        "",
        `**Citation:** ${citationText(ctx, all, r.id.name, r.citations.map((c) => `${c.key ? c.key.name + " " : ""}§${c.named ? `"${c.value}"` : c.value}`).join(", "))}`,
        "",
        `**Reads:** ${readRule(r)}`,
        "",
        `Declared in ${rel(found.file)}:${r.id.span.line}${found.decl.k === "override" ? " (overrides the parent's rule)" : ""}${r.groups.length ? ` · groups ${r.groups.map((g) => `(${g.name})`).join(" ")}` : ""}`,
      ];
      lines.push("", ...verdictLines(ctx, all, r.id.name));
      return lines.join("\n");
    }
    case "exempt": {
      const found = findDecl(index, (d) => d.k === "exempt" && d.id.name === name);
      if (!found || found.decl.k !== "exempt") return undefined;
      const e = found.decl;
      return [
        `**exemption** \`${name}\` — lifts ${e.targets.map((t) => (t.k === "group" ? `(${t.group.name})` : `\`${t.id.name}\``)).join(", ")}`,
        "", `"${e.title}"`, "", `**Reads:** the lifted rules do not apply when ${readExpr(e.when)}`, "", ...verdictLines(ctx, all, name),
      ].join("\n");
    }
    case "invariant": {
      const found = findDecl(index, (d) => d.k === "invariant" && d.id.name === name);
      if (!found || found.decl.k !== "invariant") return undefined;
      return [`**invariant** \`${name}\` — a fact about every legal state (the prover assumes it)`, "", `"${found.decl.title}"`, "", `**Reads:** ${readExpr(found.decl.expr)}`].join("\n");
    }
    case "action": {
      const found = findDecl(index, (d) => d.k === "action" && d.name.name === name);
      if (!found || found.decl.k !== "action") return `**action** \`${name}\` (not declared)`;
      const a = found.decl;
      const rules = index.decls.filter((x) => (x.decl.k === "rule" && x.decl.action.name === name) || (x.decl.k === "override" && x.decl.rule.action.name === name));
      const forbids = rules.filter((x) => (x.decl.k === "override" ? x.decl.rule.kind : (x.decl as RuleDecl).kind) === "forbid").length;
      return [
        "```rules", `action ${name}(${a.params.map((p) => `${p.actor ? "actor " : ""}${p.name.name}: ${typeRefText(p.type)}`).join(", ")})`, "```",
        `**Parameters:** ${a.params.map((p) => `\`${p.name.name}\`: \`${typeRefText(p.type)}\`${p.actor ? " (the acting power)" : ""}`).join(", ")}`,
        "", `${forbids} forbid and ${rules.length - forbids} oblige rule(s) in this edition · declared in ${rel(found.file)}:${a.name.span.line}`,
      ].join("\n");
    }
    case "field": {
      const schema = index.schema;
      const desc = schema?.description(occ.schema);
      return [`**state field** \`${name}\`: \`${occ.type ?? "?"}\``, ...(desc ? ["", desc] : []), "", `declared in ${schema ? rel(schema.file) : "the state schema"}${occ.schema ? ` at \`${occ.schema.pointer}\`` : ""}`].join("\n");
    }
    case "table": {
      const found = findDecl(index, (d) => d.k === "table" && d.name.name === name);
      if (!found || found.decl.k !== "table") return undefined;
      const t = found.decl;
      const result = t.result.k === "type" ? typeRefText(t.result.type) : `{ ${t.result.fields.map((f) => `${f.name.name}: ${typeRefText(f.type)}`).join(", ")} }`;
      return [
        "```rules", `table ${name}(${t.params.map((p) => `${p.name.name}: ${typeRefText(p.type)}${p.range ? ` in ${p.range.min}..${p.range.max}` : ""}`).join(", ")}): ${result}`, "```",
        `"${t.title}"`, "", `**Citation:** ${t.citations.map((c) => `${c.key ? c.key.name + " " : ""}§${c.named ? `"${c.value}"` : c.value}`).join(", ")} · ${t.rows.length} rows`,
        "", ...verdictLines(ctx, all, name),
      ].join("\n");
    }
    case "def": {
      const found = findDecl(index, (d) => d.k === "def" && d.name.name === name);
      if (!found || found.decl.k !== "def") return undefined;
      const d = found.decl;
      return ["```rules", `def ${name}(${d.params.map((p) => `${p.name.name}: ${typeRefText(p.type)}`).join(", ")}): ${typeRefText(d.ret)}`, "```", `**Reads:** ${readExpr(d.body)}`].join("\n");
    }
    case "route": {
      const found = findDecl(index, (d) => d.k === "route" && d.name.name === name);
      if (!found || found.decl.k !== "route") return undefined;
      return ["```rules", `route ${name}(${found.decl.params.map((p) => `${p.name.name}: ${typeRefText(p.type)}`).join(", ")})`, "```", "a path over the board (`reachable(…)`)"].join("\n");
    }
    case "enum": {
      const e = index.enums.get(name);
      if (!e) return `**enum** \`${name}\``;
      const shown = e.members.length > 24 ? [...e.members.slice(0, 24), "…"] : e.members;
      return [`**enum** \`${name}\`${e.base ? ` (a subset of \`${e.base}\`)` : ""} — ${e.members.length} members`, "", shown.map((m) => `\`${m}\``).join(", ")].join("\n");
    }
    case "member": {
      const root = occ.key.slice("member:".length).split(".")[0]!;
      const subsets = [...index.enums.values()].filter((e) => e.base && e.members.includes(name)).map((e) => `\`${e.name}\``);
      return `**enum member** \`${name}\` of \`${root}\`${subsets.length ? ` (also in ${subsets.join(", ")})` : ""}`;
    }
    case "param":
    case "local":
      return `**${occ.kind === "param" ? "parameter" : "variable"}** \`${name}\`${occ.type ? `: \`${occ.type}\`` : ""}`;
    default:
      return undefined;
  }
}


/** The citation each edition shows (from its IR), or the citations as written. */
function citationText(ctx: FeatureContext, all: readonly { dir: string }[], id: string, written: string): string {
  const shown = new Set<string>();
  for (const idx of all) {
    const ir = ctx.project.lastGood.get(idx.dir);
    const r = ir?.rules.find((x) => x.id === id);
    if (r) shown.add(`${r.citation.text} (in \`${path.basename(idx.dir)}\`)`);
  }
  return shown.size ? [...shown].join(" · ") : written;
}

