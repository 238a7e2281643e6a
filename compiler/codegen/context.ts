/**
 * The per-edition context of code generation: everything more than one generated file reads,
 * computed once from the IR — the declarations in the order every generated list uses, the
 * enum types and their members, the names other files import (action types, checkers, table
 * lookups and row types), the exemptions lifting each rule (in the order the generated code
 * tests them), the board tables, and the actor type of `obligedActions` and `legalMoves`.
 * `generateFiles` builds it once and every file pass (board.ts, index-file.ts, rules.ts,
 * tables.ts, validators.ts, state.ts, schema.ts) reads it instead of the bare IR.
 */
import type { IRAction, IREdition, IRExemption, IRInvariant, IRRoute, IRRule, IRTable, Type } from "../ir/types.js";
import { actorParam, enumMembers, liftedBy } from "../ir/derived.js";
import { editionExprs, someExpr } from "../ir/walk.js";
import { boardTables, type BoardTables } from "./board-tables.js";
import { Names, pascal } from "./names.js";

/** What every generated file of one edition reads (see the file's docstring). Never changed once built. */
export interface EditionContext {
  readonly ir: IREdition;
  /** the actions, by name */
  readonly actions: readonly IRAction[];
  readonly actionByName: ReadonlyMap<string, IRAction>;
  /** the rules, exemptions and invariants, by id */
  readonly rules: readonly IRRule[];
  readonly exemptions: readonly IRExemption[];
  readonly invariants: readonly IRInvariant[];
  /** the routes and result tables, by name */
  readonly routes: readonly IRRoute[];
  readonly tables: readonly IRTable[];
  /** the enum types state.ts exports (what the other files may import), sorted; `Space` always among them */
  readonly enumTypes: readonly string[];
  /** the members of each of those enum types (`Space` from the board when the rules declare none) */
  readonly members: ReadonlyMap<string, string[]>;
  /** the board as constant tables (board.ts) */
  readonly board: BoardTables;
  /** whether some expression of the edition calls `distance` (board.ts then carries the matrix) */
  readonly usesDistance: boolean;
  /** the actor type of `obligedActions` and `legalMoves`: the one actor type, or the base enum of all of them */
  readonly actorType: Type | undefined;
  /** `lookup<Table>` by table name (tables.ts exports them; validators.ts and index.ts import them) */
  readonly lookupNames: ReadonlyMap<string, string>;
  /** `<Table>Result` by table name, for record-valued tables (unique in tables.ts) */
  readonly resultTypeNames: ReadonlyMap<string, string>;
  /** the exemptions that lift a rule, by id: the order the generated code tests them in */
  lifts(rule: IRRule): readonly IRExemption[];
}

const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** Sorted copies by id or by name (every generated list is sorted so). */
export const byId = <T extends { id: string }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => cmpStr(a.id, b.id));
export const byName = <T extends { name: string }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => cmpStr(a.name, b.name));

/** `ExplorationAction`-style names: the interface of an action's JSON in validators.ts. */
export function actionTypeName(a: IRAction): string {
  return `${pascal(a.name)}Action`;
}
/** `checkDeclareWar`: the exported checker of one action. */
export function checkerName(a: IRAction): string {
  return `check${pascal(a.name)}`;
}
/** The exported lookup function of a table: `exploration` → `lookupExploration`. */
export function lookupName(t: { name: string }): string {
  return `lookup${pascal(t.name)}`;
}

/** The names tables.ts declares before anything else is named. */
export function tablesReserved(cx: Pick<EditionContext, "enumTypes" | "tables">): string[] {
  return ["TABLES", "TableInfo", "lookup", "lookupRow", "State", ...cx.enumTypes, ...cx.tables.map(lookupName)];
}

/**
 * The context of an edition (see `EditionContext`): `generateFiles` builds it once per
 * generation and hands it to every file pass. The lifting exemptions of a rule are sorted on
 * first use and kept.
 */
export function editionContext(ir: IREdition): EditionContext {
  const actions = byName(ir.actions);
  const tables = byName(ir.tables ?? []);
  const enumTypes = [...new Set([...ir.enums.map((e) => e.name), "Space"])].sort();
  const members = enumMembers(ir);
  const exemptions = byId(ir.exemptions);
  const lifted = new Map<IRRule, readonly IRExemption[]>();
  const partial = { enumTypes, tables };
  const resultNames = new Names(tablesReserved(partial));
  const cx: EditionContext = {
    ir,
    actions,
    actionByName: new Map(actions.map((a) => [a.name, a])),
    rules: byId(ir.rules),
    exemptions,
    invariants: byId(ir.invariants),
    routes: byName(ir.routes),
    tables,
    enumTypes,
    members,
    board: boardTables(ir),
    usesDistance: editionExprs(ir).some((e) => someExpr(e, (x) => x.k === "distance")),
    actorType: commonActorType([...new Set(actions.map((a) => actorParam(a)).filter((p) => p !== undefined).map((p) => p.type))]),
    lookupNames: new Map(tables.map((t) => [t.name, lookupName(t)])),
    resultTypeNames: new Map(tables.filter((t) => t.result.k === "record").map((t) => [t.name, resultNames.take(`${pascal(t.name)}Result`)])),
    lifts(rule) {
      let l = lifted.get(rule);
      if (!l) lifted.set(rule, (l = byId(liftedBy(ir, rule))));
      return l;
    },
  };
  return cx;
}

/** The type of `obligedActions`' actor: the one actor type, or the base enum of all of them. */
function commonActorType(types: Type[]): Type | undefined {
  if (types.length === 0) return undefined;
  const first = types[0]!;
  if (types.every((t) => JSON.stringify(t) === JSON.stringify(first))) return first;
  if (types.every((t) => t.k === "enum") && first.k === "enum") {
    const base = first.base;
    if (types.every((t) => t.k === "enum" && t.base === base)) {
      // INVARIANT: the base enum is an enum of the edition (the checker resolved it)
      return { k: "enum", name: base, base, members: [] };
    }
  }
  return { k: "string" };
}
