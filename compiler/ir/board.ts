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
