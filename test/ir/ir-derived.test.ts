/**
 * The derived facts of compiler/ir (issue 24): which exemptions lift a rule, the actor of an
 * action, the moves and decline of a phase (derived.ts), the route graph (board.ts) and the free
 * variables of an expression (walk.ts), each defined once and read by codegen, the prover, the
 * interpreter, the report and the CLI. Hand-built IR only: fast, no whole edition.
 */
import { describe, expect, it } from "vitest";
import { actorOf, actorParam, declineMove, enumMembers, isActorOnly, liftedBy, liftedRules, phaseMoves } from "../../compiler/ir/derived.js";
import { routeGraph } from "../../compiler/ir/board.js";
import { freeVars } from "../../compiler/ir/walk.js";
import type { Board, Expr, IREdition, IRExemption } from "../../compiler/ir/types.js";
import type { Type } from "../../compiler/ir/types.js";
import { MajorPower, Power, Space, T, and, eq, int, lit, tinyIR, v } from "../helpers/tiny-ir.js";

const Bool: Type = { k: "bool" };
const Int: Type = { k: "int" };

const ids = (xs: readonly { id: string }[]): string[] => xs.map((x) => x.id);
const rule = (ir: IREdition, id: string) => ir.rules.find((r) => r.id === id)!;

describe("liftedBy", () => {
  it("lifts a rule by a group it is in or by its id, in declaration order", () => {
    const ir = tinyIR();
    // ex.spring lifts group `*` (deploy.path, deploy.units); ex.blue_strength names dow.strength
    expect(ids(liftedBy(ir, rule(ir, "deploy.path")))).toEqual(["ex.spring"]);
    expect(ids(liftedBy(ir, rule(ir, "dow.strength")))).toEqual(["ex.blue_strength"]);
    expect(ids(liftedBy(ir, rule(ir, "deploy.coast")))).toEqual([]);
    // both ways at once, kept in ir.exemptions order (not by id)
    const both: IRExemption = { ...ir.exemptions[0]!, id: "a.first", groups: [], rules: ["deploy.path"] };
    const later = { ...ir, exemptions: [...ir.exemptions, both] };
    expect(ids(liftedBy(later, rule(later, "deploy.path")))).toEqual(["ex.spring", "a.first"]);
  });

  it("is computed once per IR and anew for replaced exemptions or rules", () => {
    const ir = tinyIR();
    const r = rule(ir, "deploy.path");
    expect(liftedBy(ir, r)).toBe(liftedBy(ir, r));
    // a caller that replaces the exemptions (`{ ...ir, exemptions }`) gets the new answer
    const none = { ...ir, exemptions: ir.exemptions.filter((e) => e.id !== "ex.spring") };
    expect(ids(liftedBy(none, r))).toEqual([]);
    expect(ids(liftedBy(ir, r))).toEqual(["ex.spring"]);
    // so does a rule object replaced with other groups
    const moved = { ...r, groups: [] };
    expect(ids(liftedBy(ir, moved))).toEqual([]);
  });

  it("liftedRules is its inverse", () => {
    const ir = tinyIR();
    for (const ex of ir.exemptions) {
      expect(ids(liftedRules(ir, ex))).toEqual(ids(ir.rules.filter((r) => liftedBy(ir, r).includes(ex))));
    }
    expect(ids(liftedRules(ir, ir.exemptions.find((e) => e.id === "ex.spring")!)).sort()).toEqual(["deploy.path", "deploy.units"]);
  });
});

describe("actors", () => {
  it("finds the actor parameter of an action and whether it is the only one", () => {
    const ir = tinyIR();
    const act = (n: string) => ir.actions.find((a) => a.name === n)!;
    expect(actorParam(act("declare_war"))?.name).toBe("by");
    expect(actorOf(ir, "deploy")).toBe("power");
    expect(actorOf(ir, "no_such_action")).toBeUndefined();
    expect(isActorOnly(act("pass"))).toBe(true);
    expect(isActorOnly(act("declare_war"))).toBe(false);
    const bare = { ...ir, actions: [...ir.actions, { name: "tick", params: [{ name: "n", type: Int, actor: false }], pos: ir.actions[0]!.pos }] };
    expect(actorOf(bare, "tick")).toBeUndefined();
    expect(isActorOnly(bare.actions.at(-1)!)).toBe(false);
  });
});

describe("enumMembers", () => {
  it("gives each enum's members, and Space from the board when the rules declare none", () => {
    const ir = tinyIR();
    expect(enumMembers(ir).get("MajorPower")).toEqual(["red", "blue"]);
    expect(enumMembers(ir).get("Space")).toEqual(ir.enums.find((e) => e.name === "Space")!.members);
    const noSpace = { ...ir, enums: ir.enums.filter((e) => e.name !== "Space"), board: { ...ir.board, spaces: ir.board.spaces.slice(0, 2) } };
    expect(enumMembers(noSpace).get("Space")).toEqual(["alpha", "beta"]);
    expect([...enumMembers(noSpace).keys()]).toEqual(["Power", "MajorPower", "Phase", "Segment", "Space"]);
  });
});

describe("phase moves", () => {
  it("lists the actions with an actor and a rule scoped to the phase, and the phase's decline move", () => {
    const ir = tinyIR();
    // dow.green is scoped to diplomacy, deploy.path to action; pass has no scoped rule
    expect(phaseMoves(ir, "diplomacy").map((a) => a.name)).toEqual(["declare_war"]);
    expect(phaseMoves(ir, "action").map((a) => a.name)).toEqual(["deploy"]);
    expect(declineMove(ir, "action")).toBeUndefined();
    const declined = { ...ir, declines: [{ phase: "action", action: "pass", title: "pass", pos: ir.actions[0]!.pos }] };
    expect(declineMove(declined, "action")).toBe("pass");
    // declaration order, the decline move among them
    expect(phaseMoves(declined, "action").map((a) => a.name)).toEqual(ir.actions.filter((a) => a.name === "pass" || a.name === "deploy").map((a) => a.name));
  });
});

describe("routeGraph", () => {
  const board: Board = {
    spaces: [
      { id: "a", name: "A", type: "normal", home: [] },
      { id: "b", name: "B", type: "normal", home: [] },
      { id: "c", name: "C", type: "key", home: [] },
      { id: "s", name: "S", type: "sea", home: [] },
      { id: "t", name: "T", type: "sea", home: [] },
    ],
    connections: [
      { from: "b", to: "a", type: "normal" },
      { from: "b", to: "c", type: "pass" },
      { from: "c", to: "s", type: "port" },
      { from: "s", to: "t", type: "sea" },
      // misfits: a land connection into the sea, a port between two land spaces
      { from: "a", to: "t", type: "normal" },
      { from: "a", to: "c", type: "port" },
    ],
  };

  it("splits connections by type, both ways, sorted; a misfit counts only as adjacency", () => {
    const g = routeGraph(board);
    expect(g.ids).toEqual(["a", "b", "c", "s", "t"]);
    expect(g.index.get("s")).toBe(3);
    expect(g.isSea).toEqual([false, false, false, true, true]);
    expect(g.land).toEqual([[1], [0], [], [], []]);
    expect(g.pass).toEqual([[], [2], [1], [], []]);
    expect(g.port).toEqual([[], [], [3], [2], []]);
    expect(g.sea).toEqual([[], [], [], [4], [3]]);
    expect(g.any).toEqual([[1, 2, 4], [0, 2], [0, 1, 3], [2, 4], [0, 3]]);
    expect(g.seaCount).toBe(2);
  });

  it("is computed once per board and rejects an unknown space", () => {
    expect(routeGraph(board)).toBe(routeGraph(board));
    expect(() => routeGraph({ spaces: board.spaces, connections: [{ from: "a", to: "nowhere", type: "normal" }] })).toThrow(/unknown space/);
  });
});

describe("freeVars", () => {
  const some = (name: string, domain: Expr, body: Expr): Expr => ({ k: "quant", q: "some", var: name, varType: Space, domain: { k: "list", expr: domain }, body, type: Bool });
  const root: Expr = { k: "state", type: { k: "record", fields: [] } };
  const list: Expr = { k: "field", obj: root, field: "spaces", type: { k: "list", elem: Space, bound: 4 } };

  it("lists the unbound variables with their types, sorted by name", () => {
    const e = and(eq(v("target", Power), v("by", MajorPower)), eq(v("by", MajorPower), lit("red", Power)), T);
    expect([...freeVars(e)]).toEqual([
      ["by", MajorPower],
      ["target", Power],
    ]);
    expect(freeVars(int(3)).size).toBe(0);
  });

  it("leaves out a binder's variable in its body, not in its domain or outside it", () => {
    // some x in list: x = y  → y
    expect([...freeVars(some("x", list, eq(v("x", Space), v("y", Space)))).keys()]).toEqual(["y"]);
    // the domain is outside the binder: some x in f(x) …, and x used after the quantifier
    const bySpace: Expr = { k: "field", obj: root, field: "by_space", type: { k: "map", key: Space, value: list.type } };
    const domainReadsX: Expr = { k: "index", obj: bySpace, key: v("x", Space), type: list.type };
    expect([...freeVars(some("x", domainReadsX, T)).keys()]).toEqual(["x"]);
    expect([...freeVars(and(some("x", list, T), eq(v("x", Space), v("x", Space)))).keys()]).toEqual(["x"]);
    // an aggregate binds in its filter and body
    const agg: Expr = { k: "agg", op: "sum", var: "s", varType: Space, domain: { k: "enum", type: Space }, where: eq(v("s", Space), v("home", Space)), body: v("n", Int), type: Int };
    expect([...freeVars(agg).keys()]).toEqual(["home", "n"]);
  });
});
