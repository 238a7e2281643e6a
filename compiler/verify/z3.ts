/**
 * The process-wide Z3 context.
 *
 * INVARIANT: z3-solver 5.2.0 allows ONE `init()` and ONE Context per process; both are memoized
 * here and every verify module goes through `getZ3()`. Checks never run in parallel: `runExclusive`
 * serializes them (a second `proveEdition` in the same process waits for the first).
 */
import { init } from "z3-solver";

export type Z3Ctx = Awaited<ReturnType<typeof makeContext>>;

async function makeContext() {
  const { Context } = await init();
  return Context("main");
}

let ctxPromise: Promise<Z3Ctx> | undefined;

/** The memoized Z3 context (initialized on first use). */
export function getZ3(): Promise<Z3Ctx> {
  ctxPromise ??= makeContext();
  return ctxPromise;
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `fn` after every previously queued job finished (Z3 checks must not overlap). */
export function runExclusive<T>(fn: () => Promise<T>): Promise<T> {
  const next = queue.then(fn, fn);
  queue = next.catch(() => undefined);
  return next;
}
