/**
 * One arithmetic (issue 29, point 2): the checker bounds the rules' integers (RW3105, RW3106), and
 * the prover, the interpreter and the generated validators agree on states and actions whose
 * integers sit at the edges of the ranges they may take (the safe bound 2^53 − 1 for a declared
 * schema range, the 32-bit bound of an action parameter) — the three-way comparison of
 * test/fuzz/differential.ts on a copy of the mini edition with fields near the bounds, and the
 * prover's witnesses replayed through the validators.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { createInterpreter } from "../../compiler/interpret/index.js";
import { SAFE_INT_MAX, UNBOUNDED_INT_MAX, UNBOUNDED_INT_MIN } from "../../compiler/ir/ints.js";
import type { IREdition } from "../../compiler/ir/types.js";
import { proveEdition } from "../../compiler/verify/index.js";
import { QueryParts } from "../../compiler/verify/encode/parts.js";
import { getZ3 } from "../../compiler/verify/run/z3.js";
import { compareSample, newStats, type DiffEdition, type Sample } from "../fuzz/differential.js";
import { actionProblems, stateProblems } from "../../compiler/engine/validate.js";
import { loadValidators } from "../../compiler/engine/loader.js";
import { resolveEdition } from "../../compiler/engine/editions.js";

const MINI = path.resolve("test/fixtures/frontend/mini");
const tmp = fs.mkdtempSync(path.join(process.cwd(), ".tmp-int-bounds-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const HALF = 2 ** 52 - 1; // half + half + 1 = 2^53 − 1, the largest safe integer

/** The mini edition with integer fields at the safe bound and rules computing up to it. */
function edition(folder: string, rules: string): string {
  const dir = path.join(tmp, folder);
  fs.cpSync(MINI, dir, { recursive: true });
  const schemaFile = path.join(dir, "state.schema.json");
  const schema = JSON.parse(fs.readFileSync(schemaFile, "utf8"));
  schema.properties.half = { type: "integer", minimum: 0, maximum: HALF };
  schema.properties.neg_half = { type: "integer", minimum: -HALF, maximum: 0 };
  schema.properties.wide = { type: "integer", minimum: 0, maximum: SAFE_INT_MAX };
  schema.required.push("half", "neg_half", "wide");
  fs.writeFileSync(schemaFile, JSON.stringify(schema, null, 2));
  fs.writeFileSync(path.join(dir, "ints.rules"), rules);
  return dir;
}

const RULES = [
  'rule ints.top §1 "fires only at the top of the safe range"',
  "  forbid pass when state.half + state.half + 1 = 9007199254740991",
  'rule ints.below §1 "one below the top"',
  "  forbid pass when state.half + state.half + 1 = 9007199254740989",
  'rule ints.wide §1 "the largest safe integer itself"',
  "  forbid pass when state.wide = 9007199254740991",
  'rule ints.diff §1 "a difference at the negative bound"',
  "  forbid pass when state.neg_half - state.half = -9007199254740990",
  'rule ints.units §1 "an action parameter holds a 32-bit integer: times 2^21 stays safe"',
  "  forbid move when units * 2097152 >= 4503599625273344",
  'rule ints.units_low §1 "the 32-bit lower bound"',
  "  forbid move when -units = 2147483648",
  "",
].join("\n");

describe("the checker bounds the integers", () => {
  let n = 0;
  const errs = (rules: string) => loadEdition(edition(`e${n++}`, rules), { repoRoot: process.cwd() }).diagnostics.filter((d) => d.severity === "error");

  it("the issue's overflow example is RW3106 at the product that leaves the safe range", () => {
    const es = errs('rule x.big §1 "x"\n  forbid pass when state.turn * 1000000 * 1000000 * 1000000 + 1 = state.turn * 1000000 * 1000000 * 1000000\n');
    expect(es.map((d) => [d.code, d.span.line, d.span.column, d.span.endColumn])).toEqual([["RW3106", 2, 20, 60], ["RW3106", 2, 67, 107]]);
    expect(es[0]!.message).toContain("may be 9000000000000000000");
  });

  it("a 400-digit literal is RW3105, not Infinity", () => {
    const es = errs(`rule x.lit §1 "x"\n  forbid pass when state.turn = ${"9".repeat(400)}\n`);
    expect(es.map((d) => [d.code, d.span.line, d.span.column])).toEqual([["RW3105", 2, 33]]);
  });

  it("2^53 as a literal, a table range or a schema bound is RW3105; 2^53 − 1 is fine", () => {
    expect(errs('rule x.l §1 "x"\n  forbid pass when state.wide = 9007199254740992\n').map((d) => d.code)).toEqual(["RW3105"]);
    expect(errs('rule x.l §1 "x"\n  forbid pass when state.wide = 9007199254740991\n')).toEqual([]);
    expect(errs('table t §1 "t" (r: int in 0..9007199254740992): bool { _: true }\n').map((d) => d.code)).toEqual(["RW3105"]);
    const dir = edition("schema-bound", "");
    const f = path.join(dir, "state.schema.json");
    fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace(`"maximum": ${SAFE_INT_MAX}`, '"maximum": 9007199254740992'));
    expect(loadEdition(dir, { repoRoot: process.cwd() }).diagnostics.filter((d) => d.severity === "error").map((d) => d.code)).toEqual(["RW3105"]);
  });

  it("one past the bound is RW3106: a sum, a product of two action parameters, a negation and a difference, a def at a wide argument", () => {
    expect(errs('rule x.s §1 "x"\n  forbid pass when state.half + state.half + 2 > 0\n').map((d) => d.code)).toEqual(["RW3106"]);
    expect(errs('rule x.p §1 "x"\n  forbid move when units * units > 0\n').map((d) => d.code)).toEqual(["RW3106"]);
    expect(errs('rule x.n §1 "x"\n  forbid pass when -state.neg_half - state.wide < 0 or state.wide + 1 > 0\n').map((d) => d.code)).toEqual(["RW3106"]);
    // a def is checked with the ranges of each call's arguments
    expect(errs('def twice(x: int): int = x + x\nrule x.d §1 "x"\n  forbid pass when twice(state.half) + 1 > 0\n')).toEqual([]);
    // … and reported at the call, whose argument makes it overflow
    expect(errs('def twice(x: int): int = x + x\nrule x.d §1 "x"\n  forbid pass when twice(state.wide) > 0\n').map((d) => [d.code, d.span.line, d.span.column, d.span.endColumn]))
      .toEqual([["RW3106", 3, 20, 37]]);
  });

  it("the edition with the rules at the edges compiles", () => {
    expect(errs(RULES)).toEqual([]);
  });
});

describe("prover ≡ interpreter ≡ validators at the edges of the ranges", () => {
  let ed: DiffEdition;
  let ir: IREdition;
  beforeAll(async () => {
    const dir = edition("edges", RULES);
    const ref = resolveEdition(path.relative(process.cwd(), dir));
    const res = loadEdition(ref.dir, { repoRoot: process.cwd() });
    ir = res.edition!;
    const mod = await loadValidators(ref, ir);
    ed = { name: "edges", ir, mod, interp: createInterpreter(ir), parts: new QueryParts(await getZ3(), ir, 4), seeds: [] };
  }, 120_000);

  const base = () => ({
    phase: "diplomacy", segment: "declarations", turn: 1, wars: [], hands: { red: ["truce"], blue: [] },
    spaces: Object.fromEntries(["red_home", "blue_home", "genoa", "pass_town", "sea_a"].map((s) => [s, { controller: "red", unrest: false }])),
    half: 0, neg_half: 0, wide: 0,
  });

  it("every rule agrees on states and actions at the bounds, and fires exactly where exact arithmetic says", () => {
    const stats = newStats(ir);
    const samples: Sample[] = [];
    for (const half of [0, 1, HALF - 1, HALF]) {
      for (const negHalf of [-HALF, -HALF + 1, 0]) {
        for (const wide of [0, SAFE_INT_MAX - 1, SAFE_INT_MAX]) {
          samples.push({ state: { ...base(), half, neg_half: negHalf, wide }, action: { action: "pass", power: "red" }, origin: `half ${half} neg_half ${negHalf} wide ${wide}` });
        }
      }
    }
    for (const units of [UNBOUNDED_INT_MIN, UNBOUNDED_INT_MIN + 1, 0, UNBOUNDED_INT_MAX - 1, UNBOUNDED_INT_MAX]) {
      samples.push({ state: base(), action: { action: "move", power: "red", origin: "red_home", destination: "red_home", units }, origin: `units ${units}` });
    }
    for (const s of samples) expect(compareSample(ed, s, stats)).toEqual([]);
    expect(stats.failures).toEqual([]);
    expect(stats.discarded).toBe(0);
    // exact arithmetic decides: each edge rule fires on exactly the samples it should
    expect(Object.fromEntries([...stats.fires].filter(([id]) => id.startsWith("ints.")))).toEqual({
      "ints.top": 9, // half = 2^52 − 1 (3 × 3 samples)
      "ints.below": 9, // half = 2^52 − 2
      "ints.wide": 12, // wide = 2^53 − 1
      "ints.diff": 3, // neg_half = −(2^52 − 1) and half = 2^52 − 1
      "ints.units": 1, // units = 2^31 − 1
      "ints.units_low": 1, // units = −2^31
    });
  });

  it("an action parameter beyond 32 bits or a schema integer beyond its bounds is refused as input", () => {
    expect(actionProblems(ir, { action: "move", power: "red", origin: "red_home", destination: "red_home", units: UNBOUNDED_INT_MAX + 1 })).toEqual([
      `parameter \`units\`: ${UNBOUNDED_INT_MAX + 1} is outside ${UNBOUNDED_INT_MIN}..${UNBOUNDED_INT_MAX} (an int without a declared range holds a 32-bit integer)`,
    ]);
    expect(stateProblems(ir, undefined, { ...base(), wide: SAFE_INT_MAX + 1 }).length).toBeGreaterThan(0);
  });

  it("the prover finds each edge rule can fire, and its witness fires it in the validators", async () => {
    const report = await proveEdition(ir, { timeoutMs: 60_000, only: (o) => o.kind === "dead_rule" && o.rules.some((r) => r.startsWith("ints.")) });
    const obs = report.obligations.filter((o) => o.kind === "dead_rule");
    expect(obs.map((o) => [o.rules[0], o.verdict])).toEqual([
      ["ints.below", "proved"], ["ints.diff", "proved"], ["ints.top", "proved"], ["ints.units", "proved"], ["ints.units_low", "proved"], ["ints.wide", "proved"],
    ].sort());
    for (const o of obs) {
      const w = o.witness!;
      expect(stateProblems(ir, ed.mod, w.state)).toEqual([]);
      expect(actionProblems(ir, w.action)).toEqual([]);
      const fired = ed.mod.check(w.state, w.action).violations.map((v) => v.rule);
      expect(fired).toContain(o.rules[0]);
      expect(ed.interp.check(w.state, w.action).violations.map((v) => v.rule)).toContain(o.rules[0]);
    }
    const units = obs.find((o) => o.rules[0] === "ints.units")!.witness!.action.units;
    expect(units).toBe(UNBOUNDED_INT_MAX);
    const low = obs.find((o) => o.rules[0] === "ints.units_low")!.witness!.action.units;
    expect(low).toBe(UNBOUNDED_INT_MIN);
  }, 120_000);
});
