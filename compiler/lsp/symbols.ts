/**
 * The symbol index of one edition for the editor: every place a name is declared or used in the
 * edition's rule files (its own, its parents', its modules'), with what it names — a rule,
 * exemption, invariant, action, enum, enum member, def, route, table, state field, or a local
 * (parameter, quantifier variable). Names are not resolved here: the index is the checker's
 * resolution table (compiler/check/resolution.ts, from the last check of the edition with the
 * editor's buffers, `Project.resolutionOf`) with absolute paths and the type texts hover shows.
 * A declaration with a syntax error is not in the AST, so its names are not indexed until it
 * parses; a name the checker could not resolve has no occurrence.
 *
 * Keys: the resolution table's (`rule:<id>`, `exempt:<id>`, `invariant:<id>`, `action:<name>`,
 * `enum:<name>`, `member:<root enum>.<name>`, `def:<name>`, `route:<name>`, `table:<name>`,
 * `field:<schema JSON pointer>`, `local:<file>:<line>:<column>`); rule groups and board builtins
 * are left out (nothing here renames or describes them).
 */
import type { Span } from "../diagnostics/types.js";
import type { Type } from "../ir/types.js";
import type { Declaration, Resolution } from "../check/resolution.js";
import type { Decl, TypeRef } from "../syntax/ast.js";
import type { Project } from "./project.js";
import { StateSchema, type SchemaNode } from "./schema.js";

export type SymbolKind = "rule" | "exempt" | "invariant" | "action" | "enum" | "member" | "def" | "route" | "table" | "field" | "param" | "local";

export interface Occurrence {
  /** absolute path of the file (a rule file, or the schema / board JSON for definitions there) */
  file: string;
  span: Span;
  key: string;
  kind: SymbolKind;
  /** the name as written */
  name: string;
  /** true at the declaration */
  def: boolean;
  /** the declaration this occurrence sits in (rule id, def name, …) */
  within?: string;
  /** what hover shows as the type: a local's or parameter's type, a field's schema type */
  type?: string;
  /** a field's schema node */
  schema?: SchemaNode;
}

export interface EnumEntry {
  name: string;
  base?: string;
  members: string[];
  file: string;
  span: Span;
}

export interface DeclEntry {
  decl: Decl;
  file: string;
}

export interface EditionIndex {
  dir: string;
  files: string[];
  occurrences: Occurrence[];
  /** key → its declaration */
  defs: Map<string, Occurrence>;
  decls: DeclEntry[];
  enums: Map<string, EnumEntry>;
  schema?: StateSchema;
  /** board file (absolute) and its space ids */
  board?: { file: string; spaces: string[] };
}

export function typeRefText(t: TypeRef): string {
  switch (t.k) {
    case "list":
      return `list<${typeRefText(t.elem)}>`;
    case "named":
      return t.name.name;
    default:
      return t.k;
  }
}

/** Does the span contain the (1-based) position? */
export function spanHas(s: Span, line: number, column: number): boolean {
  if (line < s.line || line > s.endLine) return false;
  if (line === s.line && column < s.column) return false;
  if (line === s.endLine && column > s.endColumn) return false;
  return true;
}

/** The type as hover writes it: `Card`, `list<Card>`, `map<Power, int>`, `int in 0..5`. */
export function typeText(t: Type): string {
  switch (t.k) {
    case "enum":
      return t.name;
    case "list":
      return `list<${typeText(t.elem)}>`;
    case "map":
      return `map<${typeText(t.key)}, ${typeText(t.value)}>`;
    case "record":
      return t.name ?? "record";
    case "int":
      return t.min !== undefined || t.max !== undefined ? `int in ${t.min ?? "…"}..${t.max ?? "…"}` : "int";
    default:
      return t.k;
  }
}

/**
 * The symbol index of the edition in folder `dir` (absolute): its declarations in file order (from
 * the ASTs), its enums (with `Space` from the board), the schema and board the checker read
 * (confined to the edition folder, compiler/diagnostics/files.ts), and every declaration and use
 * the checker resolved (`project.resolutionOf(dir)`) as an occurrence; `defs` maps each key to its
 * declaration (a state field's is its key in the schema, a space's its id in the board).
 */
export function buildIndex(project: Project, dir: string): EditionIndex {
  const files = project.filesOf(dir);
  const decls: DeclEntry[] = [];
  for (const f of files) for (const d of project.ast(f).decls) decls.push({ decl: d, file: f });
  const res = project.resolutionOf(dir);
  const schema = res.files.schema === undefined ? undefined : StateSchema.load(project.abs(res.files.schema));
  const enums = new Map<string, EnumEntry>();
  for (const { decl, file } of decls) {
    if (decl.k === "enum" && !enums.has(decl.name.name)) enums.set(decl.name.name, { name: decl.name.name, base: decl.base?.name, members: decl.members.map((m) => m.name), file, span: decl.name.span });
  }
  let board: EditionIndex["board"];
  if (res.files.board !== undefined) {
    board = { file: project.abs(res.files.board), spaces: res.ofKind("member").filter((d) => d.parent === "enum:Space").map((d) => d.name) };
    enums.set("Space", { name: "Space", members: board.spaces, file: board.file, span: { line: 1, column: 1, endLine: 1, endColumn: 2 } });
  }
  const occurrences = occurrencesOf(project, res, schema);
  const defs = new Map<string, Occurrence>();
  for (const o of occurrences) if (o.def && !defs.has(o.key)) defs.set(o.key, o);
  return { dir, files, occurrences, defs, decls, enums, schema, board };
}

/** The kinds of the resolution table the index holds, as symbol kinds (groups and builtins left out). */
const SYMBOL_KINDS = new Set<string>(["rule", "exempt", "invariant", "action", "enum", "member", "def", "route", "table", "field", "param", "local"]);

/** Every declaration and use of the resolution table as occurrences (absolute paths, type texts, a field's schema node). */
function occurrencesOf(project: Project, res: Resolution, schema: StateSchema | undefined): Occurrence[] {
  const out: Occurrence[] = [];
  const described = (d: Declaration, type: Type | undefined) => {
    if (d.kind === "field") {
      const node = schema?.at(d.key.slice("field:".length));
      return { type: node && schema ? schema.typeText(node) : type && typeText(type), schema: node };
    }
    return { type: type && typeText(type) };
  };
  for (const d of res.decls.values()) {
    if (!SYMBOL_KINDS.has(d.kind) || !d.file) continue;
    const within = d.parent?.slice(d.parent.indexOf(":") + 1);
    out.push({ file: project.abs(d.file), span: d.span, key: d.key, kind: d.kind as SymbolKind, name: d.name, def: true, ...(within ? { within } : {}), ...described(d, d.type) });
  }
  for (const u of res.uses) {
    const d = res.declaration(u.key);
    if (!d || !SYMBOL_KINDS.has(d.kind)) continue;
    out.push({ file: project.abs(u.file), span: u.span, key: u.key, kind: d.kind as SymbolKind, name: d.name, def: false, ...described(d, u.type ?? d.type) });
  }
  return out;
}

/** The occurrence at a (1-based) position of a file, the innermost one. */
export function occurrenceAt(index: EditionIndex, file: string, line: number, column: number): Occurrence | undefined {
  let best: Occurrence | undefined;
  for (const o of index.occurrences) {
    if (o.file !== file || !spanHas(o.span, line, column)) continue;
    if (!best || o.span.endColumn - o.span.column < best.span.endColumn - best.span.column) best = o;
  }
  return best;
}
