/**
 * What the language server answers, as plain functions of the project (no connection here, so
 * they can be tested and timed without a client): diagnostics per file, hover, definition,
 * references, document and workspace symbols, completion, rename, code actions, semantic tokens
 * and folding ranges. Positions in and out are LSP positions (0-based line, UTF-16 character);
 * the compiler's spans are 1-based with an exclusive end column (compiler/diagnostics/types.ts).
 *
 * Proof verdicts come from the proof cache, `proofs/.cache/<edition dir>.json.gz` (the verdicts
 * `rulewright prove` stored, keyed by what each obligation depends on: so they hold for the rules
 * as they are in the editor, edits included), and from the last prove report,
 * `proofs/<edition folder>/report.json` under the project root; this module never starts a prove
 * (it lists the obligations and computes their cache keys, compiler/verify/obligations.ts and
 * cache.ts, and never loads the solver).
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { IToken } from "chevrotain";
import {
  CompletionItemKind, DiagnosticSeverity, InsertTextFormat, SymbolKind, FoldingRangeKind, CodeActionKind,
  type CodeAction, type CompletionItem, type Diagnostic as LspDiagnostic, type DocumentSymbol, type FoldingRange,
  type Hover, type Location, type Position, type Range, type SymbolInformation, type TextEdit, type WorkspaceEdit,
} from "vscode-languageserver";
import type { Diagnostic, Span, Suggestion } from "../diagnostics/types.js";
import type { IREdition } from "../ir/types.js";
import type { Decl, RuleDecl } from "../syntax/ast.js";
import { KEYWORDS, RulesLexer } from "../syntax/tokens.js";
import type { ObligationResult, ProofReport } from "../verify/index.js";
import type { Obligation } from "../verify/obligations.js";
import { ProofCache } from "../verify/cache.js";
import { keyedFor } from "./keys.js";
import { readExpr, readRule } from "./reading.js";
import { buildIndex, occurrenceAt, typeRefText, type EditionIndex, type Occurrence } from "./symbols.js";
import type { Project } from "./project.js";
import { commentRanges } from "../fmt/comments.js";

export const uriOf = (abs: string): string => pathToFileURL(abs).href;

export function toRange(s: Span): Range {
  return { start: { line: s.line - 1, character: s.column - 1 }, end: { line: s.endLine - 1, character: Math.max(0, s.endColumn - 1) } };
}

/** One compiler diagnostic as an LSP diagnostic: same code, the help as a second line. */
export function toLspDiagnostic(d: Diagnostic, root: string): LspDiagnostic {
  return {
    range: toRange(d.span),
    severity: d.severity === "error" ? DiagnosticSeverity.Error : d.severity === "warning" ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information,
    code: d.code,
    source: "rulewright",
    message: d.help ? `${d.message}\nhelp: ${d.help}` : d.message,
    data: { help: d.help, ...(d.suggestions?.length ? { suggestions: d.suggestions } : {}) },
    ...(d.related?.length
      ? { relatedInformation: d.related.map((r) => ({ message: r.message, location: { uri: uriOf(path.resolve(root, r.pos.file)), range: { start: { line: r.pos.line - 1, character: r.pos.column - 1 }, end: { line: r.pos.line - 1, character: r.pos.column - 1 } } } })) }
      : {}),
  };
}

/** Proof reports read from disk, re-read when the file changes (by mtime). */
class Reports {
  private cache = new Map<string, { mtime: number; report?: ProofReport }>();
  constructor(private root: string) {}
  get(folder: string): { file: string; report: ProofReport } | undefined {
    const file = path.join(this.root, "proofs", folder, "report.json");
    let mtime: number;
    try {
      mtime = fs.statSync(file).mtimeMs;
    } catch {
      return undefined;
    }
    const hit = this.cache.get(file);
    if (hit && hit.mtime === mtime) return hit.report ? { file, report: hit.report } : undefined;
    let report: ProofReport | undefined;
    try {
      report = JSON.parse(fs.readFileSync(file, "utf8")) as ProofReport;
      if (!Array.isArray(report.obligations)) report = undefined;
    } catch {
      report = undefined;
    }
    this.cache.set(file, { mtime, report });
    return report ? { file, report } : undefined;
  }
}


/**
 * Proof caches read from disk (`proofs/.cache/`, as `rulewright prove` writes them), re-read when
 * the file changes (by mtime), and the cache keys of an IR's obligations (memoized per IR).
 */
class Caches {
  private stores = new Map<string, { mtime: number; cache: ProofCache }>();
  /** the proof caches the server's background proving keeps loaded (proving.ts), read instead of the files */
  loaded?: (editionRel: string) => ProofCache | undefined;
  /** per IR: its obligations and their cache keys, each key computed when first asked for (a hover keys only the rule's obligations) */
  constructor(private root: string) {}
  /** The store of an edition folder, read (gunzip, parse) only when its file changed since the last read; undefined without a file. */
  store(editionRel: string): { file: string; store: { mtime: number; cache: ProofCache } } | undefined {
    const mine = this.loaded?.(editionRel);
    if (mine) return { file: mine.file, store: { mtime: 0, cache: mine } };
    const dir = path.join(this.root, "proofs", ".cache");
    const file = ProofCache.fileFor(dir, editionRel);
    let mtime: number;
    try {
      mtime = fs.statSync(file).mtimeMs;
    } catch {
      return undefined;
    }
    let store = this.stores.get(file);
    if (!store || store.mtime !== mtime) this.stores.set(file, (store = { mtime, cache: new ProofCache(dir, editionRel) }));
    return { file, store };
  }

  /** The verdicts the cache holds for `ir`'s obligations about `id` (in obligation order; undefined: not in the cache), or undefined without a cache file. */
  lookup(editionRel: string, ir: IREdition, about: (o: Obligation) => boolean): { file: string; hits: { ob: Obligation; hit?: ObligationResult }[] } | undefined {
    const got = this.store(editionRel);
    if (!got) return undefined;
    const { file, store } = got;
    const k = this.keyedFor(ir);
    const hits: { ob: Obligation; hit?: ObligationResult }[] = [];
    k.obligations.forEach((ob) => {
      if (!about(ob)) return;
      const r = store!.cache.get(k.key(ob));
      hits.push({ ob, hit: r ? ({ ...ob, ...r, cached: true, ms: 0 } as ObligationResult) : undefined });
    });
    return { file, hits };
  }

  /** The obligations of an IR and their key function (the edition's shared parts hashed once). */
  keyedFor(ir: IREdition): { obligations: Obligation[]; key: (ob: Obligation) => string } {
    return keyedFor(ir);
  }
}

/** What one obligation's verdict means for the rule under the cursor, in a few words. */
export function verdictWords(o: ObligationResult, id: string): string {
  const others = o.rules.filter((r) => r !== id);
  const core = o.core?.filter((c) => c !== id) ?? [];
  const unknown = `unknown${o.reason ? ` (${o.reason})` : ""}`;
  if (o.verdict === "unknown") return `${o.kind}: ${unknown}`;
  const ok = o.verdict === "proved";
  switch (o.kind) {
    case "dead_rule":
      return ok ? "dead_rule: proved — it can fire" : `dead_rule: **refuted — it never fires**${core.length ? ` (because of ${core.map((c) => `\`${c}\``).join(", ")})` : ""}`;
    case "redundant_rule":
      return ok ? `redundant_rule: proved — some state only it decides${o.vacuous ? " (vacuous: it never fires)" : ""}` : `redundant_rule: **refuted — other rules already decide every state it decides**${core.length ? ` (${core.map((c) => `\`${c}\``).join(", ")})` : ""}`;
    case "contradiction":
      return ok ? `contradiction with ${others.map((r) => `\`${r}\``).join(", ")}: proved — never both` : `contradiction with ${others.map((r) => `\`${r}\``).join(", ")}: **refuted — a state both obliges and forbids \`${o.action}\`**`;
    case "obligation_clash":
      return ok ? `obligation_clash with ${others.map((r) => `\`${r}\``).join(", ")}: proved` : `obligation_clash with ${others.map((r) => `\`${r}\``).join(", ")}: **refuted — one power obliged to make two moves**`;
    case "swallowing_exemption":
      return ok ? `swallowing_exemption (${(o.exemptions ?? []).map((e) => `\`${e}\``).join(", ")}): proved` : `swallowing_exemption: **refuted — ${(o.exemptions ?? []).map((e) => `\`${e}\``).join(", ")} lifts it wherever it applies**`;
    case "always_forbidden":
      return ok ? `always_forbidden \`${o.action}\`: proved — some state allows it` : `always_forbidden \`${o.action}\`: **refuted — no legal state allows it**`;
    default:
      return `${o.kind}: ${o.verdict}`;
  }
}

const SNIPPETS: { label: string; detail: string; body: string }[] = [
  { label: "forbid … when …", detail: "a rule that bans an action", body: 'rule ${1:section.id} §${2:9.6} "${3:what the rule bans, in your words}"\n  during ${4:phase}\n  forbid ${5:action} when ${0:condition}' },
  { label: "oblige … when …", detail: "a rule that makes an action the only legal move", body: 'rule ${1:section.id} §${2:11} "${3:when the power must do it}"\n  during ${4:phase}\n  oblige ${5:action} when ${0:condition}' },
  { label: "exempt … lifts …", detail: "an exemption", body: 'exempt ${1:section.id} §${2:10} "${3:what lifts the rules}"\n  lifts ${4:(*)}\n  when ${0:condition}' },
  { label: "some … in …: …", detail: "a quantifier", body: "some ${1:x} in ${2:domain}: ${0:condition}" },
];

type SK = SymbolKind;
const DECL_SYMBOL: Record<Decl["k"], SK> = {
  edition: SymbolKind.Module, module: SymbolKind.Module, import: SymbolKind.Namespace, schema: SymbolKind.File, board: SymbolKind.File,
  enum: SymbolKind.Enum, action: SymbolKind.Function, def: SymbolKind.Function, route: SymbolKind.Function, rule: SymbolKind.Event,
  override: SymbolKind.Event, remove: SymbolKind.Event, exempt: SymbolKind.Event, invariant: SymbolKind.Constant, table: SymbolKind.Struct,
  decline: SymbolKind.Event,
};

/** The semantic token types the server announces (order = index). */
export const TOKEN_TYPES = ["keyword", "string", "number", "comment", "namespace", "function", "enum", "enumMember", "property", "parameter", "variable", "decorator"] as const;
export const TOKEN_MODIFIERS = ["declaration"] as const;

function declName(d: Decl): { name: string; span: Span } | undefined {
  switch (d.k) {
    case "rule": case "exempt": case "invariant": case "remove":
      return d.id;
    case "override":
      return d.rule.id;
    case "decline":
      return { name: `${d.action.name} during ${d.phase.name}`, span: d.action.span };
    case "schema": case "board":
      return { name: d.path, span: d.pathSpan };
    default:
      return d.name;
  }
}

function declTitle(d: Decl): string | undefined {
  switch (d.k) {
    case "rule": case "exempt": case "invariant": case "table": case "edition": case "module": case "decline":
      return d.title;
    case "override":
      return d.rule.title;
    default:
      return undefined;
  }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export class Features {
  private indexes = new Map<string, { gen: number; index: EditionIndex }>();
  private reports: Reports;
  private caches: Caches;
  /** bumped on every change of a rule file (open buffer or disk): invalidates the indexes */
  generation = 0;

  constructor(readonly project: Project) {
    this.reports = new Reports(project.root);
    this.caches = new Caches(project.root);
  }

  /**
   * Builds what the first hover after an edit would build — the edition's symbol index, and its
   * proof cache read from disk — so that the hover answers at once. The server calls it when a
   * check is done and no edit is waiting.
   */
  /** Reads proof caches from `loaded` (background proving's, up to date before they are written) when it has them. */
  useProofCaches(loaded: (editionRel: string) => ProofCache | undefined): void {
    this.caches.loaded = loaded;
  }

  warm(dir: string): void {
    this.index(dir);
    if (this.caches.store(this.project.rel(dir))) {
      const ir = this.project.lastGood.get(dir);
      if (ir) this.caches.keyedFor(ir);
    }
  }

  index(dir: string): EditionIndex {
    const hit = this.indexes.get(dir);
    if (hit && hit.gen === this.generation) return hit.index;
    const index = buildIndex(this.project, dir);
    this.indexes.set(dir, { gen: this.generation, index });
    return index;
  }

  private indexesOf(file: string): EditionIndex[] {
    return this.project.editionsOf(file).map((d) => this.index(d));
  }

  private at(file: string, pos: Position): { index: EditionIndex; occ: Occurrence }[] {
    const out: { index: EditionIndex; occ: Occurrence }[] = [];
    for (const index of this.indexesOf(file)) {
      const occ = occurrenceAt(index, file, pos.line + 1, pos.character + 1);
      if (occ) out.push({ index, occ });
    }
    return out;
  }

  // ------------------------------------------------------------------ definition, references

  definition(file: string, pos: Position): Location[] {
    const seen = new Set<string>();
    const out: Location[] = [];
    for (const { index, occ } of this.at(file, pos)) {
      const d = index.defs.get(occ.key);
      if (!d) continue;
      const k = `${d.file}:${d.span.line}:${d.span.column}`;
      if (seen.has(k)) continue;
      seen.add(k);
      out.push({ uri: uriOf(d.file), range: toRange(d.span) });
    }
    return out;
  }

  /** Every occurrence of the symbol at the position, over every edition the file belongs to. */
  occurrencesOf(file: string, pos: Position, includeDeclaration: boolean): Occurrence[] {
    const seen = new Set<string>();
    const out: Occurrence[] = [];
    for (const { index, occ } of this.at(file, pos)) {
      const all = [...index.occurrences.filter((o) => o.key === occ.key)];
      const d = index.defs.get(occ.key);
      if (d && !all.includes(d)) all.push(d);
      for (const o of all) {
        if (!includeDeclaration && o.def) continue;
        const k = `${o.file}:${o.span.line}:${o.span.column}`;
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(o);
      }
    }
    return out.sort((a, b) => a.file.localeCompare(b.file) || a.span.line - b.span.line || a.span.column - b.span.column);
  }

  references(file: string, pos: Position, includeDeclaration: boolean): Location[] {
    return this.occurrencesOf(file, pos, includeDeclaration).map((o) => ({ uri: uriOf(o.file), range: toRange(o.span) }));
  }

  // ------------------------------------------------------------------ hover

  hover(file: string, pos: Position): Hover | null {
    const hits = this.at(file, pos);
    if (!hits.length) return null;
    const { index, occ } = hits[0]!;
    const md = this.describe(index, occ, hits.map((h) => h.index));
    return md ? { contents: { kind: "markdown", value: md }, range: toRange(occ.span) } : null;
  }

  private findDecl(index: EditionIndex, pred: (d: Decl) => boolean): { decl: Decl; file: string } | undefined {
    return index.decls.find((x) => pred(x.decl));
  }

  private describe(index: EditionIndex, occ: Occurrence, all: EditionIndex[]): string | undefined {
    const rel = (f: string) => this.project.rel(f);
    const name = occ.name;
    switch (occ.kind) {
      case "rule": {
        const found = this.findDecl(index, (d) => (d.k === "rule" && d.id.name === name) || (d.k === "override" && d.rule.id.name === name));
        if (!found) return `**rule** \`${name}\` (not declared in this edition)`;
        const r: RuleDecl = found.decl.k === "override" ? found.decl.rule : (found.decl as RuleDecl);
        const lines = [
          `**rule** \`${r.id.name}\` — ${r.kind} \`${r.action.name}\`${r.during ? ` during \`${r.during.phase.name}${r.during.segment ? "." + r.during.segment.name : ""}\`` : ""}`,
          "",
          `"${r.title}"`,
          "",
          `**Citation:** ${this.citationText(all, r.id.name, r.citations.map((c) => `${c.key ? c.key.name + " " : ""}§${c.named ? `"${c.value}"` : c.value}`).join(", "))}`,
          "",
          `**Reads:** ${readRule(r)}`,
          "",
          `Declared in ${rel(found.file)}:${r.id.span.line}${found.decl.k === "override" ? " (overrides the parent's rule)" : ""}${r.groups.length ? ` · groups ${r.groups.map((g) => `(${g.name})`).join(" ")}` : ""}`,
        ];
        lines.push("", ...this.verdicts(all, r.id.name));
        return lines.join("\n");
      }
      case "exempt": {
        const found = this.findDecl(index, (d) => d.k === "exempt" && d.id.name === name);
        if (!found || found.decl.k !== "exempt") return undefined;
        const e = found.decl;
        return [
          `**exemption** \`${name}\` — lifts ${e.targets.map((t) => (t.k === "group" ? `(${t.group.name})` : `\`${t.id.name}\``)).join(", ")}`,
          "", `"${e.title}"`, "", `**Reads:** the lifted rules do not apply when ${readExpr(e.when)}`, "", ...this.verdicts(all, name),
        ].join("\n");
      }
      case "invariant": {
        const found = this.findDecl(index, (d) => d.k === "invariant" && d.id.name === name);
        if (!found || found.decl.k !== "invariant") return undefined;
        return [`**invariant** \`${name}\` — a fact about every legal state (the prover assumes it)`, "", `"${found.decl.title}"`, "", `**Reads:** ${readExpr(found.decl.expr)}`].join("\n");
      }
      case "action": {
        const found = this.findDecl(index, (d) => d.k === "action" && d.name.name === name);
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
        const found = this.findDecl(index, (d) => d.k === "table" && d.name.name === name);
        if (!found || found.decl.k !== "table") return undefined;
        const t = found.decl;
        const result = t.result.k === "type" ? typeRefText(t.result.type) : `{ ${t.result.fields.map((f) => `${f.name.name}: ${typeRefText(f.type)}`).join(", ")} }`;
        return [
          "```rules", `table ${name}(${t.params.map((p) => `${p.name.name}: ${typeRefText(p.type)}${p.range ? ` in ${p.range.min}..${p.range.max}` : ""}`).join(", ")}): ${result}`, "```",
          `"${t.title}"`, "", `**Citation:** ${t.citations.map((c) => `${c.key ? c.key.name + " " : ""}§${c.named ? `"${c.value}"` : c.value}`).join(", ")} · ${t.rows.length} rows`,
          "", ...this.verdicts(all, name),
        ].join("\n");
      }
      case "def": {
        const found = this.findDecl(index, (d) => d.k === "def" && d.name.name === name);
        if (!found || found.decl.k !== "def") return undefined;
        const d = found.decl;
        return ["```rules", `def ${name}(${d.params.map((p) => `${p.name.name}: ${typeRefText(p.type)}`).join(", ")}): ${typeRefText(d.ret)}`, "```", `**Reads:** ${readExpr(d.body)}`].join("\n");
      }
      case "route": {
        const found = this.findDecl(index, (d) => d.k === "route" && d.name.name === name);
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
  private citationText(all: EditionIndex[], id: string, written: string): string {
    const shown = new Set<string>();
    for (const idx of all) {
      const ir = this.project.lastGood.get(idx.dir);
      const r = ir?.rules.find((x) => x.id === id);
      if (r) shown.add(`${r.citation.text} (in \`${path.basename(idx.dir)}\`)`);
    }
    return shown.size ? [...shown].join(" · ") : written;
  }

  /**
   * The verdicts of the obligations a rule, exemption or table takes part in, per edition: from
   * the last prove report when it was made from the rule files as they are; else from the proof
   * cache (keyed by what each obligation depends on, so right for the edited rules too), an
   * obligation the cache does not hold being "not proved since the edit"; else from the last
   * report, flagged as older than the rule files.
   */
  verdicts(all: EditionIndex[], id: string): string[] {
    const out: string[] = [];
    const about = (o: Obligation) => o.subjects?.includes(id) || o.table === id || ((o.kind === "contradiction" || o.kind === "obligation_clash") && o.rules.includes(id));
    for (const idx of all) {
      const folder = path.basename(idx.dir);
      const got = this.reports.get(folder);
      const ir: IREdition | undefined = this.project.lastGood.get(idx.dir);
      if (ir && (!got || got.report.inputHash !== ir.inputHash)) {
        const cached = this.caches.lookup(this.project.rel(idx.dir), ir, about);
        if (cached && cached.hits.some((h) => h.hit)) {
          out.push(`**Proofs (${folder}, from the proof cache ${this.project.rel(cached.file)}, for the rules as they are now):**`);
          for (const { ob, hit } of cached.hits) {
            out.push(hit ? `- ${verdictWords(hit, id)}${hit.severity === "off" ? " (severity off)" : ""}` : `- ${ob.kind}${ob.kind === "contradiction" || ob.kind === "obligation_clash" ? ` with \`${ob.rules.find((r) => r !== id) ?? id}\`` : ""}: not proved since the last change — run \`npx rulewright prove ${this.project.rel(idx.dir)}\``);
          }
          continue;
        }
      }
      if (!got) {
        out.push(`**Proofs (${folder}):** no prove report yet — run \`npx rulewright prove ${this.project.rel(idx.dir)}\``);
        continue;
      }
      const obs = got.report.obligations.filter(about);
      const stale = ir && ir.inputHash !== got.report.inputHash ? " — the rule files changed since (verdicts may be out of date)" : "";
      out.push(`**Proofs (${folder}, ${this.project.rel(got.file)}${stale}):**`);
      if (!obs.length) out.push("- none of the report's obligations is about it");
      for (const o of obs) out.push(`- ${verdictWords(o, id)}${o.severity === "off" ? " (severity off)" : ""}`);
    }
    return out;
  }

  // ------------------------------------------------------------------ symbols

  documentSymbols(file: string): DocumentSymbol[] {
    const ast = this.project.ast(file);
    return ast.decls.map((d) => {
      const n = declName(d) ?? { name: d.k, span: d.span };
      const children: DocumentSymbol[] = d.k === "enum"
        ? d.members.map((m) => ({ name: m.name, kind: SymbolKind.EnumMember, range: toRange(m.span), selectionRange: toRange(m.span) }))
        : d.k === "action" ? d.params.map((p) => ({ name: p.name.name, detail: typeRefText(p.type), kind: SymbolKind.Variable, range: toRange(p.span), selectionRange: toRange(p.name.span) }))
        : [];
      const title = declTitle(d);
      return { name: n.name, detail: title ? `${d.k} · ${title}` : d.k, kind: DECL_SYMBOL[d.k], range: toRange(d.span), selectionRange: toRange(n.span), children };
    });
  }

  workspaceSymbols(query: string, dslRoots: string[]): SymbolInformation[] {
    const files = new Set<string>();
    for (const r of dslRoots) for (const e of this.project.editionsUnder(r)) for (const f of this.project.filesOf(e)) files.add(f);
    const q = query.toLowerCase();
    const match = (n: string) => {
      const s = n.toLowerCase();
      if (s.includes(q)) return true;
      let i = 0;
      for (const ch of s) if (ch === q[i]) i++;
      return i === q.length;
    };
    const out: SymbolInformation[] = [];
    for (const f of [...files].sort()) {
      for (const d of this.project.ast(f).decls) {
        const n = declName(d);
        if (!n || d.k === "schema" || d.k === "board" || d.k === "import" || !match(n.name)) continue;
        out.push({ name: n.name, kind: DECL_SYMBOL[d.k], location: { uri: uriOf(f), range: toRange(n.span) }, containerName: this.project.rel(f) });
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ completion

  completion(file: string, pos: Position): CompletionItem[] {
    const text = this.project.read(file) ?? "";
    const offset = offsetAt(text, pos);
    const toks = RulesLexer.tokenize(text.slice(0, offset)).tokens;
    // a word being typed is the prefix, not context
    const last = toks[toks.length - 1];
    if (last && last.endOffset === offset - 1 && /^[A-Za-z_]/.test(last.image)) toks.pop();
    const prev = toks[toks.length - 1];
    const img = (t?: IToken) => t?.image;
    const indexes = this.indexesOf(file);
    const index = indexes[0];
    if (!index) return KEYWORDS.map((k) => ({ label: k, kind: CompletionItemKind.Keyword }));

    const ruleIds = () => {
      const ids = new Set<string>();
      for (const idx of indexes) for (const o of idx.occurrences) if (o.def && o.kind === "rule") ids.add(o.name);
      for (const idx of indexes) for (const d of idx.decls) if (d.decl.k === "rule") ids.add(d.decl.id.name);
      return [...ids].sort().map((id) => ({ label: id, kind: CompletionItemKind.Event, detail: "rule" }));
    };
    const members = (e: string) => (index.enums.get(e)?.members ?? []).map((m) => ({ label: m, kind: CompletionItemKind.EnumMember, detail: e }));

    // after `lifts`, `override rule`, `remove rule`, or a comma in an exemption's targets
    const declStart = findLastIndex(toks, (t, i) => isDeclKeyword(t.image) && img(toks[i - 1]) !== "." && !(t.image === "rule" && ["override", "remove"].includes(img(toks[i - 1]) ?? "")));
    const decl = toks.slice(Math.max(0, declStart));
    if (img(prev) === "lifts" || (img(prev) === "rule" && ["override", "remove"].includes(img(toks[toks.length - 2]) ?? ""))) return ruleIds();
    if (img(prev) === "," && decl[0]?.image === "exempt" && decl.some((t) => t.image === "lifts") && !decl.some((t) => t.image === "when")) return ruleIds();
    if (img(prev) === "forbid" || img(prev) === "oblige") {
      return index.decls.filter((d) => d.decl.k === "action").map((d) => ({ label: (d.decl as Extract<Decl, { k: "action" }>).name.name, kind: CompletionItemKind.Function, detail: "action" }));
    }
    if (img(prev) === "during") return members("Phase");
    if (img(prev) === ".") {
      const chain = chainBefore(toks, toks.length - 1);
      if (chain.length === 1 && img(toks[toks.length - 3]) === "during") return members("Segment");
      if (chain.length === 1 && index.enums.has(chain[0]!)) return members(chain[0]!);
      const node = this.resolveChain(index, chain, decl);
      if (node && index.schema) {
        const rec = index.schema.deref(node);
        return index.schema.fields(rec).map((f) => ({ label: f, kind: CompletionItemKind.Field, detail: index.schema!.typeText(index.schema!.field(rec, f)) }));
      }
      return [];
    }
    // anywhere else: keywords, snippets, names in scope
    const items: CompletionItem[] = KEYWORDS.map((k) => ({ label: k, kind: CompletionItemKind.Keyword }));
    for (const s of SNIPPETS) items.push({ label: s.label, kind: CompletionItemKind.Snippet, detail: s.detail, insertText: s.body, insertTextFormat: InsertTextFormat.Snippet });
    const act = decl.findIndex((t) => t.image === "forbid" || t.image === "oblige");
    const actionName = act >= 0 ? img(decl[act + 1]) : undefined;
    const action = actionName ? index.decls.find((d) => d.decl.k === "action" && d.decl.name.name === actionName)?.decl : undefined;
    if (action?.k === "action") for (const p of action.params) items.push({ label: p.name.name, kind: CompletionItemKind.Variable, detail: `${typeRefText(p.type)} (parameter of ${actionName})` });
    for (let i = 0; i + 2 < decl.length; i++) {
      if (["some", "every", "count", "sum", "max", "min", ","].includes(decl[i]!.image) && decl[i + 2]!.image === "in" && /^[A-Za-z_]/.test(decl[i + 1]!.image)) {
        items.push({ label: decl[i + 1]!.image, kind: CompletionItemKind.Variable, detail: "bound variable" });
      }
    }
    for (const e of index.enums.values()) {
      if (e.name !== "Space") items.push({ label: e.name, kind: CompletionItemKind.Enum, detail: "enum" });
      if (!e.base && e.name !== "Space") for (const m of e.members) items.push({ label: m, kind: CompletionItemKind.EnumMember, detail: e.name });
    }
    for (const { decl: d } of index.decls) {
      if (d.k === "def" || d.k === "table" || d.k === "route") items.push({ label: d.name.name, kind: CompletionItemKind.Function, detail: d.k });
    }
    const seen = new Set<string>();
    return items.filter((i) => (seen.has(i.label + i.kind) ? false : (seen.add(i.label + i.kind), true)));
  }

  /** The schema node of `state.a[x].b` / `c.b` chains written before a `.` (token-level, works in half-typed text). */
  private resolveChain(index: EditionIndex, chain: string[], decl: IToken[], depth = 0): ReturnType<NonNullable<EditionIndex["schema"]>["rootNode"]> | undefined {
    const schema = index.schema;
    if (!schema || !chain.length || depth > 8) return undefined;
    let node: ReturnType<typeof schema.rootNode> | undefined;
    const [root, ...rest] = chain;
    if (root === "state") node = schema.rootNode();
    else {
      // a bound variable: `some c in <domain>:` → the domain's element
      for (let i = decl.length - 3; i >= 0; i--) {
        if (decl[i + 1]!.image === root && decl[i + 2]!.image === "in") {
          const dom: string[] = [];
          let j = i + 3;
          let depthB = 0;
          const domToks: IToken[] = [];
          for (; j < decl.length; j++) {
            const t = decl[j]!.image;
            if (depthB === 0 && (t === ":" || t === "where" || t === ")" || t === ",")) break;
            if (t === "[" || t === "(") depthB++;
            if (t === "]" || t === ")") depthB--;
            domToks.push(decl[j]!);
          }
          dom.push(...chainBefore([...domToks, { image: "." } as IToken], domToks.length));
          const d = this.resolveChain(index, dom, decl.slice(0, i + 1), depth + 1);
          node = d ? schema.items(schema.deref(d)) : undefined;
          break;
        }
      }
    }
    for (const step of rest) {
      if (!node) return undefined;
      node = step === "[]" ? schema.mapValue(schema.deref(node)) : schema.field(schema.deref(node), step);
    }
    return node;
  }

  // ------------------------------------------------------------------ rename

  /**
   * The range of the name at the position when it can be renamed, else null. Throws an Error
   * with the reason (the server answers it as an error) when the name is one that rename
   * refuses: a board space, or a state field or enum member that scenario, fixture or
   * conformance files name (see `dataUses`).
   */
  prepareRename(file: string, pos: Position): Range | null {
    const hit = this.at(file, pos)[0];
    if (!hit || (hit.occ.kind === "member" && hit.occ.key.startsWith("member:Space."))) return null;
    this.refuseDataUses(hit.occ, this.indexesOf(file));
    return toRange(hit.occ.span);
  }

  /**
   * Renames the symbol at the position across the editions the file belongs to: every occurrence
   * in the rule files; for a state field also its key in the schema (and in `required`); for an
   * enum member also the schema's `enum` lists; for a rule id also the scenario files
   * (test/scenarios/<edition>/) and coverage manifests (dsl/coverage/) that name it.
   * Throws an Error with a message (the server answers it as an error) for a name that is not an
   * identifier (a rule id: dotted), for a name already in use where the new name would clash (a
   * rule, exemption or invariant id; a def, table, route, action or enum name; a member of any
   * enum; a field of the same record; a parameter of the same declaration), and for a state field
   * or enum member that scenario, fixture or conformance files name (rename does not rewrite the
   * states and actions written there, so it refuses rather than leave them failing).
   */
  rename(file: string, pos: Position, newName: string): WorkspaceEdit | null {
    const hit = this.at(file, pos)[0];
    if (!hit) return null;
    const { occ } = hit;
    const ok = occ.kind === "rule" || occ.kind === "exempt" || occ.kind === "invariant" ? /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/ : /^[A-Za-z_][A-Za-z0-9_]*$/;
    if (!ok.test(newName) || (KEYWORDS as readonly string[]).includes(newName)) throw new Error(`\`${newName}\` is not a valid ${occ.kind} name`);
    if (occ.key.startsWith("member:Space.")) throw new Error("board spaces are renamed in board.json, not in the rule files");
    const editions = this.indexesOf(file);
    if (newName !== occ.name) {
      const clash = nameInUse(editions, occ, newName);
      if (clash) throw new Error(`\`${newName}\` is already ${clash}: renaming ${occ.kind} \`${occ.name}\` to it would make the two one name`);
    }
    this.refuseDataUses(occ, editions);
    const changes: Record<string, TextEdit[]> = {};
    const edit = (f: string, span: Span, text: string) => {
      (changes[uriOf(f)] ??= []).push({ range: toRange(span), newText: text });
    };
    const occs = this.occurrencesOf(file, pos, true);
    for (const o of occs) {
      if (o.file.endsWith(".json")) continue; // schema / board definitions: below
      edit(o.file, o.span, newName);
    }
    if (occ.kind === "field") this.renameInSchema(editions, occ.key.slice("field:".length), occ.name, newName, edit, "field");
    if (occ.kind === "member") {
      const root = occ.key.slice("member:".length).split(".")[0]!;
      this.renameInSchema(editions, root, occ.name, newName, edit, "member");
    }
    if (occ.kind === "rule") {
      const re = new RegExp(`(?<![A-Za-z0-9_.])${escapeRe(occ.name)}(?![A-Za-z0-9_.])`, "g");
      const dirs = new Set<string>();
      for (const idx of editions) {
        dirs.add(path.join(this.project.root, "test", "scenarios", path.basename(idx.dir)));
        const dslRoot = this.project.dslRootOf(idx.files[0] ?? idx.dir);
        if (dslRoot) dirs.add(path.join(dslRoot, "coverage"));
      }
      for (const dir of dirs) {
        for (const f of listFiles(dir, /\.ya?ml$/)) {
          const lines = (fs.readFileSync(f, "utf8")).split("\n");
          lines.forEach((l, i) => {
            for (const m of l.matchAll(re)) edit(f, { line: i + 1, column: m.index! + 1, endLine: i + 1, endColumn: m.index! + 1 + occ.name.length }, newName);
          });
        }
      }
    }
    return { changes };
  }

  /**
   * The scenario, fixture and conformance files (YAML and JSON, comments left out) that name a
   * state field or enum member as a whole word: test/scenarios/<edition folder>/,
   * test/fixtures/<edition folder>/ and conformance/<edition folder>/ of every edition involved,
   * under the project root. Absolute paths, sorted; [] for other kinds of names.
   */
  dataUses(occ: Occurrence, editions: EditionIndex[]): string[] {
    if (occ.kind !== "field" && occ.kind !== "member") return [];
    const re = new RegExp(`(?<![A-Za-z0-9_])${escapeRe(occ.name)}(?![A-Za-z0-9_])`);
    const dirs = new Set<string>();
    for (const idx of editions) {
      const folder = path.basename(idx.dir);
      for (const base of [["test", "scenarios"], ["test", "fixtures"], ["conformance"]]) dirs.add(path.join(this.project.root, ...base, folder));
    }
    const out: string[] = [];
    for (const dir of dirs) {
      for (const f of listFiles(dir, /\.(ya?ml|json)$/)) {
        let text: string;
        try {
          text = fs.readFileSync(f, "utf8");
        } catch {
          continue;
        }
        const yaml = /\.ya?ml$/.test(f);
        if (text.split(/\r\n|\r|\n/).some((l) => re.test(yaml ? l.replace(/(^|\s)#.*$/, "") : l))) out.push(f);
      }
    }
    return out.sort();
  }

  private refuseDataUses(occ: Occurrence, editions: EditionIndex[]): void {
    const uses = this.dataUses(occ, editions);
    if (!uses.length) return;
    const shown = uses.slice(0, 3).map((f) => this.project.rel(f)).join(", ");
    const what = occ.kind === "field" ? "state field" : "enum member";
    throw new Error(
      `cannot rename the ${what} \`${occ.name}\`: ${uses.length} scenario, fixture or conformance file${uses.length === 1 ? "" : "s"} name${uses.length === 1 ? "s" : ""} it (${shown}${uses.length > 3 ? `, and ${uses.length - 3} more` : ""}), and rename does not rewrite the states and actions written there — they would fail. Rename it in those files too (by hand), or pick a ${what} no data names`,
    );
  }

  private renameInSchema(editions: EditionIndex[], target: string, oldName: string, newName: string, edit: (f: string, s: Span, t: string) => void, what: "field" | "member"): void {
    const done = new Set<string>();
    for (const idx of editions) {
      const schema = idx.schema;
      if (!schema || done.has(schema.file)) continue;
      done.add(schema.file);
      let text: string;
      try {
        text = fs.readFileSync(schema.file, "utf8");
      } catch {
        continue;
      }
      const lines = text.split("\n");
      const quoted = `"${oldName}"`;
      const at = (line: number, from = 0): Span | undefined => {
        const col = (lines[line - 1] ?? "").indexOf(quoted, from);
        return col < 0 ? undefined : { line, column: col + 2, endLine: line, endColumn: col + 2 + oldName.length };
      };
      if (what === "field") {
        // the property key is on the line where its value starts
        const key = at(schema.spanOf(target).line);
        if (key) edit(schema.file, key, newName);
        const recPtr = target.replace(/\/properties\/[^/]+$/, "");
        for (let i = 0; i < 4096; i++) {
          const p = `${recPtr}/required/${i}`;
          const s = schema.spanOf(p);
          if (s.line === 1 && s.column === 1) break;
          const k = at(s.line, s.column - 1);
          if (k && k.column - 1 === s.column) edit(schema.file, k, newName);
        }
      } else {
        // every $defs enum that is the member's root or a subset of it
        const names = [...idx.enums.values()].filter((e) => (e.name === target || e.base !== undefined) && e.members.includes(oldName)).map((e) => e.name);
        for (const n of names) {
          for (let i = 0; i < 4096; i++) {
            const s = schema.spanOf(`/$defs/${n}/enum/${i}`);
            if (s.line === 1 && s.column === 1) break;
            const k = at(s.line, s.column - 1);
            if (k && k.column - 1 === s.column) edit(schema.file, k, newName);
          }
        }
      }
    }
  }

  // ------------------------------------------------------------------ code actions

  codeActions(file: string, uri: string, diagnostics: LspDiagnostic[]): CodeAction[] {
    const out: CodeAction[] = [];
    for (const d of diagnostics) {
      if (d.source !== "rulewright") continue;
      for (const s of (d.data as { suggestions?: Suggestion[] } | undefined)?.suggestions ?? []) {
        out.push({ title: s.message, kind: CodeActionKind.QuickFix, diagnostics: [d], ...(s.preferred ? { isPreferred: true } : {}), edit: { changes: { [uri]: [{ range: toRange(s.range), newText: s.replacement }] } } });
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ semantic tokens, folding

  /** Semantic tokens as [line, char, length, typeIndex, modifierBits], sorted, one line each. */
  semanticTokens(file: string): [number, number, number, number, number][] {
    const text = this.project.read(file) ?? "";
    const byPos = new Map<string, [number, number, number, number, number]>();
    const put = (s: Span, type: (typeof TOKEN_TYPES)[number], decl = false) => {
      if (s.line !== s.endLine) return;
      byPos.set(`${s.line}:${s.column}`, [s.line - 1, s.column - 1, s.endColumn - s.column, TOKEN_TYPES.indexOf(type), decl ? 1 : 0]);
    };
    for (const t of RulesLexer.tokenize(text).tokens) {
      const s: Span = { line: t.startLine!, column: t.startColumn!, endLine: t.endLine!, endColumn: t.endColumn! + 1 };
      const n = t.tokenType.name;
      if (n.startsWith("Kw_")) put(s, "keyword");
      else if (n === "StringLit") put(s, "string");
      else if (n === "IntLit") put(s, "number");
      else if (n === "Section" || n === "NamedSection") put(s, "decorator");
    }
    for (const idx of this.indexesOf(file).slice(0, 1)) {
      for (const o of idx.occurrences) {
        if (o.file !== file) continue;
        const type = o.kind === "rule" || o.kind === "exempt" || o.kind === "invariant" ? "namespace"
          : o.kind === "action" || o.kind === "def" || o.kind === "route" || o.kind === "table" ? "function"
          : o.kind === "enum" ? "enum" : o.kind === "member" ? "enumMember" : o.kind === "field" ? "property" : o.kind === "param" ? "parameter" : "variable";
        put(o.span, type, o.def);
      }
    }
    for (const c of commentRanges(text)) put({ line: c.line, column: c.column, endLine: c.line, endColumn: c.column + c.length }, "comment");
    return [...byPos.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }

  foldingRanges(file: string): FoldingRange[] {
    const out: FoldingRange[] = [];
    for (const d of this.project.ast(file).decls) if (d.span.endLine > d.span.line) out.push({ startLine: d.span.line - 1, endLine: d.span.endLine - 1, kind: FoldingRangeKind.Region });
    const text = this.project.read(file) ?? "";
    const lines = text.split(/\r\n|\r|\n/);
    let start = -1;
    for (let i = 0; i <= lines.length; i++) {
      const isComment = i < lines.length && /^\s*\/\//.test(lines[i]!);
      if (isComment && start < 0) start = i;
      if (!isComment && start >= 0) {
        if (i - 1 > start) out.push({ startLine: start, endLine: i - 1, kind: FoldingRangeKind.Comment });
        start = -1;
      }
    }
    return out;
  }
}

function isDeclKeyword(s: string): boolean {
  return ["edition", "schema", "board", "enum", "action", "def", "route", "rule", "exempt", "invariant", "module", "import", "override", "remove", "table", "decline"].includes(s);
}

function findLastIndex<T>(xs: T[], p: (x: T, i: number) => boolean): number {
  for (let i = xs.length - 1; i >= 0; i--) if (p(xs[i]!, i)) return i;
  return -1;
}

/** The postfix chain ending before the `.` at `dot`: `state.a[x].b` → ["state", "a", "[]", "b"]. */
export function chainBefore(toks: IToken[], dot: number): string[] {
  const out: string[] = [];
  let i = dot - 1;
  while (i >= 0) {
    const t = toks[i]!;
    if (t.image === "]") {
      let depth = 0;
      for (; i >= 0; i--) {
        if (toks[i]!.image === "]") depth++;
        if (toks[i]!.image === "[") depth--;
        if (depth === 0) break;
      }
      out.push("[]");
      i--;
      continue;
    }
    if (/^[A-Za-z_]/.test(t.image)) {
      out.push(t.image);
      if (i >= 1 && toks[i - 1]!.image === ".") {
        i -= 2;
        continue;
      }
      break;
    }
    break;
  }
  return out.reverse();
}

/** The offset (UTF-16 units) of an LSP position in `text`; lines end at `\n`, `\r\n` or a lone `\r` (as LSP and the lexer count them). */
export function offsetAt(text: string, pos: Position): number {
  let line = 0;
  let i = 0;
  while (line < pos.line && i < text.length) {
    if (text[i] === "\n" || (text[i] === "\r" && text[i + 1] !== "\n")) line++;
    i++;
  }
  return Math.min(text.length, i + pos.character);
}

/**
 * What `newName` already names where renaming `occ` to it would clash, in words ("the def
 * `x`"), or undefined: rule, exemption and invariant ids share one namespace; defs, tables,
 * routes, actions and enums another; enum members are written bare, so a member clashes with a
 * member of any enum; a field with a field of the same record; a parameter with a parameter of
 * the same declaration.
 */
export function nameInUse(editions: EditionIndex[], occ: Occurrence, newName: string): string | undefined {
  for (const idx of editions) {
    switch (occ.kind) {
      case "rule": case "exempt": case "invariant": {
        for (const k of ["rule", "exempt", "invariant"]) if (idx.defs.has(`${k}:${newName}`)) return `the id of ${k === "exempt" ? "an exemption" : `a${k === "invariant" ? "n" : ""} ${k}`}`;
        if (idx.occurrences.some((o) => o.kind === "rule" && o.name === newName)) return "the id of a rule";
        break;
      }
      case "def": case "table": case "route": case "action": case "enum": {
        for (const k of ["def", "table", "route", "action", "enum"]) if (idx.defs.has(`${k}:${newName}`) || (k === "enum" && idx.enums.has(newName))) return `the name of ${k === "enum" || k === "action" ? "an" : "a"} ${k}`;
        break;
      }
      case "member": {
        for (const e of idx.enums.values()) if (e.members.includes(newName)) return `a member of the enum \`${e.name}\``;
        break;
      }
      case "field": {
        const rec = occ.key.slice("field:".length).replace(/\/properties\/[^/]+$/, "");
        if (idx.defs.has(`field:${rec}/properties/${newName.replace(/~/g, "~0").replace(/\//g, "~1")}`) || schemaHasProperty(idx, rec, newName)) return "a field of the same record";
        break;
      }
      case "param": {
        const within = idx.defs.get(occ.key)?.within ?? occ.within;
        const d = idx.decls.find((x) => (x.decl.k === "action" || x.decl.k === "def" || x.decl.k === "table" || x.decl.k === "route") && x.decl.name.name === within);
        const params = d && "params" in d.decl ? (d.decl.params as { name: { name: string } }[]) : [];
        if (params.some((p) => p.name.name === newName)) return `a parameter of \`${within}\``;
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}

/** Whether the schema's record at JSON pointer `rec` has a property `name`. */
function schemaHasProperty(idx: EditionIndex, rec: string, name: string): boolean {
  if (!idx.schema) return false;
  let node: unknown;
  try {
    node = JSON.parse(fs.readFileSync(idx.schema.file, "utf8"));
  } catch {
    return false;
  }
  for (const seg of rec.split("/").slice(1).map((x) => x.replace(/~1/g, "/").replace(/~0/g, "~"))) {
    if (!node || typeof node !== "object") return false;
    node = (node as Record<string, unknown>)[seg];
  }
  const props = node && typeof node === "object" ? (node as Record<string, unknown>).properties : undefined;
  return !!props && typeof props === "object" && Object.prototype.hasOwnProperty.call(props, name);
}

function listFiles(dir: string, re: RegExp): string[] {
  const out: string[] = [];
  let ents: fs.Dirent[];
  try {
    ents = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of ents) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p, re));
    else if (re.test(e.name)) out.push(p);
  }
  return out.sort();
}
