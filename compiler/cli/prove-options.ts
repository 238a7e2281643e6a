/**
 * The values of `prove`'s options that take a quantity: `--deadline` (a duration), `--rlimit`
 * (a count of Z3's resource units), `--shard` (`i/n`). Each parser throws a `UsageError` (exit 2)
 * with a hint on a malformed value.
 */
import { MAX_TIMER_MS, UsageError } from "./common.js";

/** `--deadline` values: `90s`, `2m`, `1500ms`, or a number of milliseconds. */
export function parseDuration(s: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(s.trim());
  if (!m || Number(m[1]) <= 0) throw new UsageError(`${flag} takes a duration like \`90s\`, \`2m\` or \`1500ms\` (milliseconds when no unit), not \`${s}\``, 2);
  const n = Number(m[1]);
  const ms = Math.round(m[2] === "s" ? n * 1000 : m[2] === "m" ? n * 60_000 : n);
  if (ms > MAX_TIMER_MS) throw new UsageError(`${flag} ${s} is beyond the longest timer (${MAX_TIMER_MS} ms, about 24.8 days)`, 2, `give at most ${MAX_TIMER_MS} ms (e.g. \`40m\`)`);
  if (ms < 1) throw new UsageError(`${flag} takes at least 1 ms, not \`${s}\``, 2);
  return ms;
}

/**
 * `--rlimit` values: a positive whole number of units of Z3's resource count, with an optional
 * `k`/`M`/`G` suffix (×10³, ×10⁶, ×10⁹). @throws UsageError (exit 2)
 */
export function parseRlimit(s: string, flag = "--rlimit"): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kMG])?$/.exec(s.trim());
  const n = m ? Math.round(Number(m[1]) * (m[2] === "k" ? 1e3 : m[2] === "M" ? 1e6 : m[2] === "G" ? 1e9 : 1)) : NaN;
  if (!m || !Number.isSafeInteger(n) || n < 1 || n > 1e15) throw new UsageError(`${flag} takes a positive number of resource units (e.g. 120M, 2000000), not \`${s}\``, 2, `e.g. \`${flag} 120M\` to double the default budget`);
  return n;
}

/** `i/n` → { index: i, count: n } (1 ≤ i ≤ n). @throws UsageError */
export function parseShard(s: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(s.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count || count > 1000) throw new UsageError(`--shard takes i/n with 1 ≤ i ≤ n (e.g. 2/3), not \`${s}\``, 2);
  return { index, count };
}
