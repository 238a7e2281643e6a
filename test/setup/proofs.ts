/**
 * Vitest global setup: proves, once per test run, every edition whose whole proof report the
 * tests read (the bundled editions and the broken fixtures of test/verify/crosscheck.test.ts), in one
 * pool of solver processes with one table of shared verdicts, through the proof cache
 * (proofs/.cache, as `rulewright prove` uses it: a second run reuses the verdicts; entries are
 * sealed with the user's key, so a committed or forged store is solved again; CI's `prove --ci`
 * reads none of it). Each report is written to a temporary folder as
 * `<safeName(edition folder)>.json` (full, with states); tests find it with `proofReport(dir)`
 * (test/helpers/proof-reports.ts). No test file proves a whole edition on its own.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { loadEdition } from "../../compiler/check/index.js";
import { loadValidators } from "../../compiler/engine/loader.js";
import { resolveEdition } from "../../compiler/engine/editions.js";
import { judgeWith, scenarioCandidates } from "../../compiler/engine/witnesses.js";
import { proveEdition, safeName, SolverPool, type ProveOptions } from "../../compiler/verify/index.js";

/** The edition folders proved for the tests (bundled first: the fixtures reuse their verdicts). */
export const PROVED_FOR_TESTS = [
  "dsl/his",
  "dsl/vq",
  "dsl/his-500",
  "test/broken/pass-contradiction",
  "test/broken/dead-rule",
  "test/broken/table-gap",
  "test/broken/table-overlap",
  "test/broken/vq-home-card-literal",
  // proved here for the proof cache only: test/verify/prove-ci.test.ts runs the CLI on them
  // (SARIF, JUnit, --fail-on, explain), which then reads every verdict from proofs/.cache instead
  // of solving each fixture in its own process, pass-contradiction twice
  "test/broken/redundant-rule",
  "test/fixed/redundant-rule",
  "test/broken/swallowing-exemption",
];

declare module "vitest" {
  export interface ProvidedContext {
    proofReports: string;
  }
}

/** The test files that read the reports or the proof cache: a run filtered to other files skips the proofs. */
const READERS = ["test/verify/crosscheck.test.ts", "test/verify/verdicts.test.ts", "test/verify/fast-proofs.test.ts", "test/verify/prove-ci.test.ts", "test/verify/variants.test.ts"];

/** Options of the vitest command line that take the next argument as their value (`--project editions`). */
const VALUE_OPTIONS = new Set(["--project", "--reporter", "--outputFile", "--config", "-c", "--shard", "--maxWorkers", "--minWorkers", "--testNamePattern", "-t", "--pool", "--root", "-r", "--dir", "--environment", "--mode", "--exclude", "--testTimeout", "--hookTimeout", "--retry", "--bail"]);

/** The file filters of `vitest run <filters…>` (positional arguments, not option values), as vitest matches them: substrings of the path. */
function fileFilters(): string[] {
  const args = process.argv.slice(2);
  const i = args.findIndex((a) => a === "run" || a === "watch" || a === "dev");
  const rest = i >= 0 ? args.slice(i + 1) : args;
  return rest.filter((a, j) => !a.startsWith("-") && !a.includes("=") && !VALUE_OPTIONS.has(rest[j - 1] ?? ""));
}

export default async function setup(project: TestProject): Promise<() => void> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-test-proofs-"));
  const filters = fileFilters();
  if (filters.length && !READERS.some((f) => filters.some((x) => f.includes(x)))) {
    // `npx vitest run test/syntax/syntax.test.ts`: no test of this run reads a whole-edition report
    project.provide("proofReports", out);
    return () => fs.rmSync(out, { recursive: true, force: true });
  }
  const pool = new SolverPool();
  const memo: NonNullable<ProveOptions["memo"]> = new Map();
  const t0 = performance.now();
  try {
    await Promise.all(
      PROVED_FOR_TESTS.map(async (dir) => {
        const res = loadEdition(dir, { repoRoot: process.cwd() });
        const ir = res.edition;
        if (!ir) throw new Error(`${dir} does not compile: ${res.diagnostics.map((d) => d.message).join("; ")}`);
        const ref = resolveEdition(dir);
        // judged only when some obligation is not answered by the proof cache
        const witnesses: ProveOptions["witnesses"] = ref.bundled
          ? async () => {
              const judge = judgeWith(ir, await loadValidators(ref, ir));
              return { states: scenarioCandidates(judge), judge };
            }
          : undefined;
        // the default resource budget and wall-clock safety net, as CI and `npm start` prove:
        // the verdicts do not depend on how busy the runner is (compiler/verify/README.md "Budgets")
        const report = await proveEdition(ir, { isolate: true, pool, memo, witnesses, cacheDir: path.join("proofs", ".cache"), cacheName: ref.dir });
        fs.writeFileSync(path.join(out, `${safeName(dir)}.json`), JSON.stringify(report));
      }),
    );
  } finally {
    await pool.close();
  }
  process.stderr.write(`proofs for the tests: ${PROVED_FOR_TESTS.length} editions in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  project.provide("proofReports", out);
  return () => fs.rmSync(out, { recursive: true, force: true });
}
