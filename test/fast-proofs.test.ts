/**
 * The fast paths of the prover (compiler/verify/README.md "Fast proofs") never change a verdict:
 * - a concrete witness counts only when the obligation's own formula holds on it: a candidate
 *   whose state was edited after it was judged (one field) is rejected and the solver answers;
 * - slicing: every obligation of one bundled edition gets the same verdict with and without
 *   cone-of-influence slicing (a slice that dropped an invariant an obligation needs would show);
 * - sharding: the shards of a run, merged, are the unsharded report.
 */
import { describe, expect, it } from "vitest";
import { loadEdition } from "../compiler/check/index.js";
import { loadValidators, resolveEdition } from "../compiler/cli/common.js";
import { judgeWith, scenarioCandidates } from "../compiler/cli/witnesses.js";
import { mergeReports, proveEdition, type ProofReport } from "../compiler/verify/index.js";
import { obligationsFor } from "../compiler/verify/obligations.js";
import { sliceInvariants } from "../compiler/verify/slice.js";
import { candidatesFor } from "../compiler/verify/witnesses.js";
import { proofReport } from "./helpers/proof-reports.js";
import * as H from "./helpers/verify-ir.js";

const strip = (r: ProofReport) => JSON.parse(JSON.stringify(r), (k, v) => (k === "ms" || k === "profile" ? undefined : v));

describe("concrete witnesses", () => {
  it("answer an obligation only when its own formula holds on them (a tampered state goes to the solver)", async () => {
    const ref = resolveEdition("his");
    const ir = loadEdition(ref.dir, { repoRoot: process.cwd() }).edition!;
    const judge = judgeWith(ir, await loadValidators(ref, ir));
    const states = scenarioCandidates(judge);
    expect(states.length).toBeGreaterThan(100);
    // a dead_rule of a rule scoped to a phase, with a scenario state where the rule fires
    const ob = obligationsFor(ir).find((o) => o.kind === "dead_rule" && ir.rules.find((r) => r.id === o.rules[0])!.scope && candidatesFor(o, states).length)!;
    const rule = ir.rules.find((r) => r.id === ob.rules[0])!;
    const judged = states.find((s) => s.source === candidatesFor(ob, states)[0].source && s.action === candidatesFor(ob, states)[0].action)!;
    const only = (o: { id: string }) => o.id === ob.id;

    const good = await proveEdition(ir, { timeoutMs: 60_000, only, witnesses: { states: [judged] } });
    expect(good.obligations[0].verdict).toBe("proved");
    expect(good.obligations[0].witness!.source).toBe(judged.source);
    expect(good.obligations[0].witness!.state).toEqual(judged.state);

    // the same state with its phase moved out of the rule's scope, still claimed to fire the rule
    const phases = ir.enums.find((e) => e.name === "Phase")!.members;
    const tampered = { ...judged, state: { ...judged.state, phase: phases.find((p) => p !== rule.scope!.phase)! } };
    expect(judge(tampered.state, tampered.action, "tampered")?.fired ?? []).not.toContain(rule.id);
    const bad = await proveEdition(ir, { timeoutMs: 60_000, only, witnesses: { states: [tampered] } });
    expect(bad.obligations[0].verdict).toBe("proved");
    expect(bad.obligations[0].witness!.source).toBeUndefined();
    expect(bad.obligations[0].witness!.state.phase).toBe(rule.scope!.phase);
  });
});

describe("slicing", () => {
  it("gives every obligation of Here I Stand the verdict it has without slicing", async () => {
    const ref = resolveEdition("his");
    const ir = loadEdition(ref.dir, { repoRoot: process.cwd() }).edition!;
    const judge = judgeWith(ir, await loadValidators(ref, ir));
    // unsliced, every invariant in every query; the concrete witnesses keep it short
    const unsliced = await proveEdition(ir, { timeoutMs: 60_000, isolate: true, slicing: false, witnesses: { states: scenarioCandidates(judge), judge } });
    const sliced = proofReport("dsl/his");
    const verdicts = (r: ProofReport) => r.obligations.map((o) => `${o.id} ${o.verdict}${o.vacuous ? " vacuous" : ""}`);
    expect(verdicts(unsliced)).toEqual(verdicts(sliced));
    // the comparison means something: most obligations leave invariants out of their slice
    const obs = obligationsFor(ir);
    expect(obs.filter((o) => sliceInvariants(ir, o).length < ir.invariants.length).length).toBeGreaterThan(obs.length / 2);
  });
});

describe("sharding", () => {
  it("merges the shards of a run into the unsharded report, for 1, 2 and 3 shards", async () => {
    const ir = H.edition({ rules: [...H.consistentRules], exemptions: [...H.consistentExemptions], invariants: [...H.consistentInvariants] });
    const whole = await proveEdition(ir, { timeoutMs: 10_000 });
    for (const count of [1, 2, 3]) {
      const shards: ProofReport[] = [];
      for (let index = 1; index <= count; index++) shards.push(await proveEdition(ir, { timeoutMs: 10_000, shard: { index, count } }));
      expect(shards.reduce((n, s) => n + s.obligations.length, 0)).toBe(whole.obligations.length);
      if (count > 1) for (const s of shards) expect(s.obligations.length).toBeLessThan(whole.obligations.length);
      expect(strip(mergeReports(shards))).toEqual(strip(whole));
    }
    await expect(proveEdition(ir, { shard: { index: 3, count: 2 } })).rejects.toThrow(/bad shard/);
  });
});
