/**
 * Pass "lower": the checked edition as IR (compiler/ir/types.ts) — the enums and actions from the
 * environment, the lowered rules, exemptions, invariants, declines, routes and tables from the
 * body passes, the state, schema and board, and the inputs with their hash. Runs only when no
 * error was reported.
 */
import type { IRAction, IRActionScope, IRDecline, IREdition, IREnum, IRExemption, IRInvariant, IRRoute, IRRule, IRTable } from "../ir/types.js";
import { irParam, type Checking } from "./context.js";
import { sha256, type JsonInput } from "./inputs.js";
import { posOf } from "./util.js";

/** The lowered declarations of the body passes. */
export interface Lowered {
  rules: IRRule[];
  exemptions: IRExemption[];
  invariants: IRInvariant[];
  declines: IRDecline[];
  routes: IRRoute[];
  tables: IRTable[];
  /** the actions' scopes by action name (action-scope.ts) */
  actionScopes?: ReadonlyMap<string, IRActionScope>;
}

/** The edition's IR; `c.env` must hold the state and the board (the caller checks there was no error). Sorts `c.inputs` by file. */
export function lowerEdition(c: Checking, ir: Lowered, schemaJson: JsonInput): IREdition {
  const { asm, env, leaf, inputs } = c;
  const editionDecl = leaf.edition!;
  const irEnums: IREnum[] = [...env.enums.values()].map((e) => ({ name: e.name, base: e.base, members: [...e.members], pos: posOf(e.file, e.span) }));
  const irActions: IRAction[] = [...env.actions.values()].map((a) => {
    const scope = ir.actionScopes?.get(a.decl.name.name);
    return { name: a.decl.name.name, params: a.params!.map(irParam), pos: posOf(a.file, a.decl.name.span), ...(scope ? { scope } : {}) };
  });
  inputs.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return {
    name: editionDecl.decl.name.name,
    folder: leaf.folder,
    title: editionDecl.decl.title,
    cites: editionDecl.decl.cites,
    ...(asm.levels.length > 1 ? { parent: asm.levels[asm.levels.length - 2]!.folder } : {}),
    modules: [...asm.modules.keys()].sort(),
    enums: irEnums,
    actions: irActions,
    rules: ir.rules,
    removed: asm.removed.map((x) => ({ ...x })),
    exemptions: ir.exemptions,
    invariants: ir.invariants,
    ...(ir.declines.length ? { declines: ir.declines } : {}),
    routes: ir.routes,
    tables: ir.tables,
    state: env.state!,
    schema: schemaJson.json as Record<string, unknown>,
    board: env.board!,
    inputs,
    inputHash: sha256(inputs.map((i) => `${i.file}\0${i.sha256}\n`).join("")),
  };
}

