/**
 * Did-you-mean and the other edits a diagnostic can offer, as data (issue 24): a checker writes a
 * `Help` (its one line of advice, and the edits that carry it out), the sink (`helpParts`) splits
 * it into the diagnostic's `help` text and its `suggestions`, and the language server turns the
 * suggestions into quick fixes without reading the English.
 *
 * The one edit distance of the compiler lives here (the checker, the coverage manifests and
 * `rulewright explain` use it).
 */
import type { Span, Suggestion } from "./types.js";

/** An edit as a checker offers it: `range` left out means the diagnostic's own span. */
export type SuggestionDraft = Omit<Suggestion, "range"> & { range?: Span };

/** A diagnostic's help as a checker writes it: plain text, or the text with the edits that carry it out. */
export type Help = string | { text: string; suggestions: SuggestionDraft[] };

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
 * The closest candidate, only when it is close (by default ≤ 1/3 of the length, at most 3 edits; a
 * candidate differing only in case counts as half an edit; ties go to the smaller string).
 * Bounded: a candidate whose length differs by more than the limit is skipped without
 * computing anything, and the distance is computed only up to the limit, so a 100,000-character
 * word costs O(candidates), not O(candidates · length²).
 */
export function closest(word: string, candidates: Iterable<string>, limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)))): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
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

/** The words of a did-you-mean: "did you mean `x`?". */
export const didYouMeanText = (name: string): string => `did you mean \`${name}\`?`;

/**
 * "did you mean `x`?" with the edit that writes `x` over the diagnostic's span (the preferred
 * quick fix), when a candidate is close to `word` (`closest`); else `fallback`.
 */
export function didYouMean(word: string, candidates: Iterable<string>, fallback?: Help): Help | undefined {
  const c = closest(word, candidates);
  return c ? { text: didYouMeanText(c), suggestions: [{ message: `Change to \`${c}\``, replacement: c, preferred: true }] } : fallback;
}

/**
 * "<label>: a, b, c" listing at most `shown` names (", …" after them when there are more), with
 * one edit per listed name that is an identifier (`<verb> <noun> \`a\`` writes it over the span).
 */
export function listedNames(label: string, names: readonly string[], offer: { verb: string; noun: string }, shown = Infinity): Help {
  const listed = names.slice(0, shown);
  return {
    text: `${label}: ${listed.join(", ")}${names.length > listed.length ? ", …" : ""}`,
    suggestions: listed.filter((n) => /^[A-Za-z_]\w*$/.test(n)).map((n) => ({ message: `${offer.verb} ${offer.noun} \`${n}\``, replacement: n })),
  };
}

/** A `Help` as the diagnostic holds it: the text, and the suggestions placed (`span` where they give no range). */
export function helpParts(help: Help | undefined, span: Span): { help?: string; suggestions?: Suggestion[] } {
  if (help === undefined || help === "") return {};
  if (typeof help === "string") return { help };
  const suggestions = help.suggestions.map((s) => ({ ...s, range: s.range ?? span }));
  return { ...(help.text ? { help: help.text } : {}), ...(suggestions.length ? { suggestions } : {}) };
}
