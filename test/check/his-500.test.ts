/**
 * The 500th Anniversary variant (dsl/his-500/): what it inherits from `his`, what it changes,
 * the provenance its generated catalogue shows, and one state both editions judge differently.
 * Its scenarios are test/scenarios/his-500/; its proofs run in test/verify/crosscheck.test.ts.
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { semanticFingerprint } from "../helpers/fingerprint.js";
import { loadValidators } from "../../compiler/engine/loader.js";

const his = loadEdition("dsl/his");
const v = loadEdition("dsl/his-500");
const CHANGED = ["deploy.other_units", "deploy.star_all", "dow.scotland_french_peace"];

describe("his-500", () => {
  it("compiles as a variant of his", () => {
    expect(v.diagnostics).toEqual([]);
    expect(v.edition).toMatchObject({ name: "his_500", folder: "his-500", parent: "his", cites: "his", modules: ["pass", "spring_deployment"], removed: [] });
    expect(v.edition!.inputs.map((i) => i.file)).toEqual(expect.arrayContaining(["dsl/his-500/edition.rules", "dsl/his/edition.rules", "dsl/his/board.json", "dsl/modules/pass/pass.rules"]));
  });

  it("adds one rule, overrides two, and inherits every other rule unchanged", () => {
    const mine = v.edition!.rules.map((r) => r.id).sort();
    expect(mine).toEqual([...his.edition!.rules.map((r) => r.id), "deploy.other_units"].sort());
    const a = semanticFingerprint(his.edition!).rules;
    const b = semanticFingerprint(v.edition!).rules;
    for (const id of Object.keys(a)) {
      if (CHANGED.includes(id)) expect(b[id], id).not.toBe(a[id]);
      else expect(b[id], id).toBe(a[id]);
    }
    const prov = Object.fromEntries(v.edition!.rules.map((r) => [r.id, r.provenance]));
    expect(prov["deploy.other_units"]).toEqual({ edition: "his-500", change: "added" });
    expect(prov["deploy.star_all"]).toMatchObject({ edition: "his-500", change: "overridden", replaces: { file: "dsl/modules/spring_deployment/deploy.rules" } });
    expect(prov["dow.scotland_french_peace"]).toMatchObject({ edition: "his-500", change: "overridden", replaces: { file: "dsl/his/war.rules" } });
    expect(prov["deploy.path"]).toEqual({ module: "spring_deployment", edition: "his", change: "defined" });
    expect(prov["dow.scotland"]).toEqual({ edition: "his", change: "defined" });
    // the new restriction is not (*): Spring Preparations does not lift it
    expect(v.edition!.rules.find((r) => r.id === "deploy.other_units")!.groups).toEqual([]);
    expect(v.edition!.rules.find((r) => r.id === "deploy.star_all")!.groups).toEqual(["*"]);
  });

  it("the committed catalogue of generated/his-500 carries the provenance", async () => {
    const mod = await loadValidators({ dir: "dsl/his-500", bundled: true }, v.edition!);
    const row = (id: string) => mod.RULES.find((r) => r.id === id) as unknown as Record<string, unknown>;
    expect(row("deploy.other_units")).toMatchObject({ file: "dsl/his-500/edition.rules", module: null, edition: "his-500", change: "added", citation: "his §10" });
    expect(row("dow.scotland_french_peace")).toMatchObject({ file: "dsl/his-500/edition.rules", module: null, edition: "his-500", change: "overridden", citation: "his §9.6" });
    expect(row("pass.home_card")).toMatchObject({ file: "dsl/modules/pass/pass.rules", module: "pass", edition: "his", change: "defined", citation: "his §11" });
    expect(fs.readFileSync("generated/his-500/index.ts", "utf8")).toContain("Regenerate with `npx rulewright build his-500`.");
  });

  it("forbids a deployment that his allows: a hapsburg unit in the destination", async () => {
    const base = JSON.parse(fs.readFileSync("test/fixtures/his/base-state.json", "utf8"));
    base.phase = "spring_deployment";
    base.active_power = "france";
    base.spaces.dijon.land_units.hapsburg = 1;
    const action = { action: "spring_deploy", power: "france", origin: "paris", destination: "dijon", land_units: 4, leaders: [] };
    const a = (await loadValidators({ dir: "dsl/his", bundled: true }, his.edition!)).check(base, action);
    const b = (await loadValidators({ dir: "dsl/his-500", bundled: true }, v.edition!)).check(base, action);
    expect(a.allowed).toBe(true);
    expect(b.violations.map((x) => x.rule).sort()).toEqual(["deploy.other_units", "deploy.star_all"]);
  });
});
