/**
 * Paragraphs of a rulebook source, the unit the coverage manifest maps to rules.
 *
 * Definition (deterministic, documented in compiler/coverage/README.md): the text is decoded as
 * UTF-8, a leading byte-order mark is dropped, and it is split into lines at CRLF, LF or CR. A
 * **paragraph is one line that holds at least one non-whitespace character** (whitespace as in
 * JavaScript's `\s`, which includes the no-break space U+00A0 some sources use on "empty"
 * lines). Paragraphs are numbered from 1 in file order; blank lines are not numbered.
 *
 * Why lines and not blank-line-separated blocks: the sources were extracted with one paragraph
 * per line, and not all of them separate paragraphs by blank lines (002 has none; 001's action
 * table has one row per line), so a block would merge unrelated rules.
 */

export interface Paragraph {
  /** 1-based paragraph number */
  n: number;
  /** 1-based line number in the source file */
  line: number;
}

/** Splits a source text into its paragraphs (numbers and line numbers only; never the text). */
export function splitParagraphs(text: string): Paragraph[] {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
  const out: Paragraph[] = [];
  lines.forEach((l, i) => {
    if (/\S/.test(l)) out.push({ n: out.length + 1, line: i + 1 });
  });
  return out;
}
