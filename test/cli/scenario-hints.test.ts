/**
 * The hints a designer needs around scenarios and builds (issue 28, point 5): a did-you-mean for
 * a misspelled rule id in `expect` and for a misspelled `patch` field; `test` on a missing or
 * stale build names the command that fixes it (as `check` does); `build` says which generated
 * files it created, updated or removed (not "updated: … missing"). Run in a temporary project
 * holding the mini front-end fixture as `dsl/mini`.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { patchTypos, unknownRuleIds } from "../../compiler/scenarios/index.js";
import { writtenChange } from "../../compiler/cli/build.js";

const BIN = path.resolve("bin/rulewright.mjs");
const MINI = path.resolve("test/fixtures/frontend/mini");
const proj = fs.mkdtempSync(path.join(os.tmpdir(), "rw-hints-"));
afterAll(() => fs.rmSync(proj, { recursive: true, force: true }));

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: proj, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const STATE = {
  phase: "diplomacy", segment: "declarations", turn: 1, wars: [], hands: { red: [], blue: [] },
  spaces: Object.fromEntries(["red_home", "blue_home", "genoa", "pass_town", "sea_a"].map((s) => [s, { controller: "red", unrest: false }])),
};

describe("did-you-mean in scenario files", () => {
  it("names the nearest rule id and the nearest fixture field", () => {
    expect(unknownRuleIds(["pass.empyt", "zzz.qqq"], ["pass.empty", "pass.card"])).toBe(
      "`expect` names unknown rule ids `pass.empyt` (did you mean `pass.empty`?), `zzz.qqq`");
    expect(patchTypos(STATE, { phse: "movement", spaces: { genao: { unrest: true } }, turn: 2 })).toEqual([
      "`patch` field `phse` is not in the fixture: did you mean `phase`?",
      "`patch` field `spaces.genao` is not in the fixture: did you mean `genoa`?",
    ]);
    // a field the fixture leaves out, with no near name, is a new field, not a typo
    expect(patchTypos(STATE, { deactivated: ["red"] })).toEqual([]);
  });
});

describe("test and build in a project", () => {
  beforeAll(() => {
    fs.mkdirSync(path.join(proj, "dsl"));
    fs.cpSync(MINI, path.join(proj, "dsl", "mini"), { recursive: true });
    fs.writeFileSync(path.join(proj, "fixture.json"), JSON.stringify(STATE));
    fs.writeFileSync(path.join(proj, "s.yaml"), [
      "edition: mini",
      "fixture: fixture.json",
      "scenarios:",
      "  - name: an empty hand must pass",
      "    action: { action: pass, power: red }",
      "    expect: { obliged: [pass.empyt] }",
      "  - name: a misspelled patch field",
      "    patch: { phse: movement }",
      "    action: { action: pass, power: red }",
      "    expect: allowed",
    ].join("\n") + "\n");
  });

  it("`test` before any build says how to build (exit 2)", () => {
    const r = run(["test", "s.yaml"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("edition `mini`: generated/mini is missing; run `npx rulewright build mini`");
  });

  it("`build` says it created the files, then that it updated the one that changed", () => {
    const first = run(["build", "mini"]);
    expect(first.code).toBe(0);
    expect(first.out).toContain("  created: generated/mini/validators.ts\n");
    expect(first.out).not.toMatch(/missing/);
    fs.appendFileSync(path.join(proj, "dsl", "mini", "war.rules"), '\nrule pass.late §11 "no pass after turn 8"\n  forbid pass when state.turn > 8\n');
    fs.writeFileSync(path.join(proj, "generated", "mini", "old.ts"), "// left over\n");
    const second = run(["build", "mini"]);
    expect(second.code).toBe(0);
    expect(second.out).toContain("  updated: generated/mini/validators.ts\n");
    expect(second.out).toContain("  removed: generated/mini/old.ts\n");
    expect(writtenChange("generated/x/a.ts differs")).toBe("updated: generated/x/a.ts");
  });

  it("`test` reports the misspelled rule id and patch field with their did-you-mean, each at its line", () => {
    const r = run(["test", "s.yaml"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("s.yaml:4: error: an empty hand must pass: `expect` names unknown rule id `pass.empyt` (did you mean `pass.empty`?)");
    expect(r.err).toContain("s.yaml:7: error: a misspelled patch field: `patch` field `phse` is not in the fixture: did you mean `phase`?");
  });

  it("`test` on a stale build says how to rebuild", () => {
    fs.appendFileSync(path.join(proj, "dsl", "mini", "war.rules"), '\nrule pass.later §11 "no pass in turn 9"\n  forbid pass when state.turn = 9\n');
    const r = run(["test", "s.yaml"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("edition `mini`: generated/mini is stale: it was generated from other rule files; run `npx rulewright build mini`");
  });
});
