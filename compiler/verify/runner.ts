/**
 * Running obligations: in a pool of solver processes (worker.ts, tinypool) with a watchdog per
 * obligation and a whole-run deadline, or in this process. Either way every obligation gets a result — a crash, a hang, a
 * kill or the deadline give `unknown` with the reason — and the run never hangs.
 */
import { setMaxListeners } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import Tinypool from "tinypool";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { IREdition } from "../ir/types.js";
import type { Obligation } from "./obligations.js";
import { proverFor } from "./solve.js";
import type { Candidate, Smt2Mode, SolvedObligation } from "./results.js";
import type { SolveAnswer, SolveTask, WorkerMessage } from "./worker.js";
import { getZ3, runExclusive } from "./z3.js";

export interface RunOptions {
  timeoutMs: number;
  listBound: number;
  /** absolute time (performance.now()) past which nothing more is solved */
  deadline?: number;
  /** isolated mode: kill the solver process when one obligation takes longer than this (ms) */
  killAfterMs: number;
  /** solver processes (pool mode; default `defaultWorkers()`) */
  workers?: number;
  /** slice invariants to the cone of influence (default true) */
  slicing?: boolean;
  /** concrete witness candidates of an obligation, tried before the solver searches */
  candidates?: (ob: Obligation) => Candidate[];
  /** which obligations carry their SMT-LIB text (default "findings") */
  smt2?: Smt2Mode;
  onStart?: (id: string) => void;
  onResult: (id: string, r: SolvedObligation, ms: number) => void;
}

const unknown = (reason: string, ob: Obligation): SolvedObligation => ({ verdict: "unknown", reason, smt2: `; ${ob.id}: not solved (${reason})\n` });

/** Solves in this process (one Z3 context per process; runs are serialized). */
export async function runInProcess(ir: IREdition, obs: Obligation[], o: RunOptions): Promise<void> {
  const ctx = await getZ3();
  const prover = proverFor(ctx, ir, o.listBound, o.slicing ?? true);
  await runExclusive(async () => {
    for (const ob of obs) {
      const left = o.deadline === undefined ? Infinity : o.deadline - performance.now();
      if (left <= 0) {
        o.onResult(ob.id, unknown("deadline reached before this obligation was solved", ob), 0);
        continue;
      }
      o.onStart?.(ob.id);
      const t0 = performance.now();
      const r = await prover.solve(ob, Math.max(1, Math.min(o.timeoutMs, Math.floor(left))), o.candidates?.(ob) ?? [], o.smt2);
      o.onResult(ob.id, r, Math.round(performance.now() - t0));
    }
  });
}

/**
 * Solves in a pool of solver processes (tinypool, runtime `child_process`, `workers` of them:
 * default one per core, at most 4). Each obligation is one task; a watchdog per task starts when
 * a worker takes it (`killAfterMs`) and a timer for the whole-run deadline aborts what is left.
 * An aborted task kills its process (tinypool starts a fresh one); a process that exits or
 * crashes fails its task. Either way the obligation is `unknown` with the reason, and the run
 * goes on. A pool that starts no task for `killAfterMs` + 60 s (a solver process that cannot
 * start) ends the run: every obligation left is `unknown` ("could not run").
 */
export async function runPool(ir: IREdition, obs: Obligation[], o: RunOptions, shared?: SolverPool): Promise<void> {
  if (!obs.length) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-prove-"));
  const irFile = path.join(dir, "ir.json");
  fs.writeFileSync(irFile, JSON.stringify(ir));
  const owned = shared ? undefined : new SolverPool(Math.min(o.workers ?? defaultWorkers(), obs.length));
  const pool = (shared ?? owned!).pool;
  const all = new AbortController();
  setMaxListeners(0, all.signal);
  let settledAny = false;
  let lastActivity = performance.now();
  const stallMs = o.killAfterMs + 60_000;
  let stalled = false;
  const stall = setInterval(() => {
    if (performance.now() - lastActivity > stallMs) {
      stalled = true;
      all.abort();
    }
  }, 1000);
  const deadlineTimer = o.deadline === undefined ? undefined : setTimeout(() => all.abort(), Math.max(0, o.deadline - performance.now()));
  try {
    await Promise.all(
      obs.map(async (ob) => {
        const mine = new AbortController();
        const onAll = () => mine.abort();
        all.signal.addEventListener("abort", onAll);
        let watchdog: NodeJS.Timeout | undefined;
        let killed: string | undefined;
        let started = false;
        const listeners: ((m: unknown) => void)[] = [];
        const channel = {
          onMessage: (l: (m: unknown) => void) => void listeners.push(l),
          postMessage: (m: unknown) => {
            const msg = m as WorkerMessage;
            if (msg?.type !== "start" || msg.id !== ob.id) return;
            started = true;
            lastActivity = performance.now();
            o.onStart?.(ob.id);
            watchdog = setTimeout(() => {
              killed = `no answer within ${o.killAfterMs} ms: the solver process was killed`;
              mine.abort();
            }, o.killAfterMs);
          },
        };
        try {
          const task: SolveTask = { irFile, obligation: ob, timeoutMs: o.timeoutMs, listBound: o.listBound, slicing: o.slicing ?? true, candidates: o.candidates?.(ob) ?? [], smt2: o.smt2 ?? "findings" };
          const answer = (await pool.run(task, { signal: mine.signal, channel })) as SolveAnswer;
          settledAny = true;
          lastActivity = performance.now();
          o.onResult(ob.id, answer.result, answer.ms);
        } catch (e) {
          lastActivity = performance.now();
          const why =
            killed ??
            (stalled
              ? `the solver process could not run: no obligation started within ${stallMs} ms${settledAny ? "" : " of the start"}`
              : all.signal.aborted
                ? started
                  ? "deadline reached: the solver process was killed"
                  : "deadline reached before this obligation was solved"
                : `the solver process exited: ${e instanceof Error ? e.message : String(e)}`);
          o.onResult(ob.id, unknown(why, ob), 0);
        } finally {
          clearTimeout(watchdog);
          all.signal.removeEventListener("abort", onAll);
        }
      }),
    );
  } finally {
    clearInterval(stall);
    clearTimeout(deadlineTimer);
    await owned?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A pool of solver processes that several proof runs share (the CLI proves every edition with
 * one): the processes start once and keep their Z3 contexts. `close()` ends them.
 */
export class SolverPool {
  private tiny: Tinypool | undefined;
  constructor(readonly workers = defaultWorkers()) {}
  /**
   * The tinypool instance (runtime `child_process`), started on first use: a run that the proof
   * cache answers entirely never starts a solver process.
   */
  get pool(): Tinypool {
    if (this.tiny) return this.tiny;
    const { script, execArgv } = workerCommand();
    const n = Math.max(1, Math.floor(this.workers));
    this.tiny = new Tinypool({ runtime: "child_process", filename: script, execArgv, minThreads: n, maxThreads: n, serialization: "advanced", env: process.env as Record<string, string> });
    // a solver process that dies while it holds no obligation (killed from outside, out of
    // memory while idle) is an 'error' event of the pool: tinypool starts another; without a
    // listener the event would end the whole run
    this.tiny.on("error", (e: unknown) => {
      this.errors.push(e instanceof Error ? e.message : String(e));
    });
    return this.tiny;
  }
  /** Starts the solver processes now (they load Z3 while the caller prepares the first tasks). */
  start(): void {
    void this.pool;
  }
  /** what went wrong with solver processes that held no obligation (for debugging) */
  readonly errors: string[] = [];
  async close(): Promise<void> {
    await this.tiny?.destroy().catch(() => undefined);
  }
}

/** One solver process per core (at most 4: each holds a Z3 context and the encodings). */
export function defaultWorkers(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

function workerCommand(): { script: string; execArgv: string[] } {
  // compiled (dist/verify/runner.js, the installed package): the compiled worker, plain Node
  if (import.meta.url.endsWith(".js")) return { script: fileURLToPath(new URL("./worker.js", import.meta.url)), execArgv: [] };
  // from the sources (a checkout): the TypeScript worker through tsx
  const req = createRequire(import.meta.url);
  const tsx = pathToFileURL(req.resolve("tsx")).href;
  return { script: fileURLToPath(new URL("./worker.ts", import.meta.url)), execArgv: ["--import", tsx] };
}
