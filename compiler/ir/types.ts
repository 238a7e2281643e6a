/**
 * The rulewright IR: the one normalized form that both backends (codegen, verify) read.
 *
 * Produced by `compiler/check` (resolve + typecheck + lower) from the AST of one edition.
 * Definitions (`def`) are already inlined; phase scopes are kept separate from conditions;
 * every enum literal is resolved to its base enum. Nothing here knows about Z3 or ts-morph.
 *
 * INVARIANT: every Expr carries its resolved `type`; backends never re-derive types.
 */

/** A position in a rule file: 1-based line and column, `file` relative to the repo root. */
import type { SeverityOverride } from "./analyses.js";

export interface SourcePos {
  file: string;
  line: number;
  column: number;
}

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/**
 * A value type of the language.
 * - `enum`: `name` is the enum as written (maybe a subset like MajorPower), `base` the root
 *   enum whose members are the value domain (Power for MajorPower). `members` are the members
 *   of `name` (a subset of the base's members, in declaration order).
 * - `list`: a JSON array; `bound` is its `maxItems` (the bound the prover unrolls to).
 * - `map`: a JSON object keyed by every member of an enum (all keys present).
 * - `record`: a JSON object with fixed properties.
 */
export type Type =
  | { k: "bool" }
  | { k: "int"; min?: number; max?: number }
  | { k: "string" }
  | { k: "enum"; name: string; base: string; members: string[] }
  | { k: "list"; elem: Type; bound: number }
  | { k: "map"; key: Extract<Type, { k: "enum" }>; value: Type }
  | { k: "record"; name?: string; fields: { name: string; type: Type }[] };

export type EnumType = Extract<Type, { k: "enum" }>;

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

/** Board functions built into the language; their meaning comes from the edition's board. */
export type BoardFn =
  | "is_land" // (s: Space): bool
  | "is_sea" // (s: Space): bool — a sea zone
  | "is_port" // (s: Space): bool — a land space with at least one port connection
  | "is_fortified" // (s: Space): bool — key, fortress, capital or electorate
  | "is_key" // (s: Space): bool — key or capital (a capital is also a key)
  | "is_electorate" // (s: Space): bool
  | "is_capital" // (s: Space, p: Power): bool — capital whose home power is p
  | "is_home" // (s: Space, p: Power): bool — p is (one of) the space's home powers
  | "adjacent" // (a: Space, b: Space): bool — a normal or pass land connection, or port/sea
  | "pass_between" // (a: Space, b: Space): bool — the connection is over a mountain pass
  | "port_on"; // (q: Space, z: Space): bool — land space q is a port on sea zone z

/** Board collections usable as a quantifier or aggregate domain. */
export type BoardDomainFn =
  | "ports_of" // (z: Space) → the ports on sea zone z
  | "sea_zones_of" // (q: Space) → the sea zones a port q touches
  | "neighbors"; // (s: Space) → every space connected to s (any connection type)

export type CmpOp = "=" | "!=" | "<" | "<=" | ">" | ">=";
/** `/` is integer division rounding down (toward −∞); INVARIANT (checked): its right operand is a positive integer literal. */
export type ArithOp = "+" | "-" | "*" | "/";

export type Domain =
  /** every member of an enum type (e.g. `some m in MajorPower: …`) */
  | { k: "enum"; type: EnumType }
  /** the elements of a list-typed expression (e.g. `some c in state.hands[power]: …`) */
  | { k: "list"; expr: Expr }
  /** a board collection; elements have type Space */
  | { k: "board"; fn: BoardDomainFn; args: Expr[] };

export type Expr = (
  | { k: "lit"; value: boolean | number | string } // enum literal: value is the member name
  | { k: "var"; name: string } // action parameter, quantifier/aggregate variable, route parameter
  | { k: "state" } // the root of the game state
  | { k: "field"; obj: Expr; field: string } // record field
  | { k: "index"; obj: Expr; key: Expr } // map lookup by enum key
  | { k: "not"; arg: Expr }
  | { k: "and"; args: Expr[] }
  | { k: "or"; args: Expr[] }
  | { k: "implies"; left: Expr; right: Expr }
  | { k: "cmp"; op: CmpOp; left: Expr; right: Expr } // = and != on any scalar type; order on int
  | { k: "arith"; op: ArithOp; left: Expr; right: Expr }
  | { k: "neg"; arg: Expr }
  | { k: "ite"; cond: Expr; then: Expr; else: Expr }
  /** `elem in set`: set is a `setlit`, or a list of scalars (membership by equality) */
  | { k: "in"; elem: Expr; set: Expr }
  | { k: "setlit"; items: Expr[] }
  | { k: "quant"; q: "some" | "every"; var: string; varType: Type; domain: Domain; body: Expr }
  /**
   * Aggregates over a domain, filtered by `where` (absent = true).
   * count: number of elements; sum: Σ body; max/min: extreme of body, 0 when empty;
   * sum_highest: sum of the `n` largest values of body (fewer when fewer elements).
   */
  | {
      k: "agg";
      op: "count" | "sum" | "max" | "min" | "sum_highest";
      n?: number;
      var: string;
      varType: Type;
      domain: Domain;
      where?: Expr;
      body?: Expr; // absent for count
    }
  /** `count(listExpr)`: the length of a list */
  | { k: "len"; arg: Expr }
  | { k: "board"; fn: BoardFn; args: Expr[] }
  /**
   * `distance(from, to)`: the number of connections on a shortest path between two spaces of the
   * board, over every connection type (normal, pass, port, sea: a sea zone counts as a space);
   * 0 from a space to itself; the board's space count (more than any real distance) when no path
   * joins them. A static property of the board: `boardDistances` (compiler/ir/board.ts).
   * INVARIANT: `type` is `int` with min 0 and max the space count.
   */
  | { k: "distance"; from: Expr; to: Expr }
  /** `reachable(route(args), from, to)`: a path exists on the board under the route's clauses */
  | { k: "reach"; route: string; args: Expr[]; from: Expr; to: Expr }
  /**
   * `t(args)` or `t(args).field`: the value of table `t` (IREdition.tables) for these inputs, one
   * argument per table parameter. INVARIANT (checked): every argument lies in the parameter's
   * declared domain wherever the call is evaluated (by its bounds, or by the guards before it in an
   * `and` chain, on the left of `implies` or in an `if`'s condition), so a gap-free table always
   * has a row for it. `field` picks a field of a
   * record-valued table (a record is never a value of its own).
   */
  | { k: "table"; table: string; args: Expr[]; field?: string }
) & { type: Type; pos?: SourcePos };

// ---------------------------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------------------------

export interface Citation {
  /** the game key cited, e.g. "his" (the edition's `cites` key) */
  source: string;
  /** e.g. "9.6" (printed as §9.6), or a section's name ("Action Phase") when `named` */
  section: string;
  /** "his §9.6", or `vq §"Action Phase"` for a named section */
  text: string;
  /** present (true) for a named section `§"…"` (sources without section numbers) */
  named?: true;
}

/**
 * Where a rule or exemption comes from (dsl/README.md, "Modules and variant editions").
 * The defining file is `pos.file` of the rule.
 */
export interface Provenance {
  /** the module (dsl/modules/<module>/) whose file declares it, if any */
  module?: string;
  /**
   * The edition (its folder name under dsl/) whose rule files declare it or which imports the
   * module that does: for a rule a variant added or overrode, the variant; for an inherited
   * rule, the ancestor edition that introduced it.
   */
  edition: string;
  /** `defined` by an edition that extends nothing; `added` or `overridden` by a variant */
  change: "defined" | "added" | "overridden";
  /** for `overridden`: the position of the parent's rule it replaces */
  replaces?: SourcePos;
}

/** A rule a variant dropped with `remove rule <id> "<reason>"`. */
export interface IRRemoval {
  id: string;
  reason: string;
  /** the variant (folder name) that removed it */
  edition: string;
  /** the `remove rule` declaration */
  pos: SourcePos;
  /** where the removed rule was declared */
  removedPos: SourcePos;
}

export interface IREnum {
  name: string;
  /** the root enum (itself when not a subset) */
  base: string;
  members: string[];
  pos: SourcePos;
}

export interface IRParam {
  name: string;
  type: Type;
  /** the acting major power (at most one per action) */
  actor: boolean;
}

export interface IRAction {
  name: string;
  params: IRParam[];
  pos: SourcePos;
  /**
   * The declaration's scope (`during P[.S][, P[.S]]* [actor active] <citation>`): when the action
   * is a move at all. Read by `legalMoves` only (and exported in `ACTIONS`); the rules and the
   * prover do not read it. Absent: a move in every phase, of any actor.
   */
  scope?: IRActionScope;
}

/**
 * An action's scope: the phases (segments) its moves belong to — a move in any of them (non-empty,
 * in source order, none named twice or overlapping; absent: every phase) — whether only
 * `state.active_power` takes it, and the citation.
 */
export interface IRActionScope {
  during?: IRScope[];
  activeOnly: boolean;
  citation: Citation;
}

/**
 * A route over the board. A path is a sequence of spaces from `from` to `to`; each step follows
 * a board connection. The clauses are expressions over the route's params and the variable
 * named in the clause (`landVar`, …), evaluated against the state:
 * - `land`: every land space on the path (origin and destination included) must satisfy it;
 * - `sea`: every sea zone on the path must satisfy it;
 * - `port`: a land space from which the path enters, or onto which it leaves, a sea zone must
 *   satisfy it (in addition to `land`); absent = true;
 * - `maxSeas`: at most this many sea zones on the path (int expr); absent = unlimited;
 * - `maxSteps`: at most this many connections on the path (int expr; every connection is one
 *   step, as `distance` counts them); absent = unlimited (the key is left out, so an edition
 *   without it has the IR, hashes and proof keys it had before the clause existed);
 * - `passes`: whether a step may cross a mountain pass (bool expr); absent = true.
 */
export interface IRRoute {
  name: string;
  params: IRParam[];
  landVar: string;
  land: Expr;
  seaVar: string;
  sea: Expr;
  portVar: string;
  port: Expr;
  maxSeas: Expr | null;
  maxSteps?: Expr;
  passes: Expr;
  pos: SourcePos;
}

/** One parameter value of an obliged move (`IRRule.bind`). */
export interface IRBinding {
  param: string;
  /** over `state` and the action's actor parameter */
  value: Expr;
}

export interface IRScope {
  phase: string; // member of enum Phase, compared to state.phase
  segment?: string; // member of enum Segment, compared to state.segment
}

export interface IRRule {
  id: string; // dotted, unique in the edition: "dow.scotland"
  kind: "forbid" | "oblige";
  action: string;
  title: string; // the message a verdict shows
  citation: Citation;
  scope: IRScope | null;
  /** exemption groups the rule belongs to, e.g. ["*"] */
  groups: string[];
  /** the condition, over `state` and the action's params (by name) */
  when: Expr;
  /**
   * `oblige A(p: e, …) when C` (an obligation with parameters): the obliged move's value of every
   * parameter of A but its actor, in A's parameter order, each an expression over the state and
   * the actor (as `when` then is). When the rule fires for a power, its one legal move is A with
   * these values: A with other values is a violation of the rule, as every other action of the
   * power is (dsl/README.md "Rules"). Absent on forbid rules and on obligations of an action whose
   * one parameter is its actor (the key is left out: their IR is unchanged).
   */
  bind?: IRBinding[];
  pos: SourcePos;
  /**
   * the module and edition it comes from (the file is pos.file). The checker always sets it;
   * absent only in hand-built IR (tests), read as `{ edition: <the edition's folder>, change: "defined" }`.
   */
  provenance?: Provenance;
  /** `@severity` annotations (absent = the analyses' default severities) */
  severities?: SeverityOverride[];
}

export interface IRExemption {
  id: string;
  title: string;
  citation: Citation;
  /** groups it lifts, e.g. ["*"] */
  groups: string[];
  /** rule ids it lifts by name */
  rules: string[];
  /**
   * When true the lifted rules do not apply. Evaluated in the lifted rule's action context:
   * it may read `state` and any action parameter name that every lifted rule's action has.
   */
  when: Expr;
  pos: SourcePos;
  /** the module and edition it comes from (`change` is never `overridden`); set by the checker, as for rules */
  provenance?: Provenance;
  /** `@severity` annotations (absent = the analyses' default severities) */
  severities?: SeverityOverride[];
}

export interface IRInvariant {
  id: string;
  title: string;
  expr: Expr; // over `state` only
  pos: SourcePos;
}

/**
 * `decline <action> during <phase> "<title>"` (dsl/README.md, "Declining to act"): the move by
 * which the active power declines to act in `phase` — a choice-free action (its only parameter
 * is its actor). The stuck-power analysis of the phase counts it among the phase's moves: a power
 * is stuck only when it, too, is forbidden.
 */
export interface IRDecline {
  /** a member of enum Phase */
  phase: string;
  /** the action's name */
  action: string;
  title: string;
  pos: SourcePos;
}

// ---------------------------------------------------------------------------------------------
// Tables (dsl/README.md, "Tables")
// ---------------------------------------------------------------------------------------------

/**
 * A row pattern, matched against one key:
 * - `any`: `_`;
 * - `range`: an int key in [min, max] (inclusive; an absent end is unbounded);
 * - `members`: an enum key equal to one of these members (names of the key's base enum);
 * - `bool`: a bool key equal to `value`.
 */
export type TablePattern =
  | { k: "any" }
  | { k: "range"; min?: number; max?: number }
  | { k: "members"; members: string[] }
  | { k: "bool"; value: boolean };

/** A row's constant: int, bool, enum member name, or (record results) one such per field. */
export type TableScalar = boolean | number | string;
export type TableValue = TableScalar | { readonly [field: string]: TableScalar };

export interface IRTableRow {
  /** one per key, in key order */
  patterns: TablePattern[];
  /** `when` condition over the parameters, or null */
  guard: Expr | null;
  value: TableValue;
  pos: SourcePos;
}

/**
 * A result table: a pure function of its parameters (never reads the state). Its domain is the
 * product of the parameter types: `int` params with a declared range (`int in 2..12` → `{ k:
 * "int", min: 2, max: 12 }`) or unbounded, `bool`, enums (their members). The keys are
 * expressions over the parameters (var nodes); a row matches when each pattern matches its key
 * and its guard holds. Lookups take the first matching row; the prover shows (obligations
 * `table_gap`, `table_overlap`) that exactly one row matches every input of the domain.
 */
export interface IRTable {
  name: string;
  title: string;
  citation: Citation;
  params: { name: string; type: Type }[];
  keys: Expr[];
  /** the keys as written (a parameter name, or the key expression's source text) */
  keyLabels: string[];
  /** bool, int, an enum, or a record of those (unnamed) */
  result: Type;
  rows: IRTableRow[];
  pos: SourcePos;
}

/** The board in the project's own format (dsl/<edition>/board.json). */
export interface Board {
  spaces: BoardSpace[];
  connections: BoardConnection[];
}
export interface BoardSpace {
  id: string; // snake_case, member of enum Space
  name: string; // as printed on the map
  type: "normal" | "key" | "fortress" | "capital" | "electorate" | "sea";
  /** home powers (empty for independent spaces and sea zones) */
  home: string[];
}
export interface BoardConnection {
  from: string;
  to: string;
  type: "normal" | "pass" | "port" | "sea";
}

export interface IREdition {
  name: string; // "his" — as declared by `edition <name>`
  /**
   * The edition's folder name under dsl/ ("his", "his-500"): the CLI's edition name and the
   * folder of generated/<folder>/ and proofs/<folder>/. Set by the checker; absent only in
   * hand-built IR (tests), where the folder is `name`. Read it with `editionFolder(ir)`.
   */
  folder?: string;
  title: string; // "Here I Stand"
  cites: string; // "his"
  /** `extends "<folder>"`: the parent edition's folder name (a variant); absent otherwise */
  parent?: string;
  /**
   * the parent edition's folder: relative to the project when inside it (`dsl/his`), else
   * absolute (a variant outside the tool, issue 28); the CLI opens its proof cache from it
   */
  parentDir?: string;
  /** every module imported by the edition or an ancestor, sorted (set by the checker) */
  modules?: string[];
  enums: IREnum[];
  actions: IRAction[];
  /** the rules in force: inherited (minus removals, overrides in place), then added ones */
  rules: IRRule[];
  /** rules a variant (or an ancestor variant) removed, in removal order (set by the checker) */
  removed?: IRRemoval[];
  exemptions: IRExemption[];
  invariants: IRInvariant[];
  /**
   * the decline move of each phase that declares one, sorted by phase (absent in IR built
   * before declines existed, and in hand-built IR: read as none)
   */
  declines?: IRDecline[];
  routes: IRRoute[];
  /** result tables, sorted by name (absent in IR built before tables existed: read as none) */
  tables?: IRTable[];
  /** the state type, derived from the JSON Schema */
  state: Extract<Type, { k: "record" }>;
  /** the JSON Schema as read (after checks) */
  schema: Record<string, unknown>;
  board: Board;
  /**
   * every input file (rule files of the edition, of its ancestors and of the modules they
   * import; the schema; the board) with its sha256, sorted by path
   */
  inputs: { file: string; sha256: string }[];
  /** sha256 over `inputs` */
  inputHash: string;
}

/** The folder name of an edition under dsl/ (generated/<folder>/, proofs/<folder>/, CLI names). */
export function editionFolder(ir: Pick<IREdition, "name" | "folder">): string {
  return ir.folder ?? ir.name;
}
