/**
 * The benchmark's agreement check (bench/engines) on a small sample: json-rules-engine, Cedar,
 * the hand-written floor and the IR interpreter give the generated validators' verdict on every
 * check. Nothing is timed here (`npm run bench` times; `npm run bench -- --check-only` runs this
 * check on the full sets).
 */
import { describe, expect, it } from "vitest";
import { checkAgreement, createEngines, verdictKey } from "../../bench/engines/index.js";
import { makeSet, type ActionKind, type Sample } from "../../bench/states.js";

describe("benchmark engines", () => {
  it("agree with the generated validators on a sample of every action", async () => {
    const { engines } = createEngines();
    expect(engines.map((e) => e.id)).toEqual(["generated", "interpreter", "jre", "cedar", "hand"]);
    const sets = { declare_war: makeSet("declare_war", 96, 5), pass: makeSet("pass", 96, 5), spring_deploy: makeSet("spring_deploy", 48, 5) } as Record<ActionKind, Sample[]>;
    const r = await checkAgreement(engines, sets);
    expect(r.disagreements).toEqual([]);
    // 4 other engines on declare_war, 3 on pass and spring_deploy
    expect(r.checks).toBe(96 * 4 + 96 * 3 + 48 * 3);
    for (const [kind, v] of Object.entries(r.verdicts)) {
      expect(v.allowed, `${kind} allowed`).toBeGreaterThan(0);
      expect(v.forbidden, `${kind} forbidden`).toBeGreaterThan(0);
    }
  });

  it("reports a disagreement with the seeds that rebuild the sample", async () => {
    const { engines } = createEngines();
    const broken = { ...engines.find((e) => e.id === "hand")!, id: "broken", check: () => ({ allowed: true, violations: [], obliged: [] }) };
    const sets = { declare_war: makeSet("declare_war", 32, 9) } as Record<ActionKind, Sample[]>;
    const r = await checkAgreement([engines[0]!, broken], sets);
    const forbidden = sets.declare_war.filter((s) => verdictKey(engines[0]!.check(s.state, s.action) as never).startsWith("forbidden"));
    expect(r.disagreements.length).toBe(forbidden.length);
    expect(r.disagreements[0]).toMatchObject({ engine: "broken", kind: "declare_war", got: "allowed||" });
    expect(typeof r.disagreements[0]!.stateSeed).toBe("number");
  });
});
