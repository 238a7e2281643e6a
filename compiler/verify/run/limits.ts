/**
 * The default limits of one proof obligation (README "Budgets"), in a file of their own so that
 * the proof cache and the language server read them without loading Z3.
 */

/**
 * The resource budget of one obligation, in units of Z3's deterministic resource count
 * (`rlimit`), shared by all its checks: about 4× the largest count a bundled obligation uses
 * (13.8 M, his_500.redundant_rule.dow.alliance_this_phase, measured over his, his-500 and vq;
 * compiler/verify/README.md "Budgets"). Running out of it is `unknown`, the
 * same on every machine and under any load.
 */
export const DEFAULT_RLIMIT = 60_000_000;

/**
 * The wall-clock safety net of one obligation (ms), counted from its start in a solver process:
 * 10 minutes, far above what the budget takes on a loaded machine; only a wedged solver hits it.
 */
export const DEFAULT_TIMEOUT_MS = 600_000;

/** What the parent adds to the timeout before it kills a solver process that does not answer (ms). */
export const KILL_GRACE_MS = 30_000;
