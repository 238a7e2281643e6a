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

describe("the CLI's explanation of a finding", () => {
  it("`prove` prints what the verdict means under the finding, and the replay command", async () => {
    const { explainLines } = await import("../../compiler/cli/prove.js");
    const ir = tinyIR();
    const rule = ir.rules[0]!;
    const o = { id: "t.contradiction", kind: "contradiction", severity: "error", verdict: "refuted", action: rule.action, rules: [rule.id, rule.id], subjects: [rule.id], ms: 0, counterexample: { state: {}, action: { action: rule.action }, replayable: true, facts: [] } } as unknown as ObligationResult;
    const lines = explainLines({ edition: ir.name, dir: "dsl/t", outDir: "proofs/t", ir, files: new Map([[o.id, { state: "s.json", action: "a.json" }]]), errors: 0, failed: false, ms: 0 }, o, "").map((l) => l.replace(/\x1b\[[0-9;]*m/g, ""));
    expect(lines[1]).toBe("Some state obliges the action and forbids it at once: a player cannot obey both rules.");
    expect(lines).toContain(`replay: ${replayCommandFor("dsl/t", "s.json", "a.json")}`);
  });
});
