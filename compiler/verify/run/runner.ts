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
import type { IREdition } from "../../ir/types.js";
import type { Obligation } from "../../ir/obligations.js";
import { proverFor } from "./solve.js";
import type { Candidate, Smt2Mode, SolvedObligation } from "./results.js";
import type { SolveAnswer, SolveTask, WorkerMessage } from "./worker.js";
import { getZ3, runExclusive } from "./z3.js";

export interface RunOptions {
  /** CPU-time safety net of one obligation (ms, from its start in a solver process) */
  timeoutMs: number;
  /** resource budget of one obligation (units of Z3's rlimit count; README "Budgets") */
  rlimit: number;
  listBound: number;
  /** absolute time (performance.now()) past which nothing more is solved */
  deadline?: number;
  /** isolated mode: kill the solver process when one obligation takes longer than this (ms, from its start in the process) */
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
  /**
   * Called with a `refuted` verdict as soon as its model is found, before the counterexample is
   * made canonical and its facts minimal (the same solve then goes on: `onResult` gets the
   * polished result). Asking for it costs nothing when it is absent.
   */
  onEarlyVerdict?: (id: string, r: SolvedObligation) => void;
  /**
   * Whether the default state is known to satisfy the invariants (asked as each obligation
   * starts: true spares every solver process that check, solve.ts `knowDefaultsSatisfyInvariants`)
   */
  defaultsOk?: () => boolean | undefined;
  /** called with a solver process's decision of the same, as its obligations answer */
  onDefaultsOk?: (ok: boolean) => void;
}

const unknown = (reason: string, ob: Obligation): SolvedObligation => ({ verdict: "unknown", reason, smt2: `; ${ob.id}: not solved (${reason})\n` });

/** Solves in this process (one Z3 context per process; runs are serialized). */
export async function runInProcess(ir: IREdition, obs: Obligation[], o: RunOptions): Promise<void> {
  const ctx = await getZ3();
  const prover = proverFor(ctx, ir, o.listBound, o.slicing ?? true);
  if (o.defaultsOk?.()) prover.knowDefaultsSatisfyInvariants();
  await runExclusive(async () => {
    for (const ob of obs) {
      const left = o.deadline === undefined ? Infinity : o.deadline - performance.now();
      if (left <= 0) {
        o.onResult(ob.id, unknown("deadline reached before this obligation was solved", ob), 0);
        continue;
      }
      o.onStart?.(ob.id);
      const t0 = performance.now();
      const early = o.onEarlyVerdict ? (r: SolvedObligation) => o.onEarlyVerdict!(ob.id, r) : undefined;
      const r = await prover.solve(ob, { rlimit: o.rlimit, timeoutMs: o.timeoutMs, deadline: o.deadline }, o.candidates?.(ob) ?? [], o.smt2, early);
      if (prover.defaultsKnown !== undefined) o.onDefaultsOk?.(prover.defaultsKnown);
      o.onResult(ob.id, r, Math.round(performance.now() - t0));
    }
  });
}

/**
 * Solves in a pool of solver processes (tinypool, runtime `child_process`, `workers` of them:
 * default one per core, at most 4). Each obligation is one task, but those with witness candidates,
 * which go in batches per action (`SolveTask.batch`). A watchdog per obligation starts when its
 * solver process starts it (the time a task waits for a free process or for the process to load
 * Z3 is never counted): the process reports the obligation's CPU time about every second
 * (worker.ts "tick"), and is killed when that passes `killAfterMs` (CPU time, like the budget's
 * safety net: a loaded machine does not bring it nearer) or when it reports nothing for
 * `killAfterMs` of wall time (its event loop is stuck; time this process's own event loop was
 * blocked is not counted). A timer for the whole-run deadline aborts what is left.
 * An aborted task kills its process (tinypool starts a fresh one); a process that exits or
 * crashes fails its task. Either way the obligation is `unknown` with the reason, and the run
 * goes on. A pool from which nothing is heard (no start, tick or answer of any run sharing it) for
 * `killAfterMs` + 60 s (a solver process that cannot start) ends the run: every obligation left
 * is `unknown` ("could not run"). Waiting for a free process is never a stall.
 */
export async function runPool(ir: IREdition, obs: Obligation[], o: RunOptions, shared?: SolverPool): Promise<void> {
  if (!obs.length) return;
  const owned = shared ? undefined : new SolverPool(Math.min(o.workers ?? defaultWorkers(), obs.length));
  const solvers = shared ?? owned!;
  // one file per IR and pool: the batches of one run (and its retry round) find the encodings a
  // solver process made for the earlier ones
  const irFile = solvers.irFile(ir);
  const all = new AbortController();
  setMaxListeners(0, all.signal);
  let settledAny = false;
  const watch = new RunWatch(solvers, o.killAfterMs + 60_000, () => all.abort());
  const deadlineTimer = o.deadline === undefined ? undefined : setTimeout(() => all.abort(), Math.max(0, o.deadline - performance.now()));
  /**
   * One task: an obligation solved alone, or (`batch`) obligations of one action answered by
   * their witnesses in one solver process without a round trip each. A batch whose process
   * crashes or is killed falls back to solving each alone; an obligation whose witnesses fail is
   * then solved alone with no candidates.
   */
  const attempt = async (items: Obligation[], batch: boolean, candidatesOf: (ob: Obligation) => Candidate[]): Promise<void> => {
    const ob = items[0]!;
    const mine = new AbortController();
    const onAll = () => mine.abort();
    all.signal.addEventListener("abort", onAll);
    let killed: string | undefined;
    let started = false;
    /** the obligation of this task running now in its process: since when (pool clock), and when last heard of */
    let running: { id: string; heard: number } | undefined;
    const kill = (why: string) => {
      if (killed) return;
      killed = why;
      watch.watching.delete(check);
      mine.abort();
    };
    // looked at every second by the pool's timer (`watching`): a process silent for the limit
    // (its event loop stuck: no tick) is killed; pool-clock time, so this process's own
    // blocked stretches do not count
    const check = () => {
      if (running && watch.clock() - running.heard > o.killAfterMs) kill(`no answer and no sign of life for ${o.killAfterMs} ms: the solver process was killed`);
    };
    const listeners: ((m: unknown) => void)[] = [];
    const channel = {
      onMessage: (l: (m: unknown) => void) => void listeners.push(l),
      postMessage: (m: unknown) => {
        const msg = m as WorkerMessage;
        solvers.heard();
        if (!msg || !items.some((x) => x.id === msg.id)) return;
        watch.active();
        if (msg.type === "verdict") return o.onEarlyVerdict?.(msg.id, msg.result);
        if (msg.type === "tick") {
          if (running?.id === msg.id) running.heard = watch.clock();
          // the obligation's CPU time in its process: what the budget's safety net counts too
          if (msg.cpuMs > o.killAfterMs) kill(`no answer after ${o.killAfterMs} ms of solver CPU time: the solver process was killed`);
          return;
        }
        if (msg.type !== "start") return;
        started = true;
        o.onStart?.(msg.id);
        // one allowance per obligation (each one of a batch), from its own start
        running = { id: msg.id, heard: watch.clock() };
        watch.watching.add(check);
      },
    };
    const base = { irFile, timeoutMs: o.timeoutMs, rlimit: o.rlimit, listBound: o.listBound, slicing: o.slicing ?? true, smt2: o.smt2 ?? "findings", defaultsOk: o.defaultsOk?.(), ...(o.onEarlyVerdict ? { early: true } : {}) } as const;
    let answer: SolveAnswer;
    try {
      const task: SolveTask = batch ? { ...base, obligation: ob, candidates: [], batch: items.map((x) => ({ obligation: x, candidates: candidatesOf(x) })) } : { ...base, obligation: ob, candidates: candidatesOf(ob) };
      answer = await solvers.run(task, { signal: mine.signal, channel });
      settledAny = true;
      watch.active();
    } catch (e) {
      watch.active();
      if (batch && !all.signal.aborted) {
        // a crash or a kill of the batch: each obligation alone, where it is its own
        watch.watching.delete(check);
        all.signal.removeEventListener("abort", onAll);
        await Promise.all(items.map((x) => attempt([x], false, candidatesOf)));
        return;
      }
      const why =
        killed ??
        (watch.stalled
          ? `the solver process could not run: nothing heard from the solver processes for ${watch.stallMs} ms${settledAny ? "" : " since the start"}`
          : all.signal.aborted
            ? started
              ? "deadline reached: the solver process was killed"
              : "deadline reached before this obligation was solved"
            : `the solver process exited: ${e instanceof Error ? e.message : String(e)}`);
      for (const x of items) o.onResult(x.id, unknown(why, x), 0);
      return;
    } finally {
      watch.watching.delete(check);
      all.signal.removeEventListener("abort", onAll);
    }
    if (answer.defaultsOk !== undefined) o.onDefaultsOk?.(answer.defaultsOk);
    if (!batch) return o.onResult(ob.id, answer.result, answer.ms);
    const alone: Obligation[] = [];
    items.forEach((x, i) => {
      const a = answer.batch?.[i];
      if (a) o.onResult(x.id, a.result, a.ms);
      else alone.push(x);
    });
    await Promise.all(alone.map((x) => attempt([x], false, () => [])));
  };
  // the obligations with witnesses to try, by action, in batches; the others alone (in order)
  const candidatesOf = (ob: Obligation) => o.candidates?.(ob) ?? [];
  const tasks: { items: Obligation[]; batch: boolean }[] = [];
  const open = new Map<string, { items: Obligation[]; batch: boolean }>();
  for (const ob of obs) {
    if (!candidatesOf(ob).length) {
      tasks.push({ items: [ob], batch: false });
      continue;
    }
    let t = open.get(ob.action);
    if (!t || t.items.length >= MAX_BATCH) {
      open.set(ob.action, (t = { items: [], batch: true }));
      tasks.push(t);
    }
    t.items.push(ob);
  }
  try {
    await Promise.all(tasks.map((t) => attempt(t.items, t.batch, candidatesOf)));
  } finally {
    watch.stop();
    clearTimeout(deadlineTimer);
    solvers.doneWith(ir);
    await owned?.close();
  }
}

/**
 * The clocks of one `runPool`, looked at every second: the watchdogs of the obligations running
 * now (`watching`), and the stall of the whole pool (nothing heard from any of its processes for
 * `stallMs`: `onStall`, `stalled`). `clock()` is wall time less the time this process's own event
 * loop was blocked (its timers late: the solver processes' messages waited behind them), so a
 * busy parent never makes a solver process look silent.
 */
class RunWatch {
  stalled = false;
  /** the watchdogs of the obligations running now */
  readonly watching = new Set<() => void>();
  private lastActivity = performance.now();
  private lastTick = performance.now();
  private blocked = 0;
  private readonly timer: NodeJS.Timeout;
  constructor(
    private readonly solvers: SolverPool,
    readonly stallMs: number,
    onStall: () => void,
  ) {
    this.timer = setInterval(() => {
      const now = performance.now();
      if (now - this.lastTick > 2000) {
        this.lastActivity += now - this.lastTick - 1000;
        this.blocked += now - this.lastTick - 1000;
      }
      this.lastTick = now;
      // a pool shared with other runs is alive while any of its processes is heard from (this
      // run's tasks may wait for a free process meanwhile: that is never a stall)
      this.lastActivity = Math.max(this.lastActivity, this.solvers.lastHeard);
      for (const w of [...this.watching]) w();
      if (now - this.lastActivity > this.stallMs && !this.stalled) {
        this.stalled = true;
        onStall();
      }
    }, 1000);
  }
  /** wall time (ms) less the time this process was blocked */
  clock(): number {
    return performance.now() - this.blocked;
  }
  /** something of this run was heard from */
  active(): void {
    this.lastActivity = performance.now();
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * Has the idle solver processes of `shared` encode the queries of `obs` (Prover.prepare) while
 * the caller still prepares their tasks: one task per obligation while a process is free now (no
 * task waits for one), answered with no verdict; a failure is ignored (the obligation's own task
 * reports it). A prepare task is never aborted (tinypool would kill its process): it ends by itself.
 */
export function preparePool(ir: IREdition, obs: Obligation[], o: RunOptions, shared: SolverPool): void {
  for (const ob of obs) {
    const task: SolveTask = { irFile: shared.irFile(ir), obligation: ob, timeoutMs: o.timeoutMs, rlimit: o.rlimit, listBound: o.listBound, slicing: o.slicing ?? true, candidates: [], smt2: "findings", defaultsOk: o.defaultsOk?.(), prepare: true };
    const started = shared.tryRun(task, () => shared.doneWith(ir));
    if (!started) {
      shared.doneWith(ir);
      break;
    }
    started.then(
      (answer: SolveAnswer) => {
        if (answer.defaultsOk !== undefined) o.onDefaultsOk?.(answer.defaultsOk);
      },
      () => undefined,
    );
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
    // one process at first; tinypool starts the others when tasks wait (runs that want one
    // process keep one task in flight: `start`, `run`)
    // idleTimeout: a process tinypool started beyond minThreads stays (its Z3 context and
    // encodings with it) while our own queue holds the tasks; the longest timer, unref'd
    this.tiny = new Tinypool({ runtime: "child_process", filename: script, execArgv, minThreads: Math.min(n, this.booted), maxThreads: n, idleTimeout: 2 ** 31 - 1, serialization: "advanced", env: process.env as Record<string, string> });
    // a solver process that dies while it holds no obligation (killed from outside, out of
    // memory while idle) is an 'error' event of the pool: tinypool starts another; without a
    // listener the event would end the whole run
    this.tiny.on("error", (e: unknown) => {
      this.errors.push(e instanceof Error ? e.message : String(e));
    });
    return this.tiny;
  }
  /** processes started with the pool (then more on demand, up to `workers`) */
  private booted = Infinity;
  /** tasks in flight at most (`start`); 0 until a run asks */
  private limit = 0;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  /** the solver processes a run may keep busy at once (`start`) */
  get size(): number {
    return Math.min(this.workers, this.limit || this.workers);
  }
  /**
   * Starts one solver process now, before the runs know what they will solve (it loads Z3
   * while the caller compiles the editions); `start` decides how many work.
   */
  boot(): void {
    if (this.tiny) return;
    this.booted = 1;
    void this.pool;
  }
  /**
   * Starts the solver processes now (they load Z3 while the caller prepares the first tasks):
   * `wanted` of them busy at once, at most `workers` (all of them when not given). Each process
   * encodes the state and invariants of every edition it proves (about a second for Here I
   * Stand): for a few cheap obligations (a re-proof after an edit, the witnesses of one action)
   * one process is faster than two. Runs sharing the pool get the largest number a run still
   * going asked for. Returns the function that ends this run's claim.
   */
  start(wanted?: number): () => void {
    const lease = Symbol("run");
    this.leases.set(lease, Math.max(1, Math.floor(wanted ?? Infinity)));
    this.limit = Math.max(...this.leases.values());
    if (!this.tiny) this.booted = this.limit;
    void this.pool;
    this.release();
    return () => {
      this.leases.delete(lease);
      this.limit = this.leases.size ? Math.max(...this.leases.values()) : 0;
      this.release();
    };
  }
  private readonly leases = new Map<symbol, number>();
  /**
   * Runs `task` now if fewer than `size` tasks are in flight (no signal: it is never aborted),
   * calling `done` when it ends; undefined (and `done` not called) when no process is free.
   */
  tryRun(task: SolveTask, done: () => void): Promise<SolveAnswer> | undefined {
    if (this.inFlight >= this.size || this.waiting.length) return undefined;
    this.inFlight++;
    return (this.pool.run(task) as Promise<SolveAnswer>).finally(() => {
      this.heard();
      this.inFlight--;
      done();
      this.release();
    });
  }
  /**
   * `pool.run` with at most `size` tasks in flight (the others wait here, in order, and are
   * dropped when their signal aborts: the same AbortError tinypool gives).
   */
  async run(task: SolveTask, opts: { signal: AbortSignal; channel?: unknown }): Promise<SolveAnswer> {
    if (this.inFlight < this.size) this.inFlight++;
    else {
      // `release` counts the task in flight before it lets it go
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          opts.signal.removeEventListener("abort", stop);
          resolve();
        };
        const stop = () => {
          const i = this.waiting.indexOf(go);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new DOMException("The task was aborted", "AbortError"));
        };
        if (opts.signal.aborted) return stop();
        opts.signal.addEventListener("abort", stop, { once: true });
        this.waiting.push(go);
      });
    }
    try {
      return (await this.pool.run(task, opts as never)) as SolveAnswer;
    } finally {
      this.heard();
      this.inFlight--;
      this.release();
    }
  }
  private release(): void {
    while (this.waiting.length && this.inFlight < this.size) {
      this.inFlight++;
      this.waiting.shift()!();
    }
  }
  private dir: string | undefined;
  private readonly irFiles = new Map<IREdition, string>();
  private irCount = 0;
  /**
   * The JSON file the solver processes read `ir` from (worker.ts), written on first use under a
   * temporary folder of this pool that `close()` removes. One per IR object, so that the batches
   * of a run find the prover (and encodings) a solver process made for the earlier ones; the
   * files of the IRs used last are kept, as many as a solver process keeps (`prove --watch`
   * proves new IRs on every save), and never one in use (each call is one use, `doneWith` ends it).
   */
  irFile(ir: IREdition): string {
    let file = this.irFiles.get(ir);
    if (file) {
      this.irFiles.delete(ir);
    } else {
      this.dir ??= fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-prove-"));
      file = path.join(this.dir, `ir-${++this.irCount}.json`);
      fs.writeFileSync(file, JSON.stringify(ir));
    }
    this.irFiles.set(ir, file);
    this.uses.set(ir, (this.uses.get(ir) ?? 0) + 1);
    this.evict();
    return file;
  }
  /**
   * Makes `file` (the JSON of `ir`, written by the caller: the language server writes it in steps,
   * compiler/lsp/ir-file.ts) the file the solver processes read `ir` from, as if `irFile(ir)` had
   * written it; the pool owns it from then on (removes it as its own). False, the file left
   * alone, when `ir` has a file already.
   */
  adoptIrFile(ir: IREdition, file: string): boolean {
    if (this.irFiles.has(ir)) return false;
    this.irFiles.set(ir, file);
    this.evict();
    return true;
  }
  /**
   * Stops the pool's processes (SIGSTOP) until the returned function is called (SIGCONT): a caller
   * with a short stretch of urgent work for this machine's cores (the language server's check
   * after a keystroke, compiler/lsp/diagnostics-schedule.ts) has them first. Verdicts do not
   * change (the budget counts solver steps, the safety net CPU time; the silence a watchdog waits
   * for is far longer than such a stretch). Call the returned function in a `finally` of the same
   * synchronous stretch. Nothing is stopped where signals cannot stop a process (Windows).
   */
  pause(): () => void {
    const stopped: number[] = [];
    for (const w of this.tiny?.threads ?? []) {
      try {
        process.kill(w.threadId, "SIGSTOP");
        stopped.push(w.threadId);
      } catch {
        // gone, or no such signal here
      }
    }
    return () => {
      for (const pid of stopped.splice(0)) {
        try {
          process.kill(pid, "SIGCONT");
        } catch {
          // gone meanwhile
        }
      }
    };
  }
  /** Ends one use of `irFile(ir)` (a file in use is never removed). */
  doneWith(ir: IREdition): void {
    const n = (this.uses.get(ir) ?? 1) - 1;
    if (n > 0) this.uses.set(ir, n);
    else this.uses.delete(ir);
    this.evict();
  }
  private readonly uses = new Map<IREdition, number>();
  private evict(): void {
    for (const [old, f] of this.irFiles) {
      if (this.irFiles.size <= MAX_IR_FILES) break;
      if (this.uses.has(old)) continue;
      this.irFiles.delete(old);
      fs.rmSync(f, { force: true });
    }
  }
  /** when (performance.now()) a solver process of this pool was last heard from: a message or an answer of any run */
  lastHeard = performance.now();
  /** Notes a message or an answer from one of the pool's processes (runPool's stall detection). */
  heard(): void {
    this.lastHeard = performance.now();
  }
  /** what went wrong with solver processes that held no obligation (for debugging) */
  readonly errors: string[] = [];
  async close(): Promise<void> {
    await this.tiny?.destroy().catch(() => undefined);
    // (adopted files may lie outside the pool's folder)
    for (const f of this.irFiles.values()) fs.rmSync(f, { force: true });
    this.irFiles.clear();
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}

/** Obligations in one batch task at most (runPool) */
const MAX_BATCH = 32;

/** IR files a pool keeps (worker.ts keeps the provers of as many) */
const MAX_IR_FILES = 8;

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
