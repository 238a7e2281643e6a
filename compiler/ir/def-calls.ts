/**
 * Where a `def` was called, kept on the IR for readings (issue 25). The checker inlines a def's
 * body at each call (compiler/check/substitute.ts); the inlined expression is marked with the
 * def's name and the call's arguments, so the report can read `allied(by, m)` as "the acting power
 * is allied with m" instead of spelling out the body.
 *
 * The mark is a non-enumerable property: JSON, spreads, `Object.keys` and every hash of the IR
 * (proof cache keys, codegen's expression keys, fingerprints) never see it, so marking changes no
 * generated file, verdict or cache key. A copy made by spreading drops it; the checker's
 * substitution carries it over (with the arguments substituted too).
 */
import type { Expr } from "./types.js";

/** A def call: the def's name, its parameters' names and the call's arguments (IR, in parameter order). */
export interface DefCall {
  def: string;
  /** the def's parameter names, in order */
  params: string[];
  args: Expr[];
}

const KEY = "__defCall";
const SPANS = "__defSpans";

/**
 * A def call whose body (an `and`/`or`) the checker spread into an enclosing `and`/`or` of the
 * same kind (`a and d(x)` with `d`'s body `b and c` becomes `a and b and c`): the call covers
 * `count` arguments of the enclosing node from `start`.
 */
export interface DefSpan {
  start: number;
  count: number;
  call: DefCall;
}

/** Mark `e` (an inlined def body, freshly built) as the call `def(args)`; returns `e`. */
export function markDefCall<T extends Expr>(e: T, call: DefCall): T {
  Object.defineProperty(e, KEY, { value: call, enumerable: false, configurable: true, writable: false });
  return e;
}

/** The def call `e` is the inlined body of, or undefined. */
export function defCallOf(e: Expr): DefCall | undefined {
  return (e as unknown as Record<string, DefCall | undefined>)[KEY];
}

/** Mark the def calls spread into `e`'s arguments (an `and`/`or`, freshly built); returns `e`. */
export function markDefSpans<T extends Expr>(e: T, spans: DefSpan[]): T {
  if (spans.length) Object.defineProperty(e, SPANS, { value: spans, enumerable: false, configurable: true, writable: false });
  return e;
}

/** The def calls spread into the arguments of an `and`/`or` (none for any other node), by `start`. */
export function defSpansOf(e: Expr): readonly DefSpan[] {
  return (e as unknown as Record<string, DefSpan[] | undefined>)[SPANS] ?? [];
}
