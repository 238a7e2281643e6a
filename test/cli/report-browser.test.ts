/**
 * The rulebook report in a real browser: Debian's chromium driven by playwright-core (no browser
 * download; CI installs chromium with apt-get, see .ci/run). Opens the generated report from the
 * file system, checks the counts shown against the JSON it was built from, searches for a rule,
 * opens its page and its witness on the board (the action's spaces highlighted), the diff of his →
 * his-500 (the rules that differ beside the proved verdicts, a diff state on the board), and checks that
 * the page made no network request and logged no error. Skipped, saying so, when no chromium
 * binary exists (set CHROMIUM_PATH to use another one).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { loadEdition } from "../../compiler/check/index.js";
import { buildSiteData, type DiffReport, type TestResults } from "../../compiler/report/data.js";
import { readRule } from "../../compiler/report/english.js";
import { readLayout, writeSite } from "../../compiler/report/site.js";
import type { IREdition } from "../../compiler/ir/types.js";
import type { ProofReport } from "../../compiler/verify/run/results.js";

const CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable"];
const executable = CANDIDATES.find((p): p is string => !!p && fs.existsSync(p));
const missing = `no chromium binary (looked for ${CANDIDATES.filter(Boolean).join(", ")}); install it with \`apt-get install -y chromium\` or set CHROMIUM_PATH`;
if (!executable) console.warn(`report-browser.test.ts: skipped — ${missing}`);

// .ci/run sets RULEWRIGHT_BROWSER_REQUIRED=1: there a missing browser fails instead of skipping
describe.runIf(!executable && !!process.env.RULEWRIGHT_BROWSER_REQUIRED)("the rulebook report in chromium (required)", () => {
  it("has a chromium binary to run in", () => {
    expect.fail(missing);
  });
});

describe.skipIf(!executable)("the rulebook report in chromium", () => {
  let browser: Browser;
  let page: Page;
  let url: string;
  let out: string;
  let his: IREdition;
  const report = JSON.parse(fs.readFileSync("test/fixtures/report/his.report.json", "utf8")) as ProofReport;
  const tests: TestResults = {
    passed: 1,
    failed: 1,
    results: [
      { file: "test/scenarios/his/deploy.yaml", line: 1, name: "a", edition: "his", pass: true, detail: "" },
      { file: "test/scenarios/his/deploy.yaml", line: 9, name: "b", edition: "his", pass: false, detail: "x" },
    ],
  };
  const requests: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    const res = loadEdition("dsl/his", { repoRoot: process.cwd() });
    const res500 = loadEdition("dsl/his-500", { repoRoot: process.cwd() });
    if (!res.edition || !res500.edition) throw new Error("dsl/his or dsl/his-500 does not compile");
    his = res.edition;
    // a proved diff of the current rules, one state (`rulewright diff his his-500 --format json`)
    const diff: DiffReport = {
      editions: { a: { name: "his", inputHash: his.inputHash }, b: { name: "his-500", inputHash: res500.edition.inputHash } },
      outDir: "proofs/diff/his__his-500",
      actions: [
        { action: "declare_war", verdict: "identical" },
        { action: "pass", verdict: "identical" },
        { action: "spring_deploy", verdict: "differs", differences: [{ aspect: "allowed", stateFile: "test/fixtures/report/witnesses/units_in_capital.state.json", actionFile: "x", action: { action: "spring_deploy", power: "france", origin: "paris", destination: "rouen" }, verdictA: "allowed", verdictB: "forbidden", facts: [], rulesA: [], rulesB: [{ id: "deploy.other_units" }] }] },
      ],
      notCompared: [],
      bounds: { listBound: 4, timeoutMs: 120000, maxStates: 1 },
    };
    const data = buildSiteData({ root: process.cwd(), editions: [{ ir: his, proof: { report, file: "test/fixtures/report/his.report.json" }, scenarios: [] }, { ir: res500.edition, scenarios: [] }], tests, diffs: [diff] }, readLayout());
    out = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-report-browser-"));
    url = pathToFileURL(writeSite(out, data, readLayout()).file).href;
    browser = await chromium.launch({ executablePath: executable, args: ["--no-sandbox", "--disable-gpu", "--no-first-run"] });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("request", (r) => {
      if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url());
    });
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(String(e)));
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    if (out) fs.rmSync(out, { recursive: true, force: true });
  });

  it("shows the JSON's counts, finds a rule, opens its page and its witness on the board, with no request and no error", async () => {
    await page.goto(url);
    const card = page.locator('section.card[data-edition="his"]');
    const count = async (k: string) => Number(await card.locator(`[data-count="${k}"]`).first().textContent());
    expect(await count("proved")).toBe(report.summary.proved);
    expect(await count("refuted")).toBe(report.summary.refuted);
    expect(await count("unknown")).toBe(report.summary.unknown);
    expect(await count("rules")).toBe(his.rules.length);
    expect(await count("scenarios-passed")).toBe(tests.passed);
    expect(await count("scenarios-failed")).toBe(tests.failed);
    await page.screenshot({ path: path.join(out, "overview.png") });

    // search by words of the id, open the hit
    await page.fill("#search", "units capital");
    const hit = page.locator('#results .result a[href="#/r/his/deploy.units_in_capital"]');
    await hit.waitFor();
    await hit.click();
    await page.waitForFunction(() => location.hash === "#/r/his/deploy.units_in_capital");
    expect(await page.locator("h1.rule-id").textContent()).toContain("deploy.units_in_capital");
    expect(await page.locator("#english").textContent()).toBe(readRule(his.rules.find((r) => r.id === "deploy.units_in_capital")!, his));
    await page.screenshot({ path: path.join(out, "rule.png") });

    // its dead_rule obligation's witness on the board: origin and destination highlighted
    await page.locator('a[href="#/o/his/his.dead_rule.deploy.units_in_capital"]').first().click();
    await page.locator("svg.board").waitFor();
    const lit = await page.locator("svg.board g.space.hl").evaluateAll((gs) => gs.map((g) => g.getAttribute("data-space")));
    expect(lit.sort()).toEqual(["paris", "rouen"]);
    expect(await page.locator('svg.board g.space[data-space="paris"] rect').getAttribute("fill")).toBe("#4a78c2"); // controlled by France
    expect(await page.locator("svg.board line.move").count()).toBe(1);
    expect(await page.locator("svg.board g.space").count()).toBe(his.board.spaces.length);
    await page.screenshot({ path: path.join(out, "board.png") });

    // the overview's diff his → his-500: the rules that differ per action beside the proved verdicts
    await page.goto(url);
    const diffCard = page.locator('section.card.diff[data-diff="his__his-500"]');
    expect(await diffCard.locator('[data-proved="current"]').count()).toBe(1);
    expect(await diffCard.locator("tr[data-action]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")))).toEqual(["declare_war", "spring_deploy"]);
    const deploy = diffCard.locator('tr[data-action="spring_deploy"]');
    expect(await deploy.locator('li.d-added a[href="#/r/his-500/deploy.other_units"]').count()).toBe(1);
    expect(await deploy.locator('li.d-changed a[href="#/r/his-500/deploy.star_all"]').count()).toBe(1);
    expect(await deploy.locator(".v").textContent()).toBe("differs");
    expect(await diffCard.locator('tr[data-action="declare_war"] .v').textContent()).toBe("identical");
    await deploy.locator('a[href="#/d/0/spring_deploy/0"]').click();
    await page.locator("svg.board").waitFor();
    expect((await page.locator("svg.board g.space.hl").evaluateAll((gs) => gs.map((g) => g.getAttribute("data-space")))).sort()).toEqual(["paris", "rouen"]);

    // a search that matches nothing says so
    await page.fill("#search", "zzzzqqq");
    await page.locator("#results .none").waitFor();

    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
  }, 600_000);
});
