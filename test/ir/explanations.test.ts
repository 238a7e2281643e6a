/** The analyses and verdicts in words (compiler/ir/explanations.ts, issue 25). */
import { describe, expect, it } from "vitest";
import { ANALYSES } from "../../compiler/ir/analyses.js";
import { analysisList, analysisWords, explainObligation, replayCommandFor } from "../../compiler/ir/explanations.js";
import type { ObligationResult } from "../../compiler/ir/proof-report.js";
import { tinyIR } from "../helpers/tiny-ir.js";

describe("analyses in words", () => {
  it("every analysis has a question and a meaning for each verdict, one sentence each", () => {
    const list = analysisList();
    expect(list.map((a) => a.kind)).toEqual([...ANALYSES]);
    for (const a of list) for (const s of [a.asks, a.proved, a.refuted]) expect(s, a.kind).toMatch(/^[A-Z].*[.?]$/);
    expect(analysisWords("dead_rule")!.proved).toMatch(/can fire/);
    expect(analysisWords("no_such")).toBeUndefined();
  });
});

describe("explainObligation", () => {
  it("says what the verdict means, why an unknown is unknown, and leaves ids the IR does not know out of the core", () => {
    const ir = tinyIR();
    const rule = ir.rules[0]!;
    const o = { id: "x", kind: "dead_rule", severity: "warning", verdict: "proved", action: rule.action, rules: [rule.id], subjects: [rule.id], ms: 0 } as unknown as ObligationResult;
    expect(explainObligation(o, ir).means).toMatch(/^The rule can fire/);
    expect(explainObligation({ ...o, verdict: "unknown", reason: "timeout" }, ir).means).toBe("Not decided: timeout.");
    const refuted = explainObligation({ ...o, verdict: "refuted", core: [rule.id, "not.a.rule"] }, ir);
    expect(refuted.core.map((c) => c.id)).toEqual([rule.id]);
    expect(refuted.finding).toContain(rule.id);
    expect(refuted.replay).toBeUndefined();
    expect(replayCommandFor("dsl/his", "a.state.json", "a.action.json")).toBe("npx rulewright check --edition dsl/his --state a.state.json --action a.action.json");
  });
});
