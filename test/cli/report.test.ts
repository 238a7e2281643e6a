/**
 * The rulebook report (compiler/report): every IR construct has a plain-English reading, no
 * reading of a bundled edition shows a raw id where the edition has a name, and the counts the
 * report's data carries are those of the JSON it reads (prove report, scenario results, coverage).
 * The page itself is tested in a real browser by test/cli/report-browser.test.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import type { ArithOp, BoardDomainFn, BoardFn, CmpOp, Domain, Expr, IREdition, TablePattern, Type } from "../../compiler/ir/types.js";
import { BOARD_DOMAIN, BOARD_FN, forAction, lexicon, readDomain, readExemption, readExpr, readInvariant, readPattern, readRoute, readRule, readTableRow } from "../../compiler/report/english.js";
import { buildSiteData, type TestResults } from "../../compiler/report/data.js";
import { ruleDiff } from "../../compiler/report/rule-diff.js";
import { readLayout, writeSite } from "../../compiler/report/site.js";
import type { CoverageReport } from "../../compiler/coverage/index.js";
import type { ProofReport } from "../../compiler/verify/run/results.js";

const require = createRequire(import.meta.url);
const Space: Type = { k: "enum", name: "Space", base: "Space", members: ["st_quentin", "paris"] };
const Power: Type = { k: "enum", name: "MajorPower", base: "Power", members: ["hungary_bohemia", "france"] };
const bool: Type = { k: "bool" };
const int: Type = { k: "int" };
const list: Type = { k: "list", elem: { k: "record", fields: [{ name: "home", type: bool }] }, bound: 4 };
const v = (name: string, type: Type = Space): Expr => ({ k: "var", name, type });
const lit = (value: boolean | number | string, type: Type): Expr => ({ k: "lit", value, type });
const hands: Expr = { k: "index", obj: { k: "field", obj: { k: "state", type: bool }, field: "hands", type: bool }, key: v("power", Power), type: list };

/** One expression of every kind (the Record type makes a new kind a compile error here). */
const SAMPLES: Record<Expr["k"], Expr> = {
  lit: lit("st_quentin", Space),
  var: v("origin"),
  state: { k: "state", type: bool },
  field: { k: "field", obj: { k: "state", type: bool }, field: "active_power", type: Power },
  index: hands,
  not: { k: "not", arg: v("flag", bool), type: bool },
  and: { k: "and", args: [v("a", bool), v("b", bool)], type: bool },
  or: { k: "or", args: [v("a", bool), { k: "and", args: [v("b", bool), v("c", bool)], type: bool }], type: bool },
  implies: { k: "implies", left: v("a", bool), right: v("b", bool), type: bool },
  cmp: { k: "cmp", op: "=", left: v("power", Power), right: lit("hungary_bohemia", Power), type: bool },
  arith: { k: "arith", op: "+", left: lit(1, int), right: lit(2, int), type: int },
  neg: { k: "neg", arg: lit(3, int), type: int },
  ite: { k: "ite", cond: v("a", bool), then: lit(4, int), else: lit(2, int), type: int },
  in: { k: "in", elem: v("origin"), set: { k: "setlit", items: [lit("paris", Space), lit("st_quentin", Space)], type: bool }, type: bool },
  setlit: { k: "setlit", items: [lit("paris", Space)], type: bool },
  quant: { k: "quant", q: "some", var: "c", varType: list.elem, domain: { k: "list", expr: hands }, body: { k: "field", obj: v("c", list.elem), field: "home", type: bool }, type: bool },
  agg: { k: "agg", op: "sum_highest", n: 2, var: "p", varType: Power, domain: { k: "enum", type: Power as Extract<Type, { k: "enum" }> }, where: v("a", bool), body: lit(1, int), type: int },
  len: { k: "len", arg: hands, type: int },
  board: { k: "board", fn: "adjacent", args: [v("origin"), lit("paris", Space)], type: bool },
  distance: { k: "distance", from: v("origin"), to: lit("st_quentin", Space), type: int },
  reach: { k: "reach", route: "deploy_path", args: [v("power", Power)], from: v("origin"), to: v("destination"), type: bool },
  table: { k: "table", table: "action_cost", args: [v("power", Power)], field: "cp", type: int },
};

const tinyIr = {
  board: { spaces: [{ id: "st_quentin", name: "St. Quentin", type: "normal", home: [] }, { id: "paris", name: "Paris", type: "capital", home: ["france"] }], connections: [] },
  enums: [{ name: "Power", base: "Power", members: ["hungary_bohemia", "france"], pos: { file: "x", line: 1, column: 1 } }],
  tables: [{ name: "action_cost", title: "the cost" }],
  routes: [{ name: "deploy_path", params: [{ name: "p", type: Power, actor: false }] }],
} as unknown as IREdition;

/** What a reading must never contain: a placeholder, an internal marker, or a snake_case id. */
function problems(text: string, ir: Pick<IREdition, "board">): string[] {
  const out: string[] = [];
  if (/undefined|\[object|\$\d|NaN/.test(text)) out.push(`a placeholder in: ${text}`);
  const snake = text.match(/\b[a-z][a-z0-9]*_[a-z0-9_]+\b/g);
  if (snake) out.push(`raw id(s) ${[...new Set(snake)].join(", ")} in: ${text.slice(0, 200)}`);
  for (const s of ir.board.spaces) if (s.id !== s.name.toLowerCase() && new RegExp(`\\b${s.id}\\b`).test(text)) out.push(`space id ${s.id} instead of ${s.name}`);
  return out;
}

describe("plain-English readings", () => {
  const lex = forAction(lexicon(tinyIr), { name: "spring_deploy", params: [{ name: "power", type: Power, actor: true }, { name: "origin", type: Space, actor: false }, { name: "destination", type: Space, actor: false }], pos: { file: "x", line: 1, column: 1 } });

  it("every expression kind has a reading without raw ids", () => {
    for (const [k, e] of Object.entries(SAMPLES)) {
      const text = readExpr(e, lex);
      expect(text, k).not.toBe("");
      expect(problems(text, tinyIr), k).toEqual([]);
    }
    expect(readExpr(SAMPLES.lit, lex)).toBe("St. Quentin");
    expect(readExpr(SAMPLES.cmp, lex)).toBe("the acting power is Hungary Bohemia");
    // without phrases a field reads by its name; with them, the quantifier takes the noun in place of its variable
    expect(readExpr(SAMPLES.quant, lex)).toBe("the home of some item in the acting power's hands");
    const phrased = { ...lex, phrases: { ...lex.phrases, fields: { hands: "the hand of {key}", home: { is: "{of} is a home card", not: "{of} is not a home card" } }, nouns: { hands: "card" } } };
    expect(readExpr(SAMPLES.quant, phrased)).toBe("some card in the hand of the acting power is a home card");
    expect(readExpr({ k: "not", arg: SAMPLES.quant, type: bool }, phrased)).toBe("no card in the hand of the acting power is a home card");
    expect(readExpr({ k: "cmp", op: "=", left: SAMPLES.len, right: lit(0, int), type: bool }, phrased)).toBe("the hand of the acting power is empty");
    expect(readExpr(SAMPLES.or, lex)).toBe("a or (b and c)");
  });

  it("every board function, board collection, domain, operator and table pattern has a reading", () => {
    const fns = Object.keys(BOARD_FN) as BoardFn[];
    expect(fns.length).toBe(11);
    for (const fn of fns) expect(readExpr({ k: "board", fn, args: [v("origin"), lit("paris", Space)], type: bool }, lex)).not.toMatch(/\$|\?/);
    for (const fn of Object.keys(BOARD_DOMAIN) as BoardDomainFn[]) expect(readDomain({ k: "board", fn, args: [v("origin")] }, lex)).toMatch(/origin/);
    const domains: Record<Domain["k"], Domain> = { enum: { k: "enum", type: Power as Extract<Type, { k: "enum" }> }, list: { k: "list", expr: hands }, board: { k: "board", fn: "neighbors", args: [v("origin")] } };
    for (const d of Object.values(domains)) expect(problems(readDomain(d, lex), tinyIr)).toEqual([]);
    const cmps: Record<CmpOp, true> = { "=": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true };
    for (const op of Object.keys(cmps) as CmpOp[]) expect(readExpr({ k: "cmp", op, left: lit(1, int), right: lit(2, int), type: bool }, lex)).toMatch(/^1 is .*2$/);
    const ariths: Record<ArithOp, true> = { "+": true, "-": true, "*": true, "/": true };
    for (const op of Object.keys(ariths) as ArithOp[]) expect(readExpr({ k: "arith", op, left: lit(1, int), right: lit(2, int), type: int }, lex)).toMatch(/^1 (plus|minus|times|divided \(rounded down\) by) 2$/);
    for (const op of ["count", "sum", "max", "min", "sum_highest"] as const) expect(problems(readExpr({ ...SAMPLES.agg, op } as Expr, lex), tinyIr)).toEqual([]);
    expect(readExpr({ ...SAMPLES.quant, q: "every" } as Expr, lex)).toMatch(/every item in/);
    const patterns: Record<TablePattern["k"], TablePattern> = { any: { k: "any" }, range: { k: "range", min: 2, max: 4 }, members: { k: "members", members: ["paris", "st_quentin"] }, bool: { k: "bool", value: false } };
    expect(Object.values(patterns).map((p) => readPattern(p, "roll", lex))).toEqual(["", "roll is 2 to 4", "roll is one of Paris, St. Quentin", "not roll"]);
  });

  const editions: IREdition[] = [];
  beforeAll(() => {
    for (const dir of ["dsl/his", "dsl/his-500", "dsl/vq"]) {
      const res = loadEdition(dir, { repoRoot: process.cwd() });
      if (!res.edition) throw new Error(`${dir} does not compile`);
      editions.push(res.edition);
    }
  });

  it("no reading of a bundled edition's rules, exemptions, invariants, routes and tables shows a raw id where a name exists", () => {
    const found: string[] = [];
    let n = 0;
    for (const ir of editions) {
      const lx = lexicon(ir);
      const texts = [
        ...ir.rules.map((r) => [r.id, readRule(r, ir, lx)]),
        ...ir.exemptions.map((x) => [x.id, readExemption(x, ir, lx)]),
        ...ir.invariants.map((x) => [x.id, readInvariant(x, ir, lx)]),
        ...ir.routes.map((x) => [x.name, readRoute(x, ir, lx)]),
        ...(ir.tables ?? []).flatMap((t) => t.rows.map((row) => [t.name, readTableRow(t, row, ir, lx)])),
      ];
      n += texts.length;
      for (const [id, text] of texts) for (const p of problems(text, ir)) found.push(`${ir.name} ${id}: ${p}`);
    }
    expect(n).toBeGreaterThan(300);
    expect(found).toEqual([]);
    const his = editions[0];
    expect(readRule(his.rules.find((r) => r.id === "dow.venice_england")!, his)).toBe("Declare war is forbidden when the target is Venice and the acting power is England.");
  });

  it("the report's data shows the counts of the prove report, the scenario results and the coverage it reads", () => {
    const his = editions[0];
    const report = JSON.parse(fs.readFileSync("test/fixtures/report/his.report.json", "utf8")) as ProofReport;
    const tests: TestResults = {
      passed: 2,
      failed: 1,
      results: [
        { file: "test/scenarios/his/deploy.yaml", line: 1, name: "a", edition: "his", pass: true, detail: "" },
        { file: "test/scenarios/his/deploy.yaml", line: 9, name: "b", edition: "his", pass: true, detail: "" },
        { file: "test/scenarios/his/deploy.yaml", line: 20, name: "c", edition: "his", pass: false, detail: "x" },
      ],
    };
    const file = { source: "his.txt", edition: "his", manifest: "m", paragraphs: 10, encoded: 7, restriction: 8, percent: 87.5, counts: { encoded: 7, not_encoded: 1, out_of_scope: 2, procedure: 0, example: 0, heading: 0 }, partlyOutOfScope: 0, auditable: 10, audited: 6, auditedPercent: 60 };
    const coverage: CoverageReport = { editions: [{ edition: "his", built: true, files: [file], encoded: 7, restriction: 8, percent: 87.5, auditable: 10, audited: 6, auditedPercent: 60 }], total: { encoded: 7, restriction: 8, percent: 87.5, auditable: 10, audited: 6, auditedPercent: 60 }, notEncoded: [], outOfScope: [], uncoveredEditions: [] };
    const data = buildSiteData({ root: process.cwd(), editions: [{ ir: his, proof: { report, file: "test/fixtures/report/his.report.json" }, scenarios: [] }], tests, coverage, diffs: [] }, readLayout());
    const e = data.editions[0];
    expect(e.proofs).toMatchObject({ proved: report.summary.proved, refuted: report.summary.refuted, unknown: report.summary.unknown });
    expect(e.proofs!.byKind.reduce((s, k) => s + k.proved + k.refuted + k.unknown, 0)).toBe(report.obligations.length);
    expect(e.scenarios).toEqual({ passed: tests.passed, failed: tests.failed });
    expect(e.coverage).toMatchObject({ encoded: 7, restriction: 8, percent: 87.5, auditable: 10, audited: 6, auditedPercent: 60 });
    expect(e.counts.rules).toBe(his.rules.length);
    // the witness is drawn from its state file, the action's spaces highlighted
    const ob = e.obligations.find((o) => o.id === "his.dead_rule.deploy.units_in_capital")!;
    expect(ob.example!.highlight).toEqual(expect.arrayContaining(["paris", "rouen"]));
    expect(data.states[ob.example!.state!].spaces.paris.controller).toBe("france");
    // every rule of the edition is under a section, with its reading
    expect(e.sections.flatMap((s) => s.ids).sort()).toEqual(e.rules.map((r) => r.id).sort());
    expect(e.rules.find((r) => r.id === "deploy.units_in_capital")!.obligations).toContain(ob.id);
    // a diff state (`rulewright diff --format json`) is drawn like a witness
    const diff = buildSiteData(
      {
        root: process.cwd(),
        editions: [{ ir: his, scenarios: [] }],
        diffs: [{ editions: { a: { name: "his" }, b: { name: "his-500" } }, actions: [{ action: "spring_deploy", verdict: "differs", differences: [{ aspect: "allowed", stateFile: "test/fixtures/report/witnesses/units_in_capital.state.json", actionFile: "x", action: { action: "spring_deploy", power: "ottoman", origin: "istanbul", destination: "varna" }, verdictA: "allowed", verdictB: "forbidden", facts: ["state.spaces[varna].naval_units[independent] = 1"], rulesA: [], rulesB: [{ id: "deploy.other_units" }] }] }], notCompared: [{ action: "x", reason: "only in his" }] }],
      },
      readLayout(),
    );
    expect(diff.editions[0].proofs).toBeNull();
    expect(diff.diffs.map((d) => [d.a, d.b, d.rules])).toEqual([["his", "his-500", null]]); // his-500 is not in this report
    expect(diff.diffs[0].proved).toMatchObject({ current: null, maxStates: null });
    const dx = diff.diffs[0].proved!.actions[0].examples[0];
    expect(dx).toMatchObject({ kind: "diff", highlight: ["istanbul", "varna"], actionText: "spring deploy: power the Ottoman, origin Istanbul, destination Varna" });
    // the fact in words, grouped, and the space it is about marked by its type
    expect(dx.factGroups).toEqual([{ key: "spaces", title: "the spaces", facts: [expect.objectContaining({ text: "the number of naval units of Independent in Varna is 1", space: "varna" })] }]);
    expect(diff.states[dx.state!]).toBeDefined();
    // a hostile title stays text: the data is inlined with every `<` escaped (client.js escapes what it renders)
    const evil = "</script><img src=x onerror=alert(1)>";
    const hostile = buildSiteData({ root: process.cwd(), editions: [{ ir: { ...his, rules: his.rules.map((r, i) => (i === 0 ? { ...r, title: evil } : r)) }, scenarios: [] }], diffs: [] }, readLayout());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-report-"));
    try {
      const page = fs.readFileSync(writeSite(dir, hostile, readLayout()).file, "utf8");
      expect(page).not.toContain(evil);
      expect(page).toContain("\\u003c/script>\\u003cimg");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    // the page is one file that fetches nothing: no src=, href= to another origin
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-report-"));
    try {
      const { file: html } = writeSite(out, data, readLayout());
      // the page but the inlined minisearch library (whose own `fetch(key)` method reads a map); the
      // browser test watches the requests themselves
      const lib = fs.readFileSync(path.join(path.dirname(require.resolve("minisearch")), "..", "umd", "index.js"), "utf8");
      const text = fs.readFileSync(html, "utf8").replace(lib, "");
      expect(text.length).toBeLessThan(fs.statSync(html).size);
      expect(text.match(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src=|@import|url\((?!#)|fetch\(|XMLHttpRequest/g) ?? []).toEqual([]);
      expect(text).toContain("default-src 'none'");
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
  it("the rule-level diff of his → his-500 names the rules the variant adds and overrides, and nothing else", () => {
    const [his, his500, vq] = editions;
    const d = ruleDiff(his, his500)!;
    expect(d.shared).toBe(his.actions.length);
    expect(d.notShared).toEqual([]);
    expect(d.actions.map((a) => [a.action, a.added, a.removed, a.changed, a.reworded])).toEqual([
      ["declare_war", [], [], [{ id: "dow.scotland_french_peace", what: ["condition"] }], []],
      ["spring_deploy", ["deploy.other_units"], [], [{ id: "deploy.star_all", what: ["condition"] }], []],
    ]);
    expect(d.actions.map((a) => a.same)).toEqual([his.rules.filter((r) => r.action === "declare_war").length - 1, his.rules.filter((r) => r.action === "spring_deploy").length - 1]);
    expect(d.other).toEqual([{ what: "route", id: "deploy_path_500", change: "added" }]);
    // an edition against itself: nothing differs; his and vq declare no action with the same parameters
    expect(ruleDiff(his, his)!.actions).toEqual([]);
    expect(ruleDiff(his, vq)).toBeNull();
  });

  it("the rule-level diff tells a removed rule (with its reason), a reworded one, and a change of the route a rule calls", () => {
    const his = editions[0];
    const star = his.rules.find((r) => r.id === "deploy.star_all")!;
    const routeName = [...JSON.stringify(star.when).matchAll(/"route":"([a-z_0-9]+)"/g)][0][1];
    const variant: IREdition = {
      ...his,
      folder: "his-v",
      parent: "his",
      rules: his.rules.filter((r) => r.id !== "pass.home_card").map((r) => (r.id === "dow.venice_england" ? { ...r, title: "another title", pos: { ...r.pos, line: r.pos.line + 7 } } : r)),
      removed: [{ id: "pass.home_card", reason: "not in this edition", edition: "his-v", pos: star.pos, removedPos: star.pos }],
      routes: his.routes.map((rt) => (rt.name === routeName ? { ...rt, passes: { k: "lit", value: false, type: bool } } : rt)),
    };
    const d = ruleDiff(his, variant)!;
    const of = (action: string) => d.actions.find((a) => a.action === action)!;
    expect(of("pass").removed).toEqual([{ id: "pass.home_card", reason: "not in this edition" }]);
    expect(of("declare_war")).toMatchObject({ added: [], removed: [], changed: [], reworded: ["dow.venice_england"] });
    expect(of("spring_deploy").changed).toContainEqual({ id: "deploy.star_all", what: [`route ${routeName}`] });
    expect(d.other).toEqual([{ what: "route", id: routeName, change: "changed" }]);
  });

  it("the report pairs the editions that share actions, and says whether a proved diff is of the current rules", () => {
    const [his, his500, vq] = editions;
    const input = (hashes: [string, string] | null) =>
      buildSiteData(
        {
          root: process.cwd(),
          editions: [his, his500, vq].map((ir) => ({ ir, scenarios: [] })),
          diffs: [
            {
              editions: { a: { name: "his", ...(hashes ? { inputHash: hashes[0] } : {}) }, b: { name: "his-500", ...(hashes ? { inputHash: hashes[1] } : {}) } },
              outDir: "proofs/diff/his__his-500",
              actions: [{ action: "declare_war", verdict: "identical" }, { action: "spring_deploy", verdict: "differs", differences: [] }],
              notCompared: [],
              bounds: { listBound: 4, timeoutMs: 120000, maxStates: 1 },
            },
          ],
        },
        readLayout(),
      ).diffs;
    const current = input([his.inputHash, his500.inputHash]);
    // one pair (vq shares no action with the same parameters), the rule-level diff and the proved one together
    expect(current.map((d) => [d.a, d.b, d.rules?.actions.map((a) => a.action)])).toEqual([["his", "his-500", ["declare_war", "spring_deploy"]]]);
    expect(current[0].proved).toMatchObject({ file: path.join("proofs/diff/his__his-500", "report.json"), current: true, maxStates: 1 });
    expect(input([his.inputHash, "0".repeat(64)])[0].proved!.current).toBe(false);
    expect(input(null)[0].proved!.current).toBeNull();
    // no diff report: the rule-level diff alone
    const alone = buildSiteData({ root: process.cwd(), editions: [his500, his].map((ir) => ({ ir, scenarios: [] })), diffs: [] }, readLayout()).diffs;
    expect(alone.map((d) => [d.a, d.b, d.proved])).toEqual([["his", "his-500", null]]); // the parent first
  });
});
