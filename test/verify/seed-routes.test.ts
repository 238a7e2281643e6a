/**
 * Searches near a seed with the routes fixed to the seed's paths (compiler/verify/diff/variants.ts
 * `VariantOptions.routePath`, route-exact.ts `seedPaths` / `refineByPaths`, decode's base), and the
 * interpreter's `routePath` they read the paths from — on the mini edition
 * (test/fixtures/frontend/mini: red_home –pass– pass_town – blue_home – genoa, red_home and genoa
 * ports of sea_a; `march_path` crosses friendly land, at most one sea zone, no pass).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import type { IREdition } from "../../compiler/ir/types.js";
import { mutantsOf, mutateEdition } from "../../compiler/engine/mutants.js";
import { compareRuleVariants } from "../../compiler/verify/diff/variants.js";
import { createInterpreter } from "../../compiler/interpret/index.js";
import { MINI } from "../helpers/mini-edition.js";

const SPACES = ["red_home", "blue_home", "genoa", "pass_town", "sea_a"];
/** red holds pass_town and blue_home (a path between them), blue the two ports of sea_a */
const STATE = {
  phase: "movement",
  segment: "declarations",
  turn: 3,
  wars: [],
  hands: { red: ["march"], blue: [] },
  spaces: Object.fromEntries(SPACES.map((s) => [s, { controller: s === "pass_town" || s === "blue_home" ? "red" : "blue", unrest: false }])),
};

let ir: IREdition;
beforeAll(() => {
  ir = loadEdition(MINI).edition!;
});

describe("the interpreter's routePath", () => {
  it("gives the path reachable finds: from the origin to the destination over connections, sea zones counted; none where reachable is false", () => {
    const interp = createInterpreter(ir);
    expect(interp.routePath("march_path", ["red"], "pass_town", "blue_home", STATE)).toEqual([
      { space: "pass_town", k: 0 },
      { space: "blue_home", k: 0 },
    ]);
    // blue: genoa → sea_a → red_home (one sea zone used from sea_a on)
    expect(interp.routePath("march_path", ["blue"], "genoa", "red_home", STATE)).toEqual([
      { space: "genoa", k: 0 },
      { space: "sea_a", k: 1 },
      { space: "red_home", k: 1 },
    ]);
    // red_home is blue's; and pass_town → red_home crosses a mountain pass, which march_path may not
    expect(interp.routePath("march_path", ["red"], "red_home", "blue_home", STATE)).toBeUndefined();
    const red = { ...STATE, spaces: { ...STATE.spaces, red_home: { controller: "red", unrest: false } } };
    expect(interp.routePath("march_path", ["red"], "pass_town", "red_home", red)).toBeUndefined();
    expect(interp.routePath("march_path", ["red"], "blue_home", "blue_home", STATE)).toEqual([{ space: "blue_home", k: 0 }]);
    expect(() => interp.routePath("no_such_route", [], "genoa", "genoa", STATE)).toThrow(/unknown route/);
  });

  it("has a path exactly where move.path allows the move, and every path is a walk over the board's connections", () => {
    const interp = createInterpreter(ir);
    const joined = new Set(ir.board.connections.flatMap((c) => [`${c.from}>${c.to}`, `${c.to}>${c.from}`]));
    for (const power of ["red", "blue"])
      for (const from of SPACES)
        for (const to of SPACES) {
          const path = interp.routePath("march_path", [power], from, to, STATE);
          const v = interp.check(STATE, { action: "move", power, origin: from, destination: to, units: 1 });
          expect(path !== undefined).toBe(!v.violations.some((x) => x.rule === "move.path"));
          if (!path) continue;
          expect([path[0]!.space, path[path.length - 1]!.space]).toEqual([from, to]);
          for (let i = 1; i < path.length; i++) expect(joined.has(`${path[i - 1]!.space}>${path[i]!.space}`)).toBe(true);
        }
  });
});

describe("a search near a seed fixes its routes to the seed's paths", () => {
  it("tells a mutant of a rule beside a route rule apart near the seed, asks for the seed's path, and the state found replays", async () => {
    const interp = createInterpreter(ir);
    const m = mutantsOf(ir).find((x) => x.id === "move.cap#const_plus@when.args.0.right")!;
    const seed = { state: STATE, action: { action: "move", power: "red", origin: "pass_town", destination: "blue_home", units: 2 } };
    expect(interp.check(seed.state, seed.action).allowed).toBe(true);
    const asked: string[] = [];
    const [v] = await compareRuleVariants(ir, [m], {
      seeds: () => [seed],
      routePath: (route, args, from, to, state) => {
        asked.push(`${route}(${args.join(",")}) ${from}>${to}`);
        return interp.routePath(route, args, from, to, state);
      },
    });
    expect(v).toMatchObject({ verdict: "differs", action: "move" });
    expect(asked).toContain("march_path(red) pass_town>blue_home");
    const { state, action } = v!.witness!;
    const mut = createInterpreter(mutateEdition(ir, m));
    expect(interp.check(state, action).allowed).not.toBe(mut.check(state, action).allowed);
    // found near the seed: the ends of its path and the part no rule of the query reads kept
    // (decode's base); the rule's own parameters free (the power may change with the controllers)
    expect(action).toMatchObject({ origin: "pass_town", destination: "blue_home", units: 5 });
    expect(state).toMatchObject({ turn: 3 });
  });

  it("without the interpreter's paths, a state found near a seed decodes what the model leaves open to the defaults its routes were checked on, and replays", async () => {
    // every space blue's: red's move pass_town → blue_home has no path near this seed, so the
    // search must change the controllers; routes checked at the defaults must not be decoded with the seed's values
    const blue = { ...STATE, spaces: Object.fromEntries(SPACES.map((sp) => [sp, { controller: "blue", unrest: false }])) };
    const m = mutantsOf(ir).find((x) => x.id === "move.cap#const_plus@when.args.0.right")!;
    const [v] = await compareRuleVariants(ir, [m], { seeds: () => [{ state: blue, action: { action: "move", power: "red", origin: "pass_town", destination: "blue_home", units: 2 } }] });
    expect(v!.verdict).toBe("differs");
    const { state, action } = v!.witness!;
    const interp = createInterpreter(ir);
    expect(interp.check(state, action).allowed).not.toBe(createInterpreter(mutateEdition(ir, m)).check(state, action).allowed);
  });
});
