/**
 * `rulewright lsp` driven by a real LSP client over the child's stdio (test/helpers/lsp-client.ts):
 * one test per capability, on a bundled edition (dsl/his, buffers edited in memory, never saved)
 * and on a copy of the tiny fixture edition test/fixtures/frontend/mini in a temporary workspace
 * with a hand-written proof report (tests never prove).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CodeActionRequest, CompletionRequest, DefinitionRequest, DocumentFormattingRequest, DocumentSymbolRequest, FoldingRangeRequest,
  HoverRequest, ReferencesRequest, RenameRequest, SemanticTokensRequest, WorkspaceSymbolRequest,
  type CompletionItem, type DocumentSymbol, type Location, type MarkupContent, type Position, type WorkspaceEdit,
} from "vscode-languageserver-protocol/node";
import { LspClient, REPO, uri } from "../helpers/lsp-client.js";
import { loadEdition } from "../../compiler/check/index.js";
import { obligationsFor } from "../../compiler/ir/obligations.js";
import { obligationKeys } from "../../compiler/verify/cache/keys.js";
import { ProofCache } from "../../compiler/verify/cache/store.js";
import { DEFAULT_RLIMIT } from "../../compiler/verify/run/limits.js";

const WAR = path.join(REPO, "dsl/his/war.rules");
const warText = fs.readFileSync(WAR, "utf8");

/** The position of the `at`-th character of the first `needle` in `text` (after `after`, when given). */
function pos(text: string, needle: string, at = 0, after = ""): Position {
  const from = after ? text.indexOf(after) : 0;
  const i = text.indexOf(needle, from);
  if (i < 0) throw new Error(`not found: ${needle}`);
  const off = i + at;
  const lines = text.slice(0, off).split("\n");
  return { line: lines.length - 1, character: lines[lines.length - 1]!.length };
}

const hoverText = (h: { contents: unknown } | null) => (h ? (h.contents as MarkupContent).value : "");

describe("rulewright lsp on dsl/his", () => {
  let c: LspClient;
  let u: string;
  beforeAll(async () => {
    c = await LspClient.start();
    u = await c.open(WAR, warText, 1);
  });
  afterAll(async () => {
    await c?.stop();
  });

  it("publishes diagnostics as you type: none for the bundled file, RW2005 with its did-you-mean for a misspelt def, RW1xxx for a half-typed rule", async () => {
    const first = await c.waitForDiagnostics(u, 1);
    expect(first.diagnostics).toEqual([]);
    const bad = warText.replace("allied(by, france)", "alied(by, france)");
    await c.change(u, bad, 2);
    const d2 = await c.waitForDiagnostics(u, 2);
    expect(d2.diagnostics.map((d) => d.code)).toEqual(["RW2005"]);
    expect(d2.diagnostics[0]!.message).toContain("did you mean `allied`?");
    expect(d2.diagnostics[0]!.range.start).toEqual(pos(bad, "alied(by, france)"));
    const half = warText + "\nrule dow.new §9.6 \"half typed\"\n  forbid declare_war when state.\n";
    await c.change(u, half, 3);
    const d3 = await c.waitForDiagnostics(u, 3);
    expect(d3.diagnostics.length).toBeGreaterThan(0);
    expect(d3.diagnostics.every((d) => String(d.code).startsWith("RW1"))).toBe(true);
    await c.change(u, warText, 4);
    expect((await c.waitForDiagnostics(u, 4)).diagnostics).toEqual([]);
  });

  it("code actions: the did-you-mean of a diagnostic is a quick fix that writes the suggestion", async () => {
    const bad = warText.replace("allied(by, france)", "alied(by, france)");
    await c.change(u, bad, 10);
    const d = (await c.waitForDiagnostics(u, 10)).diagnostics;
    const actions = (await c.conn.sendRequest(CodeActionRequest.type, { textDocument: { uri: u }, range: d[0]!.range, context: { diagnostics: d } })) as { title: string; edit?: WorkspaceEdit }[];
    const fix = actions.find((a) => a.title === "Change to `allied`");
    expect(fix?.edit?.changes?.[u]).toEqual([{ range: d[0]!.range, newText: "allied" }]);
    await c.change(u, warText, 11);
    await c.waitForDiagnostics(u, 11);
  });

  it("definition: a def call goes to the def in edition.rules, a state field to the schema", async () => {
    const defs = (await c.conn.sendRequest(DefinitionRequest.type, { textDocument: { uri: u }, position: pos(warText, "allied(by, france)", 2) })) as Location[];
    const ed = fs.readFileSync(path.join(REPO, "dsl/his/edition.rules"), "utf8");
    expect(defs).toEqual([{ uri: uri(path.join(REPO, "dsl/his/edition.rules")), range: { start: pos(ed, "allied", 0, "def allied"), end: pos(ed, "allied", 6, "def allied") } }]);
    const deploy = fs.readFileSync(path.join(REPO, "dsl/his/deploy.rules"), "utf8");
    const du = await c.open(path.join(REPO, "dsl/his/deploy.rules"), deploy);
    const f = (await c.conn.sendRequest(DefinitionRequest.type, { textDocument: { uri: du }, position: pos(deploy, "active_power", 1) })) as Location[];
    expect(f).toHaveLength(1);
    expect(f[0]!.uri).toBe(uri(path.join(REPO, "dsl/his/state.schema.json")));
    const schemaLine = fs.readFileSync(path.join(REPO, "dsl/his/state.schema.json"), "utf8").split("\n")[f[0]!.range.start.line]!;
    expect(schemaLine).toContain('"active_power"');
  });

  it("references: every use of the def `allied` across the edition's files, with its declaration", async () => {
    const refs = (await c.conn.sendRequest(ReferencesRequest.type, { textDocument: { uri: u }, position: pos(warText, "allied(by, france)", 1), context: { includeDeclaration: true } })) as Location[];
    const files = new Set(refs.map((r) => path.relative(REPO, new URL(r.uri).pathname)));
    expect(files.has("dsl/his/edition.rules")).toBe(true);
    expect(files.has("dsl/his/war.rules")).toBe(true);
    const uses = warText.split("allied(").length - 1;
    expect(refs.filter((r) => r.uri === u)).toHaveLength(uses);
    const noDecl = (await c.conn.sendRequest(ReferencesRequest.type, { textDocument: { uri: u }, position: pos(warText, "allied(by, france)", 1), context: { includeDeclaration: false } })) as Location[];
    expect(noDecl).toHaveLength(refs.length - 1);
  });

  it("hover: a rule's citation, reading and (without a report) how to prove it; a state field's type; an action's parameters", async () => {
    const h = hoverText(await c.conn.sendRequest(HoverRequest.type, { textDocument: { uri: u }, position: pos(warText, "dow.scotland", 4) }));
    expect(h).toContain("**rule** `dow.scotland` — forbid `declare_war`");
    expect(h).toContain("his §9.6 (in `his`)");
    expect(h).toContain("**Reads:** `declare_war` is forbidden when `target` is `scotland` and (`by` is one of {`ottoman`, `papacy`, `protestant`} or `allied`(`by`, `france`))");
    expect(h).toMatch(/\*\*Proofs \(his[,:)]/);
    const ed = fs.readFileSync(path.join(REPO, "dsl/his/edition.rules"), "utf8");
    const eu = await c.open(path.join(REPO, "dsl/his/edition.rules"), ed);
    const f = hoverText(await c.conn.sendRequest(HoverRequest.type, { textDocument: { uri: eu }, position: pos(ed, "alliances", 2, "def allied") }));
    expect(f).toContain("**state field** `alliances`: `list<PowerPair> (at most 16)`");
    const a = hoverText(await c.conn.sendRequest(HoverRequest.type, { textDocument: { uri: u }, position: pos(warText, "declare_war", 2) }));
    expect(a).toContain("action declare_war(actor by: MajorPower, target: Power)");
  });

  it("document symbols: every declaration of the file, rules with their titles", async () => {
    const syms = (await c.conn.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri: u } })) as DocumentSymbol[];
    const rules = warText.match(/^rule (\S+)/gm)!.map((r) => r.slice(5));
    expect(syms.map((s) => s.name)).toEqual(expect.arrayContaining(rules));
    const scot = syms.find((s) => s.name === "dow.scotland")!;
    expect(scot.detail).toContain("the Ottoman, the Papacy");
    expect(scot.selectionRange.start).toEqual(pos(warText, "dow.scotland"));
  });

  it("workspace symbols: a rule of a module found by part of its id", async () => {
    const syms = (await c.conn.sendRequest(WorkspaceSymbolRequest.type, { query: "empty_hand" })) as { name: string; location: Location }[];
    expect(syms.map((s) => s.name)).toContain("pass.empty_hand");
    expect(syms.find((s) => s.name === "pass.empty_hand")!.location.uri).toBe(uri(path.join(REPO, "dsl/modules/pass/pass.rules")));
  });

  it("completion: the state fields after `state.`, a card's fields after `c.`, rule ids after `lifts`, keywords and snippets elsewhere", async () => {
    const base = warText + "\nrule dow.x §9.6 \"t\"\n  forbid declare_war when state.";
    await c.change(u, base, 20);
    const end = pos(base, "state.", 6, "rule dow.x");
    const items = (await c.conn.sendRequest(CompletionRequest.type, { textDocument: { uri: u }, position: end })) as CompletionItem[];
    expect(items.map((i) => i.label)).toEqual(expect.arrayContaining(["alliances", "wars", "hands", "phase"]));
    expect(items.find((i) => i.label === "hands")!.detail).toBe("map<MajorPower, list<Card> (at most 12)>");
    const q = warText + "\nrule dow.y §9.6 \"t\"\n  forbid declare_war when some c in state.hands[by]: c.";
    await c.change(u, q, 21);
    const qi = (await c.conn.sendRequest(CompletionRequest.type, { textDocument: { uri: u }, position: pos(q, "c.", 2, "rule dow.y") })) as CompletionItem[];
    expect(qi.map((i) => i.label)).toEqual(expect.arrayContaining(["home", "mandatory"]));
    const l = warText + "\nexempt dow.z §9.6 \"t\" lifts ";
    await c.change(u, l, 22);
    const li = (await c.conn.sendRequest(CompletionRequest.type, { textDocument: { uri: u }, position: pos(l, "lifts ", 6, "exempt dow.z") })) as CompletionItem[];
    expect(li.map((i) => i.label)).toEqual(expect.arrayContaining(["dow.scotland", "pass.empty_hand"]));
    // an action scope's second phase after a comma, and its segment after the dot
    const sc = warText + "\naction zz(actor power: MajorPower)\n  during action_phase, ";
    await c.change(u, sc, 23);
    const sci = (await c.conn.sendRequest(CompletionRequest.type, { textDocument: { uri: u }, position: pos(sc, ", ", 2, "action zz") })) as CompletionItem[];
    expect(sci.map((i) => i.label)).toEqual(expect.arrayContaining(["luthers_95_theses", "diplomacy", "winter"]));
    expect(sci.map((i) => i.label)).not.toContain("forbid");
    const ss = warText + "\naction zz(actor power: MajorPower)\n  during action_phase, diplomacy.";
    await c.change(u, ss, 24);
    const ssi = (await c.conn.sendRequest(CompletionRequest.type, { textDocument: { uri: u }, position: pos(ss, "diplomacy.", 10, "action zz") })) as CompletionItem[];
    expect(ssi.map((i) => i.label)).toEqual(expect.arrayContaining(["declarations_of_war", "negotiations"]));
    const g = warText + "\n\n";
    await c.change(u, g, 25);
    const gi = (await c.conn.sendRequest(CompletionRequest.type, { textDocument: { uri: u }, position: { line: g.split("\n").length - 1, character: 0 } })) as CompletionItem[];
    expect(gi.map((i) => i.label)).toEqual(expect.arrayContaining(["forbid", "when", "forbid … when …", "allied", "MajorPower"]));
    expect(gi.find((i) => i.label === "forbid … when …")!.insertText).toContain("forbid ${5:action} when ${0:condition}");
    await c.change(u, warText, 26);
    await c.waitForDiagnostics(u, 26);
  });

  it("semantic tokens: comments, keywords, rule ids, enum members and fields, as LSP relative data", async () => {
    const r = (await c.conn.sendRequest(SemanticTokensRequest.type, { textDocument: { uri: u } })) as { data: number[] };
    expect(r.data.length % 5).toBe(0);
    const abs: [number, number, number, number][] = [];
    let l = 0;
    let ch = 0;
    for (let i = 0; i < r.data.length; i += 5) {
      l += r.data[i]!;
      ch = r.data[i] === 0 ? ch + r.data[i + 1]! : r.data[i + 1]!;
      abs.push([l, ch, r.data[i + 2]!, r.data[i + 3]!]);
    }
    const TYPES = ["keyword", "string", "number", "comment", "namespace", "function", "enum", "enumMember", "property", "parameter", "variable", "decorator"];
    const at = (p: Position) => TYPES[abs.find((t) => t[0] === p.line && t[1] === p.character)?.[3] ?? -1];
    expect(at({ line: 0, character: 0 })).toBe("comment");
    expect(at(pos(warText, "rule dow.scotland"))).toBe("keyword");
    expect(at(pos(warText, "dow.scotland"))).toBe("namespace");
    expect(at(pos(warText, "scotland and"))).toBe("enumMember");
    expect(at(pos(warText, "declare_war when target = scotland"))).toBe("function");
  });

  it("folding ranges: the comment header and every multi-line declaration", async () => {
    const r = (await c.conn.sendRequest(FoldingRangeRequest.type, { textDocument: { uri: u } })) as { startLine: number; endLine: number; kind?: string }[];
    expect(r).toContainEqual({ startLine: 0, endLine: 3, kind: "comment" });
    const s = pos(warText, "rule dow.scotland").line;
    expect(r).toContainEqual({ startLine: s, endLine: s + 1, kind: "region" });
  });

  it("stays responsive with 1,000 unclosed `{` in a buffer (issue 29: 103 s without an answer, again after one keystroke)", async () => {
    /** the answer of `p`, or a failure after a bound far above a linear parse (a quadratic one took minutes) */
    const within = <T>(ms: number, p: Promise<T>): Promise<T> =>
      Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);
    const deep = warText + '\nrule dow.deep §9.6 "unclosed"\n  forbid declare_war when ' + "{".repeat(1000);
    const hoverRule = () => within(30_000, c.conn.sendRequest(HoverRequest.type, { textDocument: { uri: u }, position: pos(warText, "dow.scotland", 4) }));
    await c.change(u, deep, 300);
    expect(hoverText(await hoverRule())).toContain("**rule** `dow.scotland`");
    const d = await c.waitForDiagnostics(u, 300, 30_000);
    expect(d.diagnostics.map((x) => [x.code, String(x.message).split("\n")[0]])).toEqual([["RW1004", "expected an expression after `{`, found end of file"]]);
    // one keystroke more
    await c.change(u, deep + "{", 301);
    expect(hoverText(await hoverRule())).toContain("**rule** `dow.scotland`");
    expect((await c.waitForDiagnostics(u, 301, 30_000)).diagnostics.map((x) => x.code)).toEqual(["RW1004"]);
    await c.change(u, warText, 302);
    expect((await c.waitForDiagnostics(u, 302)).diagnostics).toEqual([]);
  });

  it("a burst of 50 edits: diagnostics for the last edit's version arrive and describe its text (the latency is printed; bench:lsp measures it)", async () => {
    let text = warText;
    const start = 100;
    let sentAt = 0;
    for (let i = 1; i <= 50; i++) {
      text = warText + `\n// edit ${i}\n` + (i === 50 ? "rule dow.burst §9.6 \"t\"\n  forbid declare_war when target = scotlnd\n" : "");
      sentAt = performance.now();
      await c.change(u, text, start + i);
    }
    const d = await c.waitForDiagnostics(u, start + 50);
    const latency = d.at - sentAt;
    console.log(`lsp: diagnostics of the last of 50 edits (dsl/his/war.rules, editions his and his-500) ${latency.toFixed(0)} ms after it`);
    expect(d.diagnostics.map((x) => x.code)).toEqual(["RW2002"]);
    expect(d.diagnostics[0]!.message).toContain("did you mean `scotland`?");
    // the intermediate versions were debounced away: far fewer than 50 checks
    expect(c.diagnostics.filter((x) => x.uri === u && (x.version ?? 0) > start).length).toBeLessThan(50);
    await c.change(u, warText, 200);
    await c.waitForDiagnostics(u, 200);
  });
});

describe("rulewright lsp on a small edition with a proof report", () => {
  let c: LspClient;
  let ws: string;
  let war: string;
  let warU: string;
  let text: string;
  beforeAll(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-lsp-"));
    fs.cpSync(path.join(REPO, "test/fixtures/frontend/mini"), path.join(ws, "dsl/mini"), { recursive: true });
    fs.mkdirSync(path.join(ws, "proofs/mini"), { recursive: true });
    fs.writeFileSync(path.join(ws, "proofs/mini/report.json"), JSON.stringify({
      edition: "mini", inputHash: "not-the-current-hash", summary: {}, bounds: {}, ms: 0,
      obligations: [
        { id: "mini.dead_rule.pass.card", kind: "dead_rule", severity: "warning", edition: "mini", action: "pass", rules: ["pass.card"], subjects: ["pass.card"], verdict: "refuted", core: ["pass.card", "state.no_self_war"], smt2: "", ms: 0 },
        { id: "mini.contradiction.pass.empty~pass.card", kind: "contradiction", severity: "error", edition: "mini", action: "pass", rules: ["pass.empty", "pass.card"], subjects: ["pass.empty", "pass.card"], verdict: "proved", core: [], smt2: "", ms: 0 },
        { id: "mini.redundant_rule.pass.card", kind: "redundant_rule", severity: "info", edition: "mini", action: "pass", rules: ["pass.card"], subjects: ["pass.card"], verdict: "unknown", reason: "timeout", smt2: "", ms: 0 },
      ],
    }));
    // a proof cache as `rulewright prove` leaves it (proofs/.cache/, keyed by what each obligation
    // depends on), holding one verdict about dow.genoa: dead_rule proved (its redundant_rule is not in it)
    const ir = loadEdition("dsl/mini", { repoRoot: ws }).edition!;
    const obs = obligationsFor(ir);
    const keys = obligationKeys(ir, obs, { listBound: 4 });
    const dead = obs.findIndex((o) => o.id === "mini.dead_rule.dow.genoa");
    expect(dead).toBeGreaterThanOrEqual(0);
    expect(obs.some((o) => o.id === "mini.redundant_rule.dow.genoa")).toBe(true);
    const store = new ProofCache(path.join(ws, "proofs/.cache"), "dsl/mini");
    store.set(keys[dead]!, { verdict: "proved", rlimit: { budget: DEFAULT_RLIMIT, used: 1000 } });
    store.save(false);
    war = path.join(ws, "dsl/mini/war.rules");
    text = fs.readFileSync(war, "utf8");
    c = await LspClient.start(ws);
    warU = await c.open(war, text);
    await c.waitForDiagnostics(warU, 1);
  });
  afterAll(async () => {
    await c?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it("hover on a rule shows the verdicts of its obligations from proofs/<edition>/report.json, and says when the report is older than the files", async () => {
    const h = hoverText(await c.conn.sendRequest(HoverRequest.type, { textDocument: { uri: warU }, position: pos(text, "pass.card", 3) }));
    expect(h).toContain("mini §11 (in `mini`)");
    expect(h).toContain("proofs/mini/report.json — the rule files changed since");
    expect(h).toContain("dead_rule: **refuted — it never fires** (because of `state.no_self_war`)");
    // the shared explanation of the verdict (compiler/ir/explanations.ts), as the CLI and the report say it
    expect(h).toContain("— The rule can never fire: no legal state meets its condition");
    expect(h).toContain("contradiction with `pass.empty`: proved — never both");
    expect(h).toContain("redundant_rule: unknown (timeout)");
    const e = hoverText(await c.conn.sendRequest(HoverRequest.type, { textDocument: { uri: warU }, position: pos(text, "pass.empty", 3) }));
    expect(e).toContain("contradiction with `pass.card`: proved");
    expect(e).not.toContain("dead_rule");
  });

  it("rename: a state field in the rule files, its schema key and its `required` entry; an enum member in the rules and the schema's enums", async () => {
    const edit = (await c.conn.sendRequest(RenameRequest.type, { textDocument: { uri: warU }, position: pos(text, "wars", 1, "invariant"), newName: "conflicts" })) as WorkspaceEdit;
    const schema = path.join(ws, "dsl/mini/state.schema.json");
    const perFile = Object.fromEntries(Object.entries(edit.changes!).map(([k, v]) => [path.relative(ws, new URL(k).pathname), v.length]));
    // `state.wars` in the def `at_war` and in the invariant; the schema's property key and its `required` entry
    expect(perFile).toEqual({ "dsl/mini/war.rules": 2, "dsl/mini/state.schema.json": 2 });
    const lines = fs.readFileSync(schema, "utf8").split("\n");
    for (const e of edit.changes![uri(schema)]!) expect(lines[e.range.start.line]!.slice(e.range.start.character, e.range.end.character)).toBe("wars");
    for (const e of edit.changes![warU]!) expect(text.split("\n")[e.range.start.line]!.slice(e.range.start.character - 6, e.range.end.character)).toBe("state.wars");
    const m = (await c.conn.sendRequest(RenameRequest.type, { textDocument: { uri: warU }, position: pos(text, "truce", 1, "c = truce"), newName: "ceasefire" })) as WorkspaceEdit;
    const mFiles = Object.fromEntries(Object.entries(m.changes!).map(([k, v]) => [path.relative(ws, new URL(k).pathname), v.length]));
    // the enum declaration (edition.rules), `c = truce` and `truce in state.hands[power]` (war.rules); the schema's `Card` enum
    expect(mFiles).toEqual({ "dsl/mini/edition.rules": 1, "dsl/mini/war.rules": 2, "dsl/mini/state.schema.json": 1 });
    const r = (await c.conn.sendRequest(RenameRequest.type, { textDocument: { uri: warU }, position: pos(text, "pass.card", 1), newName: "pass.truce_card" })) as WorkspaceEdit;
    expect(r.changes![warU]!.map((e) => e.newText)).toEqual(["pass.truce_card"]);
    await expect(c.conn.sendRequest(RenameRequest.type, { textDocument: { uri: warU }, position: pos(text, "truce", 1, "c = truce"), newName: "not a name" })).rejects.toThrow(/not a valid member name/);
  });

  it("formatting: the document's edits give the canonical layout", async () => {
    const messy = text.replace("rule dow.genoa §9.6 \"no power may declare war on Genoa\"\n  forbid declare_war when target = Power.genoa", "rule dow.genoa §9.6 \"no power may declare war on Genoa\"\nforbid   declare_war when target=Power.genoa");
    await c.change(warU, messy, 2);
    const edits = (await c.conn.sendRequest(DocumentFormattingRequest.type, { textDocument: { uri: warU }, options: { tabSize: 2, insertSpaces: true } })) as { newText: string }[];
    expect(edits).toHaveLength(1);
    expect(edits[0]!.newText).toContain("\n  forbid declare_war when target = Power.genoa\n");
  });

  it("hover reads verdicts from the proof cache for the rules as they are in the editor (the report being older): kept across a new title, gone when the condition changes", async () => {
    const at = (t: string) => pos(t, "dow.genoa", 3);
    const titled = text.replace('"no power may declare war on Genoa"', '"Genoa is never at war"');
    await c.change(warU, titled, 10);
    await c.waitForDiagnostics(warU, 10);
    const h = hoverText(await c.conn.sendRequest(HoverRequest.type, { textDocument: { uri: warU }, position: at(titled) }));
    expect(h).toContain("from the proof cache proofs/.cache/");
    expect(h).toContain("dead_rule: proved — it can fire");
    expect(h).toContain("— The rule can fire: some legal state triggers it");
    expect(h).toMatch(/redundant_rule: not proved since the last change — run `npx rulewright prove dsl\/mini`/);
    const changed = text.replace("forbid declare_war when target = Power.genoa", "forbid declare_war when target = Power.green");
    await c.change(warU, changed, 11);
    await c.waitForDiagnostics(warU, 11);
    const g = hoverText(await c.conn.sendRequest(HoverRequest.type, { textDocument: { uri: warU }, position: at(changed) }));
    expect(g).not.toContain("from the proof cache");
    expect(g).toContain("proofs/mini/report.json — the rule files changed since");
    await c.change(warU, text, 12);
  });
});

describe("rulewright lsp: framing errors and exit codes (issue 29)", () => {
  const frame = (o: object) => {
    const body = JSON.stringify(o);
    return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  const initialize = frame({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: null, rootUri: null, capabilities: {} } });
  /** Runs the server, writes each step's text (waiting, when `waitFor` is given, until stdout matches it), then ends stdin unless `keepOpen`; resolves at the child's exit. */
  const session = (steps: { write: string; waitFor?: RegExp }[], keepOpen = false) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(REPO, "bin/rulewright.mjs"), "lsp", "--stdio"], { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      let next: (() => void) | undefined;
      child.stdout.setEncoding("utf8").on("data", (s: string) => {
        stdout += s;
        next?.();
      });
      child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
      // a hang fails the test by its own timeout; the child never outlives it
      const kill = setTimeout(() => child.kill("SIGKILL"), 60_000);
      child.on("exit", (code) => {
        clearTimeout(kill);
        resolve({ code, stdout, stderr });
      });
      void (async () => {
        for (const step of steps) {
          child.stdin.write(step.write);
          if (step.waitFor) {
            const re = step.waitFor;
            await new Promise<void>((res) => {
              next = () => re.test(stdout) && res();
              next();
            });
          }
        }
        if (!keepOpen) child.stdin.end();
      })();
    });

  it("a non-numeric or missing Content-Length: exit 1 with the reason on stderr (was: no answer, no exit)", async () => {
    const bad = await session([{ write: "Content-Length: abc\r\n\r\n{}" }], true);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Content-Length value must be a number. Got abc");
    expect(bad.stderr).toContain("every message needs a `Content-Length: <bytes>` header");
    const missing = await session([{ write: "Content-Type: application/json\r\n\r\n{}" }], true);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("Header must provide a Content-Length property");
    const noColon = await session([{ write: "hello\r\n\r\n" }], true);
    expect(noColon.code).toBe(1);
    expect(noColon.stderr).toContain("cannot read the client's messages");
  });

  it("a framed body that is not JSON is answered with a parse error (-32700) and the server reads on", async () => {
    const r = await session([
      { write: "Content-Length: 5\r\n\r\nhello", waitFor: /-32700/ },
      { write: initialize, waitFor: /"id":1,"result"/ },
      { write: frame({ jsonrpc: "2.0", id: 2, method: "shutdown" }), waitFor: /"id":2/ },
    ]);
    expect(r.stdout).toMatch(/"id":null,"error":\{"code":-32700/);
    expect(r.stdout).toContain('"serverInfo":{"name":"rulewright"}');
    expect(r.code).toBe(0);
  });

  it("exit codes: 0 when stdin ends after shutdown (was 13) or on exit after shutdown; 1 when stdin ends without shutdown, saying so", async () => {
    const closed = await session([
      { write: initialize, waitFor: /"id":1,"result"/ },
      { write: frame({ jsonrpc: "2.0", id: 2, method: "shutdown" }), waitFor: /"id":2/ },
    ]);
    expect([closed.code, closed.stderr]).toEqual([0, ""]);
    const exited = await session([
      { write: initialize, waitFor: /"id":1,"result"/ },
      { write: frame({ jsonrpc: "2.0", id: 2, method: "shutdown" }), waitFor: /"id":2/ },
      { write: frame({ jsonrpc: "2.0", method: "exit" }) },
    ], true);
    expect(exited.code).toBe(0);
    const abrupt = await session([{ write: initialize, waitFor: /"id":1,"result"/ }]);
    expect(abrupt.code).toBe(1);
    expect(abrupt.stderr).toContain("the client closed the connection without a shutdown request");
  });
});
