/**
 * Moving the rules Here I Stand shares with Virgin Queen into dsl/modules/ (pass,
 * spring_deployment) changed nothing: every rule, exemption, invariant, route, action and enum
 * `his` had before the move has the same semantic fingerprint
 * (test/fixtures/his/semantics-before-modules.json, taken from the rule files as they were, at
 * commit 710c4c6), so their verdicts and proof obligations are the same; the scenarios in
 * test/scenarios/his/ show the verdicts. Declarations added since (the §11.1 action table, card
 * play, the New World) are not part of the comparison, nor is the state type (the schema grew
 * with them): a declaration's hash covers the fields it reads (test/helpers/fingerprint.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { semanticFingerprint, type Fingerprint } from "../helpers/fingerprint.js";

const before = JSON.parse(fs.readFileSync(new URL("../fixtures/his/semantics-before-modules.json", import.meta.url), "utf8")) as Fingerprint;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rw-his-modules-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("his after the move into modules", () => {
  const { edition, diagnostics } = loadEdition("dsl/his");

  it("compiles without diagnostics and imports the two modules", () => {
    expect(diagnostics).toEqual([]);
    expect(edition!.modules).toEqual(["pass", "spring_deployment"]);
  });

  it("has the rules, conditions, citations, exemptions and invariants it had before, unchanged", () => {
    const now = semanticFingerprint(edition!);
    const kinds = ["rules", "exemptions", "invariants", "routes", "actions", "enums"] as const;
    for (const k of kinds) {
      expect(Object.keys(before[k]).length, k).toBeGreaterThan(0);
      // every declaration of before is still there, with the same hash
      const kept = Object.fromEntries(Object.keys(before[k]).map((id) => [id, now[k][id]]));
      expect(kept, k).toEqual(before[k]);
    }
  });

  it("takes passing and the spring deployment core from the modules, the rest from its own files", () => {
    const from = (id: string) => edition!.rules.find((r) => r.id === id)!.provenance;
    for (const id of Object.keys(before.rules).filter((x) => x.startsWith("pass."))) expect(from(id)).toEqual({ module: "pass", edition: "his", change: "defined" });
    const hisOnly = ["deploy.not_active", "deploy.protestant"];
    for (const id of Object.keys(before.rules).filter((x) => x.startsWith("deploy."))) {
      expect(from(id)).toEqual(hisOnly.includes(id) ? { edition: "his", change: "defined" } : { module: "spring_deployment", edition: "his", change: "defined" });
    }
    for (const id of Object.keys(before.rules).filter((x) => x.startsWith("dow."))) expect(from(id)).toEqual({ edition: "his", change: "defined" });
    expect(edition!.exemptions.find((x) => x.id === "deploy.spring_preparations")!.provenance).toEqual({ edition: "his", change: "defined" });
    // the module rules show Here I Stand's citations
    expect(edition!.rules.find((r) => r.id === "pass.home_card")!.citation.text).toBe("his §11");
    expect(edition!.rules.find((r) => r.id === "deploy.formation_size")!.citation.text).toBe("his §5.1");
  });

  it("the fingerprint notices a changed condition in a module (the comparison can fail)", () => {
    fs.cpSync("dsl/his", path.join(tmp, "dsl/his"), { recursive: true });
    fs.cpSync("dsl/modules", path.join(tmp, "dsl/modules"), { recursive: true });
    const f = path.join(tmp, "dsl/modules/pass/pass.rules");
    fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace("count(state.hands[power]) > state.rulers[power].admin_rating", "count(state.hands[power]) >= state.rulers[power].admin_rating"));
    const changed = loadEdition("dsl/his", { repoRoot: tmp }).edition!;
    const fp = semanticFingerprint(changed);
    expect(fp.rules["pass.admin_rating"]).not.toBe(before.rules["pass.admin_rating"]);
    const kept = Object.fromEntries(Object.keys(before.rules).map((id) => [id, fp.rules[id]]));
    expect({ ...kept, "pass.admin_rating": "" }).toEqual({ ...before.rules, "pass.admin_rating": "" });
  });
});
