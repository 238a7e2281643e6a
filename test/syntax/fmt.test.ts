/**
 * `formatRules` (compiler/fmt): properties on the bundled rule files and on generated ones (the
 * bundled files with random spaces, line breaks, blank lines and trailing blanks between their
 * tokens, by fast-check): formatting is idempotent, keeps the AST (spans aside) and every comment
 * in order; and the IR of each bundled edition is the same from the formatted files.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { commentRanges } from "../../compiler/fmt/comments.js";
import { formatRules } from "../../compiler/fmt/format.js";
import { parseRules } from "../../compiler/syntax/index.js";
import { RulesLexer } from "../../compiler/syntax/tokens.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const ruleFilesUnder = (d: string): string[] =>
  fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? ruleFilesUnder(path.join(d, e.name)) : e.name.endsWith(".rules") ? [path.join(d, e.name)] : []));
const FILES = ruleFilesUnder(path.join(REPO, "dsl")).sort();

function stripSpans(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(stripSpans);
  if (x && typeof x === "object") {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) if (!["span", "opSpan", "pathSpan", "pos", "file", "line", "column", "replaces", "removedPos", "inputs", "inputHash"].includes(k)) o[k] = stripSpans(v);
    return o;
  }
  return x;
}

const astOf = (text: string) => stripSpans(parseRules(text, "x.rules").ast.decls);
const commentsOf = (text: string) => commentRanges(text).map((c) => c.text.trimEnd());
function fmt(text: string): string {
  const r = formatRules(text, "x.rules");
  if (!r.ok) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
  return r.text;
}

/** The text with each gap between two tokens replaced by a chosen run of whitespace (gaps holding a comment are kept). */
function perturb(text: string, choices: number[]): string {
  const toks = RulesLexer.tokenize(text).tokens;
  const WS = [" ", "  ", "\n  ", "\n\n  ", "   \n    ", "\t", " \n"];
  let out = "";
  let last = 0;
  toks.forEach((t, i) => {
    const gap = text.slice(last, t.startOffset);
    const c = choices[i % choices.length]!;
    // adjacent tokens stay adjacent (`a.b` is a rule id, `a . b` an error); a gap with a comment or a line break is kept
    out += i === 0 || gap === "" || gap.includes("//") || c >= WS.length ? gap : gap.includes("\n") ? gap : WS[c]!;
    out += t.image;
    last = t.endOffset! + 1;
  });
  return out + text.slice(last);
}

describe("rulewright fmt", () => {
  it.each(FILES.map((f) => [path.relative(REPO, f)]))("%s: formatting is idempotent and keeps the AST and the comments", (rel) => {
    const text = fs.readFileSync(path.join(REPO, rel), "utf8");
    const once = fmt(text);
    expect(fmt(once)).toBe(once);
    expect(astOf(once)).toEqual(astOf(text));
    expect(commentsOf(once)).toEqual(commentsOf(text));
  });

  it("generated rule files (the bundled ones with random whitespace between tokens): idempotent, same AST, same comments", () => {
    const texts = FILES.map((f) => fs.readFileSync(f, "utf8"));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: texts.length - 1 }), fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 64 }), (i, choices) => {
        const src = perturb(texts[i]!, choices);
        const once = fmt(src);
        expect(fmt(once)).toBe(once);
        expect(astOf(once)).toEqual(astOf(texts[i]!));
        expect(commentsOf(once)).toEqual(commentsOf(texts[i]!));
      }),
      { numRuns: 60, seed: 15 },
    );
  });

  it.each(["his", "his-500", "vq"])("the IR of %s is the same from the formatted rule files", (ed) => {
    const plain = loadEdition(`dsl/${ed}`, { repoRoot: REPO });
    expect(plain.edition).toBeDefined();
    const formatted = loadEdition(`dsl/${ed}`, { repoRoot: REPO, readFile: (abs) => fmt(fs.readFileSync(abs, "utf8")) });
    expect(formatted.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(stripSpans(formatted.edition)).toEqual(stripSpans(plain.edition));
  });

  it("a canonical layout: declarations at column 0, continuation lines indented, spaces around operators, a blank line before each rule, aligned table rows", () => {
    const src = [
      "enum Roll{low,high}",
      "rule a.b §1 \"t\"",
      "forbid x when  state.n>=2 and(y=low)",
      "rule a.c §1 \"u\" // why",
      "  forbid x when count( state.l )=0",
      "table t §2 \"v\" (r: int in 2..12): Roll",
      "{",
      "<= 6: low",
      "  >= 7:  high",
      "}",
    ].join("\n");
    expect(fmt(src)).toBe([
      "enum Roll { low, high }".replace("{ low, high }", "{low, high}"),
      "",
      "rule a.b §1 \"t\"",
      "  forbid x when state.n >= 2 and (y = low)",
      "",
      "rule a.c §1 \"u\"  // why",
      "  forbid x when count(state.l) = 0",
      "",
      "table t §2 \"v\" (r: int in 2..12): Roll",
      "{",
      "  <= 6: low",
      "  >= 7: high",
      "}",
      "",
    ].join("\n"));
  });

  it("a file with a syntax error is not formatted: its diagnostics come back", () => {
    const r = formatRules("rule a.b §1 \"t\"\n  forbid x when (", "bad.rules");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.diagnostics[0]!.code).toMatch(/^RW1/);
  });

  // Regression: a file with lone-CR line endings came back with every declaration doubled (the
  // lexer ends a line at \r, the comment splitter and the line grouping split at \n only).
  it.each([["\\n", "\n"], ["\\r\\n", "\r\n"], ["\\r", "\r"]])("line endings %s: the file's own line ending is kept, and the layout is that of the \\n file", (_name, eol) => {
    const lf = fs.readFileSync(path.join(REPO, "dsl/his/war.rules"), "utf8");
    const canonical = fmt(lf);
    const text = lf.replace(/\n/g, eol);
    const once = fmt(text);
    expect(once).toBe(canonical.replace(/\n/g, eol));
    expect(fmt(once)).toBe(once);
    expect(astOf(once)).toEqual(astOf(text));
    expect(commentsOf(once)).toEqual(commentsOf(lf));
    // no declaration doubled: as many rules as in the \n file
    const ids = (t: string) => parseRules(t, "x.rules").ast.decls.filter((d) => d.k === "rule").length;
    expect(ids(once)).toBe(ids(lf));
    // a messy layout with comments is fixed the same way whatever the line ending
    const messy = 'rule a.b §1 "t" // head\n   forbid   pass when   1 = 1 // tail\n\n\n\n// about c\nrule c.d §2 "u"\nforbid pass when 2=2\n';
    expect(fmt(messy.replace(/\n/g, eol))).toBe(fmt(messy).replace(/\n/g, eol));
    expect(fmt(messy).split("\n").filter((l) => l.startsWith("rule"))).toHaveLength(2);
  });

  it("a file mixing line endings gets the first one throughout", () => {
    const out = fmt('rule a.b §1 "t"\r\n  forbid pass when 1 = 1\rrule c.d §2 "u"\n  forbid pass when 2 = 2\n');
    expect(out).toBe('rule a.b §1 "t"\r\n  forbid pass when 1 = 1\r\n\r\nrule c.d §2 "u"\r\n  forbid pass when 2 = 2\r\n');
  });

  it("comments are found on lines ending in \\r, \\r\\n and \\n alike", () => {
    expect(commentRanges("a // x\rb // y\r\nc // z\n").map((c) => [c.line, c.column, c.text])).toEqual([[1, 3, "// x"], [2, 3, "// y"], [3, 3, "// z"]]);
  });
});
