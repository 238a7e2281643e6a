/**
 * Hostile input (issue 18): escaping of text in generated code, safe names at the front door,
 * and a regression test from the smallest input of each finding of the issue.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { docText, jsString, lineComment, readComment, templateText } from "../compiler/codegen/escape.js";
import { loadEdition } from "../compiler/check/index.js";
import { generateEdition } from "../compiler/codegen/index.js";
import { commentsOf, importInChild, PAYLOAD, writeEditions } from "./fuzz/generated-io.js";
import { runInjectionBatch, type Texts } from "./fuzz/injection.js";

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
  it.each(cases)("%s: nothing runs, the text reads back", async (_, t) => {
    const [problems] = await runInjectionBatch([{ ...base, ...t }]);
    expect(problems).toEqual([]);
  });

  it("a rule file's title and citation with `*/` and U+2028 compile through the front end, nothing runs", async () => {
    const dir = mini("injected", {
      "evil.rules": `rule move.evil §"x\u2028${PAYLOAD}//" "*/ ${PAYLOAD} /*"\n  forbid move when units > 99\n\nexempt move.evil_ex §"*/${PAYLOAD}\u2029" "\u2028${PAYLOAD}" lifts move.evil when units > 100\n`,
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
