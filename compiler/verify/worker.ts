/**
 * The solver process: a tinypool worker (runtime `child_process`) that solves one obligation per
 * task. `proveEdition(…, { isolate: true })` runs a pool of them (runner.ts); Z3 runs only here,
 * so a solver that runs out of memory, crashes or hangs takes down this process alone: the pool
 * reports the obligation `unknown` and starts a fresh process for the rest.
 *
 * Task: `{ irFile, obligation, timeoutMs, listBound, slicing, candidates, smt2 }`. The IR is read from
 * `irFile` (JSON written by the parent once per run) and kept per file, with its prover (and its
 * cached encodings), for the 8 files used last (a pool lives across the runs of `prove --watch`,
 * each with new files). Before solving, the worker sends `{ type: "start", id }` to the parent
 * (the parent's watchdog starts then).
 *
 * Test-only switches (never set in normal use): RW_WORKER_CRASH_ON=<text> makes the process exit
 * with code 70 when it starts an obligation whose id contains <text>; RW_WORKER_HANG_ON=<text>
 * makes it spin forever there (a solver that never answers).
 */
import fs from "node:fs";
import type { IREdition } from "../ir/types.js";
import type { Obligation } from "./obligations.js";
import { proverFor } from "./solve.js";
import type { Candidate, Smt2Mode, SolvedObligation } from "./results.js";
import { getZ3, runExclusive } from "./z3.js";

export interface SolveTask {
  irFile: string;
  obligation: Obligation;
  timeoutMs: number;
  listBound: number;
  slicing: boolean;
  candidates: Candidate[];
  smt2: Smt2Mode;
}
export interface SolveAnswer {
  result: SolvedObligation;
  /** wall time of the obligation in the solver process */
  ms: number;
}
export type WorkerMessage = { type: "start"; id: string; pid: number };

// the parent's stdout may carry a JSON/SARIF document, and tinypool pipes this process's stdout
// into it: whatever this process (Z3, Node, a library) writes there goes to stderr instead
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
console.log = (...args: unknown[]) => console.error(...args);

const irs = new Map<string, IREdition>();
/** IR files (with their provers) a process keeps: the editions of one run, and a retry round */
const MAX_IRS = 8;

// load Z3 now, while the parent prepares the first task (getZ3 is memoized; a failure here is
// reported by the first task that awaits it)
getZ3().catch(() => undefined);

/** Solves one obligation (the pool calls it; never throws for a solver problem: that is `unknown`). */
export default async function solveTask(task: SolveTask): Promise<SolveAnswer> {
  const ob = task.obligation;
  process.send?.({ type: "start", id: ob.id, pid: process.pid } satisfies WorkerMessage);
  const crashOn = process.env.RW_WORKER_CRASH_ON;
  const hangOn = process.env.RW_WORKER_HANG_ON;
  if (crashOn && ob.id.includes(crashOn)) process.exit(70);
  if (hangOn && ob.id.includes(hangOn)) for (;;);
  let ir = irs.get(task.irFile);
  if (ir) irs.delete(task.irFile);
  else ir = JSON.parse(fs.readFileSync(task.irFile, "utf8")) as IREdition;
  // most recently used last; a pool kept across runs (`prove --watch`) gets a new file every run:
  // the oldest IR and its prover are let go
  irs.set(task.irFile, ir);
  for (const old of irs.keys()) if (irs.size > MAX_IRS) irs.delete(old);
  const ctx = await getZ3();
  const prover = proverFor(ctx, ir, task.listBound, task.slicing);
  return runExclusive(async () => {
    const t0 = performance.now();
    const result = await prover.solve(ob, task.timeoutMs, task.candidates, task.smt2);
    return { result, ms: Math.round(performance.now() - t0) };
  });
}
