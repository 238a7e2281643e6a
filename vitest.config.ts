import os from "node:os";
import { defineConfig } from "vitest/config";

/**
 * The whole-edition suites: the test files that prove bundled editions or fixtures built on them
 * (through the shared setup test/setup/proofs.ts, the CLI or the language server), or that run
 * every scenario, corpus case, coverage manifest or edition through the CLI or several backends
 * (and the browser test of the report). They are the `editions` project; everything else is the
 * `quick` project (`npm run test:quick`, the edit-test loop). `npm test` runs both.
 */
export const EDITION_SUITES = [
  "test/verify/crosscheck.test.ts",
  "test/verify/verdicts.test.ts",
  "test/verify/fast-proofs.test.ts",
  "test/verify/diff.test.ts",
  "test/verify/prove-ci.test.ts",
  "test/verify/trust.test.ts",
  "test/verify/analyses-fixtures.test.ts",
  "test/verify/budget.test.ts",
  "test/verify/variants.test.ts",
  "test/interpret/differential.test.ts",
  "test/interpret/interpret.test.ts",
  "test/interpret/conformance.test.ts",
  "test/codegen/legal-moves.test.ts",
  "test/e2e/scenarios.test.ts",
  "test/e2e/fuzz.test.ts",
  "test/cli/cli.test.ts",
  "test/cli/coverage.test.ts",
  "test/cli/report-browser.test.ts",
  "test/lsp/lsp-prove.test.ts",
];

export default defineConfig({
  test: {
    pool: "forks",
    // vitest's default is one fork fewer than the cores: one fork on a 2-core runner. Most test
    // files wait on child processes (the CLI, solver processes, a browser), so two forks keep both
    // cores busy: npm test took 12.7 min with one fork on the CI machine
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // a test that asserts nothing fails (a forgotten `await`, a loop over an empty list)
    expect: { requireAssertions: true },
    // a hang still fails, but a whole-edition test (fast-proofs' sliced vs unsliced Here I Stand,
    // 35 s alone, 87 s on a busy runner) never does for being slow: speed is measured in benchmarks
    testTimeout: 600_000,
    // setup hooks prove whole editions (minutes on a busy 2-core runner); time is measured in benchmarks
    hookTimeout: 1_800_000,
    projects: [
      {
        extends: true,
        test: { name: "quick", include: ["test/**/*.test.ts"], exclude: EDITION_SUITES },
      },
      {
        extends: true,
        test: {
          name: "editions",
          include: EDITION_SUITES,
          // every whole-edition proof the tests read is made once, here (test/helpers/proof-reports.ts)
          globalSetup: ["test/setup/proofs.ts"],
        },
      },
    ],
  },
});
