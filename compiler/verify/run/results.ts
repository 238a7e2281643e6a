/**
 * The prover's own shapes (the results it writes are compiler/ir/proof-report.ts): the limits of
 * one obligation, a tracked query part, which obligations carry SMT-LIB text, and a concrete
 * witness candidate. Types only.
 */
import type { Unit } from "../encode/terms.js";

export type { Example, Fact, ObligationResult, Profile, ProofReport, SolvedObligation, StuckInfo, TableExample } from "../../ir/proof-report.js";

/** The limits of one obligation (README "Budgets"). */
export interface Limits {
  /** units of Z3's deterministic resource count (`rlimit`) all its checks may use together */
  rlimit: number;
  /**
   * safety net against a wedged solver, in ms of the solver process's CPU time, counted from the
   * obligation's start in that process (CPU time: waiting for a busy core is not charged)
   */
  timeoutMs: number;
  /** the run's wall-clock end (performance.now() time of this process; `prove --deadline`), if any */
  deadline?: number;
}

export interface Tracked {
  name: string; // inv:<id> | rule:<id> | exempt:<id>
  unit: Unit;
  negate?: boolean;
}

/** Which obligations carry their SMT-LIB text: every one, or those not proved (findings and unknowns). */
export type Smt2Mode = "all" | "findings";

/**
 * A concrete state offered as a witness (README "Concrete witnesses"): from a scenario or an
 * earlier run's witness, with the generated validator's and the interpreter's agreement already
 * checked by the caller. Only its own formula decides whether it is a witness.
 */
export interface Candidate {
  state: Record<string, unknown>;
  /** flat action JSON; only obligations of this action try it */
  action: Record<string, unknown>;
  /** where it comes from (`test/scenarios/his/pass.yaml:12`, `witness of his.dead_rule.x`) */
  source: string;
}
