/**
 * The reasons of the checked `check` of generated/his (issue 26, item 3): over every scenario of
 * the edition, each violation carries the values that made its rule fire (the action parameters
 * its condition reads, at least) and a message that starts with its title; `lifted` lists forbid
 * rules that exemptions lifted, never one that is also violated; rule ids are a closed list.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { paramsRead } from "../../compiler/codegen/legal-moves.js";
import { findScenarioFiles, readScenarioFile } from "../../compiler/scenarios/index.js";
import { EXEMPTIONS, EXEMPTION_IDS, RULES, RULE_IDS, check, checkTrusted, type RuleId } from "../../generated/his/index.js";
import { makeState } from "../../bench/states.js";

describe("reasons (his)", () => {
  it("every violation of every scenario carries its values and a message; lifted rules are not violated", () => {
    const ir = loadEdition("dsl/his").edition!;
    let violations = 0;
    let lifted = 0;
    for (const file of findScenarioFiles([path.join("test/scenarios", "his")])) {
      for (const s of readScenarioFile(file, (e) => path.join("test", "fixtures", path.basename(e))).scenarios) {
        if (!("action" in s) || !s.action) continue;
        const r = check(s.state, s.action);
        if (!r.ok) continue; // a scenario state that is only valid for its invariants' sake is still checked below
        const t = checkTrusted(s.state as never, s.action as never);
        expect(r.violations.map((v) => v.rule)).toEqual(t.violations.map((v) => v.rule));
        for (const v of r.violations) {
          violations++;
          expect(v.message.startsWith(v.title), v.rule).toBe(true);
          const rule = ir.rules.find((x) => x.id === v.rule)!;
          const a = ir.actions.find((x) => x.name === rule.action)!;
          // the parameters its condition names appear among the values (for its own action's rules)
          if (rule.action === (s.action as { action: string }).action) {
            const read = new Set<string>();
            paramsRead(rule.when, new Set(a.params.map((p) => p.name)), read);
            for (const p of read) expect(v.values, `${v.rule} ${p}`).toHaveProperty(p);
          }
        }
        for (const l of r.lifted) {
          lifted++;
          expect(r.violations.some((v) => v.rule === l.rule), l.rule).toBe(false);
          for (const e of l.exemptions) expect(EXEMPTIONS.find((x) => x.id === e)?.rules.includes(l.rule) || EXEMPTIONS.find((x) => x.id === e)!.groups.length > 0).toBe(true);
        }
      }
    }
    expect(violations).toBeGreaterThan(50);
    expect(lifted, "some scenario has a rule lifted by an exemption").toBeGreaterThan(0);
  });

  it("names the card, and the count against its limit", () => {
    const s = { ...makeState(7, "pass"), phase: "action_phase" as const };
    const r = check(s, { action: "pass", power: s.active_power });
    if (!r.ok) throw new Error("bad input");
    const home = r.violations.find((v) => v.rule === "pass.home_card");
    expect(home?.values["c"]).toMatchObject({ home: true });
    expect(home?.message).toContain(`c = ${(home?.values["c"] as { id: string }).id}`);
    const admin = r.violations.find((v) => v.rule === "pass.admin_rating")!;
    expect(admin.values["count(state.hands[power])"]).toBeGreaterThan(admin.values["state.rulers[power].admin_rating"] as number);
  });

  it("rule ids are a closed list (RULE_IDS, RuleId)", () => {
    expect([...RULE_IDS]).toEqual(RULES.map((r) => r.id));
    expect([...EXEMPTION_IDS]).toEqual(EXEMPTIONS.map((e) => e.id));
    const id: RuleId = "pass.home_card";
    expect(RULE_IDS).toContain(id);
  });
});
