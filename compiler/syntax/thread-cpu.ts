/**
 * CPU time of the calling thread alone (issue 29: `process.cpuUsage()` counts every thread of the
 * process — garbage-collector helpers, the solver's threads — so a measurement of one input's
 * work was inflated by whatever else ran). Used to measure the work of one parse or one fuzz input.
 */
import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/**
 * The CPU time (user + system) the calling thread has used, in microseconds: Node's
 * `process.threadCpuUsage()` where it exists (Node 23.9+), else Linux's `/proc/thread-self/stat`
 * (10 ms resolution). `undefined` where neither exists (then measure otherwise). Never throws.
 */
export function threadCpuMicros(): number | undefined {
  const own = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  if (typeof own === "function") {
    const u = own.call(process);
    return u.user + u.system;
  }
  try {
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    // fields after the command name (which may hold spaces, inside parentheses): utime is the 14th field, stime the 15th
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(rest[11]) + Number(rest[12]);
    return Number.isFinite(ticks) ? (ticks * 1e6) / USER_HZ : undefined;
  } catch {
    return undefined;
  }
}
