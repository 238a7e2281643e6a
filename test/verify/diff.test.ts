/**
 * `rulewright diff`: the exact route encoding against the generated validator's search (a
 * property over random states of the tiny board), the diff of tiny editions (identical, a verdict
 * difference, an obligation difference, editions without a shared vocabulary), and the command on
 * the Here I Stand fixture variants in test/fixtures/diff/ — every state it reports is replayed
 * with `rulewright check` under both editions.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import type { Bool } from "z3-solver";
import type { Expr, IREdition } from "../../compiler/ir/types.js";
import { loadEdition } from "../../compiler/check/index.js";
import { ExactRouteEncoder } from "../../compiler/verify/diff/route-exact.js";
import { DiffInputError, diffEditions, sharedActions, vocabularyProblems } from "../../compiler/verify/diff/diff.js";
import { nonDefaultFacts, shrink } from "../../compiler/verify/encode/state-facts.js";
import { duringCheck, getZ3, runExclusive } from "../../compiler/verify/run/z3.js";
import * as T from "../helpers/tiny-ir.js";
import * as H from "../helpers/verify-ir.js";
import { loadValidators, type ValidatorModule } from "../../compiler/engine/loader.js";

const REPO = process.cwd();
const BIN = path.join(REPO, "bin/rulewright.mjs");

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// ---------------------------------------------------------------------------------------------
// the exact route encoding

describe("exact routes (route-exact.ts) against the generated validator's search", () => {
  const ir = T.tinyIR();
  let mod: ValidatorModule;
  beforeAll(async () => {
    mod = await loadValidators({ dir: "test/fixtures/tiny-diff", bundled: false }, ir);
  });

  const powers = T.Power.members;
  const spaces = T.board.spaces.map((s) => s.id);
  // spaces mostly controlled by the deploying power, mostly free of unrest and blockades, so that
  // both answers are common
  const arbState = fc.record({
    spaces: fc.tuple(
      ...spaces.map(() =>
        fc.record({ mine: fc.integer({ min: 0, max: 3 }), other: fc.constantFrom(...powers), unrest: fc.integer({ min: 0, max: 4 }), blockaded: fc.integer({ min: 0, max: 3 }) }),
      ),
    ),
    power: fc.constantFrom("red", "blue"),
    origin: fc.constantFrom(...spaces),
    destination: fc.constantFrom(...spaces),
    avoid: fc.boolean(),
    seas: fc.integer({ min: -1, max: 3 }),
  });

  it("decides reachable(deploy_path(…)) as the validator's breadth-first search does, on random states", async () => {
    const ctx = await getZ3();
    // reachable(deploy_path(power, avoid_passes, seas), origin, destination), from the deploy.path rule
    const rule = ir.rules.find((r) => r.id === "deploy.path")!;
    const reach = (rule.when as Extract<Expr, { k: "not" }>).arg;
    expect(reach.k).toBe("reach");
    const act = ir.actions.find((a) => a.name === "deploy")!;
    await runExclusive(async () => {
      const enc = new ExactRouteEncoder(ctx, ir, 4);
      const env = enc.actionEnv(act);
      const u = enc.withRoutes(ir.routes, () => enc.unit(() => enc.bool(reach, env)));
      expect(u.reach.size).toBe(1);
      let lemmas = 0;
      let checks = 0;
      /** sat of pins ∧ (reach = want), refining the route until the model is exact */
      const solve = async (pins: Bool<"main">[], asserted: Set<string>, want: boolean): Promise<boolean> => {
        const s = new ctx.Solver();
        try {
          for (const p of pins) s.add(p);
          s.add(want ? u.e : enc.terms.not(u.e));
          for (let i = 0; i < 200; i++) {
            checks++;
            const r = await duringCheck(() => s.check());
            if (r === "unsat") return false;
            expect(r).toBe("sat");
            const m = s.model();
            try {
              const ref = enc.refine(m, u.reach, asserted);
              if (!ref.lemmas.length) return true;
              lemmas += ref.lemmas.length;
              for (const l of ref.lemmas) s.add(l);
            } finally {
              m.release();
            }
          }
          throw new Error("refinement did not converge");
        } finally {
          s.release();
        }
      };
      let reachable = 0;
      await fc.assert(
        fc.asyncProperty(arbState, async (x) => {
          const spacesJson: Record<string, unknown> = {};
          const pins: Bool<"main">[] = [];
          const asserted = new Set<string>();
          const pin = (name: string, type: Parameters<typeof enc.terms.leaf>[1], value: boolean | number | string) => {
            const e = enc.terms.leaf(name, type);
            asserted.add(name);
            if (type.k === "enum") pins.push((e as never as { eq(x: unknown): Bool<"main"> }).eq(enc.terms.enumVal(type.base, enc.terms.enumCode(type, value as string))));
            else if (type.k === "bool") pins.push(value ? (e as Bool<"main">) : enc.terms.not(e as Bool<"main">));
            else pins.push((e as never as { eq(x: number): Bool<"main"> }).eq(value as number));
          };
          spaces.forEach((id, i) => {
            const g = x.spaces[i];
            const sp = { controller: g.mine > 0 ? x.power : g.other, unrest: g.unrest === 0, blockaded: g.blockaded === 0 };
            spacesJson[id] = sp;
            pin(`state.spaces[${id}].controller`, T.Power, sp.controller);
            pin(`state.spaces[${id}].unrest`, { k: "bool" }, sp.unrest);
            pin(`state.spaces[${id}].blockaded`, { k: "bool" }, sp.blockaded);
          });
          pin("action.power", T.MajorPower, x.power);
          pin("action.origin", T.Space, x.origin);
          pin("action.destination", T.Space, x.destination);
          pin("action.avoid_passes", { k: "bool" }, x.avoid);
          pin("action.seas", { k: "int" }, x.seas);
          const yes = await solve(pins, asserted, true);
          const no = await solve(pins, asserted, false);
          expect(yes).not.toBe(no); // the state decides the route
          // the generated validator: deploy.path fires exactly when there is no path
          const state = { ...T.tinyState(), phase: "action", played: [], spaces: spacesJson };
          const v = mod.check(state, { action: "deploy", power: x.power, origin: x.origin, destination: x.destination, units: 0, avoid_passes: x.avoid, seas: x.seas });
          const validatorReach = !v.violations.some((w) => w.rule === "deploy.path");
          expect(yes).toBe(validatorReach);
          if (yes) reachable++;
        }),
        { numRuns: 100, seed: 20240517 },
      );
      // the property saw both answers and the solver needed lemmas to get them right
      expect(reachable).toBeGreaterThan(20);
      expect(reachable).toBeLessThan(80);
      expect(lemmas).toBeGreaterThan(0);
      expect(checks).toBeGreaterThan(200);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// the diff of tiny editions

describe("diffEditions on tiny editions", () => {
  const { rule, cmp, len, handOf, power, target, by, lit, member, Power, and, st } = H;
  const actionScope = { phase: "action" };
  const base = () => H.edition({ name: "a", rules: [...H.consistentRules], exemptions: [...H.consistentExemptions], invariants: [...H.consistentInvariants] });
  /** The base edition with `dow.scotland` also banning England (the base bans the Ottoman and France). */
  const englandAlsoBanned = () => {
    const b = base();
    b.rules = b.rules.map((r) =>
      r.id === "dow.scotland"
        ? { ...r, when: and(cmp("=", target, member(Power, "scotland")), H.inSet(by, [member(Power, "ottoman"), member(Power, "france"), member(Power, "england")])) }
        : r,
    );
    return b;
  };

  it("an edition compared with itself is identical on every action", async () => {
    const d = await diffEditions(base(), base());
    expect(d.actions.map((a) => [a.action, a.verdict])).toEqual([
      ["declare_war", "identical"],
      ["pass", "identical"],
    ]);
    expect(d.notCompared).toEqual([]);
  });

  it("a rule changed under the same id: a state where the verdicts differ, with the rules that fire", async () => {
    const b = englandAlsoBanned();
    const d = await diffEditions(base(), b, { maxStates: 3 });
    const dw = d.actions.find((a) => a.action === "declare_war")!;
    expect(dw.verdict).toBe("differs");
    expect(dw.aspects).toEqual({ allowed: "differs", obliged: "identical" });
    expect(dw.candidates.length).toBeGreaterThanOrEqual(1);
    for (const c of dw.candidates) {
      expect(c.action).toMatchObject({ action: "declare_war", by: "england", target: "scotland" });
      expect(c.a.allowed).toBe(true);
      expect(c.b.allowed).toBe(false);
      expect(c.b.rules).toContain("dow.scotland");
      expect(c.state.phase).toBe("diplomacy");
    }
    expect(d.actions.find((a) => a.action === "pass")!.verdict).toBe("identical");
  });

  it("a search that runs out of its resource budget is unknown, with the reason, and the same in two runs (issue 23)", async () => {
    const b = englandAlsoBanned();
    const runs = [await diffEditions(base(), b, { rlimit: 1 }), await diffEditions(base(), b, { rlimit: 1 })];
    for (const d of runs) {
      expect(d.bounds.rlimit).toBe(1);
      const dw = d.actions.find((a) => a.action === "declare_war")!;
      expect(dw.verdict).toBe("unknown");
      expect(dw.candidates).toEqual([]);
      expect(dw.reason).toMatch(/resource budget exhausted \(rlimit 1;/);
    }
    const verdicts = (d: (typeof runs)[number]) => d.actions.map((a) => [a.action, a.verdict, a.aspects, a.reason]);
    expect(verdicts(runs[1]!)).toEqual(verdicts(runs[0]!));
    // the default budget finds the difference (the test above)
  });

  it("an obligation that only one edition has differs in the obliged aspect, and in the verdicts of the actor's other actions", async () => {
    const a = base();
    const b = base();
    a.rules = a.rules.filter((r) => r.id !== "pass.empty_hand");
    b.rules = b.rules.filter((r) => r.id !== "pass.empty_hand");
    b.rules.push(rule("pass.empty_hand", "oblige", "pass", cmp("=", len(handOf(power)), lit(0)), { scope: actionScope }));
    const d = await diffEditions(a, b, { maxStates: 1 });
    const pass = d.actions.find((x) => x.action === "pass")!;
    expect(pass.aspects.obliged).toBe("differs");
    const c = pass.candidates.find((x) => x.aspect === "obliged")!;
    expect(c.a.obliged).toBe(false);
    expect(c.b.obliged).toBe(true);
    expect((c.state.hands as Record<string, unknown[]>)[c.action.power as string]).toEqual([]);
    // the obligation forbids declaring war in the Action Phase in b only
    const dw = d.actions.find((x) => x.action === "declare_war")!;
    expect(dw.verdict).toBe("differs");
    expect(dw.candidates[0].b.rules).toContain("pass.empty_hand");
    void st;
  });

  it("refuses editions whose state vocabularies differ, naming what differs", async () => {
    const a = base();
    const fields = H.StateType.fields.map((f) => (f.name === "at_war" ? { ...f, type: { k: "list" as const, elem: H.War, bound: 6 } } : f));
    const b = H.edition({ name: "b", rules: [], state: { k: "record", fields } });
    b.board = { ...b.board, connections: b.board.connections.filter((c) => c.type !== "pass") };
    const problems = vocabularyProblems(a, b);
    expect(problems).toContain("state.at_war: maxItems 4 in a, 6 in b");
    expect(problems.some((p) => p.includes("edinburgh–london (pass) only in a"))).toBe(true);
    await expect(diffEditions(a, b)).rejects.toBeInstanceOf(DiffInputError);
  });

  it("compares only the actions both editions declare with the same parameters", () => {
    const a = base();
    const b: IREdition = { ...base(), actions: [a.actions[0], { ...a.actions[1], params: [a.actions[1].params[0]] }] };
    expect(sharedActions(a, b)).toEqual({ shared: ["pass"], notCompared: [{ action: "declare_war", reason: "parameter `target` only in a" }] });
  });
});

describe("state facts and shrinking", () => {
  it("lists the facts away from the defaults and shrinks to the ones a predicate needs", () => {
    const t = H.StateType;
    const s = { phase: "action", segment: "declarations_of_war", turn: 3, hands: { ottoman: [], hapsburg: [{ home: true, mandatory: false, cp: 2 }], england: [], france: [] }, admin: { ottoman: 1, hapsburg: 2, england: 1, france: 1 }, at_war: [], x: 0, y: 5, z: 0, name: "" };
    expect(nonDefaultFacts(t, s)).toEqual(["phase = action", "turn = 3", "hands[hapsburg][0] = { home: true, mandatory: false, cp: 2 }", "admin[hapsburg] = 2", "y = 5"]);
    const small = shrink(t, s, (v) => (v as typeof s).y > 0);
    expect(nonDefaultFacts(t, small)).toEqual(["y = 1"]);
    const two = shrink(t, s, (v) => (v as typeof s).y > 0 && (v as typeof s).hands.hapsburg.length > 0);
    expect(nonDefaultFacts(t, two)).toEqual(["hands[hapsburg][0] = { home: false, mandatory: false, cp: 1 }", "y = 1"]);
  });
});

// ---------------------------------------------------------------------------------------------
// the command on the Here I Stand fixture variants

interface JsonReport {
  editions: { a: { name: string; dir: string; inputHash: string }; b: { name: string; dir: string; inputHash: string } };
  outDir: string;
  actions: {
    action: string;
    verdict: string;
    reason?: string;
    differences: { aspect: string; stateFile: string; actionFile: string; verdictA: string; verdictB: string; rulesA: { id: string; file: string; line: number; citation: string }[]; rulesB: { id: string; file: string; line: number; citation: string }[]; facts: string[] }[];
    unconfirmed: unknown[];
  }[];
  notCompared: unknown[];
}

describe("rulewright diff on the Here I Stand fixture variants", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-diff-"));

  it("the 500th Anniversary route restriction: a confirmed spring_deploy difference, nothing else", () => {
    const out = path.join(tmp, "units");
    const r = run(["diff", "his", "test/fixtures/diff/his-units", "--format", "json", "--max-states", "1", "--timeout", "900000", "--out", out]);
    expect(r.err).not.toMatch(/does not replay/);
    expect(r.code, r.err).toBe(0);
    const rep = JSON.parse(r.out) as JsonReport;
    expect(rep.editions.a.name).toBe("his");
    const by = Object.fromEntries(rep.actions.map((a) => [a.action, a]));
    expect(by.declare_war.verdict).toBe("identical");
    expect(by.pass.verdict).toBe("identical");
    expect(by.spring_deploy.verdict).toBe("differs");
    for (const a of rep.actions) expect(a.unconfirmed).toEqual([]);
    const d = by.spring_deploy.differences[0];
    expect(d).toMatchObject({ aspect: "allowed", verdictA: "allowed", verdictB: "forbidden", rulesA: [] });
    expect(d.rulesB.map((x) => x.id)).toEqual(["deploy.unfriendly_units"]);
    expect(d.rulesB[0].file).toBe("test/fixtures/diff/his-units/units.rules");
    expect(d.rulesB[0].citation).toBe("his §10");
    // the state holds another power's units on the way
    expect(d.facts.some((f) => /(land_units|naval_units)\[/.test(f))).toBe(true);
    // replayed by `check` under both editions: allowed by his, forbidden by the variant
    const a = run(["check", "--edition", "his", "--state", d.stateFile, "--action", d.actionFile, "--format", "json"]);
    expect(a.code, a.err).toBe(0);
    const b = run(["check", "--edition", "test/fixtures/diff/his-units", "--state", d.stateFile, "--action", d.actionFile, "--format", "json"]);
    expect(b.code, b.err).toBe(1);
    expect(JSON.parse(b.out).violations.map((v: { rule: string }) => v.rule)).toEqual(["deploy.unfriendly_units"]);
    expect(fs.existsSync(path.join(out, "report.json"))).toBe(true);
  }, 1_500_000);

  it("a clause another rule already covers (the Scotland ban) changes nothing: identical everywhere", () => {
    const r = run(["diff", "his", "test/fixtures/diff/his-scotland", "--format", "json", "--out", path.join(tmp, "scotland"), "--fail-on-diff"]);
    expect(r.code, r.err).toBe(0);
    const rep = JSON.parse(r.out) as JsonReport;
    // each edition's inputs hash: the rulebook report tells by it whether the diff is of the rules as they are
    const hashes = ["dsl/his", "test/fixtures/diff/his-scotland"].map((d) => loadEdition(d, { repoRoot: process.cwd() }).edition!.inputHash);
    expect([rep.editions.a.inputHash, rep.editions.b.inputHash]).toEqual(hashes);
    expect(hashes[0]).not.toBe(hashes[1]);
    expect(rep.actions.map((a) => [a.action, a.verdict])).toEqual([
      ["choose_deep_exploration", "identical"],
      ["declare_war", "identical"],
      ["end_diplomacy", "identical"],
      ["end_impulse", "identical"],
      ["end_new_world", "identical"],
      ["end_spring_deployment", "identical"],
      ["pass", "identical"],
      ["play_card", "identical"],
      ["spend_cp", "identical"],
      ["spring_deploy", "identical"],
    ]);
  }, 600_000);

  it("an edition compared with itself is identical; the text report says so", () => {
    const r = run(["diff", "his", "his", "--out", path.join(tmp, "self")]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/declare_war\s+identical/);
    expect(r.out).toMatch(/spring_deploy\s+identical/);
  }, 600_000);

  it("editions without a shared vocabulary are bad input (exit 2) naming what differs", () => {
    const r = run(["diff", "his", "test/fixtures/frontend/mini"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot be compared/);
    expect(r.err).toMatch(/state\./);
    expect(r.err).not.toMatch(/at .*\.ts:\d+/);
    const u = run(["diff", "his"]);
    expect(u.code).toBe(2);
  });
});
