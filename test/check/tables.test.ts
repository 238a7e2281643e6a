/**
 * Result tables end to end (dsl/README.md, "Tables"): parsing, checking and lowering, the
 * generated lookups, the prover's gap/overlap obligations with canonical counterexamples, a
 * rule that reads a table (codegen and prover agree on it), and table scenarios.
 * The edition is the mini front-end fixture plus a `tables.rules` file, in a temp folder.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { errorLines, miniEditions } from "../helpers/mini-edition.js";
import { generateEdition } from "../../compiler/codegen/index.js";
import type { Diagnostic } from "../../compiler/diagnostics/types.js";
import { editionFolder, type IREdition } from "../../compiler/ir/types.js";
import { parseRules } from "../../compiler/syntax/index.js";
import { describeTableExample, proveEdition, type ProofReport } from "../../compiler/verify/index.js";
import { runScenarios } from "../../compiler/cli/test.js";
import { writeGenerated } from "../helpers/generated-files.js";

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "rw-tables-"));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

const TABLES = `// result tables of the mini edition (tests)
enum Outcome { lost, nothing, found, choice }

table explore §"Voyages of Exploration" "the result of one exploration"
  (roll: int in 2..12, explorer: int, map: bool): Outcome
  key roll + explorer + (if map then 2 else 0)
{
  <= 4: lost
  5..6: nothing
  7..9: found
  >= 10: choice
}

table raid §3 "the raider die"
  (die: int in 1..6, galleons: bool): { stolen: bool, destroyed: bool }
  key die
{
  1: { stolen: false, destroyed: true }
  2 when galleons: { stolen: false, destroyed: true }
  2 when not galleons: { stolen: false, destroyed: false }
  3..4: { destroyed: false, stolen: false }
  5: { stolen: true, destroyed: true }
  6: { stolen: true, destroyed: false }
}

table card_cost §11.1 "what a card costs a power in a turn"
  (p: MajorPower, c: Card, turn: int in 1..9): { playable: bool, cp: int }
{
  red, _, <= 4: { playable: true, cp: 1 }
  red, _, >= 5: { playable: true, cp: 2 }
  blue, truce, _: { playable: false, cp: 0 }
  MajorPower.blue, {march}, _: { playable: true, cp: 3 }
}

rule pass.late §11 "from turn 5 red may not pass"
  forbid pass when power = red and card_cost(power, march, state.turn).cp > 1
`;

/** The mini edition plus files (name → text), loaded with repoRoot = tmpRoot. */
const edition = miniEditions(tmpRoot);
const errors = errorLines;

/** One error with this code; returns it. */
function onlyError(tables: string, code: string): Diagnostic {
  const { result } = edition({ "tables.rules": tables });
  const es = result.diagnostics.filter((d) => d.severity === "error");
  expect(es.map((d) => `${d.code} ${d.message}`)).toEqual([expect.stringContaining(code)]);
  return es[0]!;
}

describe("table syntax", () => {
  it("parses patterns, guards, keys, record values and named sections", () => {
    const { ast, diagnostics } = parseRules(TABLES, "x.rules");
    expect(diagnostics).toEqual([]);
    const t = ast.decls.find((d) => d.k === "table" && d.name.name === "raid");
    expect(t).toMatchObject({ k: "table", citations: [{ value: "3", named: false }], title: "the raider die", keys: [{ k: "name", name: "die" }] });
    const explore = ast.decls.find((d) => d.k === "table" && d.name.name === "explore")!;
    expect(explore).toMatchObject({ citations: [{ value: "Voyages of Exploration", named: true }], params: [{ range: { min: 2, max: 12 } }, {}, {}] });
    if (explore.k !== "table") throw new Error();
    expect(explore.rows.map((r) => r.patterns[0])).toMatchObject([{ k: "int", max: 4 }, { k: "int", min: 5, max: 6 }, { k: "int", min: 7, max: 9 }, { k: "int", min: 10 }]);
  });

  it("reports a malformed row with the table's shape as help", () => {
    const { diagnostics } = parseRules(`table t §1 "x" (a: int): int { 1 2 }`, "x.rules");
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "RW1003", span: { line: 1, column: 34 } });
    expect(diagnostics[0]!.message).toContain("expected `:`");
    expect(diagnostics[0]!.help).toContain("a table reads `table <name>");
  });
});

describe("table checking and lowering", () => {
  const { result } = edition({ "tables.rules": TABLES });

  it("lowers tables to IR, sorted by name, with domains, keys, patterns and values", () => {
    expect(errors(result.diagnostics)).toEqual([]);
    const ir = result.edition!;
    expect(ir.tables!.map((t) => t.name)).toEqual(["card_cost", "explore", "raid"]);
    const explore = ir.tables!.find((t) => t.name === "explore")!;
    expect(explore.citation).toEqual({ source: "mini", section: "Voyages of Exploration", text: 'mini §"Voyages of Exploration"', named: true });
    expect(explore.params).toEqual([
      { name: "roll", type: { k: "int", min: 2, max: 12 } },
      { name: "explorer", type: { k: "int" } },
      { name: "map", type: { k: "bool" } },
    ]);
    expect(explore.keyLabels).toEqual(["roll + explorer + (if map then 2 else 0)"]);
    expect(explore.keys[0]!.type).toEqual({ k: "int" });
    expect(explore.rows.map((r) => [r.patterns, r.value])).toEqual([
      [[{ k: "range", max: 4 }], "lost"],
      [[{ k: "range", min: 5, max: 6 }], "nothing"],
      [[{ k: "range", min: 7, max: 9 }], "found"],
      [[{ k: "range", min: 10 }], "choice"],
    ]);
    const raid = ir.tables!.find((t) => t.name === "raid")!;
    expect(raid.result).toEqual({ k: "record", fields: [{ name: "stolen", type: { k: "bool" } }, { name: "destroyed", type: { k: "bool" } }] });
    // record values in the result's field order, whatever the row's order
    expect(raid.rows[3]!.value).toEqual({ stolen: false, destroyed: false });
    expect(Object.keys(raid.rows[3]!.value as object)).toEqual(["stolen", "destroyed"]);
    expect(raid.rows[1]!.guard).toMatchObject({ k: "var", name: "galleons" });
    const cost = ir.tables!.find((t) => t.name === "card_cost")!;
    expect(cost.keyLabels).toEqual(["p", "c", "turn"]);
    expect(cost.rows[3]!.patterns).toEqual([{ k: "members", members: ["blue"] }, { k: "members", members: ["march"] }, { k: "any" }]);
  });

  it("lowers a table call in a rule to a `table` node with its field", () => {
    const rule = result.edition!.rules.find((r) => r.id === "pass.late")!;
    const call = (rule.when as unknown as { args: { left: unknown }[] }).args[1]!.left;
    expect(call).toMatchObject({ k: "table", table: "card_cost", field: "cp", type: { k: "int" }, args: [{ k: "var", name: "power" }, { k: "lit", value: "march" }, { k: "field", field: "turn" }] });
  });

  it("rejects a range on a non-int parameter, and empty ranges", () => {
    expect(onlyError(`table t §1 "x" (a: bool in 1..2): int { _: 1 }`, "RW2201").message).toBe("only an `int` parameter takes a range, not `bool`");
    expect(onlyError(`table t §1 "x" (a: int in 5..2): int { _: 1 }`, "RW2201").help).toBe("write the smaller end first: `2..5`");
    expect(onlyError(`table t §1 "x" (a: int): int { 6..5: 1 }`, "RW2201").message).toBe("empty range `6..5`");
  });

  it("rejects rows with the wrong number of patterns, once per table", () => {
    const d = onlyError(`table t §1 "x" (a: int, b: bool): int { 1: 1  2: 2 }`, "RW2201");
    expect(d.message).toBe("this row has 1 pattern, but the table has 2 keys (`a`, `b`)");
    expect(d.help).toContain("without `key`, the keys are the parameters in order");
  });

  it("rejects keys and conditions that read the state", () => {
    const d = onlyError(`table t §1 "x" (a: int): int key a + state.turn { _: 1 }`, "RW2202");
    expect(d.message).toBe("a key of table `t` reads `state`");
    expect(onlyError(`table t §1 "x" (a: int): int key a { _ when state.turn > 2: 1 }`, "RW2202").message).toBe("a row's `when` condition of table `t` reads `state`");
  });

  it("rejects patterns and values that do not fit the key or the result", () => {
    expect(onlyError(`table t §1 "x" (a: int): int { red: 1 }`, "RW3102").message).toBe("a member pattern for the key `a`, which is `int`");
    expect(onlyError(`table t §1 "x" (p: MajorPower): int { green: 1 }`, "RW3102").message).toBe("`green` is not a member of `MajorPower` (the key `p`)");
    expect(onlyError(`table t §1 "x" (p: MajorPower): int { red: true  blue: 2 }`, "RW3102").message).toBe("a row value must be `int`, found `bool`");
    expect(onlyError(`table t §1 "x" (a: int): { x: int, y: bool } { _: { x: 1 } }`, "RW3102").message).toBe("missing field `y`");
    const typo = onlyError(`table t §1 "x" (a: int): { xx: int } { _: { xy: 1 } }`, "RW3102");
    expect(typo.message).toBe("the result has no field `xy`");
    expect(typo.help).toBe("did you mean `xx`?");
  });

  it("rejects a table named like a def", () => {
    expect(onlyError(`table at_war §1 "x" (a: int): int { _: 1 }`, "RW2009").message).toBe("table `at_war` has the name of a def");
  });

  it("rejects a call whose argument may lie outside the table's range, and a record table without a field", () => {
    const base = TABLES.replace(/rule pass\.late[\s\S]*$/, "");
    const { result: r1 } = edition({ "tables.rules": base + `rule pass.t §11 "x" forbid pass when explore(state.turn * 2, 0, false) = lost\n` });
    expect(errors(r1.diagnostics)).toEqual(["RW3103 argument `roll` of table `explore` may lie outside 2..12 (it ranges over 2..18)"]);
    // arithmetic over bounded inputs is bounded (issue 28): turn 1..9, so turn + 1 lies in 2..10
    const { result: r1b } = edition({ "tables.rules": base + `rule pass.t §11 "x" forbid pass when explore(state.turn + 1, 0, false) = lost\n` });
    expect(errors(r1b.diagnostics)).toEqual([]);
    const { result: r2 } = edition({ "tables.rules": base + `rule pass.t §11 "x" forbid pass when explore(13, 0, false) = lost\n` });
    expect(errors(r2.diagnostics)).toEqual(["RW3103 argument `roll` of table `explore` may lie outside 2..12 (it ranges over 13..13)"]);
    const { result: r3 } = edition({ "tables.rules": base + `rule pass.t §11 "x" forbid pass when raid(1, true) = raid(2, true)\n` });
    expect(errors(r3.diagnostics)[0]).toBe("RW3104 table `raid` gives a record: pick one of its fields");
    // in range: a literal, and a schema-bounded field (turn is 1..9, the parameter 1..9)
    const { result: ok } = edition({ "tables.rules": base + `rule pass.t §11 "x" forbid pass when explore(12, 0, false) = lost or card_cost(power, truce, state.turn).playable\n` });
    expect(errors(ok.diagnostics)).toEqual([]);
  });
});

describe("generated lookups", () => {
  let ir: IREdition;
  let gen: {
    lookupExplore(roll: number, explorer: number, map: boolean): string;
    lookupRaid(die: number, galleons: boolean): { stolen: boolean; destroyed: boolean };
    lookupCardCost(p: string, c: string, turn: number): { playable: boolean; cp: number };
    lookup(table: string, inputs: Record<string, unknown>): unknown;
    lookupRow(table: string, inputs: Record<string, unknown>): number;
    TABLES: readonly { name: string; params: unknown[]; keys: string[]; result: string; rowLines: number[] }[];
    check(state: unknown, action: unknown): { allowed: boolean; violations: { rule: string }[] };
  };
  let dir: string;
  let files: { path: string; content: string }[];

  beforeAll(async () => {
    ir = edition({ "tables.rules": TABLES }).result.edition!;
    files = await generateEdition(ir);
    dir = writeGenerated(files, "gen-", tmpRoot);
    gen = await import(pathToFileURL(path.join(dir, `generated/${editionFolder(ir)}/index.ts`)).href);
  });

  it("is a tables.ts that typechecks with the rest of the edition", () => {
    expect(files.map((f) => path.basename(f.path))).toContain("tables.ts");
    const roots = files.map((f) => path.join(dir, f.path));
    const program = ts.createProgram(roots, { strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, noUncheckedIndexedAccess: true, skipLibCheck: true, types: [] });
    const diags = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(diags).toEqual([]);
  });

  it("gives each row's value, first match, at the boundaries", () => {
    expect([2, 4, 5, 6, 7, 9, 10, 12].map((r) => gen.lookupExplore(r, 0, false))).toEqual(["lost", "lost", "nothing", "nothing", "found", "found", "choice", "choice"]);
    expect(gen.lookupExplore(2, 3, true)).toBe("found"); // 2 + 3 + 2
    expect(gen.lookupExplore(12, -20, false)).toBe("lost");
    expect(gen.lookupRaid(2, true)).toEqual({ stolen: false, destroyed: true });
    expect(gen.lookupRaid(2, false)).toEqual({ stolen: false, destroyed: false });
    expect(gen.lookupRaid(6, false)).toEqual({ stolen: true, destroyed: false });
    expect(Object.isFrozen(gen.lookupRaid(5, true))).toBe(true);
    expect(gen.lookupCardCost("red", "truce", 4)).toEqual({ playable: true, cp: 1 });
    expect(gen.lookupCardCost("red", "march", 5)).toEqual({ playable: true, cp: 2 });
    expect(gen.lookupCardCost("blue", "truce", 9)).toEqual({ playable: false, cp: 0 });
  });

  it("throws a RangeError naming the input outside the domain", () => {
    expect(() => gen.lookupExplore(13, 0, false)).toThrow(new RangeError("explore: roll must be an integer in 2..12, got 13"));
    expect(() => gen.lookupExplore(2.5, 0, false)).toThrow(RangeError);
    expect(() => gen.lookupCardCost("green", "truce", 1)).toThrow(new RangeError("card_cost: p must be a MajorPower, got green"));
    expect(() => gen.lookup("nope", {})).toThrow(new RangeError('unknown table "nope"'));
  });

  it("dispatches by name, gives the row of a value, and lists the tables", () => {
    expect(gen.lookup("raid", { die: 1, galleons: false })).toEqual({ stolen: false, destroyed: true });
    expect(gen.lookupRow("explore", { roll: 8, explorer: 0, map: false })).toBe(2);
    const t = gen.TABLES.find((x) => x.name === "explore")!;
    expect(t.rowLines[gen.lookupRow("explore", { roll: 8, explorer: 0, map: false })]).toBe(ir.tables!.find((x) => x.name === "explore")!.rows[2]!.pos.line);
    expect(gen.TABLES.map((x) => x.name)).toEqual(["card_cost", "explore", "raid"]);
    expect(t).toMatchObject({ params: [{ name: "roll", type: "int", min: 2, max: 12 }, { name: "explorer", type: "int" }, { name: "map", type: "bool" }], result: "Outcome" });
  });

  it("is called by the rules that read a table", () => {
    const code = files.find((f) => f.path.endsWith("validators.ts"))!.content;
    expect(code).toContain(`import { lookupCardCost } from "./tables.js";`);
    expect(code).toContain("lookupCardCost(v_power, \"march\", state.turn).cp > 1");
  });
});

describe("table proof obligations", () => {
  let report: ProofReport;
  const broken = TABLES.replace("5..6: nothing", "5..7: nothing").replace("3..4: { destroyed: false, stolen: false }", "3: { destroyed: false, stolen: false }");
  let ir: IREdition;

  beforeAll(async () => {
    ir = edition({ "tables.rules": broken }).result.edition!;
    report = await proveEdition(ir, { timeoutMs: 20_000 });
  });
  const ob = (id: string) => report.obligations.find((o) => o.id === `${ir.name}.${id}`)!;

  it("are two per table, errors, sorted with the others", () => {
    const ids = report.obligations.map((o) => o.id);
    expect(ids).toEqual([...ids].sort());
    for (const t of ["card_cost", "explore", "raid"]) {
      for (const k of ["table_gap", "table_overlap"]) expect(ob(`${k}.${t}`)).toMatchObject({ kind: k, severity: "error", table: t, action: "", rules: [] });
    }
  });

  it("prove the well-formed tables", () => {
    for (const id of ["table_gap.card_cost", "table_overlap.card_cost", "table_gap.explore", "table_overlap.raid"]) expect(ob(id).verdict, id).toBe("proved");
  });

  it("refute an overlap with the exact roll and both rows", () => {
    const o = ob("table_overlap.explore");
    expect(o.verdict).toBe("refuted");
    const rows = ir.tables!.find((t) => t.name === "explore")!.rows;
    expect(o.example).toEqual({
      inputs: { roll: 7, explorer: 0, map: false },
      keys: [{ label: "roll + explorer + (if map then 2 else 0)", value: 7 }],
      rows: [rows[1]!.pos, rows[2]!.pos].map((p) => ({ file: p.file, line: p.line })),
    });
    expect(describeTableExample(o.kind, o.example!)).toBe(`roll 7, explorer 0, map false (roll + explorer + (if map then 2 else 0) = 7): rows ${rows[1]!.pos.line} and ${rows[2]!.pos.line} of ${rows[1]!.pos.file} both match`);
  });

  it("refute a gap with the exact die and the guard's input", () => {
    const o = ob("table_gap.raid");
    expect(o.verdict).toBe("refuted");
    expect(o.example).toEqual({ inputs: { die: 4, galleons: false }, keys: [{ label: "die", value: 4 }], rows: [] });
    expect(describeTableExample(o.kind, o.example!)).toBe("die 4, galleons false: no row matches");
  });

  it("encode a rule's table lookup as the generated code computes it (the counterexample replays)", async () => {
    const o = ob("contradiction.pass.empty~pass.late");
    expect(o.verdict).toBe("refuted");
    const { state, action } = o.counterexample!;
    expect(action).toEqual({ action: "pass", power: "red" });
    expect(state.turn as number).toBeGreaterThanOrEqual(5);
    expect(ob("dead_rule.pass.late").verdict).toBe("proved");
  });
});

describe("the broken Here I Stand table fixtures (test/broken/table-*)", () => {
  it("refute the conquest table's gap with the exact roll: 8, no modifiers", async () => {
    const ir = loadEdition("test/broken/table-gap").edition!;
    const r = await proveEdition(ir, { timeoutMs: 20_000 });
    const o = r.obligations.find((x) => x.id === "his.table_gap.conquest")!;
    expect(o.verdict).toBe("refuted");
    expect(o.example).toEqual({
      inputs: { roll: 8, conquistador: 0, smallpox: false },
      keys: [{ label: "roll + conquistador + (if smallpox then 2 else 0)", value: 8 }],
      rows: [],
    });
    expect(r.obligations.filter((x) => x.verdict !== "proved").map((x) => x.id)).toEqual(["his.table_gap.conquest"]);
  });

  it("refute the exploration table's overlap with the exact roll: 7, no modifiers, and both rows", async () => {
    const ir = loadEdition("test/broken/table-overlap").edition!;
    const r = await proveEdition(ir, { timeoutMs: 20_000 });
    const o = r.obligations.find((x) => x.id === "his.table_overlap.exploration")!;
    expect(o.verdict).toBe("refuted");
    expect(o.example).toEqual({
      inputs: { roll: 7, explorer: 0, mercators_map: false },
      keys: [{ label: "roll + explorer + (if mercators_map then 2 else 0)", value: 7 }],
      rows: [12, 13].map((line) => ({ file: "test/broken/table-overlap/broken.rules", line })),
    });
    expect(r.obligations.filter((x) => x.verdict !== "proved").map((x) => x.id)).toEqual(["his.table_overlap.exploration"]);
  });
});

describe("table scenarios", () => {
  it("run through `rulewright test`: values compared exactly, bad inputs reported", async () => {
    const { dir } = edition({ "tables.rules": TABLES });
    const file = path.join(tmpRoot, `scen-${path.basename(dir)}.yaml`);
    fs.writeFileSync(
      file,
      [
        `edition: ${dir}`,
        `scenarios:`,
        `  - name: found`,
        `    table: explore`,
        `    inputs: { roll: 6, explorer: 3, map: false }`,
        `    expect: { result: found }`,
        `  - name: a record, fields in any order`,
        `    table: raid`,
        `    inputs: { die: 5, galleons: true }`,
        `    expect: { result: { destroyed: true, stolen: true } }`,
        `  - name: wrong value`,
        `    table: explore`,
        `    inputs: { roll: 2, explorer: 0, map: false }`,
        `    expect: { result: found }`,
        `  - name: outside the domain`,
        `    table: explore`,
        `    inputs: { roll: 13, explorer: 0, map: false }`,
        `    expect: { result: choice }`,
      ].join("\n") + "\n",
    );
    const prev = process.cwd();
    const summary = await runScenarios([file], "json");
    process.chdir(prev);
    expect(summary.problems).toEqual([]);
    expect(summary.results.map((r) => [r.name, r.pass, r.detail])).toEqual([
      ["found", true, ""],
      ["a record, fields in any order", true, ""],
      ["wrong value", false, 'expected "found", got "lost"'],
      ["outside the domain", false, "bad input: input `roll`: 13 is outside 2..12"],
    ]);
  });
});
