/**
 * Writes proofs/verdicts.tsv, the committed table of every obligation of the bundled editions and
 * its verdict (`<id> TAB <verdict> [TAB vacuous]`, sorted by id), from the reports of the last
 * `rulewright prove` (proofs/<edition>/report.json). test/verdicts.test.ts proves the editions
 * (once, in the shared setup) and compares: a change of verdict is a change of this file, made on
 * purpose and reviewed. Run: `npm run verdicts` (after `npx rulewright prove`).
 */
import fs from "node:fs";
import path from "node:path";
import { bundledEditions } from "../compiler/cli/common.js";
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
fs.writeFileSync(path.join("proofs", "verdicts.tsv"), rows.sort().join("\n") + "\n");
process.stdout.write(`proofs/verdicts.tsv: ${rows.length} obligations\n`);
