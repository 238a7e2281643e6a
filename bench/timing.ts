/**
 * Timing and allocation measurement of one engine on one set of samples.
 *
 * Time: tinybench runs a task whose every iteration is a batch of `batch` consecutive checks
 * (cycling through the whole set, so every state and action is used); the task reports the batch
 * time divided by `batch` as its sample (`overriddenDuration`), so tinybench's median and p99
 * are over per-check means of batches. Batches make sub-microsecond checks measurable with
 * `performance.now()`; a batch of a few dozen checks lasts tens of microseconds.
 *
 * Allocation: JavaScript heap bytes allocated per check over `allocChecks` checks, measured as
 * (used heap after − used heap before) + Σ over the garbage collections in between of (used
 * before − used after), from v8.GCProfiler; the least of three runs (one run can include the
 * runtime's own allocations, e.g. recompiled code). WebAssembly linear memory (Cedar's) is not on
 * the JavaScript heap and is not counted.
 */
import v8 from "node:v8";
import { Bench } from "tinybench";

export interface Timing {
  /** checks per second (1e9 / mean ns) */
  opsPerSec: number;
  medianNs: number;
  p99Ns: number;
  meanNs: number;
  /** tinybench samples (batches) */
  samples: number;
  batch: number;
  /** JS heap bytes allocated per check (null when not measured) */
  bytesPerCheck: number | null;
}

export interface TimingOptions {
  /** checks per timed batch */
  batch: number;
  /** tinybench run time per task (ms) */
  timeMs: number;
  /** tinybench warm-up time (ms) */
  warmupMs: number;
  /** checks in the allocation measurement */
  allocChecks: number;
}

let sink = 0;
/** Keeps results alive so the optimizer cannot drop a check. */
export function consume(v: { allowed: boolean }): void {
  sink ^= v.allowed ? 1 : 2;
}
export function sinkValue(): number {
  return sink;
}

/** Times `run(item)` over `items` (synchronous or asynchronous). */
export async function measure<T>(name: string, items: readonly T[], run: (item: T) => { allowed: boolean } | Promise<{ allowed: boolean }>, isAsync: boolean, o: TimingOptions): Promise<Timing> {
  const bench = new Bench({ name, time: o.timeMs, warmupTime: o.warmupMs, warmup: true, retainSamples: false, throws: true });
  let i = 0;
  const n = items.length;
  if (isAsync) {
    bench.add(name, async () => {
      const t0 = performance.now();
      for (let b = 0; b < o.batch; b++) {
        consume(await run(items[i]!));
        i = i + 1 === n ? 0 : i + 1;
      }
      const dt = performance.now() - t0;
      return { overriddenDuration: dt / o.batch, overriddenIterationCost: dt };
    });
  } else {
    const f = run as (item: T) => { allowed: boolean };
    bench.add(name, () => {
      const t0 = performance.now();
      for (let b = 0; b < o.batch; b++) {
        consume(f(items[i]!));
        i = i + 1 === n ? 0 : i + 1;
      }
      const dt = performance.now() - t0;
      return { overriddenDuration: dt / o.batch, overriddenIterationCost: dt };
    });
  }
  await bench.run();
  const task = bench.tasks[0]!;
  const r = task.result as unknown as { state?: string; error?: unknown; latency?: { p50: number; p99: number; mean: number; samplesCount: number } };
  if (!r.latency) throw new Error(`${name}: no result (${String(r.error ?? r.state)})`);
  const ms = r.latency;
  // the least of three runs: a run can catch the runtime's own allocations (recompilation, …)
  let bytes: number | null = null;
  for (let k = 0; k < 3; k++) {
    const b = await allocation(items, run, isAsync, o.allocChecks);
    if (b !== null) bytes = bytes === null ? b : Math.min(bytes, b);
  }
  return {
    opsPerSec: 1000 / ms.mean,
    medianNs: ms.p50 * 1e6,
    p99Ns: ms.p99 * 1e6,
    meanNs: ms.mean * 1e6,
    samples: ms.samplesCount,
    batch: o.batch,
    bytesPerCheck: bytes,
  };
}

/** JS heap bytes allocated per check, or null when v8.GCProfiler is unavailable. */
async function allocation<T>(items: readonly T[], run: (item: T) => { allowed: boolean } | Promise<{ allowed: boolean }>, isAsync: boolean, count: number): Promise<number | null> {
  const Profiler = (v8 as unknown as { GCProfiler?: new () => { start(): void; stop(): { statistics: { beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } }[] } } }).GCProfiler;
  if (!Profiler) return null;
  const gc = (globalThis as { gc?: () => void }).gc;
  // warm: the code paths are compiled before counting
  for (let k = 0; k < Math.min(count, 200); k++) consume(isAsync ? await run(items[k % items.length]!) : (run(items[k % items.length]!) as { allowed: boolean }));
  gc?.();
  const p = new Profiler();
  p.start();
  const before = v8.getHeapStatistics().used_heap_size;
  if (isAsync) for (let k = 0; k < count; k++) consume(await run(items[k % items.length]!));
  else {
    const f = run as (item: T) => { allowed: boolean };
    for (let k = 0; k < count; k++) consume(f(items[k % items.length]!));
  }
  const after = v8.getHeapStatistics().used_heap_size;
  const stats = p.stop().statistics;
  let freed = 0;
  for (const s of stats) freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
  return Math.max(0, (after - before + freed) / count);
}
