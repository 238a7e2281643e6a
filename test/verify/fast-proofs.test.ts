/**
 * The fast paths of the prover (compiler/verify/README.md "Fast proofs") never change a verdict:
 * - a concrete witness counts only when the obligation's own formula holds on it: a candidate
 *   whose state was edited after it was judged (one field) is rejected and the solver answers;
 * - slicing: every obligation of one bundled edition gets the same verdict with and without
 *   cone-of-influence slicing (a slice that dropped an invariant an obligation needs would show);
 * - sharding: the shards of a run, merged, are the unsharded report;
 * - a witness the interpreter picked counts once the generated validators confirm it;
 * - a stuck_power proof is reused after an edit only when its unsat core leaves the edit out.
 */
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { coreObligation } from "../../compiler/verify/obligations/core.js";
import { obligationKeyer } from "../../compiler/verify/cache/keys.js";
import { mergeReports, proveEdition, SolverPool, type ProofReport } from "../../compiler/verify/index.js";
import { obligationsFor } from "../../compiler/ir/obligations.js";
import { sliceInvariants } from "../../compiler/verify/obligations/slice.js";
import { candidatesFor } from "../../compiler/verify/obligations/witnesses.js";
import { proofReport } from "../helpers/proof-reports.js";
import * as H from "../helpers/verify-ir.js";
import { loadValidators } from "../../compiler/engine/loader.js";
import { resolveEdition } from "../../compiler/engine/editions.js";
import { judgeWith, scenarioCandidates, stagedJudge } from "../../compiler/engine/witnesses.js";

/** a report without what depends on the run: times, and the resource count used (Z3's count for a query depends on what the process solved before; the budget stays) */
const strip = (r: ProofReport) => JSON.parse(JSON.stringify(r), (k, v) => (k === "ms" || k === "profile" || k === "used" ? undefined : v));

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
    // An obligation whose slice keeps every invariant is the same query sliced or not: only those
    // whose slice leaves an invariant out are proved again, unsliced (every invariant in the query;
    // the concrete witnesses keep it short)
    const obs = obligationsFor(ir);
    const narrowed = new Set(obs.filter((o) => sliceInvariants(ir, o).length < ir.invariants.length).map((o) => o.id));
    // the comparison means something: most obligations leave invariants out of their slice
    expect(narrowed.size).toBeGreaterThan(obs.length / 2);
    const unsliced = await proveEdition(ir, { timeoutMs: 60_000, isolate: true, slicing: false, only: (o) => narrowed.has(o.id), witnesses: { states: scenarioCandidates(judge), judge } });
    const sliced = proofReport("dsl/his");
    const verdicts = (r: ProofReport) => r.obligations.filter((o) => narrowed.has(o.id)).map((o) => `${o.id} ${o.verdict}${o.vacuous ? " vacuous" : ""}`);
    expect(unsliced.obligations.map((o) => o.id).sort()).toEqual([...narrowed].sort());
    expect(verdicts(unsliced)).toEqual(verdicts(sliced));
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

describe("witnesses the generated validators confirm later", () => {
  it("count once the generated validators agree; a witness they reject sends its obligation to the solver", async () => {
    const ref = resolveEdition("his");
    const ir = loadEdition(ref.dir, { repoRoot: process.cwd() }).edition!;
    const judge = judgeWith(ir, await loadValidators(ref, ir));
    const states = scenarioCandidates(judge);
    const ob = obligationsFor(ir).find((o) => o.kind === "dead_rule" && o.action === "declare_war" && candidatesFor(o, states).length)!;
    const only = (o: { id: string }) => o.id === ob.id;
    let asked: readonly string[] | undefined;
    const yes = await proveEdition(ir, { timeoutMs: 60_000, only, isolate: true, witnesses: { states, judge, confirm: async (actions) => ((asked = actions), () => true) } });
    expect(asked).toEqual(["declare_war"]);
    expect(yes.obligations[0]).toMatchObject({ verdict: "proved", witness: { source: candidatesFor(ob, states)[0].source } });
    const no = await proveEdition(ir, { timeoutMs: 60_000, only, isolate: true, witnesses: { states, judge, confirm: async () => () => false } });
    expect(no.obligations[0].verdict).toBe("proved");
    expect(no.obligations[0].witness!.source).toBeUndefined();
  });

  it("stagedJudge: the interpreter judges at once; confirm loads the checkers of some actions and agrees only on those", async () => {
    const ref = resolveEdition("his");
    const ir = loadEdition(ref.dir, { repoRoot: process.cwd() }).edition!;
    const full = judgeWith(ir, await loadValidators(ref, ir));
    const asked: (readonly string[])[] = [];
    const { judge, confirm } = stagedJudge(ir, async (actions) => (asked.push(actions), loadValidators(ref, ir)));
    const s = scenarioCandidates(full).find((j) => j.action.action === "declare_war")!;
    // the interpreter alone gives the verdict the validators and the interpreter agreed on
    expect(judge(s.state, s.action, "x")).toMatchObject({ allowed: s.allowed, fired: s.fired });
    expect(asked).toEqual([]);
    const agrees = await confirm(["declare_war"]);
    await confirm(["pass"]);
    expect(asked).toEqual([["declare_war"]]);
    expect(agrees(s.state, s.action)).toBe(true);
    expect(agrees(s.state, { ...s.action, action: "pass" })).toBe(false);
    const broken = stagedJudge(ir, () => Promise.reject(new Error("no validators")));
    expect((await broken.confirm(["declare_war"]))(s.state, s.action)).toBe(false);
  });
});

describe("stuck_power reuse by unsat core", () => {
  it("its core names the moves the proof needs; an edit of another move's rule keeps the core obligation's key, an edit of the core's does not", () => {
    const ir = loadEdition("dsl/his", { repoRoot: process.cwd() }).edition!;
    const ob = obligationsFor(ir).find((o) => o.id === "his.stuck_power.diplomacy")!;
    const sliced = new Set(sliceInvariants(ir, ob).map((i) => i.id));
    const keyOf = (e: typeof ir, core: string[]) => {
      const o = obligationsFor(e).find((x) => x.id === ob.id)!;
      const c = coreObligation(e, o, core, sliced);
      return c && obligationKeyer(e, { listBound: 4 })(c);
    };
    // the proof on record: in the Diplomacy Phase a power may always end its part of it
    expect(proofReport("dsl/his").obligations.find((o) => o.id === ob.id)).toMatchObject({ verdict: "proved", core: ["move:end_diplomacy"] });
    const core = ["move:end_diplomacy"];
    const before = keyOf(ir, core);
    expect(before).toBeDefined();
    // England's ban on war with Venice becomes France's: declare_war is not in the core
    const edit = (id: string, f: (r: (typeof ir.rules)[number]) => (typeof ir.rules)[number]) => ({ ...ir, rules: ir.rules.map((r) => (r.id === id ? f(r) : r)) });
    const venice = edit("dow.venice_england", (r) => ({ ...r, when: { k: "not", arg: r.when, type: { k: "bool" } } as typeof r.when }));
    expect(keyOf(venice, core)).toBe(before);
    // the same edit counts when the core names declare_war
    expect(keyOf(venice, ["move:declare_war", "move:end_diplomacy"])).not.toBe(keyOf(ir, ["move:declare_war", "move:end_diplomacy"]));
    // a new ban on ending the phase is inside the core
    const banned = { ...ir, rules: [...ir.rules, { ...ir.rules.find((r) => r.id === "dow.self")!, id: "end.never", action: "end_diplomacy", when: { k: "lit", value: true, type: { k: "bool" } } as (typeof ir.rules)[number]["when"] }] };
    expect(keyOf(banned, core)).not.toBe(before);
    // a core that names no move of the phase stands for nothing
    expect(keyOf(ir, ["move:spring_deploy"])).toBeUndefined();
    expect(keyOf(ir, ["move:no_such_action"])).toBeUndefined();
  });
});

describe("SolverPool", () => {
  it("keeps as many solver processes busy as the largest claim of the runs still going", async () => {
    const pool = new SolverPool(2);
    try {
      const small = pool.start(1);
      expect(pool.size).toBe(1);
      const big = pool.start();
      expect(pool.size).toBe(2);
      big();
      expect(pool.size).toBe(1);
      small();
      expect(pool.size).toBe(2);
    } finally {
      await pool.close();
    }
  });
});
