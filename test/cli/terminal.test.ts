/**
 * No control sequence from the input reaches the terminal (issue 29): a rule title carrying OSC 0
 * (window title) and OSC 52 (clipboard) sequences, a scenario name with escapes, a source line with
 * ESC and a bidirectional override — each printed by the CLI shows them as `\u001b`, `\u202e` …
 * (`compiler/diagnostics/terminal.ts`), on stdout and stderr. Colours the CLI writes itself stay.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { renderDiagnostic } from "../../compiler/diagnostics/render.js";
import { terminalSafe, terminalSafeOutput } from "../../compiler/diagnostics/terminal.js";

const REPO = process.cwd();
const BIN = path.join(REPO, "bin", "rulewright.mjs");
/** ESC ] 0 ; … BEL (window title), ESC ] 52 ; c ; … BEL (clipboard), a one-character CSI (U+009B), conceal, a right-to-left override */
const PAYLOAD = "\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\u009b2J\x1b[8m\u202e";
/** Any control character a terminal acts on, or an escape sequence other than the CLI's colours. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\x1b(?!\[(?:0|1|2|22|3[0-7]|39|9[0-7])m)/;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-terminal-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(args: string[], cwd: string, color = false) {
  // FORCE_COLOR: the CLI's own colours are on, and must survive
  const env: NodeJS.ProcessEnv = { ...process.env, ...(color ? { FORCE_COLOR: "1" } : { NO_COLOR: "1" }) };
  if (color) delete env.NO_COLOR;
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", env });
  return { code: r.status, out: r.stdout + r.stderr };
}

/** A project holding a copy of the mini fixture edition, with `edit` applied to its war.rules. */
function project(name: string, edit: (rules: string) => string): string {
  const root = path.join(tmp, name);
  fs.mkdirSync(path.join(root, "dsl"), { recursive: true });
  fs.cpSync(path.join(REPO, "test/fixtures/frontend/mini"), path.join(root, "dsl", "mini"), { recursive: true });
  const war = path.join(root, "dsl", "mini", "war.rules");
  fs.writeFileSync(war, edit(fs.readFileSync(war, "utf8")));
  return root;
}

describe("terminalSafe / terminalSafeOutput", () => {
  it("escape C0 (but tab and line feed), DEL, C1 and bidirectional controls as \\uXXXX; leave other text", () => {
    expect(terminalSafe(`a\tb\nc${PAYLOAD}d é 漢 🙂`)).toBe("a\tb\nc\\u001b]0;pwned\\u0007\\u001b]52;c;cHduZWQ=\\u0007\\u009b2J\\u001b[8m\\u202ed é 漢 🙂");
    expect(terminalSafe("x\r\u0000\u007f\u2066y")).toBe("x\\u000d\\u0000\\u007f\\u2066y");
  });

  it("the output guard keeps the CLI's colours and progress redraw, nothing else; JSON stays the same JSON", () => {
    expect(terminalSafeOutput("\x1b[31merror\x1b[39m: \x1b[1mx\x1b[22m\r\n")).toBe("\x1b[31merror\x1b[39m: \x1b[1mx\x1b[22m\r\n");
    expect(terminalSafeOutput("\r\x1b[2Kprove ███ 3/9")).toBe("\r\x1b[2Kprove ███ 3/9");
    expect(terminalSafeOutput("title\r\x1b[2Kfake")).toBe("title\\u000d\\u001b[2Kfake");
    expect(terminalSafeOutput(`\x1b[31m${PAYLOAD}`)).toBe(`\x1b[31m${terminalSafe(PAYLOAD)}`);
    const doc = { title: `t${PAYLOAD}` };
    const printed = terminalSafeOutput(JSON.stringify(doc));
    expect(printed).not.toMatch(UNSAFE);
    expect(JSON.parse(printed)).toEqual(doc);
  });

  it("a code frame shows an escaped source line with the caret still under the marked text", () => {
    const text = `rule a.b §1 "\x1b]0;x\x07" forbid pass when ((`;
    const col = text.indexOf("((") + 2;
    const r = renderDiagnostic({ code: "RW1004", severity: "error", message: "expected an expression after `(`, found end of file", file: "w\x1b.rules", span: { line: 1, column: col, endLine: 1, endColumn: col + 1 } }, text);
    expect(r).not.toMatch(UNSAFE);
    const [, , src, caret] = r.split("\n");
    expect(caret!.indexOf("^")).toBe(src!.indexOf("((") + 1); // under the second `(`
    expect(r.split("\n")[0]).toContain("w\\u001b.rules:1:");
  });
});

describe("the CLI prints no control sequence from its input (issue 29)", () => {
  it("a rule title with OSC 0 / OSC 52: `explain` shows it escaped", () => {
    const root = project("title", (s) => s.replace('"no power may declare war on Genoa"', `"no war on Genoa${PAYLOAD}"`));
    for (const color of [false, true]) {
      const r = run(["explain", "dow.genoa", "--edition", "mini"], root, color);
      expect(r.code).toBe(0);
      expect(r.out).toContain("no war on Genoa\\u001b]0;pwned\\u0007\\u001b]52;c;cHduZWQ=\\u0007\\u009b2J\\u001b[8m\\u202e");
      expect(r.out).not.toMatch(UNSAFE);
    }
  });

  it("a syntax error on a line with escapes: the code frame and the message show them escaped", () => {
    const root = project("frame", (s) => s + `\nrule bad.one §1 "x${PAYLOAD}" forbid pass when (\n`);
    const r = run(["build", "mini", "--check"], root, true);
    expect(r.code).toBe(2);
    expect(r.out).toContain("RW1004");
    expect(r.out).toContain("\\u001b]0;pwned");
    expect(r.out).not.toMatch(UNSAFE);
  });

  it("a failing scenario with escapes in its name: `test` shows them escaped, text and JSON", () => {
    const file = path.join(tmp, "cost.yaml");
    fs.writeFileSync(file, `edition: his\nscenarios:\n  - name: "costs \\e]0;pwned\\a\\e]52;c;cHduZWQ=\\a \\u202e"\n    table: action_cost\n    inputs: { on: move_formation, power: ottoman }\n    expect: { result: { available: true, cp: 7 } }\n`);
    const r = run(["test", file], REPO, true);
    expect(r.code).toBe(1);
    expect(r.out).toContain("costs \\u001b]0;pwned\\u0007\\u001b]52;c;cHduZWQ=\\u0007 \\u202e");
    expect(r.out).not.toMatch(UNSAFE);
    const j = run(["test", file, "--format", "json"], REPO);
    expect(j.out).not.toMatch(UNSAFE);
    expect(JSON.stringify(JSON.parse(spawnSync(process.execPath, [BIN, "test", file, "--format", "json"], { cwd: REPO, encoding: "utf8" }).stdout))).toContain("costs \\u001b]0;pwned");
  });
});
