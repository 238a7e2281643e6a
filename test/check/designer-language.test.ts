/**
 * The rules language a designer reaches for (issue 28, point 4): `unless`, integer division `/`,
 * `min(a, b)`/`max(a, b)`, a subset enum as a set (`target in PlayedPower`) and a `count(…)` as a
 * table input (by its domain's size, or by a guard before the call). Each through the parser,
 * the formatter, the checker (IR shapes and errors), the generated validators and the
 * interpreter (they agree on many states), and the prover (a contradiction that exists only
 * with division rounding down, whose counterexample replays through the validators).
 * The edition is the mini front-end fixture plus `designer.rules`, in a temp folder.
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
import { editionFolder, type Expr, type IREdition } from "../../compiler/ir/types.js";
import { readRule } from "../../compiler/lsp/reading.js";
import { parseRules } from "../../compiler/syntax/index.js";
import { proveEdition, type ProofReport } from "../../compiler/verify/index.js";
import { writeGenerated } from "../helpers/generated-files.js";

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "rw-designer-"));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

const DESIGNER = `// the designer's constructs (issue 28)
enum PlayedPower : Power { red, green }

def half(n: int): int = n / 2

table band §10 "a band of the spaces a power controls" (n: int in 0..5): bool
{
  <= 2: true
  >= 3: false
}

table small_band §10 "a band of at most three" (n: int in 0..3): bool
{
  <= 1: true
  2..3: false
}

rule dow.unplayed §9.6 "only a played power is a target, unless already at war"
  forbid declare_war when not (target in PlayedPower) unless at_war(by, target)

rule move.half §10 "at most half the turn number of units, and at least one"
  forbid move when units > max(half(state.turn), 1)

rule move.least §10 "at least min(turn, 3) - 1 units"
  forbid move when units < min(state.turn, 3) - 1

rule move.band §10 "a power with few spaces moves little"
  forbid move when band(count(s in Space where controls(power, s))) and units > 3

rule move.small §10 "a guarded count as a table input"
  forbid move when count(s in Space where controls(power, s)) <= 3 and small_band(count(s in Space where controls(power, s)))
    and units > 2

rule pass.late_half §11 "in turns 8 and 9 a power must pass"
  oblige pass when state.turn / 2 = 4

rule pass.last §11 "no pass in the last turn, unless the hand is empty"
  forbid pass when state.turn = 9 unless count(state.hands[power]) = 0
`;

/** The mini edition plus files (name → text), loaded with repoRoot = tmpRoot. */
const edition = miniEditions(tmpRoot);
const errors = errorLines;
/** The errors of the mini edition plus one rule file. */
const errorsOf = (text: string) => errors(edition({ "designer.rules": text }).result.diagnostics);

/** A compact s-expression of an IR expression. */
function sx(e: Expr): string {
  switch (e.k) {
    case "lit": return String(e.value);
    case "var": return e.name;
    case "state": return "state";
    case "field": return `${sx(e.obj)}.${e.field}`;
    case "index": return `${sx(e.obj)}[${sx(e.key)}]`;
    case "not": return `(not ${sx(e.arg)})`;
    case "and": case "or": return `(${e.k} ${e.args.map(sx).join(" ")})`;
    case "cmp": case "arith": return `(${e.op} ${sx(e.left)} ${sx(e.right)})`;
    case "ite": return `(if ${sx(e.cond)} ${sx(e.then)} ${sx(e.else)})`;
    case "in": return `(in ${sx(e.elem)} ${sx(e.set)})`;
    case "setlit": return `{${e.items.map(sx).join(" ")}}`;
    case "table": return `${e.table}(${e.args.map(sx).join(" ")})`;
    case "agg": return `(${e.op} ${e.var})`;
    case "len": return `(len ${sx(e.arg)})`;
    default: return e.k;
  }
}

describe("syntax and layout", () => {
  it("parses `unless`, `/`, `min(a, b)` and `max(a, b)` beside the aggregates", () => {
    const { ast, diagnostics } = parseRules(DESIGNER, "designer.rules");
    expect(diagnostics).toEqual([]);
    const rule = (id: string) => ast.decls.find((d) => d.k === "rule" && d.id.name === id) as Extract<(typeof ast.decls)[number], { k: "rule" }>;
    expect(rule("dow.unplayed").unless).toMatchObject({ k: "call", callee: { name: "at_war" } });
    expect(rule("move.half").when).toMatchObject({ k: "bin", op: ">", right: { k: "pick", op: "max", left: { k: "call" }, right: { k: "int", value: 1 } } });
    expect(rule("pass.late_half").when).toMatchObject({ k: "bin", op: "=", left: { k: "bin", op: "/", right: { k: "int", value: 2 } } });
    // the aggregate `max(x in D: …)` still parses as one
    const agg = parseRules(`rule r §1 "t" forbid pass when max(c in state.hands[power]: 1) > 0`, "a.rules");
    expect(agg.diagnostics).toEqual([]);
    expect((agg.ast.decls[0] as { when: { left: { k: string; op: string } } }).when.left).toMatchObject({ k: "agg", op: "max" });
    // `//` is still a comment, `/` alone divides
    expect(parseRules(`rule r §1 "t" forbid pass when state.turn / 3 > 1 // a third`, "a.rules").diagnostics).toEqual([]);
  });

  it("reads them in the language server's English", () => {
    const { ast } = parseRules(DESIGNER, "designer.rules");
    const r = ast.decls.find((d) => d.k === "rule" && d.id.name === "pass.last")!;
    expect(readRule(r as never)).toBe("`pass` is forbidden when the `turn` is 9, unless the number of the `hands` of `power` is 0");
    const h = ast.decls.find((d) => d.k === "rule" && d.id.name === "move.half")!;
    expect(readRule(h as never)).toBe("`move` is forbidden when `units` is more than the larger of `half`(the `turn`) and 1");
    const q = parseRules(`rule r §1 "t" forbid pass when state.turn / 2 > 1`, "a.rules").ast.decls[0]!;
    expect(readRule(q as never)).toBe("`pass` is forbidden when the `turn` divided by 2 (rounded down) is more than 1");
  });

  it("formats them canonically, idempotently, and keeps the tokens", () => {
    const messy = `rule r §1 "t"\n  forbid pass when state.turn/2=4   unless  max(state.turn,1)>min( 2 ,state.turn)\n`;
    const out = formatRules(messy, "a.rules");
    if (!out.ok) throw new Error(JSON.stringify(out.diagnostics));
    expect(out.text).toBe(`rule r §1 "t"\n  forbid pass when state.turn / 2 = 4 unless max(state.turn, 1) > min(2, state.turn)\n`);
    expect(formatRules(out.text, "a.rules")).toEqual({ ok: true, text: out.text });
    expect(formatRules(DESIGNER, "designer.rules")).toEqual({ ok: true, text: DESIGNER });
  });
});

describe("checking and lowering", () => {
  const { result } = edition({ "designer.rules": DESIGNER });
  const when = (id: string) => sx(result.edition!.rules.find((r) => r.id === id)!.when);

  it("compiles the edition", () => {
    expect(errors(result.diagnostics)).toEqual([]);
  });

  it("lowers `when A unless B` to `A and not B`", () => {
    expect(when("pass.last")).toBe("(and (= state.turn 9) (not (= (len state.hands[power]) 0)))");
    expect(when("dow.unplayed")).toMatch(/^\(and \(not \(in target \{red green\}\)\) \(not quant\)\)$/);
  });

  it("lowers `/` to the arith op and `min`/`max` to an `if`", () => {
    expect(when("pass.late_half")).toBe("(= (/ state.turn 2) 4)");
    expect(when("move.half")).toBe("(> units (if (>= (/ state.turn 2) 1) (/ state.turn 2) 1))");
    expect(when("move.least")).toBe("(< units (- (if (<= state.turn 3) state.turn 3) 1))");
  });

  it("takes a subset enum as the set of `in`", () => {
    expect(when("dow.unplayed")).toContain("(in target {red green})");
  });

  it("takes a count as a table input when its domain fits, or when a guard before the call bounds it", () => {
    expect(when("move.band")).toBe("(and band((count s)) (> units 3))");
    expect(when("move.small")).toMatch(/^\(and \(<= \(count s\) 3\) small_band\(\(count s_?\d*\)\)/);
  });

  it("rejects a divisor that is not a positive literal (RW3011), `sum(a, b)`, and an unguarded count outside the table's range", () => {
    expect(errorsOf(`rule r §1 "t" forbid pass when 8 / state.turn > 1\n`)).toEqual(["RW3011 `/` divides by a positive integer literal, not by an expression"]);
    expect(errorsOf(`rule r §1 "t" forbid pass when state.turn / 0 > 1\n`)).toEqual(["RW3011 `/` divides by a positive integer literal, not by 0"]);
    expect(errorsOf(`rule r §1 "t" forbid pass when state.turn / -2 > 1\n`)).toEqual(["RW3011 `/` divides by a positive integer literal, not by a negative number"]);
    expect(errorsOf(`rule r §1 "t" forbid pass when sum(state.turn, 1) > 1\n`)).toEqual(["RW3003 `sum(…)` adds up a domain, `sum(x in D: …)`; two numbers are added with `+`"]);
    expect(errorsOf(`rule r §1 "t" forbid pass when max(state.turn, true) > 1\n`)[0]).toMatch(/^RW300[12] /);
    const unguarded = DESIGNER.replace("count(s in Space where controls(power, s)) <= 3 and small_band", "small_band");
    expect(errorsOf(unguarded)).toEqual(["RW3103 argument `n` of table `small_band` may lie outside 0..3 (it ranges over 0..5)"]);
    // a guard in another branch of an `or` does not bound the call
    const orGuard = DESIGNER.replace("count(s in Space where controls(power, s)) <= 3 and small_band", "count(s in Space where controls(power, s)) <= 3 or small_band");
    expect(errorsOf(orGuard)).toEqual(["RW3103 argument `n` of table `small_band` may lie outside 0..3 (it ranges over 0..5)"]);
    // `implies` and `if` guard their right side
    expect(errorsOf(DESIGNER.replace(/rule move\.small[\s\S]*?\n\n/, `rule move.small §10 "g"\n  forbid move when units > 2 and (count(s in Space where controls(power, s)) < 4 implies small_band(count(s in Space where controls(power, s))))\n\n`))).toEqual([]);
  });

  it("rejects a value of another enum tested against a subset enum", () => {
    expect(errorsOf(DESIGNER + `rule r §1 "t" forbid declare_war when Card.truce in PlayedPower\n`)[0]).toMatch(/^RW3001 `Card` tested against enum `PlayedPower`/);
  });
});

describe("validators, interpreter and prover agree", () => {
  let ir: IREdition;
  let gen: { check(state: unknown, action: unknown): { allowed: boolean; violations: { rule: string }[] } };
  let report: ProofReport;

  beforeAll(async () => {
    ir = edition({ "designer.rules": DESIGNER }).result.edition!;
    const files = await generateEdition(ir);
    const dir = writeGenerated(files, "gen-", tmpRoot);
    gen = await import(pathToFileURL(path.join(dir, `generated/${editionFolder(ir)}/index.ts`)).href);
    report = await proveEdition(ir, { timeoutMs: 20_000 });
  });

  const SPACES = ["red_home", "blue_home", "genoa", "pass_town", "sea_a"];
  /** A deterministic family of states: turn 1..9, hands of 0–2 cards, a varying control. */
  function* states(): Generator<Record<string, unknown>> {
    for (let turn = 1; turn <= 9; turn++) {
      for (let k = 0; k < 6; k++) {
        const controller = (i: number) => ["red", "blue", "green", "genoa"][(i * (k + 1) + turn) % 4];
        yield {
          phase: k % 2 ? "diplomacy" : "movement", segment: "declarations", turn,
          wars: k === 3 ? [{ a: "red", b: "blue" }] : [],
          hands: { red: k % 3 === 0 ? [] : ["march"], blue: k % 3 === 2 ? ["truce", "march"] : [] },
          spaces: Object.fromEntries(SPACES.map((s, i) => [s, { controller: controller(i), unrest: (i + k) % 3 === 0 }])),
        };
      }
    }
  }
  const ACTIONS = [
    ...["red", "blue"].map((power) => ({ action: "pass", power })),
    ...["blue", "green", "genoa"].map((target) => ({ action: "declare_war", by: "red", target })),
    ...[1, 2, 3, 4, 5].map((units) => ({ action: "move", power: "red", origin: "red_home", destination: "genoa", units })),
  ];

  it("the generated validators and the interpreter give the same violations on every state and action", () => {
    const interp = createInterpreter(ir);
    let compared = 0;
    const fired = new Set<string>();
    for (const state of states()) {
      for (const action of ACTIONS) {
        const a = gen.check(state, action).violations.map((v) => v.rule).sort();
        const b = interp.check(state, action).violations.map((v) => v.rule).sort();
        expect(a).toEqual(b);
        for (const r of a) fired.add(r);
        compared++;
      }
    }
    expect(compared).toBe(9 * 6 * ACTIONS.length);
    // each new rule fires somewhere (the comparison is not vacuous)
    for (const id of ["dow.unplayed", "move.half", "move.least", "move.band", "pass.last"]) expect(fired, id).toContain(id);
  });

  it("the validators divide rounding down, and `unless` lifts the ban", () => {
    const s = [...states()].find((x) => x.turn === 9 && (x.hands as Record<string, unknown[]>).red.length === 0)!;
    expect(gen.check(s, { action: "pass", power: "red" }).violations.map((v) => v.rule)).not.toContain("pass.last");
    expect(gen.check(s, { action: "pass", power: "blue" }).violations.map((v) => v.rule)).toEqual(
      (s.hands as Record<string, unknown[]>).blue.length ? ["pass.last"] : []);
    // turn 5: half is 2, so 3 units are too many and 2 are not
    const t5 = [...states()].find((x) => x.turn === 5)!;
    const move = (units: number) => gen.check(t5, { action: "move", power: "red", origin: "red_home", destination: "genoa", units }).violations.map((v) => v.rule);
    expect(move(3)).toContain("move.half");
    expect(move(2)).not.toContain("move.half");
  });

  it("the prover finds the contradiction that exists only because 9 / 2 is 4, and its counterexample replays", () => {
    const o = report.obligations.find((x) => x.id === `${ir.name}.contradiction.pass.late_half~pass.last`)!;
    expect(o.verdict).toBe("refuted");
    const cx = o.counterexample as { state: Record<string, unknown>; action: Record<string, unknown> };
    expect(cx.state.turn).toBe(9);
    const hands = cx.state.hands as Record<string, unknown[]>;
    expect(hands[cx.action.power as string]!.length).toBeGreaterThan(0); // `unless` keeps an empty hand out
    expect(gen.check(cx.state, cx.action).violations.map((v) => v.rule)).toContain("pass.last");
  });

  it("no obligation is unknown, and every refuted one's counterexample is judged the same by the validators and the interpreter", () => {
    const interp = createInterpreter(ir);
    expect(report.obligations.filter((o) => o.verdict === "unknown").map((o) => o.id)).toEqual([]);
    const withCx = report.obligations.filter((o) => o.counterexample);
    expect(withCx.length).toBeGreaterThan(0);
    for (const o of withCx) {
      const { state, action } = o.counterexample as { state: unknown; action: unknown };
      if (!action) continue;
      expect(gen.check(state, action).violations.map((v) => v.rule).sort(), o.id).toEqual(interp.check(state, action).violations.map((v) => v.rule).sort());
    }
  });
});
