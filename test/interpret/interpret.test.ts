/**
 * The reference evaluator (compiler/interpret) against the generated validators: the same verdict
 * (allowed, every violation with its position and order, obliged rules), the same obligations and
 * the same broken invariants, on every scenario of every bundled edition, on seeded Here I Stand
 * states (bench/states.ts) and on fast-check states, and on the hand-built tiny edition whose IR
 * uses the constructs Here I Stand does not (max, min, sum, board functions, int max_seas).
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { generateEdition } from "../../compiler/codegen/index.js";
import { createInterpreter, InterpretError } from "../../compiler/interpret/index.js";
import type { IREdition } from "../../compiler/ir/types.js";
import { findScenarioFiles, judge, readScenarioFile } from "../../compiler/scenarios/index.js";
import { makeAction, makeSet, makeState, MAJORS, POWERS, type ActionKind } from "../../bench/states.js";
import { board as tinyBoard, MajorPower as TinyMajor, Power as TinyPower, tinyIR, tinyState } from "../helpers/tiny-ir.js";
import { writeGenerated } from "../helpers/generated-files.js";
import { loadValidators, type ValidatorModule } from "../../compiler/engine/loader.js";
import { stateProblems } from "../../compiler/engine/validate.js";

let his: IREdition;
let gen: ValidatorModule;

beforeAll(async () => {
  const res = loadEdition("dsl/his");
  his = res.edition!;
  gen = await loadValidators({ dir: "dsl/his", bundled: true }, his);
});

/** Asserts the interpreter and the generated module agree on everything about one check. */
function agree(interp: ReturnType<typeof createInterpreter>, mod: Pick<ValidatorModule, "check" | "obligedActions" | "brokenInvariants">, state: unknown, action: object, actors: readonly string[], label: string): void {
  expect(interp.check(state, action), label).toEqual(mod.check(state, action));
  for (const a of actors) expect(interp.obligedActions(state, a), `${label} obligedActions(${a})`).toEqual(mod.obligedActions(state, a));
  expect(interp.brokenInvariants(state), `${label} brokenInvariants`).toEqual(mod.brokenInvariants(state));
}

describe("interpreter: Here I Stand", () => {
  it("agrees with the generated validators on every scenario (and passes them)", () => {
    const interp = createInterpreter(his);
    let n = 0;
    for (const file of findScenarioFiles(["test/scenarios/his"])) {
      for (const s of readScenarioFile(file, (e) => `test/fixtures/${e}`).scenarios) {
        const action = s.action as { action: string };
        agree(interp, gen, s.state, action, MAJORS, `${file}: ${s.name}`);
        expect(judge(s.expect, interp.check(s.state, action)), s.name).toEqual({ pass: true, detail: "" });
        n++;
      }
    }
    expect(n).toBeGreaterThan(50);
  });

  it("agrees on seeded benchmark states, and those states are valid (schema and invariants)", () => {
    const interp = createInterpreter(his);
    const verdicts = new Map<string, { allowed: number; forbidden: number }>();
    for (const kind of ["declare_war", "pass", "spring_deploy"] as const) {
      for (const [i, s] of makeSet(kind, 160, 11).entries()) {
        if (i % 4 === 0) expect(stateProblems(his, gen, s.state), `${kind} #${i}`).toEqual([]);
        agree(interp, gen, s.state, s.action, [s.state.active_power], `${kind} #${i}`);
        const v = gen.check(s.state, s.action);
        const c = verdicts.get(kind) ?? { allowed: 0, forbidden: 0 };
        c[v.allowed ? "allowed" : "forbidden"]++;
        verdicts.set(kind, c);
      }
    }
    // the sets are worth timing only if both verdicts are common
    for (const [kind, c] of verdicts) {
      expect(c.allowed, `${kind} allowed`).toBeGreaterThan(10);
      expect(c.forbidden, `${kind} forbidden`).toBeGreaterThan(10);
    }
  });

  it("agrees on fast-check states and actions (any actor, any target, any destination)", () => {
    const interp = createInterpreter(his);
    const spaces = his.board.spaces.map((s) => s.id);
    const kinds: ActionKind[] = ["declare_war", "pass", "spring_deploy"];
    const pair = fc.record({ a: fc.constantFrom(...POWERS), b: fc.constantFrom(...POWERS) });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(...kinds),
        fc.constantFrom(...MAJORS),
        fc.constantFrom(...POWERS),
        fc.constantFrom(...spaces),
        fc.integer({ min: -1, max: 12 }),
        // extra pairs that may break invariants (self-alliance, independent at war, …)
        fc.option(fc.record({ list: fc.constantFrom("alliances", "wars", "peace_made_this_phase", "alliances_formed_this_phase"), pair }), { freq: 3 }),
        (seed, kind, actor, target, dest, units, extra) => {
          const state = makeState(seed, kind) as unknown as Record<string, unknown>;
          if (extra) state[extra.list] = [...(state[extra.list] as unknown[]), extra.pair];
          const base = makeAction(seed, kind, state as never) as unknown as Record<string, unknown>;
          const action =
            kind === "declare_war" ? { action: kind, by: actor, target }
            : kind === "pass" ? { action: kind, power: actor }
            : { ...base, power: actor, destination: dest, land_units: units };
          agree(interp, gen, state, action, MAJORS, JSON.stringify(action));
        },
      ),
      { numRuns: 300, seed: 20240611 },
    );
  });

  it("fires() reports single rules, and bad input is a clear error", () => {
    const interp = createInterpreter(his);
    const state = makeState(3, "declare_war");
    expect(interp.fires("dow.independent", state, { action: "declare_war", by: "france", target: "independent" })).toBe(true);
    expect(interp.fires("dow.independent", state, { action: "declare_war", by: "france", target: "scotland" })).toBe(false);
    expect(() => interp.fires("dow.nope", state, {})).toThrow(InterpretError);
    expect(() => interp.check(state, { action: "conquer" })).toThrow(/unknown action "conquer"/);
  });

  it("looks up the same row of every result table as the generated lookupRow, on every table scenario and every small domain", () => {
    const interp = createInterpreter(his);
    expect(his.tables?.length).toBeGreaterThan(0);
    let n = 0;
    for (const file of findScenarioFiles(["test/scenarios/his"])) {
      for (const s of readScenarioFile(file, (e) => `test/fixtures/${e}`).tableScenarios) {
        expect(interp.lookupRow(s.table, s.inputs), `${file}: ${s.name}`).toBe(gen.lookupRow(s.table, s.inputs));
        n++;
      }
    }
    expect(n).toBeGreaterThan(20);
    // every input of each table whose domain is finite and small (ranged ints, bools, enums)
    const values = (t: NonNullable<IREdition["tables"]>[number]["params"][number]["type"]): unknown[] | undefined =>
      t.k === "bool" ? [false, true] : t.k === "enum" ? t.members : t.k === "int" && t.min !== undefined && t.max !== undefined ? Array.from({ length: t.max - t.min + 1 }, (_, i) => t.min! + i) : undefined;
    let full = 0;
    for (const t of his.tables!) {
      const doms = t.params.map((p) => values(p.type));
      if (doms.some((d) => !d)) continue;
      let inputs: Record<string, unknown>[] = [{}];
      t.params.forEach((p, i) => (inputs = inputs.flatMap((x) => doms[i]!.map((v) => ({ ...x, [p.name]: v })))));
      for (const x of inputs) expect(interp.lookupRow(t.name, x), `${t.name} ${JSON.stringify(x)}`).toBe(gen.lookupRow(t.name, x));
      full++;
    }
    expect(full).toBeGreaterThan(0);
    // outside the domain: both refuse
    const t = his.tables!.find((x) => x.params.some((p) => p.type.k === "int" && p.type.max !== undefined))!;
    const p = t.params.find((x) => x.type.k === "int" && x.type.max !== undefined)!;
    const bad = { [p.name]: (p.type as { max: number }).max + 1 };
    expect(() => interp.lookupRow(t.name, bad)).toThrow(RangeError);
    expect(() => interp.lookupRow("no_such_table", {})).toThrow(InterpretError);
  });
});

describe("interpreter: the tiny edition (max, min, sum_highest, board functions, int max_seas)", () => {
  let dir: string;
  let tiny: Pick<ValidatorModule, "check" | "obligedActions" | "brokenInvariants">;

  beforeAll(async () => {
    dir = writeGenerated(await generateEdition(tinyIR()), "rulewright-interpret-");
    // the verdict alone (checkTrusted): the checked check adds ok, reasons and lifted exemptions
    const m = (await import(pathToFileURL(path.join(dir, "generated/tiny/index.ts")).href)) as typeof tiny & { checkTrusted: typeof tiny.check };
    tiny = { ...m, check: m.checkTrusted };
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("agrees with the generated validators on fast-check states", () => {
    const interp = createInterpreter(tinyIR());
    const ids = tinyBoard.spaces.map((s) => s.id);
    const power = fc.constantFrom(...TinyPower.members);
    const major = fc.constantFrom(...TinyMajor.members);
    const space = fc.record({ controller: power, unrest: fc.boolean(), blockaded: fc.boolean() });
    const words = fc.array(fc.constantFrom("a", "b", "spring"), { maxLength: 5 });
    const stateArb = fc.record({
      phase: fc.constantFrom("diplomacy", "action"),
      segment: fc.constantFrom("declarations", "other"),
      spaces: fc.tuple(...ids.map(() => space)).map((xs) => Object.fromEntries(ids.map((id, i) => [id, xs[i]]))),
      alliances: fc.array(fc.record({ a: power, b: power }), { maxLength: 4 }),
      hands: fc.record({ red: words, blue: words }),
      vp: fc.record({ red: fc.integer({ min: -2, max: 22 }), blue: fc.integer({ min: -2, max: 22 }), green: fc.integer({ min: -2, max: 22 }), yellow: fc.integer({ min: -2, max: 22 }) }),
      played: words,
    });
    const actionArb = fc.oneof(
      fc.record({ action: fc.constant("declare_war"), by: major, target: power }),
      fc.record({ action: fc.constant("pass"), power: major }),
      fc.record({
        action: fc.constant("deploy"),
        power: major,
        origin: fc.constantFrom(...ids),
        destination: fc.constantFrom(...ids),
        units: fc.integer({ min: 0, max: 9 }),
        avoid_passes: fc.boolean(),
        seas: fc.integer({ min: -1, max: 3 }),
      }),
    );
    fc.assert(
      fc.property(stateArb, actionArb, (state, action) => agree(interp, tiny, state, action, TinyMajor.members, JSON.stringify(action))),
      { numRuns: 400, seed: 7 },
    );
    // and the all-quiet fixture state is allowed by both
    expect(interp.check(tinyState(), { action: "pass", power: "red" })).toEqual(tiny.check(tinyState(), { action: "pass", power: "red" }));
  });
});
