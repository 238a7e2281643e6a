/**
 * Every report input is escaped (issue 29): the numbers of a `report --coverage` file were put
 * into the page as they were, so a "number" holding markup ran its script on every route. Now
 * `rulewright report` refuses such a file (exit 2, naming the field), and the page script shows
 * anything that is not a finite number as "–" even when such data reaches it (run here in a
 * minimal DOM: the overview and a rule page are rendered and searched for the markup).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { buildSiteData, reportInputProblems } from "../../compiler/report/data.js";
import { pageScript, readLayout } from "../../compiler/report/site.js";
import type { CoverageReport } from "../../compiler/coverage/index.js";

const REPO = process.cwd();
const BIN = path.join(REPO, "bin", "rulewright.mjs");
const EVIL = '<img src=x onerror="globalThis.pwned=1">';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-report-inputs-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A coverage report of edition `mini` whose numbers are markup where `evil` says. */
function coverage(evil: boolean): CoverageReport {
  const n = (x: number) => (evil ? (EVIL as unknown as number) : x);
  const file = { source: "mini.txt", edition: "mini", manifest: "m", paragraphs: 3, encoded: n(1), restriction: n(2), percent: n(50), counts: { encoded: 1, not_encoded: n(1), out_of_scope: 0, procedure: 0, example: 0, heading: 0 }, partlyOutOfScope: 0, auditable: n(3), audited: n(1), auditedPercent: 33 };
  return { editions: [{ edition: "mini", built: true, files: [file], encoded: n(1), restriction: n(2), percent: n(50), auditable: n(3), audited: n(1), auditedPercent: n(33) }], total: { encoded: 1, restriction: 2, percent: 50, auditable: 3, audited: 1, auditedPercent: 33 }, notEncoded: [], outOfScope: [], uncoveredEditions: [] };
}

/** Runs the page script (site.ts pageScript: board.js, search.js, client.js) on `data` in a minimal DOM; returns the HTML of <main> on each hash route. */
function renderPages(data: unknown, hashes: string[]): string[] {
  const client = pageScript();
  const el = () => ({ innerHTML: "", textContent: "", value: "", addEventListener() {}, setAttribute() {}, removeAttribute() {}, querySelectorAll: () => [] });
  const nodes: Record<string, ReturnType<typeof el>> = { data: { ...el(), textContent: JSON.stringify(data) }, layout: { ...el(), textContent: JSON.stringify(readLayout()) }, main: el(), editions: el(), search: el(), results: el() };
  const listeners: (() => void)[] = [];
  const location = { hash: "#/" };
  const sandbox: Record<string, unknown> = {
    document: { getElementById: (id: string) => nodes[id], addEventListener() {}, title: "" },
    location,
    history: {},
    MiniSearch: class {
      addAll() {}
      search() {
        return [];
      }
    },
  };
  // the scripts publish RWBoard and RWSearch on window: here the sandbox is the window
  Object.assign(sandbox, { window: sandbox, addEventListener: (_: string, f: () => void) => listeners.push(f), scrollTo() {} });
  vm.createContext(sandbox);
  vm.runInContext(client, sandbox);
  return hashes.map((h) => {
    location.hash = h;
    listeners.filter((f) => f.length === 0).forEach((f) => f());
    return nodes.main!.innerHTML;
  });
}

describe("report inputs", () => {
  it("reportInputProblems: a coverage or tests file whose numbers are not numbers, named by path", () => {
    expect(reportInputProblems("coverage", coverage(false))).toEqual([]);
    const bad = reportInputProblems("coverage", coverage(true));
    expect(bad[0]).toMatch(/^editions\[0\]\.encoded: must be a number \(got "<img src=x onerror=/);
    expect(bad.length).toBe(5);
    expect(reportInputProblems("tests", { passed: 1, failed: 0, results: [{ file: "f", line: 1, name: "n", edition: "mini", pass: true, detail: "" }] })).toEqual([]);
    expect(reportInputProblems("tests", { passed: EVIL, failed: 0, results: [{ file: "f", line: "1", name: "n", edition: "mini", pass: "yes", detail: "" }] })).toEqual([
      `passed: must be a number (got ${JSON.stringify(EVIL).slice(0, 40)}…)`,
      'results[0].line: must be a number (got "1")',
      'results[0].pass: must be true or false (got "yes")',
    ]);
    expect(reportInputProblems("coverage", [])).toEqual(["the file must hold a JSON object (got [])"]);
  });

  it("`rulewright report --coverage` with markup for numbers: exit 2, the field named, no page written", () => {
    const root = path.join(tmp, "cli");
    fs.mkdirSync(path.join(root, "dsl"), { recursive: true });
    fs.cpSync(path.join(REPO, "test/fixtures/frontend/mini"), path.join(root, "dsl", "mini"), { recursive: true });
    fs.writeFileSync(path.join(root, "evil.json"), JSON.stringify(coverage(true)));
    const r = spawnSync(process.execPath, [BIN, "report", "mini", "--coverage", "evil.json"], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("evil.json is not a coverage report: editions[0].encoded: must be a number");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(root, "proofs", "report", "index.html"))).toBe(false);
  });

  it("the page script never renders a non-number as markup, on the overview and a rule page", () => {
    const ir = loadEdition(path.join(REPO, "test/fixtures/frontend/mini")).edition;
    const data = buildSiteData({ root: REPO, editions: [{ ir: ir!, scenarios: [] }], coverage: coverage(true), diffs: [] }, readLayout());
    // buildSiteData passes the numbers on as they are: the script is the last line of defence
    expect(JSON.stringify(data)).toContain("onerror");
    const [overview, rule] = renderPages(data, ["#/", `#/r/mini/${ir!.rules[0]!.id}`]);
    expect(overview).toContain("Coverage of the sources");
    expect(overview).toContain('<b data-count="encoded">–</b>');
    expect(rule).toContain(ir!.rules[0]!.id);
    for (const html of [overview, rule]) expect(html).not.toMatch(/<img|onerror=/);
    const [clean] = renderPages(buildSiteData({ root: REPO, editions: [{ ir: ir!, scenarios: [] }], coverage: coverage(false), diffs: [] }, readLayout()), ["#/"]);
    expect(clean).toContain('<b data-count="encoded">1</b>/<span data-count="restriction">2</span> restriction paragraphs (50.0%)');
  });
});
