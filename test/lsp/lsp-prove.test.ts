/**
 * Proving in the language server (compiler/lsp/proving.ts), driven by a real LSP client over the
 * child's stdio (test/helpers/lsp-client.ts, vscode-languageserver-protocol):
 * - the findings of the last proof report show as diagnostics on opening, before any proving
 *   (a copy of the tiny fixture edition test/fixtures/frontend/mini with a hand-written report,
 *   background proving off);
 * - a contradiction typed into an unsaved buffer is proved in the background (on mini, then on
 *   the bundled Here I Stand rule file dsl/his/cards.rules) and shows as an error diagnostic with
 *   related information on the other rule, with $/progress while proving; the undo clears it.
 * No timing assertion: every step waits for the notifications it expects. The his case proves
 * only the obligations the edit touches when the proof cache holds the others (the shared setup
 * of test/setup/proofs.ts proves his into proofs/.cache first); with a cold cache it proves the
 * contradictions first, so it still ends.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeActionRequest, DiagnosticSeverity, type CodeAction, type Diagnostic, type PublishDiagnosticsParams } from "vscode-languageserver-protocol/node";
import { LspClient, REPO, uri } from "../helpers/lsp-client.js";

const MINI = path.join(REPO, "test/fixtures/frontend/mini");
const SOURCE = "rulewright prove";

/** A copy of the mini fixture edition in a temporary workspace, with `report` as its last proof report (when given). */
function miniWorkspace(report?: object): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-lsp-prove-"));
  fs.cpSync(MINI, path.join(ws, "dsl/mini"), { recursive: true });
  if (report) {
    fs.mkdirSync(path.join(ws, "proofs/mini"), { recursive: true });
    fs.writeFileSync(path.join(ws, "proofs/mini/report.json"), JSON.stringify(report));
  }
  return ws;
}

/** The 0-based line of the first line of `text` that contains `needle`. */
const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle));

const proofDiags = (p: PublishDiagnosticsParams) => p.diagnostics.filter((d) => d.source === SOURCE);

describe("rulewright lsp: the last proof report's findings on opening", () => {
  let c: LspClient;
  let ws: string;
  beforeAll(() => {
    ws = miniWorkspace({
      edition: "mini", inputHash: "whatever", summary: {}, bounds: {},
      obligations: [
        { id: "mini.dead_rule.pass.card", kind: "dead_rule", severity: "warning", edition: "mini", action: "pass", rules: ["pass.card"], subjects: ["pass.card"], verdict: "refuted", core: ["pass.card", "state.no_self_war"], smt2: "", ms: 0 },
        { id: "mini.contradiction.pass.empty~pass.card", kind: "contradiction", severity: "error", edition: "mini", action: "pass", rules: ["pass.empty", "pass.card"], subjects: ["pass.empty", "pass.card"], verdict: "refuted", smt2: "", ms: 0,
          counterexample: { state: { phase: "diplomacy" }, action: { action: "pass", power: "red" }, replayable: true, facts: [{ path: "state.hands[red]#len", value: 0 }] } },
        { id: "mini.redundant_rule.dow.genoa", kind: "redundant_rule", severity: "info", edition: "mini", action: "declare_war", rules: ["dow.genoa"], subjects: ["dow.genoa"], verdict: "unknown", reason: "timeout", smt2: "", ms: 0 },
        { id: "mini.dead_rule.dow.genoa", kind: "dead_rule", severity: "warning", edition: "mini", action: "declare_war", rules: ["dow.genoa"], subjects: ["dow.genoa"], verdict: "proved", smt2: "", ms: 0 },
        { id: "mini.dead_rule.gone.rule", kind: "dead_rule", severity: "warning", edition: "mini", action: "pass", rules: ["gone.rule"], subjects: ["gone.rule"], verdict: "refuted", smt2: "", ms: 0 },
      ],
    });
  });
  afterAll(async () => {
    await c?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it("publishes them with the first diagnostics: severities of the report, code = obligation id, related information on the other rules of the finding", async () => {
    c = await LspClient.start(ws, { initializationOptions: { prove: false } });
    const war = path.join(ws, "dsl/mini/war.rules");
    const text = fs.readFileSync(war, "utf8");
    const u = await c.open(war, text, 1);
    const d = proofDiags(await c.waitForDiagnostics(u, 1));
    const byCode = (code: string) => d.filter((x) => x.code === code);
    // the contradiction: an error on each of its two rules, each pointing at the other
    const contra = byCode("mini.contradiction.pass.empty~pass.card");
    expect(contra.map((x) => x.range.start.line).sort()).toEqual([lineOf(text, "rule pass.empty"), lineOf(text, "rule pass.card")].sort());
    for (const x of contra) {
      expect(x.severity).toBe(DiagnosticSeverity.Error);
      expect(x.message).toContain("a state obliges `pass` (`pass.empty`) and forbids it (`pass.card`) at once");
      expect(x.message).toContain("count(state.hands[red]) = 0");
      expect(x.relatedInformation).toHaveLength(1);
    }
    const onEmpty = contra.find((x) => x.range.start.line === lineOf(text, "rule pass.empty"))!;
    expect(onEmpty.relatedInformation![0]!.location).toEqual({ uri: u, range: { start: { line: lineOf(text, "rule pass.card"), character: 5 }, end: { line: lineOf(text, "rule pass.card"), character: 5 + "pass.card".length } } });
    // dead rule: a warning, the invariant of its core as related information
    const dead = byCode("mini.dead_rule.pass.card");
    expect(dead.map((x) => x.severity)).toEqual([DiagnosticSeverity.Warning]);
    expect(dead[0]!.relatedInformation!.map((r) => r.message)).toEqual([expect.stringContaining("invariant `state.no_self_war`")]);
    // unknown: information, with its reason; proved: nothing; a rule no longer declared: nothing
    const unknown = byCode("mini.redundant_rule.dow.genoa");
    expect(unknown.map((x) => x.severity)).toEqual([DiagnosticSeverity.Information]);
    expect(unknown[0]!.message).toMatch(/^not proved \(unknown\): .*\(timeout\)/);
    expect(byCode("mini.dead_rule.dow.genoa")).toEqual([]);
    expect(byCode("mini.dead_rule.gone.rule")).toEqual([]);
    expect(d).toHaveLength(4);
    // the counterexample is a code action away: written as files the `check` command replays
    const actions = (await c.conn.sendRequest(CodeActionRequest.type, { textDocument: { uri: u }, range: onEmpty.range, context: { diagnostics: [onEmpty] } })) as CodeAction[];
    const write = actions.find((a) => a.title.startsWith("Write the counterexample of mini.contradiction.pass.empty~pass.card"))!;
    expect(write.title).toContain("npx rulewright check --edition dsl/mini --state proofs/mini/lsp/");
    const changes = write.edit!.documentChanges as ({ kind: "create"; uri: string } | { textDocument: { uri: string }; edits: { newText: string }[] })[];
    const texts = changes.filter((x): x is Extract<typeof x, { edits: unknown }> => "edits" in x);
    expect(texts.map((x) => JSON.parse(x.edits[0]!.newText))).toEqual([{ phase: "diplomacy" }, { action: "pass", power: "red" }]);
    // no proving: no progress
    expect(c.progressTokens).toEqual([]);
  });
});

describe("rulewright lsp: proving as you type on the mini edition", () => {
  let c: LspClient;
  let ws: string;
  beforeAll(() => {
    ws = miniWorkspace();
  });
  afterAll(async () => {
    await c?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it("a contradiction typed into the unsaved buffer is an error on both rules with $/progress while proving; the undo clears it; the proof cache is written, report.json is not", async () => {
    c = await LspClient.start(ws, { initializationOptions: {} });
    const war = path.join(ws, "dsl/mini/war.rules");
    const text = fs.readFileSync(war, "utf8");
    const u = await c.open(war, text, 1);
    await c.waitForDiagnostics(u, 1);
    const typed = text + '\nrule pass.never_empty §11 "a power with no cards may not pass"\n  forbid pass when count(state.hands[power]) = 0\n';
    await c.change(u, typed, 2);
    const id = "mini.contradiction.pass.empty~pass.never_empty";
    const found = await c.waitFor("the contradiction as a diagnostic", () => c.diagnostics.find((p) => p.uri === u && p.version === 2 && p.diagnostics.some((d) => d.code === id)));
    const onNew = found.diagnostics.find((d) => d.code === id && d.range.start.line === lineOf(typed, "rule pass.never_empty"))!;
    expect(onNew.severity).toBe(DiagnosticSeverity.Error);
    expect(onNew.source).toBe(SOURCE);
    expect(onNew.relatedInformation?.map((r) => [r.location.uri, r.location.range.start.line])).toEqual([[u, lineOf(typed, "rule pass.empty")]]);
    // the compiler's diagnostics are in the same set (none here), the finding is on pass.empty too
    expect(found.diagnostics.some((d) => d.code === id && d.range.start.line === lineOf(typed, "rule pass.empty"))).toBe(true);
    // findings first: shown as soon as the solver found a model (its raw facts), then again with
    // the counterexample the same solve made canonical and minimal
    const first = found.diagnostics.find((d) => d.code === id)!;
    expect(String(first.message)).toContain("(counterexample as the solver found it: being made minimal)");
    const polished = await c.waitFor("the polished counterexample", () => c.diagnostics.find((p) => p.uri === u && p.version === 2 && p.diagnostics.some((d) => d.code === id && !String(d.message).includes("being made minimal"))));
    expect(String(polished.diagnostics.find((d) => d.code === id)!.message)).toContain("counterexample: count(state.hands[");
    // progress: a token the server created, begun and ended
    const ended = await c.waitFor("the progress to end", () => c.progress.find((p) => p.value.kind === "end"));
    const mine = c.progress.filter((p) => p.token === ended.token).map((p) => p.value.kind);
    expect(mine[0]).toBe("begin");
    expect(mine[mine.length - 1]).toBe("end");
    expect(c.progressTokens).toContain(ended.token);
    // the undo: cleared
    await c.change(u, text, 3);
    const cleared = await c.waitFor("the contradiction cleared", () => c.diagnostics.find((p) => p.uri === u && p.version === 3 && !p.diagnostics.some((d: Diagnostic) => String(d.code).includes("never_empty"))));
    expect(proofDiags(cleared).map((d) => d.code)).not.toContain(id);
    // the verdicts go to the project's proof cache (keyed by content); no report is written
    await c.stop();
    expect(fs.existsSync(path.join(ws, "proofs/.cache/dsl_mini.json.gz"))).toBe(true);
    expect(fs.existsSync(path.join(ws, "proofs/mini/report.json"))).toBe(false);
  });
});

describe("rulewright lsp: proving as you type in Here I Stand", () => {
  let c: LspClient;
  const CARDS = path.join(REPO, "dsl/his/cards.rules");
  const text = fs.readFileSync(CARDS, "utf8");
  afterAll(async () => {
    await c?.stop();
  });

  it("a rule typed into the unsaved dsl/his/cards.rules that forbids passing with an empty hand shows its contradiction with pass.empty_hand as an error; the undo clears it", async () => {
    c = await LspClient.start(REPO, { initializationOptions: {} });
    const u = await c.open(CARDS, text, 1);
    await c.waitForDiagnostics(u, 1);
    const typed = text + '\nrule pass.never_empty §11 "a power with no cards may not pass"\n  during action_phase\n  forbid pass when count(state.hands[power]) = 0\n';
    await c.change(u, typed, 2);
    const id = "his.contradiction.pass.empty_hand~pass.never_empty";
    const found = await c.waitFor("the contradiction as a diagnostic", () => c.diagnostics.find((p) => p.uri === u && p.version === 2 && p.diagnostics.some((d) => d.code === id && !String(d.message).includes("being proved"))));
    const d = found.diagnostics.find((x) => x.code === id)!;
    expect(d.severity).toBe(DiagnosticSeverity.Error);
    expect(d.range.start.line).toBe(lineOf(typed, "rule pass.never_empty"));
    expect(d.message).toContain("a state obliges `pass` (`pass.empty_hand`) and forbids it (`pass.never_empty`) at once");
    const pass = fs.readFileSync(path.join(REPO, "dsl/modules/pass/pass.rules"), "utf8");
    expect(d.relatedInformation?.map((r) => [r.location.uri, r.location.range.start.line])).toEqual([[uri(path.join(REPO, "dsl/modules/pass/pass.rules")), lineOf(pass, "rule pass.empty_hand")]]);
    await c.change(u, text, 3);
    await c.waitFor("the contradiction cleared", () => c.diagnostics.find((p) => p.uri === u && p.version === 3 && !p.diagnostics.some((x) => String(x.code).includes("never_empty"))));
  });
});
