/**
 * The rulebook report's data: one JSON document (`SiteData`) built from the same inputs and
 * outputs the CLI has — each edition's IR, its last prove report (`proofs/<edition>/report.json`
 * with the witness and counterexample state files it names), the coverage report
 * (`rulewright coverage --format json`), the scenario results (`rulewright test --format json`)
 * and the diff reports (`proofs/diff/<A>__<B>/report.json`), with the rule-level diff of every
 * two editions that share an action (compiler/report/rule-diff.ts, from the IR). Nothing is proved
 * or run here: a missing input is shown as missing. Pure but for reading the state files a report names.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { IREdition, IRRule } from "../ir/types.js";
import type { CoverageReport, CoverageTotal } from "../coverage/index.js";
import type { ObligationResult, ProofReport } from "../ir/proof-report.js";
import type { Scenario } from "../scenarios/index.js";
import { ruleDiff, type RuleDiff } from "./rule-diff.js";
import { lexicon, readExemption, readInvariant, readRoute, readRule, readTableRow, valueName, words } from "./english.js";
import { readPhrases } from "./phrases.js";
import { factGroups, type FactGroup } from "./facts.js";
import { analysisList, explainObligation, type AnalysisWords, type Explanation } from "../ir/explanations.js";
import type { Fact } from "../ir/proof-report.js";
import { readsOf, sectionOf } from "./view-helpers.js";
import { readManifests, sortSections } from "./sections.js";
import type { Manifest } from "../coverage/manifest.js";
import { manifestInfo } from "./sources.js";

export { readsOf };
export { reportInputProblems } from "./input-checks.js";

/** The scenario results as `rulewright test --format json` prints them. */
export interface TestResults {
  passed: number;
  failed: number;
  results: { file: string; line: number; name: string; edition: string; pass: boolean; detail: string }[];
}

/**
 * A diff report as `rulewright diff A B --format json` prints it (the fields the report shows).
 * `inputHash` (each edition's `IREdition.inputHash` when the diff ran) tells whether the diff is
 * of the rules as they are now; reports of an older rulewright have none.
 */
export interface DiffReport {
  editions: { a: { name: string; inputHash?: string }; b: { name: string; inputHash?: string } };
  /** the folder the report and its states were written to */
  outDir?: string;
  actions: { action: string; verdict: string; reason?: string; differences?: { aspect: string; stateFile: string; actionFile: string; action: Record<string, unknown>; verdictA: string; verdictB: string; facts: string[]; rulesA: { id: string }[]; rulesB: { id: string }[] }[] }[];
  notCompared?: { action: string; reason: string }[];
  bounds?: { listBound: number; rlimit?: number; timeoutMs: number; maxStates: number };
}


export interface EditionInput {
  ir: IREdition;
  /** the prove report and the file it was read from; absent when the edition was never proved */
  proof?: { report: ProofReport; file: string };
  /** scenarios of this edition (for "the scenarios that exercise a rule") */
  scenarios: Scenario[];
}

export interface ReportInputs {
  /** the project root: rule files and state files are read relative to it */
  root: string;
  editions: EditionInput[];
  coverage?: CoverageReport;
  tests?: TestResults;
  diffs: DiffReport[];
}

/** A state as drawn: per board space its controller, unrest, units and leaders; other fields as facts. */
export interface DrawnSpace {
  controller?: string;
  unrest?: boolean;
  units?: string;
  leaders?: string;
}

export interface Example {
  kind: "counterexample" | "witness" | "diff";
  /** key into SiteData.states (shared by identical states) */
  state: string | null;
  action: Record<string, unknown>;
  /** the action in words: "spring deploy: power France, origin Paris, destination Genoa" */
  actionText: string;
  /** facts the prover reported, as "path = value" */
  facts: string[];
  /**
   * board space ids to highlight: the action's Space parameters and the spaces the facts are
   * about by their type (a Space-keyed map's key, a Space value), never a power or other value
   * spelled like a space (`state.alliances[8].a = genoa` names Genoa the power)
   */
  highlight: string[];
  /**
   * the facts the finding depends on (those the rules of its core — for a stuck power, the rules
   * that block its moves; for a witness, its subject — read; all facts when they read none),
   * grouped by what they are about, in words, each with the space it is about (`space`, only
   * when space-typed) and the rules that read it (issue 25)
   */
  factGroups: FactGroup[];
  /** file the state was read from (relative to the root) */
  file?: string;
  source?: string;
}

export interface ObligationView {
  id: string;
  kind: string;
  severity: string;
  verdict: string;
  action: string;
  rules: string[];
  subjects: string[];
  core: string[];
  reason?: string;
  vacuous?: boolean;
  example?: Example;
  /** a stuck_power counterexample: the power left without a move, and what forbids each action (`text`: the move and why, in words) */
  stuck?: { actor: string; decline: string | null; blocked: { action: string; rules: string[]; everyChoice: boolean; text: string }[] };
  /** the verdict explained (compiler/ir/explanations.ts): what the analysis asks, what this verdict means, the finding, the core as data, the replay command */
  explanation: Explanation;
}

export interface RuleView {
  id: string;
  what: "rule" | "exemption" | "invariant" | "route" | "table";
  kind?: string;
  action?: string;
  title: string;
  citation: string;
  /** the section it is grouped under ("§9.6", "Action Phase") */
  section: string;
  file: string;
  line: number;
  source: string;
  english: string;
  /** state fields the condition reads: "hands", "spaces.land_units" */
  reads: string[];
  params: string[];
  scenarios: { name: string; file: string; line: number; pass: boolean | null; expect: string }[];
  obligations: string[];
  related: string[];
  provenance?: string;
}

export interface EditionView {
  folder: string;
  name: string;
  title: string;
  parent?: string;
  actions: { name: string; params: string; rules: number }[];
  counts: { rules: number; exemptions: number; invariants: number; routes: number; tables: number; removed: number };
  proofs: null | { file: string; stale: boolean; proved: number; refuted: number; unknown: number; byKind: { kind: string; proved: number; refuted: number; unknown: number }[] };
  /** the edition's encoded and audited shares (compiler/coverage/README.md), and per source file */
  coverage: null | (CoverageTotal & {
    files: { source: string; title?: string | null; encoded: number; restriction: number; percent: number | null; outOfScope: number; procedure: number; notEncoded: number; auditable: number; audited: number }[];
  });
  scenarios: { passed: number; failed: number };
  sections: { section: string; ids: string[] }[];
  rules: RuleView[];
  obligations: ObligationView[];
  /** board spaces (id, name, type, home) and connections, for drawing; whether the HIS layout places them */
  board: { spaces: { id: string; name: string; type: string; home: string[] }[]; connections: [string, string, string][]; onMap: number };
}

/**
 * Two editions compared: the rule-level diff of their IR (always, when both are in the report and
 * share an action) and the verdict diff `rulewright diff` proved (when its report exists).
 */
export interface DiffView {
  /** edition folders (A → B: B extends A when one extends the other) */
  a: string;
  b: string;
  /** from the IR: which rules differ per shared action; null when an edition is not in the report */
  rules: RuleDiff | null;
  /** from `proofs/diff/<A>__<B>/report.json`; null when `rulewright diff A B` has not been run */
  proved: null | {
    /** the report file, relative to the root */
    file: string | null;
    /** true: made from the rules as they are; false: a rule file changed since; null: the report does not say (older rulewright) */
    current: boolean | null;
    maxStates: number | null;
    actions: { action: string; verdict: string; reason?: string; examples: Example[] }[];
    notCompared: { action: string; reason: string }[];
  };
}

export interface SiteData {
  editions: EditionView[];
  /** every analysis: what it asks and what proved/refuted mean (the "analyses" page) */
  analyses: AnalysisWords[];
  diffs: DiffView[];
  /** compact states by key: top-level fields but `spaces`, and `spaces` as DrawnSpace per id */
  states: Record<string, { fields: Record<string, unknown>; spaces: Record<string, DrawnSpace> }>;
}

/** Builds the report's data. Errors: a state file a report names that cannot be read is shown as missing (state null). */
export function buildSiteData(inp: ReportInputs, layout: { positions: Record<string, [number, number]> }): SiteData {
  const b: Build = { inp, layout, states: {}, cache: new Map(), sourceCache: new Map() };
  const editions = inp.editions.map((e) => editionView(b, e));
  return { editions, analyses: analysisList(), diffs: diffViews(b), states: b.states };
}

/** What one build of the site data shares: its inputs, the states stored so far and the per-edition and per-file caches. */
interface Build {
  inp: ReportInputs;
  layout: { positions: Record<string, [number, number]> };
  states: SiteData["states"];
  cache: Map<IREdition, { lex: ReturnType<typeof lexicon>; spaceIds: Set<string> }>;
  sourceCache: Map<string, string[]>;
  /** the coverage manifests, read once when the sections are first ordered */
  manifests?: Manifest[];
}

/** The lines of a rule file (relative to the root), read once; none when it cannot be read. */
function sourceLines(b: Build, file: string): string[] {
  let lines = b.sourceCache.get(file);
  if (!lines) {
    try {
      lines = fs.readFileSync(path.join(b.inp.root, file), "utf8").split(/\r?\n/);
    } catch {
      lines = [];
    }
    b.sourceCache.set(file, lines);
  }
  return lines;
}

/**
 * Every pair of the report's editions that share an action (the parent first when one extends
 * the other), with its rule-level diff, then the proved diff of the same pair when there is one;
 * a proved diff of a pair not in the report (a fixture) is listed on its own.
 */
function diffViews(b: Build): DiffView[] {
  const irOf = (name: string) => b.inp.editions.find((e) => (e.ir.folder ?? e.ir.name) === name)?.ir;
  const views: DiffView[] = [];
  const eds = b.inp.editions.map((e) => e.ir);
  for (const [i, x] of eds.entries()) {
    for (const y of eds.slice(i + 1)) {
      const [a, c] = x.parent === (y.folder ?? y.name) ? [y, x] : [x, y];
      const rules = ruleDiff(a, c);
      if (rules) views.push({ a: rules.a, b: rules.b, rules, proved: null });
    }
  }
  for (const d of b.inp.diffs) {
    const [na, nb] = [d.editions.a.name, d.editions.b.name];
    const ia = irOf(na);
    const ib = irOf(nb);
    const proved = provedDiffView(b, d, ia, ib);
    const view = views.find((v) => v.a === na && v.b === nb && !v.proved);
    if (view) view.proved = proved;
    else views.push({ a: na, b: nb, rules: ia && ib ? ruleDiff(ia, ib) : null, proved });
  }
  return views;
}

/** A proved diff report as the page shows it: current or stale by the editions' inputs hash, each difference as an example. */
function provedDiffView(b: Build, d: DiffReport, ia: IREdition | undefined, ib: IREdition | undefined): NonNullable<DiffView["proved"]> {
  const [na, nb] = [d.editions.a.name, d.editions.b.name];
  const hashes = [d.editions.a.inputHash, d.editions.b.inputHash];
  const current = !ia || !ib || !hashes[0] || !hashes[1] ? null : hashes[0] === ia.inputHash && hashes[1] === ib.inputHash;
  const ir = ia ?? b.inp.editions[0]?.ir;
  return {
    file: d.outDir ? path.join(d.outDir, "report.json") : null,
    current,
    maxStates: d.bounds?.maxStates ?? null,
    actions: d.actions.map((a) => ({
      action: a.action,
      verdict: a.verdict,
      reason: a.reason,
      examples: ir ? (a.differences ?? []).map((x) => exampleOf(b, "diff", ir, { action: x.action }, x.stateFile, x.facts.map(parseFactLine), [...x.rulesA, ...x.rulesB].map((r) => r.id), `${na}: ${x.verdictA}; ${nb}: ${x.verdictB} (${x.aspect})`)) : [],
    })),
    notCompared: d.notCompared ?? [],
  };
}

/** How a rule links to the obligations: the obligations per rule id, and the rules that share one with it. */
interface RuleLinks {
  byRule: Map<string, string[]>;
  related: (id: string) => string[];
}

/** The obligations that name each rule (as subject, in its core, or among at most two rules), and each rule's related rules. */
function ruleLinks(obligations: ObligationView[]): RuleLinks {
  const byRule = new Map<string, string[]>();
  for (const o of obligations) for (const id of new Set([...o.rules.filter((r) => o.subjects.includes(r) || o.rules.length <= 2), ...o.subjects, ...o.core])) byRule.set(id, [...(byRule.get(id) ?? []), o.id]);
  const related = (id: string) => {
    const out = new Set<string>();
    for (const oid of byRule.get(id) ?? []) {
      const o = obligations.find((x) => x.id === oid)!;
      for (const r of [...o.subjects, ...o.core]) if (r !== id && !r.startsWith("inv:")) out.add(r);
    }
    return [...out].sort();
  };
  return { byRule, related };
}

/** The scenarios that expect a rule to forbid or oblige, with their last result (null when not run). */
function scenariosFor(b: Build, e: EditionInput, rule: IRRule): RuleView["scenarios"] {
  return e.scenarios
    .filter((s) => s.expect !== "allowed" && ("forbidden" in s.expect ? s.expect.forbidden : s.expect.obliged).includes(rule.id))
    .map((s) => {
      const res = b.inp.tests?.results.find((r) => r.file === s.file && r.line === s.line);
      const exp = s.expect === "allowed" ? "allowed" : "forbidden" in s.expect ? `forbidden by ${s.expect.forbidden.join(", ")}` : `obliged by ${s.expect.obliged.join(", ")}`;
      return { name: s.name, file: s.file, line: s.line, pass: res ? res.pass : null, expect: exp };
    });
}

/** The source of a declaration: its first line and the indented or comment lines after it (at most 25), trailing blanks dropped. */
function sourceAt(b: Build, file: string, line: number): string {
  const lines = sourceLines(b, file);
  const out: string[] = [];
  for (let i = line - 1; i < lines.length && i < line + 24; i++) {
    if (i > line - 1 && /^\S/.test(lines[i]) && !/^\s*\/\//.test(lines[i])) break;
    out.push(lines[i]);
  }
  while (out.length && out[out.length - 1].trim() === "") out.pop();
  return out.join("\n");
}

/** The views of an edition's rules and exemptions. */
function ruleAndExemptionViews(b: Build, e: EditionInput, links: RuleLinks, lex: ReturnType<typeof lexicon>): RuleView[] {
  const ir = e.ir;
  return [
    ...ir.rules.map((r): RuleView => ({
      id: r.id,
      what: "rule",
      kind: r.kind,
      action: r.action,
      title: r.title,
      citation: r.citation.text,
      section: sectionOf(r.citation),
      file: r.pos.file,
      line: r.pos.line,
      source: sourceAt(b, r.pos.file, r.pos.line),
      english: readRule(r, ir, lex),
      reads: readsOf(r.when),
      params: (ir.actions.find((a) => a.name === r.action)?.params ?? []).map((p) => p.name),
      scenarios: scenariosFor(b, e, r),
      obligations: links.byRule.get(r.id) ?? [],
      related: links.related(r.id),
      provenance: r.provenance ? `${r.provenance.change} by ${r.provenance.edition}${r.provenance.module ? ` (module ${r.provenance.module})` : ""}` : undefined,
    })),
    ...ir.exemptions.map((x): RuleView => ({
      id: x.id,
      what: "exemption",
      title: x.title,
      citation: x.citation.text,
      section: sectionOf(x.citation),
      file: x.pos.file,
      line: x.pos.line,
      source: sourceAt(b, x.pos.file, x.pos.line),
      english: readExemption(x, ir, lex),
      reads: readsOf(x.when),
      params: [],
      scenarios: [],
      obligations: links.byRule.get(x.id) ?? [],
      related: [...new Set([...x.rules, ...ir.rules.filter((r) => r.groups.some((g) => x.groups.includes(g))).map((r) => r.id)])].sort(),
    })),
  ];
}

/** The views of an edition's invariants, routes and tables. */
function invariantRouteTableViews(b: Build, ir: IREdition, links: RuleLinks, lex: ReturnType<typeof lexicon>): RuleView[] {
  const at = (pos: { file: string; line: number }) => ({ file: pos.file, line: pos.line, source: sourceAt(b, pos.file, pos.line) });
  return [
    ...ir.invariants.map((v): RuleView => ({
      id: v.id,
      what: "invariant",
      title: v.title,
      citation: "",
      section: "Invariants of a legal state",
      ...at(v.pos),
      english: readInvariant(v, ir, lex),
      reads: readsOf(v.expr),
      params: [],
      scenarios: [],
      obligations: links.byRule.get(`inv:${v.id}`) ?? links.byRule.get(v.id) ?? [],
      related: [],
    })),
    ...ir.routes.map((rt): RuleView => ({
      id: `route.${rt.name}`,
      what: "route",
      title: `the ${words(rt.name)} route`,
      citation: "",
      section: "Routes over the board",
      ...at(rt.pos),
      english: readRoute(rt, ir, lex),
      reads: [...new Set([rt.land, rt.sea, rt.port, rt.passes, ...(rt.maxSeas ? [rt.maxSeas] : []), ...(rt.maxSteps ? [rt.maxSteps] : [])].flatMap(readsOf))].sort(),
      params: rt.params.map((p) => p.name),
      scenarios: [],
      obligations: [],
      related: [],
    })),
    ...(ir.tables ?? []).map((t): RuleView => ({
      id: t.name,
      what: "table",
      title: t.title,
      citation: t.citation.text,
      section: sectionOf(t.citation),
      ...at(t.pos),
      english: `The ${words(t.name)} table, by ${t.keyLabels.map(words).join(", ")}: ` + t.rows.map((row) => readTableRow(t, row, ir, lex)).join("; ") + ".",
      reads: [],
      params: t.params.map((p) => p.name),
      scenarios: [],
      obligations: links.byRule.get(t.name) ?? [],
      related: [],
    })),
  ];
}

/** An edition's proof summary: stale or not, and the verdict counts in all and per obligation kind; null when never proved. */
function proofSummary(e: EditionInput): EditionView["proofs"] {
  const rep = e.proof?.report;
  if (!rep) return null;
  const count = (obs: ObligationResult[], v: string) => obs.filter((o) => o.verdict === v).length;
  const kinds = [...new Set(rep.obligations.map((o) => o.kind))].sort();
  return {
    file: e.proof!.file,
    stale: rep.inputHash !== e.ir.inputHash,
    proved: count(rep.obligations, "proved"),
    refuted: count(rep.obligations, "refuted"),
    unknown: count(rep.obligations, "unknown"),
    byKind: kinds.map((k) => {
      const obs = rep.obligations.filter((o) => o.kind === k);
      return { kind: k, proved: count(obs, "proved"), refuted: count(obs, "refuted"), unknown: count(obs, "unknown") };
    }),
  };
}

/** An edition's coverage as the page shows it (the totals, and per source file its counts); null when not in the coverage report. */
function coverageView(b: Build, folder: string): EditionView["coverage"] {
  const cov = b.inp.coverage?.editions.find((c) => c.edition === folder);
  if (!cov) return null;
  return {
    encoded: cov.encoded,
    restriction: cov.restriction,
    percent: cov.percent,
    auditable: cov.auditable,
    audited: cov.audited,
    auditedPercent: cov.auditedPercent,
    files: cov.files.map((f) => ({ source: f.source, title: manifestInfo(b.inp.root, f.manifest).title, encoded: f.encoded, restriction: f.restriction, percent: f.percent, outOfScope: f.counts.out_of_scope, procedure: f.counts.procedure, notEncoded: f.counts.not_encoded, auditable: f.auditable, audited: f.audited })),
  };
}

/** One edition's page data: its actions, counts, proof summary, coverage, scenario results, sections, rules, obligations and board. */
function editionView(b: Build, e: EditionInput): EditionView {
  const ir = e.ir;
  const folder = ir.folder ?? ir.name;
  const { lex } = perEdition(b, ir);
  const obligations = (e.proof?.report.obligations ?? []).map((o) => obligationView(b, ir, o));
  const links = ruleLinks(obligations);
  const rules: RuleView[] = [...ruleAndExemptionViews(b, e, links, lex), ...invariantRouteTableViews(b, ir, links, lex)];
  const sections = new Map<string, string[]>();
  for (const r of rules) sections.set(r.section, [...(sections.get(r.section) ?? []), r.id]);
  const mine = (b.inp.tests?.results ?? []).filter((r) => r.edition === folder || r.edition.endsWith(`/${folder}`));
  return {
    folder,
    name: ir.name,
    title: ir.title,
    parent: ir.parent,
    actions: ir.actions.map((a) => ({ name: a.name, params: a.params.map((p) => `${p.actor ? "actor " : ""}${p.name}`).join(", "), rules: ir.rules.filter((r) => r.action === a.name).length })),
    counts: { rules: ir.rules.length, exemptions: ir.exemptions.length, invariants: ir.invariants.length, routes: ir.routes.length, tables: (ir.tables ?? []).length, removed: (ir.removed ?? []).length },
    proofs: proofSummary(e),
    coverage: coverageView(b, folder),
    scenarios: { passed: mine.filter((r) => r.pass).length, failed: mine.filter((r) => !r.pass).length },
    sections: sortSections((b.manifests ??= readManifests(b.inp.root)), ir, sections),
    rules,
    obligations,
    board: {
      spaces: ir.board.spaces.map((s) => ({ id: s.id, name: s.name, type: s.type, home: s.home })),
      connections: ir.board.connections.filter((c) => c.from < c.to).map((c) => [c.from, c.to, c.type] as [string, string, string]),
      onMap: ir.board.spaces.filter((s) => b.layout.positions[s.id]).length,
    },
  };
}

/** An obligation's result as the page shows it, with its witness or counterexample as an example and its explanation. */
function obligationView(b: Build, ir: IREdition, o: ObligationResult & { witness?: { stateFile?: string }; counterexample?: { stateFile?: string; actionFile?: string } }): ObligationView {
  const ex = o.counterexample ?? o.witness;
  const kind = o.counterexample ? "counterexample" : "witness";
  // the rules whose reads decide which facts matter: the core, the rules blocking a stuck power's moves, else the obligation's own
  const readers = [...new Set([...(o.core ?? []), ...(o.stuck?.blocked.flatMap((x) => x.rules) ?? []), ...(o.stuck?.obliged ?? []), ...(o.core?.length ? [] : [...o.subjects, ...o.rules])])];
  return {
    id: o.id,
    kind: o.kind,
    severity: o.severity,
    verdict: o.verdict,
    action: o.action,
    rules: o.rules,
    subjects: o.subjects,
    core: o.core ?? [],
    reason: o.reason,
    vacuous: o.vacuous,
    example: ex ? exampleOf(b, kind, ir, ex, (ex as { stateFile?: string }).stateFile, ex.facts ?? [], readers, ex.source ?? (ex.replayable === false && ex.reason ? `not replayable: ${ex.reason}` : undefined)) : undefined,
    stuck: o.stuck ? { actor: o.stuck.actor, decline: o.stuck.decline, blocked: o.stuck.blocked.map((x) => ({ action: x.action, rules: x.rules, everyChoice: x.everyChoice, text: blockedText(perEdition(b, ir).lex, x) })) } : undefined,
    explanation: explainObligation(o, ir),
  };
}

/** "play card: forbidden by cards.home_card", "spend CP: every choice forbidden, each by another rule". */
function blockedText(lex: ReturnType<typeof lexicon>, x: { action: string; rules: string[]; everyChoice: boolean }): string {
  const name = lex.phrases.actions[x.action] ?? words(x.action);
  if (x.rules.length) return `${name}: ${x.everyChoice ? "every choice forbidden, by" : "forbidden by"} ${x.rules.join(", ")}`;
  return `${name}: ${x.everyChoice ? "every choice of its parameters forbidden (no one rule forbids them all)" : "forbidden (the prover named no rule)"}`;
}

/** A diff report's fact line (`state.x = value`) as a fact; the value JSON when it parses, else the text. */
function parseFactLine(line: string): Fact {
  const i = line.indexOf(" = ");
  if (i < 0) return { path: line, value: "" };
  const text = line.slice(i + 3);
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    value = text;
  }
  return { path: line.slice(0, i).replace(/^count\((.*)\)$/, "$1#len"), value };
}

/** An edition's lexicon (with its phrases) and board space ids, made once per build. */
function perEdition(b: Build, ir: IREdition): { lex: ReturnType<typeof lexicon>; spaceIds: Set<string> } {
  let c = b.cache.get(ir);
  if (!c) b.cache.set(ir, (c = { lex: lexicon(ir, readPhrases(ir, b.inp.root)), spaceIds: new Set(ir.board.spaces.map((s) => s.id)) }));
  return c;
}

/**
 * An example as drawn: its state stored once by content hash (null when unreadable), the action in
 * words, its facts grouped and read (facts.ts), the spaces to ring (the action's Space parameters
 * and the space-typed facts').
 */
function exampleOf(b: Build, kind: Example["kind"], ir: IREdition, ex: { action: Record<string, unknown>; state?: Record<string, unknown> }, stateFile: string | undefined, facts: Fact[], readers: string[], source?: string): Example {
  let key: string | null = null;
  if (stateFile) {
    try {
      const state = JSON.parse(fs.readFileSync(path.join(b.inp.root, stateFile), "utf8")) as Record<string, unknown>;
      const c = compactState(state);
      key = crypto.createHash("sha256").update(JSON.stringify(c)).digest("hex").slice(0, 16);
      b.states[key] = c;
    } catch {
      key = null;
    }
  }
  const { lex, spaceIds } = perEdition(b, ir);
  const act = ex.action;
  const action = ir.actions.find((a) => a.name === act.action);
  const highlight = new Set<string>();
  for (const p of action?.params ?? []) {
    const v = act[p.name];
    if (p.type.k === "enum" && p.type.base === "Space" && typeof v === "string" && spaceIds.has(v)) highlight.add(v);
  }
  const groups = factGroups(ir, lex, facts, readers, action?.name);
  for (const g of groups) for (const f of g.facts) if (f.space) highlight.add(f.space);
  const params = Object.entries(act).filter(([k]) => k !== "action").map(([k, v]) => `${words(k)} ${typeof v === "string" ? valueName(lex, v) : JSON.stringify(v)}`);
  const factLines = facts.map((f) => `${f.path} = ${typeof f.value === "string" ? f.value : JSON.stringify(f.value)}`);
  return { kind, state: key, action: act, actionText: `${words(String(act.action ?? "?"))}${params.length ? `: ${params.join(", ")}` : ""}`, facts: factLines, highlight: [...highlight].sort(), factGroups: groups, file: stateFile, source };
}

/** A state in the report's compact form: each board space as a DrawnSpace, the other fields as they are. */
export function compactState(state: Record<string, unknown>): SiteData["states"][string] {
  const { spaces, ...fields } = state;
  const drawn: Record<string, DrawnSpace> = {};
  if (spaces && typeof spaces === "object") {
    for (const [id, raw] of Object.entries(spaces as Record<string, Record<string, unknown>>)) {
      if (!raw || typeof raw !== "object") continue;
      const d: DrawnSpace = {};
      if (typeof raw.controller === "string") d.controller = raw.controller;
      if (raw.unrest === true) d.unrest = true;
      const units = [raw.land_units, raw.naval_units].flatMap((u, i) =>
        u && typeof u === "object" ? Object.entries(u as Record<string, number>).filter(([, n]) => typeof n === "number" && n > 0).map(([p, n]) => `${p} ${n}${i ? " naval" : ""}`) : [],
      );
      if (units.length) d.units = units.join(", ");
      if (Array.isArray(raw.leaders) && raw.leaders.length) d.leaders = raw.leaders.map((l) => (l && typeof l === "object" ? String((l as Record<string, unknown>).name ?? "?") : String(l))).join(", ");
      drawn[id] = d;
    }
  }
  return { fields, spaces: drawn };
}
