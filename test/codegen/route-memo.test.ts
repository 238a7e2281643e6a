/**
 * The speed work of the generated validators (issue 17) must not change a verdict:
 * - monotone.ts: the polarity of expressions in a variable, and how each route parameter moves
 *   a search answer (what lets one search answer another of the same call);
 * - the route memo (`route_<r>` over `search_<r>`) and the order of route rules in
 *   `check<Action>` (tightest, then loosest first): on random states of the tiny board, a deploy
 *   action checked by four route rules of different tightness gets the interpreter's verdict;
 * - `hoist`: a map lookup a body repeats is read once into a local, a list read through a map
 *   lookup is passed to its quantifier helper.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExprCompiler } from "../../compiler/codegen/expr.js";
import { generateEdition } from "../../compiler/codegen/index.js";
import { polarity, routeDirections } from "../../compiler/codegen/monotone.js";
import { Names } from "../../compiler/codegen/names.js";
import { createInterpreter } from "../../compiler/interpret/index.js";
import { rng } from "../../bench/states.js";
import type { Expr, IREdition, IRRule, Type } from "../../compiler/ir/types.js";
import { and, board, cmp, eq, fld, idx, int, ite, lit, MajorPower, not, or, Space, st, tinyIR, tinyState, v } from "../helpers/tiny-ir.js";
import { writeGenerated } from "../helpers/generated-files.js";

const Bool: Type = { k: "bool" };
const Int: Type = { k: "int" };
const b = v("b", Bool);
const n = v("n", Int);

describe("polarity (monotone.ts)", () => {
  it("follows the variable through not, and/or, implies, comparisons, sums and if-then-else", () => {
    expect(polarity(b, "b")).toBe("up");
    expect(polarity(not(b), "b")).toBe("down");
    expect(polarity(and(b, v("x", Bool)), "b")).toBe("up");
    expect(polarity(or(not(b), v("x", Bool)), "b")).toBe("down");
    expect(polarity({ k: "implies", left: b, right: v("x", Bool), type: Bool }, "b")).toBe("down");
    expect(polarity(cmp(">", n, int(5)), "n")).toBe("up");
    expect(polarity(cmp("<=", n, int(5)), "n")).toBe("down");
    expect(polarity({ k: "arith", op: "-", left: int(3), right: n, type: Int }, "n")).toBe("down");
    // max_seas if no_seas then 0 else 1: fewer seas as no_seas turns true
    expect(polarity(ite(b, int(0), int(1)), "b")).toBe("down");
    expect(polarity(ite(b, int(2), int(1)), "b")).toBe("up");
    expect(polarity(v("x", Bool), "b")).toBe("const");
  });

  it("is unknown where the variable is compared for equality, mixed both ways, or picks between non-constants", () => {
    expect(polarity(eq(b, lit(true, Bool)), "b")).toBeNull();
    expect(polarity(and(b, not(b)), "b")).toBeNull();
    expect(polarity(ite(b, n, int(1)), "b")).toBeNull();
    expect(polarity({ k: "arith", op: "*", left: n, right: int(2), type: Int }, "n")).toBeNull();
  });

  it("classifies the parameters of a route: the player (read by equality), avoid (tighter), seas (looser)", () => {
    expect(routeDirections(tinyIR().routes[0]!)).toEqual(["eq", "down", "up"]);
  });
});

/** The tiny edition with three more rules on deploy_path, of different tightness. */
function memoIR(): IREdition {
  const ir = tinyIR();
  const base = ir.rules.find((r) => r.id === "deploy.path")!;
  const reach = (avoid: Expr, seas: Expr): Expr => ({ k: "reach", route: "deploy_path", args: [v("power", MajorPower), avoid, seas], from: v("origin", Space), to: v("destination", Space), type: Bool });
  const rule = (id: string, avoid: Expr, seas: Expr, groups: string[]): IRRule => ({ ...base, id, groups, when: not(reach(avoid, seas)) });
  ir.rules.push(
    rule("deploy.loose", lit(false, Bool), int(2), []),
    rule("deploy.tight", lit(true, Bool), int(0), ["*"]),
    rule("deploy.mid", lit(true, Bool), ite(cmp(">", v("units", Int), int(3)), int(0), int(1)), []),
  );
  return ir;
}

let dir: string;
let files: { path: string; content: string }[];
let gen: { checkTrusted(state: unknown, action: unknown): { allowed: boolean; violations: readonly { rule: string }[]; obliged: readonly string[] } };

beforeAll(async () => {
  files = await generateEdition(memoIR());
  dir = writeGenerated(files, "rulewright-route-memo-");
  gen = await import(pathToFileURL(path.join(dir, "generated/tiny/index.ts")).href);
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("route memo and the order of route rules", () => {
  it("tests the tightest and the loosest search first, and keeps the other rules in place", () => {
    const v = files.find((f) => f.path.endsWith("validators.ts"))!.content;
    const body = v.slice(v.indexOf("export function checkDeploy("), v.indexOf("\n}\n", v.indexOf("export function checkDeploy(")));
    expect(body).toMatch(/the searches that can answer the other route rules' first: deploy\.path, deploy\.tight, deploy\.loose/);
    // out of the rules' phase only the unscoped rules are tested; in it, the violations are pushed in rule order
    const [outside, inside] = body.split("the searches that can answer");
    expect([...outside!.matchAll(/push\((V_\w+)\)/g)].map((m) => m[1])).toEqual(["V_deploy_coast", "V_deploy_units"]);
    expect([...inside!.matchAll(/push\((V_\w+)\)/g)].map((m) => m[1])).toEqual(["V_deploy_coast", "V_deploy_loose", "V_deploy_mid", "V_deploy_path", "V_deploy_tight", "V_deploy_units"]);
    expect(v).toMatch(/function search_deploy_path\(/);
    expect(v).toMatch(/const memo_deploy_path = /);
  });

  it("gives the interpreter's verdict on random states of the tiny board, for every pair of spaces", () => {
    const interp = createInterpreter(memoIR());
    const r = rng(17);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const key = (x: { allowed: boolean; violations: readonly (string | { rule: string })[]; obliged: readonly string[] }) =>
      `${x.allowed}|${x.violations.map((y) => (typeof y === "string" ? y : y.rule)).sort().join(",")}|${[...x.obliged].sort().join(",")}`;
    let forbidden = 0;
    let checks = 0;
    const fired = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const s = tinyState() as { phase: string; spaces: Record<string, { controller: string; unrest: boolean; blockaded: boolean }>; played: string[] };
      s.phase = r() < 0.85 ? "action" : "diplomacy";
      if (r() < 0.2) s.played = ["spring"];
      for (const sp of Object.values(s.spaces)) {
        sp.controller = r() < 0.75 ? "red" : pick(["blue", "green", "yellow"]);
        sp.unrest = r() < 0.1;
        sp.blockaded = r() < 0.2;
      }
      for (const origin of Space.members) {
        for (const destination of Space.members) {
          const a = { action: "deploy", power: pick(["red", "blue"]), origin, destination, units: pick([0, 2, 4, 6]), avoid_passes: r() < 0.5, seas: pick([0, 1, 2]) };
          const got = gen.checkTrusted(s, a);
          const want = interp.check(s as never, a as never);
          expect(key(got), JSON.stringify({ s, a })).toBe(key(want));
          checks++;
          if (!got.allowed) forbidden++;
          for (const x of got.violations) fired.add(x.rule);
        }
      }
    }
    // the sample exercises allowed and forbidden checks and every route rule
    expect(forbidden).toBeGreaterThan(checks / 10);
    expect(forbidden).toBeLessThan(checks);
    for (const id of ["deploy.loose", "deploy.tight", "deploy.mid", "deploy.path"]) expect(fired.has(id), id).toBe(true);
  });
});

describe("hoist", () => {
  const spaces = (s: Expr): Expr => idx(st("spaces"), s);
  it("reads a lookup a body repeats once, into a local that no top-level name shadows", () => {
    const names = new Names(["at"]);
    const ec = new ExprCompiler(tinyIR(), names, new Map(), new Map());
    const ctx = new Map([["s", "v_s"]]);
    const e = and(eq(fld(spaces(v("s", Space)), "controller"), lit("red", MajorPower)), not(fld(spaces(v("s", Space)), "unrest")));
    const out = ec.inFunction(() => {
      const decls = ec.hoist([e], [], undefined, ctx, "t");
      return { decls, code: ec.expr(e, ctx, "t").code };
    });
    expect(out.decls).toEqual(["const at_2 = state.spaces[v_s]!;"]);
    expect(out.code).toBe(`(at_2.controller as string) === "red" && !at_2.unrest`);
    // outside that body the lookup is compiled again
    expect(ec.expr(e, ctx, "t").code).toContain("state.spaces[v_s]!.controller");
  });

  it("passes a list read through a map lookup to its quantifier helper", () => {
    const ec = new ExprCompiler(tinyIR(), new Names(), new Map(), new Map());
    const hand = idx(st("hands"), v("p", MajorPower));
    const some: Expr = { k: "quant", q: "some", var: "c", varType: { k: "string" }, domain: { k: "list", expr: hand }, body: eq(v("c", { k: "string" }), lit("x", { k: "string" })), type: Bool };
    expect(ec.expr(some, new Map([["p", "v_p"]]), "t").code).toBe("t_some(state, state.hands[v_p]!)");
    expect(ec.helpers[0]!.params.map((p) => p.name)).toEqual(["state", "d"]);
    expect(ec.helpers[0]!.body).not.toContain("state.hands");
  });
});
