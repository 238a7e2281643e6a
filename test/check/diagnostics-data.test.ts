/**
 * Diagnostics as data (issue 24): the edits a diagnostic offers are fields (`suggestions`), filled
 * by the checker where it makes a did-you-mean, lists the names to choose from (RW2001) or can write
 * a citation stub (RW2105); and the shared helpers of compiler/diagnostics/ (one line/offset
 * converter, JSON positions from jsonc-parser, stable JSON, the code frame).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { jsonPositions, spanAt, stableJson } from "../../compiler/diagnostics/json.js";
import { LineIndex, offsetAt, positionAt } from "../../compiler/diagnostics/lines.js";
import { renderDiagnostic } from "../../compiler/diagnostics/render.js";
import { closest, didYouMean, helpParts, listedNames } from "../../compiler/diagnostics/suggest.js";
import type { Diagnostic } from "../../compiler/diagnostics/types.js";
import { quickFixes } from "../../compiler/lsp/code-actions.js";
import { toLspDiagnostic } from "../../compiler/lsp/protocol.js";

const FIXTURE = decodeURIComponent(new URL("../fixtures/frontend/mini", import.meta.url).pathname);
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "rw-diagdata-"));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
let n = 0;

/** The mini edition with [search, replace] edits in `war.rules`, checked. */
function variant(edits: [string, string][], file = "war.rules"): Diagnostic[] {
  const name = `ed${n++}`;
  const dir = path.join(tmpRoot, name);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  let text = fs.readFileSync(path.join(dir, file), "utf8");
  for (const [a, b] of edits) {
    expect(text).toContain(a);
    text = text.replace(a, b);
  }
  fs.writeFileSync(path.join(dir, file), text);
  return loadEdition(name, { repoRoot: tmpRoot }).diagnostics.filter((d) => d.severity === "error");
}

describe("suggestions on diagnostics", () => {
  it("a did-you-mean carries the preferred edit over the diagnostic's span", () => {
    const [d] = variant([["state.spaces[s].controller = p", "state.spaces[s].controler = p"]]);
    expect(d!.code).toBe("RW2001");
    expect(d!.help).toBe("did you mean `controller`?");
    expect(d!.suggestions).toEqual([{ message: "Change to `controller`", replacement: "controller", range: d!.span, preferred: true }]);
  });

  it("RW2001 with no close field offers each listed field, the help text unchanged", () => {
    const [d] = variant([["state.spaces[s].controller = p", "state.spaces[s].zzzzzzzzzzzz = p"]]);
    expect(d!.code).toBe("RW2001");
    expect(d!.help).toMatch(/^fields: /);
    const listed = d!.help!.slice("fields: ".length).split(", ").filter((f) => f !== "…");
    expect(d!.suggestions!.map((s) => s.replacement)).toEqual(listed);
    expect(d!.suggestions!.every((s) => s.message === `Use field \`${s.replacement}\`` && !s.preferred && s.range === d!.span)).toBe(true);
  });

  it("RW2105 carries a citation stub inserted after the last citation", () => {
    const ds = variant([['rule dow.genoa §9.6 "no power', 'rule dow.genoa other §9.6 "no power']]);
    const d = ds.find((x) => x.code === "RW2105")!;
    expect(d.help).toBe("add `mini §<section>` to its citations (it cites `other`)");
    const [s] = d.suggestions!;
    expect(s!.message).toBe("Add a citation stub for `mini`");
    expect(s!.replacement).toBe(', mini §"TODO: section"');
    // zero-width, right after `other §9.6`
    expect(s!.range.line).toBe(s!.range.endLine);
    expect(s!.range.column).toBe(s!.range.endColumn);
    expect(s!.range.column).toBe(d.span.endColumn);
  });

  it("the language server's quick fixes are the suggestions sent in `data`, never the words", () => {
    const [d] = variant([["state.spaces[s].controller = p", "state.spaces[s].controler = p"]]);
    const lsp = toLspDiagnostic(d!, tmpRoot);
    expect(lsp.message).toBe(`${d!.message}\nhelp: did you mean \`controller\`?`);
    const fixes = quickFixes(JSON.parse(JSON.stringify(lsp.data)));
    expect(fixes).toEqual([{ title: "Change to `controller`", preferred: true, span: d!.span, newText: "controller" }]);
    // the words alone give nothing; malformed data is ignored
    expect(quickFixes({ help: "did you mean `controller`?" })).toEqual([]);
    expect(quickFixes({ suggestions: [{ message: "x", replacement: 1, range: d!.span }, null, "y"] })).toEqual([]);
  });

  it("a help without an edit has no suggestions field", () => {
    expect(helpParts("write it so", { line: 1, column: 1, endLine: 1, endColumn: 2 })).toEqual({ help: "write it so" });
    expect(didYouMean("zzz", ["abc"], "fallback")).toBe("fallback");
    expect(listedNames("fields", ["a", "b-c", "d"], { verb: "Use", noun: "field" }, 2)).toEqual({ text: "fields: a, b-c, …", suggestions: [{ message: "Use field `a`", replacement: "a" }] });
  });

  it("closest: a wider limit when asked (explain's rule ids)", () => {
    expect(closest("pass.hom_cards", ["pass.home_card"])).toBe("pass.home_card");
    expect(closest("abcdef", ["uvwxef"])).toBeUndefined();
    expect(closest("abcdef", ["uvwxef"], 4)).toBe("uvwxef");
  });
});

describe("the shared helpers", () => {
  it("LineIndex counts \\n, \\r\\n and a lone \\r; offsets and positions round-trip", () => {
    const text = "ab\ncd\r\nef\rgh";
    const idx = new LineIndex(text);
    expect(idx.lineCount).toBe(4);
    for (let off = 0; off <= text.length; off++) {
      const p = idx.positionAt(off);
      if (text[off - 1] !== "\r" || text[off] !== "\n") expect(idx.offsetAt(p.line, p.column)).toBe(off);
    }
    expect(positionAt(text, 8)).toEqual({ line: 3, column: 2 });
    expect(offsetAt(text, 4, 1)).toBe(10);
    expect(offsetAt(text, 9, 1)).toBe(text.length);
  });

  it("jsonPositions: every value by JSON pointer, first line only, escaped keys", () => {
    const text = '{\n  "a/b": [1, {"~x": "yz"}],\n  "c": {\n    "d": true\n  }\n}';
    const pos = jsonPositions(text);
    expect(pos.get("")).toEqual({ line: 1, column: 1, endLine: 1, endColumn: 2 });
    expect(pos.get("/a~1b")).toEqual({ line: 2, column: 10, endLine: 2, endColumn: 27 });
    expect(pos.get("/a~1b/1/~0x")).toEqual({ line: 2, column: 21, endLine: 2, endColumn: 25 });
    expect(pos.get("/c/d")).toEqual({ line: 4, column: 10, endLine: 4, endColumn: 14 });
    expect(spanAt(pos, "/c/d/nope")).toEqual(pos.get("/c/d"));
    expect(spanAt(new Map(), "/x")).toEqual({ line: 1, column: 1, endLine: 1, endColumn: 2 });
  });

  it("stableJson: key order does not matter, undefined keys are left out", () => {
    expect(stableJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
    expect(stableJson({ a: 1, b: 2 })).toBe(stableJson({ b: 2, a: 1 }));
  });

  it("the code frame: a blank gutter, the line, carets under the span (escaped characters six wide)", () => {
    const d: Diagnostic = { code: "RW2001", severity: "error", message: "m", file: "f.rules", span: { line: 2, column: 3, endLine: 2, endColumn: 5 } };
    expect(renderDiagnostic(d, "x\n\x1bbcd\n")).toBe("f.rules:2:3: error[RW2001]: m\n  |\n2 | \\u001bbcd\n  |        ^^");
    expect(renderDiagnostic({ ...d, span: { line: 1, column: 1, endLine: 1, endColumn: 1 } }, "\u2028a\n")).toBe("f.rules:2:3: error[RW2001]: m".replace("2:3", "1:1") + "\n  |\n1 | \u2028a\n  | ^");
    expect(renderDiagnostic({ ...d, span: { line: 2, column: 1, endLine: 2, endColumn: 1 } }, "x\n")).toBe("f.rules:2:1: error[RW2001]: m\n  |\n2 | \n  | ^");
  });
});
