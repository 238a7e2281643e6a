/**
 * Deterministic verdicts (README "Budgets", compiler/verify/README.md "Budgets"): an obligation's
 * budget is Z3's resource count (`rlimit`), not the wall clock. Running out of it gives `unknown`
 * with the same count used in every run (each run here starts its own solver process); the proof
 * cache keeps such an `unknown` with its budget and solves again only when the budget changes in
 * a way that matters; the report records the budget and the count used.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { DEFAULT_RLIMIT, proveEdition, type ObligationResult } from "../../compiler/verify/index.js";
import { parseRlimit } from "../../compiler/cli/prove.js";
import { Budget, budgetedCheck, getZ3, processCpuMs } from "../../compiler/verify/run/z3.js";

const LONG = 600_000;
const REPO = process.cwd();
const ID = "his.table_gap.conquest";
/** far below what the first check of the table's query takes */
const TINY = 200;

const ir = () => loadEdition("test/broken/table-gap", { repoRoot: REPO }).edition!;
const only = (o: { id: string }) => o.id === ID;
async function proveIt(opts: { rlimit?: number; cacheDir?: string }): Promise<ObligationResult & { rlimit: { budget: number; used: number } }> {
  const r = await proveEdition(ir(), { isolate: true, workers: 1, only, ...opts });
  expect(r.obligations.map((o) => o.id)).toEqual([ID]);
  const o = r.obligations[0]!;
  expect(o.rlimit).toBeDefined();
  return o as ObligationResult & { rlimit: { budget: number; used: number } };
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "rw-budget-"));

describe("resource budgets (rlimit)", () => {
  it("an unknown from a spent budget is the same in two runs, with the same count used", async () => {
    const a = await proveIt({ rlimit: TINY });
    const b = await proveIt({ rlimit: TINY });
    expect(a.verdict).toBe("unknown");
    expect(a.reason).toMatch(/^resource budget exhausted \(rlimit 200; raise it with --rlimit\)$/);
    expect(a.rlimit.budget).toBe(TINY);
    expect(a.rlimit.used).toBeGreaterThanOrEqual(TINY);
    expect({ verdict: b.verdict, reason: b.reason, rlimit: b.rlimit }).toEqual({ verdict: a.verdict, reason: a.reason, rlimit: a.rlimit });
    // the default budget decides it (refuted: the roll 8 hits no row), with the count recorded
    const full = await proveIt({});
    expect(full.verdict).toBe("refuted");
    expect(full.rlimit.budget).toBe(DEFAULT_RLIMIT);
    expect(full.rlimit.used).toBeGreaterThan(TINY);
    expect(full.rlimit.used).toBeLessThan(DEFAULT_RLIMIT);
    const again = await proveIt({});
    expect(again.rlimit.used).toBe(full.rlimit.used);
  }, LONG);

  it("the proof cache keeps a budget's unknown and solves again only when the budget change matters", async () => {
    const cacheDir = tmp();
    const first = await proveIt({ rlimit: TINY, cacheDir });
    expect([first.verdict, !!first.cached]).toEqual(["unknown", false]);
    // the same budget: the stored unknown, not solved again
    const same = await proveIt({ rlimit: TINY, cacheDir });
    expect([same.verdict, !!same.cached, same.reason]).toEqual(["unknown", true, first.reason]);
    expect(same.rlimit).toEqual(first.rlimit);
    // another budget: solved again (a larger one decides it)
    const raised = await proveIt({ cacheDir });
    expect([raised.verdict, !!raised.cached]).toEqual(["refuted", false]);
    const used = raised.rlimit.used;
    // a verdict holds under any budget at least the count it used: from the cache, with that budget
    const cached = await proveIt({ rlimit: used, cacheDir });
    expect([cached.verdict, !!cached.cached]).toEqual(["refuted", true]);
    expect(cached.rlimit).toEqual({ budget: used, used });
    // below that count it is solved again, and the budget runs out (the same count every run)
    const lowered = await proveIt({ rlimit: used - 1, cacheDir });
    expect([lowered.verdict, !!lowered.cached]).toEqual(["unknown", false]);
    expect(lowered.reason).toMatch(/resource budget exhausted/);
  }, LONG);

  it("the report records the budget and the count used per obligation, and the budget in its bounds", async () => {
    const r = await proveEdition(ir(), { isolate: true, workers: 1, only, rlimit: 123_456_789 });
    expect(r.bounds.rlimit).toBe(123_456_789);
    expect(r.obligations[0]!.rlimit!.budget).toBe(123_456_789);
    expect(r.obligations[0]!.rlimit!.used).toBeGreaterThan(0);
  }, LONG);

  it("a solver process whose Z3 memory reaches its ceiling gives unknown with that reason, not a crash", async () => {
    process.env.RW_Z3_MEMORY_MB = "1";
    try {
      const o = await proveIt({});
      expect(o.verdict).toBe("unknown");
      expect(o.reason).toMatch(/^memory limit reached \(1 MB of Z3 memory\)/);
    } finally {
      delete process.env.RW_Z3_MEMORY_MB;
    }
  }, LONG);

  it("the safety net counts the solver's CPU time, not the wall clock: waiting for a busy core costs nothing", async () => {
    const ctx = await getZ3();
    const solver = new ctx.Solver();
    try {
      const x = ctx.Int.const("x");
      solver.add(x.gt(3));
      const budget = new Budget(DEFAULT_RLIMIT, 500);
      // more wall time than the net with next to no CPU time (a process waiting for a core looks the same)
      await new Promise((r) => setTimeout(r, 800));
      expect(budget.cpuLeft()).toBeGreaterThan(0);
      expect(await budgetedCheck(ctx, solver, budget)).toBe("sat");
      expect(budget.netOut).toBe(false);
      // CPU time spent: the net is reached, the next check is not even started
      const until = processCpuMs() + 600;
      while (processCpuMs() < until);
      expect(await budgetedCheck(ctx, solver, budget)).toBe("unknown");
      expect([budget.netOut, budget.exhausted]).toEqual([true, false]);
      expect(budget.reason()).toBe("timeout (safety net of 500 ms of solver CPU time; --timeout)");
    } finally {
      solver.release();
    }
  });

  it("--rlimit takes a count with an optional k/M/G suffix; anything else is a usage error", () => {
    expect(parseRlimit("400M")).toBe(400_000_000);
    expect(parseRlimit("2000")).toBe(2000);
    expect(parseRlimit("1.5G")).toBe(1_500_000_000);
    expect(() => parseRlimit("0")).toThrow(/--rlimit takes a positive number/);
    expect(() => parseRlimit("ten")).toThrow(/--rlimit takes a positive number/);
    const r = spawnSync(process.execPath, [path.join(REPO, "bin/rulewright.mjs"), "prove", "test/broken/table-gap", "--rlimit", "-5", "--no-cache"], { cwd: REPO, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--rlimit takes a positive number of resource units/);
  });
});
