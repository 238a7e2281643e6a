/**
 * The report's source titles (issue 25: sources named by title, not by hash), read from the
 * coverage manifests' header comments (compiler/report/sources.ts).
 */
import { describe, expect, it } from "vitest";
import { manifestInfo } from "../../compiler/report/sources.js";

describe("source titles from the coverage manifests", () => {
  it("names each bundled source by its manifest's title, and none for a manifest it cannot read", () => {
    const titles = ["000_fb5a727bc6a0c553", "001_42c9e1d76fa4cc82", "002_920c505f137a31cf", "003_75bb6b160b615bfa", "004_b3ef78a6b4e3a9d8"].map((f) => manifestInfo(process.cwd(), `dsl/coverage/${f}.yaml`).title);
    expect(titles).toEqual([
      "Virgin Queen: Spring Deployment procedure…",
      "Here I Stand: §9.6 restrictions on declaring war…",
      "Here I Stand: a second Russian translation of §10 Spring Deployment and the start of §11",
      "Here I Stand: exploration…",
      "Virgin Queen: activated major powers in games with fewer than six players",
    ]);
    const info = manifestInfo(process.cwd(), "dsl/coverage/003_75bb6b160b615bfa.yaml");
    expect(info.about).toMatch(/^Here I Stand: exploration, conquest/);
    expect(info.ruleOrder).toContain("cp.explore_once");
    expect(manifestInfo(process.cwd(), "dsl/coverage/missing.yaml")).toEqual({ title: null, about: null, ruleOrder: [] });
  });
});
