/**
 * The solver process: `proveEdition(…, { isolate: true })` forks this file (through tsx) and
 * sends it the IR and the obligations to solve; it answers one message per obligation. Z3 runs
 * only here, so a solver that runs out of memory, crashes or hangs takes down this process
 * alone: the parent (runner.ts) kills it, reports the obligation as `unknown` and carries on
 * with a fresh process.
 *
 * Protocol (IPC, advanced serialization):
 *   parent → child  { type: "prove", ir, obligations, timeoutMs, listBound }
 *   child → parent  { type: "start", id } … { type: "result", id, result, ms } … { type: "done" }
 *
 * Test-only switches (never set in normal use): RW_WORKER_CRASH_ON=<text> makes the process exit
 * with code 70 when it starts an obligation whose id contains <text>; RW_WORKER_HANG_ON=<text>
 * makes it spin forever there (a solver that never answers).
 */
import type { IREdition } from "../ir/types.js";
import type { Obligation } from "./obligations.js";
import { proverFor, type SolvedObligation } from "./solve.js";
import { getZ3, runExclusive } from "./z3.js";

export interface ProveRequest {
  type: "prove";
  ir: IREdition;
  obligations: Obligation[];
  timeoutMs: number;
  listBound: number;
}
export type WorkerMessage =
  | { type: "start"; id: string }
  | { type: "result"; id: string; result: SolvedObligation; ms: number }
  | { type: "done" };

function send(m: WorkerMessage): Promise<void> {
  return new Promise((resolve) => process.send!(m, undefined, undefined, () => resolve()));
}

async function serve(req: ProveRequest): Promise<void> {
  const ctx = await getZ3();
  const prover = proverFor(ctx, req.ir, req.listBound);
  const crashOn = process.env.RW_WORKER_CRASH_ON;
  const hangOn = process.env.RW_WORKER_HANG_ON;
  await runExclusive(async () => {
    for (const ob of req.obligations) {
      await send({ type: "start", id: ob.id });
      if (crashOn && ob.id.includes(crashOn)) process.exit(70);
      if (hangOn && ob.id.includes(hangOn)) for (;;);
      const t0 = performance.now();
      const result = await prover.solve(ob, req.timeoutMs);
      await send({ type: "result", id: ob.id, result, ms: Math.round(performance.now() - t0) });
    }
  });
  await send({ type: "done" });
  // the Z3 runtime keeps worker threads alive: leave explicitly
  process.exit(0);
}

if (process.send) {
  process.on("message", (m: ProveRequest) => {
    if (m?.type === "prove") void serve(m).catch((e) => {
      process.stderr.write(`solver process: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(71);
    });
  });
  process.on("disconnect", () => process.exit(0));
}
