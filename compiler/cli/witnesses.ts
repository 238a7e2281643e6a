/**
 * Concrete witness candidates for `prove` (compiler/verify/README.md "Concrete witnesses"): the
 * states of the scenario files, and the witnesses of an earlier run, each kept only when it is a
 * valid state of the edition (schema and invariants) and the generated validator and the
 * interpreter give it the same verdict. The verdict they agree on (`allowed`, the rules that
 * fired) picks which obligations try the state; the prover then decides on the obligation's own
 * formula.
 *
 * Reads scenario files with compiler/scenarios (a file that does not parse is skipped here:
 * `rulewright test` reports it). Never throws for bad scenario content.
 */
import fs from "node:fs";
import path from "node:path";
import type { IREdition } from "../ir/types.js";
import { createInterpreter, type Interpreter } from "../interpret/index.js";
import { findScenarioFiles, readScenarioFile } from "../scenarios/index.js";
import type { JudgedState } from "../verify/witnesses.js";
import { actionProblems, stateProblems, type ValidatorModule } from "./common.js";

type Json = Record<string, unknown>;

/** Judges one state and action, or undefined when it is not a valid state of the edition or the two evaluators disagree. */
export type Judge = (state: Json, action: Json, source: string) => JudgedState | undefined;

/** The judge of an edition: schema, invariants, then generated validator and interpreter compared. */
export function judgeWith(ir: IREdition, mod: ValidatorModule): Judge {
  let interp: Interpreter | undefined;
  return (state, action, source) => {
    try {
      if (actionProblems(ir, action).length || stateProblems(ir, mod, state).length) return undefined;
      interp ??= createInterpreter(ir);
      const g = mod.check(state, action);
      const i = interp.check(state, action);
      const ids = (v: typeof g | typeof i) => JSON.stringify([v.allowed, v.violations.map((x) => x.rule), [...v.obliged]]);
      if (ids(g) !== ids(i)) return undefined;
      return { state, action, source, allowed: g.allowed, fired: [...g.violations.map((x) => x.rule), ...g.obliged] };
    } catch {
      // a state the validators cannot read (a RangeError of a table, say) is no candidate
      return undefined;
    }
  };
}

/**
 * Every scenario state under `roots` (default test/scenarios, when it exists) that `judge` keeps,
 * in file and line order. Scenarios of any edition are tried: a state of a variant with the
 * same schema is a state of this edition too.
 */
export function scenarioCandidates(judge: Judge, roots = ["test/scenarios"]): JudgedState[] {
  const existing = roots.filter((r) => fs.existsSync(r));
  if (!existing.length) return [];
  const out: JudgedState[] = [];
  for (const file of findScenarioFiles(existing)) {
    const { scenarios } = readScenarioFile(file, (e) => path.join("test", "fixtures", path.basename(e)));
    for (const s of scenarios) {
      if (!s.state || typeof s.state !== "object" || !s.action || typeof s.action !== "object") continue;
      const j = judge(s.state as Json, s.action as Json, `${file}:${s.line}`);
      if (j) out.push(j);
    }
  }
  return out;
}
