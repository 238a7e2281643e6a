/**
 * The symbol index of one edition for the editor: every place a name is declared or used in the
 * edition's rule files (its own, its parents', its modules'), resolved to what it names — a rule,
 * exemption, invariant, action, enum, enum member, def, route, table, state field, or a local
 * (parameter, quantifier variable). Built from the compiler's ASTs (compiler/syntax) and the
 * state schema; names resolve as the checker resolves them (dsl/README.md, "Names and types"):
 * a local first, then an enum member, then an enum. A declaration with a syntax error is not in
 * the AST, so its names are not indexed until it parses.
 *
 * Keys: `rule:<id>`, `exempt:<id>`, `invariant:<id>`, `action:<name>`, `enum:<name>`,
 * `member:<root enum>.<name>`, `def:<name>`, `route:<name>`, `table:<name>`,
 * `field:<schema JSON pointer>`, `local:<file>:<line>:<column>` (the local's declaration).
 */
import { readConfinedFile, resolveConfined } from "../diagnostics/files.js";
import fs from "node:fs";
import path from "node:path";
import type { Span } from "../diagnostics/types.js";
import type { Decl, Expr, RuleDecl, TableDecl, TypeRef } from "../syntax/ast.js";
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

/** What the indexing of every declaration shares: the edition's names, the schema, and the sink of occurrences. */
interface Shared {
  schema?: StateSchema;
  enums: Map<string, EnumEntry>;
  rootOf: (e: string) => string;
  memberRoots: Map<string, string[]>;
  actions: Map<string, { params: Map<string, { span: Span; type: string }>; file: string }>;
  ruleAction: Map<string, string>;
  groupRules: Map<string, string[]>;
  defNames: Set<string>;
  routeNames: Set<string>;
  tableNames: Set<string>;
  add: (o: Occurrence) => void;
}

/** A name in scope: the key of its declaration, its type text, its schema node. */
type Local = { key: string; type?: string; schema?: SchemaNode; kind: SymbolKind };

/**
 * The resolvers of one declaration of `file` (named `within`): its scope of locals and the
 * indexing of its expressions, type references and enum members into `sh.add`.
 */
function declIndexer(sh: Shared, file: string, within: string | undefined) {
  const { schema, enums, rootOf, memberRoots, actions, defNames, routeNames, tableNames, add } = sh;
  // locals in scope: name → occurrence of their declaration
  const scope: Map<string, Local>[] = [];
  const lookup = (n: string): Local | undefined => {
    for (let i = scope.length - 1; i >= 0; i--) {
      const l = scope[i]!.get(n);
      if (l) return l;
    }
    return undefined;
  };
  const declareLocal = (name: string, span: Span, type: string | undefined, kind: SymbolKind, schemaNode?: SchemaNode): Local => {
    const key = `local:${file}:${span.line}:${span.column}`;
    add({ file, span, key, kind, name, def: true, within, type, schema: schemaNode });
    return { key, type, schema: schemaNode, kind };
  };
  const typeRef = (t: TypeRef) => {
    if (t.k === "list") typeRef(t.elem);
    else if (t.k === "named") add({ file, span: t.name.span, key: `enum:${t.name.name}`, kind: "enum", name: t.name.name, def: false, within });
  };
  const member = (name: string, span: Span, enumName?: string) => {
    const root = enumName ? rootOf(enumName) : memberRoots.get(name)?.[0];
    if (root) add({ file, span, key: `member:${root}.${name}`, kind: "member", name, def: false, within, type: enumName ?? root });
  };
  const actionParams = (actionNames: string[]) => {
    const m = new Map<string, Local>();
    for (const a of actionNames) {
      const act = actions.get(a);
      if (!act) continue;
      for (const [p, info] of act.params) if (!m.has(p)) m.set(p, { key: `local:${act.file}:${info.span.line}:${info.span.column}`, type: info.type, kind: "param" });
    }
    return m;
  };

  /** Resolves the schema node of a record-valued expression (for field occurrences). */
  const nodeOf = (e: Expr): SchemaNode | undefined => {
    if (!schema) return undefined;
    switch (e.k) {
      case "state":
        return schema.rootNode();
      case "name":
        return lookup(e.name)?.schema;
      case "field": {
        const o = nodeOf(e.obj);
        const f = o && schema.field(schema.deref(o), e.field.name);
        return f;
      }
      case "index": {
        const o = nodeOf(e.obj);
        return o && schema.mapValue(schema.deref(o));
      }
      default:
        return undefined;
    }
  };
  const elemOf = (domain: Expr): { schema?: SchemaNode; type?: string } => {
    if (domain.k === "name" && enums.has(domain.name) && !lookup(domain.name)) return { type: domain.name };
    if (domain.k === "call" && ["ports_of", "sea_zones_of", "neighbors"].includes(domain.callee.name)) return { type: "Space" };
    const n = nodeOf(domain);
    if (!n || !schema) return {};
    const items = schema.items(schema.deref(n));
    return items ? { schema: items, type: schema.typeText(items) } : {};
  };

  const expr = (e: Expr): void => {
    switch (e.k) {
      case "name": {
        const l = lookup(e.name);
        if (l) add({ file, span: e.span, key: l.key, kind: l.kind, name: e.name, def: false, within, type: l.type, schema: l.schema });
        else if (memberRoots.has(e.name)) member(e.name, e.span);
        else if (enums.has(e.name)) add({ file, span: e.span, key: `enum:${e.name}`, kind: "enum", name: e.name, def: false, within });
        return;
      }
      case "call": {
        const n = e.callee.name;
        const kind: SymbolKind | undefined = defNames.has(n) ? "def" : tableNames.has(n) ? "table" : routeNames.has(n) ? "route" : undefined;
        if (kind) add({ file, span: e.callee.span, key: `${kind}:${n}`, kind, name: n, def: false, within });
        e.args.forEach(expr);
        return;
      }
      case "field": {
        // `Enum.member`
        if (e.obj.k === "name" && !lookup(e.obj.name) && enums.has(e.obj.name)) {
          add({ file, span: e.obj.span, key: `enum:${e.obj.name}`, kind: "enum", name: e.obj.name, def: false, within });
          member(e.field.name, e.field.span, e.obj.name);
          return;
        }
        expr(e.obj);
        const o = nodeOf(e.obj);
        const f = o && schema ? schema.field(schema.deref(o), e.field.name) : undefined;
        if (f && schema) add({ file, span: e.field.span, key: `field:${f.pointer}`, kind: "field", name: e.field.name, def: false, within, type: schema.typeText(f), schema: f });
        return;
      }
      case "index":
        expr(e.obj);
        expr(e.key);
        return;
      case "not":
      case "neg":
        expr(e.arg);
        return;
      case "len":
        expr(e.arg);
        return;
      case "bin":
      case "pick":
        expr(e.left);
        expr(e.right);
        return;
      case "set":
        e.items.forEach(expr);
        return;
      case "ite":
        expr(e.cond);
        expr(e.then);
        expr(e.else);
        return;
      case "reach":
        if (routeNames.has(e.route.name)) add({ file, span: e.route.span, key: `route:${e.route.name}`, kind: "route", name: e.route.name, def: false, within });
        e.args.forEach(expr);
        expr(e.from);
        expr(e.to);
        return;
      case "quant":
      case "agg": {
        expr(e.domain);
        const el = elemOf(e.domain);
        scope.push(new Map([[e.var.name, declareLocal(e.var.name, e.var.span, el.type, "local", el.schema)]]));
        if (e.k === "agg" && e.where) expr(e.where);
        if (e.k === "quant") expr(e.body);
        else if (e.body) expr(e.body);
        scope.pop();
        return;
      }
      default:
        return;
    }
  };
  const paramsScope = (ps: { name: { name: string; span: Span }; type: TypeRef }[]) =>
    new Map(ps.map((p) => [p.name.name, declareLocal(p.name.name, p.name.span, typeRefText(p.type), "param")]));

  return { scope, expr, typeRef, member, actionParams, declareLocal, paramsScope };
}

/** Indexes one declaration of `file` into `sh.add`: its own name, the names it uses, its locals. */
function indexDecl(sh: Shared, decl: Decl, file: string): void {
  const { enums, rootOf, ruleAction, groupRules, add } = sh;
  const within = "id" in decl && decl.id && typeof decl.id === "object" ? (decl.id as { name: string }).name : "name" in decl && decl.name && typeof decl.name === "object" ? (decl.name as { name: string }).name : undefined;
  const { scope, expr, typeRef, member, actionParams, declareLocal, paramsScope } = declIndexer(sh, file, within);
  const rule = (r: RuleDecl, isOverride: boolean) => {
    add({ file, span: r.id.span, key: `rule:${r.id.name}`, kind: "rule", name: r.id.name, def: !isOverride, within: r.id.name });
    if (r.during) {
      member(r.during.phase.name, r.during.phase.span, enums.has("Phase") ? "Phase" : undefined);
      if (r.during.segment) member(r.during.segment.name, r.during.segment.span, enums.has("Segment") ? "Segment" : undefined);
    }
    add({ file, span: r.action.span, key: `action:${r.action.name}`, kind: "action", name: r.action.name, def: false, within });
    scope.push(actionParams([r.action.name]));
    expr(r.when);
    if (r.unless) expr(r.unless);
    scope.pop();
  };

  switch (decl.k) {
    case "rule":
      rule(decl, false);
      break;
    case "override":
      rule(decl.rule, true);
      break;
    case "remove":
      add({ file, span: decl.id.span, key: `rule:${decl.id.name}`, kind: "rule", name: decl.id.name, def: false, within });
      break;
    case "exempt": {
      add({ file, span: decl.id.span, key: `exempt:${decl.id.name}`, kind: "exempt", name: decl.id.name, def: true, within });
      const lifted: string[] = [];
      for (const t of decl.targets) {
        if (t.k === "rule") {
          add({ file, span: t.id.span, key: `rule:${t.id.name}`, kind: "rule", name: t.id.name, def: false, within });
          lifted.push(t.id.name);
        } else lifted.push(...(groupRules.get(t.group.name) ?? []));
      }
      scope.push(actionParams([...new Set(lifted.map((r) => ruleAction.get(r)).filter((a): a is string => !!a))]));
      expr(decl.when);
      scope.pop();
      break;
    }
    case "invariant":
      add({ file, span: decl.id.span, key: `invariant:${decl.id.name}`, kind: "invariant", name: decl.id.name, def: true, within });
      expr(decl.expr);
      break;
    case "action":
      add({ file, span: decl.name.span, key: `action:${decl.name.name}`, kind: "action", name: decl.name.name, def: true, within });
      for (const p of decl.params) {
        add({ file, span: p.name.span, key: `local:${file}:${p.name.span.line}:${p.name.span.column}`, kind: "param", name: p.name.name, def: true, within, type: typeRefText(p.type) });
        typeRef(p.type);
      }
      break;
    case "enum": {
      add({ file, span: decl.name.span, key: `enum:${decl.name.name}`, kind: "enum", name: decl.name.name, def: true, within });
      if (decl.base) add({ file, span: decl.base.span, key: `enum:${decl.base.name}`, kind: "enum", name: decl.base.name, def: false, within });
      const root = rootOf(decl.name.name);
      for (const m of decl.members) add({ file, span: m.span, key: `member:${root}.${m.name}`, kind: "member", name: m.name, def: !decl.base, within, type: decl.name.name });
      break;
    }
    case "def":
      add({ file, span: decl.name.span, key: `def:${decl.name.name}`, kind: "def", name: decl.name.name, def: true, within });
      decl.params.forEach((p) => typeRef(p.type));
      typeRef(decl.ret);
      scope.push(paramsScope(decl.params));
      expr(decl.body);
      scope.pop();
      break;
    case "route":
      add({ file, span: decl.name.span, key: `route:${decl.name.name}`, kind: "route", name: decl.name.name, def: true, within });
      decl.params.forEach((p) => typeRef(p.type));
      scope.push(paramsScope(decl.params));
      for (const c of decl.clauses) {
        if (c.k === "land" || c.k === "sea" || c.k === "port") {
          scope.push(new Map([[c.var.name, declareLocal(c.var.name, c.var.span, "Space", "local")]]));
          expr(c.expr);
          scope.pop();
        } else expr(c.expr);
      }
      scope.pop();
      break;
    case "table":
      table(decl, file, within, add, scope, declareLocal, typeRef, member, expr);
      break;
    default:
      break;
  }
}

/**
 * The symbol index of the edition in folder `dir` (absolute): its declarations in file order, its
 * enums (with `Space` from the board), the schema and board it declares (read confined, as the
 * checker reads them), and every occurrence of a name with its key; `defs` maps each key to its
 * declaration (a state field's is its key in the schema, a space's its id in the board).
 */
export function buildIndex(project: Project, dir: string): EditionIndex {
  const files = project.filesOf(dir);
  const decls: DeclEntry[] = [];
  for (const f of files) for (const d of project.ast(f).decls) decls.push({ decl: d, file: f });

  // schema and board: the first declaration in file order (the edition's own files come first)
  let schema: StateSchema | undefined;
  let board: EditionIndex["board"];
  // only a file inside the edition folder (real path inside it or the project), regular, at most
  // 16 MB, as the checker reads it (issue 29: a rule file never makes the server read /dev/zero)
  const confined = (ref: string, file: string): string | undefined => {
    const dir = path.dirname(file);
    const r = resolveConfined(ref, dir, dir);
    return "abs" in r && "buf" in readConfinedFile(r.abs, [dir, project.root]) ? r.abs : undefined;
  };
  for (const { decl, file } of decls) {
    if (decl.k === "schema" && !schema) {
      const sf = confined(decl.path, file);
      schema = sf === undefined ? undefined : StateSchema.load(sf);
    }
    if (decl.k === "board" && !board) {
      const bf = confined(decl.path, file);
      if (bf === undefined) continue;
      try {
        const b = JSON.parse(fs.readFileSync(bf, "utf8")) as { spaces?: { id?: unknown }[] };
        board = { file: bf, spaces: (b.spaces ?? []).map((s) => String(s.id)) };
      } catch {
        // unreadable board: Space members stay unresolved (the checker reports the board)
      }
    }
  }

  const enums = new Map<string, EnumEntry>();
  for (const { decl, file } of decls) {
    if (decl.k === "enum" && !enums.has(decl.name.name)) enums.set(decl.name.name, { name: decl.name.name, base: decl.base?.name, members: decl.members.map((m) => m.name), file, span: decl.name.span });
  }
  if (board) enums.set("Space", { name: "Space", members: board.spaces, file: board.file, span: { line: 1, column: 1, endLine: 1, endColumn: 2 } });
  const rootOf = (e: string): string => {
    let cur = e;
    for (let i = 0; i < 16; i++) {
      const b = enums.get(cur)?.base;
      if (!b || !enums.has(b)) return cur;
      cur = b;
    }
    return cur;
  };
  const memberRoots = new Map<string, string[]>();
  for (const e of enums.values()) {
    if (e.base) continue;
    for (const m of e.members) memberRoots.set(m, [...(memberRoots.get(m) ?? []), e.name]);
  }

  const actions = new Map<string, { params: Map<string, { span: Span; type: string }>; file: string }>();
  const ruleAction = new Map<string, string>();
  const groupRules = new Map<string, string[]>();
  const defNames = new Set<string>();
  const routeNames = new Set<string>();
  const tableNames = new Set<string>();
  const rulesOf = (d: Decl): RuleDecl | undefined => (d.k === "rule" ? d : d.k === "override" ? d.rule : undefined);
  for (const { decl, file } of decls) {
    if (decl.k === "action") actions.set(decl.name.name, { file, params: new Map(decl.params.map((p) => [p.name.name, { span: p.name.span, type: typeRefText(p.type) }])) });
    if (decl.k === "def") defNames.add(decl.name.name);
    if (decl.k === "route") routeNames.add(decl.name.name);
    if (decl.k === "table") tableNames.add(decl.name.name);
    const r = rulesOf(decl);
    if (r) {
      ruleAction.set(r.id.name, r.action.name);
      for (const g of r.groups) groupRules.set(g.name, [...(groupRules.get(g.name) ?? []), r.id.name]);
    }
  }

  const occ: Occurrence[] = [];
  const add = (o: Occurrence) => occ.push(o);
  const shared: Shared = { schema, enums, rootOf, memberRoots, actions, ruleAction, groupRules, defNames, routeNames, tableNames, add };
  for (const { decl, file } of decls) indexDecl(shared, decl, file);
  // Space members are declared in the board file
  if (board) {
    let text = "";
    try {
      text = fs.readFileSync(board.file, "utf8");
    } catch {
      // unreadable: no positions
    }
    const lines = text.split("\n");
    const seen = new Set<string>();
    lines.forEach((l, i) => {
      const m = /"id"\s*:\s*"([^"]+)"/.exec(l);
      if (m && board!.spaces.includes(m[1]!) && !seen.has(m[1]!)) {
        seen.add(m[1]!);
        const col = l.indexOf(`"${m[1]}"`) + 2;
        add({ file: board!.file, span: { line: i + 1, column: col, endLine: i + 1, endColumn: col + m[1]!.length }, key: `member:Space.${m[1]}`, kind: "member", name: m[1]!, def: true, type: "Space" });
      }
    });
  }
  // state fields are declared in the schema
  const defs = new Map<string, Occurrence>();
  for (const o of occ) if (o.def && !defs.has(o.key)) defs.set(o.key, o);
  if (schema) {
    for (const o of occ) {
      if (o.kind !== "field" || defs.has(o.key)) continue;
      const ptr = o.key.slice("field:".length);
      defs.set(o.key, { file: schema.file, span: keySpan(schema, ptr), key: o.key, kind: "field", name: o.name, def: true, type: o.type, schema: o.schema });
    }
  }
  return { dir, files, occurrences: occ, defs, decls, enums, schema, board };
}

/** The span of a property's key in the schema file: the line of its value, from the key's quote. */
function keySpan(schema: StateSchema, pointer: string): Span {
  const s = schema.spanOf(pointer);
  return s;
}

function table(
  decl: TableDecl,
  file: string,
  within: string | undefined,
  add: (o: Occurrence) => void,
  scope: Map<string, { key: string; type?: string; kind: SymbolKind }>[],
  declareLocal: (name: string, span: Span, type: string | undefined, kind: SymbolKind) => { key: string; type?: string; kind: SymbolKind },
  typeRef: (t: TypeRef) => void,
  member: (name: string, span: Span, enumName?: string) => void,
  expr: (e: Expr) => void,
): void {
  add({ file, span: decl.name.span, key: `table:${decl.name.name}`, kind: "table", name: decl.name.name, def: true, within });
  const params = new Map<string, { key: string; type?: string; kind: SymbolKind }>();
  for (const p of decl.params) {
    typeRef(p.type);
    params.set(p.name.name, declareLocal(p.name.name, p.name.span, typeRefText(p.type) + (p.range ? ` in ${p.range.min}..${p.range.max}` : ""), "param"));
  }
  if (decl.result.k === "type") typeRef(decl.result.type);
  else decl.result.fields.forEach((f) => typeRef(f.type));
  scope.push(params);
  decl.keys?.forEach(expr);
  // the enum of each key: a parameter's type when the keys are the parameters
  const keyEnums = decl.keys ? [] : decl.params.map((p) => (p.type.k === "named" ? p.type.name.name : undefined));
  const resultEnum = decl.result.k === "type" && decl.result.type.k === "named" ? decl.result.type.name.name : undefined;
  const fieldEnums = new Map(decl.result.k === "record" ? decl.result.fields.map((f) => [f.name.name, f.type.k === "named" ? f.type.name.name : undefined]) : []);
  const value = (v: TableDecl["rows"][number]["value"], enumName?: string): void => {
    if (v.k === "member") {
      if (v.member.enum) add({ file, span: v.member.enum.span, key: `enum:${v.member.enum.name}`, kind: "enum", name: v.member.enum.name, def: false, within });
      member(v.member.name.name, v.member.name.span, v.member.enum?.name ?? enumName);
    } else if (v.k === "record") for (const f of v.fields) value(f.value, fieldEnums.get(f.name.name));
  };
  for (const row of decl.rows) {
    row.patterns.forEach((p, i) => {
      if (p.k !== "members") return;
      for (const m of p.members) {
        if (m.enum) add({ file, span: m.enum.span, key: `enum:${m.enum.name}`, kind: "enum", name: m.enum.name, def: false, within });
        member(m.name.name, m.name.span, m.enum?.name ?? keyEnums[i]);
      }
    });
    if (row.guard) expr(row.guard);
    value(row.value, resultEnum);
  }
  scope.pop();
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
