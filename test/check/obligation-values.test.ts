/**
 * Obligations with parameters (issue 28, point 4): `oblige play_card(card: c, as: event) when C`
 * names the one move a power must make. Through the parser, the formatter, the checker (IR and
 * RW2017 with its hints), the generated validators and the interpreter (the same verdicts on a
 * family of states), and the prover (contradiction with a ban, a clash of two obligations of one
 * action, always_forbidden, stuck_power), on the mini edition plus `cards.rules` in a temp folder.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorLines, miniEditions } from "../helpers/mini-edition.js";
import { generateEdition } from "../../compiler/codegen/index.js";
import { formatRules } from "../../compiler/fmt/format.js";
import { createInterpreter } from "../../compiler/interpret/index.js";
import { editionFolder, type IREdition } from "../../compiler/ir/types.js";
import { obligationsFor } from "../../compiler/ir/obligations.js";
import { readRule } from "../../compiler/lsp/reading.js";
import { readRule as readEnglish } from "../../compiler/report/english.js";
import { judge, readScenarioFile } from "../../compiler/scenarios/index.js";
import { parseRules } from "../../compiler/syntax/index.js";
import { proveEdition, type ProofReport } from "../../compiler/verify/index.js";
import { writeGenerated } from "../helpers/generated-files.js";

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "rw-oblige-values-"));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

// The march plays the part of a Mandatory Event (his §11, vq §"Action Phase": never played for
// CP, and a power holding one may not pass); "must play it as an event" is the designer's rule.
const CARDS = `enum Use { event, cp }
action play_card(actor power: MajorPower, card: Card, as: Use)

rule card.in_hand §11 "a power plays a card from its own hand"
  forbid play_card when not (card in state.hands[power])

rule card.march_cp §11 "the march is never played for its CP"
  forbid play_card when card = march and as = cp

rule card.march_now §11 "in the last turn a power holding the march must play it as an event"
  during diplomacy
  oblige play_card(card: march, as: event) when state.turn = 9 and march in state.hands[power]

rule card.first_card §11 "from turn 8 a power must play the first card of its hand as an event, unless at war with green"
  during diplomacy
  oblige play_card(card: if truce in state.hands[power] then truce else march, as: Use.event)
    when state.turn >= 8 and count(state.hands[power]) > 0 unless at_war(power, green)

exempt card.peace §11 "a power at war with genoa is not obliged to play its first card" lifts card.first_card when at_war(power, genoa)
`;

const edition = miniEditions(tmpRoot);
const errorsOf = (text: string) => errorLines(edition({ "cards.rules": text }).result.diagnostics);

describe("syntax, layout and reading", () => {
  it("parses the obliged move's values after the action's name", () => {
    const { ast, diagnostics } = parseRules(CARDS, "cards.rules");
    expect(diagnostics).toEqual([]);
    const r = ast.decls.find((d) => d.k === "rule" && d.id.name === "card.march_now") as Extract<(typeof ast.decls)[number], { k: "rule" }>;
    expect(r.bind!.map((b) => [b.param.name, b.value.k])).toEqual([["card", "name"], ["as", "name"]]);
    expect(parseRules(`rule r §1 "t" oblige play_card(card when true`, "a.rules").diagnostics[0]!.message).toMatch(/expected `:`/);
  });

  it("formats it canonically and idempotently", () => {
    const out = formatRules(`rule r §1 "t"\n  oblige play_card( card :march,as: event )  when true\n`, "a.rules");
    if (!out.ok) throw new Error(JSON.stringify(out.diagnostics));
    expect(out.text).toBe(`rule r §1 "t"\n  oblige play_card(card: march, as: event) when true\n`);
    expect(formatRules(CARDS, "cards.rules")).toEqual({ ok: true, text: CARDS });
  });

  it("reads the obliged move in the language server's English", () => {
    const { ast } = parseRules(CARDS, "cards.rules");
    const r = ast.decls.find((d) => d.k === "rule" && d.id.name === "card.march_now")!;
    expect(readRule(r as never)).toBe("`play_card` with `card` `march` and `as` `event` is the only legal move of its actor during `diplomacy` when the `turn` is 9 and `march` is one of the `hands` of `power`");
  });
});

describe("checking", () => {
  const { result } = edition({ "cards.rules": CARDS });

  it("compiles, and lowers the values in the action's parameter order", () => {
    expect(errorLines(result.diagnostics)).toEqual([]);
    const r = result.edition!.rules.find((x) => x.id === "card.first_card")!;
    expect(r.bind!.map((b) => [b.param, b.value.k])).toEqual([["card", "ite"], ["as", "lit"]]);
    expect(readEnglish(result.edition!.rules.find((x) => x.id === "card.march_now")!, result.edition!)).toBe(
      "Play card with card march and as event is obliged (the only legal move of the acting power) during the diplomacy phase when the turn is 9 and march is one of the acting power's hands.");
    // a rule without values keeps the IR it had (no `bind` key)
    expect("bind" in result.edition!.rules.find((x) => x.id === "pass.empty")!).toBe(false);
  });

  it("keeps RW2017 for what still names no one move, each with the shape to write", () => {
    const rw = (rule: string) => errorsOf(CARDS + rule);
    expect(rw(`rule x §11 "t" oblige play_card when true\n`)).toEqual([
      "RW2017 `oblige play_card` does not say which move is obliged: `play_card` has parameters other than its actor (`card`, `as`)"]);
    expect(rw(`rule x §11 "t" oblige play_card(card: truce) when true\n`)).toEqual(["RW2017 `oblige play_card(…)` names no value of `as`: an obligation names one move"]);
    expect(rw(`rule x §11 "t" oblige play_card(power: red, card: truce, as: cp) when true\n`)).toEqual([
      "RW2017 `power` is the actor of `play_card`: the obligation binds whichever power its condition names"]);
    expect(rw(`rule x §11 "t" oblige play_card(crad: truce, as: cp) when true\n`)[0]).toBe("RW2017 `play_card` has no parameter `crad`");
    expect(rw(`rule x §11 "t" oblige play_card(card: truce, card: march, as: cp) when true\n`)).toEqual(["RW2017 a second value of `card`"]);
    expect(rw(`rule x §11 "t" forbid play_card(card: truce) when true\n`)).toEqual([
      "RW2017 `forbid play_card(…)` names parameter values; only an obligation names the move it obliges"]);
    expect(rw(`rule x §11 "t" oblige play_card(card: truce, as: cp) when as = cp\n`)).toEqual([
      "RW2017 its `when` condition reads `as`, a parameter of the move `oblige play_card(…)` names"]);
    expect(rw(`rule x §11 "t" oblige play_card(card: truce, as: if card = truce then cp else event) when true\n`)).toEqual([
      "RW2017 the value of `as` reads `card`, a parameter of the move `oblige play_card(…)` names"]);
    expect(rw(`rule x §11 "t" oblige play_card(card: 3, as: cp) when true\n`)[0]).toMatch(/^RW3001 /);
    // an exemption lifting an obligation with values reads only the actor
    expect(rw(`exempt x §11 "t" lifts card.march_now when as = cp\n`)[0]).toMatch(/^RW2002 unknown name `as`/);
  });

  it("the hint names every value to give", () => {
    const d = edition({ "cards.rules": CARDS + `rule x §11 "t" oblige play_card when true\n` }).result.diagnostics.find((x) => x.code === "RW2017")!;
    expect(d.help).toBe("name the value of each: `oblige play_card(card: …, as: …) when …`, each value over the state and `power`");
  });
});

describe("validators, interpreter and prover", () => {
  let ir: IREdition;
  let gen: {
    check(state: unknown, action: unknown): { allowed: boolean; violations: { rule: string; kind: string }[]; obliged: string[] };
    obligedActions(state: unknown, actor: string): unknown[];
    legalMoves(state: unknown, actor: string, options?: unknown): unknown;
  };
  let report: ProofReport;

  beforeAll(async () => {
    ir = edition({ "cards.rules": CARDS }).result.edition!;
    const files = await generateEdition(ir);
    const dir = writeGenerated(files, "gen-", tmpRoot);
    gen = await import(pathToFileURL(path.join(dir, `generated/${editionFolder(ir)}/index.ts`)).href);
    report = await proveEdition(ir, { timeoutMs: 20_000 });
  });

  const SPACES = ["red_home", "blue_home", "genoa", "pass_town", "sea_a"];
  const HANDS = [[], ["march"], ["truce"], ["truce", "march"], ["march", "truce"]];
  function* states(): Generator<Record<string, unknown>> {
    for (const turn of [1, 8, 9]) {
      for (const [i, hand] of HANDS.entries()) {
        for (const wars of [[], [{ a: "red", b: "green" }], [{ a: "genoa", b: "red" }]]) {
          yield {
            phase: i % 2 ? "movement" : "diplomacy", segment: "declarations", turn, wars,
            hands: { red: hand, blue: HANDS[(i + 2) % HANDS.length] },
            spaces: Object.fromEntries(SPACES.map((s) => [s, { controller: "red", unrest: false }])),
          };
          if (i % 2) yield { phase: "diplomacy", segment: "declarations", turn, wars, hands: { red: hand, blue: [] }, spaces: Object.fromEntries(SPACES.map((s) => [s, { controller: "blue", unrest: false }])) };
        }
      }
    }
  }
  const ACTIONS = [
    { action: "pass", power: "red" },
    ...["truce", "march"].flatMap((card) => ["event", "cp"].map((as) => ({ action: "play_card", power: "red", card, as }))),
    { action: "declare_war", by: "red", target: "green" },
  ];
  const ids = (v: { violations: readonly { rule: string }[] }) => v.violations.map((x) => x.rule);

  it("the generated validators and the interpreter agree on every state and action, and on obligedActions", () => {
    const interp = createInterpreter(ir);
    const fired = new Set<string>();
    let compared = 0;
    for (const state of states()) {
      for (const action of ACTIONS) {
        const a = gen.check(state, action);
        const b = interp.check(state, action);
        expect({ v: ids(a), o: a.obliged }).toEqual({ v: ids(b), o: [...b.obliged] });
        for (const r of [...ids(a), ...a.obliged]) fired.add(r);
        compared++;
      }
      for (const actor of ["red", "blue"]) expect(gen.obligedActions(state, actor)).toEqual(interp.obligedActions(state, actor));
    }
    expect(compared).toBeGreaterThan(200);
    for (const id of ["card.march_now", "card.first_card", "card.in_hand", "card.march_cp"]) expect(fired, id).toContain(id);
  });

  it("the obliged move is obliged, the same action with other values and every other action violate the obligation", () => {
    const s = { phase: "diplomacy", segment: "declarations", turn: 9, wars: [{ a: "red", b: "green" }], hands: { red: ["march"], blue: [] },
      spaces: Object.fromEntries(SPACES.map((x) => [x, { controller: "red", unrest: false }])) };
    expect(gen.check(s, { action: "play_card", power: "red", card: "march", as: "event" })).toMatchObject({ allowed: true, obliged: ["card.march_now"] });
    const other = gen.check(s, { action: "play_card", power: "red", card: "march", as: "cp" });
    expect(other.violations.map((v) => [v.rule, v.kind])).toEqual([["card.march_cp", "forbid"], ["card.march_now", "obligation"]]);
    expect(ids(gen.check(s, { action: "pass", power: "red" }))).toEqual(["card.march_now"]);
    expect(ids(gen.check(s, { action: "pass", power: "blue" }))).toEqual([]);
    expect(gen.obligedActions(s, "red")).toEqual([
      { action: "play_card", rules: ["card.march_now"], params: { card: "march", as: "event" } }]);
    // a value read from the state: the first card of the hand (the exemption for a war with genoa)
    const t = { ...s, turn: 8, wars: [], hands: { red: ["truce", "march"], blue: [] } };
    expect(gen.obligedActions(t, "red")).toEqual([{ action: "play_card", rules: ["card.first_card"], params: { card: "truce", as: "event" } }]);
    expect(gen.obligedActions({ ...t, wars: [{ a: "red", b: "genoa" }] }, "red")).toEqual([]);
    // legalMoves lists only the obliged move
    expect(gen.legalMoves(t, "red")).toEqual([{ action: "play_card", power: "red", card: "truce", as: "event" }]);
  });

  it("scenario files judge the obliged move and the moves the obligation forbids", () => {
    // at war with green: card.first_card does not apply (its `unless`)
    const fixture = { phase: "diplomacy", segment: "declarations", turn: 9, wars: [{ a: "red", b: "green" }], hands: { red: ["march"], blue: [] },
      spaces: Object.fromEntries(SPACES.map((x) => [x, { controller: "red", unrest: false }])) };
    const dir = fs.mkdtempSync(path.join(tmpRoot, "scenarios-"));
    fs.writeFileSync(path.join(dir, "base-state.json"), JSON.stringify(fixture));
    const file = path.join(dir, "cards.yaml");
    fs.writeFileSync(file, [
      `edition: mini`, `fixture: base-state.json`, `scenarios:`,
      `  - { name: "the march as an event is the obliged move", action: { action: play_card, power: red, card: march, as: event }, expect: { obliged: [card.march_now] } }`,
      `  - { name: "the march for CP breaks it", action: { action: play_card, power: red, card: march, as: cp }, expect: { forbidden: [card.march_cp, card.march_now] } }`,
      `  - { name: "passing breaks it", action: { action: pass, power: red }, expect: { forbidden: [card.march_now] } }`,
      `  - { name: "blue, holding the truce, must play it first and may not pass", patch: { hands: { blue: [truce] } }, action: { action: pass, power: blue }, expect: { forbidden: [card.first_card, pass.card] } }`,
      `  - { name: "blue plays the truce as an event", patch: { hands: { blue: [truce] } }, action: { action: play_card, power: blue, card: truce, as: event }, expect: { obliged: [card.first_card] } }`,
    ].join("\n"));
    const { scenarios, problems } = readScenarioFile(file, () => dir, tmpRoot);
    expect(problems).toEqual([]);
    expect(scenarios).toHaveLength(5);
    for (const sc of scenarios) expect(judge(sc.expect, gen.check(sc.state, sc.action)), sc.name).toEqual({ pass: true, detail: "" });
  });

  const ob = (kind: string, suffix: string) => report.obligations.find((o) => o.id === `${ir.name}.${kind}.${suffix}`)!;

  it("has the obligations of values: a clash of two obligations of one action, the action's own obligations among its forbidders", () => {
    const all = obligationsFor(ir);
    expect(all.map((o) => o.id)).toContain(`${ir.name}.obligation_clash.card.first_card~card.march_now`);
    expect(all.find((o) => o.kind === "always_forbidden" && o.action === "play_card")!.rules).toEqual(
      ["card.first_card", "card.in_hand", "card.march_cp", "card.march_now", "pass.empty"]);
  });

  it("the prover: a clash of values refuted with a replaying counterexample, no contradiction with the bans, the action not always forbidden", () => {
    expect(report.obligations.filter((o) => o.verdict === "unknown").map((o) => o.id)).toEqual([]);
    const clash = ob("obligation_clash", "card.first_card~card.march_now");
    expect(clash.verdict).toBe("refuted");
    const cx = clash.counterexample as unknown as { state: { turn: number; hands: Record<string, string[]> }; action: { power: string } };
    expect(cx.state.turn).toBe(9);
    expect(cx.state.hands[cx.action.power]).toEqual(expect.arrayContaining(["truce", "march"]));
    expect(gen.obligedActions(cx.state, cx.action.power)).toHaveLength(2);
    // the obliged card is in the hand and never played for CP: no contradiction
    for (const f of ["card.in_hand", "card.march_cp"]) expect(ob("contradiction", `card.march_now~${f}`).verdict, f).toBe("proved");
    expect(ob("always_forbidden", "play_card").verdict).toBe("proved");
    expect(ob("dead_rule", "card.march_now").verdict).toBe("proved");
  });

  it("the prover: a ban on the obliged move is a contradiction, and the power it binds is stuck", async () => {
    const ban = `rule card.no_event_at_war §11 "no event while at war with green"\n  forbid play_card when as = event and at_war(power, green)\n`;
    const ir2 = edition({ "cards.rules": CARDS + ban }).result.edition!;
    const r2 = await proveEdition(ir2, { timeoutMs: 20_000, only: (o) => o.id.endsWith("contradiction.card.march_now~card.no_event_at_war") || o.id.endsWith("stuck_power.diplomacy") });
    const c = r2.obligations.find((o) => o.id.endsWith("contradiction.card.march_now~card.no_event_at_war"))!;
    expect(c.verdict).toBe("refuted");
    const cx = c.counterexample as { state: Record<string, unknown>; action: Record<string, unknown> };
    expect(cx.action).toMatchObject({ card: "march", as: "event" });
    // the counterexample replays: the move is obliged and forbidden
    expect(createInterpreter(ir2).check(cx.state, cx.action)).toMatchObject({ violations: [{ rule: "card.no_event_at_war" }], obliged: ["card.march_now"] });
    const stuck = r2.obligations.find((o) => o.id.endsWith("stuck_power.diplomacy"))!;
    expect(stuck.verdict).toBe("refuted");
  });
});
