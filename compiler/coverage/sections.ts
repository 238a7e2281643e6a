/**
 * Citations checked against the sources' section index (issue 28): a rule that cites `his §99.9`,
 * a section the rulebook does not have, gets a warning (RW5015) naming the nearest known sections.
 *
 * The sources are excerpts, not whole rulebooks, and carry no table of contents, so the index of a
 * game (its `cites` key) is what can be read, deterministically:
 * - every section number the game's sources mention: cross-references (`22.2`, `(12.5`) and
 *   numbered headings (`10. …` at the start of a line); a source belongs to the game its manifest's
 *   `edition` names (the bundled editions are named after their game: `his`, `vq`);
 * - the sections cited by the rules an edition inherits (from its parents and modules), which
 *   were checked when those were written;
 * - the parents of all of these (`12` of `12.5`).
 * A numbered citation is accepted when it is in the index or its top-level number lies within the
 * index's range (1 to the largest top-level number known): the excerpts leave gaps, a section
 * number beyond every known one does not exist. Named sections (`§"Action Phase"`) and games with
 * no sources are not checked.
 */
import fs from "node:fs";
import path from "node:path";
import type { Diagnostic } from "../diagnostics/types.js";
import type { IREdition, SourcePos } from "../ir/types.js";

/** Known numbered sections per game key (`his` → {"9.6", "10", …}). */
export type SectionIndex = Map<string, Set<string>>;

const CROSS_REF = /(?<![\d.,])(\d{1,2}(?:\.\d{1,2})+)(?![\d])/g;
const HEADING = /^\s*(\d{1,2})\.\s+\D/;

/**
 * The section numbers each game's sources mention (see the file comment).
 * @param sources the source files' texts by file name
 * @param gameOf the game key of a source file (its manifest's `edition`), or undefined
 */
export function sourceSections(sources: Iterable<{ name: string; text: string }>, gameOf: (source: string) => string | undefined): SectionIndex {
  const index: SectionIndex = new Map();
  for (const s of sources) {
    const game = gameOf(s.name);
    if (game === undefined) continue;
    const set = index.get(game) ?? new Set<string>();
    index.set(game, set);
    for (const m of s.text.matchAll(CROSS_REF)) addWithParents(set, m[1]!);
    for (const line of s.text.split(/\r\n|\n|\r/)) {
      const h = HEADING.exec(line);
      if (h) addWithParents(set, String(Number(h[1])));
    }
  }
  return index;
}

function addWithParents(set: Set<string>, section: string): void {
  const parts = section.split(".").map((p) => String(Number(p)));
  for (let i = 1; i <= parts.length; i++) set.add(parts.slice(0, i).join("."));
}

const top = (s: string) => Number(s.split(".")[0]);

/** Distance between two section numbers, for "nearest": by the top level, then the sub-levels. */
function distance(a: string, b: string): number {
  const x = a.split(".").map(Number);
  const y = b.split(".").map(Number);
  let d = 0;
  for (let i = 0, w = 1e6; i < Math.max(x.length, y.length); i++, w /= 100) d += Math.abs((x[i] ?? 0) - (y[i] ?? 0)) * w;
  return d;
}

/** The `n` known sections nearest to `section` (ties: the smaller number first). */
export function nearestSections(section: string, known: Iterable<string>, n = 3): string[] {
  return [...known].sort((a, b) => distance(section, a) - distance(section, b) || distance("0", a) - distance("0", b)).slice(0, n);
}

/**
 * RW5015 warnings for the numbered citations of `ir`'s own rules, exemptions and tables (those
 * whose provenance is this edition, or every one for an edition without provenance) that lie
 * outside the index of their game (`sources` plus what the inherited rules cite; file comment).
 */
export function citationWarnings(ir: IREdition, sources: SectionIndex): Diagnostic[] {
  const own = ir.folder ?? ir.name;
  type Cited = { id: string; citation: { source: string; section: string; named?: true }; pos: SourcePos; provenance?: { edition: string; module?: string } };
  const items: Cited[] = [...ir.rules, ...ir.exemptions, ...(ir.tables ?? []).map((t) => ({ ...t, id: t.name }))] as Cited[];
  const mine = (c: Cited) => !c.provenance || (c.provenance.edition === own && c.provenance.module === undefined);
  const index: SectionIndex = new Map([...sources].map(([k, v]) => [k, new Set(v)]));
  for (const c of items) if (!mine(c) && !c.citation.named && index.has(c.citation.source)) addWithParents(index.get(c.citation.source)!, c.citation.section);
  const out: Diagnostic[] = [];
  for (const c of items) {
    const { source, section, named } = c.citation;
    const known = index.get(source);
    if (!mine(c) || named || !known || !known.size || known.has(section)) continue;
    const maxTop = Math.max(...[...known].map(top));
    const t = top(section);
    if (t >= 1 && t <= maxTop) continue;
    const near = nearestSections(section, known).map((s) => `§${s}`);
    out.push({
      code: "RW5015",
      severity: "warning",
      message: `\`${c.id}\` cites ${source} §${section}, a section the ${source} sources do not have (their sections go up to §${maxTop}); nearest: ${near.join(", ")}`,
      file: c.pos.file,
      span: { line: c.pos.line, column: c.pos.column, endLine: c.pos.line, endColumn: c.pos.column + c.id.length },
      help: `check the section number against the rulebook (${near[0]}?); the index is the sections the sources mention and the inherited rules cite (compiler/coverage/sections.ts)`,
    });
  }
  return out;
}

const indexCache = new Map<string, SectionIndex>();

/**
 * The sources' section index read from a project: each manifest of `manifestsDir` names a source
 * file of `sourcesDir` and the edition (game) it covers (read from its `source:` and `edition:`
 * lines); read once per pair of folders. Empty when either folder is missing (nothing is checked).
 */
export function projectSectionIndex(manifestsDir: string, sourcesDir: string): SectionIndex {
  const key = `${path.resolve(manifestsDir)}\0${path.resolve(sourcesDir)}`;
  let index = indexCache.get(key);
  if (index) return index;
  const games = new Map<string, string>();
  const texts: { name: string; text: string }[] = [];
  try {
    if (fs.statSync(manifestsDir).isDirectory() && fs.statSync(sourcesDir).isDirectory()) {
      for (const n of fs.readdirSync(manifestsDir).filter((x) => /\.ya?ml$/.test(x)).sort()) {
        const head = fs.readFileSync(path.join(manifestsDir, n), "utf8").slice(0, 4096);
        const source = /^source:\s*"?([^"\s#]+)"?/m.exec(head)?.[1];
        const edition = /^edition:\s*"?([^"\s#]+)"?/m.exec(head)?.[1];
        if (source && edition) games.set(source, edition);
      }
      for (const name of games.keys()) {
        const p = path.join(sourcesDir, path.basename(name));
        if (fs.existsSync(p) && fs.statSync(p).isFile()) texts.push({ name, text: fs.readFileSync(p, "utf8") });
      }
    }
  } catch {
    // an unreadable folder: no index, nothing checked
  }
  index = sourceSections(texts, (s) => games.get(s));
  indexCache.set(key, index);
  return index;
}
