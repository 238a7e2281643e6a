/**
 * Writes proofs/verdicts.tsv, the committed table of every obligation of the bundled editions and
 * its verdict (`<id> TAB <verdict> [TAB vacuous]`, sorted by id), from the reports of the last
 * `rulewright prove` (proofs/<edition>/report.json). test/verify/verdicts.test.ts proves the editions
 * (once, in the shared setup) and compares: a change of verdict is a change of this file, made on
 * purpose and reviewed. Run: `npm run verdicts` (after `npx rulewright prove`).
 *
 * `npm run verdicts -- --check`: writes nothing; compares the reports with the committed table and
 * exits 1 listing every row that differs (a verdict changed, an obligation added or gone), 0 when
 * they are identical. `.ci/run` uses it after proving under load (README "Budgets").
 */
import fs from "node:fs";
import path from "node:path";
import { bundledEditions } from "../compiler/engine/editions.js";
import { verdictTable } from "../test/helpers/verdicts.js";

const rows: string[] = [];
for (const e of bundledEditions()) {
  const file = path.join("proofs", e, "report.json");
  if (!fs.existsSync(file)) {
    process.stderr.write(`${file} is missing: run \`npx rulewright prove\` first\n`);
    process.exit(2);
  }
  rows.push(...verdictTable(JSON.parse(fs.readFileSync(file, "utf8")).obligations));
}
const table = path.join("proofs", "verdicts.tsv");
if (process.argv.includes("--check")) {
  const committed = new Set(fs.readFileSync(table, "utf8").split("\n").filter(Boolean));
  const now = new Set(rows);
  const gone = [...committed].filter((r) => !now.has(r)).sort();
  const added = rows.filter((r) => !committed.has(r)).sort();
  for (const r of gone) process.stdout.write(`- ${r.replace(/\t/g, " ")}\n`);
  for (const r of added) process.stdout.write(`+ ${r.replace(/\t/g, " ")}\n`);
  const unknown = rows.filter((r) => r.split("\t")[1] === "unknown").length;
  process.stdout.write(`${table}: ${gone.length + added.length ? `${gone.length} committed rows differ from the reports (- committed, + now)` : `all ${rows.length} verdicts as committed`}; ${unknown} unknown\n`);
  process.exit(gone.length + added.length ? 1 : 0);
}
fs.writeFileSync(table, rows.sort().join("\n") + "\n");
process.stdout.write(`${table}: ${rows.length} obligations\n`);
