/**
 * Mutant equivalence decided by Z3 (compiler/verify/diff/variants.ts, compiler/engine/mutation-proof.ts),
 * on the mini edition (test/fixtures/frontend/mini): a mutant that no state tells apart is proved
 * equivalent (unsat); one that a state tells apart gets that state, replayed with the interpreter
 * and shrunk towards a base state; a spent budget or a state that does not replay is `unknown`,
 * never equivalent; the committed answers are keyed by what they depend on; and the mutation run
 * turns an answer into a case, a proof or an unknown.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import type { IREdition } from "../../compiler/ir/types.js";
import { mutantsOf, mutateEdition, type Mutant } from "../../compiler/engine/mutants.js";
import { distinguishes, runMutation, type CheckFn } from "../../compiler/engine/mutation.js";
import { applyPatch, formatMutantProofs, freshDecisions, mutantKey, parseMutantProofs, proveMutants, retriable, type MutantProof } from "../../compiler/engine/mutation-proof.js";
import { compareRuleVariants } from "../../compiler/verify/diff/variants.js";
import { stateProblems } from "../../compiler/engine/validate.js";
import { createInterpreter } from "../../compiler/interpret/index.js";
import { MINI } from "../helpers/mini-edition.js";
import { idPattern } from "../../compiler/cli/conformance-mutants.js";

// `target in {red, blue} and by = target`: `by` is a MajorPower (red or blue), so dropping the
// first conjunct changes nothing (unsat); dropping the second forbids a war on the other major
// power (by blue, target red) that the edition allows
const EQUIVALENT = "dow.twice#drop_conjunct@when.args.1:0";
const DIFFERENT = "dow.twice#drop_conjunct@when.args.1:1";
const BASE = {
  phase: "diplomacy",
  segment: "declarations",
  turn: 1,
  wars: [],
  hands: { red: ["march"], blue: ["march"] },
  spaces: Object.fromEntries(["red_home", "blue_home", "genoa", "pass_town", "sea_a"].map((s) => [s, { controller: "red", unrest: false }])),
};

let ir: IREdition;
let mutants: Mutant[];
const pick = (id: string): Mutant => mutants.find((m) => m.id === id)!;
beforeAll(() => {
  ir = loadEdition(MINI).edition!;
  mutants = mutantsOf(ir);
});

describe("Z3 decides a mutant (compareRuleVariants)", () => {
  it("proves the equivalent mutant equivalent and finds a state for the other", async () => {
    const [eq, diff] = await compareRuleVariants(ir, [pick(EQUIVALENT), pick(DIFFERENT)]);
    expect(eq).toMatchObject({ id: EQUIVALENT, verdict: "equivalent" });
    expect(eq!.witness).toBeUndefined();
    expect(diff).toMatchObject({ id: DIFFERENT, verdict: "differs", action: "declare_war" });
    expect(diff!.witness!.action).toMatchObject({ action: "declare_war" });
    expect(["red", "blue"]).toContain(diff!.witness!.action.target);
    expect(diff!.witness!.action.by).not.toBe(diff!.witness!.action.target);
  });

  it("a spent resource budget is unknown, never equivalent", async () => {
    const [eq, diff] = await compareRuleVariants(ir, [pick(EQUIVALENT), pick(DIFFERENT)], { rlimit: 1 });
    for (const v of [eq!, diff!]) {
      expect(v.verdict).toBe("unknown");
      expect(v.reason).toMatch(/resource budget exhausted/);
    }
  });

  it("decides the first-element mutant (a list read at index 0) and the oblige rule's mutants through the other actions", async () => {
    const ids = ["pass.card#first_element@when", "pass.empty#const_plus@when.right"];
    const vs = await compareRuleVariants(ir, ids.map(pick));
    expect(vs.map((v) => v.verdict)).toEqual(["differs", "differs"]);
    // pass.empty obliges pass: its mutants change the verdict of the actor's other actions
    expect(vs[1]!.action).not.toBe("pass");
  });
});

describe("lazy invariants and seeds (VariantOptions.brokenInvariants, .seeds)", () => {
  const ids = [EQUIVALENT, DIFFERENT, "pass.card#first_element@when", "pass.empty#const_plus@when.right"];

  it("assuming the invariants lazily gives the verdicts of assuming them up front, and every state found satisfies them", async () => {
    const interp = createInterpreter(ir);
    const eager = await compareRuleVariants(ir, ids.map(pick));
    const lazy = await compareRuleVariants(ir, ids.map(pick), { brokenInvariants: (s) => interp.brokenInvariants(s) });
    expect(lazy.map((v) => v.verdict)).toEqual(eager.map((v) => v.verdict));
    for (const v of lazy) if (v.witness) expect(interp.brokenInvariants(v.witness.state)).toEqual([]);
  });

  it("a state that breaks an invariant makes the search assume it and run again; an invariant assumed and still broken ends the loop (the replay judges)", async () => {
    const asked: string[][] = [];
    const broken = (first: string[]) => (s: Record<string, unknown>) => {
      asked.push(Object.keys(s));
      return asked.length === 1 ? first : [];
    };
    const [v] = await compareRuleVariants(ir, [pick(DIFFERENT)], { brokenInvariants: broken(["state.no_self_war"]) });
    expect(v).toMatchObject({ verdict: "differs" });
    expect(asked.length).toBe(2);
    // an id the edition has no invariant for adds nothing: the first state is the answer
    asked.length = 0;
    const [w] = await compareRuleVariants(ir, [pick(DIFFERENT)], { brokenInvariants: broken(["no.such_invariant"]) });
    expect(w).toMatchObject({ verdict: "differs" });
    expect(asked.length).toBe(1);
  });

  it("seeds are asked for per action and rule; a state found near one replays, and unsat near a seed leaves the free search to decide", async () => {
    const calls: string[] = [];
    const seed = { state: BASE, action: { action: "declare_war", by: "red", target: "blue" } };
    const vs = await compareRuleVariants(ir, [pick(EQUIVALENT), pick(DIFFERENT)], {
      seeds: (action, rule) => (calls.push(`${action} ${rule}`), [seed]),
    });
    expect(vs.map((v) => v.verdict)).toEqual(["equivalent", "differs"]);
    expect(calls).toContain("declare_war dow.twice");
    const interp = createInterpreter(ir);
    const m = pick(DIFFERENT);
    const { state, action } = vs[1]!.witness!;
    expect(interp.check(state, action).allowed).not.toBe(createInterpreter(mutateEdition(ir, m)).check(state, action).allowed);
  });
});

describe("the engine's side (proveMutants, freshDecisions, runMutation)", () => {
  const interp = () => createInterpreter(ir);
  const valid = (s: unknown): boolean => stateProblems(ir, interp(), s).length === 0;
  const base = { file: "base.json", text: JSON.stringify(BASE) };

  it("replays the state found, shrinks it towards the base, and keeps the proof", async () => {
    expect(valid(BASE)).toBe(true);
    const check: CheckFn = (s, a) => interp().check(s, a);
    const [eq, diff] = await proveMutants(ir, [pick(EQUIVALENT), pick(DIFFERENT)], { check, valid, base });
    expect(eq).toMatchObject({ id: EQUIVALENT, verdict: "equivalent", key: mutantKey(ir, pick(EQUIVALENT)) });
    expect(diff!.verdict).toBe("differs");
    const w = diff!.witness!;
    expect(w.base).toBe("base.json");
    // shrunk: only what the difference needs is left in the patch (no war, the base's hands)
    expect(Object.keys(w.patch as object).sort()).not.toContain("hands");
    const state = applyPatch(BASE, w.patch);
    const m = pick(DIFFERENT);
    expect(distinguishes(ir, m, { check, interp: interp(), mut: createInterpreter(mutateEdition(ir, m)), valid }, state, w.action)).toBe(true);
    // the edition allows it; the mutant forbids a war on the other major power
    expect(check(state, w.action).allowed).toBe(true);
    expect(createInterpreter(mutateEdition(ir, m)).check(state, w.action).allowed).toBe(false);
  });

  it("a model that does not replay is unknown: validators that disagree with the interpreter", async () => {
    const lying: CheckFn = (s, a) => ({ ...interp().check(s, a), allowed: !interp().check(s, a).allowed });
    const [diff] = await proveMutants(ir, [pick(DIFFERENT)], { check: lying, valid, base });
    expect(diff).toMatchObject({ verdict: "unknown" });
    expect(diff!.reason).toMatch(/did not replay/);
    expect(diff!.witness).toBeUndefined();
  });

  it("the committed answers: keyed by the rules they depend on, stale ones dropped, and turned into a case, a proof or an unknown", async () => {
    const check: CheckFn = (s, a) => interp().check(s, a);
    const entries = parseMutantProofs(formatMutantProofs("mini", await proveMutants(ir, [pick(EQUIVALENT), pick(DIFFERENT)], { check, valid, base })));
    expect(entries.map((e) => e.id).sort()).toEqual([DIFFERENT, EQUIVALENT].sort());
    const read = (f: string) => (f === "base.json" ? base.text : undefined);
    const fresh = freshDecisions(ir, mutants, entries, read);
    expect(fresh.get(EQUIVALENT)).toEqual({ verdict: "equivalent" });
    expect(fresh.get(DIFFERENT)?.verdict).toBe("differs");
    // another rule of declare_war changed: stale; a rule of another action changed: still fresh
    const edit = (id: string): IREdition => ({ ...ir, rules: ir.rules.map((r) => (r.id === id ? { ...r, when: { k: "lit", value: false, type: { k: "bool" } } } : r)) });
    expect(mutantKey(edit("dow.genoa"), pick(EQUIVALENT))).not.toBe(mutantKey(ir, pick(EQUIVALENT)));
    expect(mutantKey(edit("move.cap"), pick(EQUIVALENT))).toBe(mutantKey(ir, pick(EQUIVALENT)));
    expect(freshDecisions(edit("dow.genoa"), mutants, entries, read).size).toBe(0);
    // a changed base state makes the witness stale
    expect(freshDecisions(ir, mutants, entries, () => "{}").has(DIFFERENT)).toBe(false);

    // the mutation run with no cases and no search: the answers decide
    const made: string[] = [];
    const { results } = runMutation(ir, [], {
      check,
      valid: (s) => valid(s),
      search: false,
      decisions: fresh,
      makeCase: (found, m) => (made.push(m.id), { id: `case-${made.length}`, state: found.state, action: found.action, allowed: found.allowed, violations: [] }),
    });
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(byId.get(EQUIVALENT)).toMatchObject({ status: "equivalent" });
    expect(byId.get(DIFFERENT)).toMatchObject({ status: "killed", killedBy: "z3", by: "case-1" });
    expect(made).toEqual([DIFFERENT]);
    // a mutant with no answer is unknown, not equivalent
    const other = results.find((r) => r.id !== EQUIVALENT && r.id !== DIFFERENT)!;
    expect(other).toMatchObject({ status: "unknown" });
    expect(other.reason).toMatch(/no fresh Z3 answer/);
  });

  it("a spent budget is solved again under a larger budget only; other unknowns and decided answers are not", async () => {
    // the answer proveMutants writes for a spent budget names that budget
    const [spent] = await proveMutants(ir, [pick(DIFFERENT)], { check: (s, a) => interp().check(s, a), valid: () => true, base: { file: "base.json", text: JSON.stringify(BASE) }, rlimit: 1 });
    expect(spent).toMatchObject({ verdict: "unknown", budget: 1 });
    expect(retriable(spent!, 1)).toBe(false);
    expect(retriable(spent!, 2)).toBe(true);
    // an answer written before `budget` was: the budget its reason names
    const old: MutantProof = { id: DIFFERENT, key: "k", verdict: "unknown", reason: "spring_deploy: resource budget exhausted (rlimit 4000000; raise it with --rlimit)", rlimit: 4_000_000 };
    expect([retriable(old, 4_000_000), retriable(old, 30_000_000)]).toEqual([false, true]);
    expect(retriable({ ...old, reason: "spring_deploy: index 4 past the list's bound" }, 60_000_000)).toBe(false);
    expect(retriable({ ...old, verdict: "equivalent", reason: undefined }, 60_000_000)).toBe(false);
  });

  it("--mutants' pattern: the whole id matched, `*` any text, nothing else special", () => {
    const only = idPattern("control.units#*");
    expect(["control.units#drop_conjunct@when:0", "control.units#exempt_actor@when:protestant"].every(only)).toBe(true);
    expect(["control.unitsX#drop_conjunct@when:0", "x.control.units#a", "control_units#a"].some(only)).toBe(false);
    const actor = idPattern("*#exempt_actor@when:ottoman");
    expect(actor("dow.minor_ally#exempt_actor@when:ottoman")).toBe(true);
    expect(actor("dow.minor_ally#exempt_actor@when:ottoman2")).toBe(false);
    expect(idPattern("a(b)+[c]").call(null, "a(b)+[c]")).toBe(true);
  });

  it("an unknown answer stays unknown in the mutation run", () => {
    const entry: MutantProof = { id: EQUIVALENT, key: mutantKey(ir, pick(EQUIVALENT)), verdict: "unknown", reason: "resource budget exhausted", rlimit: 1 };
    const fresh = freshDecisions(ir, mutants, [entry], () => undefined);
    const { results } = runMutation(ir, [], { check: (s, a) => interp().check(s, a), valid: () => true, search: false, decisions: fresh, makeCase: () => undefined });
    expect(results.find((r) => r.id === EQUIVALENT)).toMatchObject({ status: "unknown", reason: "resource budget exhausted" });
  });
});
