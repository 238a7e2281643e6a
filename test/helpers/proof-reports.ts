/**
 * The proof reports of the shared test setup (test/setup/proofs.ts): one prove of each edition
 * per test run, read here by edition folder.
 */
import fs from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { safeName, type ProofReport } from "../../compiler/verify/index.js";

/** The full report of an edition folder proved by the shared setup (`dsl/his`, `test/broken/dead-rule`). */
export function proofReport(dir: string): ProofReport {
  const file = path.join(inject("proofReports"), `${safeName(dir)}.json`);
  if (!fs.existsSync(file)) throw new Error(`${dir} is not proved by test/setup/proofs.ts (add it to PROVED_FOR_TESTS)`);
  return JSON.parse(fs.readFileSync(file, "utf8")) as ProofReport;
}
