/** The resolved declarations of one edition, shared by the checks. */
import type { Span } from "../diagnostics/types.js";
import type { Board, EnumType, Expr, Type } from "../ir/types.js";
import type { Decl, TableDecl } from "../syntax/ast.js";

export interface EnumInfo {
  name: string;
  /** the root enum */
  base: string;
  /** the enum it is declared a subset of (undefined for roots) */
  parent?: string;
  members: string[];
  file: string;
  span: Span;
  /** member name → its span in the declaration (absent for Space) */
  memberSpans: Map<string, Span>;
  /** the declaration had errors (skip comparisons that would only repeat them) */
  broken?: boolean;
}

export type DeclOf<K extends Decl["k"]> = Extract<Decl, { k: K }>;

/** Which edition level a declaration belongs to (see compiler/check/editions.ts). */
export interface Origin {
  /** the folder name of the edition that declares it or imports its module */
  edition: string;
  /** the module whose file declares it */
  module?: string;
  /** that edition's `cites` key (module citations are picked by it) */
  cites: string;
  /** the edition extends nothing (its declarations are `defined`, a variant's `added`) */
  root: boolean;
}

export interface Located<D> {
  decl: D;
  file: string;
  origin?: Origin;
}

export interface ParamInfo {
  name: string;
  type: Type;
  actor: boolean;
  /** its resolution key (compiler/check/resolution.ts `localKey`), for a parameter declared in a rule file */
  key?: string;
}

export interface Env {
  enums: Map<string, EnumInfo>;
  /** member → the root enums that contain it */
  memberIndex: Map<string, string[]>;
  defs: Map<string, Located<DeclOf<"def">> & { params?: ParamInfo[]; ret?: Type }>;
  routes: Map<string, Located<DeclOf<"route">> & { params?: ParamInfo[] }>;
  actions: Map<string, Located<DeclOf<"action">> & { params?: ParamInfo[] }>;
  state?: Extract<Type, { k: "record" }>;
  board?: Board;
  /** result tables by name (compiler/check/tables.ts); absent = none declared */
  tables?: Map<string, TableInfo>;
}

/** A table's signature; `params`/`result` are absent when they failed to resolve. */
export interface TableInfo extends Located<TableDecl> {
  /** int params carry their declared range as min/max */
  params?: { name: string; type: Type }[];
  /** bool, int, an enum, or a record of those */
  result?: Type;
}

export function enumType(env: Env, name: string): EnumType | undefined {
  const e = env.enums.get(name);
  return e ? { k: "enum", name: e.name, base: e.base, members: [...e.members] } : undefined;
}

export function typeName(t: Type): string {
  switch (t.k) {
    case "enum":
      return t.name;
    case "list":
      return `list<${typeName(t.elem)}>`;
    case "map":
      return `map<${typeName(t.key)}, ${typeName(t.value)}>`;
    case "record":
      return t.name ? `record ${t.name}` : "record";
    default:
      return t.k;
  }
}

/** A name bound in an expression: its type, its IR variable name, and (when it has one) its declaration. */
export interface Binding {
  type: Type;
  irName: string;
  /** the resolution key of its declaration (compiler/check/resolution.ts), when it has one */
  key?: string;
}

/** Where an expression is checked: its file, the names in scope, the IR names taken. */
/** A bound interval of an int expression, by a structural key of the expression (arith.ts `irKey`). */
export type Facts = ReadonlyMap<string, readonly [number, number]>;

export interface Ctx {
  file: string;
  scope: Map<string, Binding>;
  /** every IR variable name visible here (to pick fresh names for binders) */
  inUse: Set<string>;
  /** exemption checks: parameter name → a lifted rule whose action lacks it */
  missingParam?: Map<string, string>;
  /** bounds the guards before this expression establish (an `and` chain, the left of `implies`, an `if`'s condition): arith.ts */
  facts?: Facts;
}

/** `bool`, `int`, `string` or an enum: what `=`, `in` and table keys take. */
export function isScalar(t: Type): boolean {
  return t.k === "bool" || t.k === "int" || t.k === "string" || t.k === "enum";
}

/** `=`/`!=` compatibility: same scalar kind, enums with a common base. */
export function comparable(a: Type, b: Type): boolean {
  if (a.k === "enum" && b.k === "enum") return a.base === b.base;
  return a.k === b.k && isScalar(a);
}

/** Can a value of `actual` (the expression `e`) be used where `expected` is wanted? */
export function assignable(actual: Type, expected: Type, e?: Expr): boolean {
  if (actual.k === "enum" && expected.k === "enum") {
    if (actual.base !== expected.base) return false;
    if (e?.k === "lit") return expected.members.includes(String(e.value));
    return actual.members.every((m) => expected.members.includes(m));
  }
  if (actual.k === "list" && expected.k === "list") return assignable(actual.elem, expected.elem);
  if (actual.k === "map" && expected.k === "map") return assignable(actual.key, expected.key) && assignable(actual.value, expected.value);
  if (actual.k === "record" && expected.k === "record") return actual.name === expected.name && actual.fields.length === expected.fields.length;
  return actual.k === expected.k;
}
