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
import type { JudgedState } from "../verify/obligations/witnesses.js";
import type { CheckerModule } from "./loader.js";
import { actionProblems, stateProblems, withStateDefaults } from "./validate.js";

type Json = Record<string, unknown>;

/** Judges one state and action, or undefined when it is not a valid state of the edition or the two evaluators disagree. */
export type Judge = (state: Json, action: Json, source: string) => JudgedState | undefined;

/** The judge of an edition: schema, invariants, then generated validator and interpreter compared. */
export function judgeWith(ir: IREdition, mod: CheckerModule): Judge {
  const { judge, interpreter } = interpreterJudge(ir);
  const agrees = agreement(mod, interpreter);
  return (state, action, source) => {
    const j = judge(state, action, source);
    return j && agrees(state, action) ? j : undefined;
  };
}

/**
 * The judge of an edition in two steps, for a caller that cannot wait for the generated
 * validators (prove, when they must be generated first): `judge` asks the interpreter alone
 * (schema, invariants, verdict); `confirm` loads the `checkers` of some actions (on its first
 * call) and resolves to whether the generated validators agree on a state and action of one of
 * them (no broken invariant, the same verdict as the interpreter); to "never" when they do not
 * load. `judgeWith` is both steps at once.
 */
export function stagedJudge(ir: IREdition, checkers: (actions: readonly string[]) => Promise<CheckerModule>): { judge: Judge; confirm: (actions: readonly string[]) => Promise<(state: Json, action: Json) => boolean> } {
  const { judge, interpreter } = interpreterJudge(ir);
  let loaded: Promise<(state: Json, action: Json) => boolean> | undefined;
  const confirm = (actions: readonly string[]) =>
    (loaded ??= checkers(actions).then(
      (mod) => {
        const agrees = agreement(mod, interpreter);
        // the checkers were generated for these actions only
        return (state: Json, action: Json) => actions.includes(String(action.action)) && agrees(state, action);
      },
      () => () => false,
    ));
  return { judge, confirm };
}

/** The interpreter's judge (a valid state and action: schema and invariants; its verdict), and the interpreter, made on first use. */
function interpreterJudge(ir: IREdition): { judge: Judge; interpreter: () => Interpreter } {
  let interp: Interpreter | undefined;
  const interpreter = () => (interp ??= createInterpreter(ir));
  const judge: Judge = (given, action, source) => {
    // a variant's new fields take their schema defaults (a parent's scenario state lacks them)
    const state = withStateDefaults(ir, given) as Json;
    try {
      if (actionProblems(ir, action).length || stateProblems(ir, undefined, state).length || interpreter().brokenInvariants(state).length) return undefined;
      const i = interpreter().check(state, action);
      return { state, action, source, allowed: i.allowed, fired: [...i.violations.map((x) => x.rule), ...i.obliged] };
    } catch {
      // a state the interpreter cannot read (a RangeError of a table, say) is no candidate
      return undefined;
    }
  };
  return { judge, interpreter };
}

/** Whether the generated checkers agree with the interpreter on a state and action: no broken invariant, the same verdict (false when either throws). */
function agreement(mod: CheckerModule, interpreter: () => Interpreter): (state: Json, action: Json) => boolean {
  const verdict = (v: { allowed: boolean; violations: readonly { rule: string }[]; obliged: readonly string[] }) => JSON.stringify([v.allowed, v.violations.map((x) => x.rule), [...v.obliged]]);
  return (state, action) => {
    try {
      return mod.brokenInvariants(state).length === 0 && verdict(mod.check(state, action)) === verdict(interpreter().check(state, action));
    } catch {
      return false;
    }
  };
}

/**
 * Every scenario state under `roots` (default test/scenarios, when it exists) that `judge` keeps,
 * in file and line order. Scenarios of any edition are tried: a state of a variant with the
 * same schema is a state of this edition too.
 */
export function scenarioCandidates(judge: Judge, roots = ["test/scenarios"]): JudgedState[] {
  const out: JudgedState[] = [];
  for (const s of scenarioStates(roots)) {
    const j = judge(s.state, s.action, s.source);
    if (j) out.push(j);
  }
  return out;
}

/**
 * The same candidates as `scenarioCandidates`, judged lazily: a function from an action's name to
 * the kept states of that action (in file and line order), judging them on its first call for that
 * action. A re-proof after an edit asks for one action or a few, and judging every scenario
 * state of the rulebooks costs more than half a second.
 */
export function scenarioWitnesses(judge: Judge, roots = ["test/scenarios"]): (action: string) => JudgedState[] {
  const byAction = new Map<string, { state: Json; action: Json; source: string }[]>();
  for (const s of scenarioStates(roots)) {
    const name = String(s.action.action);
    let list = byAction.get(name);
    if (!list) byAction.set(name, (list = []));
    list.push(s);
  }
  const judged = new Map<string, JudgedState[]>();
  return (action) => {
    let out = judged.get(action);
    if (!out) {
      out = [];
      for (const s of byAction.get(action) ?? []) {
        const j = judge(s.state, s.action, s.source);
        if (j) out.push(j);
      }
      judged.set(action, out);
    }
    return out;
  };
}

/** The states and actions of the scenarios under `roots` (those that give both), in file and line order. */
function scenarioStates(roots: string[]): { state: Json; action: Json; source: string }[] {
  const existing = roots.filter((r) => fs.existsSync(r));
  if (!existing.length) return [];
  const out: { state: Json; action: Json; source: string }[] = [];
  for (const file of findScenarioFiles(existing)) {
    const { scenarios } = readScenarioFile(file, (e) => path.join("test", "fixtures", path.basename(e)));
    for (const s of scenarios) {
      if (!s.state || typeof s.state !== "object" || !s.action || typeof s.action !== "object") continue;
      out.push({ state: s.state as Json, action: s.action as Json, source: `${file}:${s.line}` });
    }
  }
  return out;
}
