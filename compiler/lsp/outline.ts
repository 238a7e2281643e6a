/**
 * Document and workspace symbols: the declarations of a rule file (enum members and action
 * parameters as children), and the declarations of every edition under the workspace's `dsl/`
 * folders whose name matches a query (substring, or the query's letters in order).
 */
import type { Span } from "../diagnostics/types.js";
import type { Decl } from "../syntax/ast.js";
import type { FeatureContext } from "./context.js";
import { typeRefText } from "./symbols.js";

/** One declaration of a file, as the outline shows it; `kind` is the declaration's (`member`, `param` for children). */
export interface OutlineSymbol {
  name: string;
  detail?: string;
  kind: Decl["k"] | "member" | "param";
  span: Span;
  selectionSpan: Span;
  children: OutlineSymbol[];
}

/** One declaration found by a workspace query. */
export interface FoundSymbol {
  name: string;
  kind: Decl["k"];
  file: string;
  span: Span;
  /** the file, relative to the project root */
  container: string;
}

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

/** The declarations of rule file `file`, in order. */
export function documentSymbols(ctx: FeatureContext, file: string): OutlineSymbol[] {
  const ast = ctx.project.ast(file);
  return ast.decls.map((d) => {
    const n = declName(d) ?? { name: d.k, span: d.span };
    const children: OutlineSymbol[] = d.k === "enum"
      ? d.members.map((m) => ({ name: m.name, kind: "member" as const, span: m.span, selectionSpan: m.span, children: [] }))
      : d.k === "action" ? d.params.map((p) => ({ name: p.name.name, detail: typeRefText(p.type), kind: "param" as const, span: p.span, selectionSpan: p.name.span, children: [] }))
      : [];
    const title = declTitle(d);
    return { name: n.name, detail: title ? `${d.k} · ${title}` : d.k, kind: d.k, span: d.span, selectionSpan: n.span, children };
  });
}

/** The declarations (but schema, board and import) of the editions under `dslRoots` whose name matches `query`, by file. */
export function workspaceSymbols(ctx: FeatureContext, query: string, dslRoots: string[]): FoundSymbol[] {
  const files = new Set<string>();
  for (const r of dslRoots) for (const e of ctx.project.editionsUnder(r)) for (const f of ctx.project.filesOf(e)) files.add(f);
  const q = query.toLowerCase();
  const match = (n: string) => {
    const s = n.toLowerCase();
    if (s.includes(q)) return true;
    let i = 0;
    for (const ch of s) if (ch === q[i]) i++;
    return i === q.length;
  };
  const out: FoundSymbol[] = [];
  for (const f of [...files].sort()) {
    for (const d of ctx.project.ast(f).decls) {
      const n = declName(d);
      if (!n || d.k === "schema" || d.k === "board" || d.k === "import" || !match(n.name)) continue;
      out.push({ name: n.name, kind: d.k, file: f, span: n.span, container: ctx.project.rel(f) });
    }
  }
  return out;
}
