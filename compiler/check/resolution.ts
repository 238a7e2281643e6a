/**
 * The resolution table of one edition: every declaration of a name the checker saw, every use of
 * a name it resolved (file, span → the declaration's key, and the type the checker gave the use),
 * the scopes of locals, and the edition's files. The checker fills it while it resolves names
 * (`loadEdition(...).resolution`, compiler/check/index.ts), so a tool that needs "what does this
 * name mean" (the language server's definition, references, rename, completion; the report) reads
 * it instead of resolving names again.
 *
 * Files are repo-relative with `/` (the form of diagnostics and IR positions); spans are the
 * syntax's 1-based line/column spans (columns count UTF-16 code units, as an LSP `character` + 1).
 * A declaration with a syntax error is not in the AST, so its names are neither declared nor used
 * here; a name that failed to resolve (a diagnostic says so) has no use.
 *
 * Keys (one per declaration; the scheme of compiler/lsp/symbols.ts):
 *   `rule:<id>`, `exempt:<id>`, `invariant:<id>`, `action:<name>`, `enum:<name>`,
 *   `member:<root enum>.<name>`, `def:<name>`, `route:<name>`, `table:<name>`,
 *   `field:<schema JSON pointer>` (a state field or a field of a schema record),
 *   `local:<file>:<line>:<column>` (a parameter or a bound variable, at its declaration),
 *   `group:<name>` (a rule group, declared where a rule first names it),
 *   `builtin:<name>` (a board builtin: no file).
 */
import type { Span } from "../diagnostics/types.js";
import type { Type } from "../ir/types.js";

/** What a declaration declares. `param`: a parameter of an action, def, route or table; `local`: a quantifier's, aggregate's or route clause's variable. */
export type DeclKind = "rule" | "exempt" | "invariant" | "action" | "enum" | "member" | "def" | "route" | "table" | "field" | "param" | "local" | "group" | "builtin";

/** One declared name. */
export interface Declaration {
  /** unique in the edition (see the key scheme above) */
  key: string;
  kind: DeclKind;
  /** the name as declared (a member without its enum, a field without its record) */
  name: string;
  /** repo-relative file of the declaration: a rule file, the schema (fields) or the board (`Space` and its members); "" for a builtin */
  file: string;
  /** the declared name's span (a field: its property key in the schema; a builtin: line 1) */
  span: Span;
  /** the declared type: of a parameter, local, field, enum member (its enum), def (its result), table (its result); absent for the rest */
  type?: Type;
  /** the key of the declaration this one belongs to: a member's enum, a parameter's action/def/route/table */
  parent?: string;
}

/** One use of a name, resolved. */
export interface Use {
  /** repo-relative rule file */
  file: string;
  /** the name's span (for `E.m` the member's span is one use, `E` another) */
  span: Span;
  /** the declaration it names */
  key: string;
  /** the type the checker gave this use (a field read, a variable, an enum member, a call's result); absent where a name is no value (a rule id, an action, a type) */
  type?: Type;
}

/** A local's (or parameter's) reach: where in `file` the name `name` means the declaration `key`. */
export interface Scope {
  file: string;
  span: Span;
  name: string;
  key: string;
}

/**
 * The files and folders of an edition (repo-relative, `/`). The folders after `schema` are where
 * its data lives by the project's layout (compiler/check/editions.ts, `editionLayout`); they need
 * not exist.
 */
export interface EditionFiles {
  /** the edition folder */
  folder: string;
  /** every rule file the edition is made of: its own, its parents' (`extends`), its modules', in the order read */
  rules: string[];
  /** the state schema and the board, when their declarations resolved to a readable file */
  schema?: string;
  board?: string;
  /** test/scenarios/<folder>: its scenario files */
  scenarios: string;
  /** test/fixtures/<folder>: the named states its scenarios start from */
  fixtures: string;
  /** conformance/<folder>: its conformance corpus */
  conformance: string;
}

const posKey = (file: string, s: Span) => `${file}:${s.line}:${s.column}:${s.endLine}:${s.endColumn}`;

/** `a` is at or before `b` (line, column). */
const le = (l1: number, c1: number, l2: number, c2: number) => l1 < l2 || (l1 === l2 && c1 <= c2);

/** Does the span hold the position (1-based line and column; the end column is exclusive, but a cursor right after a name is on it)? */
export function spanContains(s: Span, line: number, column: number): boolean {
  return le(s.line, s.column, line, column) && le(line, column, s.endLine, s.endColumn);
}

/** The smaller of two spans (fewer lines, then fewer columns). */
function smaller(a: Span, b: Span): boolean {
  const la = a.endLine - a.line;
  const lb = b.endLine - b.line;
  return la !== lb ? la < lb : a.endColumn - a.column < b.endColumn - b.column;
}

/**
 * The table itself, filled by the checker's passes (`declare`, `use`, `scope`) and read by the
 * query methods. Recording the same use twice (the checker may look at an operand twice to find
 * its expected type) keeps one.
 */
export class Resolution {
  /** declarations by key */
  readonly decls = new Map<string, Declaration>();
  /** every use, in the order resolved */
  readonly uses: Use[] = [];
  /** the reach of every parameter and local */
  readonly scopes: Scope[] = [];
  private seen = new Set<string>();
  private byKey = new Map<string, Use[]>();

  constructor(public files: EditionFiles) {}

  /** Record a declaration; a second one with the same key (a duplicate the checker reported) is ignored, the first stays. */
  declare(d: Declaration): void {
    if (!this.decls.has(d.key)) this.decls.set(d.key, d);
  }

  /** Record a use (once per file, span and key). */
  use(u: Use): void {
    const k = `${posKey(u.file, u.span)}>${u.key}`;
    if (this.seen.has(k)) return;
    this.seen.add(k);
    this.uses.push(u);
    const list = this.byKey.get(u.key);
    if (list) list.push(u);
    else this.byKey.set(u.key, [u]);
  }

  /** Record where a parameter or local is visible. */
  scope(s: Scope): void {
    this.scopes.push(s);
  }

  /** The declaration of a key, or undefined. */
  declaration(key: string): Declaration | undefined {
    return this.decls.get(key);
  }

  /** Every use of a declaration (not the declaration itself), in the order resolved; [] when it has none. */
  usesOf(key: string): readonly Use[] {
    return this.byKey.get(key) ?? [];
  }

  /**
   * The use or declaration whose name spans the position in `file` (1-based line and column), the
   * innermost when several do: `{ key, use }` with the use when it is a use, without when the
   * position is on the declared name; undefined on no name.
   */
  at(file: string, line: number, column: number): { key: string; use?: Use } | undefined {
    let best: { key: string; use?: Use; span: Span } | undefined;
    for (const u of this.uses) {
      if (u.file === file && spanContains(u.span, line, column) && (!best || smaller(u.span, best.span))) best = { key: u.key, use: u, span: u.span };
    }
    for (const d of this.decls.values()) {
      if (d.file === file && d.kind !== "builtin" && spanContains(d.span, line, column) && (!best || smaller(d.span, best.span))) best = { key: d.key, span: d.span };
    }
    return best && (best.use ? { key: best.key, use: best.use } : { key: best.key });
  }

  /** The declaration of the name at a position (a use's target, or the declaration the position is on); undefined on no name. */
  declarationAt(file: string, line: number, column: number): Declaration | undefined {
    const hit = this.at(file, line, column);
    return hit && this.decls.get(hit.key);
  }

  /** The declaration and every use of the name at a position (what rename rewrites and references list); undefined on no name. */
  occurrencesAt(file: string, line: number, column: number): { decl: Declaration; uses: readonly Use[] } | undefined {
    const d = this.declarationAt(file, line, column);
    return d && { decl: d, uses: this.usesOf(d.key) };
  }

  /**
   * The names visible at a position of a rule file (for completion): the parameters and locals
   * whose scope holds it (the innermost of one name hides the others), then every declaration of
   * the given kinds (all kinds but `param`, `local`, `field` and `group` when not given).
   */
  visibleAt(file: string, line: number, column: number, kinds?: readonly DeclKind[]): Declaration[] {
    const inner = new Map<string, Scope>();
    for (const s of this.scopes) {
      if (s.file !== file || !spanContains(s.span, line, column)) continue;
      const prev = inner.get(s.name);
      if (!prev || smaller(s.span, prev.span)) inner.set(s.name, s);
    }
    const out: Declaration[] = [];
    for (const s of inner.values()) {
      const d = this.decls.get(s.key);
      if (d) out.push(d);
    }
    const want = kinds ?? (["rule", "exempt", "invariant", "action", "enum", "member", "def", "route", "table", "builtin"] as const);
    for (const d of this.decls.values()) if ((want as readonly string[]).includes(d.kind) && d.kind !== "param" && d.kind !== "local") out.push(d);
    return out;
  }

  /** Every declaration of one kind, in the order declared. */
  ofKind(kind: DeclKind): Declaration[] {
    return [...this.decls.values()].filter((d) => d.kind === kind);
  }
}

/** The key of a local or parameter declared at `span` of `file`. */
export function localKey(file: string, span: Span): string {
  return `local:${file}:${span.line}:${span.column}`;
}
