/**
 * The solver process: a tinypool worker (runtime `child_process`) that solves one obligation per
 * task. `proveEdition(…, { isolate: true })` runs a pool of them (runner.ts); Z3 runs only here,
 * so a solver that runs out of memory, crashes or hangs takes down this process alone: the pool
 * reports the obligation `unknown` and starts a fresh process for the rest.
 *
 * Task: `{ irFile, obligation, timeoutMs, rlimit, listBound, slicing, candidates, smt2, defaultsOk, prepare?, batch? }`. The IR is read from
 * `irFile` (JSON written by the parent once per run) and kept per file, with its prover (and its
 * cached encodings), for the 8 files used last (a pool lives across the runs of `prove --watch`,
 * each with new files). Once the IR is read and Z3 loaded, before solving each obligation (each
 * one of a batch), the worker sends `{ type: "start", id }` to the parent (the parent's watchdog
 * for that obligation starts then: loading Z3 in a fresh process is not counted against it), and
 * then `{ type: "tick", id, cpuMs }` about every second until it answers (WorkerMessage).
 *
 * RULEWRIGHT_SOLVER_NICE=<n> (set by the language server, compiler/lsp/proving.ts): the process
 * lowers its CPU priority to niceness n, so that a proof in the background never slows the
 * editor's requests (verdicts do not depend on it).
 *
 * Test-only switches (never set in normal use): RW_WORKER_CRASH_ON=<text> makes the process exit
 * with code 70 when it starts an obligation whose id contains <text>; RW_WORKER_HANG_ON=<text>
 * makes it spin forever there (a solver that never answers).
 */
import fs from "node:fs";
import os from "node:os";
import type { IREdition } from "../../ir/types.js";
import type { Obligation } from "../../ir/obligations.js";
import { proverFor } from "./solve.js";
import type { Candidate, Smt2Mode, SolvedObligation } from "./results.js";
import { getZ3, processCpuMs, runExclusive } from "./z3.js";

const nice = Number(process.env.RULEWRIGHT_SOLVER_NICE);
if (Number.isInteger(nice) && nice > 0) {
  try {
    os.setPriority(Math.min(19, nice));
  } catch {
    // not allowed here: the process keeps its priority
  }
}

export interface SolveTask {
  irFile: string;
  obligation: Obligation;
  /** safety net of one obligation (ms of this process's CPU time, from its start here) */
  timeoutMs: number;
  /** resource budget of one obligation (units of Z3's rlimit count; README "Budgets") */
  rlimit: number;
  listBound: number;
  slicing: boolean;
  candidates: Candidate[];
  smt2: Smt2Mode;
  /** true: the default state is known to satisfy the invariants (Prover.knowDefaultsSatisfyInvariants) */
  defaultsOk?: boolean;
  /** true: only encode the obligation's query (Prover.prepare); the answer has no verdict */
  prepare?: boolean;
  /**
   * Obligations (of one action) to answer by a concrete witness only (Prover.witness), in order;
   * `obligation` is the first of them. The answer's `batch` has, per obligation, its answer or
   * null when no candidate is a witness (the parent then solves it alone).
   */
  batch?: { obligation: Obligation; candidates: Candidate[] }[];
  /**
   * true: as soon as a `refuted` verdict's model is found (before it is made canonical and its
   * facts minimal), send it to the parent (`WorkerMessage` "verdict"); the answer is the same
   * solve's polished result
   */
  early?: boolean;
}
export interface SolveAnswer {
  result: SolvedObligation;
  /** wall time of the obligation in the solver process */
  ms: number;
  /** Prover.defaultsKnown after the obligation: whether the default state satisfies the invariants, when decided */
  defaultsOk?: boolean;
  /** the answers of a batch task (SolveTask.batch), null where no witness held */
  batch?: (SolveAnswer | null)[];
}
/**
 * What a solver process tells its parent while it solves: an obligation started; about every
 * second (`TICK_MS`), the CPU time (ms, all its threads) it has spent on it so far; a `refuted`
 * verdict found before it is polished (`SolveTask.early`).
 */
export type WorkerMessage = { type: "start"; id: string; pid: number } | { type: "tick"; id: string; pid: number; cpuMs: number } | { type: "verdict"; id: string; pid: number; result: SolvedObligation };

/** How often a solving process reports its CPU time (ms of wall time). */
const TICK_MS = 1000;
let ticking: NodeJS.Timeout | undefined;

// the parent's stdout may carry a JSON/SARIF document, and tinypool pipes this process's stdout
// into it: whatever this process (Z3, Node, a library) writes there goes to stderr instead
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
console.log = (...args: unknown[]) => console.error(...args);

// Ctrl-C reaches every process of the terminal's foreground group: the parent decides what
// happens (prove --watch waits for the running proofs, then closes the pool), so a solver process
// ignores it; one whose parent is gone (killed, or ended without closing the pool) exits
process.on("SIGINT", () => undefined);
process.on("disconnect", () => process.exit(0));

const irs = new Map<string, IREdition>();
/** IR files (with their provers) a process keeps: the editions of one run, and a retry round */
const MAX_IRS = 8;

// load Z3 now, while the parent prepares the first task (getZ3 is memoized; a failure here is
// reported by the first task that awaits it)
getZ3().catch(() => undefined);

/** Solves one obligation (the pool calls it; never throws for a solver problem: that is `unknown`). */
export default async function solveTask(task: SolveTask): Promise<SolveAnswer> {
  const ob = task.obligation;
  const started = (id: string) => {
    if (task.prepare) return;
    process.send?.({ type: "start", id, pid: process.pid } satisfies WorkerMessage);
    clearInterval(ticking);
    const cpu0 = processCpuMs();
    ticking = setInterval(() => process.send?.({ type: "tick", id, pid: process.pid, cpuMs: Math.round(processCpuMs() - cpu0) } satisfies WorkerMessage), TICK_MS);
  };
  const crashOn = process.env.RW_WORKER_CRASH_ON;
  const hangOn = process.env.RW_WORKER_HANG_ON;
  const switches = (id: string) => {
    if (crashOn && id.includes(crashOn)) process.exit(70);
    if (hangOn && id.includes(hangOn)) for (;;);
  };
  let ir = irs.get(task.irFile);
  if (ir) irs.delete(task.irFile);
  else ir = JSON.parse(fs.readFileSync(task.irFile, "utf8")) as IREdition;
  // most recently used last; a pool kept across runs (`prove --watch`) gets a new file every run:
  // the oldest IR and its prover are let go
  irs.set(task.irFile, ir);
  for (const old of irs.keys()) if (irs.size > MAX_IRS) irs.delete(old);
  const ctx = await getZ3();
  const prover = proverFor(ctx, ir, task.listBound, task.slicing);
  if (task.defaultsOk) prover.knowDefaultsSatisfyInvariants();
  const limits = { rlimit: task.rlimit, timeoutMs: task.timeoutMs };
  return runExclusive(async () => {
    try {
      return await solveNow();
    } finally {
      clearInterval(ticking);
      ticking = undefined;
    }
  });
  async function solveNow(): Promise<SolveAnswer> {
    const t0 = performance.now();
    if (task.prepare) {
      await prover.prepare(ob);
      return { result: { verdict: "unknown", reason: "prepared, not solved" }, ms: Math.round(performance.now() - t0), defaultsOk: prover.defaultsKnown };
    }
    if (task.batch) {
      // each obligation's witnesses, one after the other, with no round trip to the parent
      const batch: (SolveAnswer | null)[] = [];
      for (const b of task.batch) {
        started(b.obligation.id);
        switches(b.obligation.id);
        const t1 = performance.now();
        const r = await prover.witness(b.obligation, limits, b.candidates, task.smt2);
        batch.push(r ? { result: r, ms: Math.round(performance.now() - t1) } : null);
      }
      return { result: { verdict: "unknown", reason: "a batch" }, ms: Math.round(performance.now() - t0), batch, defaultsOk: prover.defaultsKnown };
    }
    started(ob.id);
    switches(ob.id);
    const early = task.early ? (r: SolvedObligation) => void process.send?.({ type: "verdict", id: ob.id, pid: process.pid, result: r } satisfies WorkerMessage) : undefined;
    const result = await prover.solve(ob, limits, task.candidates, task.smt2, early);
    return { result, ms: Math.round(performance.now() - t0), defaultsOk: prover.defaultsKnown };
  }
}
