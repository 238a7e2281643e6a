/**
 * The integers of the rules language (issue 29, "one arithmetic"). The prover counts with exact
 * integers, the validators and the interpreter with JavaScript numbers; the two agree because
 * every integer the rules compute stays in the safe range, where numbers are exact:
 *
 * - `SAFE_INT_MAX` (2^53 − 1): no literal, table range, schema bound or arithmetic result may
 *   leave −SAFE_INT_MAX..SAFE_INT_MAX (the checker's RW3105 and RW3106, compiler/check/ranges.ts);
 * - an `int` with no declared range on a side (an action parameter, a table parameter without
 *   `in a..b`, a schema integer without `minimum`/`maximum`) holds a 32-bit signed integer on
 *   that side, `UNBOUNDED_INT_MIN..UNBOUNDED_INT_MAX`: the checker's range analysis assumes it,
 *   the prover asserts it as a domain fact (compiler/verify/encode/terms.ts), the CLI checks the
 *   states and actions it reads against it, and an engine must not pass more.
 */
import type { Type } from "./types.js";

/** The largest integer the language computes with: 2^53 − 1 (`Number.MAX_SAFE_INTEGER`). */
export const SAFE_INT_MAX = Number.MAX_SAFE_INTEGER;
/** The least value of an `int` with no declared minimum: −2^31. */
export const UNBOUNDED_INT_MIN = -(2 ** 31);
/** The greatest value of an `int` with no declared maximum: 2^31 − 1. */
export const UNBOUNDED_INT_MAX = 2 ** 31 - 1;

/**
 * The values an `int` type holds: its declared `min`/`max`, the 32-bit bound where a side is
 * undeclared (the safe bound instead when the declared other side lies beyond the 32-bit one, so
 * the range is never empty).
 */
export function intRange(t: Extract<Type, { k: "int" }>): [number, number] {
  const min = t.min ?? (t.max !== undefined && t.max < UNBOUNDED_INT_MIN ? -SAFE_INT_MAX : UNBOUNDED_INT_MIN);
  const max = t.max ?? (t.min !== undefined && t.min > UNBOUNDED_INT_MAX ? SAFE_INT_MAX : UNBOUNDED_INT_MAX);
  return [min, max];
}

/** Whether `v` is an integer the language can write (a safe integer). */
export function isLanguageInt(v: unknown): v is number {
  return Number.isSafeInteger(v);
}
