/**
 * The three-way differential (issue 18, item 5; test/fuzz/differential.ts): generated validator ≡
 * interpreter ≡ SMT encoding on every scenario state of every bundled edition and on fast-check
 * mutants of them (fixed seed, bounded), with per-rule fire counts printed; the run fails on any
 * disagreement and on a rule that never fired (the inputs must reach every rule). Most of the time
 * is encoding every rule once (as a prove does: Here I Stand's control rules quantify over the
 * 148-space board); a sample then takes milliseconds. `npm run fuzz` runs more mutants.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareSample, fireReport, loadDiffEdition, mutate, newStats, planArb } from "../fuzz/differential.js";
import { bundledEditions } from "../../compiler/engine/editions.js";

const SEED = Number(process.env.FUZZ_SEED ?? 18);
/** mutants per edition per `npm test` run (the scenario states are all compared too) */
const MUTANTS = Number(process.env.DIFF_MUTANTS ?? 30);
/**
 * The editions compared: every bundled edition (issue 18: the differential runs in `npm test` on
 * each), or a list in DIFF_EDITIONS (`his,his-500`) to run fewer. Encoding Here I Stand's rules
 * costs most of it: 33 s of wall time for the three editions on a quiet 2-core CI machine
 * (2026-12-02), run beside the other test files.
 */
const EDITIONS = !process.env.DIFF_EDITIONS || process.env.DIFF_EDITIONS === "all" ? bundledEditions() : process.env.DIFF_EDITIONS.split(",");

describe("three-way differential: validator ≡ interpreter ≡ SMT encoding", () => {
  for (const name of EDITIONS) {
    it(`${name}: scenario states and ${MUTANTS} mutants (seed ${SEED})`, async () => {
      const t0 = performance.now();
      const ed = await loadDiffEdition(name);
      expect(ed.seeds.length).toBeGreaterThan(0);
      const stats = newStats(ed.ir);
      for (const s of ed.seeds) compareSample(ed, s, stats);
      const fromSeeds = stats.samples;
      fc.assert(
        fc.property(planArb, (plan) => {
          expect(compareSample(ed, mutate(ed, plan), stats)).toEqual([]);
        }),
        { seed: SEED, numRuns: MUTANTS },
      );
      console.log(`${fireReport(name, stats)}\n  (${Math.round(performance.now() - t0)} ms)`);
      expect(stats.failures).toEqual([]);
      // most mutants are valid states (a generator that only made invalid ones would test nothing)
      expect(stats.samples - fromSeeds).toBeGreaterThan(MUTANTS / 2);
      expect([...stats.fires].filter(([, n]) => n === 0).map(([id]) => id)).toEqual([]);
      if (name === EDITIONS[0]) {
        // the comparison can fail: a validator that drops its first violation disagrees with both others
        const forbidden = ed.seeds.find((x) => !ed.mod.check(x.state, x.action).allowed)!;
        const broken = { ...ed, mod: { ...ed.mod, check: (st: unknown, a: unknown) => { const v = ed.mod.check(st, a); return { ...v, violations: v.violations.slice(1), allowed: v.violations.length <= 1 }; } } };
        const found = compareSample(broken, forbidden, newStats(ed.ir));
        expect(found.join("\n")).toMatch(/validator .* ≠ interpreter/);
        expect(found.join("\n")).toMatch(/SMT fires, validator does not fire/);
      }
    }, 300_000);
  }
});
