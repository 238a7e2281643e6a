/**
 * The three-way differential (issue 18, item 5): on states and actions of a bundled edition, the
 * generated validator (`generated/<edition>/`), the interpreter (compiler/interpret) and the SMT
 * encoding (compiler/verify: each rule's `fires(R)` evaluated on the concrete state with Z3, as
 * the prover's concrete witnesses are — concrete.ts `pinState` + `concreteModel`) must give the
 * same verdict and the same firing rules.
 *
 * Inputs: the edition's scenario states and actions (test/scenarios/<edition>/ and, for a variant,
 * its parent's: between them they make every rule fire) and mutants of them built by fast-check: leaves of a scenario state set to
 * a value another scenario state has at the same path (crossover), list items dropped, the action
 * of another scenario, one action parameter changed. A mutant that the schema or an invariant
 * rejects is discarded (counted): the three engines are only defined on valid states.
 *
 * SMT comparison per rule: a rule whose encoding calls a route is compared between validator and
 * interpreter only (routes are uninterpreted in the encoding: the state does not fix their
 * answers; README "Routes"), counted as `routeRules`. Anything else the model does not reduce to
 * true or false is a failure. One Z3 context per process (compiler/verify/run/z3.ts).
 */
import fs from "node:fs";
import { isDeepStrictEqual } from "node:util";
import path from "node:path";
import fc from "fast-check";
import { loadEdition } from "../../compiler/check/index.js";
import { loadValidators, type ValidatorModule } from "../../compiler/engine/loader.js";
import { resolveEdition } from "../../compiler/engine/editions.js";
import { stateProblems, actionProblems } from "../../compiler/engine/validate.js";
import { createInterpreter, type Interpreter } from "../../compiler/interpret/index.js";
import type { IREdition, IRRule } from "../../compiler/ir/types.js";
import { findScenarioFiles, readScenarioFile } from "../../compiler/scenarios/index.js";
import { concreteModel, pinState } from "../../compiler/verify/encode/concrete.js";
import { QueryParts } from "../../compiler/verify/encode/parts.js";
import { getZ3 } from "../../compiler/verify/run/z3.js";

type Json = unknown;
type Obj = Record<string, Json>;
export interface Sample {
  state: Obj;
  action: Obj;
  /** the scenario it came from (file:line) and what was changed */
  origin: string;
}

/** One edition ready for the differential: its IR, validators, interpreter, SMT parts and seeds. */
export interface DiffEdition {
  name: string;
  ir: IREdition;
  mod: ValidatorModule;
  interp: Interpreter;
  parts: QueryParts;
  seeds: Sample[];
}

export async function loadDiffEdition(name: string, listBound = 4): Promise<DiffEdition> {
  const ref = resolveEdition(name);
  const res = loadEdition(ref.dir, { repoRoot: process.cwd() });
  if (!res.edition) throw new Error(`${name} does not compile`);
  const ir = res.edition;
  const mod = await loadValidators(ref, ir);
  const seeds: Sample[] = [];
  // a variant's scenarios and its parent's (it shares the parent's state schema; a scenario it
  // rejects is left out)
  const chain = [name];
  for (let p = ir.parent; p && !chain.includes(p); ) {
    chain.push(p);
    p = loadEdition(resolveEdition(p).dir, { repoRoot: process.cwd() }).edition?.parent;
  }
  for (const dir of chain.map((e) => path.join("test", "scenarios", e)).filter((d) => fs.existsSync(d))) {
    for (const f of findScenarioFiles([dir])) {
      for (const s of readScenarioFile(f, (e) => path.join("test", "fixtures", path.basename(e))).scenarios) {
        if (!chain.includes(s.edition) || !isObj(s.state) || !isObj(s.action)) continue;
        if (stateProblems(ir, mod, s.state).length || actionProblems(ir, s.action).length) continue;
        seeds.push({ state: s.state, action: s.action, origin: `${s.file}:${s.line}` });
      }
    }
  }
  return { name, ir, mod, interp: createInterpreter(ir), parts: new QueryParts(await getZ3(), ir, listBound), seeds };
}

const isObj = (v: Json): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

/** Every leaf (scalar) path of a JSON value, as key arrays. */
function leafPaths(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(v)) v.forEach((x, i) => leafPaths(x, [...at, i], out));
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) leafPaths(x, [...at, k], out);
  else out.push(at);
  return out;
}
/** Every list path of a JSON value. */
function listPaths(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(v)) {
    out.push(at);
    v.forEach((x, i) => listPaths(x, [...at, i], out));
  } else if (isObj(v)) for (const [k, x] of Object.entries(v)) listPaths(x, [...at, k], out);
  return out;
}
function get(v: Json, p: (string | number)[]): Json {
  let cur = v;
  for (const k of p) cur = cur === null || typeof cur !== "object" ? undefined : (cur as Record<string | number, Json>)[k];
  return cur;
}
function set(v: Json, p: (string | number)[], x: Json): void {
  const parent = get(v, p.slice(0, -1)) as Record<string | number, Json>;
  parent[p[p.length - 1]!] = x;
}

/** A mutation plan: numbers fast-check draws and shrinks; applied to the seeds by `mutate`. */
export type Plan = { seed: number; edits: { kind: number; a: number; b: number }[] };
export const planArb: fc.Arbitrary<Plan> = fc.record({
  seed: fc.nat(),
  edits: fc.array(fc.record({ kind: fc.nat(4), a: fc.nat(), b: fc.nat() }), { minLength: 1, maxLength: 6 }),
});

/** Applies a plan to the edition's seeds: a mutant state and action (not yet validated). */
export function mutate(ed: DiffEdition, plan: Plan): Sample {
  const seeds = ed.seeds;
  const base = seeds[plan.seed % seeds.length]!;
  const state = clone(base.state);
  let action = clone(base.action);
  const what: string[] = [];
  for (const e of plan.edits) {
    const other = seeds[e.b % seeds.length]!;
    if (e.kind <= 1) {
      // crossover: a leaf set to the value another scenario has at the same path
      const leaves = leafPaths(state);
      const p = leaves[e.a % Math.max(1, leaves.length)];
      const v = p && get(other.state, p);
      if (p && v !== undefined && (v === null || typeof v !== "object")) {
        set(state, p, clone(v));
        what.push(`${p.join(".")}=${JSON.stringify(v)}`);
      }
    } else if (e.kind === 2) {
      // a list: one item dropped, or the other scenario's list at the same path
      const lists = listPaths(state);
      const p = lists[e.a % Math.max(1, lists.length)];
      if (p) {
        const xs = get(state, p) as Json[];
        const theirs = get(other.state, p);
        if (e.b % 2 === 0 && xs.length) {
          xs.splice(e.a % xs.length, 1);
          what.push(`${p.join(".")} minus an item`);
        } else if (Array.isArray(theirs)) {
          if (p.length) set(state, p, clone(theirs));
          what.push(`${p.join(".")} from ${other.origin}`);
        }
      }
    } else if (e.kind === 3) {
      // the action of another scenario
      action = clone(other.action);
      what.push(`action from ${other.origin}`);
    } else {
      // one action parameter: the value another scenario's action of the same name has
      const same = seeds.filter((s) => s.action.action === action.action);
      const src = same[e.b % same.length]!.action;
      const keys = Object.keys(action).filter((k) => k !== "action");
      const k = keys[e.a % Math.max(1, keys.length)];
      if (k !== undefined && k in src) {
        action[k] = clone(src[k]);
        what.push(`action.${k}=${JSON.stringify(src[k])}`);
      }
    }
  }
  return { state, action, origin: `${base.origin} with ${what.join(", ") || "no change"}` };
}

/** What one run of the differential found. */
export interface DiffStats {
  samples: number;
  discarded: number;
  /** firings per rule id (validator), every rule of the edition listed */
  fires: Map<string, number>;
  /** rule evaluations compared with the SMT encoding, and those left out because they call a route */
  smtCompared: number;
  routeRules: Set<string>;
  failures: string[];
}

export function newStats(ir: IREdition): DiffStats {
  return { samples: 0, discarded: 0, fires: new Map(ir.rules.map((r) => [r.id, 0])), smtCompared: 0, routeRules: new Set(), failures: [] };
}

/**
 * Runs one sample through the three engines; returns the disagreements (empty when they agree)
 * and counts firings. A sample that is not a valid state and action is discarded (returns []).
 */
export function compareSample(ed: DiffEdition, s: Sample, stats: DiffStats): string[] {
  const { ir, mod, interp, parts } = ed;
  if (stateProblems(ir, mod, s.state).length || actionProblems(ir, s.action).length) {
    stats.discarded++;
    return [];
  }
  stats.samples++;
  const problems: string[] = [];
  const v = mod.check(s.state, s.action);
  const i = interp.check(s.state, s.action);
  if (!isDeepStrictEqual(structuredClone(v), structuredClone(i))) problems.push(`validator ${JSON.stringify(brief(v))} ≠ interpreter ${JSON.stringify(brief(i))}`);

  // the rules whose firing decides this action's verdict, and what the validator says of each
  const name = String(s.action.action);
  const act = ir.actions.find((a) => a.name === name)!;
  const hasActor = act.params.some((p) => p.actor);
  const fired = new Set([...v.violations.map((x) => x.rule), ...v.obliged]);
  for (const id of fired) stats.fires.set(id, (stats.fires.get(id) ?? 0) + 1);
  const relevant: IRRule[] = ir.rules.filter((r) => r.action === name || (hasActor && r.kind === "oblige" && ir.actions.find((a) => a.name === r.action)?.params.some((p) => p.actor)));

  // every rule's fires(R) encoded, the leaves of all of them (and of the action's parameters: they
  // are leaves of the action's env, not of a rule's unit) pinned at once, one model, each evaluated
  const { ctx, enc } = parts;
  const units: { r: IRRule; unit: ReturnType<QueryParts["fires"]> }[] = [];
  const leaves = new Set(parts.envOf(name).params.leaves);
  for (const r of relevant) {
    try {
      const unit = parts.fires(r, name);
      if (unit.routes.size) {
        stats.routeRules.add(r.id);
        continue;
      }
      units.push({ r, unit });
      for (const l of unit.leaves) leaves.add(l);
    } catch (e) {
      problems.push(`${r.id}: not encoded (${(e as Error).message})`);
    }
  }
  const { values, problems: pinProblems } = pinState(enc, leaves, s.state, s.action);
  if (pinProblems.length) problems.push(`state not pinned (${pinProblems[0]})`);
  else {
    const model = concreteModel(enc, values);
    try {
      for (const { r, unit } of units) {
        const val = model.eval(unit.e, false);
        const smt = ctx.isTrue(val) ? true : ctx.isFalse(val) ? false : undefined;
        stats.smtCompared++;
        const validator = fired.has(r.id);
        if (smt === undefined) problems.push(`${r.id}: the SMT encoding is not decided by the state (validator: ${validator ? "fires" : "does not fire"})`);
        else if (smt !== validator) problems.push(`${r.id}: SMT ${smt ? "fires" : "does not fire"}, validator ${validator ? "fires" : "does not fire"}`);
      }
    } finally {
      model.release();
    }
  }
  if (problems.length) stats.failures.push(`${ed.name} ${s.origin}: ${problems.join("; ")}`);
  return problems;
}

function brief(v: { allowed: boolean; violations: readonly { rule: string; kind: string }[]; obliged: readonly string[] }) {
  return { allowed: v.allowed, violations: v.violations.map((x) => `${x.kind}:${x.rule}`), obliged: v.obliged };
}

/** The fire-count table: `rule  fires` lines, the never-fired rules first. */
export function fireReport(ed: string, stats: DiffStats): string {
  const rows = [...stats.fires].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
  const never = rows.filter(([, n]) => n === 0).map(([id]) => id);
  const w = Math.max(...rows.map(([id]) => id.length));
  return [
    `differential ${ed}: ${stats.samples} samples (${stats.discarded} mutants discarded as invalid), ${stats.smtCompared} rule evaluations compared with SMT, ${stats.routeRules.size} rules with routes compared validator ≡ interpreter only; ${rows.length - never.length}/${rows.length} rules fired${never.length ? `; never fired: ${never.join(", ")}` : ""}`,
    ...rows.map(([id, n]) => `  ${id.padEnd(w)}  ${n}`),
  ].join("\n");
}
