/**
 * The VS Code extension's TextMate grammar (editors/vscode/syntaxes/) against its snapshot files
 * (editors/vscode/test/*.rules.snap, written by `vscode-tmgrammar-snap --updateSnapshot`), and the
 * scopes that matter on a real rule file (dsl/modules/pass/pass.rules, copied there).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const REPO = path.resolve(import.meta.dirname, "../..");
const EXT = path.join(REPO, "editors/vscode");

it("the grammar tokenizes the test files exactly as their snapshots say", () => {
  const bin = path.join(REPO, "node_modules/vscode-tmgrammar-test/dist/snapshot.js");
  const out = execFileSync(process.execPath, [bin, "-s", "source.rulewright", "-g", path.join(EXT, "syntaxes/rulewright.tmLanguage.json"), path.join(EXT, "test/*.rules")], { cwd: REPO, encoding: "utf8" });
  expect(out).not.toMatch(/fail/i);
});

it("the snapshot of a real rule file: rule ids, sections, strings, keywords, comments", () => {
  const snap = fs.readFileSync(path.join(EXT, "test/pass.rules.snap"), "utf8");
  expect(fs.readFileSync(path.join(EXT, "test/pass.rules"), "utf8")).toBe(fs.readFileSync(path.join(REPO, "dsl/modules/pass/pass.rules"), "utf8"));
  const block = snap.slice(snap.indexOf(">rule pass.home_card"));
  expect(block).toMatch(/\^{4} source\.rulewright keyword\.declaration\.rulewright/);
  expect(block).toMatch(/\^{14} source\.rulewright entity\.name\.rule\.rulewright/);
  expect(block).toMatch(/\^{4} source\.rulewright markup\.underline\.link\.section\.rulewright/);
  expect(snap).toMatch(/comment\.line\.double-slash\.rulewright/);
  expect(snap).toMatch(/\^{6} source\.rulewright keyword\.control\.rulewright/); // forbid
  expect(snap).toMatch(/\^{5} source\.rulewright variable\.language\.state\.rulewright/);
});

it("the extension manifest: the language, its grammar and configuration files, and a client entry that exist", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(EXT, "package.json"), "utf8"));
  expect(pkg.contributes.languages[0]).toMatchObject({ id: "rulewright", extensions: [".rules"] });
  for (const f of [pkg.main, pkg.contributes.grammars[0].path, pkg.contributes.languages[0].configuration]) expect(fs.existsSync(path.join(EXT, f))).toBe(true);
  // empty: the client finds the server (editors/vscode/server-command.js, test/lsp/vscode-server-command.test.ts), never through npx
  expect(pkg.contributes.configuration.properties["rulewright.server.command"].default).toEqual([]);
});
