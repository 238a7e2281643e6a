import os from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    // vitest's default is one fork fewer than the cores: one fork on a 2-core runner. Most test
    // files wait on child processes (the CLI, solver processes, a browser), so two forks keep both
    // cores busy: npm test took 12.7 min with one fork on the CI machine
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // every whole-edition proof the tests read is made once, here (test/helpers/proof-reports.ts)
    globalSetup: ["test/setup/proofs.ts"],
    // a hang still fails, but a whole-edition test (fast-proofs' sliced vs unsliced Here I Stand,
    // 35 s alone, 87 s on a busy runner) never does for being slow: speed is measured in benchmarks
    testTimeout: 600_000,
    // setup hooks prove whole editions (minutes on a busy 2-core runner); time is measured in benchmarks
    hookTimeout: 1_800_000,
  },
});
