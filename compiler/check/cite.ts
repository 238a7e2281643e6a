/**
 * What rules, exemptions, invariants and tables share when they are checked: unique ids (RW2010),
 * the citation an item shows in this edition (RW2105, RW2109) and `@severity` annotations
 * (RW2050–RW2052).
 */
import type { Span } from "../diagnostics/types.js";
import type { Citation } from "../ir/types.js";
import type { Annotation, Citation as CitationRef } from "../syntax/ast.js";
import { ANALYSES, EXEMPTION_ANALYSES, RULE_ANALYSES, SEVERITY_LEVELS, type AnalysisKind, type SeverityLevel, type SeverityOverride } from "../ir/analyses.js";
import type { Checking } from "./context.js";
import type { Origin } from "./env.js";
import { citationStub, didYouMean, posOf } from "./util.js";

/** The edition's ids and citations, checked as items claim them. */
export interface Ids {
  /** Claims a rule, exemption or invariant id (`what`: "a rule", …); false (RW2010 reported) when an earlier item has it. */
  claimId(id: { name: string; span: Span }, file: string, what: string): boolean;
  /**
   * The citation a rule, exemption or table shows in this edition: an unkeyed one cites the key of
   * the edition whose file declares it; otherwise the one keyed with that edition's `cites` key
   * (for a module, the key of the edition that imports it). Reports RW2109/RW2105 and returns
   * undefined when there is none.
   */
  citation(cs: CitationRef[], id: { name: string; span: Span }, file: string, origin: Origin | undefined, what: string): Citation | undefined;
}

/** A fresh id registry and the citation picker of the edition being checked. */
export function editionIds(c: Checking): Ids {
  const { rep, leaf } = c;
  const editionDecl = leaf.edition!;
  const ids = new Map<string, { file: string; span: Span; what: string }>();
  const claimId = (id: { name: string; span: Span }, file: string, what: string): boolean => {
    const prev = ids.get(id.name);
    if (prev) {
      rep("RW2010", `duplicate id \`${id.name}\``, { file, span: id.span }, "rule, exemption and invariant ids are unique in an edition; rename this one",
        [{ message: `first used here by ${prev.what}`, pos: posOf(prev.file, prev.span) }]);
      return false;
    }
    ids.set(id.name, { file, span: id.span, what });
    return true;
  };
  const cites = editionDecl.decl.cites;
  /**
   * The citation a rule or exemption shows in this edition: an unkeyed one cites the key of the
   * edition whose file declares it; otherwise the one keyed with that edition's `cites` key (for a
   * module, the key of the edition that imports it). Reports RW2109/RW2105.
   */
  const citation = (cs: CitationRef[], id: { name: string; span: Span }, file: string, origin: Origin | undefined, what: string): Citation | undefined => {
    const key = origin?.cites ?? cites;
    if (origin?.module) {
      for (const c of cs.filter((x) => !x.key)) {
        rep("RW2109", `a citation in module \`${origin.module}\` needs a game key`, { file, span: c.span },
          `write the game before the section, e.g. \`${key} ${c.named ? `§"${c.value}"` : `§${c.value}`}\`; a module is shared by editions of several games`);
      }
    }
    const c = cs.find((x) => x.key?.name === key) ?? (origin?.module ? undefined : cs.find((x) => !x.key));
    if (c) {
      const text = c.named ? `${key} §"${c.value}"` : `${key} §${c.value}`;
      return { source: key, section: c.value, text, ...(c.named ? { named: true as const } : {}) };
    }
    if (origin?.module && cs.some((x) => !x.key)) return undefined; // RW2109 said it
    const keys = cs.map((x) => x.key?.name).filter((k): k is string => !!k);
    const importer = origin && origin.edition !== leaf.folder ? `edition \`${origin.edition}\`` : `this edition`;
    rep("RW2105", origin?.module
      ? `${what} \`${id.name}\` of module \`${origin.module}\` has no citation for \`${key}\`, the \`cites\` key of ${importer} that imports it`
      : `${what} \`${id.name}\` has no citation for \`${key}\`, the edition's \`cites\` key`,
      { file, span: cs[0]?.span ?? id.span },
      citationStub(key, cs, id.span, `add \`${key} §<section>\` to its citations (it cites ${keys.map((k) => `\`${k}\``).join(", ") || "nothing"})`));
    return undefined;
  };
  return { claimId, citation };
}

/**
 * `@severity <analysis> <level> "<note>"` annotations of a rule or exemption (see
 * compiler/ir/analyses.ts); reports RW2050–RW2052 and returns the overrides (absent when none).
 */
export function severitiesOf(c: Checking, anns: Annotation[], file: string, what: "rule" | "exemption"): SeverityOverride[] | undefined {
  const { rep } = c;
  const applicable = what === "rule" ? RULE_ANALYSES : EXEMPTION_ANALYSES;
  const out: SeverityOverride[] = [];
  for (const a of anns) {
    if (a.name.name !== "severity") {
      rep("RW2050", `unknown annotation \`@${a.name.name}\``, { file, span: a.name.span }, didYouMean(a.name.name, ["severity"], "the only annotation is `@severity <analysis> <level> \"why\"`"));
      continue;
    }
    const [kind, level, ...extra] = a.args;
    if (!kind || !level || extra.length) {
      rep("RW2051", `\`@severity\` takes an analysis and a level, e.g. \`@severity redundant_rule off "stated twice on purpose"\``, { file, span: a.span },
        `analyses: ${applicable.join(", ")}; levels: ${SEVERITY_LEVELS.join(", ")}`);
      continue;
    }
    if (!(ANALYSES as readonly string[]).includes(kind.name)) {
      rep("RW2051", `unknown analysis \`${kind.name}\``, { file, span: kind.span }, didYouMean(kind.name, applicable, `analyses of a ${what}: ${applicable.join(", ")}`));
      continue;
    }
    if (!applicable.includes(kind.name as AnalysisKind)) {
      rep("RW2051", `\`${kind.name}\` is not about a single ${what}, so a ${what} cannot change its severity`, { file, span: kind.span }, `analyses of a ${what}: ${applicable.join(", ")}`);
      continue;
    }
    if (!(SEVERITY_LEVELS as readonly string[]).includes(level.name)) {
      rep("RW2051", `unknown severity level \`${level.name}\``, { file, span: level.span }, didYouMean(level.name, SEVERITY_LEVELS, `levels: ${SEVERITY_LEVELS.join(", ")}`));
      continue;
    }
    const prev = out.find((o) => o.kind === kind.name);
    if (prev) {
      rep("RW2052", `\`${kind.name}\` is given a severity twice`, { file, span: kind.span }, "keep one `@severity` line per analysis",
        [{ message: "first given here", pos: prev.pos }]);
      continue;
    }
    out.push({ kind: kind.name as AnalysisKind, level: level.name as SeverityLevel, ...(a.note !== undefined ? { note: a.note } : {}), pos: posOf(file, a.span) });
  }
  return out.length ? out : undefined;
}
