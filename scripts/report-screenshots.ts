/**
 * `npm run report:screenshots`: the three screenshots of the rulebook report in README.md and
 * docs/report.md — the overview, a rule page and a proof's state on the board — taken with
 * Debian's chromium (playwright-core; CHROMIUM_PATH to use another binary) from the report
 * `rulewright report` wrote (default proofs/report/index.html; run `npm start` or
 * `npx rulewright prove <edition> && npx rulewright report` first). Writes docs/report-*.png.
 * Usage: `npm run report:screenshots -- [report.html] [rule edition/id] [obligation edition/id]`.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [file = "proofs/report/index.html", rule = "his/deploy.units_in_capital", obligation = "his/his.dead_rule.deploy.units_in_capital"] = process.argv.slice(2);
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
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const shots: [string, string][] = [
    ["", "docs/report-overview.png"],
    [`#/r/${rule}`, "docs/report-rule.png"],
    [`#/o/${obligation}`, "docs/report-board.png"],
  ];
  for (const [hash, out] of shots) {
    await page.goto(url + hash);
    await page.waitForTimeout(200);
    await page.screenshot({ path: out });
    process.stdout.write(`wrote ${out}\n`);
  }
} finally {
  await browser.close();
}
