/**
 * The board as code sets and relations over the Space datatype's member indices, for the
 * encoder's board functions and domains (encoder.ts, terms.ts).
 */
import type { Board } from "../../ir/types.js";
import { EncodeError } from "./encode-error.js";


export interface BoardIndex {
  n: number;
  code: Map<string, number>;
  land: Set<number>;
  sea: Set<number>;
  port: Set<number>;
  fortified: Set<number>;
  key: Set<number>;
  electorate: Set<number>;
  /** symmetric: every connection */
  neighbors: Map<number, number[]>;
  /** symmetric: pass connections */
  passes: Map<number, number[]>;
  /** land port q → sea zones z with port_on(q, z) */
  portsOn: Map<number, number[]>;
  /** sea zone z → ports on it (domain ports_of) */
  portsOf: Map<number, number[]>;
  /** port q → sea zones (domain sea_zones_of) */
  seaZonesOf: Map<number, number[]>;
}

export function indexBoard(board: Board, spaces: string[]): BoardIndex {
  const code = new Map(spaces.map((s, i) => [s, i]));
  const c = (id: string) => {
    const v = code.get(id);
    if (v === undefined) throw new EncodeError(`board space \`${id}\` is not a member of Space`);
    return v;
  };
  const types = new Map(board.spaces.map((s) => [s.id, s.type]));
  const set = (pred: (t: string) => boolean) => new Set(board.spaces.filter((s) => pred(s.type)).map((s) => c(s.id)));
  const add = (m: Map<number, number[]>, a: number, b: number) => {
    const l = m.get(a) ?? [];
    if (!l.includes(b)) l.push(b);
    m.set(a, l);
  };
  const neighbors = new Map<number, number[]>();
  const passes = new Map<number, number[]>();
  const portsOn = new Map<number, number[]>();
  const portsOf = new Map<number, number[]>();
  for (const k of board.connections) {
    const a = c(k.from);
    const b = c(k.to);
    add(neighbors, a, b);
    add(neighbors, b, a);
    if (k.type === "pass") {
      add(passes, a, b);
      add(passes, b, a);
    }
    if (k.type === "port") {
      const [q, z] = types.get(k.from) === "sea" ? [b, a] : [a, b];
      add(portsOn, q, z);
      add(portsOf, z, q);
    }
  }
  for (const m of [neighbors, passes, portsOn, portsOf]) for (const l of m.values()) l.sort((x, y) => x - y);
  const land = set((t) => t !== "sea");
  return {
    n: spaces.length,
    code,
    land,
    sea: set((t) => t === "sea"),
    port: new Set([...portsOn.keys()].filter((q) => land.has(q))),
    fortified: set((t) => t === "key" || t === "fortress" || t === "capital" || t === "electorate"),
    key: set((t) => t === "key" || t === "capital"),
    electorate: set((t) => t === "electorate"),
    neighbors,
    passes,
    portsOn,
    portsOf,
    seaZonesOf: portsOn,
  };
}
