/**
 * Each analysis on Here I Stand-based fixtures: test/broken/<name>/ (one broken rule file next to
 * links into dsl/his) is refuted, test/fixed/<name>/ (the repair) is proved. Only the analysis
 * under test is proved (`only`), and counterexamples are replayed through the generated
 * validators like test/verify/crosscheck.test.ts does.
 */
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { proveEdition, type ObligationResult, type ProofReport } from "../../compiler/verify/index.js";
import type { ObligationKind } from "../../compiler/ir/obligations.js";
import type { IREdition } from "../../compiler/ir/types.js";
import { loadValidators } from "../../compiler/engine/loader.js";
import { stateProblems } from "../../compiler/engine/validate.js";

/** proving takes minutes on a busy machine: speed is measured in benchmarks, not by test timeouts */
const LONG = 1_800_000;

async function prove(dir: string, kinds: ObligationKind[], ids?: string[]): Promise<{ ir: IREdition; report: ProofReport }> {
  const res = loadEdition(dir, { repoRoot: process.cwd() });
  expect(res.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  const ir = res.edition!;
  const report = await proveEdition(ir, { timeoutMs: 120_000, only: (o) => kinds.includes(o.kind) && (!ids || ids.includes(o.id)) });
  return { ir, report };
}
const get = (r: ProofReport, id: string): ObligationResult => {
  const o = r.obligations.find((x) => x.id === id);
  if (!o) throw new Error(`no ${id} in ${r.obligations.map((x) => x.id).join(", ")}`);
  return o;
};

describe("obligation_clash", () => {
  it("refutes test/broken/obligation-clash with a counterexample the validators confirm", async () => {
    const { ir, report } = await prove("test/broken/obligation-clash", ["obligation_clash"]);
    const o = get(report, "his.obligation_clash.concede.empty_hand~pass.empty_hand");
    expect(o.verdict).toBe("refuted");
    expect(o.severity).toBe("error");
    const cx = o.counterexample!;
    expect(cx.minimal).toBe(true);
    const mod = await loadValidators({ dir: "test/broken/obligation-clash", bundled: false }, ir);
    expect(stateProblems(ir, mod, cx.state)).toEqual([]);
    const power = cx.action.power as string;
    expect(mod.obligedActions(cx.state, power).map((x) => x.action).sort()).toEqual(["concede", "pass"]);
    const pass = mod.check(cx.state, { action: "pass", power });
    expect(pass.violations.map((v) => v.rule)).toContain("concede.empty_hand");
  }, LONG);

  it("proves test/fixed/obligation-clash", async () => {
    const { report } = await prove("test/fixed/obligation-clash", ["obligation_clash"]);
    const o = get(report, "his.obligation_clash.concede.stuck_hand~pass.empty_hand");
    expect(o.verdict).toBe("proved");
    expect(o.core).toEqual(["concede.stuck_hand", "pass.empty_hand"]);
  }, LONG);
});

describe("always_forbidden", () => {
  it("refutes test/broken/always-forbidden with both bans in the core", async () => {
    const { report } = await prove("test/broken/always-forbidden", ["always_forbidden"]);
    const o = get(report, "his.always_forbidden.pass");
    expect(o.verdict).toBe("refuted");
    expect(o.core).toEqual(["pass.broken_never", "pass.phase"]);
    expect(get(report, "his.always_forbidden.declare_war").verdict).toBe("proved");
  }, LONG);
});

describe("swallowing_exemption", () => {
  it("refutes test/broken/swallowing-exemption; the rule is dead because of it", async () => {
    const { report } = await prove("test/broken/swallowing-exemption", ["swallowing_exemption", "dead_rule"]);
    const o = get(report, "his.swallowing_exemption.pass.broken_home_card_waiver~pass.home_card");
    expect(o.verdict).toBe("refuted");
    expect(o.severity).toBe("warning");
    expect(o.core).toEqual(["pass.broken_home_card_waiver", "pass.home_card"]);
    const dead = get(report, "his.dead_rule.pass.home_card");
    expect(dead.verdict).toBe("refuted");
    expect(dead.core).toContain("pass.broken_home_card_waiver");
  }, LONG);

  it("proves test/fixed/swallowing-exemption with a witness where the ban applies", async () => {
    const { report } = await prove("test/fixed/swallowing-exemption", ["swallowing_exemption"]);
    const o = get(report, "his.swallowing_exemption.pass.home_card_waiver~pass.home_card");
    expect(o.verdict).toBe("proved");
    const w = o.witness!;
    const hand = (w.state.hands as Record<string, { home: boolean }[]>)[w.action.power as string];
    expect(hand.some((c) => c.home)).toBe(true);
  }, LONG);
});

describe("redundant_rule", () => {
  it("refutes test/broken/redundant-rule (info) with the rule that covers it", async () => {
    const { report } = await prove("test/broken/redundant-rule", ["redundant_rule"], ["his.redundant_rule.dow.broken_ottoman_hungary", "his.redundant_rule.dow.hungary_bohemia"]);
    const o = get(report, "his.redundant_rule.dow.broken_ottoman_hungary");
    expect(o.verdict).toBe("refuted");
    expect(o.severity).toBe("info");
    expect(o.core).toContain("dow.hungary_bohemia");
    // the wider rule is still needed (France may not declare war on Hungary-Bohemia either)
    expect(get(report, "his.redundant_rule.dow.hungary_bohemia").verdict).toBe("proved");
  }, LONG);

  it("reports the annotated restatement of test/fixed/redundant-rule with severity off and its note", async () => {
    const { report } = await prove("test/fixed/redundant-rule", ["redundant_rule"], ["his.redundant_rule.dow.ottoman_hungary"]);
    const o = get(report, "his.redundant_rule.dow.ottoman_hungary");
    expect(o.verdict).toBe("refuted");
    expect(o.severity).toBe("off");
    expect(o.severityNote).toMatch(/on purpose/);
  }, LONG);
});

describe("stuck_power", () => {
  it("refutes test/broken/stuck-power: a power holding its home card has no move (replayed for every move)", async () => {
    const { ir, report } = await prove("test/broken/stuck-power", ["stuck_power"]);
    const o = get(report, "his.stuck_power.action_phase");
    expect(o.verdict).toBe("refuted");
    expect(o.stuck!.decline).toBe("pass");
    const cx = o.counterexample!;
    const mod = await loadValidators({ dir: "test/broken/stuck-power", bundled: false }, ir);
    expect(stateProblems(ir, mod, cx.state)).toEqual([]);
    const power = cx.state.active_power as string;
    expect(cx.action).toEqual({ action: "pass", power });
    expect(mod.check(cx.state, cx.action).allowed).toBe(false);
    // the moves of the Action Phase are pass and play_card (declare_war's rules are scoped to the
    // Diplomacy Phase: not a move here); the first few cards are forbidden too
    expect(o.stuck!.blocked.map((b) => b.action).sort()).toEqual(["pass", "play_card"]);
    for (let card = -1; card < 4; card++) expect(mod.check(cx.state, { action: "play_card", power, card }).allowed).toBe(false);
    expect(o.stuck!.blocked.find((b) => b.action === "play_card")!.rules).toContain("play.broken_home_card");
  }, LONG);

  it("proves test/fixed/stuck-power in every phase (the Action Phase through the quantified card choice)", async () => {
    const { report } = await prove("test/fixed/stuck-power", ["stuck_power"]);
    for (const phase of ["diplomacy", "spring_deployment", "action_phase"]) {
      const o = get(report, `his.stuck_power.${phase}`);
      expect(o.verdict, `${phase}: ${o.reason ?? ""}`).toBe("proved");
    }
  }, LONG);
});
