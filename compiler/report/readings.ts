/**
 * Every reading of an edition, one line each (issue 25): the golden file
 * `test/fixtures/report/readings.txt` holds these lines for the bundled editions, compared in
 * `npm test` (test/cli/readings.test.ts; `UPDATE_GOLDEN=1` or `npm run readings` writes it), so
 * that each change to a reading is reviewed.
 */
import type { IREdition } from "../ir/types.js";
import { lexicon, readExemption, readRule } from "./english.js";
import type { Phrases } from "./phrases.js";

/** One reading: the declaration it reads and the words. */
export interface ReadingLine {
  kind: "rule" | "exemption";
  id: string;
  text: string;
}

/**
 * The readings of every rule and exemption of an edition, in declaration order, with the names
 * read without a phrase of their own (`misses`: `field:…`, `def:…`, `var:…`, `route:…`, `table:…`).
 */
export function editionReadings(ir: IREdition, phrases: Phrases, opts: { brackets?: boolean } = {}): { lines: ReadingLine[]; misses: Set<string> } {
  const lex = lexicon(ir, phrases, opts);
  const lines: ReadingLine[] = [
    ...ir.rules.map((r) => ({ kind: "rule" as const, id: r.id, text: readRule(r, ir, lex) })),
    ...ir.exemptions.map((x) => ({ kind: "exemption" as const, id: x.id, text: readExemption(x, ir, lex) })),
  ];
  return { lines, misses: lex.misses };
}

/** The golden file's lines of an edition: `<edition folder> <id>: <reading>` (`exempt <id>` for an exemption). */
export function goldenLines(folder: string, lines: ReadingLine[]): string[] {
  return lines.map((l) => `${folder} ${l.kind === "exemption" ? "exempt " : ""}${l.id}: ${l.text}`);
}
