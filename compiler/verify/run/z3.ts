/**
 * The process-wide Z3 context.
 *
 * INVARIANT: z3-solver 5.2.0 allows ONE `init()` and ONE Context per process; both are memoized
 * here and every verify module goes through `getZ3()`. Checks never run in parallel: `runExclusive`
 * serializes whole proof runs, and every `solver.check()` goes through `duringCheck`.
 *
 * INVARIANT: no Z3 object is freed while a check runs. z3-solver frees ASTs/models from a
 * FinalizationRegistry callback on the main thread; a check runs on a worker thread, so a
 * `dec_ref` during a check races with the solver and corrupts the wasm heap (seen as "memory
 * access out of bounds" / "function signature mismatch" in smt::context). The registry z3-solver
 * creates in `init()` is therefore a deferring one: cleanups that arrive during a check are queued
 * and run when the check has finished.
 */
import { init, type Bool, type Solver } from "z3-solver";

export type Z3Ctx = Awaited<ReturnType<typeof makeContext>>;

let checking = 0;
const pending: (() => void)[] = [];

/**
 * Runs the frees deferred during checks. A long check can defer millions of them: they are taken
 * as a batch (`splice`), since `shift()` one at a time copies the rest of the queue each time and
 * made the queue quadratic (minutes of a busy main thread after one long check). A free never
 * starts a check, so `checking` cannot change while this runs.
 */
function flushPending(): void {
  if (checking > 0) return;
  while (pending.length)
    for (const cleanup of pending.splice(0, pending.length)) {
      try {
        cleanup();
      } catch {
        // a failed free leaks that one object; the others in the batch still run
      }
    }
}

async function makeContext() {
  const Native = globalThis.FinalizationRegistry;
  class DeferringRegistry<T> extends Native<T> {
    constructor(cleanup: (held: T) => void) {
      super((held: T) => {
        if (checking > 0) pending.push(() => cleanup(held));
        else cleanup(held);
      });
    }
  }
  globalThis.FinalizationRegistry = DeferringRegistry as typeof FinalizationRegistry;
  try {
    const api = await init();
    // a ceiling on Z3's own memory (MB): an allocation past it fails the check (`unknown`) instead
    // of growing the solver process without bound (README "Budgets")
    api.setParam("memory_max_size", String(memoryLimitMb()));
    allocated = () => Number(api.Z3.get_estimated_alloc_size()) / 2 ** 20;
    return api.Context("main");
  } finally {
    globalThis.FinalizationRegistry = Native;
  }
}

let ctxPromise: Promise<Z3Ctx> | undefined;

/** Z3's memory in use now, in MB (0 before the context exists) */
let allocated: () => number = () => 0;

/**
 * Whether Z3's memory is at its ceiling (`memoryLimitMb`): its allocations then fail, and a check
 * answers `unknown` or a Z3 call throws. Callers turn that into the reason "memory limit reached".
 */
export function atMemoryLimit(): boolean {
  return allocated() >= memoryLimitMb() * 0.9;
}

/** The memoized Z3 context (initialized on first use). */
export function getZ3(): Promise<Z3Ctx> {
  ctxPromise ??= makeContext();
  return ctxPromise;
}

/** Runs one asynchronous Z3 call (a check) with Z3 frees deferred until it settles. */
export async function duringCheck<T>(fn: () => Promise<T>): Promise<T> {
  checking++;
  try {
    return await fn();
  } finally {
    checking--;
    flushPending();
  }
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `fn` after every previously queued job finished (Z3 checks must not overlap). */
export function runExclusive<T>(fn: () => Promise<T>): Promise<T> {
  const next = queue.then(fn, fn);
  queue = next.catch(() => undefined);
  return next;
}

/**
 * Why `solver` answered unknown, for a report: "timeout (canceled)" or "timeout (timeout)" when its
 * time ran out or it was interrupted, else Z3's own reason ("unknown" when Z3 gives none or the
 * call fails).
 */
export function reasonUnknown(solver: Solver<"main">): string {
  try {
    const r = solver.reasonUnknown();
    return r === "canceled" || r === "timeout" ? `timeout (${r})` : r || "unknown";
  } catch {
    return "unknown";
  }
}

/** The reason of an `unknown` from an exception: Z3's memory ceiling when it is reached (a Z3 call then fails), else `error: <message>`. */
export function errorReason(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return atMemoryLimit() ? `memory limit reached (${memoryLimitMb()} MB of Z3 memory): ${msg}` : `error: ${msg}`;
}

/**
 * Z3's memory ceiling in a process, in MB (`memory_max_size`): `RW_Z3_MEMORY_MB` when set (tests,
 * a machine with less memory), else 1536. The bundled obligations stay far below it.
 */
export function memoryLimitMb(): number {
  const v = Number(process.env.RW_Z3_MEMORY_MB);
  return Number.isInteger(v) && v > 0 ? v : 1536;
}

/** CPU time this process has used so far, all its threads (Z3's checks run on a worker thread), in ms. */
export function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * The resource budget of one obligation (README "Budgets"): `rlimit` units of Z3's deterministic
 * resource count (the `rlimit` solver parameter; the same count on every machine and under any
 * load) shared by all its checks, and a safety net `cpuMs` against a wedged solver, counted in
 * CPU time of this process from the moment the obligation starts (CPU time, not wall time: a
 * process that waits for a busy core is not charged, so the net is as far above what the budget
 * takes on a loaded machine as on a quiet one). `deadline` (performance.now() time, default none)
 * is the user's wall-clock end of a whole run (`prove --deadline`), the only wall clock that can
 * stop a check. `used` sums the count its checks consumed. A check that runs out of the count
 * answers `unknown` and sets `exhausted`; one stopped by the net sets `netOut`, by the deadline
 * `deadlineOut`.
 */
export class Budget {
  used = 0;
  exhausted = false;
  netOut = false;
  deadlineOut = false;
  memoryOut = false;
  private readonly cpu0 = processCpuMs();
  constructor(
    readonly rlimit: number,
    readonly cpuMs: number,
    readonly deadline = Infinity,
  ) {}
  /** units left (0 when spent) */
  get left(): number {
    return Math.max(0, this.rlimit - this.used);
  }
  /** CPU time (ms) left of the safety net (0 or less when spent) */
  cpuLeft(): number {
    return this.cpuMs - (processCpuMs() - this.cpu0);
  }
  /** Whether the budget stopped on something other than its resource count (a net, the deadline, memory): worth one more try in a fresh solver process. */
  get interrupted(): boolean {
    return this.netOut || this.deadlineOut || this.memoryOut;
  }
  /** Why the last `unknown` check stopped, for a report: the budget, the safety net, the deadline, memory, or Z3's reason. */
  reason(solver?: Solver<"main">): string {
    if (this.exhausted) return `resource budget exhausted (rlimit ${this.rlimit}; raise it with --rlimit)`;
    if (this.memoryOut) return `memory limit reached (${memoryLimitMb()} MB of Z3 memory)`;
    if (this.deadlineOut) return "deadline reached: the check was interrupted (--deadline)";
    if (this.netOut) return `timeout (safety net of ${this.cpuMs} ms of solver CPU time; --timeout)`;
    return solver ? reasonUnknown(solver) : "unknown";
  }
  /** `{ budget, used }` for a result (results.ts `SolvedObligation.rlimit`) */
  record(): { budget: number; used: number } {
    return { budget: this.rlimit, used: this.used };
  }
}

/** Z3's resource count so far in this process (the context-wide `rlimit count` statistic). */
function rlimitCount(solver: Solver<"main">): number {
  try {
    return Number(solver.statistics().get("rlimit count"));
  } catch {
    return 0;
  }
}

/** Z3's peak memory in MB (the `max memory` statistic), or 0. */
function maxMemoryMb(solver: Solver<"main">): number {
  try {
    return Number(solver.statistics().get("max memory"));
  } catch {
    return 0;
  }
}

/** How often a running check's safety net and deadline are looked at (ms). */
const WATCH_EVERY_MS = 250;

/**
 * `solver.check(...assumptions)` under a budget: at most `cap` units (and never more than the
 * budget has left) of Z3's resource count; a watchdog interrupts the check when the obligation's
 * CPU-time safety net is spent or the run's deadline has passed (2 s after it: Z3 gets the
 * deadline as its own timeout too). The units the check consumed are added to `budget.used`.
 * With nothing left, answers `unknown` without a check. A cap below the budget bounds a check
 * that only refines an answer (canonical models, minimal facts, concrete witnesses): its
 * `unknown` does not mark the budget exhausted.
 */
export async function budgetedCheck(ctx: Z3Ctx, solver: Solver<"main">, budget: Budget, assumptions: Bool<"main">[] = [], cap = Infinity): Promise<"sat" | "unsat" | "unknown"> {
  const left = budget.left;
  if (left <= 0) {
    budget.exhausted = true;
    return "unknown";
  }
  if (budget.cpuLeft() <= 0) {
    budget.netOut = true;
    return "unknown";
  }
  const wall = budget.deadline - performance.now();
  if (wall <= 0) {
    budget.deadlineOut = true;
    return "unknown";
  }
  const limit = Math.max(1, Math.floor(Math.min(left, cap)));
  solver.set("rlimit", limit);
  // Z3's own timeout is wall-clock time: set only for a run with a deadline (the user's choice)
  if (Number.isFinite(wall)) solver.set("timeout", Math.max(1, Math.floor(wall)));
  const before = rlimitCount(solver);
  let interrupted: "net" | "deadline" | undefined;
  const watch = setInterval(() => {
    if (interrupted) return;
    if (budget.cpuLeft() <= 0) interrupted = "net";
    else if (performance.now() > budget.deadline + 2000) interrupted = "deadline";
    if (interrupted) ctx.interrupt();
  }, WATCH_EVERY_MS);
  const t0 = performance.now();
  let r: "sat" | "unsat" | "unknown";
  try {
    r = await duringCheck(() => solver.check(...assumptions));
  } finally {
    clearInterval(watch);
  }
  let spent = rlimitCount(solver) - before;
  if (spent < 0) spent += 2 ** 32; // a 32-bit statistic that wrapped
  budget.used += spent;
  if (process.env.RW_VERIFY_DEBUG === "2") process.stderr.write(`  check ${r} spent=${spent} limit=${limit === left ? "budget" : limit} ms=${Math.round(performance.now() - t0)}\n`);
  if (r === "unknown") {
    if (spent >= limit) {
      if (limit >= left) budget.exhausted = true;
    } else if (interrupted === "net" || budget.cpuLeft() <= 0) budget.netOut = true;
    else if (interrupted === "deadline" || performance.now() >= budget.deadline) budget.deadlineOut = true;
    else if (atMemoryLimit() || maxMemoryMb(solver) >= memoryLimitMb() * 0.9) budget.memoryOut = true;
  }
  return r;
}
