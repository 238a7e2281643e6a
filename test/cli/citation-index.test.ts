/**
 * Citations checked against the sources' section index (issue 28): `§99.9` in a variant of `his`
 * is a warning (RW5015) at the rule, naming the nearest known sections; a section within the
 * index's range is accepted (the sources are excerpts); the bundled editions get none.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { citationWarnings, nearestSections, projectSectionIndex, sourceSections } from "../../compiler/coverage/index.js";

const BIN = path.resolve("bin/rulewright.mjs");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rw-cite-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("the section index", () => {
  it("reads cross-references and numbered headings of a game's sources, with their parents", () => {
    const idx = sourceSections([
      { name: "a.txt", text: "10. Heading\nsee (12.5) and 22.2; a price of 3,5 is no section\n" },
      { name: "b.txt", text: "see 9.9\n" },
    ], (s) => (s === "a.txt" ? "his" : undefined));
    expect([...idx.get("his")!].sort()).toEqual(["10", "12", "12.5", "22", "22.2"]);
    expect(idx.has("vq")).toBe(false);
  });

  it("names the nearest sections", () => {
    expect(nearestSections("99.9", ["9.6", "22.5", "22.2", "10", "21.7"])).toEqual(["22.5", "22.2", "21.7"]);
    expect(nearestSections("9.7", ["9.6", "22.5", "10", "9.1"])).toEqual(["9.6", "9.1", "10"]);
  });

  it("the project's index of his goes up to §22 (the his sources); the bundled editions cite nothing beyond it", () => {
    const idx = projectSectionIndex(path.join("dsl", "coverage"), path.join("..", "shared", "rulebooks"));
    const his = [...idx.get("his")!];
    expect(Math.max(...his.map((s) => Number(s.split(".")[0])))).toBe(22);
    for (const name of ["his", "his-500", "vq"]) {
      const ir = loadEdition(path.join("dsl", name), { repoRoot: process.cwd() }).edition!;
      expect(citationWarnings(ir, idx), name).toEqual([]);
    }
  });
});

describe("a variant citing a section that does not exist", () => {
  it("gets RW5015 at the rule with the nearest sections; a section in range passes", () => {
    const proj = path.join(tmp, "proj");
    fs.mkdirSync(path.join(tmp, "shared"), { recursive: true });
    fs.symlinkSync(path.resolve("../shared/rulebooks"), path.join(tmp, "shared", "rulebooks"));
    fs.cpSync(path.resolve("dsl"), path.join(proj, "dsl"), { recursive: true });
    fs.mkdirSync(path.join(proj, "dsl", "his-2p"));
    fs.writeFileSync(path.join(proj, "dsl", "his-2p", "edition.rules"), [
      'edition his_2p "Here I Stand, two players" cites "his" extends "his"',
      "",
      'rule dow.two_player §99.9 "only the two played powers declare war"',
      "  forbid declare_war when target = england",
      "",
      'rule dow.in_range §13.2 "a section the excerpts do not show, within range"',
      "  forbid declare_war when target = venice",
      "",
    ].join("\n"));
    const r = spawnSync(process.execPath, [BIN, "build", "his-2p", "--check"], { cwd: proj, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    expect(r.stderr).toContain("dsl/his-2p/edition.rules:3:6: warning[RW5015]: `dow.two_player` cites his §99.9, a section the his sources do not have (their sections go up to §22); nearest: §22.5, §22.2, §22");
    expect(r.stderr).not.toContain("dow.in_range");
    expect(r.stderr.match(/RW5015/g)).toHaveLength(1);
    expect(r.status).toBe(1); // stale: nothing generated yet (a warning does not fail the build)
  });
});
