/**
 * The synthetic rulebooks of the scaling benchmark (bench/scaling/synth.ts) are real rulebooks:
 * they compile, hold the expected rules, and each copy's rules judge only their own actions, with
 * the copy's own exemption.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { createInterpreter } from "../../compiler/interpret/index.js";
import { writeSynthetic } from "../../bench/scaling/synth.js";
import { makeState } from "../../bench/states.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-synth-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("synthetic rulebooks", () => {
  it("k copies on disjoint actions compile, with oblige rules kept once", () => {
    const his = loadEdition("dsl/his").edition!;
    const files = ["war.rules", "../modules/pass/pass.rules", "deploy.rules", "../modules/spring_deployment/deploy.rules"];
    const w = writeSynthetic({ from: "dsl/his", files, copies: 3, out: path.join(tmp, "s3") });
    // the rules of the copied files and the invariants of the declarations file (his has more files)
    const copied = new Set(files.map((f) => path.normalize(path.join("dsl/his", f))));
    const real = {
      rules: his.rules.filter((r) => copied.has(path.normalize(r.pos.file))),
      invariants: his.invariants.filter((i) => path.normalize(i.pos.file) === path.normalize("dsl/his/edition.rules")),
    };
    expect(real.rules.length).toBeGreaterThan(30);
    const res = loadEdition(w.dir, { repoRoot: process.cwd() });
    expect(res.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const ir = res.edition!;
    const obliges = real.rules.filter((r) => r.kind === "oblige").length;
    expect(ir.name).toBe("synth_3x");
    expect(ir.rules.length).toBe(w.rules);
    expect(ir.rules.length).toBe(real.rules.length * 3 - obliges * 2);
    expect(ir.actions.map((a) => a.name).sort()).toEqual(["declare_war", "declare_war_c1", "declare_war_c2", "pass", "pass_c1", "pass_c2", "spring_deploy", "spring_deploy_c1", "spring_deploy_c2"]);
    expect(ir.invariants.length).toBe(real.invariants.length);
    expect(ir.exemptions.map((e) => [e.id, e.groups]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ["c1.deploy.spring_preparations", ["star_c1"]],
      ["c2.deploy.spring_preparations", ["star_c2"]],
      ["deploy.spring_preparations", ["*"]],
    ]);

    const interp = createInterpreter(ir);
    const state = { ...makeState(1, "declare_war"), phase: "diplomacy", segment: "declarations_of_war", alliances: [] } as never;
    const v = interp.check(state, { action: "declare_war_c2", by: "france", target: "hungary_bohemia" });
    expect(v.violations.map((x) => x.rule)).toEqual(["c2.dow.hungary_bohemia"]);
    // copy 1's (*) rules are lifted by copy 1's exemption only
    const deploy = { ...makeState(2, "spring_deploy"), phase: "spring_deployment", active_power: "france", events_played_this_phase: [{ power: "france", event: "spring_preparations" }] } as never;
    const far = { power: "france", origin: "paris", destination: "istanbul", land_units: 1, leaders: [] };
    const lifted = interp.check(deploy, { action: "spring_deploy_c1", ...far }).violations.map((x) => x.rule);
    expect(lifted).toContain("c1.deploy.path");
    expect(lifted.filter((r) => /no_pass|blocked_sea|sea_cap|star_all/.test(r))).toEqual([]);
  });

  it("the reduced prover configuration drops the invariants and caps the lists", () => {
    const w = writeSynthetic({ from: "dsl/his", files: ["war.rules", "../modules/pass/pass.rules"], copies: 2, out: path.join(tmp, "r2"), maxItems: 4, dropInvariants: true });
    const ir = loadEdition(w.dir, { repoRoot: process.cwd() }).edition!;
    expect(ir.invariants).toEqual([]);
    expect(ir.rules.length).toBe(w.rules);
    const bounds = JSON.stringify(ir.schema).match(/"maxItems":\d+/g) ?? [];
    expect(bounds.length).toBeGreaterThan(0);
    expect(bounds.every((b) => Number(b.split(":")[1]) <= 4)).toBe(true);
  });
});
