/**
 * `coverage --edition <variant>` (issue 28): a variant no manifest names inherits its parent's
 * manifests, read against its own rules — a removed rule leaves its paragraph not encoded with the
 * removal's reason, an overridden rule's audit mark is dropped, an added rule is listed as implied.
 * The bundled his-500, and a two-player variant of `his` in a copy of the project's dsl/.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inheritManifests, readManifest } from "../../compiler/coverage/index.js";

const BIN = path.resolve("bin/rulewright.mjs");
const SOURCES = path.resolve("../shared/rulebooks");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rw-covvar-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("inheritManifests", () => {
  const text = [
    "source: s.txt", "sha256: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "edition: base", "implied:", "  r.gone: a reason", "paragraphs:",
    "  1: heading",
    '  2: { rules: [r.kept, r.over], audited: { compared: "same", scenarios: ["t.yaml#a"] } }',
    "  3: [r.gone]",
    "  4: [r.kept, r.gone]",
  ].join("\n");
  const read = readManifest("m.yaml", text);
  const m = read.manifest!;

  it("reads the test manifest", () => {
    expect(read.diagnostics).toEqual([]);
  });

  it("drops removed rules, turns a paragraph left without rules into not_encoded, drops audits of overridden rules, lists added rules", () => {
    const [d] = inheritManifests([m], { edition: "v", inheritsFrom: "base", removed: [{ id: "r.gone", reason: "two players only" }], overridden: ["r.over"], added: ["r.new"] });
    expect(d!.edition).toBe("v");
    const p = (n: number) => d!.paragraphs.find((e) => e.n === n)!;
    expect(p(1).kind).toBe("heading");
    expect(p(2)).toMatchObject({ kind: "encoded", rules: [{ id: "r.kept" }, { id: "r.over" }] });
    expect(p(2).audited).toBeUndefined();
    expect(p(3)).toMatchObject({ kind: "not_encoded", rules: [], note: "removed by v: r.gone (two players only)" });
    expect(p(4)).toMatchObject({ kind: "encoded", rules: [{ id: "r.kept" }], note: "removed by v: r.gone (two players only)" });
    expect(d!.implied.map((x) => [x.id, x.reason])).toEqual([["r.new", "added by the variant v"]]);
    // the parent's manifest is left as it was
    expect(m.paragraphs.find((e) => e.n === 3)!.kind).toBe("encoded");
    expect(m.paragraphs.find((e) => e.n === 2)!.audited).toBeDefined();
  });
});

describe("coverage --edition <variant>", () => {
  it("his-500: inherits his's manifests, its overrides and its added rule named", () => {
    const r = run(["coverage", "--edition", "his-500", "--format", "json"], process.cwd());
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.variant).toEqual({ edition: "his-500", inheritsFrom: "his", removed: [], overridden: ["deploy.star_all", "dow.scotland_french_peace"], added: ["deploy.other_units"] });
    expect(j.editions.map((e: { edition: string }) => e.edition)).toEqual(["his-500"]);
    expect(j.total.percent).toBe(100);
  });

  it("a variant that removes a rule: its paragraph is not encoded, with the reason, and the share drops", () => {
    const proj = path.join(tmp, "proj");
    fs.mkdirSync(proj);
    fs.cpSync(path.resolve("dsl"), path.join(proj, "dsl"), { recursive: true });
    // the audit marks name the scenario files
    for (const d of ["test/scenarios", "test/fixtures"]) fs.cpSync(path.resolve(d), path.join(proj, d), { recursive: true });
    fs.mkdirSync(path.join(proj, "dsl", "his-2p"));
    fs.writeFileSync(path.join(proj, "dsl", "his-2p", "edition.rules"), [
      'edition his_2p "Here I Stand, two players" cites "his" extends "his"',
      'remove rule dow.venice_england "England is not played"',
      "",
    ].join("\n"));
    const r = run(["coverage", "--edition", "his-2p", "--sources", SOURCES], proj);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("his-2p inherits the coverage manifests of his, read against its own rules:\n  removed (their paragraphs lose them): dow.venice_england\n");
    expect(r.out).toMatch(/his-2p total +121\/122/);
    expect(r.out).toContain("001_42c9e1d76fa4cc82.txt ¶10 (line ");
    expect(r.out).toContain("removed by his-2p: dow.venice_england (England is not played)");
  });
});
