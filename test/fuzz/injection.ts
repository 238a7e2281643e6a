/**
 * The injection property (issue 18, item 5): hostile text in every place where text reaches
 * generated code — the edition title, rule/exemption/invariant titles, citations, removal
 * reasons and file names — must neither run when the generated module is imported, nor break
 * it, and must read back unchanged from the literal (the exported catalogue) and from the
 * comment it lands in. Built on the hand-built tiny IR (test/helpers/tiny-ir.ts), which can hold
 * text the front end would reject (line breaks in a title or a file name), so the code generator
 * is tested on its own, not only behind the front end's checks.
 */
import fc from "fast-check";
import { generateEdition } from "../../compiler/codegen/index.js";
import type { IREdition } from "../../compiler/ir/types.js";
import { tinyIR } from "../helpers/tiny-ir.js";
import { commentsOf, importInChild, PAYLOAD, syntaxErrors, writeEditions } from "./generated-io.js";

/** Pieces that end a literal, a comment or a template, or confuse a reader of the source. */
const BREAKERS = ["*/", "/*", "//", "\n", "\r", "\r\n", "\u2028", "\u2029", "\u0085", "\0", "`", "${", "}", '"', "'", "\\", "\\u2028", "</script>", "\u202e", "\ud800", "@param", " * ", "-->"];

/**
 * A hostile string: breakers, a payload that sets the canary when it runs, ordinary text, and
 * sometimes a very long run (up to 20,000 characters).
 */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.array(fc.oneof(fc.constantFrom(...BREAKERS), fc.constant(PAYLOAD), fc.string({ maxLength: 6 }), fc.string({ unit: "binary", maxLength: 3 })), { minLength: 1, maxLength: 12 }).map((xs) => xs.join("")) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...BREAKERS), fc.integer({ min: 1000, max: 20000 })).map(([b, n]) => `${b}${PAYLOAD}`.repeat(Math.ceil(n / (b.length + PAYLOAD.length)))) },
);

/** The text fields of the tiny IR that hostile strings go into. */
export interface Texts {
  editionTitle: string;
  ruleTitle: string;
  citation: string;
  exemptionTitle: string;
  exemptionCitation: string;
  invariantTitle: string;
  file: string;
  removedReason: string;
}

export const hostileTexts: fc.Arbitrary<Texts> = fc.record({
  editionTitle: hostileText,
  ruleTitle: hostileText,
  citation: hostileText,
  exemptionTitle: hostileText,
  exemptionCitation: hostileText,
  invariantTitle: hostileText,
  file: hostileText,
  removedReason: hostileText,
});

/** The tiny IR with `t` in every text field (the first rule, exemption and invariant). */
export function injected(t: Texts): IREdition {
  const ir = tinyIR();
  ir.title = t.editionTitle;
  const r = ir.rules[0]!;
  r.title = t.ruleTitle;
  r.citation = { ...r.citation, text: t.citation };
  r.pos = { ...r.pos, file: t.file };
  const e = ir.exemptions[0]!;
  e.title = t.exemptionTitle;
  e.citation = { ...e.citation, text: t.exemptionCitation };
  e.pos = { ...e.pos, file: t.file };
  ir.invariants[0]!.title = t.invariantTitle;
  ir.invariants[0]!.pos = { ...ir.invariants[0]!.pos, file: t.file };
  ir.removed = [{ id: "old.rule", reason: t.removedReason, edition: "tiny", pos: { file: t.file, line: 1, column: 1 }, removedPos: { file: t.file, line: 2, column: 1 } }];
  return ir;
}

/** One failed expectation of a case, or none. */
export function problemsOf(t: Texts, files: { path: string; content: string }[], imported: { error?: string; ran: boolean; catalogue?: Record<string, unknown[]> }): string[] {
  const p: string[] = [];
  if (imported.ran) p.push("a payload ran on import");
  if (imported.error) p.push(`import failed: ${imported.error.slice(0, 300)}`);
  for (const f of files) {
    const errs = syntaxErrors(f.path, f.content);
    if (errs.length) p.push(`${f.path}: syntax error ${errs[0]}`);
  }
  const c = imported.catalogue;
  if (c) {
    const rule = (c.RULES as { id: string; title: string; citation: string; file: string }[]).find((x) => x.id === "dow.green");
    if (rule?.title !== t.ruleTitle) p.push("RULES title differs");
    if (rule?.citation !== t.citation) p.push("RULES citation differs");
    if (rule?.file !== t.file) p.push("RULES file differs");
    const ex = (c.EXEMPTIONS as { title: string; citation: string }[]).find((x) => x.title === t.exemptionTitle);
    if (ex?.citation !== t.exemptionCitation) p.push("EXEMPTIONS title/citation differs");
    if (!(c.INVARIANTS as { title: string }[]).some((x) => x.title === t.invariantTitle)) p.push("INVARIANTS title differs");
    if (!(c.REMOVED_RULES as { reason: string }[]).some((x) => x.reason === t.removedReason)) p.push("REMOVED_RULES reason differs");
  }
  const byName = new Map(files.map((f) => [f.path.split("/").pop()!, commentsOf(f.content)]));
  const inComment = (file: string, s: string) => (byName.get(file) ?? []).some((c) => c.includes(s));
  if (!inComment("index.ts", t.editionTitle)) p.push("edition title not read back from the header comment");
  if (!inComment("validators.ts", t.ruleTitle)) p.push("rule title not read back from its JSDoc");
  if (!inComment("validators.ts", t.citation)) p.push("citation not read back from its JSDoc");
  if (!inComment("validators.ts", t.exemptionCitation)) p.push("exemption citation not read back from its // comment");
  if (!inComment("validators.ts", t.invariantTitle)) p.push("invariant title not read back from its JSDoc");
  if (!inComment("validators.ts", t.file)) p.push("file name not read back from a JSDoc");
  return p;
}

/**
 * Generates, writes and imports (in one child process) the editions of a batch of cases.
 * Returns, per case, its problems (empty: the case passed).
 */
export async function runInjectionBatch(cases: Texts[]): Promise<string[][]> {
  const gens = await Promise.all(cases.map((t) => generateEdition(injected(t))));
  const root = writeEditions(gens);
  try {
    const imported = importInChild(cases.map((_, i) => `${root}/${i}/generated/tiny`));
    return cases.map((t, i) => problemsOf(t, gens[i]!, imported[i]!));
  } finally {
    const fs = await import("node:fs");
    fs.rmSync(root, { recursive: true, force: true });
  }
}
