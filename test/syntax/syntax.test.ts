import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { parseRules } from "../../compiler/syntax/index.js";
import type { Decl, Expr } from "../../compiler/syntax/ast.js";

/** The example block of the language spec (the first fenced block starting with `edition`). */
function specExample(): string {
  const md = fs.readFileSync(new URL("../../dsl/README.md", import.meta.url), "utf8");
  const m = /```\n(edition [\s\S]*?)```/.exec(md);
  if (!m) throw new Error("no example in dsl/README.md");
  return m[1]!;
}

function ruleWhen(decls: Decl[], id: string): Expr {
  const d = decls.find((x) => (x.k === "rule" || x.k === "exempt") && x.id.name === id);
  if (!d || (d.k !== "rule" && d.k !== "exempt")) throw new Error(`no rule ${id}`);
  return d.when;
}

/** A compact s-expression of an AST expression, for structural assertions. */
function sx(e: Expr): string {
  switch (e.k) {
    case "int": return String(e.value);
    case "str": return JSON.stringify(e.value);
    case "bool": return String(e.value);
    case "state": return "state";
    case "name": return e.name;
    case "call": return `${e.callee.name}(${e.args.map(sx).join(" ")})`;
    case "field": return `${sx(e.obj)}.${e.field.name}`;
    case "index": return `${sx(e.obj)}[${sx(e.key)}]`;
    case "not": return `(not ${sx(e.arg)})`;
    case "neg": return `(- ${sx(e.arg)})`;
    case "bin": return `(${e.op} ${sx(e.left)} ${sx(e.right)})`;
    case "set": return `{${e.items.map(sx).join(" ")}}`;
    case "quant": return `(${e.q} ${e.var.name} ${sx(e.domain)} ${sx(e.body)})`;
    case "agg": return `(${e.op}${e.n !== undefined ? " " + e.n : ""} ${e.var.name} ${sx(e.domain)}${e.where ? " where " + sx(e.where) : ""}${e.body ? " : " + sx(e.body) : ""})`;
    case "len": return `(len ${sx(e.arg)})`;
    case "pick": return `(${e.op} ${sx(e.left)} ${sx(e.right)})`;
    case "ite": return `(if ${sx(e.cond)} ${sx(e.then)} ${sx(e.else)})`;
    case "reach": return `(reach ${e.route.name}(${e.args.map(sx).join(" ")}) ${sx(e.from)} ${sx(e.to)})`;
  }
}

describe("parseRules", () => {
  it("parses the spec example without diagnostics", () => {
    const { ast, diagnostics } = parseRules(specExample(), "spec.rules");
    expect(diagnostics).toEqual([]);
    expect(ast.decls.map((d) => d.k)).toEqual([
      "edition", "schema", "board", "enum", "enum", "action", "action", "action", "def", "route", "rule", "rule", "rule", "exempt", "invariant",
    ]);
    const ed = ast.decls[0]!;
    expect(ed).toMatchObject({ k: "edition", name: { name: "his" }, title: "Here I Stand", cites: "his" });
    const sub = ast.decls[4]!;
    expect(sub).toMatchObject({ k: "enum", name: { name: "MajorPower" }, base: { name: "Power" } });
    const deploy = ast.decls[7]!;
    expect(deploy.k === "action" && deploy.params.map((p) => [p.actor, p.name.name, p.type.k])).toEqual([
      [true, "power", "named"], [false, "origin", "named"], [false, "destination", "named"], [false, "land_units", "int"], [false, "leaders", "list"],
    ]);
    expect(sx(ruleWhen(ast.decls, "dow.scotland"))).toBe(
      "(and (= target scotland) (or (in by {ottoman papacy protestant}) allied(by france)))",
    );
    const peace = ast.decls.find((d) => d.k === "rule" && d.id.name === "dow.peace_this_phase");
    expect(peace).toMatchObject({ during: { phase: { name: "diplomacy" }, segment: { name: "declarations_of_war" } } });
    const noPass = ast.decls.find((d) => d.k === "rule" && d.id.name === "deploy.no_pass");
    expect(noPass).toMatchObject({ groups: [{ name: "*" }], citations: [{ value: "10", named: false }] });
    expect(sx(ruleWhen(ast.decls, "deploy.no_pass"))).toBe("(not (reach deploy_path(power true) origin destination))");
    const ex = ast.decls.find((d) => d.k === "exempt")!;
    expect(ex.k === "exempt" && ex.targets).toMatchObject([{ k: "group", group: { name: "*" } }]);
    const inv = ast.decls.find((d) => d.k === "invariant")!;
    expect(inv).toMatchObject({ id: { name: "state.no_self_alliance" }, title: "no power is allied with itself" });
    const route = ast.decls.find((d) => d.k === "route")!;
    expect(route.k === "route" && route.clauses.map((c) => c.k)).toEqual(["land", "sea", "port", "max_seas", "passes"]);
  });

  it("records spans (1-based, end exclusive)", () => {
    const { ast } = parseRules('rule a.b §1 "t"\n  forbid act when x = 1', "f.rules");
    const r = ast.decls[0]!;
    expect(r.k === "rule" && r.id.span).toEqual({ line: 1, column: 6, endLine: 1, endColumn: 9 });
    expect(r.k === "rule" && r.action.span).toEqual({ line: 2, column: 10, endLine: 2, endColumn: 13 });
    expect(r.k === "rule" && r.when.span).toEqual({ line: 2, column: 19, endLine: 2, endColumn: 24 });
  });

  it("follows the precedence and extent rules of the grammar", () => {
    const src = `invariant p.one "t": a or b and not c implies d
invariant p.two "t": some x in Power: x = a and y
invariant p.three "t": x not in {a, b} and -n * 2 + 1 >= count(state.l)
invariant p.four "t": sum(x in Power where f(x): state.m[x].n) = sum_highest(2, y in ports_of(z): 1)
invariant p.five "t": count(x in MajorPower) = count(x) and (if c then 1 else 2) < 3
invariant state.six "t": E.m = state.a.b[k].c`;
    const { ast, diagnostics } = parseRules(src, "p.rules");
    expect(diagnostics).toEqual([]);
    const bodies = ast.decls.map((d) => (d.k === "invariant" ? sx(d.expr) : ""));
    expect(bodies).toEqual([
      "(implies (or a (and b (not c))) d)",
      "(some x Power (and (= x a) y))",
      "(and (not in x {a b}) (>= (+ (* (- n) 2) 1) (len state.l)))",
      "(= (sum x Power where f(x) : state.m[x].n) (sum_highest 2 y ports_of(z) : 1))",
      "(and (= (count x MajorPower) (len x)) (< (if c 1 2) 3))",
      "(= E.m state.a.b[k].c)",
    ]);
    expect(ast.decls[5]).toMatchObject({ id: { name: "state.six" } });
  });

  it("parses `distance(a, b)` as a builtin call (not a keyword), with a syntax error for a missing argument", () => {
    const ok = parseRules(`invariant d.one "t": distance(s, E.m) + 1 < distance(state.a[k], t) * 2
def distance(a: Space, b: Space): int = 0`, "d.rules");
    expect(ok.diagnostics).toEqual([]);
    expect(sx((ok.ast.decls[0] as Extract<Decl, { k: "invariant" }>).expr)).toBe("(< (+ distance(s E.m) 1) (* distance(state.a[k] t) 2))");
    expect(ok.ast.decls[1]).toMatchObject({ k: "def", name: { name: "distance" } });
    const bad = parseRules(`invariant d.two "t": distance(s, ) < 2`, "d.rules");
    expect(bad.diagnostics.map((d) => [d.code, d.span.line, d.span.column])).toEqual([["RW1004", 1, 34]]);
  });

  it("reads a `)` missing inside `reachable(…)` as such, with the shape of `reachable` as help (issue 28)", () => {
    const src = [
      'override rule move.path §10 "t"',
      "  forbid move when not reachable(march_path(power, origin, destination)",
      "",
      'override rule move.cap §10 "u"',
      "  forbid move when units > 4",
    ].join("\n");
    const { diagnostics } = parseRules(src, "r.rules");
    expect(diagnostics.map((d) => [d.code, d.span.line, d.span.column, d.message])).toEqual([
      ["RW1003", 2, 72, "expected `,` after `)` in `reachable(…)`, found `override` (the start of the next declaration, line 4)"],
    ]);
    expect(diagnostics[0]!.help).toMatch(/^`reachable` reads `reachable\(<route>\(<arguments>\), <from>, <to>\)`.*is a `\)` missing\?$/);
    expect(diagnostics[0]!.help).not.toMatch(/override/);
  });

  it("reports every syntax error of a file with its line and column", () => {
    const src = [
      "enum Power { red, blue }", //                              1
      "action declare_war(actor by: Power target: Power)", //     2  missing ','
      "rule dow.a §9.6 \"t\"", //                                 4
      "  forbid declare_war target = red", //                     4  missing 'when'
      "def f(): bool = 1 +", //                                   5  missing operand
      "rule dow.b §9.6 \"t\" forbid declare_war when by = red", //6  fine
    ].join("\n");
    const { ast, diagnostics } = parseRules(src, "bad.rules");
    expect(diagnostics.map((d) => [d.code, d.span.line, d.span.column, d.message])).toEqual([
      ["RW1003", 2, 36, "expected `)` after `Power` in the action declaration, found `target`"],
      ["RW1003", 4, 22, "expected `when` after `declare_war` in the rule, found `target`"],
      ["RW1004", 5, 20, "expected an expression after `+`, found `rule` (the start of the next declaration, line 6)"],
    ]);
    for (const d of diagnostics) {
      expect(d.severity).toBe("error");
      expect(d.file).toBe("bad.rules");
      expect(d.help).toMatch(/reads `/);
    }
    // recovery: the declarations around the errors are still parsed
    expect(ast.decls.map((d) => d.k)).toEqual(["enum", "rule"]);
  });

  it("reports lexical errors and keeps going", () => {
    const src = 'enum A { x # y }\nrule r.s §1 "unterminated\nrule r.t §1 "ok" forbid a when x';
    const { diagnostics } = parseRules(src, "lex.rules");
    const codes = diagnostics.map((d) => [d.code, d.span.line, d.span.column]);
    expect(codes).toContainEqual(["RW1001", 1, 12]);
    expect(codes).toContainEqual(["RW1002", 2, 13]);
    expect(diagnostics.find((d) => d.code === "RW1001")!.message).toBe("unexpected character `#`");
  });

  it("rejects a rule id with spaces and input before the first declaration", () => {
    const { diagnostics } = parseRules('stray tokens\nrule dow. scotland §9.6 "t" forbid a when b', "ids.rules");
    expect(diagnostics.map((d) => d.code)).toEqual(["RW1005", "RW1006"]);
    expect(diagnostics[1]!.message).toBe("rule id `dow.scotland` contains spaces");
  });

  it("parses an action scope naming several phases, each with its segment where given, in source order (issue 26)", () => {
    const { ast, diagnostics } = parseRules("action a(actor p: P)\n  during luthers_95_theses, diplomacy.declarations_of_war,action_phase actor active his §18, vq §\"x\"\n", "s.rules");
    expect(diagnostics).toEqual([]);
    const d = ast.decls[0] as Extract<Decl, { k: "action" }>;
    expect(d.scope!.during!.map((x) => [x.phase.name, x.segment?.name, x.span.line, x.span.column, x.span.endColumn])).toEqual([
      ["luthers_95_theses", undefined, 2, 10, 27],
      ["diplomacy", "declarations_of_war", 2, 29, 58],
      ["action_phase", undefined, 2, 59, 71],
    ]);
    expect(d.scope!.who!.name).toBe("active");
    expect(d.scope!.citations.map((c) => [c.key?.name, c.value])).toEqual([["his", "18"], ["vq", "x"]]);
    // a comma with no phase after it, and a trailing dot, are syntax errors with the scope's shape
    for (const [src, col] of [["during a, §18", 13], ["during a, b. §18", 16]] as const) {
      const bad = parseRules(`action a(actor p: P)\n  ${src}\n`, "s.rules").diagnostics;
      expect(bad.map((x) => [x.code, x.span.line, x.span.column]), src).toEqual([["RW1003", 2, col]]);
      expect(bad[0]!.message, src).toMatch(/the action's scope|a phase of the action's scope/);
    }
  });

  it("never throws on garbage", () => {
    for (const src of ["", "rule", "((((", "edition", "rule x §1 \"t\" forbid a when", "}}} enum { ,,, }", "§§§", "def f(a: list<list<int>>): int = count("]) {
      expect(() => parseRules(src, "g.rules")).not.toThrow();
    }
    expect(parseRules("rule", "g.rules").diagnostics.length).toBeGreaterThan(0);
  });
});
