import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    // every whole-edition proof the tests read is made once, here (test/helpers/proof-reports.ts)
    globalSetup: ["test/setup/proofs.ts"],
    testTimeout: 120_000,
    // setup hooks prove whole editions (minutes on a busy 2-core runner); time is measured in benchmarks
    hookTimeout: 1_800_000,
  },
});
