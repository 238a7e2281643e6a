/**
 * The `//` comments of a rule file. The lexer (compiler/syntax/tokens.ts) skips comments, so the
 * formatter and the language server find them here: a `//` outside a string literal (`"…"`,
 * `§"…"`, one line, with `\"` and `\\` escapes) runs to the end of its line. Lines end at `\n`,
 * `\r\n` or a lone `\r`, as the lexer counts them.
 */

/** One comment: 1-based line and column of its `//`, its length in UTF-16 units, its text. */
export interface CommentRange {
  line: number;
  column: number;
  length: number;
  text: string;
}

export function commentRanges(text: string): CommentRange[] {
  const out: CommentRange[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (let li = 0; li < lines.length; li++) {
    const l = lines[li]!;
    let inStr = false;
    for (let i = 0; i < l.length; i++) {
      const ch = l[i];
      if (inStr) {
        if (ch === "\\") i++;
        else if (ch === '"') inStr = false;
      } else if (ch === '"') inStr = true;
      else if (ch === "/" && l[i + 1] === "/") {
        out.push({ line: li + 1, column: i + 1, length: l.length - i, text: l.slice(i) });
        break;
      }
    }
  }
  return out;
}
