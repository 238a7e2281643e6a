/**
 * Concrete witnesses first (README "Concrete witnesses"): which concrete states to offer an
 * obligation before the solver searches for one.
 *
 * A `JudgedState` is a state and action (from a scenario, or an earlier run's witness) with the
 * verdict the generated validator and the interpreter agreed on: `fired` = the violated rules
 * (forbid rules of the action, oblige rules of other actions of its actor) and the action's own
 * firing oblige rules. The verdict only picks candidates; whether one is a witness is decided by
 * the obligation's own formula with the state's values pinned (solve.ts `tryCandidates`), so a
 * wrong pick costs one pinned check and never a wrong verdict.
 */
import type { Candidate } from "../run/results.js";
import type { Obligation } from "../../ir/obligations.js";

export interface JudgedState extends Candidate {
  /** the validators' verdict on (state, action): allowed, and the rules that fired */
  allowed: boolean;
  fired: string[];
}

/** The kinds a concrete witness can prove (their query's `sat` proves); the others always need the solver. */
export const WITNESS_KINDS: ReadonlySet<Obligation["kind"]> = new Set(["dead_rule", "swallowing_exemption", "redundant_rule", "always_forbidden"]);

/** How many candidates an obligation tries before the solver searches. */
export const MAX_CANDIDATES = 3;

/**
 * The candidates whose validator verdict shows what the obligation asks for, in the given order,
 * at most MAX_CANDIDATES: dead_rule / swallowing_exemption — the rule fires; redundant_rule —
 * the rule fires and none of the rules that could cover it; always_forbidden — the action is
 * allowed. Other kinds (whose `sat` refutes) get none.
 */
export function candidatesFor(ob: Obligation, judged: readonly JudgedState[]): Candidate[] {
  if (!WITNESS_KINDS.has(ob.kind)) return [];
  const mine = judged.filter((j) => j.action.action === ob.action);
  let pick: JudgedState[];
  switch (ob.kind) {
    case "dead_rule":
    case "swallowing_exemption":
      pick = mine.filter((j) => j.fired.includes(ob.rules[0]));
      break;
    case "redundant_rule": {
      const [r, ...cover] = ob.rules;
      pick = mine.filter((j) => j.fired.includes(r) && !cover.some((c) => j.fired.includes(c)));
      break;
    }
    case "always_forbidden":
      pick = mine.filter((j) => j.allowed);
      break;
    default:
      pick = [];
  }
  return pick.slice(0, MAX_CANDIDATES).map(({ state, action, source }) => ({ state, action, source }));
}
