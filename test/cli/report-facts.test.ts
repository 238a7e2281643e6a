/**
 * Counterexamples a designer reads (issue 25): facts kept to what the finding's rules read,
 * grouped, read with the phrases, and marked as a space only when their type says so; the
 * explanation of each verdict in the report's data; the blocked moves of a stuck power in words.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { IREdition } from "../../compiler/ir/types.js";
import type { ObligationResult, ProofReport } from "../../compiler/ir/proof-report.js";
import { lexicon } from "../../compiler/report/english.js";
import { factGroups, parseFactPath } from "../../compiler/report/facts.js";
import { readPhrases } from "../../compiler/report/phrases.js";
import { buildSiteData } from "../../compiler/report/data.js";
import { readLayout } from "../../compiler/report/site.js";
import { loadBundled } from "./readings-golden.js";

const ROOT = process.cwd();
let his: IREdition;
beforeAll(() => {
  his = loadBundled(ROOT, "his");
});

describe("facts", () => {
  it("a power spelled like a space is not a space: the Genoa case", () => {
    const lex = lexicon(his, readPhrases(his, ROOT));
    const facts = [
      { path: "state.alliances[8].a", value: "genoa" },
      { path: "state.spaces[genoa].controller", value: "genoa" },
      { path: "state.spaces[paris].controller", value: "genoa" },
      { path: "action.target", value: "genoa" },
    ];
    const views = factGroups(his, lex, facts, [], "declare_war").flatMap((g) => g.facts);
    expect(views.map((v) => [v.path, v.space ?? null])).toEqual([
      ["state.alliances[8].a", null],
      ["state.spaces[genoa].controller", "genoa"],
      ["state.spaces[paris].controller", "paris"],
      ["action.target", null], // declare_war's target is a Power
    ]);
    expect(views[0]!.text).toBe("the first power of alliance 9 is Genoa");
    expect(views[2]!.text).toBe("the controller of Paris is Genoa");
    expect(views[3]!.text).toBe("the target is Genoa");
  });

  it("only the facts the finding's rules read are kept, grouped by what they are about", () => {
    const lex = lexicon(his, readPhrases(his, ROOT));
    const facts = [
      { path: "state.alliances[0].a", value: "france" },
      { path: "state.alliances[0].b", value: "scotland" },
      { path: "state.spaces[paris].unrest", value: true },
      { path: "state.hands[france]#len", value: 0 },
      { path: "action.by", value: "france" },
    ];
    const groups = factGroups(his, lex, facts, ["dow.minor_ally"], "declare_war");
    expect(groups.map((g) => [g.key, g.title, g.facts.length])).toEqual([
      ["alliances", "the alliances", 2],
      ["action", "the action", 1],
    ]);
    expect(groups[0]!.facts[0]!.rules).toEqual(["dow.minor_ally"]);
    // with no reader, every fact is kept, in words
    const all = factGroups(his, lex, facts, [], "declare_war").flatMap((g) => g.facts.map((f) => f.text));
    expect(all).toContain("Paris is in unrest");
    expect(all).toContain("the hand of France is empty");
    expect(all).toContain("the acting power is France");
  });

  it("a path that does not fit the state stays as the prover wrote it", () => {
    expect(parseFactPath("state.x[")).toBeUndefined();
    const lex = lexicon(his);
    const [g] = factGroups(his, lex, [{ path: "state.no_such_field", value: 3 }], [], undefined);
    expect(g!.facts[0]!.text).toBe("state.no_such_field = 3");
  });
});

describe("obligations in the report's data", () => {
  it("a refuted redundant_rule carries its sentence, its core as data, the replay command; a stuck power's moves are spelled out", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rw-facts-"));
    const state = path.join(dir, "s.state.json");
    fs.writeFileSync(state, "{}");
    const base = { severity: "info", subjects: [], ms: 0, rules: [] as string[], action: "declare_war" } as const;
    const obligations = [
      { ...base, id: "his.redundant_rule.dow.alliance_this_phase", kind: "redundant_rule", verdict: "refuted", rules: ["dow.alliance_this_phase"], subjects: ["dow.alliance_this_phase"], core: ["dow.alliance_this_phase", "dow.own_ally"] },
      {
        ...base,
        id: "his.stuck_power.action_phase",
        kind: "stuck_power",
        severity: "warning",
        verdict: "refuted",
        action: "pass",
        phase: "action_phase",
        counterexample: { state: {}, action: { action: "pass", power: "france" }, replayable: true, facts: [{ path: "state.alliances[8].a", value: "genoa" }, { path: "state.hands[france]#len", value: 0 }], stateFile: state, actionFile: path.join(dir, "s.action.json") },
        stuck: { actor: "france", decline: "pass", obliged: [], blocked: [{ action: "play_card", rules: [], everyChoice: true }, { action: "pass", rules: ["pass.home_card"], everyChoice: false }] },
      },
      { ...base, id: "his.dead_rule.dow.self", kind: "dead_rule", verdict: "proved", rules: ["dow.self"], subjects: ["dow.self"] },
    ] as unknown as ObligationResult[];
    const report = { edition: "his", inputHash: his.inputHash, obligations, summary: { proved: 1, refuted: 2, unknown: 0 } } as unknown as ProofReport;
    const data = buildSiteData({ root: ROOT, editions: [{ ir: his, proof: { report, file: "r.json" }, scenarios: [] }], diffs: [] }, readLayout());
    const obs = data.editions[0]!.obligations;
    const red = obs.find((o) => o.kind === "redundant_rule")!.explanation;
    expect(red.finding).toBe("every state `dow.alliance_this_phase` forbids is already covered by `dow.own_ally`");
    expect(red.means).toMatch(/^Every state the rule decides is decided by other rules too/);
    expect(red.core.map((c) => [c.id, c.what])).toEqual([["dow.alliance_this_phase", "rule"], ["dow.own_ally", "rule"]]);
    expect(red.core[1]!.file).toBe("dsl/his/war.rules");
    const stuck = obs.find((o) => o.kind === "stuck_power")!;
    expect(stuck.explanation.replay).toBe(`npx rulewright check --edition dsl/his --state ${state} --action ${path.join(dir, "s.action.json")}`);
    expect(stuck.stuck!.blocked.map((b) => b.text)).toEqual(["play card: every choice of its parameters forbidden (no one rule forbids them all)", "pass: forbidden by pass.home_card"]);
    expect(stuck.stuck!.blocked.map((b) => b.text).join(" ")).not.toContain("?");
    // the alliance names Genoa the power: nothing to ring; pass.home_card reads the hands, not the alliances
    expect(stuck.example!.highlight).toEqual([]);
    expect(stuck.example!.factGroups.map((g) => g.key)).toEqual(["hands"]);
    expect(obs.find((o) => o.kind === "dead_rule")!.explanation.means).toMatch(/^The rule can fire/);
    expect(data.analyses.map((a) => a.kind)).toContain("dead_rule");
  });
});

describe("sections", () => {
  it("Virgin Queen's named sections come in rulebook order (by the coverage manifests), not alphabetically", () => {
    const vq = loadBundled(ROOT, "vq");
    const data = buildSiteData({ root: ROOT, editions: [{ ir: vq, scenarios: [] }], diffs: [] }, readLayout());
    const names = data.editions[0]!.sections.map((s) => s.section);
    const spring = names.findIndex((s) => s.startsWith("Spring Deployment Procedure"));
    const action = names.indexOf("Action Phase");
    // the source gives the Spring Deployment procedure before the Action Phase; alphabetically it would come after
    expect(spring).toBeGreaterThanOrEqual(0);
    expect(action).toBeGreaterThan(spring);
    expect([...names].sort()).not.toEqual(names);
    // every section is still there once
    expect(new Set(names).size).toBe(names.length);
  });
});
