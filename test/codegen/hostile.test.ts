/**
 * Hostile input (issue 18): escaping of text in generated code, safe names at the front door,
 * and a regression test from the smallest input of each finding of the issue.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { MAX_SCENARIO_FILE_BYTES, readScenarioFile } from "../../compiler/scenarios/index.js";
import { docText, jsString, lineComment, readComment, templateText } from "../../compiler/codegen/escape.js";
import { loadEdition, renderDiagnostic } from "../../compiler/check/index.js";
import { generateEdition } from "../../compiler/codegen/index.js";
import { commentsOf, importInChild, PAYLOAD, syntaxErrors, writeEditions } from "../fuzz/generated-io.js";
import { injected, runInjectionBatch, type Texts } from "../fuzz/injection.js";
import { readJson, UsageError } from "../../compiler/cli/common.js";
import { main } from "../../compiler/cli/main.js";
import { runScenarios } from "../../compiler/cli/test.js";
import { closest, levenshtein } from "../../compiler/diagnostics/suggest.js";

const MINI = path.resolve("test/fixtures/frontend/mini");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-hostile-test-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A copy of the mini edition in `tmp/<folder>` with extra rule files. */
function mini(folder: string, extra: Record<string, string> = {}, edit?: (editionRules: string) => string): string {
  const dir = path.join(tmp, folder);
  fs.cpSync(MINI, dir, { recursive: true });
  if (edit) fs.writeFileSync(path.join(dir, "edition.rules"), edit(fs.readFileSync(path.join(dir, "edition.rules"), "utf8")));
  for (const [n, t] of Object.entries(extra)) fs.writeFileSync(path.join(dir, n), t);
  return dir;
}

describe("escape functions", () => {
  const nasty = `a*/b\n\r\u2028\u2029\0\`\${x}"'\\\u202e\ud800 ${PAYLOAD}`;
  it("jsString is a literal whose value is the text, on one line", () => {
    const lit = jsString(nasty);
    expect(lit).not.toMatch(/[\n\r\u2028\u2029\0\u202e]/);
    expect(new Function(`return ${lit};`)()).toBe(nasty);
  });
  it("lineComment stays on one line and reads back", () => {
    const c = lineComment(nasty);
    expect(c).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
    expect(readComment(c)).toBe(nasty);
    expect(new Function(`//${c}\nreturn 1;`)()).toBe(1);
  });
  it("docText cannot close a block and reads back", () => {
    const c = docText(nasty);
    expect(c).not.toContain("*/");
    expect(readComment(c)).toBe(nasty);
    expect(new Function(`/** ${c} */ return 2;`)()).toBe(2);
  });
  it("templateText is the raw text of a template with the text as value", () => {
    expect(new Function(`const x = "X"; return \`${templateText(nasty)}\`;`)()).toBe(nasty);
  });
  it("leave plain text alone (generated output of ordinary rules does not change)", () => {
    const plain = `his §9.6: "a power may not" – Ottoman's (*) rule`;
    expect(lineComment(plain)).toBe(plain);
    expect(docText(plain)).toBe(plain);
    expect(jsString(plain)).toBe(JSON.stringify(plain));
  });
});

describe("finding: code execution through generated comments (smallest inputs)", () => {
  const base: Texts = { editionTitle: "T", ruleTitle: "r", citation: "§1", exemptionTitle: "e", exemptionCitation: "§2", invariantTitle: "i", file: "f.rules", removedReason: "why" };
  const cases: [string, Partial<Texts>][] = [
    ["`*/` in a rule title closes the JSDoc", { ruleTitle: `*/ ${PAYLOAD} /*` }],
    ["`*/` in an invariant title", { invariantTitle: `*/ ${PAYLOAD} /*` }],
    ["`*/` in a citation", { citation: `*/ ${PAYLOAD} /*` }],
    ["U+2028 in a citation ends a // comment", { exemptionCitation: `\u2028${PAYLOAD}` }],
    ["U+2029 in an edition title ends the header comment", { editionTitle: `\u2029${PAYLOAD}` }],
    ["a line break in a rule file's name", { file: `a\n${PAYLOAD}//.rules` }],
    ["a quote and a template in a title", { ruleTitle: `"); ${PAYLOAD} ("\`\${${PAYLOAD}}` }],
  ];
  let results: string[][] = [];
  beforeAll(async () => {
    results = await runInjectionBatch(cases.map(([, t]) => ({ ...base, ...t }))); // one child process for all
  });
  it.each(cases.map(([name], i) => [name, i] as const))("%s: nothing runs, the text reads back", (_, i) => {
    expect(results[i]).toEqual([]);
  });

  it("a rule file's title and citation with `*/` and U+2028 compile through the front end, nothing runs", async () => {
    const dir = mini("injected", {
      "evil.rules": `rule move.evil §"x\u2028${PAYLOAD}//" "*/ ${PAYLOAD} /*"\n  forbid move when units > 99\n\nexempt move.evil_ex §"*/${PAYLOAD}\u2029" "\u2028${PAYLOAD}" lifts move.evil when units > 100\n` +
        `table evil_t §"\u2028${PAYLOAD}*/" "*/ ${PAYLOAD} \u2029" (roll: int in 1..2): int key roll { 1: 1  2: 2 }\n`,
    }, (t) => t.replace('"Mini Test Edition"', `"Mini\u2028${PAYLOAD}*/"`));
    const res = loadEdition(dir, { repoRoot: tmp });
    expect(res.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const files = await generateEdition(res.edition!);
    const root = writeEditions([files]);
    const [r] = importInChild([`${root}/0/generated/injected`]);
    fs.rmSync(root, { recursive: true, force: true });
    expect(r!.error).toBeUndefined();
    expect(r!.ran).toBe(false);
    const rule = (r!.catalogue!.RULES as { id: string; title: string; citation: string }[]).find((x) => x.id === "move.evil")!;
    expect(rule.title).toBe(`*/ ${PAYLOAD} /*`);
    expect(rule.citation).toBe(`mini §"x\u2028${PAYLOAD}//"`);
    const table = (r!.catalogue!.TABLES as { name: string; title: string; citation: string }[]).find((x) => x.name === "evil_t")!;
    expect([table.title, table.citation]).toEqual([`*/ ${PAYLOAD} \u2029`, `mini §"\u2028${PAYLOAD}*/"`]);
    expect(commentsOf(files.find((f) => f.path.endsWith("tables.ts"))!.content).some((c) => c.includes(`*/ ${PAYLOAD} \u2029`))).toBe(true);
    const validators = files.find((f) => f.path.endsWith("validators.ts"))!.content;
    expect(commentsOf(validators).some((c) => c.includes(`*/ ${PAYLOAD} /*`))).toBe(true);
  });
});

describe("finding: unsafe folder and file names get a diagnostic at the front door", () => {
  it("an edition folder whose name holds a line break (RW4011, no throw)", () => {
    const dir = mini(`bad\nname`);
    const res = loadEdition(dir, { repoRoot: tmp });
    expect(res.edition).toBeUndefined();
    expect(res.diagnostics.map((d) => [d.code, d.message])).toEqual([["RW4011", "edition folder name `bad\\nname` is not a safe name"]]);
    expect(res.diagnostics[0]!.help).toMatch(/rename the folder/);
  });
  it("a rule file whose name holds a line break (RW4011)", () => {
    const dir = mini("badfile", { "w\u2028x.rules": "" });
    const res = loadEdition(dir, { repoRoot: tmp });
    expect(res.edition).toBeUndefined();
    expect(res.diagnostics.map((d) => [d.code, d.message])).toEqual([["RW4011", "rule file name `w\\u2028x.rules` is not a safe name"]]);
  });
  it("ordinary names pass", () => {
    const res = loadEdition(mini("his-500_b.2"), { repoRoot: tmp });
    expect(res.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });
});

describe("finding: stack overflows on deep nesting (no internal error, limits reported where they are exceeded)", () => {
  const cond: Record<string, (n: number) => string> = {
    paren: (n) => "(".repeat(n) + "units > 4" + ")".repeat(n),
    brace: (n) => "origin in " + "{".repeat(n) + "origin" + "}".repeat(n),
    if: (n) => "if units > 1 then ".repeat(n) + "true" + " else false".repeat(n),
    and: (n) => Array.from({ length: n }, (_, i) => `units > ${i}`).join(" and "),
    or: (n) => Array.from({ length: n }, (_, i) => `units = ${i}`).join(" or "),
    not: (n) => "not ".repeat(n) + "units > 4",
  };
  const rule = (id: string, c: string) => `rule move.${id} §10 "deep ${id}"\n  forbid move when ${c}\n`;

  it.each([
    ["151 nested parentheses", "paren", 151],
    ["414 nested if … then … else", "if", 414],
    ["a chain of 1,563 `and`", "and", 1563],
  ] as const)("the issue's smallest input compiles: %s", (_, kind, n) => {
    const res = loadEdition(mini(`small-${kind}`, { "deep.rules": rule("deep", cond[kind]!(n)) }), { repoRoot: tmp });
    expect(res.diagnostics).toEqual([]);
    expect(res.edition!.rules.some((r) => r.id === "move.deep")).toBe(true);
  });

  it("212 nested braces: a type error at the set, not an internal error", () => {
    const res = loadEdition(mini("small-brace", { "deep.rules": rule("deep", cond.brace!(212)) }), { repoRoot: tmp });
    expect(res.diagnostics.map((d) => [d.code, d.file, d.span.line])).toEqual([["RW3005", "small-brace/deep.rules", 2]]);
  });

  it("1,000 levels of parentheses, `if` and `not`, and chains of 10,000 `and`/`or` compile, generate and run", async () => {
    const dir = mini("deep", {
      "paren.rules": rule("paren", cond.paren!(1000)),
      "if.rules": rule("if", cond.if!(1000)),
      "not.rules": rule("not", cond.not!(1000)),
      "and.rules": rule("and", cond.and!(10000)),
      "or.rules": rule("or", cond.or!(10000)),
    });
    const res = loadEdition(dir, { repoRoot: tmp });
    expect(res.diagnostics).toEqual([]);
    const and = res.edition!.rules.find((r) => r.id === "move.and")!;
    expect(and.when.k === "and" && and.when.args.length).toBe(10000);
    const files = await generateEdition(res.edition!);
    const root = writeEditions([files]);
    const [r] = importInChild([`${root}/0/generated/deep`]);
    fs.rmSync(root, { recursive: true, force: true });
    expect(r!.error).toBeUndefined();
    expect((r!.catalogue!.RULES as { id: string }[]).map((x) => x.id)).toEqual(expect.arrayContaining(["move.and", "move.if", "move.not", "move.or", "move.paren"]));
  });

  it.each([
    ["parentheses", "paren", 1025, 1 + 1024],
    ["braces", "brace", 1100, 11 + 1024],
    ["if … then … else", "if", 1025, 1 + "if units > 1 then ".length * 1024],
  ] as const)("%s beyond the limit: RW1007 at the construct, with the limit", (_, kind, n, column) => {
    const res = loadEdition(mini(`over-${kind}`, { "deep.rules": rule("deep", cond[kind]!(n)) }), { repoRoot: tmp });
    expect(res.diagnostics.map((d) => [d.code, d.file, d.span.line, d.span.column - "  forbid move when ".length])).toEqual([["RW1007", `over-${kind}/deep.rules`, 2, column]]);
    expect(res.diagnostics[0]!.message).toContain("1024");
    expect(res.diagnostics[0]!.help).toMatch(/defs/);
  });

  it("a chain of 2,000 `+` is too deep for the tree: RW1007 with the limit, no internal error", () => {
    const res = loadEdition(mini("over-plus", { "deep.rules": rule("deep", Array.from({ length: 2000 }, () => "units").join(" + ") + " > 4") }), { repoRoot: tmp });
    expect(res.diagnostics.map((d) => [d.code, d.file, d.span.line])).toEqual([["RW1007", "over-plus/deep.rules", 2]]);
    expect(res.diagnostics[0]!.message).toBe("expression nested more than 1024 levels deep");
  });
});

describe("finding: did-you-mean on a 100,000-character identifier (bounded)", () => {
  it("an identifier over 256 characters is RW1008 at the identifier, with the limit", () => {
    const long = "x".repeat(100_000);
    const res = loadEdition(mini("long-ident", { "long.rules": `rule move.long §10 "long"\n  forbid move when ${long} > 1 and ${long} < 9\n` }), { repoRoot: tmp });
    expect(res.diagnostics.map((d) => [d.code, d.file, d.span.line, d.span.column])).toEqual([
      ["RW1008", "long-ident/long.rules", 2, 20],
      ["RW1008", "long-ident/long.rules", 2, 20 + long.length + " > 1 and ".length],
    ]);
    expect(res.diagnostics[0]!.message).toContain("the limit is 256");
  });
  it("an unknown identifier of 256 characters still gets a did-you-mean when one is close", () => {
    const name = "a".repeat(255);
    const res = loadEdition(mini("near-ident", { "near.rules": `def ${name}(): bool = true\nrule move.near §10 "near"\n  forbid move when ${name}b()\n` }), { repoRoot: tmp });
    expect(res.diagnostics.map((d) => d.code)).toEqual(["RW2005"]);
    expect(res.diagnostics[0]!.help).toBe(`did you mean \`${name}\`?`);
  });
  it("the bounded edit distance equals the full one up to the bound (property, fixed seed)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), fc.integer({ min: 0, max: 4 }), (a, b, k) => {
        const full = levenshtein(a, b);
        expect(levenshtein(a, b, k)).toBe(Math.min(full, k + 1));
      }),
      { seed: 18, numRuns: 2000 },
    );
  });
  it("closest suggests within the limit only, and never a far-off length", () => {
    expect(closest("bleu", ["blue", "green"])).toBe("blue");
    expect(closest("Blue", ["blue"])).toBe("blue");
    expect(closest("x".repeat(100_000), ["x", "xx", "x".repeat(99_990)])).toBeUndefined();
    expect(closest("x".repeat(1000), ["x".repeat(1002)])).toBe("x".repeat(1002));
  });
});

describe("finding: scenario, state and action files", () => {
  const BOMB = ["edition: his", 'a: &a ["x","x","x","x","x","x","x","x","x"]', ...["b", "c", "d", "e", "f", "g"].map((k, i) => `${k}: &${k} [${Array(9).fill(`*${"abcdefg"[i]}`).join(",")}]`), "scenarios: []", ""].join("\n");
  const files = path.join(tmp, "scenarios");
  fs.mkdirSync(files, { recursive: true });

  it("a YAML alias bomb is a problem of its file, at the first alias; the other files still run", async () => {
    fs.writeFileSync(path.join(files, "a-bomb.yaml"), BOMB);
    fs.copyFileSync("test/scenarios/his/action-table.yaml", path.join(files, "b-good.yaml"));
    const bomb = readScenarioFile(path.join(files, "a-bomb.yaml"), () => "test/fixtures/his");
    expect(bomb.problems.map((p) => [p.line, p.message])).toEqual([[3, "the YAML aliases (`*name`) expand more than 100 times: refused (an alias bomb?)"]]);
    const summary = await runScenarios([files], "json");
    expect(summary.problems.map((p) => path.basename(p.file))).toEqual(["a-bomb.yaml"]);
    expect(summary.passed).toBeGreaterThan(0);
    expect(summary.failed).toBe(0);
  });

  it("a scenario file naming an unknown edition is a problem of that file, not the end of the run", async () => {
    const dir = path.join(tmp, "scenarios-unknown");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "a.yaml"), "edition: no_such_edition\nscenarios:\n  - name: x\n    state: {}\n    action: { action: pass, power: france }\n    expect: allowed\n");
    fs.copyFileSync("test/scenarios/his/action-table.yaml", path.join(dir, "b.yaml"));
    const summary = await runScenarios([dir], "json");
    expect(summary.problems.map((p) => [path.basename(p.file), p.line, p.message])).toEqual([["a.yaml", 1, "edition `no_such_edition`: no edition `no_such_edition`: not a bundled edition and not a folder; bundled editions: `his`, `his-500`, `vq`"]]);
    expect(summary.passed).toBeGreaterThan(0);
  });

  it("a scenario file over the size limit is a problem of that file", () => {
    const big = path.join(tmp, "big.yaml");
    fs.writeFileSync(big, "# " + "x".repeat(MAX_SCENARIO_FILE_BYTES) + "\n");
    expect(readScenarioFile(big, () => "").problems.map((p) => p.message)).toEqual([`the file has ${MAX_SCENARIO_FILE_BYTES + 3} bytes, more than the limit of ${MAX_SCENARIO_FILE_BYTES}; split it into several files`]);
  });

  it("a JSON error in a state file gives line, column and a code frame, not a position", () => {
    const f = path.join(tmp, "bad.state.json");
    fs.writeFileSync(f, '{\n  "phase": "diplomacy",\n  "segment": 1\n  "x": 2\n}\n');
    let err: unknown;
    try {
      readJson(f, "state");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    const m = (err as UsageError).message;
    expect(m.split("\n")[0]).toBe(`${f}:4:3: the state file is not valid JSON: expected \`,\``);
    expect(m).toContain('> 4 |   "x": 2\n    |   ^');
    expect(m).not.toMatch(/position/);
  });

  it("a UTF-8 byte-order mark is accepted in rule files, JSON (board, state, action) and YAML", () => {
    const BOM = "\ufeff";
    const dir = mini("bom", { "first.rules": `${BOM}rule move.first §10 "t"\n  forbid move when units > 9\n` });
    for (const f of ["edition.rules", "war.rules", "board.json", "state.schema.json"]) fs.writeFileSync(path.join(dir, f), BOM + fs.readFileSync(path.join(dir, f), "utf8"));
    const res = loadEdition(dir, { repoRoot: tmp });
    expect(res.diagnostics).toEqual([]);
    // columns of line 1 count from after the mark
    expect(res.edition!.rules.find((r) => r.id === "move.first")!.pos).toEqual({ file: "bom/first.rules", line: 1, column: 6 });
    const action = path.join(tmp, "bom.action.json");
    fs.writeFileSync(action, BOM + '{ "action": "pass", "power": "france" }');
    expect(readJson(action, "action")).toEqual({ action: "pass", power: "france" });
    const y = path.join(tmp, "bom.yaml");
    fs.writeFileSync(y, BOM + "edition: his\nscenarios:\n  - name: t\n    table: exploration\n    inputs: { roll: 6 }\n    expect: { result: x }\n");
    const r = readScenarioFile(y, () => "");
    expect(r.problems).toEqual([]);
    expect(r.tableScenarios.map((t) => t.edition)).toEqual(["his"]);
  });

  it.each([
    ["prove", "--timeout", "2147483648"],
    ["prove", "--deadline", "2147483648"],
    ["prove", "--deadline", "40000m"],
    ["diff", "--timeout", "99999999999"],
  ])("`%s %s %s` beyond 2^31−1 ms is a usage error (exit 2), before any work", async (cmd, flag, value) => {
    const args = cmd === "diff" ? ["diff", "his", "his-500", flag, value] : ["prove", "his", flag, value];
    let written = "";
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written += String(chunk);
      return true;
    });
    let code: number;
    try {
      code = await main(args);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(2);
    expect(written).toContain(`${flag} ${value} is beyond the longest timer (2147483647 ms`);
  });
});

describe("found by the front-end fuzzer", () => {
  it("an exemption lifting a group that holds a rule of an unknown action: RW2007, not an internal error", () => {
    // smallest input (shrunk): the mini edition's `exempt move.truce … lifts (*)` meets this rule
    const res = loadEdition(mini("fuzz-unknown-action", { "fuzz.rules": 'rule units.units §10 "" (*)\n  forbid fly when state.turn\n' }), { repoRoot: tmp });
    expect(res.diagnostics.map((d) => [d.code, d.file, d.span.line, d.span.column])).toEqual([["RW2007", "fuzz-unknown-action/fuzz.rules", 2, 10]]);
  });
});

describe("escape by construction: the code generator's sources", () => {
  it("every title, citation, file name and reason reaches generated code through an escape function", () => {
    // texts that come from rule files, folders and schemas (property names as the IR spells them)
    const TEXT = /^(title|text|file|reason|removedFile)$/;
    const ESCAPERS = new Set(["jsString", "lineComment", "docText", "templateText", "objectLiteral", "withArrays", "header"]);
    const bad: string[] = [];
    for (const f of fs.readdirSync("compiler/codegen").filter((n) => n.endsWith(".ts") && n !== "escape.ts")) {
      const text = fs.readFileSync(path.join("compiler/codegen", f), "utf8");
      const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
      const visit = (n: ts.Node): void => {
        if (ts.isPropertyAccessExpression(n) && TEXT.test(n.name.text) && !ts.isPropertyAccessExpression(n.parent)) {
          let ok = false;
          for (let a: ts.Node = n.parent; !ok && !ts.isStatement(a) && !ts.isFunctionLike(a); a = a.parent) {
            const callee = ts.isCallExpression(a) ? a.expression : undefined;
            // an escape call, or `.map(escaper)`
            if (callee && ts.isIdentifier(callee) && ESCAPERS.has(callee.text)) ok = true;
            if (callee && ts.isPropertyAccessExpression(callee) && callee.name.text === "map" && (a as ts.CallExpression).arguments.some((x) => ts.isIdentifier(x) && ESCAPERS.has(x.text))) ok = true;
            // uses that emit nothing: comparisons, `delete`, paths
            if (ts.isBinaryExpression(a) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.LessThanToken, ts.SyntaxKind.GreaterThanToken].includes(a.operatorToken.kind)) ok = true;
            if (ts.isDeleteExpression(a)) ok = true;
            if (ts.isBinaryExpression(a) && a.operatorToken.kind === ts.SyntaxKind.EqualsToken && a.left === n) ok = true; // assigned, not read
            if (callee && ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === "path") ok = true;
          }
          if (!ok) bad.push(`${f}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.getText()}`);
        }
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
    expect(bad).toEqual([]);
  });
});

describe("found by the 10-minute fuzz run", () => {
  it("a rule file with lone CR line ends: diagnostics and the rendered source line agree on the line", () => {
    const dir = mini("cr", { "cr.rules": '// old Mac line ends\rrule move.cr §10 "t"\r  forbid move when nosuch > 1\r' });
    const res = loadEdition(dir, { repoRoot: tmp });
    expect(res.diagnostics.map((d) => [d.code, d.span.line, d.span.column])).toEqual([["RW2002", 3, 20]]);
    const shown = renderDiagnostic(res.diagnostics[0]!, fs.readFileSync(path.join(dir, "cr.rules"), "utf8"));
    expect(shown).toContain("3 |   forbid move when nosuch > 1");
  });
});

describe("found by the injection fuzzer (10-minute run)", () => {
  it("a rule title ending in `\\` before a file name holding `/*` generates valid code (smallest input)", async () => {
    const base: Texts = { editionTitle: "T", ruleTitle: "\\", citation: "§1", exemptionTitle: "e", exemptionCitation: "§2", invariantTitle: "i", file: "/*", removedReason: "why" };
    const files = await generateEdition(injected(base));
    expect(files.flatMap((f) => syntaxErrors(f.path, f.content))).toEqual([]);
    expect(jsString("a\\")).toBe('"a\\u005c"');
  });
});
