/**
 * Static facts of a board that more than one backend needs, computed from `Board` alone.
 *
 * `boardDistances` is the meaning of the language's `distance(a, b)` builtin (dsl/README.md,
 * "Board builtins"): the checker types it, codegen writes the matrix into
 * `generated/<edition>/board.ts`, the prover encodes lookups of it. The interpreter
 * (compiler/interpret) searches the board on its own, so the two agree by test, not by sharing.
 */
import type { Board } from "./types.js";

/**
 * The shortest-path matrix of a board: `d[i][j]` is the number of connections on a shortest path
 * from space `i` to space `j` (indices in `order`, the `Space` enum's member order, or
 * `board.spaces` order when omitted). Every connection counts as one step whatever its type —
 * normal, mountain pass, port (land space ↔ sea zone) and sea (sea zone ↔ sea zone) — so a sea
 * zone is a space on the path, as Virgin Queen's displacement rule measures it. `d[i][i] = 0`;
 * a pair no path joins gets `unreachable(n) = n` (the space count), more than any real distance
 * (at most n − 1). Connections are undirected. Breadth-first search from every space: O(n·(n+c)).
 *
 * Throws an `Error` when a connection names a space missing from `order` (the checker rejects
 * such a board before this runs).
 */
export function boardDistances(board: Board, order?: readonly string[]): number[][] {
  const ids = order ?? board.spaces.map((s) => s.id);
  const n = ids.length;
  const index = new Map(ids.map((id, i) => [id, i]));
  const adj: Set<number>[] = Array.from({ length: n }, () => new Set<number>());
  for (const c of board.connections) {
    const a = index.get(c.from);
    const b = index.get(c.to);
    if (a === undefined || b === undefined) throw new Error(`board connection ${c.from}–${c.to} names an unknown space`);
    if (a === b) continue;
    adj[a]!.add(b);
    adj[b]!.add(a);
  }
  const far = unreachableDistance(n);
  const out: number[][] = [];
  const queue = new Int32Array(n);
  for (let s = 0; s < n; s++) {
    const d = new Array<number>(n).fill(far);
    d[s] = 0;
    let head = 0;
    let tail = 0;
    queue[tail++] = s;
    while (head < tail) {
      const x = queue[head++]!;
      for (const y of adj[x]!) {
        if (d[y] !== far) continue;
        d[y] = d[x]! + 1;
        queue[tail++] = y;
      }
    }
    out.push(d);
  }
  return out;
}

/** The value `distance` gives for two spaces no path joins: the board's space count `n`. */
export function unreachableDistance(n: number): number {
  return n;
}

/**
 * The board as the route searches walk it (dsl/README.md "Routes"), by space number (`board.spaces`
 * order, the order of the `Space` enum). Every list holds both directions of a connection, sorted
 * by space number, without repeats.
 */
export interface RouteGraph {
  /** space ids by space number */
  ids: string[];
  /** space number by id */
  index: ReadonlyMap<string, number>;
  /** whether each space is a sea zone */
  isSea: boolean[];
  /** normal connections between two land spaces */
  land: number[][];
  /** mountain-pass connections between two land spaces */
  pass: number[][];
  /** port connections between a land space and a sea zone (a port's sea zones, a sea zone's ports) */
  port: number[][];
  /** sea connections between two sea zones */
  sea: number[][];
  /** every connection, whatever its type and ends (`adjacent`, `neighbors`) */
  any: number[][];
  /** the number of sea zones */
  seaCount: number;
}

const routeGraphs = new WeakMap<Board, RouteGraph>();

/**
 * The route graph of a board (computed once per `Board` object; the result is shared, do not
 * change it). A connection whose type does not fit its ends (`normal` or `pass` touching a sea
 * zone, `port` between two land spaces or two sea zones, `sea` touching land: the checker
 * rejects those) counts in `any` only, never as a route step. The generated validators
 * (codegen's board tables) and the prover's exact routes (verify/route-exact.ts) both read it.
 * Throws an `Error` when a connection names a space the board lacks (the checker rejects it first).
 */
export function routeGraph(board: Board): RouteGraph {
  const known = routeGraphs.get(board);
  if (known) return known;
  const ids = board.spaces.map((s) => s.id);
  const index = new Map(ids.map((id, i) => [id, i]));
  const isSea = board.spaces.map((s) => s.type === "sea");
  const mk = (): Set<number>[] => ids.map(() => new Set<number>());
  const land = mk(), pass = mk(), port = mk(), sea = mk(), any = mk();
  for (const c of board.connections) {
    const a = index.get(c.from);
    const b = index.get(c.to);
    if (a === undefined || b === undefined) throw new Error(`board connection ${c.from}–${c.to} names an unknown space`);
    const add = (t: Set<number>[]): void => {
      t[a]!.add(b);
      t[b]!.add(a);
    };
    add(any);
    const bothLand = !isSea[a] && !isSea[b];
    const bothSea = isSea[a] && isSea[b];
    if (c.type === "normal" && bothLand) add(land);
    else if (c.type === "pass" && bothLand) add(pass);
    else if (c.type === "port" && !bothLand && !bothSea) add(port);
    else if (c.type === "sea" && bothSea) add(sea);
  }
  const sorted = (t: Set<number>[]): number[][] => t.map((s) => [...s].sort((x, y) => x - y));
  const g: RouteGraph = { ids, index, isSea, land: sorted(land), pass: sorted(pass), port: sorted(port), sea: sorted(sea), any: sorted(any), seaCount: isSea.filter(Boolean).length };
  routeGraphs.set(board, g);
  return g;
}
