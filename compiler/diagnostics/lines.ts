/**
 * Offsets ↔ lines and columns of a text: the one converter of the compiler (issue 24). Offsets
 * and columns count UTF-16 code units; a line ends at `\n`, `\r\n` or a lone `\r` (as the rule
 * lexer, the code frame and LSP count them). Lines and columns are 1-based here (as `Span`s are);
 * the language server subtracts one at its edge.
 */

/** The offsets at which the lines of a text start (the first is 0), for many conversions of one text. */
export class LineIndex {
  private readonly starts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) this.starts.push(i + 1);
    }
  }

  /** how many lines the text has (an empty text has one) */
  get lineCount(): number {
    return this.starts.length;
  }

  /** The 1-based line and column of `offset` (clamped to the text). */
  positionAt(offset: number): { line: number; column: number } {
    const off = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: off - this.starts[lo]! + 1 };
  }

  /**
   * The offset of a 1-based line and column: a line past the last is the end of the text; a
   * column past its line's end runs on into the next line (as LSP clients never send), clamped
   * to the text.
   */
  offsetAt(line: number, column: number): number {
    if (line > this.starts.length) return this.text.length;
    const start = this.starts[Math.max(0, line - 1)]!;
    return Math.min(this.text.length, start + Math.max(0, column - 1));
  }
}

/** The 1-based line and column of `offset` in `text` (one conversion; build a `LineIndex` for many). */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  return new LineIndex(text).positionAt(offset);
}

/** The offset of a 1-based line and column in `text` (see `LineIndex.offsetAt`). */
export function offsetAt(text: string, line: number, column: number): number {
  return new LineIndex(text).offsetAt(line, column);
}
