/**
 * The shapes of proof results as `rulewright prove` writes them (`proofs/<edition>/report.json`)
 * and the proof cache stores them: what the prover (compiler/verify) produces and the report,
 * the language server and the CLI read. Types only, plain JSON.
 */
import type { Obligation } from "./obligations.js";
import type { TableScalar } from "./types.js";

/** A leaf value that matters in an example, for a readable summary. */
export interface Fact {
  /** `state.hands[france]#len` (a list length), `state.spaces[paris].unrest`, `action.target` */
  path: string;
  /** JSON value: boolean, integer, enum member name, or string */
  value: unknown;
}

/** A refuted table obligation's example (compiler/verify/run/tables.ts). */
export interface TableExample {
  /** the offending inputs, one per parameter, in declaration order */
  inputs: Record<string, TableScalar>;
  /** the keys these inputs give (label as written: a parameter or the key expression) */
  keys: { label: string; value: TableScalar }[];
  /** the rows that match (none for a gap; two or more for an overlap), in source order */
  rows: { file: string; line: number }[];
}

export interface Example {
  /** a complete state, valid against the edition's JSON Schema */
  state: Record<string, unknown>;
  /** flat action JSON: `{ "action": name, ...params }` */
  action: Record<string, unknown>;
  /** false when the formula mentions a route (routes are uninterpreted in the prover) */
  replayable: boolean;
  reason?: string;
  /**
   * The facts that matter, for a readable summary: for a counterexample, a minimal set of leaf
   * values that (with the invariants) implies the refutation (`minimal: true`); otherwise the
   * leaves whose value is not the default.
   */
  facts?: Fact[];
  minimal?: boolean;
  /** a concrete witness: the scenario or earlier run it was taken from (README "Concrete witnesses") */
  source?: string;
}

/** What a stuck_power counterexample blocks: per action, the rules that forbid it in the state. */
export interface StuckInfo {
  /** the power that has no move (state.active_power) */
  actor: string;
  /** the declared decline move of the phase (`pass`), or null when declining is implicit */
  decline: string | null;
  /** why declining is not possible: the decline move is forbidden, or these obligations bind */
  obliged: string[];
  blocked: { action: string; rules: string[]; everyChoice: boolean }[];
}

/**
 * A variant's verdict taken over from its parent's proof cache (compiler/verify/cache/reuse.ts,
 * README "Proofs reused from the parent"): from which edition, and why it holds in the variant.
 */
export interface FromParent {
  /** the parent edition (as `prove` names it) */
  edition: string;
  /** the obligation's sliced query is the parent's; or the variant only adds constraints and the parent's query was unsat; or its witness (counterexample) is checked to be a state of the variant */
  why: "same slice" | "unsat under fewer constraints" | "witness still valid";
  /** a sentence more (the added invariants, what was checked) */
  detail?: string;
}

export interface SolvedObligation {
  verdict: "proved" | "refuted" | "unknown";
  /** the verdict is the parent's, taken over from its proof cache (a variant's `prove`) */
  fromParent?: FromParent;
  counterexample?: Example;
  witness?: Example;
  core?: string[];
  reason?: string;
  /** true when the obligation holds only because its subject never applies (see README "Analyses") */
  vacuous?: boolean;
  stuck?: StuckInfo;
  /** refuted table_gap / table_overlap: the offending inputs, their keys and the matching rows (tables.ts) */
  example?: TableExample;
  /**
   * the SMT-LIB text of the query (written as <id>.smt2): always for table obligations, for the
   * others when not proved, or always with `smt2: "all"` (printing a large query costs as much
   * as a concrete witness)
   */
  smt2?: string;
  /** where the time went (run-dependent, like `ms`; absent for cached results) */
  profile?: Profile;
  /**
   * The obligation's resource budget and the units of Z3's resource count its checks used
   * (README "Budgets"): `used` ≥ `budget` with an `unknown` verdict means the budget ran out.
   */
  rlimit?: { budget: number; used: number };
}

/** Wall time (ms) of the steps of one obligation in the solver process (README "Profile"). */
export interface Profile {
  /** building the query: encoding its rules and invariants (the first time in a process; cached after), slicing */
  queryMs: number;
  /** asserting the query in a fresh solver */
  buildMs: number;
  /** printing the canonical SMT-LIB text */
  smt2Ms: number;
  /** trying concrete witness candidates */
  witnessMs: number;
  /** solving: canonical model or minimal core, decoding, facts */
  solveMs: number;
  /** invariants left out by slicing */
  sliced: number;
}

export interface ObligationResult extends Obligation {
  verdict: "proved" | "refuted" | "unknown";
  /** refuted contradiction / obligation_clash / stuck_power: the state (+ action) that refutes it */
  counterexample?: Example;
  /** proved always_forbidden / dead_rule / redundant_rule / swallowing_exemption: the state that shows it */
  witness?: Example;
  /** unsat core (rule, exemption and invariant ids) whenever the check was unsat */
  core?: string[];
  /** refuted table_gap / table_overlap: the offending inputs, their keys and the matching rows */
  example?: TableExample;
  /** why the verdict is unknown (timeout, deadline, solver process crash, unsupported construct, …) or vacuous */
  reason?: string;
  /** proved only because the subject never applies (redundant_rule, swallowing_exemption of a dead rule) */
  vacuous?: boolean;
  /** stuck_power counterexample: the power, and what blocks each of its actions */
  stuck?: StuckInfo;
  /** file name of the SMT-LIB benchmark, relative to outDir (absent for a proved obligation unless `smt2: "all"`) */
  smt2?: string;
  /** the verdict came from the proof cache (not solved in this run) */
  cached?: boolean;
  /** wall time of this obligation (strip for determinism; 0 when cached) */
  ms: number;
  /** where the solver process spent that time (strip for determinism; absent when cached) */
  profile?: Profile;
  /** the resource budget and the count used (SolvedObligation.rlimit) */
  rlimit?: { budget: number; used: number };
  /** the verdict is that of an identical obligation of another edition of the same run (`memo`), not solved again */
  reusedFrom?: string;
  /** the verdict is the parent's, from its proof cache, and why it holds here (a variant's `prove`) */
  fromParent?: FromParent;
}

export interface ProofReport {
  edition: string;
  inputHash: string;
  obligations: ObligationResult[];
  summary: {
    proved: number;
    refuted: number;
    unknown: number;
    /** refuted obligations of severity error / warning / info */
    errors: number;
    warnings: number;
    infos: number;
    /** obligations solved in this run / taken from the proof cache (run-dependent, like `ms`) */
    solved: number;
    cached: number;
    /** obligations whose verdict another edition of the same run found (`memo`) */
    reused: number;
  };
  bounds: { listBound: number; timeoutMs: number; rlimit: number; lists: { path: string; bound: number }[]; note: string };
  /** wall time of the whole run (strip for determinism) */
  ms: number;
}
