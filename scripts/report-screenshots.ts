/**
 * `npm run report:screenshots`: the screenshots of the rulebook report in README.md and
 * docs/report.md — the overview, a rule page and a proof's state on the board at 1440×900 (a
 * laptop screen), the same state at phone width (390×844) and the search for "§9.6" — taken
 * with Debian's chromium (playwright-core; CHROMIUM_PATH to use another binary) from the report
 * `rulewright report` wrote (default proofs/report/index.html; run `npm start` or
 * `npx rulewright prove <edition> && npx rulewright report` first). Writes docs/report-*.png.
 * Usage: `npm run report:screenshots -- [report.html] [rule edition/id] [obligation edition/id]`.
 * Exit 2 without chromium or without the report.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Page } from "playwright-core";

const [file = "proofs/report/index.html", rule = "his/dow.alliance_this_phase", obligation = "his/his.dead_rule.control.loc"] = process.argv.slice(2);
const exe = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p): p is string => !!p && fs.existsSync(p));
if (!exe) {
  process.stderr.write("no chromium binary: apt-get install -y chromium, or set CHROMIUM_PATH\n");
  process.exit(2);
}
if (!fs.existsSync(file)) {
  process.stderr.write(`no report at ${file}: run \`npx rulewright report\` first\n`);
  process.exit(2);
}
const url = pathToFileURL(path.resolve(file)).href;
const browser = await chromium.launch({ executablePath: exe, args: ["--no-sandbox", "--disable-gpu"] });
/** [viewport, hash, what to do on the page, output file] */
const shots: [[number, number], string, ((p: Page) => Promise<void>) | null, string][] = [
  [[1440, 900], "", null, "docs/report-overview.png"],
  [[1440, 900], `#/r/${rule}`, null, "docs/report-rule.png"],
  [[1440, 900], `#/o/${obligation}`, null, "docs/report-board.png"],
  [[1440, 900], "", (p) => p.fill("#search", "§9.6"), "docs/report-search.png"],
  [[390, 844], `#/o/${obligation}`, (p) => p.evaluate(() => document.querySelector(".board-box")?.scrollIntoView()), "docs/report-phone.png"],
];
try {
  for (const [[width, height], hash, act, out] of shots) {
    const page = await browser.newPage({ viewport: { width, height } });
    await page.goto(url + hash);
    if (act) await act(page);
    await page.waitForTimeout(200);
    await page.screenshot({ path: out });
    await page.close();
    process.stdout.write(`wrote ${out}\n`);
  }
} finally {
  await browser.close();
}
