/**
 * Proofs reused from the parent by the logic of the queries (compiler/verify/cache/reuse.ts,
 * compiler/verify/README.md "Proofs reused from the parent"), on variants of the mini edition:
 * every branch — the same slice, an unsat verdict carried under added constraints, a witness
 * still valid in the variant, a witness that breaks the variant's new invariant (solved again),
 * an overridden rule (solved again), a refuted redundancy whose rule may no longer fire (solved
 * again) — and, for each variant, the verdicts with reuse equal those of a prove from scratch.
 * Then the variant's own cache: a second prove solves nothing, an edit of one rule solves only
 * what that rule takes part in. Counts asserted, never times.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import type { IREdition } from "../../compiler/ir/types.js";
import { obligationsFor, ProofCache, proveEdition, type ProofReport } from "../../compiler/verify/index.js";
import { addedConstraints, narrower, reuseFromParent, type ParentReuse } from "../../compiler/verify/cache/reuse.js";
import { repairedCandidate, rulesFire, stateCarrier } from "../../compiler/cli/parent-proofs.js";
import { MINI } from "../helpers/mini-edition.js";

const LONG = 300_000;
const RLIMIT = 60_000_000;
const SECRET = Buffer.alloc(32, 7);

/** The parent: the mini edition and one more ban, redundant beside dow.genoa. */
const PARENT_EXTRA = `
rule dow.genoa_movement §9.6 "no war on Genoa in the movement phase either"
  forbid declare_war when target = Power.genoa and state.phase = movement
`;
/** Variant V: a new invariant on the hands (read by the pass rules) and an overridden rule. */
const VARIANT_V = (twice: string) => `edition mini_v "Mini, variant V" cites "mini" extends "mini"

invariant state.red_holds_no_truce "red never holds a truce":
  not (truce in state.hands[red])

override rule dow.twice §9.6 "no war on a power you are already at war with (the variant drops self-wars)" (diplo)
  during diplomacy.declarations
  forbid declare_war when ${twice}
`;
/** Variant X: one more ban of declare_war (by `power`), a conjunct more in its always_forbidden and redundant_rule queries. */
const VARIANT_X = (power: string) => `edition mini_x "Mini, variant X" cites "mini" extends "mini"

rule dow.${power}_never §9.6 "${power} never declares war in this variant"
  forbid declare_war when by = ${power}
`;
/** Variant W: the game never leaves diplomacy, so dow.genoa_movement never fires. */
const VARIANT_W = `edition mini_w "Mini, variant W" cites "mini" extends "mini"

invariant state.always_diplomacy "this variant is played in the diplomacy phase only":
  state.phase = diplomacy
`;

let root: string;
let parent: IREdition;
let parentCache: ProofCache;

/** A variant folder under the tree, loaded. */
function variant(name: string, text: string): IREdition {
  const dir = path.join(root, "dsl", name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "edition.rules"), text);
  const res = loadEdition(`dsl/${name}`, { repoRoot: root });
  expect(res.diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([]);
  return res.edition!;
}

/** reuseFromParent as the CLI calls it (compiler/cli/parent-proofs.ts), into `cache`. */
const reuse = (ir: IREdition, cache: ProofCache): ParentReuse =>
  reuseFromParent(ir, parent, cache, parentCache, { listBound: 4, rlimit: RLIMIT, complete: stateCarrier(ir), candidate: repairedCandidate(ir), fires: rulesFire(ir), parentName: "mini" });

/** id (without the edition) → verdict, vacuous marked */
const verdicts = (r: ProofReport) => Object.fromEntries(r.obligations.map((o) => [o.id.slice(r.edition.length + 1), `${o.verdict}${o.vacuous ? " (vacuous)" : ""}`]));
const ids = (xs: string[], ed: string) => xs.map((x) => x.slice(ed.length + 1)).sort();

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "rw-parent-reuse-"));
  fs.cpSync(MINI, path.join(root, "dsl", "mini"), { recursive: true });
  fs.writeFileSync(path.join(root, "dsl", "mini", "extra.rules"), PARENT_EXTRA);
  const res = loadEdition("dsl/mini", { repoRoot: root });
  expect(res.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  parent = res.edition!;
  parentCache = new ProofCache(path.join(root, "cache"), "mini", { secret: SECRET });
  const report = await proveEdition(parent, { cache: parentCache });
  expect(report.summary.unknown).toBe(0);
  // the parent's verdicts the branches below start from
  expect(verdicts(report)).toMatchObject({
    "contradiction.pass.empty~pass.card": "proved",
    "dead_rule.pass.card": "proved",
    "redundant_rule.dow.genoa_movement": "refuted",
    "dead_rule.dow.genoa_movement": "proved",
  });
}, LONG);

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("what a variant changes", () => {
  it("added invariants and narrower fields are added constraints; a changed invariant or a wider field is not", () => {
    const v = variant("mini-v", VARIANT_V("at_war(by, target)"));
    expect(addedConstraints(parent, v)).toEqual({ ok: true, invariants: ["state.red_holds_no_truce"], narrowed: [], routed: [] });
    expect(addedConstraints(v, parent)).toMatchObject({ ok: false, why: "invariant state.red_holds_no_truce of the parent is gone" });
    const changed = { ...v, invariants: v.invariants.map((i) => (i.id === "state.no_self_war" ? { ...i, expr: { k: "lit", value: true, type: { k: "bool" } } as never } : i)) };
    expect(addedConstraints(parent, changed)).toMatchObject({ ok: false, why: "invariant state.no_self_war differs from the parent's" });
    const E = (members: string[]) => ({ k: "enum" as const, name: "Power", base: "Power", members });
    expect(narrower(E(["red"]), E(["red", "blue"]))).toBe(true);
    expect(narrower(E(["red", "blue"]), E(["red", "blue"]))).toBe(false);
    expect(narrower(E(["red", "green"]), E(["red", "blue"]))).toBeUndefined();
    expect(narrower({ k: "int", min: 2, max: 5 }, { k: "int", min: 1, max: 9 })).toBe(true);
    expect(narrower({ k: "int", min: 0, max: 5 }, { k: "int", min: 1, max: 9 })).toBeUndefined();
    expect(narrower({ k: "int" }, { k: "int", min: 1 })).toBeUndefined();
  });
});

describe("a variant's first prove after its parent's", () => {
  it("carries unsat verdicts and still-valid witnesses over, and solves again what the new invariant or the override breaks", async () => {
    const v = variant("mini-v", VARIANT_V("at_war(by, target)"));
    const cache = new ProofCache(path.join(root, "cache"), "mini-v", { secret: SECRET });
    const r = reuse(v, cache);
    const all = obligationsFor(v);
    expect(all.length).toBe(21);
    expect(r.notOnlyAdded).toBeUndefined();
    expect(r.why).toEqual({ "same slice": 2, "unsat under fewer constraints": 1, "witness still valid": 9 });
    expect(r.reused.length).toBe(12);
    // unsat under fewer constraints: the hands invariant is in their slice now, their core still holds
    const report = await proveEdition(v, { cache });
    const by = new Map(report.obligations.map((o) => [o.id.slice("mini_v.".length), o]));
    expect(by.get("contradiction.pass.empty~pass.card")?.fromParent).toMatchObject({ edition: "mini", why: "unsat under fewer constraints" });
    // a witness still valid: no truce in it
    expect(by.get("dead_rule.pass.empty")?.fromParent).toMatchObject({ edition: "mini", why: "witness still valid" });
    // the parent's witness of pass.card is red holding a truce: the new invariant breaks it, solved again (blue holds one)
    expect(r.rejected.map((x) => x.id.slice("mini_v.".length))).toEqual(["always_forbidden.move", "dead_rule.pass.card", "redundant_rule.pass.card"]);
    for (const x of r.rejected) expect(x.why).toBe("the parent's witness is no state of the variant: it breaks `state.red_holds_no_truce`");
    expect(by.get("dead_rule.pass.card")).toMatchObject({ verdict: "proved" });
    expect(by.get("dead_rule.pass.card")).not.toHaveProperty("fromParent");
    expect(by.get("dead_rule.pass.card")).not.toHaveProperty("cached");
    expect(by.get("dead_rule.pass.card")?.witness?.action).toMatchObject({ power: "blue" });
    // the overridden rule and stuck_power (it reads every rule) are solved again
    const touched = all.filter((o) => o.rules.includes("dow.twice") || o.kind === "stuck_power").map((o) => o.id);
    expect(touched.length).toBe(6);
    for (const id of touched) expect(r.reused).not.toContain(id);
    expect(report.summary.cached).toBe(12);
    expect(report.summary.solved).toBe(9);
    expect(report.summary.unknown).toBe(0);
    // sound: the verdicts are those of a prove from scratch
    expect(verdicts(report)).toEqual(verdicts(await proveEdition(v, {})));
    cache.save(true);
  }, LONG);

  it("solves a refuted redundancy again when its rule may no longer fire", async () => {
    const w = variant("mini-w", VARIANT_W);
    const cache = new ProofCache(path.join(root, "cache"), "mini-w", { secret: SECRET });
    const r = reuse(w, cache);
    const rej = new Map(r.rejected.map((x) => [x.id.slice("mini_w.".length), x.why]));
    expect(rej.get("redundant_rule.dow.genoa_movement")).toBe("the parent's witness that `dow.genoa_movement` fires is no state of the variant: solved again");
    const report = await proveEdition(w, { cache });
    const fresh = await proveEdition(w, {});
    expect(verdicts(report)).toEqual(verdicts(fresh));
    // the rule never fires in W; a fresh solve still names dow.genoa in its core (the deletion-minimal
    // core keeps the coverer and drops the invariant), so "refuted" here is the solver's, not carried
    expect(verdicts(report)["dead_rule.dow.genoa_movement"]).toBe("refuted");
    const red = report.obligations.find((o) => o.id === "mini_w.redundant_rule.dow.genoa_movement");
    expect(red).toMatchObject({ verdict: "refuted", core: ["dow.genoa", "dow.genoa_movement"] });
    expect(red).not.toHaveProperty("fromParent");
    expect(report.summary.cached).toBe(r.reused.length);
    expect(r.why).toEqual({ "same slice": 14, "unsat under fewer constraints": 0, "witness still valid": 5 });
  }, LONG);
});

describe("a rule the variant adds to a conjunction", () => {
  // the parent's witnesses of declare_war's always_forbidden and redundancies have red declaring war
  const carriedWitnesses = ["always_forbidden.declare_war", "redundant_rule.dow.genoa", "redundant_rule.dow.twice"];
  it.each([
    ["blue", { "same slice": 16, "unsat under fewer constraints": 1, "witness still valid": 3 }, []],
    ["red", { "same slice": 16, "unsat under fewer constraints": 1, "witness still valid": 0 }, carriedWitnesses],
  ])("a ban of %s: unsat redundancies kept, witnesses kept unless the new rule fires on them", async (power, why, rejected) => {
    const x = variant(`mini-x-${power}`, VARIANT_X(power as string));
    const cache = new ProofCache(path.join(root, "cache"), `mini-x-${power}`, { secret: SECRET });
    const r = reuse(x, cache);
    expect(r.why).toEqual(why);
    expect(r.rejected.map((o) => o.id.slice("mini_x.".length))).toEqual(rejected);
    for (const o of r.rejected) expect(o.why).toBe("the parent's witness fires dow.red_never, which the variant adds");
    if (!(rejected as string[]).length) for (const id of carriedWitnesses) expect(r.reused).toContain(`mini_x.${id}`);
    const report = await proveEdition(x, { cache });
    expect(report.summary.cached).toBe(r.reused.length);
    expect(report.summary.solved).toBe(obligationsFor(x).length - r.reused.length);
    expect(verdicts(report)).toEqual(verdicts(await proveEdition(x, {})));
    // refuted in the parent (dow.genoa covers it): still refuted with the new ban beside dow.genoa
    const red = report.obligations.find((o) => o.id === "mini_x.redundant_rule.dow.genoa_movement");
    expect(red).toMatchObject({ verdict: "refuted", core: ["dow.genoa", "dow.genoa_movement"], fromParent: { edition: "mini", why: "unsat under fewer constraints" } });
  }, LONG);
});

describe("the variant's own cache", () => {
  it("a second prove solves nothing; an edit of one rule solves only the obligations it takes part in", async () => {
    const v = variant("mini-v", VARIANT_V("at_war(by, target)"));
    const again = new ProofCache(path.join(root, "cache"), "mini-v", { secret: SECRET });
    reuse(v, again);
    const second = await proveEdition(v, { cache: again });
    expect(second.summary.solved).toBe(0);
    expect(second.summary.cached).toBe(21);
    again.save(true);
    const edited = variant("mini-v", VARIANT_V("at_war(by, target) or by = target"));
    const cache = new ProofCache(path.join(root, "cache"), "mini-v", { secret: SECRET });
    reuse(edited, cache);
    const third = await proveEdition(edited, { cache });
    const solved = third.obligations.filter((o) => !o.cached).map((o) => o.id);
    // redundant_rule.dow.genoa_movement names dow.twice but its unsat core does not: answered by its core
    expect(solved.length).toBe(5);
    for (const o of third.obligations.filter((x) => !x.cached)) expect(o.rules.includes("dow.twice") || o.kind === "stuck_power").toBe(true);
    expect(third.summary.cached).toBe(16);
  }, LONG);
});
