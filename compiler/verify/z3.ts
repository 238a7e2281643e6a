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
import { init, type Solver } from "z3-solver";

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
    const { Context } = await init();
    return Context("main");
  } finally {
    globalThis.FinalizationRegistry = Native;
  }
}

let ctxPromise: Promise<Z3Ctx> | undefined;

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
