/**
 * The AST of one rule file: the declarations as written, every node with its span.
 * No names are resolved here (that is compiler/check).
 */
import type { Span } from "../diagnostics/types.js";

export interface Name {
  name: string;
  span: Span;
}

export type TypeRef =
  | { k: "bool" | "int" | "string"; span: Span }
  | { k: "list"; elem: TypeRef; span: Span }
  | { k: "named"; name: Name; span: Span };

export interface Param {
  actor: boolean;
  name: Name;
  type: TypeRef;
  span: Span;
}

/**
 * One citation of a rule, exemption or table: `§9.6`, `§"Action Phase"` (a named section, for sources
 * without numbers), optionally after a game key: `vq §"Action Phase"`. Unkeyed citations cite the
 * edition's own `cites` key; module rules give one keyed citation per game.
 */
export interface Citation {
  /** the game key (`his`, `vq`), when written */
  key?: Name;
  /** "9.6" (without §) or the section's name (unquoted) */
  value: string;
  /** true for `§"…"` */
  named: boolean;
  span: Span;
}

export interface Group {
  name: string; // "*" or a name
  span: Span;
}

/**
 * An annotation of a rule or exemption, written after its title (and groups):
 * `@severity redundant_rule off "the rulebook states this twice on purpose"`.
 * The checker gives meaning to the name and arguments.
 */
export interface Annotation {
  name: Name;
  args: Name[];
  note?: string;
  span: Span;
}

export type RouteClause =
  | { k: "land" | "sea" | "port"; var: Name; expr: Expr; span: Span }
  | { k: "max_seas" | "max_steps" | "passes"; expr: Expr; span: Span };

export interface RuleDecl {
  k: "rule";
  id: Name;
  citations: Citation[];
  title: string;
  groups: Group[];
  annotations: Annotation[];
  during?: { phase: Name; segment?: Name; span: Span };
  kind: "forbid" | "oblige";
  action: Name;
  /**
   * `oblige A(p: e, …) when C`: the obliged move's parameter values (every parameter of A but its
   * actor), each an expression over the state and the actor; absent on `forbid` and on an
   * obligation of an action whose one parameter is its actor.
   */
  bind?: { param: Name; value: Expr; span: Span }[];
  when: Expr;
  /** `unless <exception>`: the rule does not apply when it holds (`when` and not `unless`) */
  unless?: Expr;
  span: Span;
}

/**
 * An action's scope: the phases (and segments) its moves belong to — a move in any of them
 * (`during a, b.s`: non-empty, in source order) — who may take them (`actor active`: only
 * `state.active_power`), cited.
 */
export interface ActionScope {
  during?: { phase: Name; segment?: Name; span: Span }[];
  who?: Name;
  citations: Citation[];
  span: Span;
}

export type Decl =
  | {
      k: "edition";
      name: Name;
      title: string;
      cites: string;
      /** `extends "<folder>"`: the parent edition's folder name under dsl/ */
      parent?: { path: string; span: Span };
      span: Span;
    }
  | { k: "module"; name: Name; title: string; span: Span }
  | { k: "import"; name: Name; span: Span }
  /** `override rule …`: the rule replaces the parent edition's rule of the same id */
  | { k: "override"; rule: RuleDecl; span: Span }
  /** `remove rule <id> "<reason>"` */
  | { k: "remove"; id: Name; reason: string; span: Span }
  | { k: "schema"; path: string; pathSpan: Span; span: Span }
  | { k: "board"; path: string; pathSpan: Span; span: Span }
  | { k: "enum"; name: Name; base?: Name; members: Name[]; span: Span }
  /** `scope`: `during P[.S][, P[.S]]* [actor active] <citations>` after the parameters (dsl/README.md, "Action scopes") */
  | { k: "action"; name: Name; params: Param[]; scope?: ActionScope; span: Span }
  | { k: "def"; name: Name; params: Param[]; ret: TypeRef; body: Expr; span: Span }
  | { k: "route"; name: Name; params: Param[]; clauses: RouteClause[]; span: Span }
  | RuleDecl
  | {
      k: "exempt";
      id: Name;
      citations: Citation[];
      title: string;
      annotations: Annotation[];
      targets: ({ k: "group"; group: Group } | { k: "rule"; id: Name })[];
      when: Expr;
      span: Span;
    }
  | { k: "invariant"; id: Name; title: string; expr: Expr; span: Span }
  /** `decline pass during action_phase "…"`: the phase's decline move (dsl/README.md, "Declining to act") */
  | { k: "decline"; action: Name; phase: Name; title: string; span: Span }
  | TableDecl;

// ---------------------------------------------------------------- tables

/** `roll: int in 2..12`: a table parameter; `range` only on `int`. */
export interface TableParam {
  name: Name;
  type: TypeRef;
  range?: { min: number; max: number; span: Span };
  span: Span;
}

/** `member` or `Enum.member` as written in a row. */
export interface MemberRef {
  enum?: Name;
  name: Name;
  span: Span;
}

/** One pattern of a row, matched against one key. */
export type TablePattern =
  | { k: "any"; span: Span } // `_`
  | { k: "int"; min?: number; max?: number; span: Span } // `7`, `5..6`, `<= 4`, `>= 10`
  | { k: "bool"; value: boolean; span: Span }
  | { k: "members"; members: MemberRef[]; span: Span }; // `explore`, `{england, france}`

/** A row's constant value. */
export type TableValue =
  | { k: "int"; value: number; span: Span }
  | { k: "bool"; value: boolean; span: Span }
  | { k: "member"; member: MemberRef; span: Span }
  | { k: "record"; fields: { name: Name; value: TableValue }[]; span: Span };

export interface TableRow {
  patterns: TablePattern[];
  guard?: Expr;
  value: TableValue;
  span: Span;
}

export interface TableDecl {
  k: "table";
  name: Name;
  /** as for rules: unkeyed, or one keyed citation per game (a module's tables) */
  citations: Citation[];
  title: string;
  params: TableParam[];
  /** a scalar type, or a record of scalar fields */
  result: { k: "type"; type: TypeRef; span: Span } | { k: "record"; fields: { name: Name; type: TypeRef }[]; span: Span };
  /** `key e1, e2`; absent: the parameters, in order */
  keys?: Expr[];
  rows: TableRow[];
  span: Span;
}

export type BinOp =
  | "and" | "or" | "implies"
  | "=" | "!=" | "<" | "<=" | ">" | ">="
  | "+" | "-" | "*" | "/"
  | "in" | "not in";

export type AggOp = "count" | "sum" | "max" | "min" | "sum_highest";

export type Expr = (
  | { k: "int"; value: number }
  | { k: "str"; value: string }
  | { k: "bool"; value: boolean }
  | { k: "state" }
  | { k: "name"; name: string }
  | { k: "call"; callee: Name; args: Expr[] }
  | { k: "field"; obj: Expr; field: Name }
  | { k: "index"; obj: Expr; key: Expr }
  | { k: "not"; arg: Expr }
  | { k: "neg"; arg: Expr }
  | { k: "bin"; op: BinOp; left: Expr; right: Expr; opSpan: Span }
  | { k: "set"; items: Expr[] }
  | { k: "quant"; q: "some" | "every"; var: Name; domain: Expr; body: Expr }
  | { k: "agg"; op: AggOp; n?: number; var: Name; domain: Expr; where?: Expr; body?: Expr }
  | { k: "len"; arg: Expr }
  /** `min(a, b)`, `max(a, b)`: the smaller or larger of two integers (`sum(a, b)` parses too; the checker rejects it) */
  | { k: "pick"; op: "min" | "max" | "sum"; left: Expr; right: Expr }
  | { k: "ite"; cond: Expr; then: Expr; else: Expr }
  | { k: "reach"; route: Name; args: Expr[]; from: Expr; to: Expr }
) & { span: Span };

export interface AstFile {
  file: string;
  decls: Decl[];
}
