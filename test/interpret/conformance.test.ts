/**
 * The conformance corpus (issue 17, item 4): the committed corpus of every bundled edition is made
 * from its current rules; the plain-JavaScript reference runner finds no disagreement with the
 * generated validators (a module engine) and reports every forbidden case of an engine that
 * allows everything (a JSON-lines command engine); base + patch rebuild each state.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { corpusStaleness, diffState, type Manifest } from "../../compiler/cli/conformance.js";
import { findScenarioFiles, readScenarioFile, type Scenario } from "../../compiler/scenarios/index.js";
// @ts-expect-error: plain JavaScript without declarations (the reference runner imports nothing of rulewright)
import * as runner from "../../conformance/runner.mjs";

type RunResult = { total: number; agreed: number; verdictsAgreed: number; notVerdicts: number; disagreements: { id: string; problems: string[] }[] };
const { runCorpus, loadCorpus, deepMerge, printable } = runner as {
  runCorpus(dir: string, engine: { module?: string; command?: string }, o?: { verdictOnly?: boolean }): Promise<RunResult>;
  printable(r: RunResult, keep?: number): { shown: RunResult["disagreements"]; note: string };
  loadCorpus(dir: string): { manifest: { version: string; cases: number; format: number }; cases: { state: unknown; expect: { allowed: boolean; violations: string[] } }[] };
  deepMerge(a: unknown, b: unknown): unknown;
};

describe("conformance corpus", () => {
  it("is versioned with the edition: every bundled edition's corpus was made from its current rules", () => {
    for (const e of ["his", "his-500", "vq"]) {
      const ir = loadEdition(`dsl/${e}`).edition!;
      const { manifest, cases } = loadCorpus(`conformance/${e}`);
      expect(manifest.version, e).toBe(ir.inputHash);
      expect(cases.length, e).toBe(manifest.cases);
      expect(cases.length, e).toBeGreaterThan(50);
      // both verdicts are represented
      expect(cases.some((c) => c.expect.allowed) && cases.some((c) => !c.expect.allowed), e).toBe(true);
    }
  });

  it("the generated validators, run as a module engine by the reference runner, agree on every case", async () => {
    const r = await runCorpus("conformance/his", { module: "generated/his/index.ts" });
    expect(r.disagreements).toEqual([]);
    expect(r.agreed).toBe(r.total);
  }, 600_000);

  it("a JSON-lines command engine that allows everything disagrees exactly on the forbidden cases", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rw-conf-"));
    const engine = path.join(dir, "engine.mjs");
    fs.writeFileSync(engine, `import readline from "node:readline";\nfor await (const line of readline.createInterface({ input: process.stdin })) { JSON.parse(line); process.stdout.write(JSON.stringify({ allowed: true, violations: [] }) + "\\n"); }\n`);
    const r = await runCorpus("conformance/vq", { command: `"${process.execPath}" "${engine}"` });
    const { cases } = loadCorpus("conformance/vq");
    const forbidden = cases.filter((c) => !c.expect.allowed).length;
    expect(forbidden).toBeGreaterThan(0);
    expect(r.total).toBe(cases.length);
    expect(r.disagreements.length).toBe(forbidden);
    expect(r.disagreements[0]!.problems[0]).toMatch(/^allowed: expected false, engine true$/);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it("an engine answering in another shape: each case says `not a verdict`, but the printed list keeps three of them and says once what an answer is", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rw-conf-"));
    const engine = path.join(dir, "engine.mjs");
    fs.writeFileSync(engine, `export const check = () => ({ verdict: "yes" });\n`);
    const r = await runCorpus("conformance/his-500", { module: engine }, { verdictOnly: true });
    expect(r.notVerdicts).toBe(r.total);
    expect(r.disagreements.every((d) => d.problems[0] === 'not a verdict: {"verdict":"yes"}')).toBe(true);
    const { shown, note } = printable(r);
    expect(shown.length).toBe(3);
    expect(note).toContain(`${r.total} answers were not a verdict (${r.total - 3} not listed): an answer is {"allowed": true|false`);
    expect(printable({ ...r, notVerdicts: 0, disagreements: [] }).note).toBe("");
    fs.rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it("verdict-only: an engine with the right verdicts and no rule ids agrees on every case; compared with ids, it disagrees", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rw-conf-"));
    const engine = path.join(dir, "engine.mjs");
    fs.writeFileSync(engine, `import { check as c } from ${JSON.stringify(path.resolve("generated/his-500/index.ts"))};\nexport const check = (s, a) => ({ allowed: c(s, a).allowed });\n`);
    const only = await runCorpus("conformance/his-500", { module: engine }, { verdictOnly: true });
    expect(only.disagreements).toEqual([]);
    expect(only.verdictsAgreed).toBe(only.total);
    const full = await runCorpus("conformance/his-500", { module: engine });
    const forbidden = loadCorpus("conformance/his-500").cases.filter((c) => c.expect.violations.length).length;
    expect(full.disagreements.length).toBe(forbidden);
    expect(full.verdictsAgreed).toBe(full.total);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 600_000);

  it("every case names its rule by a position in the shipped rule files, its origin, and the titles of the rules it names", () => {
    for (const e of ["his", "his-500", "vq"]) {
      const ir = loadEdition(`dsl/${e}`).edition!;
      const rulesAt = new Set([...ir.rules.map((r) => `${r.pos.file}:${r.pos.line}`), ...ir.actions.map((a) => `${a.pos.file}:${a.pos.line}`)]);
      for (const c of loadCorpus(`conformance/${e}`).cases as unknown as { id: string; source: string; origin: string; rules: Record<string, string>; expect: { violations: string[] } }[]) {
        expect(rulesAt.has(c.source), `${c.id} ${c.source}`).toBe(true);
        expect(c.source.startsWith("dsl/"), c.id).toBe(true);
        expect(c.origin, c.id).toMatch(/^(scenario test\/scenarios\/|proof |mutant )/);
        for (const v of c.expect.violations) expect(c.rules[v], `${c.id} ${v}`).toBe(ir.rules.find((r) => r.id === v)!.title);
      }
    }
  });

  it("a variant's corpus takes its parent's scenarios too, with the variant's verdict, and each name says whether the variant agrees with the parent scenario", () => {
    const cases = loadCorpus("conformance/his-500").cases as unknown as { name: string; origin: string; expect: { allowed: boolean; violations: string[]; obliged: string[] } }[];
    const inherited = cases.filter((c) => c.origin.startsWith("scenario test/scenarios/his/"));
    expect(inherited.length).toBeGreaterThan(200);
    expect(cases.filter((c) => c.origin.startsWith("scenario test/scenarios/his-500/")).length).toBeGreaterThan(10);
    // the parent's scenarios by file:line, as the corpus's origins name them
    const his = new Map<string, Scenario>();
    for (const f of findScenarioFiles(["test/scenarios/his"])) for (const s of readScenarioFile(f, (e) => path.join("test", "fixtures", path.basename(e))).scenarios) his.set(`scenario ${f.split(path.sep).join("/")}:${s.line}`, s);
    const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));
    let differ = 0;
    for (const c of inherited) {
      const s = his.get(c.origin)!;
      expect(s, c.origin).toBeDefined();
      const e = s.expect;
      const agrees = e === "allowed" ? c.expect.allowed && !c.expect.violations.length : "forbidden" in e ? sameSet(e.forbidden, c.expect.violations) : sameSet(e.obliged, c.expect.obliged);
      expect(c.name.startsWith(s.name), c.origin).toBe(true);
      if (agrees) expect(c.name, c.origin).toMatch(/ \(a his scenario; his-500 agrees\)$/);
      else {
        differ++;
        expect(c.name, c.origin).toMatch(c.expect.allowed ? / \(a his scenario; his-500 allows it/ : new RegExp(` \\(a his scenario; his-500 forbids it: ${c.expect.violations.join(", ")}`));
      }
    }
    // his-500's overridden and added rules change some verdicts (deploy.other_units, deploy.star_all)
    expect(differ).toBeGreaterThan(0);
    // his allows the deployments of test/scenarios/his/his-500-contrast.yaml; the same states and actions are
    // his-500's own scenarios, which come first and are forbidden by deploy.other_units: one case each
    expect(inherited.filter((c) => c.origin.startsWith("scenario test/scenarios/his/his-500-contrast.yaml"))).toEqual([]);
  });

  it("--check's staleness: a corpus made from other rules or other scenarios (the edition's or its parent's) is stale", () => {
    for (const e of ["his", "his-500", "vq"]) {
      const ir = loadEdition(`dsl/${e}`).edition!;
      const manifest = JSON.parse(fs.readFileSync(`conformance/${e}/manifest.json`, "utf8")) as Manifest;
      expect(corpusStaleness(ir, manifest), e).toBeUndefined();
      expect(corpusStaleness(ir, { ...manifest, version: "0".repeat(64) }), e).toBe("made from other rules");
      expect(corpusStaleness(ir, { ...manifest, scenarios: "0".repeat(64) }), e).toMatch(/^made from other scenarios: test\/scenarios\//);
      expect(corpusStaleness(ir, undefined), e).toBe("no corpus");
    }
    // a variant's staleness names its parent's scenarios too
    const ir = loadEdition("dsl/his-500").edition!;
    const manifest = JSON.parse(fs.readFileSync("conformance/his-500/manifest.json", "utf8")) as Manifest;
    expect(corpusStaleness(ir, { ...manifest, scenarios: undefined })).toBe("made from other scenarios: test/scenarios/his-500/ or test/scenarios/his/ changed");
  });

  it("diffState gives a patch that deepMerge turns back into the state, or none when a key is gone", () => {
    const base = { a: 1, b: { c: [1, 2], d: "x" }, e: null };
    const state = { a: 1, b: { c: [3], d: "x", f: true }, e: { g: 1 } };
    const d = diffState(base, state)!;
    expect(d.patch).toEqual({ b: { c: [3], f: true }, e: { g: 1 } });
    expect(deepMerge(base, d.patch)).toEqual(state);
    expect(diffState(base, { a: 1, b: { c: [] } })).toBeUndefined();
  });
});
