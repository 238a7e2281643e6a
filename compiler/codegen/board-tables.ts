/**
 * The board of an edition as the tables generated/<edition>/board.ts writes: the route graph
 * (compiler/ir/board.ts: adjacency split by connection type, by space number) plus each space's
 * F_* bits and home powers. Read through the edition's context (context.ts), built once.
 */
import { routeGraph, type RouteGraph } from "../ir/board.js";
import type { IREdition } from "../ir/types.js";

/** The F_* bits of board.ts's FLAGS (written into the file as constants of the same names). */
export const F_SEA = 1;
export const F_PORT = 2;
export const F_FORTIFIED = 4;
export const F_KEY = 8;
export const F_ELECTORATE = 16;
export const F_CAPITAL = 32;

/** The board tables of generated/<edition>/board.ts: the route graph (compiler/ir/board.ts) plus each space's F_* bits and home powers. */
export interface BoardTables extends RouteGraph {
  flags: number[];
  home: string[][];
}

/** The tables of an edition's board (`routeGraph` of the IR, computed once per board). */
export function boardTables(ir: IREdition): BoardTables {
  const g = routeGraph(ir.board);
  const flags = ir.board.spaces.map((s, i) => {
    let f = 0;
    if (s.type === "sea") f |= F_SEA;
    if (s.type !== "sea" && g.port[i]!.length > 0) f |= F_PORT;
    if (s.type === "key" || s.type === "fortress" || s.type === "capital" || s.type === "electorate") f |= F_FORTIFIED;
    if (s.type === "key" || s.type === "capital") f |= F_KEY;
    if (s.type === "electorate") f |= F_ELECTORATE;
    if (s.type === "capital") f |= F_CAPITAL;
    return f;
  });
  return { ...g, flags, home: ir.board.spaces.map((s) => [...s.home]) };
}

