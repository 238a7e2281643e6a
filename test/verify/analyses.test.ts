/**
 * The analyses on tiny hand-built editions (test/helpers/verify-ir.ts): each one refuted where
 * it should be and proved where it should be, vacuous verdicts, severity annotations, the facts
 * of a counterexample, and the `@severity` syntax through the real front end.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { proveEdition, type ProofReport } from "../../compiler/verify/index.js";
import { declineMove, obligationsFor, phaseMoves } from "../../compiler/ir/obligations.js";
import { loadEdition } from "../../compiler/check/index.js";
import type { IRAction, IREdition, Type } from "../../compiler/ir/types.js";
import * as H from "../helpers/verify-ir.js";

const { rule, exemption, cmp, lit, len, handOf, power, by, target, st, index, and, field, someIn, member, Power, MajorPower } = H;
const pos = { file: "test.rules", line: 1, column: 1 };
const actionScope = { phase: "action" };
const INT: Type = { k: "int" };

const ob = (r: ProofReport, id: string) => {
  const o = r.obligations.find((x) => x.id === id);
  if (!o) throw new Error(`no obligation ${id}; have ${r.obligations.map((x) => x.id).join(", ")}`);
  return o;
};

/** the tiny edition plus extra actions */
function withActions(ir: IREdition, extra: IRAction[]): IREdition {
  return { ...ir, actions: [...ir.actions, ...extra] };
}
const concede: IRAction = { name: "concede", params: [{ name: "power", type: MajorPower, actor: true }], pos };
const bid: IRAction = {
  name: "bid",
  params: [
    { name: "power", type: MajorPower, actor: true },
    { name: "amount", type: INT, actor: false },
  ],
  pos,
};
const emptyHand = cmp("=", len(handOf(power)), lit(0));
const mandatoryInHand = someIn("c", handOf(power), (c) => field(c, "mandatory"));

describe("obligation_clash", () => {
  it("is refuted when one state obliges two different moves, with a minimal counterexample", async () => {
    const ir = withActions(
      H.edition({
        rules: [rule("pass.empty", "oblige", "pass", emptyHand, { scope: actionScope }), rule("concede.empty", "oblige", "concede", emptyHand, { scope: actionScope })],
      }),
      [concede],
    );
    const r = await proveEdition(ir, { timeoutMs: 10_000, only: (o) => o.kind === "obligation_clash" });
    const o = ob(r, "t.obligation_clash.concede.empty~pass.empty");
    expect(o.verdict).toBe("refuted");
    expect(o.severity).toBe("error");
    const cx = o.counterexample!;
    expect(cx.minimal).toBe(true);
    const p = cx.action.power as string;
    // the facts that matter: the phase and the empty hand (a default value, still shown)
    expect(cx.facts).toEqual(
      expect.arrayContaining([
        { path: "state.phase", value: "action" },
        { path: `state.hands[${p}]#len`, value: 0 },
      ]),
    );
    // nothing irrelevant: no other power's hand, no turn
    expect(cx.facts!.some((f) => f.path.startsWith("state.turn"))).toBe(false);
    expect((cx.state.hands as Record<string, unknown[]>)[p]).toEqual([]);
  });

  it("is proved (with both rules in the core) when the obligations exclude each other", async () => {
    const ir = withActions(
      H.edition({
        rules: [rule("pass.empty", "oblige", "pass", emptyHand, { scope: actionScope }), rule("concede.full", "oblige", "concede", cmp(">", len(handOf(power)), lit(0)), { scope: actionScope })],
      }),
      [concede],
    );
    const r = await proveEdition(ir, { timeoutMs: 10_000, only: (o) => o.kind === "obligation_clash" });
    const o = ob(r, "t.obligation_clash.concede.full~pass.empty");
    expect(o.verdict).toBe("proved");
    expect(o.core).toEqual(["concede.full", "pass.empty"]);
  });
});

describe("redundant_rule", () => {
  const rules = [
    rule("dow.scotland", "forbid", "declare_war", cmp("=", target, member(Power, "scotland"))),
    rule("dow.scotland_france", "forbid", "declare_war", and(cmp("=", target, member(Power, "scotland")), cmp("=", by, member(Power, "france")))),
    rule("dow.never", "forbid", "declare_war", and(cmp(">", st("x"), lit(3)), cmp("<", st("x"), lit(2)))),
  ];

  it("refutes a rule covered by another (info), proves the wider one with a witness, and a dead rule vacuously", async () => {
    const r = await proveEdition(H.edition({ rules }), { timeoutMs: 10_000, only: (o) => o.kind === "redundant_rule" });
    const narrow = ob(r, "t.redundant_rule.dow.scotland_france");
    expect(narrow.verdict).toBe("refuted");
    expect(narrow.severity).toBe("info");
    expect(narrow.core).toEqual(["dow.scotland", "dow.scotland_france"]);
    const wide = ob(r, "t.redundant_rule.dow.scotland");
    expect(wide.verdict).toBe("proved");
    // the witness is a state only dow.scotland forbids: Scotland, by someone other than France
    expect(wide.witness!.action.target).toBe("scotland");
    expect(wide.witness!.action.by).not.toBe("france");
    const dead = ob(r, "t.redundant_rule.dow.never");
    expect(dead.verdict).toBe("proved");
    expect(dead.vacuous).toBe(true);
    expect(dead.reason).toMatch(/never fires/);
    expect(r.summary.infos).toBe(1);
  });

  it("takes the severity a rule's @severity annotation gives, with its note", async () => {
    const annotated = rules.map((x) => (x.id === "dow.scotland_france" ? { ...x, severities: [{ kind: "redundant_rule" as const, level: "off" as const, note: "stated twice on purpose", pos }] } : x));
    const obs = obligationsFor(H.edition({ rules: annotated }));
    const o = obs.find((x) => x.id === "t.redundant_rule.dow.scotland_france")!;
    expect(o.severity).toBe("off");
    expect(o.severityNote).toBe("stated twice on purpose");
    // other analyses of the rule keep their defaults
    expect(obs.find((x) => x.id === "t.dead_rule.dow.scotland_france")!.severity).toBe("warning");
  });
});

describe("swallowing_exemption", () => {
  it("refutes an exemption that holds wherever its rule applies, proves a narrower one, and a dead rule vacuously", async () => {
    const ir = H.edition({
      rules: [
        rule("r.big_x", "forbid", "pass", cmp(">", st("x"), lit(3))),
        rule("r.big_y", "forbid", "pass", cmp(">", st("y"), lit(3))),
        rule("r.never", "forbid", "pass", and(cmp(">", st("z"), lit(3)), cmp("<", st("z"), lit(2)))),
      ],
      exemptions: [
        exemption("e.x", { rules: ["r.big_x"] }, cmp(">", st("x"), lit(2))),
        exemption("e.y", { rules: ["r.big_y"] }, cmp(">", st("y"), lit(5))),
        exemption("e.z", { rules: ["r.never"] }, cmp("=", st("turn"), lit(1))),
      ],
    });
    const r = await proveEdition(ir, { timeoutMs: 10_000, only: (o) => o.kind === "swallowing_exemption" || o.kind === "dead_rule" });
    const sw = ob(r, "t.swallowing_exemption.e.x~r.big_x");
    expect(sw.verdict).toBe("refuted");
    expect(sw.severity).toBe("warning");
    expect(sw.subjects).toEqual(["e.x", "r.big_x"]);
    expect(sw.core).toEqual(["e.x", "r.big_x"]);
    // the same rule is dead, with the exemption in its core
    expect(ob(r, "t.dead_rule.r.big_x").core).toContain("e.x");
    const ok = ob(r, "t.swallowing_exemption.e.y~r.big_y");
    expect(ok.verdict).toBe("proved");
    const y = ok.witness!.state.y as number;
    expect(y > 3 && y <= 5).toBe(true);
    const vac = ob(r, "t.swallowing_exemption.e.z~r.never");
    expect(vac.verdict).toBe("proved");
    expect(vac.vacuous).toBe(true);
  });
});

describe("stuck_power", () => {
  /** the edition with `decline <action> during <phase>` declared (dsl/README.md, "Declining to act") */
  const declining = (ed: IREdition, action = "pass", phase = "action"): IREdition => ({
    ...ed,
    declines: [...(ed.declines ?? []), { phase, action, title: `${action} declines`, pos: { file: "t.rules", line: 1, column: 1 } }],
  });
  // the tiny state has no active_power: the obligation asks about any power
  const passBan = rule("pass.mandatory", "forbid", "pass", mandatoryInHand, { scope: actionScope });
  // scoped to the Action Phase, so declare_war is one of its moves (phaseMoves)
  const warInAction = rule("dow.not_in_action", "forbid", "declare_war", cmp("=", st("phase"), member(H.Phase, "action")), { scope: actionScope });

  it("is refuted when the decline move (pass) and every other move are forbidden", async () => {
    const r = await proveEdition(declining(H.edition({ rules: [passBan, warInAction] })), { timeoutMs: 10_000, only: (o) => o.kind === "stuck_power" });
    const o = ob(r, "t.stuck_power.action");
    expect(o.verdict).toBe("refuted");
    expect(o.severity).toBe("warning");
    expect(o.stuck!.decline).toBe("pass");
    expect(o.stuck!.blocked).toEqual([
      { action: "pass", rules: ["pass.mandatory"], everyChoice: false },
      { action: "declare_war", rules: ["dow.not_in_action"], everyChoice: true },
    ]);
    const p = o.counterexample!.action.power as string;
    const hand = (o.counterexample!.state.hands as Record<string, { mandatory: boolean }[]>)[p];
    expect(hand.some((c) => c.mandatory)).toBe(true);
    expect(o.counterexample!.action).toEqual({ action: "pass", power: p });
  });

  it("is proved when a move with an unbounded parameter (quantified) stays legal", async () => {
    const bidRule = rule("bid.range", "forbid", "bid", H.or(cmp("<", H.v("amount", INT), lit(0)), cmp(">", H.v("amount", INT), index(st("admin"), power))), { scope: actionScope });
    const r = await proveEdition(declining(withActions(H.edition({ rules: [passBan, warInAction, bidRule] }), [bid])), { timeoutMs: 10_000, only: (o) => o.kind === "stuck_power" });
    const o = ob(r, "t.stuck_power.action");
    expect(o.verdict, o.reason).toBe("proved");
  });

  it("is refuted when a ban on the quantified move covers every choice", async () => {
    const bidRule = rule("bid.never_with_mandatory", "forbid", "bid", mandatoryInHand, { scope: actionScope });
    const r = await proveEdition(declining(withActions(H.edition({ rules: [passBan, warInAction, bidRule] }), [bid])), { timeoutMs: 10_000, only: (o) => o.kind === "stuck_power" });
    const o = ob(r, "t.stuck_power.action");
    expect(o.verdict).toBe("refuted");
    expect(o.stuck!.blocked.find((b) => b.action === "bid")).toEqual({ action: "bid", rules: ["bid.never_with_mandatory"], everyChoice: true });
  });

  it("counts as moves of a phase only the actions with a rule scoped to it", async () => {
    const unscopedWar = rule("dow.not_in_action", "forbid", "declare_war", cmp("=", st("phase"), member(H.Phase, "action")));
    const r = await proveEdition(declining(H.edition({ rules: [passBan, unscopedWar] })), { timeoutMs: 10_000, only: (o) => o.kind === "stuck_power" });
    const o = ob(r, "t.stuck_power.action");
    expect(o.verdict).toBe("refuted");
    expect(o.stuck!.blocked.map((b) => b.action)).toEqual(["pass"]);
  });

  it("reads the decline move from the edition's declaration, and counts it as a move of its phase", async () => {
    const base = H.edition({ rules: [rule("concede.never", "forbid", "concede", lit(true), { scope: actionScope }), passBan, rule("pass.empty", "oblige", "pass", emptyHand, { scope: actionScope })] });
    const ed: IREdition = { ...base, actions: [concede, ...base.actions] };
    // nothing is inferred: without a declaration no phase has a decline move
    expect(declineMove(ed, "action")).toBeUndefined();
    expect(declineMove(declining(ed, "concede"), "action")).toBe("concede");
    expect(declineMove(declining(ed), "action")).toBe("pass");
    expect(declineMove(declining(ed), "diplomacy")).toBeUndefined();
    expect(phaseMoves(ed, "action").map((a) => a.name).sort()).toEqual(["concede", "pass"]);
    // a declared decline move with no rule scoped to the phase is still one of its moves
    expect(phaseMoves(declining(ed, "concede", "diplomacy"), "diplomacy").map((a) => a.name)).toEqual(["concede"]);
  });

  it("finds a power stuck when the declared decline move is obliged away and every move is forbidden", async () => {
    // diplomacy: declare_war always forbidden there; concede is the decline move, forbidden
    // while the power holds a Mandatory Event (no rule of concede is scoped to diplomacy)
    const dipl = { phase: "diplomacy" };
    const ed = withActions(H.edition({ rules: [rule("dow.all", "forbid", "declare_war", lit(true), { scope: dipl }), rule("concede.mandatory", "forbid", "concede", mandatoryInHand)] }), [concede]);
    const r = await proveEdition(declining(ed, "concede", "diplomacy"), { timeoutMs: 10_000, only: (o) => o.kind === "stuck_power" });
    const o = ob(r, "t.stuck_power.diplomacy");
    expect(o.verdict).toBe("refuted");
    expect(o.stuck!.decline).toBe("concede");
    expect(o.stuck!.blocked.map((b) => b.action).sort()).toEqual(["concede", "declare_war"]);
  });

  it("lets a power decline in a phase with no declared decline move, unless an obligation binds it", async () => {
    const dipl = { phase: "diplomacy" };
    const free = await proveEdition(H.edition({ rules: [rule("dow.all", "forbid", "declare_war", lit(true), { scope: dipl })] }), { timeoutMs: 10_000, only: (o) => o.kind === "stuck_power" });
    expect(ob(free, "t.stuck_power.diplomacy").verdict).toBe("proved");
    const bound = await proveEdition(
      withActions(H.edition({ rules: [rule("dow.all", "forbid", "declare_war", lit(true), { scope: dipl }), rule("concede.dipl", "oblige", "concede", emptyHand, { scope: dipl }), rule("concede.never", "forbid", "concede", lit(true))] }), [concede]),
      { timeoutMs: 10_000, only: (o) => o.kind === "stuck_power" },
    );
    const o = ob(bound, "t.stuck_power.diplomacy");
    expect(o.verdict).toBe("refuted");
    expect(o.stuck!.decline).toBeNull();
    expect(o.stuck!.obliged).toEqual(["concede.dipl"]);
  });
});

describe("@severity in rule files", () => {
  function edition(extra: string): ReturnType<typeof loadEdition> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rw-sev-"));
    for (const f of ["edition.rules", "war.rules", "state.schema.json", "board.json"]) fs.symlinkSync(path.resolve("dsl/his", f), path.join(dir, f));
    fs.writeFileSync(path.join(dir, "extra.rules"), extra);
    return loadEdition(dir, { repoRoot: process.cwd() });
  }

  it("reads @severity after a rule's title and an exemption's title into the IR", () => {
    const res = edition(
      [
        'rule dow.hb_again §9.6 "restated" @severity redundant_rule off "stated twice on purpose"',
        "  forbid declare_war when target = hungary_bohemia",
        'exempt dow.hb_waiver §9.6 "waiver"',
        "  @severity swallowing_exemption info",
        "  lifts dow.hb_again when by = ottoman",
      ].join("\n"),
    );
    expect(res.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const r = res.edition!.rules.find((x) => x.id === "dow.hb_again")!;
    expect(r.severities).toEqual([{ kind: "redundant_rule", level: "off", note: "stated twice on purpose", pos: expect.objectContaining({ line: 1 }) }]);
    expect(res.edition!.exemptions.find((x) => x.id === "dow.hb_waiver")!.severities).toEqual([{ kind: "swallowing_exemption", level: "info", pos: expect.objectContaining({ line: 4 }) }]);
    // rules without annotations carry no field (the IR stays as it was)
    expect("severities" in res.edition!.rules.find((x) => x.id === "dow.scotland")!).toBe(false);
  });

  it("reports unknown annotations, analyses and levels, misplaced analyses and repeats, with hints", () => {
    const res = edition(
      [
        'rule dow.x §9.6 "x" @sevrity redundant_rule off @severity redundnt_rule info @severity always_forbidden off',
        "  @severity dead_rule offf @severity dead_rule info @severity dead_rule off @severity dead_rule",
        "  forbid declare_war when target = hungary_bohemia",
      ].join("\n"),
    );
    const got = res.diagnostics.map((d) => [d.code, d.message, d.help]);
    expect(got).toEqual(
      expect.arrayContaining([
        ["RW2050", "unknown annotation `@sevrity`", "did you mean `severity`?"],
        ["RW2051", "unknown analysis `redundnt_rule`", "did you mean `redundant_rule`?"],
        ["RW2051", "`always_forbidden` is not about a single rule, so a rule cannot change its severity", expect.stringContaining("analyses of a rule")],
        ["RW2051", "unknown severity level `offf`", "did you mean `off`?"],
        ["RW2052", "`dead_rule` is given a severity twice", "keep one `@severity` line per analysis"],
        ["RW2051", expect.stringContaining("takes an analysis and a level"), expect.any(String)],
      ]),
    );
    expect(res.edition).toBeUndefined();
  });
});
