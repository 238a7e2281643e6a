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
import { buildSiteData, type DiffReport, type SiteData, type TestResults } from "../../compiler/report/data.js";
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
  /** the findings site: his (real findings: a witness naming Genoa the power, a refuted redundant_rule, a stuck power) and his-500 */
  let findingsUrl: string;
  /** the same with one verdict made unknown (the banner) */
  let unknownUrl: string;
  let findingsData: SiteData;
  let siteData: SiteData;
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
    const data = (siteData = buildSiteData({ root: process.cwd(), editions: [{ ir: his, proof: { report, file: "test/fixtures/report/his.report.json" }, scenarios: [] }, { ir: res500.edition, scenarios: [] }], tests, diffs: [diff] }, readLayout()));
    out = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-report-browser-"));
    url = pathToFileURL(writeSite(out, data, readLayout()).file).href;
    const findings = JSON.parse(fs.readFileSync("test/fixtures/report/his-findings.report.json", "utf8")) as ProofReport;
    const site = (rep: ProofReport, dir: string) => {
      const d = buildSiteData({ root: process.cwd(), editions: [{ ir: his, proof: { report: rep, file: "test/fixtures/report/his-findings.report.json" }, scenarios: [] }, { ir: res500.edition!, scenarios: [] }], diffs: [] }, readLayout());
      return { d, url: pathToFileURL(writeSite(path.join(out, dir), d, readLayout()).file).href };
    };
    ({ d: findingsData, url: findingsUrl } = site(findings, "findings"));
    const unknown = structuredClone(findings);
    Object.assign(unknown.obligations[0]!, { verdict: "unknown", reason: "timeout after 120000 ms" });
    unknownUrl = site(unknown, "unknown").url;
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
    const hit = page.locator('#results .result a[href="#/r/his/deploy.units_in_capital"]').first();
    await hit.waitFor();
    await hit.click();
    await page.waitForFunction(() => location.hash === "#/r/his/deploy.units_in_capital");
    expect(await page.locator("h1.rule-id").textContent()).toContain("deploy.units_in_capital");
    // the reading the data holds (compiler/report/english.ts, with the edition's phrases when it has them), never a raw id
    const english = siteData.editions[0]!.rules.find((r) => r.id === "deploy.units_in_capital")!.english;
    expect(english.length).toBeGreaterThan(20);
    expect(await page.locator("#english").textContent()).toBe(english);
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

  /** axe-core's violations on the page as it is (rule id, impact and the first element), none expected */
  async function axeViolations(p: Page): Promise<string[]> {
    await p.addScriptTag({ path: path.join(process.cwd(), "node_modules/axe-core/axe.min.js") });
    return p.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(d: Document): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
      const r = await axe.run(document);
      return r.violations.map((v) => `${v.id} (${v.impact}) ×${v.nodes.length} at ${v.nodes[0]?.target.join(" ")}`);
    });
  }
  const hlSpaces = (p: Page) => p.locator("svg.board g.space.hl").evaluateAll((gs) => gs.map((g) => g.getAttribute("data-space")).sort());

  it("the Genoa case: a fact about Genoa the power rings no space; units with power and count, labels ≥ 11 px, the legend above the fold at 1440×900", async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${findingsUrl}#/o/his/his.dead_rule.control.loc`);
    await page.locator("svg.board").waitFor();
    // the witness's facts name genoa as a power (state.wars[1].b = genoa) and bastia as the action's space
    expect(await page.locator(".facts").textContent()).toContain("= genoa");
    expect(await hlSpaces(page)).toEqual(["bastia"]);
    expect(await page.locator('svg.board g.space[data-space="genoa"] .ring').count()).toBe(0);
    // units: one badge per power, in its colour, with its count (from the state file)
    const state = JSON.parse(fs.readFileSync("test/fixtures/report/witnesses/control_loc.state.json", "utf8")) as { spaces: Record<string, { land_units?: Record<string, number> }> };
    const [space, units] = Object.entries(state.spaces).find(([, v]) => Object.values(v.land_units ?? {}).some((n) => n > 0))!;
    const [owner, n] = Object.entries(units.land_units!).find(([, k]) => k > 0)!;
    const badge = page.locator(`svg.board .marks [data-space="${space}"] g.unit[data-power="${owner}"]`).first();
    expect(await badge.locator("text").textContent()).toBe(String(n));
    expect(await badge.locator("rect").getAttribute("fill")).toBe(await page.evaluate((o) => (window as unknown as { RWBoard: { POWER_COLORS: Record<string, string> } }).RWBoard.POWER_COLORS[o], owner));
    // the labels of the highlighted and unit-holding spaces are shown, at 11 px or more on screen
    for (const id of ["bastia", space]) {
      const label = page.locator(`svg.board .lbl[data-space="${id}"] text`);
      expect(await label.isVisible()).toBe(true);
      expect((await label.boundingBox())!.height).toBeGreaterThanOrEqual(11);
    }
    // every space has a label, shown on hover
    expect(await page.locator("svg.board .lbl").count()).toBe(his.board.spaces.length);
    const legend = await page.locator("ul.legend").boundingBox();
    expect(legend!.y + legend!.height).toBeLessThanOrEqual(900);
    // zoom in: every label is shown; the whole board again: the view box is the layout's
    const vb = () => page.locator("svg.board").getAttribute("viewBox");
    for (let i = 0; i < 3; i++) await page.click('button[data-zoom="in"]');
    expect(await page.locator("svg.board").getAttribute("class")).toContain("all-labels");
    expect(Number((await vb())!.split(" ")[2])).toBeLessThan(readLayout().width / 3);
    await page.click('button[data-zoom="reset"]');
    expect(await vb()).toBe(`0 0 ${readLayout().width} ${readLayout().height}`);
    expect(errors).toEqual([]);
  }, 120_000);

  it("a refuted redundant_rule shows its finding and links its core; the rule pages list every obligation naming them (stuck_power too)", async () => {
    await page.goto(`${findingsUrl}#/o/his/his.redundant_rule.dow.alliance_this_phase`);
    const o = findingsData.editions[0]!.obligations.find((x) => x.id === "his.redundant_rule.dow.alliance_this_phase")!;
    expect(o.verdict).toBe("refuted");
    expect(o.core).toContain("dow.own_ally");
    // the core as links to the rules' pages (an invariant too)
    for (const id of o.core) expect(await page.locator(`p.core a[href="#/r/his/${id}"]`).count()).toBe(1);
    // the finding in words, when the data has it (compiler/report/data.ts `explanation`, issue 25 "findings in words")
    const words = (o as typeof o & { explanation?: { finding?: string } }).explanation;
    if (words?.finding) {
      // the finding's rule ids are links (the backticks dropped)
      expect(await page.locator("#finding").textContent()).toBe(words.finding.replace(/`/g, ""));
      expect(await page.locator('#finding a[href="#/r/his/dow.own_ally"]').count()).toBe(1);
    }
    expect(await page.title()).toBe("his.redundant_rule.dow.alliance_this_phase — rulewright report");
    // the rule page lists it and interacts with the other rule of the core
    await page.click('p.core a[href="#/r/his/dow.own_ally"]');
    await page.waitForFunction(() => location.hash === "#/r/his/dow.own_ally");
    expect(await page.locator('a[href="#/o/his/his.redundant_rule.dow.alliance_this_phase"]').count()).toBeGreaterThan(0);
    expect(await page.locator('.interacts a[href="#/r/his/dow.alliance_this_phase"]').count()).toBe(1);
    // a rule that blocks a move of the stuck power lists that counterexample
    await page.goto(`${findingsUrl}#/r/his/cp.too_expensive`);
    expect(await page.locator('a[href="#/o/his/his.stuck_power.action_phase"]').count()).toBeGreaterThan(0);
    // the stuck power's blocked moves, each with its rules as links
    await page.goto(`${findingsUrl}#/o/his/his.stuck_power.action_phase`);
    expect(await page.locator('ul.blocked a[href="#/r/his/cp.too_expensive"]').count()).toBe(1);
    // the replay command: the data's (`--edition dsl/his`, as prove prints it) or the page's own (`--edition his`)
    expect(await page.locator("p.replay code").textContent()).toMatch(/^npx rulewright check --edition (dsl\/)?his --state test\/fixtures\/report\/witnesses\/stuck_action_phase\.state\.json --action test\/fixtures\/report\/witnesses\/stuck_action_phase\.action\.json$/);
    expect(errors).toEqual([]);
  }, 120_000);

  it("search: §9.6 lists the §9.6 rules first, one hit per rule with its editions; arrow keys and Enter open a hit; obligations are found", async () => {
    await page.goto(findingsUrl);
    await page.fill("#search", "§9.6");
    const ids = new Set(his.rules.filter((r) => r.citation.text.includes("§9.6")).map((r) => r.id));
    expect(ids.size).toBeGreaterThan(10);
    const hits = await page.locator("#results li.result b").allTextContents();
    expect(new Set(hits.slice(0, ids.size))).toEqual(ids);
    expect(new Set(hits).size).toBe(hits.length); // his and his-500 merged: one hit per rule
    expect(await page.locator("#results li.result").first().locator(".also a").allTextContents()).toEqual(["his", "his-500"]);
    await page.press("#search", "ArrowDown");
    await page.press("#search", "Enter");
    await page.waitForFunction((h) => location.hash === h, `#/r/his/${hits[1]}`);
    expect(await page.locator("h1.rule-id").textContent()).toContain(hits[1]!);
    expect(await page.title()).toBe(`${hits[1]} (his) — rulewright report`);
    await page.fill("#search", "stuck power action phase");
    expect(await page.locator('#results li.result[data-type="obligation"] b').first().textContent()).toBe("stuck_power.action_phase");
    await page.press("#search", "Enter");
    await page.waitForFunction(() => location.hash === "#/o/his/his.stuck_power.action_phase");
    expect(errors).toEqual([]);
  }, 120_000);

  it("unknown and malformed routes show a not-found page; back restores the scroll; an unknown verdict puts up a banner with its reason", async () => {
    for (const h of ["#/r/his/100%", "#/nope", "#/r/his/no.such.rule", "#/e/nowhere"]) {
      await page.goto(`${findingsUrl}${h}`);
      expect(await page.locator("main h1").textContent()).toBe("Not found");
      expect(await page.title()).toBe("not found — rulewright report");
    }
    await page.goto(`${findingsUrl}#/e/his`);
    await page.evaluate(() => window.scrollTo(0, 3000));
    await page.waitForFunction(() => window.scrollY === 3000);
    const link = page.locator('.rule a[href^="#/r/his/"]').nth(40);
    await link.scrollIntoViewIfNeeded();
    const y = await page.evaluate(() => window.scrollY);
    await link.click();
    await page.waitForFunction(() => location.hash.startsWith("#/r/his/"));
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await page.goBack();
    await page.waitForFunction(() => location.hash === "#/e/his");
    await page.waitForFunction((v) => window.scrollY === v, y);
    expect(await page.locator(".banner").count()).toBe(0);
    await page.goto(unknownUrl);
    expect(await page.locator(".banner").textContent()).toContain("1 verdict unknown (his)");
    expect(await page.locator(".banner").textContent()).toContain("timeout after 120000 ms (1)");
    expect(errors).toEqual([]);
  }, 120_000);

  it("axe-core finds no violation on the overview, a rule page, a counterexample and the search", async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    for (const h of ["", "#/r/his/dow.alliance_this_phase", "#/o/his/his.stuck_power.action_phase"]) {
      await page.goto(`${findingsUrl}${h}`);
      expect({ page: h || "overview", violations: await axeViolations(page) }).toEqual({ page: h || "overview", violations: [] });
    }
    await page.goto(findingsUrl);
    await page.fill("#search", "§9.6");
    await page.locator("#results li.result").first().waitFor();
    expect({ page: "search", violations: await axeViolations(page) }).toEqual({ page: "search", violations: [] });
  }, 180_000);

  it("at phone width (390×844) no page scrolls sideways, and the board zooms and pans", async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, hasTouch: true });
    const pageErrors: string[] = [];
    phone.on("pageerror", (e) => pageErrors.push(String(e)));
    const wide: string[] = [];
    for (const h of ["", "#/e/his", "#/r/his/dow.alliance_this_phase", "#/r/his-500/deploy.star_all", "#/o/his/his.stuck_power.action_phase", "#/o/his/his.dead_rule.control.loc", "#/o/his/his.redundant_rule.dow.alliance_this_phase", "#/nope"]) {
      await phone.goto(`${findingsUrl}${h}`);
      const [sw, w] = await phone.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      if (sw > w) wide.push(`${h || "overview"}: ${sw} px wide`);
    }
    await phone.goto(findingsUrl);
    await phone.fill("#search", "§9.6");
    const box = await phone.locator("#results").boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(wide).toEqual([]);
    // the board: as wide as the screen, zoomed with the buttons, panned by dragging
    await phone.goto(`${findingsUrl}#/o/his/his.dead_rule.control.loc`);
    const svg = phone.locator("svg.board");
    expect((await svg.boundingBox())!.width).toBeGreaterThan(350);
    await phone.click('button[data-zoom="in"]');
    await phone.click('button[data-zoom="in"]');
    const before = (await svg.getAttribute("viewBox"))!.split(" ").map(Number);
    expect(before[2]).toBeLessThan(readLayout().width / 2);
    const b = (await svg.boundingBox())!;
    await phone.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
    await phone.mouse.down();
    await phone.mouse.move(b.x + b.width / 2 + 60, b.y + b.height / 2 + 30, { steps: 4 });
    await phone.mouse.up();
    const after = (await svg.getAttribute("viewBox"))!.split(" ").map(Number);
    expect(after[0]).toBeLessThan(before[0]!);
    expect(after[1]).toBeLessThan(before[1]!);
    expect({ page: "phone counterexample", violations: await axeViolations(phone) }).toEqual({ page: "phone counterexample", violations: [] });
    expect(pageErrors).toEqual([]);
    await phone.close();
  }, 180_000);
});
