/**
 * Coverage of a variant edition (issue 28): a variant (`extends "<parent>"`) has no manifests of
 * its own; it inherits its nearest covered ancestor's, read against its own rules:
 *
 * - a rule the variant removed (`remove rule`) no longer encodes its paragraphs: it is dropped from
 *   every paragraph, and a paragraph left with no rule becomes `not_encoded` with the removal's
 *   reason ("removed by his-2p: …");
 * - an audit mark read against a rule the variant removed or overrode no longer holds for the
 *   variant: it is dropped from that paragraph (the paragraph counts as not audited);
 * - a rule the variant adds maps to no paragraph of the parent's sources: it is listed under
 *   `implied` with the reason "added by the variant", so the orphan check passes and the report
 *   shows it (`VariantCoverage.added`).
 *
 * The derived manifests keep the parent's file, source and positions (a problem is reported in the
 * parent's manifest), with `edition` set to the variant.
 */
import type { IREdition } from "../ir/types.js";
import type { Manifest, ParagraphEntry } from "./manifest.js";

/** What a variant changed against the ancestor whose manifests it inherits. */
export interface VariantCoverage {
  /** the variant (its folder name) */
  edition: string;
  /** the ancestor whose manifests it inherits */
  inheritsFrom: string;
  /** ids the variant (or an ancestor variant below `inheritsFrom`) removed, with the reason */
  removed: { id: string; reason: string }[];
  /** ids of rules it overrode (their audit marks are dropped) */
  overridden: string[];
  /** ids of the rules and exemptions it added (listed as implied) */
  added: string[];
}

/**
 * What `variant` changed, read from its IR: removals (`ir.removed`), and the rules and exemptions
 * whose provenance is `added` or `overridden` by an edition other than `inheritsFrom`.
 */
export function variantChanges(variant: IREdition, inheritsFrom: string): VariantCoverage {
  const mine = (p: { edition: string; change: string } | undefined, change: string) => p !== undefined && p.change === change && p.edition !== inheritsFrom;
  const items = [...variant.rules, ...variant.exemptions] as { id: string; provenance?: { edition: string; change: string } }[];
  return {
    edition: variant.folder ?? variant.name,
    inheritsFrom,
    removed: (variant.removed ?? []).filter((r) => r.edition !== inheritsFrom).map((r) => ({ id: r.id, reason: r.reason })),
    overridden: items.filter((x) => mine(x.provenance, "overridden")).map((x) => x.id).sort(),
    added: items.filter((x) => mine(x.provenance, "added")).map((x) => x.id).sort(),
  };
}

/** The ancestor's manifests as the variant's (see the file comment). */
export function inheritManifests(parentManifests: readonly Manifest[], v: VariantCoverage): Manifest[] {
  const removed = new Map(v.removed.map((r) => [r.id, r.reason]));
  const overridden = new Set(v.overridden);
  return parentManifests.map((m, i) => {
    const paragraphs = m.paragraphs.map((e): ParagraphEntry => {
      const touched = e.rules.some((r) => removed.has(r.id) || overridden.has(r.id));
      if (!touched) return e;
      const rules = e.rules.filter((r) => !removed.has(r.id));
      const gone = e.rules.filter((r) => removed.has(r.id)).map((r) => `${r.id} (${removed.get(r.id)})`);
      const { audited: _audited, ...rest } = e;
      if (e.kind === "encoded" && rules.length === 0) return { ...rest, kind: "not_encoded", rules, note: `removed by ${v.edition}: ${gone.join("; ")}` };
      return { ...rest, rules, ...(gone.length ? { note: `${e.note ? e.note + "; " : ""}removed by ${v.edition}: ${gone.join("; ")}` } : {}) };
    });
    const implied = m.implied.filter((x) => !removed.has(x.id));
    // the variant's own rules: listed once, in the first manifest
    if (i === 0) for (const id of v.added) implied.push({ id, reason: `added by the variant ${v.edition}`, span: m.editionSpan });
    return { ...m, edition: v.edition, paragraphs, implied };
  });
}
