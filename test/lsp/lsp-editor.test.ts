/**
 * Editor defects found with a real client (issue 23, part 3), each driven through the real LSP
 * client of test/helpers/lsp-client.ts over the server's stdio, on copies of the tiny fixture
 * edition test/fixtures/frontend/mini in a temporary project (with a proof report, a scenario
 * file and a fixture): the project root found from the file when the workspace folder is the
 * project's parent or `dsl/mini`; rename refusing a name in use and a field that scenarios
 * name; a new unsaved rule file checked with its edition; a rule file outside any edition;
 * file watching; formatting a file with lone-CR line endings.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DidChangeWatchedFilesNotification, DocumentFormattingRequest, FileChangeType, HoverRequest, PrepareRenameRequest, RenameRequest,
  type MarkupContent, type Position, type PublishDiagnosticsParams, type WorkspaceEdit,
} from "vscode-languageserver-protocol/node";
import { LspClient, REPO, uri } from "../helpers/lsp-client.js";
import { formatRules } from "../../compiler/fmt/format.js";

/** The position of the `at`-th character of the first `needle` in `text` (after `after`, when given). */
function pos(text: string, needle: string, at = 0, after = ""): Position {
  const from = after ? text.indexOf(after) : 0;
  const i = text.indexOf(needle, from);
  if (i < 0) throw new Error(`not found: ${needle}`);
  const lines = text.slice(0, i + at).split(/\r\n|\r|\n/);
  return { line: lines.length - 1, character: lines[lines.length - 1]!.length };
}
const hoverText = (h: { contents: unknown } | null) => (h ? (h.contents as MarkupContent).value : "");
const filesOf = (e: WorkspaceEdit, root: string) => Object.fromEntries(Object.entries(e.changes ?? {}).map(([k, v]) => [path.relative(root, new URL(k).pathname), v.length]));

/** The diagnostics notifications for `u` after the first `from` ones, once one satisfies `ok`. */
async function nextDiagnostics(c: LspClient, u: string, from: number, ok: (d: PublishDiagnosticsParams["diagnostics"]) => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = c.diagnostics.slice(from).find((d) => d.uri === u && ok(d.diagnostics));
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no matching diagnostics for ${u}: ${JSON.stringify(c.diagnostics.slice(from).filter((d) => d.uri === u).map((d) => d.diagnostics.map((x) => x.message)))}; stderr: ${c.stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-lsp-editor-"));
/** A project `<tmp>/<name>`: dsl/mini, a proof report, a scenario file naming `dow.genoa` and the field `wars`, a fixture. */
function project(name: string): { root: string; war: string; text: string } {
  const root = path.join(tmp, name);
  fs.cpSync(path.join(REPO, "test/fixtures/frontend/mini"), path.join(root, "dsl/mini"), { recursive: true });
  fs.mkdirSync(path.join(root, "proofs/mini"), { recursive: true });
  fs.writeFileSync(path.join(root, "proofs/mini/report.json"), JSON.stringify({
    edition: "mini", inputHash: "not-the-current-hash", summary: {}, bounds: {}, ms: 0,
    obligations: [{ id: "mini.dead_rule.pass.card", kind: "dead_rule", severity: "warning", edition: "mini", action: "pass", rules: ["pass.card"], subjects: ["pass.card"], verdict: "refuted", core: ["pass.card"], smt2: "", ms: 0 }],
  }));
  fs.mkdirSync(path.join(root, "test/scenarios/mini"), { recursive: true });
  fs.writeFileSync(path.join(root, "test/scenarios/mini/war.yaml"), [
    "# war on Genoa",
    "edition: mini",
    "fixture: base.json",
    "scenarios:",
    '  - name: "no war on genoa"',
    "    patch: { wars: [] }",
    "    action: { action: declare_war, by: red, target: genoa }",
    "    expect: { forbidden: [dow.genoa] }",
    "",
  ].join("\n"));
  fs.mkdirSync(path.join(root, "test/fixtures/mini"), { recursive: true });
  fs.writeFileSync(path.join(root, "test/fixtures/mini/base.json"), JSON.stringify({ phase: "movement", segment: "peace", turn: 1, wars: [], hands: { red: [], blue: [] }, spaces: {} }, null, 2));
  const war = path.join(root, "dsl/mini/war.rules");
  return { root, war, text: fs.readFileSync(war, "utf8") };
}
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe.each([
  ["the project's parent", (root: string) => path.dirname(root)],
  ["dsl/mini", (root: string) => path.join(root, "dsl/mini")],
])("workspace folder at %s: the project root is found from the file", (label, workspaceOf) => {
  let c: LspClient;
  let p: ReturnType<typeof project>;
  let u: string;
  beforeAll(async () => {
    p = project(label === "dsl/mini" ? "in-dsl" : "in-parent");
    c = await LspClient.start(workspaceOf(p.root));
    u = await c.open(p.war, p.text);
    const d = await c.waitForDiagnostics(u, 1);
    expect(d.diagnostics).toEqual([]);
  });
  afterAll(async () => {
    await c?.stop();
  });

  it("hover shows the verdicts of proofs/mini/report.json (not 'no prove report yet')", async () => {
    const h = hoverText(await c.conn.sendRequest(HoverRequest.type, { textDocument: { uri: u }, position: pos(p.text, "pass.card", 3) }));
    expect(h).not.toContain("no prove report yet");
    expect(h).toContain("proofs/mini/report.json");
    expect(h).toContain("dead_rule: **refuted — it never fires**");
  });

  it("rename of a rule id edits the project's scenario file too", async () => {
    const e = (await c.conn.sendRequest(RenameRequest.type, { textDocument: { uri: u }, position: pos(p.text, "dow.genoa", 2), newName: "dow.no_genoa" })) as WorkspaceEdit;
    expect(filesOf(e, p.root)).toEqual({ "dsl/mini/war.rules": 1, "test/scenarios/mini/war.yaml": 1 });
  });
});

describe("rename refuses", () => {
  let c: LspClient;
  let p: ReturnType<typeof project>;
  let u: string;
  beforeAll(async () => {
    p = project("rename");
    c = await LspClient.start(p.root);
    u = await c.open(p.war, p.text);
    await c.waitForDiagnostics(u, 1);
  });
  afterAll(async () => {
    await c?.stop();
  });
  const rename = (at: Position, newName: string) => c.conn.sendRequest(RenameRequest.type, { textDocument: { uri: u }, position: at, newName });

  it("a name already in use: a def renamed to another def's name, a rule to another rule's id, a member to another enum's member, a field to a field of its record", async () => {
    await expect(rename(pos(p.text, "at_war", 1), "controls")).rejects.toThrow("`controls` is already the name of a def");
    await expect(rename(pos(p.text, "dow.genoa", 2), "dow.twice")).rejects.toThrow("`dow.twice` is already the id of a rule");
    await expect(rename(pos(p.text, "truce", 1, "c = truce"), "genoa")).rejects.toThrow("`genoa` is already a member of the enum `Power`");
    await expect(rename(pos(p.text, "hands", 1), "turn")).rejects.toThrow("`turn` is already a field of the same record");
    // a free name is fine
    const ok = (await rename(pos(p.text, "at_war", 1), "at_war_with")) as WorkspaceEdit;
    expect(Object.values(ok.changes!).flat().every((e) => e.newText === "at_war_with")).toBe(true);
  });

  it("a state field that a scenario or fixture names: prepareRename and rename answer with the reason", async () => {
    const at = pos(p.text, "wars", 1, "invariant");
    await expect(c.conn.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: u }, position: at })).rejects.toThrow(
      /cannot rename the state field `wars`: 2 scenario, fixture or conformance files name it \(test\/fixtures\/mini\/base\.json, test\/scenarios\/mini\/war\.yaml\)/,
    );
    await expect(rename(at, "conflicts")).rejects.toThrow(/rename does not rewrite the states and actions written there/);
    // a member only named in a YAML comment and nowhere else in the data: renamed (`truce` is in no data file)
    const m = (await rename(pos(p.text, "truce", 1, "c = truce"), "ceasefire")) as WorkspaceEdit;
    expect(filesOf(m, p.root)).toEqual({ "dsl/mini/edition.rules": 1, "dsl/mini/war.rules": 2, "dsl/mini/state.schema.json": 1 });
  });
});

describe("rule files the editor holds: new and unsaved, outside any edition", () => {
  let c: LspClient;
  let p: ReturnType<typeof project>;
  beforeAll(async () => {
    p = project("buffers");
    c = await LspClient.start(p.root);
  });
  afterAll(async () => {
    await c?.stop();
  });

  it("a new unsaved rule file in an edition folder is checked with its edition at once", async () => {
    const extra = path.join(p.root, "dsl/mini/extra.rules");
    expect(fs.existsSync(extra)).toBe(false);
    const bad = 'rule pass.extra §11 "new"\n  forbid pass when at_wr(power, genoa)\n';
    const u = await c.open(extra, bad, 1);
    const d1 = await c.waitForDiagnostics(u, 1);
    expect(d1.diagnostics.map((d) => d.code)).toEqual(["RW2005"]);
    expect(d1.diagnostics[0]!.message).toContain("did you mean `at_war`?");
    await c.change(u, bad.replace("at_wr", "at_war"), 2);
    expect((await c.waitForDiagnostics(u, 2)).diagnostics).toEqual([]);
    // its rule counts in the edition: a rule of the same id in war.rules is now a duplicate
    const wu = await c.open(p.war, p.text.replace("rule pass.card", "rule pass.extra"), 1);
    const dw = await c.waitForDiagnostics(wu, 1);
    expect(dw.diagnostics.some((d) => /pass\.extra/.test(String(d.message)))).toBe(true);
  });

  it("a .rules file outside any edition: its syntax errors, and an information diagnostic saying it is not in an edition", async () => {
    const loose = path.join(tmp, "loose", "notes.rules");
    const u = await c.open(loose, 'rule a.b §1 "half"\n  forbid pass when (\n', 1);
    const d = await c.waitForDiagnostics(u, 1);
    expect(d.diagnostics.some((x) => String(x.code).startsWith("RW1") && x.severity === 1)).toBe(true);
    const info = d.diagnostics.find((x) => x.severity === 3);
    expect(info?.message).toMatch(/is not part of any edition: only its syntax is checked/);
    await c.change(u, 'rule a.b §1 "fine"\n  forbid pass when true\n', 2);
    const d2 = await c.waitForDiagnostics(u, 2);
    expect(d2.diagnostics.map((x) => x.severity)).toEqual([3]);
  });
});

describe("file watching", () => {
  it("the server registers workspace/didChangeWatchedFiles; a schema changed on disk re-checks the open files", async () => {
    const p = project("watch");
    const c = await LspClient.start(p.root, { capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } } });
    try {
      const reg = await c.waitForRegistration("workspace/didChangeWatchedFiles");
      const globs = (reg.registerOptions as { watchers: { globPattern: string }[] }).watchers.map((w) => w.globPattern);
      expect(globs).toEqual(expect.arrayContaining(["**/*.rules", "**/*.schema.json", "**/board.json"]));
      const u = await c.open(p.war, p.text, 1);
      expect((await c.waitForDiagnostics(u, 1)).diagnostics).toEqual([]);
      // the field `wars` renamed in the schema on disk (no edit in the editor)
      const schema = path.join(p.root, "dsl/mini/state.schema.json");
      const from = c.diagnostics.length;
      fs.writeFileSync(schema, fs.readFileSync(schema, "utf8").replaceAll('"wars"', '"conflicts"'));
      await c.conn.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: uri(schema), type: FileChangeType.Changed }] });
      const d = await nextDiagnostics(c, u, from, (ds) => ds.length > 0);
      expect(d.diagnostics.map((x) => x.code)).toContain("RW2001");
      expect(d.diagnostics.some((x) => String(x.message).includes("wars"))).toBe(true);
    } finally {
      await c.stop();
    }
  });

  it("without dynamic registration in the client, nothing is registered", async () => {
    const c = await LspClient.start(project("nowatch").root);
    try {
      const u = await c.open(path.join(tmp, "nowatch/dsl/mini/war.rules"), fs.readFileSync(path.join(tmp, "nowatch/dsl/mini/war.rules"), "utf8"));
      await c.waitForDiagnostics(u, 1);
      expect(c.registrations).toEqual([]);
    } finally {
      await c.stop();
    }
  });
});

describe("formatting a file with lone-CR line endings", () => {
  it("the edit covers the whole document and gives the canonical layout with \\r line ends (was: every declaration doubled)", async () => {
    const p = project("fmt");
    const c = await LspClient.start(p.root);
    try {
      const messy = p.text.replace("  forbid declare_war when target = Power.genoa", "forbid   declare_war when target=Power.genoa").replace(/\n/g, "\r");
      const u = await c.open(p.war, messy);
      await c.waitForDiagnostics(u, 1);
      const edits = (await c.conn.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: u }, options: { tabSize: 2, insertSpaces: true } })) as { range: { start: Position; end: Position }; newText: string }[];
      expect(edits).toHaveLength(1);
      const lines = messy.split("\r").length;
      expect(edits[0]!.range.start).toEqual({ line: 0, character: 0 });
      expect(edits[0]!.range.end.line).toBeGreaterThanOrEqual(lines - 1);
      const res = formatRules(p.text.replace("  forbid declare_war when target = Power.genoa", "forbid   declare_war when target=Power.genoa"));
      expect(res.ok && edits[0]!.newText).toBe(res.ok && res.text.replace(/\n/g, "\r"));
      expect(edits[0]!.newText.split("rule dow.genoa").length).toBe(2);
    } finally {
      await c.stop();
    }
  });
});
