/**
 * Reading one coverage manifest (`dsl/coverage/<source-stem>.yaml`). Never throws on bad
 * content: every problem is a diagnostic with file, line, column and a hint (codes RW5xxx).
 *
 * ```yaml
 * source: 001_42c9e1d76fa4cc82.txt   # a file of the sources folder
 * sha256: 5d1c…                      # of that file's bytes: a changed source invalidates the numbers
 * edition: his                       # the edition whose rule ids the paragraphs name
 * implied:                           # optional: rules no paragraph states, each with a reason
 *   dow.self: a declaration of war is made against another power
 * paragraphs:                        # every paragraph of the source, exactly once, by number
 *   1: heading                       # heading | procedure | example
 *   8: [dow.hungary_bohemia]         # encoded by these rule or exemption ids
 *   46: { rules: [control.impulse], not_encoded: "the CP budget is not checked yet" }
 *   105: { out_of_scope: "dice of a Reformation attempt: resolution, not a restriction" }
 *   34: { not_encoded: "impulse options: card play is not encoded yet" }
 *   39: { rules: [card.combat_as_event], out_of_scope: "the conditions printed on single cards" }
 *   32: { example: "replayed in test/scenarios/his/deploy.yaml" }
 *   12: { rules: [dow.own_ally], audited: { compared: "text vs rules", scenarios: ["test/scenarios/his/war.yaml#<name>"] } }
 * ```
 * The mapping form takes exactly one of `heading`, `procedure`, `example`, `out_of_scope`
 * (each with a note; `out_of_scope` needs its reason), or `rules` and/or `not_encoded` (a
 * paragraph only partly encoded lists its rules and says what is missing; it counts as not
 * encoded), plus an optional `note`. A paragraph with `rules` may also give `out_of_scope`: the
 * reason the rest of it is not modelled; it counts as its rules say (encoded, or not encoded
 * with `not_encoded`) and is listed among the out-of-scope paragraphs too.
 *
 * Any mapping entry may carry an **audit mark** `audited: { compared: "…", scenarios: [...] }`:
 * `compared` paraphrases what the text requires against what the rules do; `scenarios` names
 * scenarios as `<scenario file>#<scenario name>` (the file relative to the project root). The
 * list is required (at least one) for paragraphs with `rules` and for examples, optional for the
 * other kinds. A bad mark is RW5012; whether each scenario exists is checked by the analysis
 * (index.ts, RW5013).
 */
import YAML from "yaml";
import type { Diagnostic, Span } from "../diagnostics/types.js";
import { didYouMean, Reporter } from "../check/util.js";

export type ParagraphKind = "encoded" | "not_encoded" | "out_of_scope" | "procedure" | "example" | "heading";

/** Kinds that count as restriction paragraphs (the denominator of the coverage share). */
export const RESTRICTION_KINDS: readonly ParagraphKind[] = ["encoded", "not_encoded"];

export interface RuleRef {
  id: string;
  span: Span;
}

/** One `<file>#<name>` scenario reference of an audit mark. */
export interface ScenarioRef {
  /** scenario file, relative to the project root, e.g. `test/scenarios/his/war.yaml` */
  file: string;
  /** the scenario's `name` in that file */
  name: string;
  span: Span;
}

/** An audit mark: the paragraph was read against its rules (compiler/coverage/README.md). */
export interface AuditMark {
  /** what the text requires vs what the rules do (a paraphrase) */
  compared: string;
  scenarios: ScenarioRef[];
  /** position of the `audited` key */
  span: Span;
}

export interface ParagraphEntry {
  /** paragraph number (compiler/coverage/paragraphs.ts) */
  n: number;
  /** `not_encoded` when the entry says so, even if it also lists rules */
  kind: ParagraphKind;
  rules: RuleRef[];
  /** the reason (out_of_scope, not_encoded) or a free note */
  note?: string;
  /** an entry with `rules`: why the rest of the paragraph is out of scope */
  outOfScope?: string;
  /** the audit mark, when the entry has a sound one */
  audited?: AuditMark;
  /** position of the paragraph number in the manifest */
  span: Span;
}

export interface Manifest {
  /** manifest path (as given) */
  file: string;
  source: string;
  sourceSpan: Span;
  sha256: string;
  shaSpan: Span;
  edition: string;
  editionSpan: Span;
  implied: { id: string; reason: string; span: Span }[];
  paragraphs: ParagraphEntry[];
  /** paragraph numbers listed with a bad entry (already reported; not "missing") */
  invalid: number[];
  /** position of the `paragraphs` key */
  paragraphsSpan: Span;
}

const TOP_KEYS = ["source", "sha256", "edition", "implied", "paragraphs"];
const SIMPLE_KINDS = ["heading", "procedure", "example"] as const;
const ENTRY_KEYS = ["rules", "not_encoded", "out_of_scope", "heading", "procedure", "example", "note", "audited"];
const ENTRY_HELP = "write `heading`, `procedure`, `example`, a list of rule ids, or a mapping with `rules`, `not_encoded`, `out_of_scope`, `heading`, `procedure` or `example` (and an optional `note` and `audited` mark)";
const AUDIT_KEYS = ["compared", "scenarios"];
const AUDIT_HELP = 'write `audited: { compared: "<what the text requires vs what the rules do>", scenarios: ["test/scenarios/<edition>/<file>.yaml#<scenario name>"] }`';
const RULE_ID = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** What the readers below share: the reporter, the manifest's path (for diagnostics) and node positions. */
interface ReadCtx {
  rep: Reporter;
  file: string;
  /** the span of a YAML node (line 1, column 1 when it has no range) */
  nodeSpan: (n: unknown) => Span;
}

/** A header string field: its value and the position of the value. */
type HeaderField = { value: string; span: Span };

/** The span of a source range `[start, end]` (line 1, column 1 when there is none). */
function spanOf(lc: YAML.LineCounter, range: readonly number[] | null | undefined): Span {
  if (!range) return { line: 1, column: 1, endLine: 1, endColumn: 2 };
  const a = lc.linePos(range[0]!);
  const b = lc.linePos(Math.max(range[0]! + 1, range[1] ?? range[0]! + 1));
  return { line: a.line, column: a.col, endLine: b.line, endColumn: b.line === a.line ? b.col : a.col + 1 };
}

/**
 * Reads a manifest from its text. `file` is used in diagnostics only. The manifest is returned
 * whenever its header (`source`, `sha256`, `edition`, `paragraphs`) is sound, even if some
 * entries are bad (those are in `invalid` and reported); check `diagnostics` for errors.
 */
export function readManifest(file: string, text: string): { manifest?: Manifest; diagnostics: Diagnostic[] } {
  const rep = new Reporter();
  const lc = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: false });
  const nodeSpan = (n: unknown): Span => spanOf(lc, (n as YAML.Node | null)?.range);
  const ctx: ReadCtx = { rep, file, nodeSpan };
  if (doc.errors.length) {
    for (const e of doc.errors) rep.report("RW5001", `invalid YAML: ${e.message.split("\n")[0]}`, file, spanOf(lc, e.pos), "fix the YAML syntax");
    return { diagnostics: rep.diagnostics };
  }
  const top = doc.contents;
  if (!YAML.isMap(top)) {
    rep.report("RW5002", "a coverage manifest is a mapping with `source`, `sha256`, `edition` and `paragraphs`", file, nodeSpan(top), "see compiler/coverage/README.md for the format");
    return { diagnostics: rep.diagnostics };
  }
  const fields = topFields(ctx, top);
  const source = headerString(ctx, fields, top, "source", "name the source file, e.g. `source: 001_42c9e1d76fa4cc82.txt`");
  const sha = headerString(ctx, fields, top, "sha256", "write the sha256 of the source file (`sha256sum <file>`)");
  if (sha && !/^[0-9a-f]{64}$/.test(sha.value)) rep.report("RW5002", "`sha256` must be 64 lowercase hex digits", file, sha.span, "write the sha256 of the source file (`sha256sum <file>`)");
  const edition = headerString(ctx, fields, top, "edition", "name the edition whose rules encode this source, e.g. `edition: his`");
  const implied = readImplied(ctx, fields.get("implied"));
  const pp = fields.get("paragraphs");
  const { paragraphs, invalid, paragraphsSpan } = readParagraphs(ctx, pp, top);

  // entry-level problems still give a (partial) manifest, so that the analysis can add what
  // else is wrong; a manifest without its header fields gives none
  if (!source || !sha || !edition || !pp || !/^[0-9a-f]{64}$/.test(sha.value)) return { diagnostics: rep.diagnostics };
  return {
    manifest: {
      file,
      source: source.value,
      sourceSpan: source.span,
      sha256: sha.value,
      shaSpan: sha.span,
      edition: edition.value,
      editionSpan: edition.span,
      implied,
      paragraphs,
      invalid,
      paragraphsSpan,
    },
    diagnostics: rep.diagnostics,
  };
}

/** The top-level keys of a manifest by name; unknown and repeated keys are reported and left out. */
function topFields(ctx: ReadCtx, top: YAML.YAMLMap): Map<string, YAML.Pair> {
  const { rep, file, nodeSpan } = ctx;
  const fields = new Map<string, YAML.Pair>();
  for (const p of top.items) {
    const key = YAML.isScalar(p.key) ? String(p.key.value) : "";
    if (!TOP_KEYS.includes(key)) {
      rep.report("RW5002", `unknown key \`${key}\` in a coverage manifest`, file, nodeSpan(p.key), didYouMean(key, TOP_KEYS, `the keys are ${TOP_KEYS.map((k) => `\`${k}\``).join(", ")}`));
      continue;
    }
    if (fields.has(key)) {
      rep.report("RW5002", `key \`${key}\` given twice`, file, nodeSpan(p.key), "keep one of them");
      continue;
    }
    fields.set(key, p);
  }
  return fields;
}

/** A required non-empty string field of the header (undefined, reported with `hint`, when missing or not such a string). */
function headerString(ctx: ReadCtx, fields: Map<string, YAML.Pair>, top: YAML.YAMLMap, key: string, hint: string): HeaderField | undefined {
  const { rep, file, nodeSpan } = ctx;
  const p = fields.get(key);
  if (!p) {
    rep.report("RW5002", `missing \`${key}\``, file, nodeSpan(top), hint);
    return undefined;
  }
  if (!YAML.isScalar(p.value) || typeof p.value.value !== "string" || p.value.value === "") {
    rep.report("RW5002", `\`${key}\` must be a non-empty string`, file, nodeSpan(p.value ?? p.key), hint);
    return undefined;
  }
  return { value: p.value.value, span: nodeSpan(p.value) };
}

/** The `implied` rules (rule id → reason); bad entries are reported and left out. */
function readImplied(ctx: ReadCtx, imp: YAML.Pair | undefined): Manifest["implied"] {
  const { rep, file, nodeSpan } = ctx;
  const implied: Manifest["implied"] = [];
  if (imp && !(YAML.isScalar(imp.value) && imp.value.value === null)) {
    if (!YAML.isMap(imp.value)) {
      rep.report("RW5002", "`implied` must map rule ids to reasons", file, nodeSpan(imp.value ?? imp.key), "e.g. `implied: { dow.self: \"a declaration is made against another power\" }`");
    } else {
      for (const p of imp.value.items) {
        const id = YAML.isScalar(p.key) ? String(p.key.value) : "";
        const reason = YAML.isScalar(p.value) && typeof p.value.value === "string" ? p.value.value.trim() : "";
        if (!RULE_ID.test(id)) rep.report("RW5002", `\`${id}\` is not a rule id`, file, nodeSpan(p.key), "rule ids are dotted identifiers, e.g. `dow.self`");
        else if (!reason) rep.report("RW5002", `implied rule \`${id}\` needs a reason`, file, nodeSpan(p.value ?? p.key), "say why no paragraph states it, e.g. `a domain restriction of the action`");
        else implied.push({ id, reason, span: nodeSpan(p.key) });
      }
    }
  }
  return implied;
}

/** The `paragraphs` entries in number order, the numbers listed with a bad entry, and the position of the key. */
function readParagraphs(ctx: ReadCtx, pp: YAML.Pair | undefined, top: YAML.YAMLMap): Pick<Manifest, "paragraphs" | "invalid" | "paragraphsSpan"> {
  const { rep, file, nodeSpan } = ctx;
  const paragraphs: ParagraphEntry[] = [];
  const invalid: number[] = [];
  const paragraphsSpan = pp ? nodeSpan(pp.key) : nodeSpan(top);
  if (!pp) rep.report("RW5002", "missing `paragraphs`", file, nodeSpan(top), "map every paragraph number of the source to its rules or kind");
  else if (!YAML.isMap(pp.value)) rep.report("RW5002", "`paragraphs` must be a mapping from paragraph numbers to entries", file, nodeSpan(pp.value ?? pp.key), "e.g. `paragraphs: { 1: heading, 2: [dow.scotland] }`");
  else {
    const seen = new Map<number, Span>();
    for (const p of pp.value.items) {
      const kspan = nodeSpan(p.key);
      const n = YAML.isScalar(p.key) ? p.key.value : undefined;
      if (typeof n !== "number" || !Number.isInteger(n) || n < 1) {
        rep.report("RW5002", `paragraph key \`${YAML.isScalar(p.key) ? String(p.key.value) : "?"}\` is not a paragraph number`, file, kspan, "paragraphs are numbered 1, 2, 3, … (see compiler/coverage/README.md)");
        continue;
      }
      const first = seen.get(n);
      if (first) {
        rep.report("RW5005", `paragraph ${n} is listed twice`, file, kspan, "list every paragraph exactly once", [{ message: "first listed", pos: { file, line: first.line, column: first.column } }]);
        continue;
      }
      seen.set(n, kspan);
      const e = readEntry(ctx, p.value, n, kspan);
      if (e) paragraphs.push(e);
      else invalid.push(n);
    }
    paragraphs.sort((a, b) => a.n - b.n);
  }
  return { paragraphs, invalid, paragraphsSpan };
}

/** The entry of paragraph `n` (a kind word, a rule list or a mapping); undefined, reported, when it is bad. */
function readEntry(ctx: ReadCtx, v: unknown, n: number, span: Span): ParagraphEntry | undefined {
  const { rep, file, nodeSpan } = ctx;
  const vspan = v ? nodeSpan(v) : span;
  if (YAML.isScalar(v)) {
    const s = v.value;
    if (typeof s === "string" && (SIMPLE_KINDS as readonly string[]).includes(s)) return { n, kind: s as ParagraphKind, rules: [], span };
    const word = typeof s === "string" ? s : String(s);
    rep.report("RW5002", `paragraph ${n}: \`${word}\` is not a paragraph kind`, file, vspan, didYouMean(word, SIMPLE_KINDS, ENTRY_HELP));
    return undefined;
  }
  if (YAML.isSeq(v)) {
    const rules = ruleList(ctx, v, n);
    if (!rules) return undefined;
    return { n, kind: "encoded", rules, span };
  }
  if (!YAML.isMap(v)) {
    rep.report("RW5002", `paragraph ${n} has no entry`, file, vspan, ENTRY_HELP);
    return undefined;
  }
  return readEntryMap(ctx, v, n, span, vspan);
}

/** The keys of a mapping entry by name; undefined, reported, when one is unknown or repeated. */
function entryKeys(ctx: ReadCtx, v: YAML.YAMLMap, n: number): Map<string, YAML.Pair> | undefined {
  const { rep, file, nodeSpan } = ctx;
  const got = new Map<string, YAML.Pair>();
  let ok = true;
  for (const p of v.items) {
    const key = YAML.isScalar(p.key) ? String(p.key.value) : "";
    if (!ENTRY_KEYS.includes(key)) {
      rep.report("RW5002", `paragraph ${n}: unknown key \`${key}\``, file, nodeSpan(p.key), didYouMean(key, ENTRY_KEYS, ENTRY_HELP));
      ok = false;
    } else if (got.has(key)) {
      rep.report("RW5002", `paragraph ${n}: key \`${key}\` given twice`, file, nodeSpan(p.key), "keep one of them");
      ok = false;
    } else got.set(key, p);
  }
  return ok ? got : undefined;
}

/** The trimmed text of entry key `key` (undefined: absent, or `true`/empty when not `required`; null: bad, reported). */
function entryText(ctx: ReadCtx, got: Map<string, YAML.Pair>, n: number, key: string, required: boolean): string | undefined | null {
  const p = got.get(key);
  if (!p) return undefined;
  const val = YAML.isScalar(p.value) ? p.value.value : undefined;
  if (typeof val === "string" && val.trim()) return val.trim();
  if (!required && (val === true || val === null)) return undefined;
  ctx.rep.report("RW5002", `paragraph ${n}: \`${key}\` needs ${required ? "a reason" : "a note (a string) or `true`"}`, ctx.file, ctx.nodeSpan(p.value ?? p.key), required ? `say why, e.g. \`${key}: "victory point scoring is not modelled"\`` : "e.g. `example: \"replayed in test/scenarios/…\"`");
  return null;
}

/** A mapping entry of paragraph `n`: exactly one kind, its note and its audit mark; undefined, reported, when it is bad. */
function readEntryMap(ctx: ReadCtx, v: YAML.YAMLMap, n: number, span: Span, vspan: Span): ParagraphEntry | undefined {
  const got = entryKeys(ctx, v, n);
  if (!got) return undefined;
  // `out_of_scope` beside `rules` is the reason for the rest of a partly encoded paragraph
  const partOutOfScope = got.has("rules") && got.has("out_of_scope");
  const simple = [...SIMPLE_KINDS, "out_of_scope"].filter((k) => got.has(k) && !(partOutOfScope && k === "out_of_scope"));
  const restriction = ["rules", "not_encoded"].filter((k) => got.has(k));
  if (simple.length + (restriction.length ? 1 : 0) !== 1) {
    // every kind key written, the out_of_scope beside rules included (it is part of the mistake)
    const keys = [...SIMPLE_KINDS, "out_of_scope", ...restriction].filter((k) => got.has(k)).map((k) => `\`${k}\``).join(", ") || "none";
    ctx.rep.report("RW5002", `paragraph ${n}: give exactly one kind (got ${keys})`, ctx.file, vspan, "`rules` and `not_encoded` may go together (a partly encoded paragraph), and `rules` with `out_of_scope` (the reason for the rest); the other kinds stand alone");
    return undefined;
  }
  const note = entryText(ctx, got, n, "note", false);
  if (note === null) return undefined;
  if (simple.length) {
    const kind = simple[0] as ParagraphKind;
    const reason = entryText(ctx, got, n, kind, kind === "out_of_scope");
    if (reason === null) return undefined;
    const both = [reason, note].filter((x): x is string => !!x).join("; ");
    // a bad mark is reported; the entry still counts (as not audited), so its rules are not orphans
    const audit = readAudit(ctx, got.get("audited"), n, kind === "example");
    return { n, kind, rules: [], span, ...(both ? { note: both } : {}), ...(audit ? { audited: audit } : {}) };
  }
  return readRestrictionEntry(ctx, got, n, span, note);
}

/** A mapping entry with `rules` and/or `not_encoded` (and maybe `out_of_scope` for the rest); undefined, reported, when it is bad. */
function readRestrictionEntry(ctx: ReadCtx, got: Map<string, YAML.Pair>, n: number, span: Span, note: string | undefined): ParagraphEntry | undefined {
  let rules: RuleRef[] = [];
  const rp = got.get("rules");
  if (rp) {
    if (!YAML.isSeq(rp.value)) {
      ctx.rep.report("RW5002", `paragraph ${n}: \`rules\` must be a list of rule ids`, ctx.file, ctx.nodeSpan(rp.value ?? rp.key), "e.g. `rules: [control.loc, assault.loc]`");
      return undefined;
    }
    const r = ruleList(ctx, rp.value, n);
    if (!r) return undefined;
    rules = r;
  }
  const missing = entryText(ctx, got, n, "not_encoded", true);
  if (missing === null) return undefined;
  const rest = entryText(ctx, got, n, "out_of_scope", true);
  if (rest === null) return undefined;
  const both = [missing, note].filter((x): x is string => !!x).join("; ");
  const audit = readAudit(ctx, got.get("audited"), n, rules.length > 0);
  return { n, kind: missing !== undefined ? "not_encoded" : "encoded", rules, span, ...(both ? { note: both } : {}), ...(rest !== undefined ? { outOfScope: rest } : {}), ...(audit ? { audited: audit } : {}) };
}

/**
 * The `audited` value of entry `n` (undefined: no mark; null: a bad mark, reported as RW5012).
 * @param needsScenarios a paragraph with rules, or an example: at least one scenario required
 */
function readAudit(ctx: ReadCtx, p: YAML.Pair | undefined, n: number, needsScenarios: boolean): AuditMark | undefined | null {
  if (!p) return undefined;
  const { rep, file, nodeSpan } = ctx;
  const span = nodeSpan(p.key);
  const v = p.value;
  if (!YAML.isMap(v)) {
    rep.report("RW5012", `paragraph ${n}: \`audited\` must be a mapping with \`compared\` and \`scenarios\``, file, nodeSpan(v ?? p.key), AUDIT_HELP);
    return null;
  }
  const got = new Map<string, YAML.Pair>();
  for (const q of v.items) {
    const key = YAML.isScalar(q.key) ? String(q.key.value) : "";
    if (!AUDIT_KEYS.includes(key)) {
      rep.report("RW5012", `paragraph ${n}: unknown key \`${key}\` in \`audited\``, file, nodeSpan(q.key), didYouMean(key, AUDIT_KEYS, AUDIT_HELP));
      return null;
    }
    if (got.has(key)) {
      rep.report("RW5012", `paragraph ${n}: key \`${key}\` given twice in \`audited\``, file, nodeSpan(q.key), "keep one of them");
      return null;
    }
    got.set(key, q);
  }
  const c = got.get("compared");
  const compared = c && YAML.isScalar(c.value) && typeof c.value.value === "string" ? c.value.value.trim() : "";
  if (!compared) {
    rep.report("RW5012", `paragraph ${n}: the audit mark needs \`compared\`: what the text requires and what the rules do`, file, nodeSpan(c?.value ?? c?.key ?? v), AUDIT_HELP);
    return null;
  }
  const sp = got.get("scenarios");
  const scenarios = sp ? scenarioRefs(ctx, sp, n) : [];
  if (scenarios === null) return null;
  if (needsScenarios && scenarios.length === 0) {
    rep.report("RW5012", `paragraph ${n}: the audit mark of a paragraph with rules or of an example names no scenario`, file, sp ? nodeSpan(sp.value ?? sp.key) : span, "name at least one scenario that pins the paragraph: `scenarios: [\"<file>#<scenario name>\"]`");
    return null;
  }
  return { compared, scenarios, span };
}

/** The `scenarios` list of an audit mark as `<file>#<name>` references (null: a bad list or reference, reported as RW5012). */
function scenarioRefs(ctx: ReadCtx, sp: YAML.Pair, n: number): ScenarioRef[] | null {
  const { rep, file, nodeSpan } = ctx;
  if (!YAML.isSeq(sp.value)) {
    rep.report("RW5012", `paragraph ${n}: \`scenarios\` must be a list of \`<file>#<scenario name>\` references`, file, nodeSpan(sp.value ?? sp.key), AUDIT_HELP);
    return null;
  }
  const scenarios: ScenarioRef[] = [];
  for (const it of sp.value.items) {
    const ref = YAML.isScalar(it) && typeof it.value === "string" ? it.value : "";
    const hash = ref.indexOf("#");
    const f = hash > 0 ? ref.slice(0, hash).trim() : "";
    const name = hash > 0 ? ref.slice(hash + 1).trim() : "";
    if (!f || !name) {
      rep.report("RW5012", `paragraph ${n}: \`${YAML.isScalar(it) ? String(it.value) : "?"}\` is not a scenario reference`, file, nodeSpan(it), "write `<scenario file>#<scenario name>`, e.g. `test/scenarios/his/war.yaml#france may not declare war on its ally`");
      return null;
    }
    scenarios.push({ file: f, name, span: nodeSpan(it) });
  }
  return scenarios;
}

/** A non-empty list of rule ids (undefined, reported, when it is empty or an item is not a rule id). */
function ruleList(ctx: ReadCtx, seq: YAML.YAMLSeq, n: number): RuleRef[] | undefined {
  const { rep, file, nodeSpan } = ctx;
  if (seq.items.length === 0) {
    rep.report("RW5002", `paragraph ${n}: empty rule list`, file, nodeSpan(seq), "name the rules that encode the paragraph, or use `not_encoded: <what is missing>`");
    return undefined;
  }
  const out: RuleRef[] = [];
  for (const it of seq.items) {
    const id = YAML.isScalar(it) && typeof it.value === "string" ? it.value : undefined;
    if (!id || !RULE_ID.test(id)) {
      rep.report("RW5002", `paragraph ${n}: \`${YAML.isScalar(it) ? String(it.value) : "?"}\` is not a rule id`, file, nodeSpan(it), "rule ids are dotted identifiers, e.g. `control.loc`");
      return undefined;
    }
    out.push({ id, span: nodeSpan(it) });
  }
  return out;
}
