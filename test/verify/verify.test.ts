import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import { proveEdition, type ProofReport } from "../../compiler/verify/index.js";
import { obligationsFor } from "../../compiler/ir/obligations.js";
import { duringCheck, getZ3 } from "../../compiler/verify/run/z3.js";
import type { IREdition } from "../../compiler/ir/types.js";
import * as H from "../helpers/verify-ir.js";

const { rule, exemption, invariant, cmp, lit, len, handOf, power, by, st, index, and, arith, field, someIn, sumHighest, MajorPower, reach, member, Space } = H;

const consistent = () =>
  H.edition({ rules: [...H.consistentRules], exemptions: [...H.consistentExemptions], invariants: [...H.consistentInvariants] });

/** Every counterexample/witness state validates against the edition's schema; its action is well formed. */
function expectExamplesValid(ir: IREdition, report: ProofReport) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const validate = ajv.compile(ir.schema);
  let n = 0;
  for (const o of report.obligations) {
    for (const ex of [o.counterexample, o.witness]) {
      if (!ex) continue;
      n++;
      const ok = validate(ex.state);
      expect(ok, `${o.id}: ${JSON.stringify(validate.errors)}`).toBe(true);
      // stuck_power is about every action (`*`): its example names the action it replays
      if (o.action !== "*") expect(ex.action.action).toBe(o.action);
      const act = ir.actions.find((a) => a.name === ex.action.action)!;
      expect(Object.keys(ex.action).sort()).toEqual(["action", ...act.params.map((p) => p.name)].sort());
    }
  }
  return n;
}

const ob = (r: ProofReport, id: string) => {
  const o = r.obligations.find((x) => x.id === id);
  if (!o) throw new Error(`no obligation ${id}; have ${r.obligations.map((x) => x.id).join(", ")}`);
  return o;
};

const actionScope = { phase: "action" };

describe("obligations as data", () => {
  it("one contradiction per oblige×forbid pair, one always_forbidden per action, one dead_rule per rule, sorted", () => {
    const obs = obligationsFor(consistent());
    const ids = obs.map((o) => o.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain("t.contradiction.pass.empty_hand~pass.home_card");
    expect(ids).toContain("t.always_forbidden.declare_war");
    expect(ids).toContain("t.dead_rule.dow.scotland");
    expect(obs.filter((o) => o.kind === "dead_rule")).toHaveLength(H.consistentRules.length);
    expect(obs.find((o) => o.kind === "contradiction")!.severity).toBe("error");
    expect(obs.find((o) => o.kind === "dead_rule")!.severity).toBe("warning");
    // declare_war can also be made illegal by the pass obligation of the same actor
    expect(obs.find((o) => o.id === "t.always_forbidden.declare_war")!.rules).toContain("pass.empty_hand");
  });
});

describe("proveEdition", () => {
  it("proves a consistent rulebook, with schema-valid witnesses", async () => {
    const ir = consistent();
    // the tiny edition declares no card play: in its Action Phase `pass` is the only move, so a
    // power holding a Mandatory Event is stuck (test/verify/analyses.test.ts covers stuck_power)
    const r = await proveEdition(ir, { timeoutMs: 10_000, only: (o) => o.kind !== "stuck_power" });
    const bad = r.obligations.filter((o) => o.verdict !== "proved").map((o) => `${o.id}: ${o.verdict} ${o.reason ?? ""} ${o.core ?? ""}`);
    expect(bad).toEqual([]);
    expect(r.summary).toMatchObject({ refuted: 0, unknown: 0, errors: 0, warnings: 0 });
    expect(expectExamplesValid(ir, r)).toBeGreaterThan(0);
    // the contradiction proof needs both rules (an empty hand holds no mandatory card)
    expect(ob(r, "t.contradiction.pass.empty_hand~pass.home_card").core).toEqual(["pass.empty_hand", "pass.home_card"]);
    // a dead_rule witness really fires the rule: dow.strength needs two admin ratings of 3
    const w = ob(r, "t.dead_rule.dow.strength").witness!;
    const admins = Object.values(w.state.admin as Record<string, number>).sort((a, b) => b - a);
    expect(admins[0] + admins[1]).toBeGreaterThan(5);
    expect(w.state.phase).toBe("diplomacy");
    expect(w.state.segment).toBe("declarations_of_war");
    expect(w.replayable).toBe(true);
    // the always_forbidden witness is an allowed move: target must be England (dow.capital), admin ≥ 2 …
    const a = ob(r, "t.always_forbidden.declare_war").witness!;
    const allowedInScope = a.state.phase !== "diplomacy" || a.state.segment !== "declarations_of_war";
    if (allowedInScope === false) {
      expect(a.action.target).toBe("england");
      expect(a.action.by).not.toBe("england");
    }
  });

  it("refutes a contradiction with an empty-hand counterexample", async () => {
    const ir = H.edition({
      rules: [...H.consistentRules, rule("pass.no_empty", "forbid", "pass", cmp("=", len(handOf(power)), lit(0)), { scope: actionScope })],
    });
    const r = await proveEdition(ir, { timeoutMs: 10_000 });
    const o = ob(r, "t.contradiction.pass.empty_hand~pass.no_empty");
    expect(o.verdict).toBe("refuted");
    expect(o.severity).toBe("error");
    const cx = o.counterexample!;
    expect(cx.replayable).toBe(true);
    expect(cx.state.phase).toBe("action");
    const p = cx.action.power as string;
    expect(MajorPower.members).toContain(p);
    expect((cx.state.hands as Record<string, unknown[]>)[p]).toEqual([]);
    expect(r.summary.errors).toBeGreaterThanOrEqual(1);
    expectExamplesValid(ir, r);
    // the other pair is still consistent
    expect(ob(r, "t.contradiction.pass.empty_hand~pass.home_card").verdict).toBe("proved");
  });

  it.each([false, true])("findings first (onEarlyFinding, isolate %s): each refutation's verdict before its counterexample is polished; the report and the cache are those of a run without it", async (isolate) => {
    const ir = H.edition({
      rules: [...H.consistentRules, rule("pass.no_empty", "forbid", "pass", cmp("=", len(handOf(power)), lit(0)), { scope: actionScope })],
    });
    const plain = await proveEdition(ir, { timeoutMs: 10_000 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rw-early-"));
    try {
      const early: { id: string; verdict: string; minimal?: boolean; settledBefore: boolean }[] = [];
      const settled = new Set<string>();
      const r = await proveEdition(ir, {
        timeoutMs: 10_000,
        cacheDir: dir,
        isolate,
        workers: 1,
        onEarlyFinding: (o) => early.push({ id: o.id, verdict: o.verdict, minimal: o.counterexample?.minimal, settledBefore: settled.has(o.id) }),
        onProgress: (e) => void (e.type === "done" && settled.add(e.id)),
      });
      // the contradiction is among the early findings, before its result, unpolished
      const c = early.find((e) => e.id === "t.contradiction.pass.empty_hand~pass.no_empty");
      expect(c).toEqual({ id: "t.contradiction.pass.empty_hand~pass.no_empty", verdict: "refuted", minimal: false, settledBefore: false });
      // every early finding is a refutation the report confirms
      for (const e of early) expect(ob(r, e.id).verdict).toBe("refuted");
      // the report: the same verdicts, counterexamples and cores as without findings first
      const strip = (rep: ProofReport) => rep.obligations.map((o) => ({ id: o.id, verdict: o.verdict, counterexample: o.counterexample, witness: o.witness, core: o.core }));
      expect(strip(r)).toEqual(strip(plain));
      expect(ob(r, "t.contradiction.pass.empty_hand~pass.no_empty").counterexample!.minimal).toBe(true);
      // the cache holds the polished results: a run from it gives the same report, all cached
      const again = await proveEdition(ir, { timeoutMs: 10_000, cacheDir: dir });
      expect(again.summary.cached).toBe(again.obligations.length);
      expect(strip(again)).toEqual(strip(plain));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refutes dead rules with a core naming them", async () => {
    const ir = H.edition({
      rules: [
        rule("dead.huge_hand", "forbid", "declare_war", cmp(">", len(handOf(by)), lit(20))),
        rule("dead.range", "forbid", "pass", and(cmp(">", st("x"), lit(3)), cmp("<", st("x"), lit(2)))),
        rule("dead.strength", "forbid", "declare_war", cmp(">", sumHighest(2, "p", MajorPower, (p) => index(st("admin"), p)), lit(6))),
        rule("live.strength", "forbid", "declare_war", cmp("=", sumHighest(2, "p", MajorPower, (p) => index(st("admin"), p)), lit(6))),
      ],
    });
    const r = await proveEdition(ir, { timeoutMs: 10_000 });
    for (const id of ["dead.huge_hand", "dead.range", "dead.strength"]) {
      const o = ob(r, `t.dead_rule.${id}`);
      expect(o.verdict, id).toBe("refuted");
      expect(o.severity).toBe("warning");
      expect(o.core).toEqual([id]);
      expect(o.witness).toBeUndefined();
    }
    const live = ob(r, "t.dead_rule.live.strength");
    expect(live.verdict).toBe("proved");
    const admins = Object.values(live.witness!.state.admin as Record<string, number>).sort((a, b) => b - a);
    expect(admins[0] + admins[1]).toBe(6);
    expect(r.summary.warnings).toBe(3);
    expectExamplesValid(ir, r);
  });

  it("refutes an always-forbidden action with a core naming the rules (and invariants)", async () => {
    const ir = H.edition({
      rules: [
        rule("df.low", "forbid", "declare_war", cmp("<", index(st("admin"), by), lit(2))),
        rule("df.high", "forbid", "declare_war", cmp(">=", index(st("admin"), by), lit(2))),
        rule("df.other", "forbid", "declare_war", cmp("=", st("x"), lit(7))),
        rule("pf.late", "forbid", "pass", cmp(">=", st("turn"), lit(3))),
      ],
      invariants: [invariant("inv.late", cmp(">=", st("turn"), lit(5))), invariant("inv.unrelated", cmp(">=", st("y"), lit(0)))],
    });
    const r = await proveEdition(ir, { timeoutMs: 10_000 });
    const dw = ob(r, "t.always_forbidden.declare_war");
    expect(dw.verdict).toBe("refuted");
    expect(dw.core).toEqual(["df.high", "df.low"]);
    const p = ob(r, "t.always_forbidden.pass");
    expect(p.verdict).toBe("refuted");
    expect(p.core).toEqual(["inv.late", "pf.late"]);
    expect(r.summary.errors).toBe(2);
  });

  it("an obligation of another action of the same actor forbids this one", async () => {
    const ir = H.edition({ rules: [rule("must_pass", "oblige", "pass", lit(true))] });
    const r = await proveEdition(ir, { timeoutMs: 10_000 });
    expect(ob(r, "t.always_forbidden.declare_war").verdict).toBe("refuted");
    expect(ob(r, "t.always_forbidden.declare_war").core).toEqual(["must_pass"]);
    expect(ob(r, "t.always_forbidden.pass").verdict).toBe("proved");
  });

  it("honours exemptions", async () => {
    const turn9 = cmp("=", st("turn"), lit(9));
    const empty = cmp("=", len(handOf(power)), lit(0));
    const ir = H.edition({
      rules: [
        rule("ex.covered", "forbid", "pass", turn9, { groups: ["g"] }),
        rule("ex.oblige", "oblige", "pass", empty, { scope: actionScope }),
        rule("ex.lifted_when_empty", "forbid", "pass", empty, { scope: actionScope }),
        rule("ex.lifted_late", "forbid", "pass", empty, { scope: actionScope, groups: ["late"] }),
      ],
      exemptions: [
        exemption("ex.nine", { groups: ["g"] }, turn9),
        exemption("ex.by_name", { rules: ["ex.lifted_when_empty"] }, empty),
        exemption("ex.late", { groups: ["late"] }, cmp(">=", st("turn"), lit(5))),
      ],
    });
    const r = await proveEdition(ir, { timeoutMs: 10_000 });
    const dead = ob(r, "t.dead_rule.ex.covered");
    expect(dead.verdict).toBe("refuted");
    expect(dead.core).toEqual(["ex.covered", "ex.nine"]);
    expect(ob(r, "t.dead_rule.ex.lifted_when_empty").verdict).toBe("refuted");
    expect(ob(r, "t.contradiction.ex.oblige~ex.lifted_when_empty").verdict).toBe("proved");
    const c = ob(r, "t.contradiction.ex.oblige~ex.lifted_late");
    expect(c.verdict).toBe("refuted");
    expect(c.counterexample!.state.turn as number).toBeLessThan(5);
    expectExamplesValid(ir, r);
  });

  it("marks examples that depend on a route as not replayable", async () => {
    const ir = H.edition({
      rules: [rule("r.path", "forbid", "declare_war", H.not(reach("path", [by], member(Space, "london"), member(Space, "paris"))))],
    });
    const r = await proveEdition(ir, { timeoutMs: 10_000 });
    const o = ob(r, "t.dead_rule.r.path");
    expect(o.verdict).toBe("proved");
    expect(o.witness!.replayable).toBe(false);
    expect(o.witness!.reason).toBe("depends on route path");
  });

  it("reports unknown, never proved, on a solver timeout", async () => {
    const cube = (e: ReturnType<typeof st>) => arith("*", e, arith("*", e, e));
    const fermat = and(
      cmp(">", st("x"), lit(0)),
      cmp(">", st("y"), lit(0)),
      cmp(">", st("z"), lit(0)),
      cmp("=", arith("+", cube(st("x")), cube(st("y"))), cube(st("z"))),
    );
    const ir = H.edition({ rules: [rule("hard.fermat", "forbid", "pass", fermat)] });
    const r = await proveEdition(ir, { timeoutMs: 1 });
    const o = ob(r, "t.dead_rule.hard.fermat");
    expect(o.verdict).toBe("unknown");
    expect(o.severity).toBe("warning");
    expect(o.reason).toBeTruthy();
    expect(r.summary.unknown).toBeGreaterThanOrEqual(1);
  });

  it("turns an encoding error into unknown with a reason, without failing the run", async () => {
    const ir = H.edition({
      rules: [rule("bad.var", "forbid", "pass", cmp("=", H.v("nope", { k: "int" }), lit(1))), rule("fine", "forbid", "pass", cmp("=", st("x"), lit(1)))],
    });
    const r = await proveEdition(ir, { timeoutMs: 10_000 });
    const o = ob(r, "t.dead_rule.bad.var");
    expect(o.verdict).toBe("unknown");
    expect(o.reason).toMatch(/unbound variable `nope`/);
    expect(ob(r, "t.dead_rule.fine").verdict).toBe("proved");
  });

  it("never reads a parameter through a leaf of another action's same-named parameter of another type", async () => {
    // pass.target is a MajorPower, declare_war.target a Power: one shared leaf `action.target`
    // would carry the first one's type (a MajorPower fact that hides scotland from declare_war).
    const base = H.edition({ rules: [] });
    const passTarget = { name: "target", type: MajorPower, actor: false };
    const ir: IREdition = {
      ...base,
      actions: base.actions.map((a) => (a.name === "pass" ? { ...a, params: [...a.params, passTarget] } : a)),
      rules: [
        rule("pass.t", "forbid", "pass", cmp("=", H.v("target", MajorPower), member(MajorPower, "england"))),
        rule("dow.t", "forbid", "declare_war", cmp("=", H.target, member(H.Power, "scotland"))),
      ],
    };
    const r = await proveEdition(ir, { timeoutMs: 10_000 });
    const verdicts = ["t.dead_rule.pass.t", "t.dead_rule.dow.t"].map((id) => ob(r, id));
    // whichever is encoded second sees the clash: unknown with a reason, never a wrong proof
    expect(verdicts.some((o) => o.verdict === "unknown" && /`action.target` is used with two types/.test(o.reason ?? ""))).toBe(true);
    for (const o of verdicts) expect(o.verdict).not.toBe("refuted");
  });

  it("writes deterministic report.json and .smt2 files", async () => {
    const ir = H.edition({
      rules: [...H.consistentRules, rule("pass.no_empty", "forbid", "pass", cmp("=", len(handOf(power)), lit(0)), { scope: actionScope })],
      exemptions: [...H.consistentExemptions],
      invariants: [...H.consistentInvariants],
    });
    const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), "rw-verify-")));
    for (const d of dirs) await proveEdition(ir, { timeoutMs: 10_000, outDir: d, smt2: "all" });
    const files = fs.readdirSync(dirs[0]).sort();
    expect(files).toEqual(fs.readdirSync(dirs[1]).sort());
    expect(files).toContain("report.json");
    expect(files).toContain("t.contradiction.pass.empty_hand~pass.no_empty.smt2");
    expect(files.filter((f) => f.endsWith(".smt2"))).toHaveLength(obligationsFor(ir).length);
    for (const f of files.filter((f) => f.endsWith(".smt2"))) {
      const a = fs.readFileSync(path.join(dirs[0], f), "utf8");
      expect(a, f).toBe(fs.readFileSync(path.join(dirs[1], f), "utf8"));
      expect(a).toMatch(/\(check-sat-assuming \(/);
    }
    // the canonical SMT-LIB re-reads in Z3 with the verdict's satisfiability
    const ctx = await getZ3();
    const report = JSON.parse(fs.readFileSync(path.join(dirs[0], "report.json"), "utf8")) as ProofReport;
    for (const id of ["t.contradiction.pass.empty_hand~pass.no_empty", "t.contradiction.pass.empty_hand~pass.home_card", "t.dead_rule.dow.strength"]) {
      const o = ob(report, id);
      const solver = new ctx.Solver();
      try {
        solver.set("timeout", 10_000);
        const text = fs.readFileSync(path.join(dirs[0], o.smt2!), "utf8");
        const assuming = text.match(/\(check-sat-assuming \(([^)]*)\)\)/)![1].split(" ");
        solver.fromString(text.replace(/\(check-sat-assuming[^\n]*\n?$/, ""));
        const r = await duringCheck(() => solver.check(...assuming.map((n) => ctx.Bool.const(n.replace(/^\|(.*)\|$/, "$1")))));
        const expected = o.kind === "contradiction" ? (o.verdict === "proved" ? "unsat" : "sat") : o.verdict === "proved" ? "sat" : "unsat";
        expect(r, id).toBe(expected);
      } finally {
        solver.release();
      }
    }
    // run-dependent: the times, and the resource count used (Z3's count for one query depends on
    // what the process solved before: the second run here reuses the first's terms); the budget stays
    const strip = (d: string) => JSON.parse(fs.readFileSync(path.join(d, "report.json"), "utf8"), (k, v) => (k === "ms" || k === "profile" || k === "used" ? undefined : v));
    expect(strip(dirs[0])).toEqual(strip(dirs[1]));
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("unrolls list quantifiers over the slots guarded by the length", async () => {
    // every war in the list involves france, and some war has a = b: impossible under inv.no_self_war
    const ir = H.edition({
      rules: [
        rule("w.self", "forbid", "declare_war", someIn("w", st("at_war"), (w) => cmp("=", field(w, "a"), field(w, "b")))),
        rule("w.four", "forbid", "declare_war", cmp("=", len(st("at_war")), lit(4))),
      ],
      invariants: [...H.consistentInvariants],
    });
    const r = await proveEdition(ir, { timeoutMs: 10_000 });
    expect(ob(r, "t.dead_rule.w.self").verdict).toBe("refuted");
    expect(ob(r, "t.dead_rule.w.self").core).toEqual(["inv.no_self_war", "w.self"]);
    const w = ob(r, "t.dead_rule.w.four").witness!;
    expect(w.state.at_war as unknown[]).toHaveLength(4);
    for (const x of w.state.at_war as { a: string; b: string }[]) expect(x.a).not.toBe(x.b);
    expectExamplesValid(ir, r);
  });
});
