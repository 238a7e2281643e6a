/**
 * Path-length limits in routes (issue 28, point 4): a route's `max_steps n` clause allows paths of
 * at most n connections (a move of at most n spaces). Through the parser, the formatter, the
 * checker, the generated validators and the interpreter (the same answers over every pair of
 * spaces, limit and control of the mini board, and the limits by hand), the English reading and
 * the prover (the route stays uninterpreted but bounded by `distance`: a rule that needs a path of
 * one step between spaces two apart is dead), on the mini edition plus `steps.rules`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorLines, miniEditions } from "../helpers/mini-edition.js";
import { generateEdition } from "../../compiler/codegen/index.js";
import { formatRules } from "../../compiler/fmt/format.js";
import { createInterpreter } from "../../compiler/interpret/index.js";
import { editionFolder, type IREdition } from "../../compiler/ir/types.js";
import { readRoute } from "../../compiler/report/english.js";
import { parseRules } from "../../compiler/syntax/index.js";
import { proveEdition, type ProofReport } from "../../compiler/verify/index.js";
import { writeGenerated } from "../helpers/generated-files.js";

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "rw-route-steps-"));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

const STEPS = `route short_march(p: MajorPower, n: int) {
  land s: controls(p, s) and not state.spaces[s].unrest
  sea z: true
  max_seas 1
  max_steps n
  passes true
}

rule move.far §10 "a formation moves at most 5 - units spaces"
  forbid move when not reachable(short_march(power, 5 - units), origin, destination)

rule move.odd §10 "a one-step path between spaces two apart (never)"
  forbid move when reachable(short_march(power, 1), origin, destination) and distance(origin, destination) >= 2

rule move.two §10 "a path of two steps between spaces two apart"
  forbid move when reachable(short_march(power, 2), origin, destination) and distance(origin, destination) = 2
`;

const edition = miniEditions(tmpRoot);

describe("syntax, layout, checking", () => {
  it("parses and formats `max_steps`", () => {
    const { ast, diagnostics } = parseRules(STEPS, "steps.rules");
    expect(diagnostics).toEqual([]);
    const route = ast.decls.find((d) => d.k === "route")!;
    expect((route as { clauses: { k: string }[] }).clauses.map((c) => c.k)).toEqual(["land", "sea", "max_seas", "max_steps", "passes"]);
    expect(formatRules(STEPS, "steps.rules")).toEqual({ ok: true, text: STEPS });
    const out = formatRules(`route r(p: MajorPower) { land s: true max_steps  2+1 }\n`, "a.rules");
    expect(out).toEqual({ ok: true, text: `route r(p: MajorPower) { land s: true max_steps 2 + 1 }\n` });
  });

  it("lowers it to the route's `maxSteps` (absent without the clause), an int, once", () => {
    const { result } = edition({ "steps.rules": STEPS });
    expect(errorLines(result.diagnostics)).toEqual([]);
    const r = result.edition!.routes.find((x) => x.name === "short_march")!;
    expect(r.maxSteps).toMatchObject({ k: "var", name: "n" });
    expect("maxSteps" in result.edition!.routes.find((x) => x.name === "march_path")!).toBe(false);
    const bad = (clause: string) => errorLines(edition({ "steps.rules": `route q(p: MajorPower) { land s: true ${clause} }\n` }).result.diagnostics);
    expect(bad("max_steps true")[0]).toMatch(/^RW3001 /);
    expect(bad("max_steps 1 max_steps 2")).toEqual(["RW2009 second `max_steps` clause in route `q`"]);
  });

  it("reads it in the report's English", () => {
    const ir = edition({ "steps.rules": STEPS }).result.edition!;
    expect(readRoute(ir.routes.find((x) => x.name === "short_march")!, ir)).toContain("at most the n connections");
  });
});

describe("validators, interpreter and prover", () => {
  let ir: IREdition;
  let gen: { check(state: unknown, action: unknown): { violations: { rule: string }[] } };
  let report: ProofReport;

  beforeAll(async () => {
    ir = edition({ "steps.rules": STEPS }).result.edition!;
    const files = await generateEdition(ir);
    const dir = writeGenerated(files, "gen-", tmpRoot);
    gen = await import(pathToFileURL(path.join(dir, `generated/${editionFolder(ir)}/index.ts`)).href);
    report = await proveEdition(ir, { timeoutMs: 20_000, only: (o) => o.kind === "dead_rule" });
  });

  const SPACES = ["red_home", "blue_home", "genoa", "pass_town", "sea_a"];
  const state = (unrest: string[]) => ({
    phase: "movement", segment: "declarations", turn: 1, wars: [], hands: { red: [], blue: [] },
    spaces: Object.fromEntries(SPACES.map((s) => [s, { controller: "red", unrest: unrest.includes(s) }])),
  });
  const move = (origin: string, destination: string, units: number) => ({ action: "move", power: "red", origin, destination, units });
  const far = (s: unknown, a: unknown) => gen.check(s, a).violations.some((v) => v.rule === "move.far");

  it("limits the path by hand: red_home to blue_home is 2 steps over the pass, 3 by sea", () => {
    expect(far(state([]), move("red_home", "blue_home", 3))).toBe(false); // 2 steps allowed
    expect(far(state([]), move("red_home", "blue_home", 4))).toBe(true); // 1 step allowed
    expect(far(state(["pass_town"]), move("red_home", "blue_home", 3))).toBe(true); // only the sea path, 3 steps
    expect(far(state(["pass_town"]), move("red_home", "blue_home", 2))).toBe(false);
    expect(far(state([]), move("genoa", "genoa", 5))).toBe(false); // 0 steps
    expect(far(state([]), move("genoa", "genoa", 6))).toBe(true); // a negative limit: no path at all
  });

  it("the validators and the interpreter agree on every pair of spaces, limit and unrest", () => {
    const interp = createInterpreter(ir);
    let compared = 0;
    const seen = new Set<string>();
    for (const unrest of [[], ["pass_town"], ["genoa"], ["sea_a", "pass_town"]]) {
      for (const o of SPACES) for (const d of SPACES) for (const units of [0, 1, 2, 3, 4, 5, 6]) {
        const a = gen.check(state(unrest), move(o, d, units)).violations.map((v) => v.rule);
        const b = interp.check(state(unrest), move(o, d, units)).violations.map((v) => v.rule);
        expect(a, `${o} ${d} ${units} ${unrest}`).toEqual(b);
        for (const r of a) seen.add(r);
        compared++;
      }
    }
    expect(compared).toBe(4 * 25 * 7);
    expect([...seen].sort()).toEqual(expect.arrayContaining(["move.far", "move.two"]));
    expect(seen).not.toContain("move.odd");
  });

  it("the prover bounds the route by distance: a one-step path between spaces two apart is dead, a two-step one is not", () => {
    const dead = (id: string) => report.obligations.find((o) => o.id === `${ir.name}.dead_rule.${id}`)!;
    expect(dead("move.odd").verdict).toBe("refuted");
    expect(dead("move.two").verdict).toBe("proved");
    expect(dead("move.far").verdict).toBe("proved");
  });
});
