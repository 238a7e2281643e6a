/**
 * The interpreter's own reading of the board (dsl/README.md "Board builtins" and "Routes"): maps
 * of space ids, built from `ir.board` alone. Deliberately not the route graph codegen and the
 * prover share (compiler/ir/board.ts `routeGraph`) nor its distance matrix: the interpreter is
 * the second, independent reading the generated validators are compared with.
 */
import type { Board } from "../ir/types.js";

/** Board facts, derived from `ir.board` as dsl/README.md "Board builtins" and "Routes" define them. */
export class BoardFacts {
  readonly type = new Map<string, Board["spaces"][number]["type"]>();
  readonly home = new Map<string, string[]>();
  /** every connection, any type (adjacent, neighbors) */
  readonly any = new Map<string, Set<string>>();
  /** route steps by kind: land–land normal, land–land pass, land–sea port, sea–sea */
  readonly land = new Map<string, Set<string>>();
  readonly pass = new Map<string, Set<string>>();
  readonly port = new Map<string, Set<string>>();
  readonly sea = new Map<string, Set<string>>();

  constructor(board: Board) {
    for (const s of board.spaces) {
      this.type.set(s.id, s.type);
      this.home.set(s.id, s.home);
      for (const m of [this.any, this.land, this.pass, this.port, this.sea]) m.set(s.id, new Set());
    }
    const link = (m: Map<string, Set<string>>, a: string, b: string) => {
      m.get(a)?.add(b);
      m.get(b)?.add(a);
    };
    for (const c of board.connections) {
      link(this.any, c.from, c.to);
      const aSea = this.isSea(c.from);
      const bSea = this.isSea(c.to);
      // a connection whose type does not fit its two ends counts for adjacency only
      if (c.type === "normal" && !aSea && !bSea) link(this.land, c.from, c.to);
      else if (c.type === "pass" && !aSea && !bSea) link(this.pass, c.from, c.to);
      else if (c.type === "port" && aSea !== bSea) link(this.port, c.from, c.to);
      else if (c.type === "sea" && aSea && bSea) link(this.sea, c.from, c.to);
    }
  }

  isSea(s: string): boolean {
    return this.type.get(s) === "sea";
  }
  isLand(s: string): boolean {
    return this.type.has(s) && !this.isSea(s);
  }
  /**
   * `distance(a, b)`: breadth-first search over every connection (any type) from a, counting
   * steps; the space count when b cannot be reached (dsl/README.md "Board builtins").
   */
  distance(a: string, b: string): number {
    if (a === b) return 0;
    const seen = new Set([a]);
    let frontier = [a];
    for (let d = 1; frontier.length; d++) {
      const next: string[] = [];
      for (const x of frontier) {
        for (const y of this.any.get(x) ?? []) {
          if (y === b) return d;
          if (!seen.has(y)) {
            seen.add(y);
            next.push(y);
          }
        }
      }
      frontier = next;
    }
    return this.type.size;
  }

  /** the ports on sea zone z, or the sea zones of port q (port connections of the space) */
  portLinks(s: string): string[] {
    return [...(this.port.get(s) ?? [])];
  }
}
