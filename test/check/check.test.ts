import { children } from "../../compiler/ir/walk.js";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { CATALOG } from "../../compiler/diagnostics/catalog.js";
import { renderDiagnostic } from "../../compiler/diagnostics/render.js";
import type { Diagnostic } from "../../compiler/diagnostics/types.js";
import type { Expr } from "../../compiler/ir/types.js";

const FIXTURE = fileURLToPathSafe(new URL("../fixtures/frontend/mini", import.meta.url));
function fileURLToPathSafe(u: URL): string {
  return decodeURIComponent(u.pathname);
}

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "rw-check-"));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
let n = 0;

/**
 * A copy of the mini edition with edits: file → replacement text, or [search, replace] pairs
 * (each search must occur). Loaded with repoRoot = the temp root, so files read `ed<n>/x.rules`.
 */
function variant(edits: Record<string, string | [string, string][] | null> = {}): { dir: string; result: ReturnType<typeof loadEdition>; read: (f: string) => string } {
  const name = `ed${n++}`;
  const dir = path.join(tmpRoot, name);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  for (const [file, edit] of Object.entries(edits)) {
    const p = path.join(dir, file);
    if (edit === null) fs.rmSync(p);
    else if (typeof edit === "string") fs.writeFileSync(p, edit);
    else {
      let text = fs.readFileSync(p, "utf8");
      for (const [a, b] of edit) {
        if (!text.includes(a)) throw new Error(`fixture edit: \`${a}\` not in ${file}`);
        text = text.replace(a, b);
      }
      fs.writeFileSync(p, text);
    }
  }
  const result = loadEdition(name, { repoRoot: tmpRoot });
  return { dir, result, read: (f) => fs.readFileSync(path.join(tmpRoot, f), "utf8") };
}

function errors(ds: Diagnostic[]): Diagnostic[] {
  return ds.filter((d) => d.severity === "error");
}
function only(ds: Diagnostic[], code: string): Diagnostic {
  const es = errors(ds);
  expect(es.map((d) => `${d.code} ${d.message} @${d.span.line}:${d.span.column}`)).toEqual([expect.stringContaining(code)]);
  return es[0]!;
}

/** Every Expr node of a tree (through domains). */
function walk(e: Expr, out: Expr[] = []): Expr[] {
  out.push(e);
  const kids = children(e);
  kids.forEach((k) => walk(k, out));
  return out;
}

describe("loadEdition on the mini fixture", () => {
  const { result } = variant();

  it("loads without diagnostics", () => {
    expect(result.diagnostics).toEqual([]);
    expect(result.edition).toBeDefined();
  });

  it("lowers to IR: citations, scopes, groups, params, enums", () => {
    const ed = result.edition!;
    expect(ed).toMatchObject({ name: "mini", title: "Mini Test Edition", cites: "mini" });
    const twice = ed.rules.find((r) => r.id === "dow.twice")!;
    expect(twice.citation).toEqual({ source: "mini", section: "9.6", text: "mini §9.6" });
    expect(twice.scope).toEqual({ phase: "diplomacy", segment: "declarations" });
    expect(twice.groups).toEqual(["diplo"]);
    // the scope is not conjoined into the condition
    expect(walk(twice.when).some((x) => x.k === "field" && (x.field === "phase" || x.field === "segment"))).toBe(false);
    expect(ed.rules.find((r) => r.id === "move.path")!.groups).toEqual(["*"]);
    expect(ed.actions.find((a) => a.name === "declare_war")!.params).toEqual([
      { name: "by", type: { k: "enum", name: "MajorPower", base: "Power", members: ["red", "blue"] }, actor: true },
      { name: "target", type: { k: "enum", name: "Power", base: "Power", members: ["red", "blue", "green", "genoa"] }, actor: false },
    ]);
    expect(ed.enums.find((e) => e.name === "Space")!.members).toEqual(["red_home", "blue_home", "genoa", "pass_town", "sea_a"]);
    expect(ed.enums.find((e) => e.name === "MajorPower")).toMatchObject({ base: "Power", members: ["red", "blue"] });
    expect(ed.exemptions[0]).toMatchObject({ id: "move.truce", groups: ["*"], rules: [] });
    expect(ed.invariants.map((i) => i.id)).toEqual(["state.no_self_war"]);
    expect(ed.routes[0]).toMatchObject({ name: "march_path", landVar: "s", seaVar: "z", portVar: "q", passes: { k: "lit", value: false } });
    expect(ed.routes[0]!.maxSeas).toMatchObject({ k: "lit", value: 1 });
  });

  it("inlines defs, resolves enum literals to their base, types every expression", () => {
    const ed = result.edition!;
    const genoa = ed.rules.find((r) => r.id === "dow.genoa")!.when;
    expect(genoa).toMatchObject({ k: "cmp", op: "=", right: { k: "lit", value: "genoa", type: { k: "enum", name: "Power", base: "Power" } } });
    const twice = ed.rules.find((r) => r.id === "dow.twice")!.when;
    // at_war(by, target) is inlined: its quantifier now mentions the action params
    expect(twice.k).toBe("or");
    const nodes = walk(twice);
    expect(nodes.some((x) => x.k === "quant" && x.var === "w")).toBe(true);
    expect(nodes.filter((x) => x.k === "var").map((x) => (x as { name: string }).name).sort()).toEqual(
      ["by", "by", "by", "target", "target", "target", "target", "w", "w", "w", "w"],
    );
    // `red`, `blue` in the set literal: enum literals of the base enum
    const set = nodes.find((x) => x.k === "setlit")!;
    expect(set.type).toMatchObject({ k: "list", elem: { k: "enum", name: "Power" } });
    for (const r of [...ed.rules.map((x) => x.when), ...ed.exemptions.map((x) => x.when), ...ed.invariants.map((x) => x.expr)]) {
      for (const x of walk(r)) {
        expect(x.type).toBeDefined();
        expect(x.pos?.file).toMatch(/^ed\d+\/\w+\.rules$/);
      }
    }
    const cap = walk(ed.rules.find((r) => r.id === "move.cap")!.when);
    expect(cap.find((x) => x.k === "agg")).toMatchObject({ op: "count", domain: { k: "board", fn: "ports_of" }, varType: { name: "Space" } });
    const path1 = walk(ed.rules.find((r) => r.id === "move.path")!.when);
    expect(path1.find((x) => x.k === "reach")).toMatchObject({ route: "march_path" });
  });

  it("records the inputs with hashes, sorted", () => {
    const ed = result.edition!;
    const files = ed.inputs.map((i) => i.file);
    expect(files).toEqual([...files].sort());
    expect(files.map((f) => f.replace(/^ed\d+\//, ""))).toEqual(["board.json", "edition.rules", "state.schema.json", "war.rules"]);
    for (const i of ed.inputs) expect(i.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(ed.inputHash).toMatch(/^[0-9a-f]{64}$/);
    // same inputs, same hash (file paths are part of it: compare two copies under one name)
    const again = loadEdition(path.relative(process.cwd(), FIXTURE)).edition!;
    expect(again.inputHash).toBe(loadEdition(path.relative(process.cwd(), FIXTURE)).edition!.inputHash);
    expect(again.inputHash).not.toBe(ed.inputHash);
  });
});

describe("name checks", () => {
  it("unknown state field, with did-you-mean and the field's position", () => {
    const { result } = variant({ "war.rules": [["state.spaces[s].controller = p", "state.spaces[s].contoller = p"]] });
    const d = only(result.diagnostics, "RW2001");
    expect(d.message).toBe("unknown field of `record SpaceState` `contoller`");
    expect(d.help).toBe("did you mean `controller`?");
    expect(d.file).toMatch(/^ed\d+\/war\.rules$/);
    expect(d.span).toEqual({ line: 8, column: 58, endLine: 8, endColumn: 67 });
    expect(result.edition).toBeUndefined();
  });

  it("unknown field of the state root", () => {
    const { result } = variant({ "war.rules": [["some w in state.wars:", "some w in state.war:"]] });
    const d = only(result.diagnostics, "RW2001");
    expect(d.message).toBe("unknown state field `war`");
    expect(d.help).toBe("did you mean `wars`?");
  });

  it("unknown enum member, with did-you-mean", () => {
    const { result } = variant({ "war.rules": [["c = truce", "c = truse"]] });
    const d = only(result.diagnostics, "RW2002");
    expect(d.message).toBe("unknown name `truse`");
    expect(d.help).toBe("did you mean `truce`?");
    const e = variant({ "war.rules": [["Power.genoa", "Power.genova"]] }).result;
    expect(only(e.diagnostics, "RW2004").help).toBe("did you mean `genoa`?");
  });

  it("no suggestion when nothing is close", () => {
    const { result } = variant({ "war.rules": [["c = truce", "c = zzzzzzzz"]] });
    expect(only(result.diagnostics, "RW2002").help).not.toMatch(/did you mean/);
  });

  it("unknown def, action, route, type", () => {
    expect(only(variant({ "war.rules": [["at_war(by, target) or", "at_wr(by, target) or"]] }).result.diagnostics, "RW2005").help).toBe("did you mean `at_war`?");
    expect(only(variant({ "war.rules": [["forbid declare_war when target", "forbid declare_wa when target"]] }).result.diagnostics, "RW2007").help).toBe("did you mean `declare_war`?");
    expect(only(variant({ "war.rules": [["reachable(march_path(", "reachable(marchpath("]] }).result.diagnostics, "RW2006").help).toBe("did you mean `march_path`?");
    expect(only(variant({ "war.rules": [["target: Power)", "target: Powr)"]] }).result.diagnostics, "RW2003").help).toBe("did you mean `Power`?");
  });

  it("duplicate rule id, with the first one as related", () => {
    const { result } = variant({ "war.rules": [['rule pass.card §11', 'rule pass.empty §11']] });
    const d = only(result.diagnostics, "RW2010");
    expect(d.message).toBe("duplicate id `pass.empty`");
    expect(d.related).toEqual([{ message: "first used here by a rule", pos: { file: expect.stringMatching(/war\.rules$/), line: 30, column: 6 } }]);
    expect(d.span.line).toBe(33);
  });

  it("duplicate enum and def names", () => {
    const r1 = variant({ "edition.rules": [["enum Card { truce, march }", "enum Card { truce, march }\nenum Phase { a }"]] }).result;
    expect(only(r1.diagnostics, "RW2009").related?.[0]?.message).toBe("first declared here");
    const r2 = variant({ "war.rules": [["def controls(", "def at_war(a: Power): bool = true\ndef controls("]] }).result;
    expect(errors(r2.diagnostics).map((d) => d.code)).toContain("RW2009");
  });

  it("unknown rule id in an exemption", () => {
    const { result } = variant({ "war.rules": [["lifts (*) when", "lifts (*), move.pth when"]] });
    const d = only(result.diagnostics, "RW2008");
    expect(d.message).toBe("unknown rule id `move.pth`");
    expect(d.help).toBe("did you mean `move.path`?");
  });

  it("exemption reading a parameter that a lifted rule's action lacks", () => {
    const { result } = variant({ "war.rules": [["lifts (*) when truce in state.hands[power]", "lifts (*), dow.genoa when truce in state.hands[power]"]] });
    const d = only(result.diagnostics, "RW2012");
    expect(d.message).toBe("`power` is not a parameter of every lifted rule's action (`declare_war` of rule `dow.genoa` lacks it)");
  });

  it("ambiguous enum member unless the context decides", () => {
    // `genoa` is a Power and a Space: the other side of `=`, a parameter type or a set decides
    const ok = variant({
      "war.rules": [
        ["target = Power.genoa", "target = genoa and destination_free(genoa)"],
        ["def controls(", "def destination_free(s: Space): bool = not state.spaces[s].unrest\ndef controls("],
        ["forbid move when units > 4", "forbid move when destination in {genoa, sea_a} and units > 4"],
      ],
    }).result;
    expect(errors(ok.diagnostics)).toEqual([]);
    const lit = ok.edition!.rules.find((r) => r.id === "dow.genoa")!.when;
    expect(lit).toMatchObject({ k: "and", args: [{ right: { value: "genoa", type: { name: "Power" } } }, { k: "not" }] });
    const amb = variant({ "war.rules": [["forbid pass when some c in state.hands[power]: c = truce", "forbid pass when genoa = genoa"]] }).result;
    const ds = errors(amb.diagnostics);
    expect(ds.map((d) => [d.code, d.span.column])).toEqual([["RW2011", 20], ["RW2011", 28]]);
    expect(ds[0]!.message).toBe("ambiguous enum member `genoa`: it is a member of `Power` and `Space`");
    expect(ds[0]!.help).toBe("write `Power.genoa` or `Space.genoa`");
  });
});

describe("type checks", () => {
  const rule = (cond: string) => variant({ "war.rules": [["forbid pass when some c in state.hands[power]: c = truce", `forbid pass when ${cond}`]] }).result;

  it("comparing int with an enum", () => {
    const d = only(rule("state.turn = red").diagnostics, "RW3006");
    expect(d.message).toBe("cannot compare `int` with `Power`");
    expect(d.span).toMatchObject({ line: 34, column: 20 });
  });

  it("`and` on an int, order on an enum", () => {
    expect(only(rule("state.turn and true").diagnostics, "RW3002").message).toBe("`and` takes a `bool`, found `int`");
    expect(only(rule("power < 3").diagnostics, "RW3002").message).toBe("`<` takes an `int`, found `MajorPower`");
  });

  it("wrong argument count and type for defs and builtins", () => {
    expect(only(rule("controls(power)").diagnostics, "RW3003").message).toBe("`controls` takes 2 arguments, found 1");
    expect(only(rule("controls(power, 3)").diagnostics, "RW3001").message).toBe("argument `s` of `controls` must be `Space`, found `int`");
    expect(only(rule("is_land(power)").diagnostics, "RW3001").message).toBe("argument `a` of `is_land` must be `Space`, found `MajorPower`");
    expect(only(rule("is_capital(red_home)").diagnostics, "RW3003").message).toBe("`is_capital` takes 2 arguments, found 1");
    // a member outside a subset parameter
    expect(only(rule("some p in Power: count(state.hands[p]) > 0").diagnostics, "RW3007").message).toBe("map keyed by `MajorPower` indexed by `Power`");
    expect(only(rule("count(state.hands[green]) > 0").diagnostics, "RW3007").message).toBe("map keyed by `MajorPower` indexed by `Power`");
  });

  it("`distance(a, b)`: Space × Space → int in 0..space count; misuse is a diagnostic", () => {
    const rule = (cond: string) => variant({ "war.rules": [["forbid pass when some c in state.hands[power]: c = truce", `forbid move when ${cond}`]] }).result;
    const ok = rule("distance(origin, destination) < distance(origin, red_home)");
    expect(ok.diagnostics).toEqual([]);
    const when = ok.edition!.rules.find((r) => r.id === "pass.card")!.when;
    expect(walk(when).find((x) => x.k === "distance")).toMatchObject({
      from: { k: "var", name: "origin" }, to: { k: "var", name: "destination" }, type: { k: "int", min: 0, max: 5 },
    });
    expect(only(rule("distance(origin) > 1").diagnostics, "RW3003").message).toBe("`distance` takes 2 arguments, found 1");
    expect(only(rule("distance(origin, destination, origin) > 1").diagnostics, "RW3003").message).toBe("`distance` takes 2 arguments, found 3");
    expect(only(rule("distance(power, destination) > 1").diagnostics, "RW3001").message).toBe("argument `from` of `distance` must be `Space`, found `MajorPower`");
    expect(only(rule("distance(origin, 3) > 1").diagnostics, "RW3001").message).toBe("argument `to` of `distance` must be `Space`, found `int`");
    // an int, not a bool
    expect(only(rule("distance(origin, destination)").diagnostics, "RW3001").message).toBe("a rule's `when` condition must be `bool`, found `int`");
    expect(only(rule("distance(origin, destination) and true").diagnostics, "RW3002").message).toBe("`and` takes a `bool`, found `int`");
    // a misspelling suggests it
    expect(only(rule("distanse(origin, destination) > 1").diagnostics, "RW2005").help).toBe("did you mean `distance`?");
    // a def of that name takes precedence (the builtin is not a reserved word)
    const def = variant({ "war.rules": [
      ["forbid pass when some c in state.hands[power]: c = truce", "forbid move when distance(origin, destination) > 1"],
      ["def controls(", "def distance(a: Space, b: Space): bool = a = b\ndef controls("],
    ] }).result;
    expect(only(def.diagnostics, "RW3002").message).toBe("`>` takes an `int`, found `bool`");
    // so does a table of that name: called with one argument, it is the table, not the builtin
    const table = variant({ "war.rules": [
      ["forbid pass when some c in state.hands[power]: c = truce", "forbid move when distance(2) > 1"],
      ["def controls(", "table distance §1 \"a toy table\" (roll: int in 1..2): int key roll { 1: 0\n 2: 5 }\ndef controls("],
    ] }).result;
    expect(errors(table.diagnostics)).toEqual([]);
  });

  it("`distance` between two literal spaces no path joins is a warning (RW3010)", () => {
    const island = variant({
      "board.json": [['{ "id": "sea_a", "name": "Sea A", "type": "sea", "home": [] }', '{ "id": "sea_a", "name": "Sea A", "type": "sea", "home": [] },\n    { "id": "island", "name": "Island", "type": "normal", "home": [] }']],
      "state.schema.json": [['"pass_town", "sea_a"]', '"pass_town", "sea_a", "island"]'], ['"pass_town", "sea_a"] }', '"pass_town", "sea_a", "island"] }']],
      "war.rules": [["forbid pass when some c in state.hands[power]: c = truce", "forbid pass when distance(red_home, island) < distance(island, island) + distance(red_home, genoa)"]],
    }).result;
    expect(errors(island.diagnostics)).toEqual([]);
    const ws = island.diagnostics.filter((d) => d.code === "RW3010");
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatchObject({ severity: "warning", message: "no path on the board joins `red_home` and `island`: `distance` gives 6 (the space count)" });
    expect(ws[0]!.help).toBeTruthy();
    expect(island.edition).toBeDefined();
  });

  it("map indexed by the wrong enum", () => {
    const d = only(rule("state.spaces[power].unrest").diagnostics, "RW3007");
    expect(d.message).toBe("map keyed by `Space` indexed by `MajorPower`");
  });

  it("`in` with something that is not a set", () => {
    expect(only(rule("power in state.turn").diagnostics, "RW3005").message).toBe("`in` needs a set `{…}` or a list of scalars, found `int`");
    expect(only(rule("power in {red, state.turn}").diagnostics, "RW3001").message).toBe("set item is `int`, but the tested value is `MajorPower`");
  });

  it("a non-bool condition and a non-domain", () => {
    expect(only(rule("state.turn").diagnostics, "RW3001").message).toBe("a rule's `when` condition must be `bool`, found `int`");
    expect(only(rule("some x in state.turn: true").diagnostics, "RW3004").message).toBe("not a domain: `int`");
    expect(only(rule("count(state.turn) > 1").diagnostics, "RW3002").message).toBe("`count(…)` takes a list, found `int`");
  });
});

describe("declaration checks", () => {
  it("oblige on an action with parameters other than its actor", () => {
    const { result } = variant({ "war.rules": [["forbid pass when some c", "oblige declare_war when some c"], ["state.hands[power]: c = truce", "state.hands[by]: c = truce"]] });
    const d = only(result.diagnostics, "RW2017");
    expect(d.message).toBe("`oblige declare_war` does not say which move is obliged: `declare_war` has parameters other than its actor (`target`)");
    expect(d.help).toBe("name the value of each: `oblige declare_war(target: …) when …`, each value over the state and `by`");
  });

  it("recursive defs", () => {
    const { result } = variant({ "war.rules": [["def controls(p: Power, s: Space): bool = state.spaces[s].controller = p", "def controls(p: Power, s: Space): bool = state.spaces[s].controller = p or controls(p, s)"]] });
    expect(errors(result.diagnostics).map((d) => d.code)).toEqual(["RW2013"]);
  });

  it("at most one actor; subset members in the base; during needs Phase/Segment", () => {
    expect(only(variant({ "war.rules": [["action pass(actor power: MajorPower)", "action pass(actor power: MajorPower, actor other: Power)"]] }).result.diagnostics, "RW2014").message)
      .toBe("an action has at most one `actor` parameter");
    expect(only(variant({ "edition.rules": [["enum MajorPower : Power { red, blue }", "enum MajorPower : Power { red, bleu }"]] }).result.diagnostics, "RW2016").help)
      .toBe("did you mean `blue`?");
    expect(only(variant({ "war.rules": [["during diplomacy.declarations", "during diplomacy.declaration"]] }).result.diagnostics, "RW2018").help)
      .toBe("did you mean `declarations`?");
    expect(only(variant({ "edition.rules": [["enum Segment { declarations, peace }", ""]], "state.schema.json": [['"segment": { "$ref": "#/$defs/Segment" },', ""], ['"segment", ', ""], ['"Segment": { "type": "string", "enum": ["declarations", "peace"] },', ""]] }).result.diagnostics, "RW2018").message)
      .toBe("`during` needs `enum Segment`");
  });

  it("decline: the phase's decline move is a choice-free action and a Phase member, one per phase (RW2022)", () => {
    const DECL = 'decline pass during diplomacy "a power passes instead of declaring war"';
    const ok = variant().result;
    expect(ok.edition!.declines).toEqual([{ phase: "diplomacy", action: "pass", title: "a power passes instead of declaring war", pos: expect.objectContaining({ line: 41, column: 9 }) }]);
    const unknown = only(variant({ "war.rules": [[DECL, DECL.replace("decline pass", "decline pas")]] }).result.diagnostics, "RW2022");
    expect([unknown.message, unknown.help]).toEqual(["unknown action `pas`", "did you mean `pass`?"]);
    const choices = only(variant({ "war.rules": [[DECL, DECL.replace("decline pass", "decline move")]] }).result.diagnostics, "RW2022");
    expect(choices.message).toBe("`move` cannot be a decline move: it has parameters other than its actor");
    expect(choices.help).toContain("only parameter is its actor");
    const phase = only(variant({ "war.rules": [[DECL, DECL.replace("during diplomacy", "during diplomcy")]] }).result.diagnostics, "RW2022");
    expect([phase.message, phase.help]).toEqual(["`diplomcy` is not a member of `Phase`", "did you mean `diplomacy`?"]);
    const twice = only(variant({ "war.rules": [[DECL, `${DECL}\ndecline pass during diplomacy "again"`]] }).result.diagnostics, "RW2022");
    expect(twice.message).toBe("phase `diplomacy` already has a decline move");
    expect(twice.related?.[0].message).toBe("the first one");
  });

  it("a phase whose rules scope a move of a power and that declares no decline move is a warning (RW2023)", () => {
    const r = variant({ "war.rules": [['decline pass during diplomacy "a power passes instead of declaring war"', ""]] }).result;
    expect(r.edition).toBeDefined();
    const ws = r.diagnostics.filter((d) => d.code === "RW2023");
    expect(ws).toHaveLength(1);
    expect(ws[0]).toMatchObject({ severity: "warning", message: "phase `diplomacy` has moves but no decline move", span: { line: 20, column: 6 } });
    expect(ws[0]!.help).toContain("decline pass during diplomacy");
    expect(r.edition!.declines).toBeUndefined();
  });

  it("`enum Space` is reserved for the board", () => {
    const r = variant({ "edition.rules": [["enum Card", "enum Space { a }\nenum Card"]] }).result;
    expect(only(r.diagnostics, "RW2019").message).toBe("`enum Space` cannot be declared: `Space` comes from the board");
  });

  it("every actor of an edition has one type (obligations are read across actions)", () => {
    const r = variant({ "war.rules": [["action pass(actor power: MajorPower)", "action pass(actor power: Power)"]] }).result;
    const d = errors(r.diagnostics).find((x) => x.code === "RW2014")!;
    expect(d.message).toBe("the actor `power` has type `Power`, but the edition's actors have type `MajorPower`");
    expect(d.span.line).toBe(2);
    expect(d.related?.[0].message).toBe("the first actor");
    expect(r.edition).toBeUndefined();
  });

  it("exactly one edition; schema and board required", () => {
    const r1 = variant({ "edition.rules": [['edition mini "Mini Test Edition" cites "mini"', ""]] }).result;
    expect(only(r1.diagnostics, "RW2015").message).toMatch(/^no `edition` declaration in `ed\d+`$/);
    const r2 = variant({ "war.rules": [["action declare_war", 'edition other "x" cites "y"\naction declare_war']] }).result;
    expect(only(r2.diagnostics, "RW2015").message).toBe("second `edition` declaration");
    const r3 = variant({ "edition.rules": [['board "board.json"', ""]] }).result;
    expect(errors(r3.diagnostics).map((d) => d.code)).toContain("RW2015");
    expect(r3.edition).toBeUndefined();
  });
});

describe("schema and board checks", () => {
  it("schema enum differing from the rule files", () => {
    const d = only(variant({ "state.schema.json": [['"enum": ["red", "blue", "green", "genoa"]', '"enum": ["red", "blue", "green", "genoa", "purple"]']] }).result.diagnostics, "RW4005");
    expect(d.message).toBe("schema enum `Power` differs from `enum Power` in the rule files (only in the schema: `purple`)");
    expect(d.file).toMatch(/state\.schema\.json$/);
    expect(d.span.line).toBe(25);
  });

  it("schema $defs.Space must match the board", () => {
    const d = only(variant({ "state.schema.json": [['"pass_town", "sea_a"] },', '"pass_town"] },']] }).result.diagnostics, "RW4009");
    expect(d.message).toContain("only in the board: `sea_a`");
  });

  it("unsupported constructs; unbounded lists get 8 with a warning", () => {
    const r = variant({ "state.schema.json": [['"maxItems": 4', '"minItems": 1'], ['"turn": { "type": "integer", "minimum": 1, "maximum": 9 }', '"turn": { "oneOf": [] }']] }).result;
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.message])).toEqual([
      ["RW4003", "error", "unsupported JSON Schema keyword `oneOf`"],
      ["RW4003", "error", "unsupported JSON Schema keyword `minItems` in a list"],
      ["RW4004", "warning", "list without `maxItems`: bounded to 8"],
    ]);
    expect(r.edition).toBeUndefined();
    const w = variant({ "state.schema.json": [[', "maxItems": 4', ""]] }).result;
    expect(w.diagnostics.map((d) => d.code)).toEqual(["RW4004"]);
    expect(w.edition).toBeDefined();
    expect(w.edition!.state.fields.find((f) => f.name === "wars")!.type).toMatchObject({ k: "list", bound: 8 });
  });

  it("open records and incomplete maps", () => {
    const r = variant({ "state.schema.json": [['"required": ["red", "blue"]', '"required": ["red"]']] }).result;
    expect(only(r.diagnostics, "RW4010").message).toBe("map keyed by `MajorPower` does not require `blue`");
  });

  it("board shape and consistency", () => {
    const r1 = variant({ "board.json": [['"type": "normal", "home": [] }', '"type": "plain", "home": [] }']] }).result;
    expect(only(r1.diagnostics, "RW4007").message).toBe('`/spaces/3/type` must be equal to one of the allowed values (one of `normal`, `key`, `fortress`, `capital`, `electorate`, `sea`)');
    expect(r1.diagnostics[0]!.span.line).toBe(6);
    const r2 = variant({ "board.json": [['"to": "blue_home", "type": "normal" }', '"to": "blue_hom", "type": "normal" }'], ['"home": ["genoa"]', '"home": ["genova"]']] }).result;
    expect(errors(r2.diagnostics).map((d) => d.message)).toEqual(["connection to unknown space `blue_hom`"]);
    const r3 = variant({ "board.json": [['"home": ["genoa"]', '"home": ["genova"]']] }).result;
    expect(only(r3.diagnostics, "RW4008").help).toBe("did you mean `genoa`?");
  });

  it("missing folder, missing file, invalid JSON: diagnostics, never a throw", () => {
    const missing = loadEdition("no/such/dir", { repoRoot: tmpRoot });
    expect(missing.diagnostics.map((d) => [d.code, d.file, d.span.line, d.span.column])).toEqual([["RW4001", "no/such/dir", 1, 1]]);
    const noBoard = variant({ "board.json": null }).result;
    expect(only(noBoard.diagnostics, "RW4001").message).toMatch(/^cannot read board file `ed\d+\/board\.json`$/);
    const bad = variant({ "state.schema.json": [['"turn": {', '"turn": {,']] }).result;
    const d = only(bad.diagnostics, "RW4002");
    expect(d.span).toMatchObject({ line: 7, column: 14 });
    expect(d.file).toMatch(/state\.schema\.json$/);
  });

  it("syntax errors stop the check and are all reported", () => {
    const r = variant({ "war.rules": [["forbid declare_war when target = Power.genoa", "forbid declare_war target = Power.genoa"], ["def controls(p: Power, s: Space): bool", "def controls(p: Power, s: Space) bool"]] }).result;
    expect(r.diagnostics.map((d) => [d.code, d.span.line])).toEqual([["RW1003", 8], ["RW1003", 18]]);
  });
});

describe("diagnostics", () => {
  it("every reported code is in the catalog with the catalog's severity", () => {
    const all: Diagnostic[] = [];
    const cases: Record<string, [string, string][]>[] = [
      { "war.rules": [["c = truce", "c = truse"], ["target: Power)", "target: Powr)"]] },
      { "state.schema.json": [[', "maxItems": 4', ""]] },
      { "war.rules": [["forbid move when units", "forbid move when units and"]] },
      { "war.rules": [["decline pass during diplomacy", "decline move during diplomacy"]] },
      { "war.rules": [["decline pass during diplomacy", "// decline pass during diplomacy"]] },
    ];
    for (const edits of cases) all.push(...variant(edits).result.diagnostics);
    expect(all.length).toBeGreaterThan(2);
    for (const d of all) {
      expect(Object.keys(CATALOG)).toContain(d.code);
      expect(d.severity).toBe(CATALOG[d.code as keyof typeof CATALOG].severity);
      expect(d.message).toMatch(/^[^A-Z].*[^.]$/);
      expect(d.help).toBeTruthy();
    }
  });

  it("renders file:line:col, the source line and a caret under the span", () => {
    const { result, read } = variant({ "war.rules": [["state.spaces[s].controller = p", "state.spaces[s].contoller = p"]] });
    const d = result.diagnostics[0]!;
    const text = renderDiagnostic(d, read(d.file));
    const lines = text.split("\n");
    expect(lines[0]).toBe(`${d.file}:8:58: error[RW2001]: unknown field of \`record SpaceState\` \`contoller\``);
    expect(lines[1]).toBe("  |");
    expect(lines[2]).toBe("8 | def controls(p: Power, s: Space): bool = state.spaces[s].contoller = p");
    const caret = lines[3]!;
    expect(caret.indexOf("^")).toBe(lines[2]!.indexOf("contoller"));
    expect(caret).toMatch(/^  \| +\^{9}$/);
    expect(lines[4]).toBe("help: did you mean `controller`?");
  });

  it("renders related notes", () => {
    const { result, read } = variant({ "war.rules": [['rule pass.card §11', 'rule pass.empty §11']] });
    const d = result.diagnostics[0]!;
    expect(renderDiagnostic(d, read(d.file))).toMatch(/\nnote: first used here by a rule at ed\d+\/war\.rules:30:6$/);
  });
});
