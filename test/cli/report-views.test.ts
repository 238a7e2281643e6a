/**
 * The report's view helpers (issue 25): which spaces an example highlights (only space-typed
 * values: a fact naming Genoa the power rings no space), the sources' titles and the rulebook order
 * of named sections, both read from the coverage manifests.
 */
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { spaceFactIds } from "../../compiler/report/view-helpers.js";
import { manifestInfo, ruleRanks, sortSections } from "../../compiler/report/sources.js";
import type { CoverageReport } from "../../compiler/coverage/index.js";

const his = loadEdition("dsl/his", { repoRoot: process.cwd() }).edition!;

describe("spaceFactIds", () => {
  it("highlights the space-typed action parameters and facts only, not a power that shares a space's name", () => {
    // his.dead_rule.control.loc's witness: Genoa is at war (a power), Bastia the space
    const action = { action: "control_unfortified_space", power: "france", space: "bastia" };
    const facts = ["action.power = france", "action.space = bastia", "state.wars#len = 2", "state.wars[1].a = france", "state.wars[1].b = genoa", "state.alliances[8].a = genoa"];
    expect(spaceFactIds(his, action, facts)).toEqual(["bastia"]);
    // a space-indexed fact names its space; a power-indexed map does not
    expect(spaceFactIds(his, { action: "pass", power: "ottoman" }, ["state.spaces[genoa].unrest = true", "state.hands[genoa]#len = 0"])).toEqual(["genoa"]);
    // a declaration of war on Genoa names the power: no space
    expect(spaceFactIds(his, { action: "declare_war", by: "france", target: "genoa" }, ["action.target = genoa"])).toEqual([]);
    // spring deployment: origin and destination are spaces
    expect(spaceFactIds(his, { action: "spring_deploy", power: "france", origin: "paris", destination: "genoa", land_units: 1, leaders: [] }, [])).toEqual(["genoa", "paris"]);
    // a path that does not type-check is ignored
    expect(spaceFactIds(his, { action: "pass" }, ["state.nowhere[paris] = paris", "nonsense"])).toEqual([]);
  });
});

describe("sources and section order from the coverage manifests", () => {
  it("names a source by its manifest's title and orders named sections as the manifests list their rules", () => {
    const info = manifestInfo(process.cwd(), "dsl/coverage/003_75bb6b160b615bfa.yaml");
    expect(info.title).toBe("Here I Stand: exploration…");
    expect(info.ruleOrder.indexOf("cp.explore_once")).toBeGreaterThanOrEqual(0);
    expect(manifestInfo(process.cwd(), "dsl/coverage/missing.yaml")).toEqual({ title: null, about: null, ruleOrder: [] });
    const coverage = { editions: [{ edition: "his", files: [{ source: "003_75bb6b160b615bfa.txt", manifest: "dsl/coverage/003_75bb6b160b615bfa.yaml" }] }] } as unknown as CoverageReport;
    const ranks = ruleRanks(process.cwd(), coverage, ["his-500", "his"]);
    expect(ranks.size).toBe(new Set(info.ruleOrder).size);
    const first = info.ruleOrder[0]!;
    const last = info.ruleOrder[info.ruleOrder.length - 1]!;
    const sorted = sortSections(
      [
        { section: "Routes over the board", ids: [] },
        { section: "Zeta", ids: [last] },
        { section: "§10", ids: [] },
        { section: "Alpha", ids: [last] },
        { section: "Omega", ids: [first] },
        { section: "Unlisted", ids: ["no.such"] },
        { section: "§9.6", ids: [] },
      ],
      ranks,
    );
    expect(sorted.map((s) => s.section)).toEqual(["§9.6", "§10", "Omega", "Alpha", "Zeta", "Unlisted", "Routes over the board"]);
  });
});
