/**
 * The checked entry points of generated/his (issue 26, item 1): `check`, `legalMoves` and
 * `validateAction` answer malformed input with an input error (`{ ok: false, errors }`, never a
 * verdict), never throw on JSON data and never answer `allowed` to a malformed action; the
 * reproducers of the issue, then a fast-check property over arbitrary JSON. `checkTrusted` and
 * `legalMovesTrusted` give the same answers on valid input.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { check, checkTrusted, legalMoves, legalMovesTrusted, validateAction, type State } from "../../generated/his/index.js";
import { makeState } from "../../bench/states.js";

const dow = (): State => ({ ...makeState(7, "declare_war"), phase: "diplomacy", segment: "declarations_of_war" });

/** The error result's problems, failing the test when `r` is a verdict. */
function errors(r: unknown): { input: string; path: string; message: string }[] {
  expect(r).toMatchObject({ ok: false });
  expect(r).not.toHaveProperty("allowed");
  return (r as { errors: { input: string; path: string; message: string }[] }).errors;
}

describe("check refuses malformed actions (the issue's reproducers)", () => {
  it("a declare_war without `by` is an input error at /by, not allowed", () => {
    const r = check(dow(), { action: "declare_war", power: "ottoman", target: "france" });
    expect(errors(r)).toEqual([
      { input: "action", path: "/by", message: "action `declare_war` needs parameter `by`" },
      { input: "action", path: "/power", message: "action `declare_war` has no parameter `power`" },
    ]);
  });

  it("names that are no enum member, and land_units that are no integer", () => {
    expect(errors(check(dow(), { action: "declare_war", by: "klingon", target: "france" }))[0]).toMatchObject({ path: "/by", message: expect.stringContaining("expected one of ottoman") });
    expect(errors(check(dow(), { action: "declare_war", by: "ottoman", target: "atlantis" }))[0]).toMatchObject({ path: "/target" });
    const deploy = { action: "spring_deploy", power: "ottoman", origin: "istanbul", destination: "edirne", leaders: [] };
    for (const bad of [2.5, Number.NaN, "4", 2 ** 31]) {
      expect(errors(check(dow(), { ...deploy, land_units: bad }))[0], String(bad)).toMatchObject({ input: "action", path: "/land_units" });
    }
    expect(errors(check(dow(), { ...deploy, land_units: 2, leaders: undefined }))).toContainEqual({ input: "action", path: "/leaders", message: "parameter `leaders`: expected a list" });
    const { leaders: _, ...noLeaders } = { ...deploy, land_units: 2 };
    expect(errors(check(dow(), noLeaders))).toEqual([{ input: "action", path: "/leaders", message: "action `spring_deploy` needs parameter `leaders`" }]);
  });

  it("a state that is null, {} or missing a field is an input error of the state", () => {
    const pass = { action: "pass", power: "ottoman" };
    expect(errors(check(null, pass))[0]).toMatchObject({ input: "state", path: "" });
    expect(errors(check({}, pass)).some((e) => e.input === "state" && e.message.includes("required"))).toBe(true);
    const { spaces: _, ...noSpaces } = dow();
    expect(errors(check(noSpaces, pass))).toContainEqual({ input: "state", path: "", message: 'must have required property \'spaces\': "spaces"' });
  });

  it("legalMoves refuses an unknown actor and a malformed state", () => {
    expect(errors(legalMoves(dow(), "klingon"))).toEqual([{ input: "actor", path: "", message: expect.stringContaining("expected one of") }]);
    expect(errors(legalMoves({}, "ottoman"))[0]!.input).toBe("state");
    expect(errors(legalMoves(null, "ottoman"))[0]!.input).toBe("state");
  });

  it("validateAction is empty for a valid action and lists every problem of another", () => {
    expect(validateAction({ action: "declare_war", by: "ottoman", target: "france" })).toEqual([]);
    expect(validateAction({ action: "conquer" })).toEqual([{ input: "action", path: "/action", message: expect.stringContaining("unknown action `conquer`") }]);
    expect(validateAction("pass")[0]!.path).toBe("");
    expect(validateAction({ action: "pass", power: "ottoman", "a/b": 1 })).toEqual([{ input: "action", path: "/a~1b", message: "action `pass` has no parameter `a/b`" }]);
  });
});

describe("on valid input the checked and trusted entry points agree", () => {
  it("the verdict of checkTrusted marked ok, and the same moves", () => {
    for (let seed = 0; seed < 12; seed++) {
      const s = makeState(300 + seed, seed % 3 === 0 ? "spring_deploy" : seed % 3 === 1 ? "pass" : "declare_war");
      const moves = legalMoves(s, s.active_power);
      expect(moves).toEqual(legalMovesTrusted(s, s.active_power));
      for (const m of legalMovesTrusted(s, s.active_power).slice(0, 30)) {
        const r = check(s, m);
        const t = checkTrusted(s, m);
        expect(r.ok && { allowed: r.allowed, obliged: r.obliged, rules: r.violations.map((v) => v.rule) }).toEqual({ allowed: t.allowed, obliged: t.obliged, rules: t.violations.map((v) => v.rule) });
      }
    }
  });
});

describe("never throws on JSON data, never allowed for a malformed action", () => {
  it("arbitrary JSON as the state, the action or one parameter (fast-check)", () => {
    const base = dow();
    let refused = 0;
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (x, y) => {
        const r1 = check(x, y);
        if (r1.ok) expect(validateAction(y)).toEqual([]);
        const r2 = check(base, y);
        expect(r2.ok, JSON.stringify(y)).toBe(validateAction(y).length === 0);
        const r3 = check(base, { action: "declare_war", by: x, target: "france" });
        expect(r3.ok).toBe(typeof x === "string" && ["ottoman", "hapsburg", "england", "france", "papacy", "protestant"].includes(x));
        const l = legalMoves(x, y);
        expect(Array.isArray(l) || l.ok === false).toBe(true);
        if (!r2.ok) refused++;
      }),
      { seed: 26, numRuns: 300 },
    );
    expect(refused).toBeGreaterThan(100);
  });
});

describe("one action check for the CLI and the generated API", () => {
  it("actionProblems with the loaded validators answers with their validateAction; the IR's check agrees on which actions are valid", async () => {
    const { loadEdition } = await import("../../compiler/check/index.js");
    const { actionProblems } = await import("../../compiler/engine/validate.js");
    const ir = loadEdition("dsl/his").edition!;
    const gen = { validateAction };
    fc.assert(
      fc.property(fc.constantFrom("declare_war", "pass", "spring_deploy", "play_card", "klingon"), fc.dictionary(fc.constantFrom("by", "target", "power", "land_units", "leaders", "card", "as", "origin"), fc.oneof(fc.constantFrom("ottoman", "france", "istanbul", "event", 2, 2.5, [], ["x"]), fc.jsonValue())), (name, params) => {
        const a = { action: name, ...params };
        expect(actionProblems(ir, a, gen)).toEqual(validateAction(a).map((p) => p.message));
        expect(actionProblems(ir, a).length === 0).toBe(validateAction(a).length === 0);
      }),
      { seed: 26, numRuns: 400 },
    );
  });
});
