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
 * The safety net of one obligation (ms of its solver process's CPU time, counted from its start
 * there): 10 minutes, far above what the budget takes (the largest bundled obligation: about
 * 20 s). CPU time, not wall time: a process waiting for a busy core is not charged, so no load
 * brings an obligation nearer to it; only a wedged solver hits it.
 */
export const DEFAULT_TIMEOUT_MS = 600_000;

/**
 * What the parent adds to the timeout before it kills a solver process that does not answer
 * (ms): of the CPU time the process reports for the obligation, or of wall time during which a
 * process reports nothing at all (runner.ts `runPool`).
 */
export const KILL_GRACE_MS = 30_000;

