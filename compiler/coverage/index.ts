/**
 * Coverage of the rulebook sources by the rule files: which paragraphs of each source are
 * encoded by which rules, and which restriction paragraphs are not (yet). Pure: the CLI
 * (`rulewright coverage`, compiler/cli/coverage.ts) reads the files and builds the editions.
 *
 * Inputs: the manifests (manifest.ts), the source texts, and for each edition the ids of its
 * rules and exemptions (with their rule-file positions, for orphan diagnostics).
 * Output: a report (per edition, per source file) and diagnostics (RW5003–RW5013).
 */
import type { Diagnostic } from "../diagnostics/types.js";
import type { SourcePos } from "../ir/types.js";
import { didYouMean, Reporter } from "../check/util.js";
import { splitParagraphs } from "./paragraphs.js";
import { RESTRICTION_KINDS, type Manifest, type ParagraphKind } from "./manifest.js";

export { splitParagraphs, type Paragraph } from "./paragraphs.js";
export { citationWarnings, nearestSections, projectSectionIndex, sourceSections, type SectionIndex } from "./sections.js";
export { inheritManifests, variantChanges, type VariantCoverage } from "./variants.js";
export { readManifest, type AuditMark, type Manifest, type ParagraphEntry, type ParagraphKind, type ScenarioRef } from "./manifest.js";
export { auditMutants, verifyAuditMarks, type AuditMutant, type AuditSurvivor, type AuditVerification, type ProbeOutcome, type ScenarioProbe } from "./audit.js";

export interface SourceFile {
  /** file name inside the sources folder, e.g. `001_42c9e1d76fa4cc82.txt` */
  name: string;
  text: string;
  /** sha256 of the file's bytes, lowercase hex */
  sha256: string;
}

/**
 * The rule and exemption ids and the result-table names of a built edition, each with where it
 * is defined. `tables` (optional) says which of the ids are tables, for the wording of diagnostics.
 */
export interface EditionIds {
  name: string;
  ids: Map<string, SourcePos>;
  tables?: Set<string>;
}

export type KindCounts = Record<ParagraphKind, number>;

export interface FileCoverage {
  source: string;
  edition: string;
  manifest: string;
  paragraphs: number;
  /** restriction paragraphs encoded */
  encoded: number;
  /** restriction paragraphs: encoded + not encoded */
  restriction: number;
  /** encoded / restriction × 100; null when the file states no restriction */
  percent: number | null;
  counts: KindCounts;
  /** restriction paragraphs (counted as their rules say) whose rest is out of scope, with a reason */
  partlyOutOfScope: number;
  /** paragraphs that are not headings: the denominator of the audited share */
  auditable: number;
  /** of those, the ones with a sound audit mark (`audited`) */
  audited: number;
  /** audited / auditable × 100; null when the file has only headings */
  auditedPercent: number | null;
}

export interface EditionCoverage extends CoverageTotal {
  edition: string;
  /** false when no bundled edition of that name exists (yet) */
  built: boolean;
  files: FileCoverage[];
}

export interface ListedParagraph {
  source: string;
  edition: string;
  paragraph: number;
  /** 1-based line of the paragraph in its source */
  line: number;
  note: string;
  /** rules that encode part of it (not_encoded entries that list some; out-of-scope entries
   * whose paragraph is partly encoded by these rules) */
  rules: string[];
}

export interface CoverageReport {
  editions: EditionCoverage[];
  total: CoverageTotal;
  notEncoded: ListedParagraph[];
  outOfScope: ListedParagraph[];
  /** bundled editions no manifest names (their rules are not checked for orphans) */
  uncoveredEditions: string[];
}

/** The totals of a report: encoded share and audited share (see the fields of FileCoverage). */
export interface CoverageTotal {
  encoded: number;
  restriction: number;
  percent: number | null;
  auditable: number;
  audited: number;
  auditedPercent: number | null;
}

/**
 * The scenarios an audit mark may name: for a scenario file path (as written in the manifest,
 * relative to the project root), the names of its scenarios, or undefined when there is no such
 * file. Without it (`analyzeCoverage`'s `opts.scenarios`), scenario references are not checked.
 */
export type ScenarioLookup = (file: string) => ReadonlySet<string> | undefined;

const ZERO: KindCounts = { encoded: 0, not_encoded: 0, out_of_scope: 0, procedure: 0, example: 0, heading: 0 };

/** encoded / restriction as a percentage rounded to one decimal; null when restriction is 0. */
export function percent(encoded: number, restriction: number): number | null {
  return restriction === 0 ? null : Math.round((encoded * 1000) / restriction) / 10;
}

/**
 * Checks the manifests against the sources and the editions and computes the report.
 * Validation (each failure is an error diagnostic):
 * - the source exists (RW5009), is covered by one manifest only (RW5009), and has the sha256 the
 *   manifest records (RW5008);
 * - every paragraph of the source is listed (RW5004) and no listed number is beyond its end (RW5003);
 *   duplicates are caught when reading (RW5005);
 * - every rule id (paragraphs and `implied`) exists in the manifest's edition (RW5006); an edition
 *   that is not bundled may be named only by manifests that name none of its rules (RW5010);
 * - every rule and exemption of an edition some manifest names is referenced by a paragraph or
 *   listed under `implied` of one of that edition's manifests (RW5007, at the rule's position);
 *   while the manifests name none of its rules, one warning instead (RW5011);
 * - every scenario an audit mark names exists (RW5013), when `opts.scenarios` is given (the shape
 *   of a mark is checked when reading, RW5012).
 * @param editions the bundled editions, built; absent names are "not built"
 */
export function analyzeCoverage(
  manifests: Manifest[],
  sources: Map<string, SourceFile>,
  editions: Map<string, EditionIds>,
  opts: { orphans?: boolean; scenarios?: ScenarioLookup } = {},
): { report: CoverageReport; diagnostics: Diagnostic[] } {
  const rep = new Reporter();
  const files: FileCoverage[] = [];
  const notEncoded: ListedParagraph[] = [];
  const outOfScope: ListedParagraph[] = [];
  const referenced = new Map<string, Set<string>>(); // edition → ids named by paragraphs or implied
  const bySource = new Map<string, Manifest>();

  for (const m of [...manifests].sort((a, b) => a.source.localeCompare(b.source) || a.file.localeCompare(b.file))) {
    const other = bySource.get(m.source);
    if (other) {
      rep.report("RW5009", `source \`${m.source}\` is covered by two manifests`, m.file, m.sourceSpan, "keep one manifest per source file", [{ message: "also covered", pos: { file: other.file, line: other.sourceSpan.line, column: other.sourceSpan.column } }]);
      continue;
    }
    bySource.set(m.source, m);
    const src = sources.get(m.source);
    if (!src) {
      rep.report("RW5009", `source \`${m.source}\` not found`, m.file, m.sourceSpan, didYouMean(m.source, sources.keys(), `the sources are ${[...sources.keys()].map((s) => `\`${s}\``).join(", ") || "none"}`));
      continue;
    }
    if (src.sha256 !== m.sha256) {
      rep.report("RW5008", `source \`${m.source}\` changed since this manifest was written`, m.file, m.shaSpan, `re-check every paragraph number against the new text, then set \`sha256: ${src.sha256}\``);
    }
    const paras = splitParagraphs(src.text);
    const listed = new Set<number>(m.invalid);
    for (const e of m.paragraphs) {
      if (e.n > paras.length) rep.report("RW5003", `paragraph ${e.n} does not exist: \`${m.source}\` has ${paras.length} paragraphs`, m.file, e.span, "paragraphs are the non-blank lines of the source, numbered from 1");
      listed.add(e.n);
    }
    const missing = paras.filter((p) => !listed.has(p.n)).map((p) => p.n);
    if (missing.length) {
      rep.report("RW5004", `${missing.length} paragraph${missing.length > 1 ? "s" : ""} of \`${m.source}\` not listed: ${ranges(missing)}`, m.file, m.paragraphsSpan, "list every paragraph: with its rule ids, or as heading, procedure, example, out_of_scope or not_encoded");
    }

    const ed = editions.get(m.edition);
    const refs = referenced.get(m.edition) ?? new Set<string>();
    referenced.set(m.edition, refs);
    const checkId = (id: string, span: Diagnostic["span"]) => {
      refs.add(id);
      if (!ed) return;
      if (!ed.ids.has(id)) rep.report("RW5006", `edition \`${m.edition}\` has no rule, exemption or table \`${id}\``, m.file, span, didYouMean(id, ed.ids.keys(), "check the rule id in the edition's rule files"));
    };
    const named = [...m.paragraphs.flatMap((e) => e.rules), ...m.implied];
    if (!ed && named.length) {
      rep.report("RW5010", `edition \`${m.edition}\` is not bundled, yet this manifest names its rules`, m.file, m.editionSpan, didYouMean(m.edition, editions.keys(), `bundled editions: ${[...editions.keys()].map((e) => `\`${e}\``).join(", ") || "none"}`));
    }
    for (const r of named) checkId(r.id, r.span);

    if (opts.scenarios) {
      for (const e of m.paragraphs) {
        for (const r of e.audited?.scenarios ?? []) {
          const names = opts.scenarios(r.file);
          if (!names) rep.report("RW5013", `paragraph ${e.n}: no scenario file \`${r.file}\``, m.file, r.span, "write the scenario file's path relative to the project root, e.g. `test/scenarios/his/war.yaml`");
          else if (!names.has(r.name)) rep.report("RW5013", `paragraph ${e.n}: \`${r.file}\` has no scenario named \`${r.name}\``, m.file, r.span, didYouMean(r.name, names, "copy the scenario's `name` exactly, after the `#`"));
        }
      }
    }

    const counts: KindCounts = { ...ZERO };
    let partlyOutOfScope = 0;
    let auditable = 0;
    let audited = 0;
    for (const e of m.paragraphs) {
      if (e.n > paras.length) continue;
      counts[e.kind]++;
      if (e.kind !== "heading") {
        auditable++;
        if (e.audited) audited++;
      }
      const line = paras[e.n - 1]!.line;
      const item = { source: m.source, edition: m.edition, paragraph: e.n, line, note: e.note ?? "", rules: e.rules.map((r) => r.id) };
      if (e.kind === "not_encoded") notEncoded.push(item);
      if (e.kind === "out_of_scope") outOfScope.push(item);
      // a partly encoded paragraph whose rest is out of scope: listed with its reason and rules
      if (e.outOfScope !== undefined) {
        outOfScope.push({ ...item, note: e.outOfScope });
        partlyOutOfScope++;
      }
    }
    const restriction = RESTRICTION_KINDS.reduce((s, k) => s + counts[k], 0);
    files.push({ source: m.source, edition: m.edition, manifest: m.file, paragraphs: paras.length, encoded: counts.encoded, restriction, percent: percent(counts.encoded, restriction), counts, partlyOutOfScope, auditable, audited, auditedPercent: percent(audited, auditable) });
  }

  // orphans: rules of a named, built edition that nothing references. An edition whose
  // manifests name none of its rules yet (their paragraphs all `not_encoded`, e.g. right after
  // the edition was merged) gets one warning instead: its share shows 0%.
  // Skipped (`opts.orphans === false`) when a manifest could not be read: the rules it names would
  // all be reported as orphans, burying the one real error.
  for (const [name, refs] of opts.orphans === false ? [] : [...referenced].sort(([a], [b]) => a.localeCompare(b))) {
    const ed = editions.get(name);
    if (!ed) continue;
    const manifestsOf = manifests.filter((m) => m.edition === name).map((m) => m.file).sort();
    if (refs.size === 0 && ed.ids.size > 0) {
      const m = manifests.find((x) => x.edition === name)!;
      rep.report("RW5011", `no rule of edition \`${name}\` is referenced yet: its ${ed.ids.size} rules are not mapped to paragraphs`, m.file, m.editionSpan, `map the paragraphs of ${manifestsOf.map((f) => `\`${f}\``).join(" and ")} to the rules that encode them; from the first mapped rule on, every unmapped rule is an error`);
      continue;
    }
    for (const [id, pos] of [...ed.ids].sort(([a], [b]) => a.localeCompare(b))) {
      if (refs.has(id)) continue;
      rep.report(
        "RW5007",
        `${ed.tables?.has(id) ? "table" : "rule"} \`${id}\` of edition \`${name}\` is not referenced by any coverage manifest`,
        pos.file,
        { line: pos.line, column: pos.column, endLine: pos.line, endColumn: pos.column + 1 },
        `name it under the paragraph that states it in ${manifestsOf.map((f) => `\`${f}\``).join(" or ")}, or list it under \`implied:\` with a reason`,
      );
    }
  }

  const editionNames = [...new Set(files.map((f) => f.edition))].sort();
  const byEdition: EditionCoverage[] = editionNames.map((edition) => {
    const fs = files.filter((f) => f.edition === edition).sort((a, b) => a.source.localeCompare(b.source));
    return { edition, built: editions.has(edition), files: fs, ...totals(fs) };
  });
  const order = (a: ListedParagraph, b: ListedParagraph) => a.source.localeCompare(b.source) || a.paragraph - b.paragraph;
  return {
    report: {
      editions: byEdition,
      total: totals(byEdition),
      notEncoded: notEncoded.sort(order),
      outOfScope: outOfScope.sort(order),
      uncoveredEditions: [...editions.keys()].filter((e) => !referenced.has(e)).sort(),
    },
    diagnostics: rep.diagnostics,
  };
}

/** Restricts a report to some editions (totals recomputed). */
export function selectEditions(report: CoverageReport, names: string[]): CoverageReport {
  const editions = report.editions.filter((e) => names.includes(e.edition));
  return {
    editions,
    total: totals(editions),
    notEncoded: report.notEncoded.filter((p) => names.includes(p.edition)),
    outOfScope: report.outOfScope.filter((p) => names.includes(p.edition)),
    uncoveredEditions: report.uncoveredEditions.filter((e) => names.includes(e)),
  };
}

/** Sums of the encoded and audited counts of some files or editions, with their shares. */
function totals(parts: readonly { encoded: number; restriction: number; auditable: number; audited: number }[]): CoverageTotal {
  const sum = (k: "encoded" | "restriction" | "auditable" | "audited") => parts.reduce((s, p) => s + p[k], 0);
  const [encoded, restriction, auditable, audited] = [sum("encoded"), sum("restriction"), sum("auditable"), sum("audited")];
  return { encoded, restriction, percent: percent(encoded, restriction), auditable, audited, auditedPercent: percent(audited, auditable) };
}

/**
 * Whether the share of audited paragraphs (every paragraph but the headings) reaches
 * `minPercent` (exact comparison audited × 100 ≥ minPercent × auditable; no paragraph counts as
 * reaching it).
 */
export function meetsAuditThreshold(total: { audited: number; auditable: number; auditedPercent?: number | null }, minPercent: number): boolean {
  return total.audited * 100 >= minPercent * total.auditable;
}

/**
 * Whether the share of encoded restriction paragraphs reaches `minPercent` (exact comparison
 * encoded × 100 ≥ minPercent × restriction; nothing to encode counts as reaching it).
 */
export function meetsThreshold(total: { encoded: number; restriction: number; percent?: number | null }, minPercent: number): boolean {
  return total.encoded * 100 >= minPercent * total.restriction;
}

/** `[1, 2, 3, 7, 9, 10]` → `1–3, 7, 9–10`. */
export function ranges(ns: number[]): string {
  const out: string[] = [];
  const s = [...ns].sort((a, b) => a - b);
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++;
    out.push(i === j ? String(s[i]) : `${s[i]}–${s[j]}`);
    i = j + 1;
  }
  return out.join(", ");
}
