/**
 * Escaping by output context: every text that reaches generated code (titles, citations, ids,
 * edition titles, file and folder names, enum members, space ids) goes through exactly one of
 * these functions, chosen by where it lands. Nothing written by a rule file, a schema, a board
 * or a folder name can end the literal or comment it is put in, so nothing it holds ever runs.
 *
 * - `jsString(s)`      — a double-quoted JavaScript/TypeScript string literal whose value is `s`.
 * - `lineComment(s)`   — the text of a `//` comment (one line, whatever `s` holds).
 * - `docText(s)`       — the text of one line inside a `/** … *\/` block (JSDoc, block comment).
 * - `templateText(s)`  — the raw text of a template literal whose value is `s`.
 *
 * Comment escapes are reversible (`readComment` undoes `lineComment` and `docText`): `\` is
 * written `\\`; line terminators (LF, CR, U+2028, U+2029, U+0085), other control characters,
 * bidirectional-formatting characters ("Trojan source") and lone surrogates are written `\uXXXX`
 * (`\n`, `\r` for LF and CR); in a block, `*\/` is written `*\/` with a backslash. Plain text
 * (no backslash, no control character) is left as it is, so generated output for ordinary
 * rule files does not change.
 *
 * Test: test/codegen/hostile.test.ts (unit and fuzz), test/fuzz/injection.ts.
 */

/** Characters that may not appear raw in a comment or literal: controls, line terminators, bidi, lone surrogates. */
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function hex(c: string): string {
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * A double-quoted string literal with the value `s` (JSON.stringify, which escapes `"`, `\`,
 * controls and lone surrogates, plus U+2028/U+2029 and bidi controls as `\uXXXX`). A backslash
 * is written `\u005c`, not `\\`: ts-morph's code writer, which scans the statements it prints
 * for strings and comments, reads `\\"` as an escaped quote, takes the rest of the line for
 * string text, and then treats a later `/*` as an open comment that it closes with a stray `*\/`
 * (found by the injection fuzzer: a title ending in `\` before a file name holding `/*`).
 */
export function jsString(s: string): string {
  return JSON.stringify(s)
    .replace(/\\(u[0-9a-fA-F]{4}|[^u])/g, (m, e: string) => (e === "\\" ? "\\u005c" : m))
    .replace(UNSAFE, hex);
}

/** The text of a `//` comment holding `s`: never more than one line, reversible with `readComment`. */
export function lineComment(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(UNSAFE, hex);
}

/** The text of one line of a `/** … *\/` block holding `s`: as `lineComment`, and `*\/` cannot close the block. */
export function docText(s: string): string {
  return lineComment(s).replace(/\*\//g, "*\\/");
}

/** The raw text of a template literal whose cooked value is `s` (`\` as `\u005c`, backtick and `${` escaped). */
export function templateText(s: string): string {
  return s
    .replace(/\\/g, "\\u005c") // not `\\`: see jsString
    .replace(/`/g, "\\`")
    .replace(/\$\{/g, "\\${")
    .replace(UNSAFE, hex);
}

/** Undoes `lineComment` and `docText`: the original text of an escaped comment. */
export function readComment(text: string): string {
  return text.replace(/\\(\\|\/|n|r|u[0-9a-f]{4})/g, (_, e: string) =>
    e === "\\" ? "\\" : e === "/" ? "/" : e === "n" ? "\n" : e === "r" ? "\r" : String.fromCharCode(parseInt(e.slice(1), 16)),
  );
}
