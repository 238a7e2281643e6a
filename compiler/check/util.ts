/** Small helpers of the check phase: did-you-mean, JSON positions, the diagnostic sink. */
import type { Diagnostic, Span } from "../diagnostics/types.js";
import { CATALOG, type DiagnosticCode } from "../diagnostics/catalog.js";
import type { SourcePos } from "../ir/types.js";

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `bleu`→`blue` is 1.
 * With `max`, the computation stops as soon as the distance must exceed it and returns `max + 1`
 * (a band of width 2·max+1 around the diagonal: time O(|a|·max), not O(|a|·|b|)).
 */
export function levenshtein(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = a.length;
  const m = b.length;
  const big = max === Infinity ? Infinity : max + 1;
  let prev2: number[] = [];
  let prev: number[] = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const cur: number[] = new Array<number>(m + 1).fill(big);
    cur[0] = i;
    const lo = max === Infinity ? 1 : Math.max(1, i - max);
    const hi = max === Infinity ? m : Math.min(m, i + max);
    let rowMin = i <= max ? i : big;
    for (let j = lo; j <= hi; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] ?? big) + 1, (cur[j - 1] ?? big) + 1, (prev[j - 1] ?? big) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (prev2[j - 2] ?? big) + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  const d = prev[m]!;
  return d > max ? max + 1 : d;
}

/**
 * The closest candidate, only when it is close (≤ 1/3 of the length, at most 3 edits).
 * Bounded: a candidate whose length differs by more than the limit is skipped without
 * computing anything, and the distance is computed only up to the limit, so a 100,000-character
 * word costs O(candidates), not O(candidates · length²).
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  const lower = word.length <= 256 ? word.toLowerCase() : undefined;
  for (const c of new Set(candidates)) {
    if (c === word || Math.abs(c.length - word.length) > limit) continue;
    const d = lower !== undefined && c.length === word.length && c.toLowerCase() === lower ? 0.5 : levenshtein(word, c, limit);
    if (d < bestD || (d === bestD && best !== undefined && c < best)) {
      best = c;
      bestD = d;
    }
  }
  return bestD <= limit ? best : undefined;
}

export function didYouMean(word: string, candidates: Iterable<string>, fallback?: string): string | undefined {
  const c = closest(word, candidates);
  return c ? `did you mean \`${c}\`?` : fallback;
}

export const LINE1: Span = { line: 1, column: 1, endLine: 1, endColumn: 2 };

export function posOf(file: string, span: Span): SourcePos {
  return { file, line: span.line, column: span.column };
}

export class Reporter {
  readonly diagnostics: Diagnostic[] = [];
  report(code: DiagnosticCode, message: string, file: string, span: Span, help?: string, related?: Diagnostic["related"]): void {
    this.diagnostics.push({
      code,
      severity: CATALOG[code].severity,
      message,
      file,
      span,
      ...(help ? { help } : {}),
      ...(related && related.length ? { related } : {}),
    });
  }
  get errorCount(): number {
    return this.diagnostics.filter((d) => d.severity === "error").length;
  }
}

/**
 * Positions of the values of a (valid) JSON text by JSON pointer ("" = root, "/a/0/b").
 * The span covers the value's first line.
 */
export function jsonPositions(text: string): Map<string, Span> {
  const out = new Map<string, Span>();
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") lineStarts.push(i + 1);
  const at = (off: number): { line: number; column: number } => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: off - lineStarts[lo]! + 1 };
  };
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const esc = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");
  const value = (ptr: string): void => {
    ws();
    const start = i;
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      while (i < text.length && text[i] !== "}") {
        ws();
        const k = str();
        ws();
        i++; // :
        value(`${ptr}/${esc(k)}`);
        ws();
        if (text[i] === ",") i++;
        ws();
      }
      i++;
    } else if (c === "[") {
      i++;
      ws();
      let n = 0;
      while (i < text.length && text[i] !== "]") {
        value(`${ptr}/${n++}`);
        ws();
        if (text[i] === ",") i++;
        ws();
      }
      i++;
    } else if (c === '"') str();
    else while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
    const s = at(start);
    const e = at(Math.max(start, i - 1));
    out.set(ptr, { line: s.line, column: s.column, endLine: s.line, endColumn: e.line === s.line ? e.column + 1 : s.column + 1 });
  };
  try {
    value("");
  } catch {
    // positions are a convenience: a partial map is fine
  }
  return out;
}

/** The span of the deepest known prefix of `ptr`. */
export function spanAt(positions: Map<string, Span>, ptr: string): Span {
  let p = ptr;
  for (;;) {
    const s = positions.get(p);
    if (s) return s;
    if (p === "") return LINE1;
    p = p.slice(0, p.lastIndexOf("/"));
  }
}

/** Position of a JSON.parse error ("… at position 42" / "(line 3 column 5)"). */
export function jsonErrorSpan(text: string, message: string): Span {
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) {
    const line = Number(lc[1]);
    const column = Number(lc[2]);
    return { line, column, endLine: line, endColumn: column + 1 };
  }
  const m = /position (\d+)/.exec(message);
  if (!m) return LINE1;
  const off = Math.min(Number(m[1]), text.length);
  const before = text.slice(0, off);
  const line = before.split("\n").length;
  const column = off - before.lastIndexOf("\n");
  return { line, column, endLine: line, endColumn: column + 1 };
}
