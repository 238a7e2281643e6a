/**
 * `rulewright coverage`: paragraph splitting, manifest validation (every error with its line
 * and a hint), orphan detection, the share and the threshold, and the command's exit codes on
 * the project's own manifests (dsl/coverage) and the real sources (../shared/rulebooks).
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { analyzeCoverage, meetsAuditThreshold, meetsThreshold, percent, ranges, readManifest, splitParagraphs, type EditionIds, type Manifest, type SourceFile } from "../../compiler/coverage/index.js";
import { CATALOG } from "../../compiler/diagnostics/catalog.js";

const REPO = process.cwd();
const BIN = path.join(REPO, "bin/rulewright.mjs");

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("splitParagraphs", () => {
  it("numbers the non-blank lines from 1 and keeps their line numbers", () => {
    expect(splitParagraphs("Title\n\nfirst\nsecond\n\n\nthird\n")).toEqual([
      { n: 1, line: 1 },
      { n: 2, line: 3 },
      { n: 3, line: 4 },
      { n: 4, line: 7 },
    ]);
  });

  it("treats lines of spaces, tabs and no-break spaces as blank", () => {
    expect(splitParagraphs("a\n \t\n\u00a0\nb").map((p) => p.line)).toEqual([1, 4]);
  });

  it("splits at CRLF, LF and CR alike and ignores a byte-order mark", () => {
    const lf = splitParagraphs("a\n\nb\nc");
    expect(splitParagraphs("\uFEFFa\r\n\r\nb\rc")).toEqual(lf);
    expect(splitParagraphs("\uFEFF")).toEqual([]);
  });

  it("counts the real sources as documented (one paragraph per non-blank line)", () => {
    const dir = path.join(REPO, "..", "shared", "rulebooks");
    const counts = Object.fromEntries(
      fs
        .readdirSync(dir)
        .filter((n) => n.endsWith(".txt"))
        .sort()
        .map((n) => [n.slice(0, 3), splitParagraphs(fs.readFileSync(path.join(dir, n), "utf8")).length]),
    );
    expect(counts).toEqual({ "000": 77, "001": 120, "002": 24, "003": 42, "004": 50 });
  });
});

const SHA = "a".repeat(64);
const manifestText = (paragraphs: string, extra = "") => `source: toy.txt\nsha256: ${SHA}\nedition: toy\n${extra}paragraphs:\n${paragraphs}`;

function readOk(text: string): Manifest {
  const r = readManifest("m.yaml", text);
  expect(r.diagnostics).toEqual([]);
  return r.manifest!;
}

function problems(text: string) {
  const r = readManifest("m.yaml", text);
  expect(r.diagnostics.length).toBeGreaterThan(0);
  for (const d of r.diagnostics) {
    expect(Object.keys(CATALOG)).toContain(d.code);
    expect(d.help, `${d.code} ${d.message} has a hint`).toBeTruthy();
  }
  return r.diagnostics.map((d) => ({ code: d.code, line: d.span.line, message: d.message, help: d.help }));
}

describe("readManifest", () => {
  it("reads every entry form", () => {
    const m = readOk(
      manifestText(
        [
          "  1: heading",
          "  2: [toy.one, toy.two]",
          "  3: { rules: [toy.one], note: part of it }",
          "  4: { rules: [toy.two], not_encoded: the rest }",
          "  5: { not_encoded: nobody yet }",
          "  6: { out_of_scope: scoring }",
          "  7: { example: replayed }",
          "  8: procedure",
        ].join("\n") + "\n",
        "implied:\n  toy.three: a domain restriction\n",
      ),
    );
    expect(m.paragraphs.map((p) => [p.n, p.kind, p.rules.map((r) => r.id), p.note ?? ""])).toEqual([
      [1, "heading", [], ""],
      [2, "encoded", ["toy.one", "toy.two"], ""],
      [3, "encoded", ["toy.one"], "part of it"],
      [4, "not_encoded", ["toy.two"], "the rest"],
      [5, "not_encoded", [], "nobody yet"],
      [6, "out_of_scope", [], "scoring"],
      [7, "example", [], "replayed"],
      [8, "procedure", [], ""],
    ]);
    expect(m.implied).toEqual([{ id: "toy.three", reason: "a domain restriction", span: expect.objectContaining({ line: 5 }) }]);
    expect(m.paragraphs[1]!.rules[1]!.span.line).toBe(8);
  });

  it("reports invalid YAML with its line", () => {
    expect(problems(manifestText("  1: [toy.one\n  2: heading\n"))[0]).toMatchObject({ code: "RW5001" });
  });

  it("reports a paragraph listed twice at the second listing", () => {
    expect(problems(manifestText("  1: heading\n  2: example\n  1: procedure\n"))).toEqual([
      expect.objectContaining({ code: "RW5005", line: 7, message: "paragraph 1 is listed twice" }),
    ]);
  });

  it("rejects unknown keys and kinds with a did-you-mean", () => {
    const ps = problems(`source: toy.txt\nsha256: ${SHA}\nediton: toy\nparagraphs:\n  1: headng\n  2: { out_of_scop: x }\n`);
    expect(ps).toEqual([
      expect.objectContaining({ code: "RW5002", line: 3, message: "unknown key `editon` in a coverage manifest", help: "did you mean `edition`?" }),
      expect.objectContaining({ code: "RW5002", line: 1, message: "missing `edition`" }),
      expect.objectContaining({ code: "RW5002", line: 5, help: "did you mean `heading`?" }),
      expect.objectContaining({ code: "RW5002", line: 6, help: "did you mean `out_of_scope`?" }),
    ]);
  });

  it("demands a reason for out_of_scope and not_encoded, and one kind per paragraph", () => {
    const ps = problems(manifestText("  1: { out_of_scope: '' }\n  2: { not_encoded: true }\n  3: { heading: x, rules: [toy.one] }\n  4: []\n  5: [not an id]\n  x: heading\n"));
    expect(ps.map((p) => [p.line, p.message])).toEqual([
      [5, "paragraph 1: `out_of_scope` needs a reason"],
      [6, "paragraph 2: `not_encoded` needs a reason"],
      [7, "paragraph 3: give exactly one kind (got `heading`, `rules`)"],
      [8, "paragraph 4: empty rule list"],
      [9, "paragraph 5: `not an id` is not a rule id"],
      [10, "paragraph key `x` is not a paragraph number"],
    ]);
  });

  it("reads a partly encoded paragraph whose rest is out of scope, with its reason", () => {
    const m = readOk(manifestText("  1: { rules: [toy.one], out_of_scope: card texts }\n  2: { rules: [toy.two], not_encoded: the cost, out_of_scope: scoring, note: n }\n"));
    expect(m.paragraphs.map((p) => [p.n, p.kind, p.rules.map((r) => r.id), p.note ?? "", p.outOfScope])).toEqual([
      [1, "encoded", ["toy.one"], "", "card texts"],
      [2, "not_encoded", ["toy.two"], "the cost; n", "scoring"],
    ]);
    const ps = problems(manifestText("  1: { not_encoded: x, out_of_scope: y }\n  2: { rules: [toy.one], out_of_scope: '' }\n  3: { rules: [toy.one], out_of_scope: y, heading: z }\n"));
    expect(ps.map((p) => [p.line, p.message])).toEqual([
      [5, "paragraph 1: give exactly one kind (got `out_of_scope`, `not_encoded`)"],
      [6, "paragraph 2: `out_of_scope` needs a reason"],
      [7, "paragraph 3: give exactly one kind (got `heading`, `out_of_scope`, `rules`)"],
    ]);
    expect(problems(manifestText("  1: { not_encoded: x, out_of_scope: y }\n"))[0]!.help).toContain("`rules` with `out_of_scope`");
  });

  it("reads audit marks on mapping entries: what was compared and the scenarios that pin it", () => {
    const m = readOk(
      manifestText(
        [
          "  1: heading",
          '  2: { rules: [toy.one], audited: { compared: "text bans it; the rule bans it", scenarios: ["test/s.yaml#a one", "test/s.yaml#b#2"] } }',
          '  3: { procedure: order of play, audited: { compared: "nothing to restrict" } }',
          '  4: { example: replayed, audited: { compared: replayed as written, scenarios: ["test/s.yaml#ex"] } }',
        ].join("\n") + "\n",
      ),
    );
    expect(m.paragraphs.map((p) => [p.n, p.audited?.compared, p.audited?.scenarios.map((r) => `${r.file}|${r.name}`)])).toEqual([
      [1, undefined, undefined],
      [2, "text bans it; the rule bans it", ["test/s.yaml|a one", "test/s.yaml|b#2"]],
      [3, "nothing to restrict", []],
      [4, "replayed as written", ["test/s.yaml|ex"]],
    ]);
    expect(m.paragraphs[1]!.audited!.scenarios[1]!.span).toMatchObject({ line: 6 });
  });

  it("reports a bad audit mark (RW5012) at its line with a hint, and still counts the entry's rules", () => {
    const ps = problems(
      manifestText(
        [
          "  1: { rules: [toy.one], audited: yes }",
          "  2: { rules: [toy.one], audited: { compared: '' , scenarios: [\"s.yaml#a\"] } }",
          '  3: { rules: [toy.one], audited: { compared: x, scenario: ["s.yaml#a"] } }',
          "  4: { rules: [toy.one], audited: { compared: x } }",
          "  5: { example: e, audited: { compared: x, scenarios: [] } }",
          '  6: { rules: [toy.one], audited: { compared: x, scenarios: ["no-hash.yaml"] } }',
          '  7: { rules: [toy.one], audited: { compared: x, scenarios: "s.yaml#a" } }',
        ].join("\n") + "\n",
      ),
    );
    expect(ps.map((p) => [p.code, p.line, p.message])).toEqual([
      ["RW5012", 5, "paragraph 1: `audited` must be a mapping with `compared` and `scenarios`"],
      ["RW5012", 6, "paragraph 2: the audit mark needs `compared`: what the text requires and what the rules do"],
      ["RW5012", 7, "paragraph 3: unknown key `scenario` in `audited`"],
      ["RW5012", 8, "paragraph 4: the audit mark of a paragraph with rules or of an example names no scenario"],
      ["RW5012", 9, "paragraph 5: the audit mark of a paragraph with rules or of an example names no scenario"],
      ["RW5012", 10, "paragraph 6: `no-hash.yaml` is not a scenario reference"],
      ["RW5012", 11, "paragraph 7: `scenarios` must be a list of `<file>#<scenario name>` references"],
    ]);
    expect(ps[2]!.help).toBe("did you mean `scenarios`?");
    const r = readManifest("m.yaml", manifestText("  1: { rules: [toy.one], audited: { compared: x } }\n"));
    expect(r.manifest!.paragraphs).toEqual([expect.objectContaining({ n: 1, kind: "encoded", rules: [expect.objectContaining({ id: "toy.one" })] })]);
    expect(r.manifest!.paragraphs[0]!.audited).toBeUndefined();
    expect(r.manifest!.invalid).toEqual([]);
  });

  it("checks the sha256 shape", () => {
    expect(problems("source: toy.txt\nsha256: abc\nedition: toy\nparagraphs:\n  1: heading\n")).toEqual([expect.objectContaining({ code: "RW5002", line: 2 })]);
  });
});

// a four-paragraph source
const TOY_TEXT = "Title\n\nrule one\n\u00a0\nrule two\nexample\n";
const toySources = (sha = SHA): Map<string, SourceFile> => new Map([["toy.txt", { name: "toy.txt", text: TOY_TEXT, sha256: sha }]]);
const toyEdition = (...ids: string[]): Map<string, EditionIds> =>
  new Map([["toy", { name: "toy", ids: new Map(ids.map((id, i) => [id, { file: "dsl/toy/edition.rules", line: 10 + i, column: 6 }])) }]]);

function analyze(paragraphs: string, opts: { extra?: string; sha?: string; editions?: Map<string, EditionIds> } = {}) {
  const m = readOk(manifestText(paragraphs, opts.extra));
  return analyzeCoverage([m], toySources(opts.sha), opts.editions ?? toyEdition("toy.one", "toy.two"));
}

describe("analyzeCoverage", () => {
  it("computes the share of restriction paragraphs per file, edition and in total", () => {
    const { report, diagnostics } = analyze("  1: heading\n  2: [toy.one]\n  3: { rules: [toy.two], not_encoded: half of it }\n  4: example\n");
    expect(diagnostics).toEqual([]);
    expect(report.editions).toEqual([
      {
        edition: "toy",
        built: true,
        encoded: 1,
        restriction: 2,
        percent: 50,
        auditable: 3,
        audited: 0,
        auditedPercent: 0,
        files: [{ source: "toy.txt", edition: "toy", manifest: "m.yaml", paragraphs: 4, encoded: 1, restriction: 2, percent: 50, counts: { encoded: 1, not_encoded: 1, out_of_scope: 0, procedure: 0, example: 1, heading: 1 }, partlyOutOfScope: 0, auditable: 3, audited: 0, auditedPercent: 0 }],
      },
    ]);
    expect(report.total).toEqual({ encoded: 1, restriction: 2, percent: 50, auditable: 3, audited: 0, auditedPercent: 0 });
    expect(report.notEncoded).toEqual([{ source: "toy.txt", edition: "toy", paragraph: 3, line: 5, note: "half of it", rules: ["toy.two"] }]);
  });

  it("counts a paragraph with rules and an out-of-scope rest as encoded and lists it as out of scope with its rules", () => {
    const { report, diagnostics } = analyze("  1: heading\n  2: { rules: [toy.one], out_of_scope: printed on cards }\n  3: { rules: [toy.two], not_encoded: half, out_of_scope: scoring }\n  4: example\n");
    expect(diagnostics).toEqual([]);
    expect(report.total).toMatchObject({ encoded: 1, restriction: 2, percent: 50 });
    expect(report.editions[0]!.files[0]!.counts).toEqual({ encoded: 1, not_encoded: 1, out_of_scope: 0, procedure: 0, example: 1, heading: 1 });
    expect(report.notEncoded).toEqual([{ source: "toy.txt", edition: "toy", paragraph: 3, line: 5, note: "half", rules: ["toy.two"] }]);
    expect(report.outOfScope).toEqual([
      { source: "toy.txt", edition: "toy", paragraph: 2, line: 3, note: "printed on cards", rules: ["toy.one"] },
      { source: "toy.txt", edition: "toy", paragraph: 3, line: 5, note: "scoring", rules: ["toy.two"] },
    ]);
  });

  it("reports paragraphs that are not listed, as ranges", () => {
    const { diagnostics } = analyze("  2: [toy.one, toy.two]\n");
    expect(diagnostics).toEqual([expect.objectContaining({ code: "RW5004", message: "3 paragraphs of `toy.txt` not listed: 1, 3–4", span: expect.objectContaining({ line: 4 }) })]);
  });

  it("reports a paragraph number beyond the end of the source", () => {
    const { diagnostics } = analyze("  1: heading\n  2: [toy.one, toy.two]\n  3: example\n  4: example\n  5: example\n");
    expect(diagnostics).toEqual([expect.objectContaining({ code: "RW5003", message: "paragraph 5 does not exist: `toy.txt` has 4 paragraphs", span: expect.objectContaining({ line: 9 }) })]);
  });

  it("reports an unknown rule id with a did-you-mean", () => {
    const { diagnostics } = analyze("  1: heading\n  2: [toy.one, toy.too]\n  3: [toy.two]\n  4: example\n");
    expect(diagnostics).toEqual([expect.objectContaining({ code: "RW5006", help: "did you mean `toy.two`?", span: expect.objectContaining({ line: 6 }) })]);
  });

  it("reports an orphan rule at its position in the rule file, unless it is marked implied", () => {
    const paragraphs = "  1: heading\n  2: [toy.one]\n  3: procedure\n  4: example\n";
    const { diagnostics } = analyze(paragraphs);
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: "RW5007", file: "dsl/toy/edition.rules", message: "rule `toy.two` of edition `toy` is not referenced by any coverage manifest", span: expect.objectContaining({ line: 11, column: 6 }) }),
    ]);
    expect(diagnostics[0]!.help).toContain("`m.yaml`");
    expect(analyze(paragraphs, { extra: "implied:\n  toy.two: a domain restriction\n" }).diagnostics).toEqual([]);
  });

  it("takes result tables like rules: a table is named under a paragraph or reported as an orphan table", () => {
    const eds = toyEdition("toy.one", "toy.two", "roll");
    eds.get("toy")!.tables = new Set(["roll"]);
    const orphan = analyze("  1: heading\n  2: [toy.one]\n  3: [toy.two]\n  4: example\n", { editions: eds });
    expect(orphan.diagnostics).toEqual([expect.objectContaining({ code: "RW5007", message: "table `roll` of edition `toy` is not referenced by any coverage manifest", span: expect.objectContaining({ line: 12 }) })]);
    expect(analyze("  1: heading\n  2: [toy.one, roll]\n  3: [toy.two]\n  4: example\n", { editions: eds }).diagnostics).toEqual([]);
  });

  it("warns once instead of reporting every rule while no rule of the edition is mapped yet", () => {
    const { diagnostics, report } = analyze("  1: heading\n  2: { not_encoded: later }\n  3: { not_encoded: later }\n  4: example\n");
    expect(diagnostics.map((d) => [d.code, d.severity, d.span.line])).toEqual([["RW5011", "warning", 3]]);
    expect(report.editions[0]).toMatchObject({ built: true, encoded: 0, restriction: 2, percent: 0 });
  });

  it("rejects a manifest written for another version of the source", () => {
    const { diagnostics } = analyze("  1: heading\n  2: [toy.one, toy.two]\n  3: procedure\n  4: example\n", { sha: "b".repeat(64) });
    expect(diagnostics).toEqual([expect.objectContaining({ code: "RW5008", span: expect.objectContaining({ line: 2 }) })]);
    expect(diagnostics[0]!.help).toContain(`sha256: ${"b".repeat(64)}`);
  });

  it("reports a missing source and a source covered twice", () => {
    const m = readOk(manifestText("  1: heading\n"));
    const other = { ...m, file: "n.yaml" };
    const missing = analyzeCoverage([{ ...m, source: "toi.txt" }], toySources(), toyEdition());
    expect(missing.diagnostics).toEqual([expect.objectContaining({ code: "RW5009", help: "did you mean `toy.txt`?" })]);
    const twice = analyzeCoverage([m, other], toySources(), toyEdition());
    expect(twice.diagnostics.filter((d) => d.code === "RW5009")).toEqual([expect.objectContaining({ file: "n.yaml", message: "source `toy.txt` is covered by two manifests" })]);
  });

  it("allows a manifest for an edition that is not bundled yet, unless it names rules of it", () => {
    const none = analyze("  1: heading\n  2: { not_encoded: later }\n  3: { not_encoded: later }\n  4: example\n", { editions: new Map() });
    expect(none.diagnostics).toEqual([]);
    expect(none.report.editions[0]).toMatchObject({ edition: "toy", built: false, encoded: 0, restriction: 2, percent: 0 });
    const named = analyze("  1: heading\n  2: [toy.one]\n  3: { not_encoded: later }\n  4: example\n", { editions: new Map() });
    expect(named.diagnostics).toEqual([expect.objectContaining({ code: "RW5010", span: expect.objectContaining({ line: 3 }) })]);
  });

  it("reports a bad entry once: its paragraph does not also count as missing", () => {
    const r = readManifest("m.yaml", manifestText("  1: heading\n  2: [toy.one, toy.two]\n  3: prodecure\n"));
    expect(r.manifest!.invalid).toEqual([3]);
    const all = [...r.diagnostics, ...analyzeCoverage([r.manifest!], toySources(), toyEdition("toy.one", "toy.two")).diagnostics];
    expect(all.map((d) => [d.code, d.message])).toEqual([
      ["RW5002", "paragraph 3: `prodecure` is not a paragraph kind"],
      ["RW5004", "1 paragraph of `toy.txt` not listed: 4"],
    ]);
  });

  it("counts audited paragraphs out of all but the headings, per file, edition and in total", () => {
    const { report, diagnostics } = analyze(
      '  1: heading\n  2: { rules: [toy.one], audited: { compared: c, scenarios: ["s.yaml#x"] } }\n  3: [toy.two]\n  4: { example: e, audited: { compared: c, scenarios: ["s.yaml#y"] } }\n',
    );
    expect(diagnostics).toEqual([]);
    expect(report.editions[0]!.files[0]).toMatchObject({ auditable: 3, audited: 2, auditedPercent: 66.7 });
    expect(report.editions[0]).toMatchObject({ auditable: 3, audited: 2, auditedPercent: 66.7 });
    expect(report.total).toMatchObject({ auditable: 3, audited: 2, auditedPercent: 66.7 });
  });

  it("checks that every scenario an audit mark names exists (RW5013), with a did-you-mean", () => {
    const m = readOk(manifestText('  1: heading\n  2: { rules: [toy.one, toy.two], audited: { compared: c, scenarios: ["s.yaml#france may not", "t.yaml#x", "s.yaml#france may nto"] } }\n  3: procedure\n  4: example\n'));
    const lookup = (f: string) => (f === "s.yaml" ? new Set(["france may not", "france may"]) : undefined);
    const { diagnostics } = analyzeCoverage([m], toySources(), toyEdition("toy.one", "toy.two"), { scenarios: lookup });
    expect(diagnostics.map((d) => [d.code, d.span.line, d.message, d.help])).toEqual([
      ["RW5013", 6, "paragraph 2: no scenario file `t.yaml`", expect.stringContaining("relative to the project root")],
      ["RW5013", 6, "paragraph 2: `s.yaml` has no scenario named `france may nto`", "did you mean `france may not`?"],
    ]);
    expect(analyzeCoverage([m], toySources(), toyEdition("toy.one", "toy.two")).diagnostics).toEqual([]);
  });

  it("lists bundled editions that no manifest names", () => {
    const eds = toyEdition("toy.one", "toy.two");
    eds.set("other", { name: "other", ids: new Map([["x.y", { file: "f", line: 1, column: 1 }]]) });
    const { report, diagnostics } = analyze("  1: heading\n  2: [toy.one, toy.two]\n  3: procedure\n  4: example\n", { editions: eds });
    expect(diagnostics).toEqual([]);
    expect(report.uncoveredEditions).toEqual(["other"]);
  });
});

describe("threshold", () => {
  it("compares the exact share, and nothing to encode meets any threshold", () => {
    expect(meetsThreshold({ encoded: 1, restriction: 3, percent: 33.3 }, 33.3)).toBe(true);
    expect(meetsThreshold({ encoded: 1, restriction: 3, percent: 33.3 }, 33.34)).toBe(false);
    expect(meetsThreshold({ encoded: 0, restriction: 0, percent: null }, 100)).toBe(true);
    expect(percent(2, 3)).toBe(66.7);
    expect(percent(0, 0)).toBeNull();
    expect(ranges([7, 1, 2, 3, 9, 10])).toBe("1–3, 7, 9–10");
  });

  it("compares the exact audited share; no paragraph meets any threshold", () => {
    expect(meetsAuditThreshold({ audited: 2, auditable: 3 }, 66.6)).toBe(true);
    expect(meetsAuditThreshold({ audited: 2, auditable: 3 }, 66.7)).toBe(false);
    expect(meetsAuditThreshold({ audited: 3, auditable: 3 }, 100)).toBe(true);
    expect(meetsAuditThreshold({ audited: 0, auditable: 0 }, 100)).toBe(true);
  });
});

describe("rulewright coverage (the project's manifests, the real sources)", () => {
  it("reports per edition and per source file and exits 0 at the CI threshold", () => {
    const ci = fs.readFileSync(path.join(REPO, ".ci/run"), "utf8");
    const threshold = /coverage --min-percent (\d+(?:\.\d+)?)/.exec(ci)?.[1];
    expect(threshold, ".ci/run runs the coverage with a threshold").toBeDefined();
    const r = run(["coverage", "--min-percent", threshold!]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^his$/m);
    expect(r.out).toMatch(/001_42c9e1d76fa4cc82\.txt +\d+\/\d+ +\d+\.\d%/);
    expect(r.out).toMatch(/^total \d+\/\d+ +\d+\.\d%/m);
    // paragraphs encoded in part, the rest out of scope (001 ¶39: the card texts), are shown beside the out-of-scope count
    expect(r.out).toMatch(/001_42c9e1d76fa4cc82\.txt .*out of scope \d+ \(\+\d+ partly\)/);
    expect(r.out).toContain(`(threshold ${threshold}%: met)`);
    // the issue 14 audit: every paragraph of the HIS sources but the headings carries an audit mark
    expect(r.out).toMatch(/his total .*\(audited (\d+)\/\1 100\.0%\)/);
  });

  it("exits 1 under the threshold", () => {
    // his encodes every restriction paragraph: mark one of them partly not encoded in a copy
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-coverage-under-"));
    for (const f of fs.readdirSync(path.join(REPO, "dsl/coverage"))) fs.copyFileSync(path.join(REPO, "dsl/coverage", f), path.join(dir, f));
    const m = path.join(dir, "002_920c505f137a31cf.yaml");
    const text = fs.readFileSync(m, "utf8");
    expect(text).toMatch(/^ {2}19: \{ rules: /m);
    fs.writeFileSync(m, text.replace(/^ {2}19: \{ rules: /m, '  19: { not_encoded: "left out for this test", rules: '));
    const r = run(["coverage", "--manifests", dir, "--edition", "his", "--min-percent", "100"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(1);
    expect(r.out).toContain("(threshold 100%: NOT met)");
    expect(r.out).toContain("002_920c505f137a31cf.txt ¶19 (line");
    expect(r.out).not.toMatch(/^vq/m);
  });

  it("gives JSON with the shares, the lists and the verdict", () => {
    const r = run(["coverage", "--format", "json", "--min-percent", "1"]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.pass).toBe(true);
    expect(j.editions.map((e: { edition: string }) => e.edition)).toEqual(["his", "vq"]);
    const his = j.editions[0];
    expect(his.files.map((f: { source: string }) => f.source)).toEqual(["001_42c9e1d76fa4cc82.txt", "002_920c505f137a31cf.txt", "003_75bb6b160b615bfa.txt"]);
    expect(his.encoded).toBeGreaterThan(0);
    expect(j.total.restriction).toBe(j.editions.reduce((s: number, e: { restriction: number }) => s + e.restriction, 0));
    expect(j.outOfScope.length).toBeGreaterThan(0);
    for (const p of [...j.notEncoded, ...j.outOfScope]) expect(p.note).not.toBe("");
  });

  it("reports the audited share per file and edition (text and JSON numbers) and fails under --min-audited", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-coverage-audit-"));
    for (const n of fs.readdirSync("dsl/coverage")) fs.copyFileSync(path.join("dsl/coverage", n), path.join(dir, n));
    const f = path.join(dir, "001_42c9e1d76fa4cc82.yaml");
    // 001 ¶12 (dow.own_ally): (re)write its audit mark against a real scenario of war.yaml (as a mapping entry)
    const lines = fs.readFileSync(f, "utf8").split("\n");
    const at = lines.findIndex((l) => /^ {2}12: /.test(l));
    expect(at).toBeGreaterThan(0);
    const war = fs.readFileSync("test/scenarios/his/war.yaml", "utf8");
    const name = /^ {2}- name: "?(.*?)"?$/m.exec(war)![1]!;
    expect(lines[at]).toContain("dow.own_ally");
    lines[at] = `  12: { rules: [dow.own_ally], audited: { compared: "checked", scenarios: [${JSON.stringify(`test/scenarios/his/war.yaml#${name}`)}] } }`;
    // ¶13 loses its mark, so the audited share falls under 100%
    const at13 = lines.findIndex((l) => /^ {2}13: /.test(l));
    expect(lines[at13]).toContain("dow.protestant_before_league");
    lines[at13] = "  13: [dow.protestant_before_league]";
    fs.writeFileSync(f, lines.join("\n"));
    // the audit marks of the his manifests, counted in their text (headings carry none)
    const marks = (src: string) => (fs.readFileSync(path.join(dir, src), "utf8").match(/audited: \{/g) ?? []).length;
    const r = run(["coverage", "--manifests", dir, "--edition", "his", "--format", "json", "--min-audited", "100"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out);
    expect(j.auditThreshold).toBe(100);
    expect(j.pass).toBe(false);
    const his = j.editions[0];
    const f001 = his.files.find((x: { source: string }) => x.source.startsWith("001"));
    expect(f001.audited).toBe(marks("001_42c9e1d76fa4cc82.yaml"));
    expect(f001.audited).toBeGreaterThan(0);
    expect(f001.auditable).toBe(f001.paragraphs - f001.counts.heading);
    expect(his.audited).toBe(["001_42c9e1d76fa4cc82.yaml", "002_920c505f137a31cf.yaml", "003_75bb6b160b615bfa.yaml"].reduce((n, m) => n + marks(m), 0));
    expect(j.total.audited).toBe(his.audited);
    const t = run(["coverage", "--manifests", dir, "--edition", "his", "--min-audited", "0"]);
    expect(t.code).toBe(0);
    expect(t.out).toMatch(new RegExp(`001_42c9e1d76fa4cc82\\.txt .*audited ${f001.audited}/${f001.auditable} `));
    expect(t.out).toContain("(audit threshold 0%: met)");
    // a scenario that does not exist: exit 2, at the manifest line
    lines[at] = lines[at]!.replace(`#${name}`, `#${name} (no such)`);
    fs.writeFileSync(f, lines.join("\n"));
    const bad = run(["coverage", "--manifests", dir]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`${f}:${at + 1}:`);
    expect(bad.err).toMatch(/error\[RW5013\]: paragraph 12: `test\/scenarios\/his\/war\.yaml` has no scenario named/);
  });

  it("exits 2 on bad usage", () => {
    expect(run(["coverage", "--min-percent", "lots"]).code).toBe(2);
    expect(run(["coverage", "--edition", "nope"]).code).toBe(2);
    expect(run(["coverage", "--sources", "no/such/dir"]).code).toBe(2);
  });

  it("exits 2 on a malformed manifest, with file:line and a hint, never a stack trace", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-coverage-"));
    for (const n of fs.readdirSync("dsl/coverage")) fs.copyFileSync(path.join("dsl/coverage", n), path.join(dir, n));
    const f = path.join(dir, "002_920c505f137a31cf.yaml");
    const lines = fs.readFileSync(f, "utf8").split("\n");
    const at = lines.findIndex((l) => l.startsWith("  7: "));
    lines[at] = "  6: [deploy.no_pass]"; // paragraph 6 twice, paragraph 7 missing
    fs.writeFileSync(f, lines.join("\n"));
    const r = run(["coverage", "--manifests", dir]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${f}:${at + 1}:3: error[RW5005]: paragraph 6 is listed twice`);
    expect(r.err).toMatch(/error\[RW5004\]: 1 paragraph of `002_920c505f137a31cf\.txt` not listed: 7/);
    expect(r.err).toMatch(/help: /);
    expect(r.err).not.toMatch(/at .*\.ts:\d+/);
  });

  it("reports a YAML syntax error once, without calling the rules that manifest names orphans", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-coverage-"));
    for (const n of fs.readdirSync("dsl/coverage")) fs.copyFileSync(path.join("dsl/coverage", n), path.join(dir, n));
    const f = path.join(dir, "001_42c9e1d76fa4cc82.yaml");
    fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace("  1: heading", "  1: [heading"));
    const r = run(["coverage", "--manifests", dir]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/001_42c9e1d76fa4cc82\.yaml:\d+:\d+: error\[RW5001\]: invalid YAML/);
    expect(r.err).not.toMatch(/RW5007/);
  });

  it("rejects an audit threshold that is not a percentage", () => {
    const r = run(["coverage", "--min-audited", "120"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--min-audited must be a number from 0 to 100/);
  });

  it("rejects a threshold that is not a plain decimal number", () => {
    for (const bad of ["0x10", "1e2", "abc", "101", "-5"]) {
      const r = run(["coverage", "--min-percent", bad]);
      expect(r.code, bad).toBe(2);
      expect(r.err, bad).toMatch(/--min-percent must be a number from 0 to 100/);
    }
  });

  it("exits 2 on an orphan rule, pointing at the rule file", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-coverage-"));
    for (const n of fs.readdirSync("dsl/coverage")) fs.copyFileSync(path.join("dsl/coverage", n), path.join(dir, n));
    const f = path.join(dir, "001_42c9e1d76fa4cc82.yaml");
    fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace(/^ {2}dow\.self: .*\n/m, ""));
    const r = run(["coverage", "--manifests", dir]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/dsl\/his\/war\.rules:\d+:\d+: error\[RW5007\]: rule `dow\.self` of edition `his` is not referenced by any coverage manifest/);
  });
});
