/**
 * The protocol's edge (issue 24): the one place besides server.ts where LSP types are written.
 * `Features` answers the server's requests by calling one feature file per request — hover.ts,
 * navigation.ts (definition, references), outline.ts (document and workspace symbols),
 * completion.ts, rename.ts, code-actions.ts, tokens.ts (semantic tokens, folding) — which answer
 * in the compiler's terms (1-based spans, absolute paths, plain kinds), and converts: positions
 * 0-based ↔ 1-based, paths → `file:` URIs, kinds → the protocol's enums. Diagnostics are converted
 * here too (`toLspDiagnostic`: same code, the help as a second line, the suggestions in `data`).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  CompletionItemKind, DiagnosticSeverity, InsertTextFormat, SymbolKind, FoldingRangeKind, CodeActionKind,
  type CodeAction, type CompletionItem, type Diagnostic as LspDiagnostic, type DocumentSymbol, type FoldingRange,
  type Hover, type Location, type Position, type Range, type SymbolInformation, type TextEdit, type WorkspaceEdit,
} from "vscode-languageserver";
import type { Diagnostic, Span } from "../diagnostics/types.js";
import type { Decl } from "../syntax/ast.js";
import type { ProofCache } from "./keys.js";
import { quickFixes } from "./code-actions.js";
import { completion, type CompletionKind } from "./completion.js";
import { FeatureContext } from "./context.js";
import { hover } from "./hover.js";
import { definition, occurrencesOf, references, type Place } from "./navigation.js";
import { documentSymbols, workspaceSymbols, type OutlineSymbol } from "./outline.js";
import type { Project } from "./project.js";
import { prepareRename, rename } from "./rename.js";
import type { EditionIndex, Occurrence } from "./symbols.js";
import { foldingRanges, semanticTokens, TOKEN_TYPES } from "./tokens.js";

export { TOKEN_MODIFIERS, TOKEN_TYPES } from "./tokens.js";

/** The `file:` URI of an absolute path. */
export const uriOf = (abs: string): string => pathToFileURL(abs).href;

/** A compiler span (1-based, exclusive end column) as an LSP range (0-based). */
export function toRange(s: Span): Range {
  return { start: { line: s.line - 1, character: s.column - 1 }, end: { line: s.endLine - 1, character: Math.max(0, s.endColumn - 1) } };
}

/** One compiler diagnostic as an LSP diagnostic: same code, the help as a second line, its suggestions in `data` (for code actions). */
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

const DECL_SYMBOL: Record<Decl["k"], SymbolKind> = {
  edition: SymbolKind.Module, module: SymbolKind.Module, import: SymbolKind.Namespace, schema: SymbolKind.File, board: SymbolKind.File,
  enum: SymbolKind.Enum, action: SymbolKind.Function, def: SymbolKind.Function, route: SymbolKind.Function, rule: SymbolKind.Event,
  override: SymbolKind.Event, remove: SymbolKind.Event, exempt: SymbolKind.Event, invariant: SymbolKind.Constant, table: SymbolKind.Struct,
  decline: SymbolKind.Event,
};

const COMPLETION_KIND: Record<CompletionKind, CompletionItemKind> = {
  keyword: CompletionItemKind.Keyword, snippet: CompletionItemKind.Snippet, event: CompletionItemKind.Event, function: CompletionItemKind.Function,
  enumMember: CompletionItemKind.EnumMember, enum: CompletionItemKind.Enum, field: CompletionItemKind.Field, variable: CompletionItemKind.Variable,
};

const location = (p: Place): Location => ({ uri: uriOf(p.file), range: toRange(p.span) });

function outlineSymbol(s: OutlineSymbol): DocumentSymbol {
  const kind = s.kind === "member" ? SymbolKind.EnumMember : s.kind === "param" ? SymbolKind.Variable : DECL_SYMBOL[s.kind];
  const own = { name: s.name, ...(s.detail !== undefined ? { detail: s.detail } : {}), kind, range: toRange(s.span), selectionRange: toRange(s.selectionSpan) };
  return s.kind === "member" || s.kind === "param" ? own : { ...own, children: s.children.map(outlineSymbol) };
}

/** The language server's answers for one project, in LSP types (each request: one feature file, converted). */
export class Features {
  readonly ctx: FeatureContext;

  constructor(readonly project: Project) {
    this.ctx = new FeatureContext(project);
  }

  /** bumped on every change of a rule file (open buffer or disk): invalidates the symbol indexes */
  get generation(): number {
    return this.ctx.generation;
  }
  set generation(n: number) {
    this.ctx.generation = n;
  }

  /** Reads proof caches from `loaded` (background proving's) when it has them. */
  useProofCaches(loaded: (editionRel: string) => ProofCache | undefined): void {
    this.ctx.useProofCaches(loaded);
  }

  /** Builds the symbol index and reads the proof cache of edition `dir`, so that the next hover answers at once. */
  warm(dir: string): void {
    this.ctx.warm(dir);
  }

  /** The symbol index of edition folder `dir`. */
  index(dir: string): EditionIndex {
    return this.ctx.index(dir);
  }

  definition(file: string, pos: Position): Location[] {
    return definition(this.ctx, file, pos.line + 1, pos.character + 1).map(location);
  }

  /** Every occurrence of the symbol at the position, over every edition the file belongs to. */
  occurrencesOf(file: string, pos: Position, includeDeclaration: boolean): Occurrence[] {
    return occurrencesOf(this.ctx, file, pos.line + 1, pos.character + 1, includeDeclaration);
  }

  references(file: string, pos: Position, includeDeclaration: boolean): Location[] {
    return references(this.ctx, file, pos.line + 1, pos.character + 1, includeDeclaration).map(location);
  }

  hover(file: string, pos: Position): Hover | null {
    const h = hover(this.ctx, file, pos.line + 1, pos.character + 1);
    return h ? { contents: { kind: "markdown", value: h.markdown }, range: toRange(h.span) } : null;
  }

  documentSymbols(file: string): DocumentSymbol[] {
    return documentSymbols(this.ctx, file).map(outlineSymbol);
  }

  workspaceSymbols(query: string, dslRoots: string[]): SymbolInformation[] {
    return workspaceSymbols(this.ctx, query, dslRoots).map((s) => ({ name: s.name, kind: DECL_SYMBOL[s.kind], location: { uri: uriOf(s.file), range: toRange(s.span) }, containerName: s.container }));
  }

  completion(file: string, pos: Position): CompletionItem[] {
    return completion(this.ctx, file, pos.line + 1, pos.character + 1).map((c) => ({
      label: c.label,
      kind: COMPLETION_KIND[c.kind],
      ...(c.detail !== undefined ? { detail: c.detail } : {}),
      ...(c.snippet !== undefined ? { insertText: c.snippet, insertTextFormat: InsertTextFormat.Snippet } : {}),
    }));
  }

  /** The range of the name at the position when it can be renamed, else null; throws an Error with the reason when rename refuses it. */
  prepareRename(file: string, pos: Position): Range | null {
    const s = prepareRename(this.ctx, file, pos.line + 1, pos.character + 1);
    return s ? toRange(s) : null;
  }

  /** The edits of renaming the symbol at the position; throws an Error with the reason when refused (rename.ts). */
  rename(file: string, pos: Position, newName: string): WorkspaceEdit | null {
    const edits = rename(this.ctx, file, pos.line + 1, pos.character + 1, newName);
    if (!edits) return null;
    const changes: Record<string, TextEdit[]> = {};
    for (const [f, es] of edits) changes[uriOf(f)] = es.map((e) => ({ range: toRange(e.span), newText: e.newText }));
    return { changes };
  }

  /** The quick fixes of the compiler's diagnostics among `diagnostics` (as the client sent them back), as edits of `uri`. */
  codeActions(_file: string, uri: string, diagnostics: LspDiagnostic[]): CodeAction[] {
    const out: CodeAction[] = [];
    for (const d of diagnostics) {
      if (d.source !== "rulewright") continue;
      for (const q of quickFixes(d.data)) {
        out.push({ title: q.title, kind: CodeActionKind.QuickFix, diagnostics: [d], ...(q.preferred ? { isPreferred: true } : {}), edit: { changes: { [uri]: [{ range: toRange(q.span), newText: q.newText }] } } });
      }
    }
    return out;
  }

  /** Semantic tokens as [line, char, length, typeIndex, modifierBits] (0-based), sorted, one line each. */
  semanticTokens(file: string): [number, number, number, number, number][] {
    return semanticTokens(this.ctx, file).map((t) => [t.line - 1, t.column - 1, t.length, TOKEN_TYPES.indexOf(t.type), t.declaration ? 1 : 0]);
  }

  foldingRanges(file: string): FoldingRange[] {
    return foldingRanges(this.ctx, file).map((f) => ({ startLine: f.line - 1, endLine: f.endLine - 1, kind: f.kind === "region" ? FoldingRangeKind.Region : FoldingRangeKind.Comment }));
  }
}
