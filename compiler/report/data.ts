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
import type { Expr, IREdition, IRRule } from "../ir/types.js";
import { children } from "../ir/walk.js";
import type { CoverageReport, CoverageTotal } from "../coverage/index.js";
import type { ObligationResult, ProofReport } from "../ir/proof-report.js";
import type { Scenario } from "../scenarios/index.js";
import { ruleDiff, type RuleDiff } from "./rule-diff.js";
import { lexicon, readExemption, readInvariant, readRoute, readRule, readTableRow, valueName, words } from "./english.js";

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

/**
 * What is wrong with a `--coverage` (`kind` "coverage") or `--tests` ("tests") file before the
 * report reads it: each number the report shows must be a finite number (or null where a share
 * may be missing), each text a string, each flag a boolean — a file is input from anyone, and a
 * "number" that is markup must never reach the page (issue 29). Returns up to 5 problems, each
 * `<path>: <what> (got <value>)`; empty when the file has the shape the report reads.
 */
export function reportInputProblems(kind: "coverage" | "tests", v: unknown): string[] {
  const problems: string[] = [];
  const show = (x: unknown) => {
    const t = JSON.stringify(x) ?? String(x);
    return t.length > 40 ? t.slice(0, 40) + "…" : t;
  };
  const need = (ok: boolean, where: string, what: string, got: unknown) => {
    if (!ok && problems.length < 5) problems.push(`${where}: ${what} (got ${show(got)})`);
  };
  const obj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  const list = (o: Record<string, unknown>, k: string, where: string): unknown[] => {
    need(Array.isArray(o[k]), `${where}${k}`, "must be a list", o[k]);
    return Array.isArray(o[k]) ? (o[k] as unknown[]) : [];
  };
  const nums = (o: Record<string, unknown>, where: string, keys: string[], nullable: string[] = []) => {
    for (const k of keys) need(typeof o[k] === "number" && Number.isFinite(o[k]), `${where}${k}`, "must be a number", o[k]);
    for (const k of nullable) need(o[k] === null || o[k] === undefined || (typeof o[k] === "number" && Number.isFinite(o[k])), `${where}${k}`, "must be a number or null", o[k]);
  };
  const strs = (o: Record<string, unknown>, where: string, keys: string[]) => {
    for (const k of keys) need(typeof o[k] === "string", `${where}${k}`, "must be a string", o[k]);
  };
  if (!obj(v)) return [`the file must hold a JSON object (got ${show(v)})`];
  if (kind === "tests") {
    nums(v, "", ["passed", "failed"]);
    list(v, "results", "").forEach((r, i) => {
      const w = `results[${i}].`;
      if (!obj(r)) return need(false, `results[${i}]`, "must be an object", r);
      strs(r, w, ["file", "name", "edition", "detail"]);
      nums(r, w, ["line"]);
      need(typeof r.pass === "boolean", `${w}pass`, "must be true or false", r.pass);
    });
    return problems;
  }
  list(v, "editions", "").forEach((e, i) => {
    const w = `editions[${i}].`;
    if (!obj(e)) return need(false, `editions[${i}]`, "must be an object", e);
    strs(e, w, ["edition"]);
    nums(e, w, ["encoded", "restriction", "auditable", "audited"], ["percent", "auditedPercent"]);
    list(e, "files", w).forEach((f, j) => {
      const wf = `${w}files[${j}].`;
      if (!obj(f)) return need(false, `${w}files[${j}]`, "must be an object", f);
      strs(f, wf, ["source"]);
      nums(f, wf, ["encoded", "restriction", "auditable", "audited"], ["percent"]);
      if (!obj(f.counts)) return need(false, `${wf}counts`, "must be an object", f.counts);
      nums(f.counts, `${wf}counts.`, ["out_of_scope", "procedure", "not_encoded"]);
    });
  });
  return problems;
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
  /** board space ids to highlight: the action's spaces and those the facts name */
  highlight: string[];
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
  /** a stuck_power counterexample: the power left without a move, and what forbids each action */
  stuck?: { actor: string; decline: string | null; blocked: { action: string; rules: string[] }[] };
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
    files: { source: string; encoded: number; restriction: number; percent: number | null; outOfScope: number; procedure: number; notEncoded: number; auditable: number; audited: number }[];
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
  diffs: DiffView[];
  /** compact states by key: top-level fields but `spaces`, and `spaces` as DrawnSpace per id */
  states: Record<string, { fields: Record<string, unknown>; spaces: Record<string, DrawnSpace> }>;
}

/** Builds the report's data. Errors: a state file a report names that cannot be read is shown as missing (state null). */
export function buildSiteData(inp: ReportInputs, layout: { positions: Record<string, [number, number]> }): SiteData {
  const states: SiteData["states"] = {};
  const cache = new Map<IREdition, { lex: ReturnType<typeof lexicon>; spaceIds: Set<string> }>();
  const sourceCache = new Map<string, string[]>();
  const sourceLines = (file: string): string[] => {
    let lines = sourceCache.get(file);
    if (!lines) {
      try {
        lines = fs.readFileSync(path.join(inp.root, file), "utf8").split(/\r?\n/);
      } catch {
        lines = [];
      }
      sourceCache.set(file, lines);
    }
    return lines;
  };
  const editions = inp.editions.map((e) => editionView(e));
  return { editions, diffs: diffViews(), states };

  /**
   * Every pair of the report's editions that share an action (the parent first when one extends
   * the other), with its rule-level diff, then the proved diff of the same pair when there is one;
   * a proved diff of a pair not in the report (a fixture) is listed on its own.
   */
  function diffViews(): DiffView[] {
    const irOf = (name: string) => inp.editions.find((e) => (e.ir.folder ?? e.ir.name) === name)?.ir;
    const views: DiffView[] = [];
    const eds = inp.editions.map((e) => e.ir);
    for (const [i, x] of eds.entries()) {
      for (const y of eds.slice(i + 1)) {
        const [a, b] = x.parent === (y.folder ?? y.name) ? [y, x] : [x, y];
        const rules = ruleDiff(a, b);
        if (rules) views.push({ a: rules.a, b: rules.b, rules, proved: null });
      }
    }
    for (const d of inp.diffs) {
      const [na, nb] = [d.editions.a.name, d.editions.b.name];
      const ia = irOf(na);
      const ib = irOf(nb);
      const hashes = [d.editions.a.inputHash, d.editions.b.inputHash];
      const current = !ia || !ib || !hashes[0] || !hashes[1] ? null : hashes[0] === ia.inputHash && hashes[1] === ib.inputHash;
      const ir = ia ?? inp.editions[0]?.ir;
      const proved: NonNullable<DiffView["proved"]> = {
        file: d.outDir ? path.join(d.outDir, "report.json") : null,
        current,
        maxStates: d.bounds?.maxStates ?? null,
        actions: d.actions.map((a) => ({
          action: a.action,
          verdict: a.verdict,
          reason: a.reason,
          examples: ir ? (a.differences ?? []).map((x) => exampleOf("diff", ir, { action: x.action }, x.stateFile, x.facts, `${na}: ${x.verdictA}; ${nb}: ${x.verdictB} (${x.aspect})`)) : [],
        })),
        notCompared: d.notCompared ?? [],
      };
      const view = views.find((v) => v.a === na && v.b === nb && !v.proved);
      if (view) view.proved = proved;
      else views.push({ a: na, b: nb, rules: ia && ib ? ruleDiff(ia, ib) : null, proved });
    }
    return views;
  }

  function editionView(e: EditionInput): EditionView {
    const ir = e.ir;
    const folder = ir.folder ?? ir.name;
    const lex = lexicon(ir);
    const obligations = (e.proof?.report.obligations ?? []).map((o) => obligationView(ir, o));
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
    const scenariosFor = (rule: IRRule) =>
      e.scenarios
        .filter((s) => s.expect !== "allowed" && ("forbidden" in s.expect ? s.expect.forbidden : s.expect.obliged).includes(rule.id))
        .map((s) => {
          const res = inp.tests?.results.find((r) => r.file === s.file && r.line === s.line);
          const exp = s.expect === "allowed" ? "allowed" : "forbidden" in s.expect ? `forbidden by ${s.expect.forbidden.join(", ")}` : `obliged by ${s.expect.obliged.join(", ")}`;
          return { name: s.name, file: s.file, line: s.line, pass: res ? res.pass : null, expect: exp };
        });
    const src = (file: string, line: number) => {
      const lines = sourceLines(file);
      const out: string[] = [];
      for (let i = line - 1; i < lines.length && i < line + 24; i++) {
        if (i > line - 1 && /^\S/.test(lines[i]) && !/^\s*\/\//.test(lines[i])) break;
        out.push(lines[i]);
      }
      while (out.length && out[out.length - 1].trim() === "") out.pop();
      return out.join("\n");
    };
    const rules: RuleView[] = [
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
        source: src(r.pos.file, r.pos.line),
        english: readRule(r, ir, lex),
        reads: readsOf(r.when),
        params: (ir.actions.find((a) => a.name === r.action)?.params ?? []).map((p) => p.name),
        scenarios: scenariosFor(r),
        obligations: byRule.get(r.id) ?? [],
        related: related(r.id),
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
        source: src(x.pos.file, x.pos.line),
        english: readExemption(x, ir, lex),
        reads: readsOf(x.when),
        params: [],
        scenarios: [],
        obligations: byRule.get(x.id) ?? [],
        related: [...new Set([...x.rules, ...ir.rules.filter((r) => r.groups.some((g) => x.groups.includes(g))).map((r) => r.id)])].sort(),
      })),
      ...ir.invariants.map((v): RuleView => ({
        id: v.id,
        what: "invariant",
        title: v.title,
        citation: "",
        section: "Invariants of a legal state",
        file: v.pos.file,
        line: v.pos.line,
        source: src(v.pos.file, v.pos.line),
        english: readInvariant(v, ir, lex),
        reads: readsOf(v.expr),
        params: [],
        scenarios: [],
        obligations: byRule.get(`inv:${v.id}`) ?? byRule.get(v.id) ?? [],
        related: [],
      })),
      ...ir.routes.map((rt): RuleView => ({
        id: `route.${rt.name}`,
        what: "route",
        title: `the ${words(rt.name)} route`,
        citation: "",
        section: "Routes over the board",
        file: rt.pos.file,
        line: rt.pos.line,
        source: src(rt.pos.file, rt.pos.line),
        english: readRoute(rt, ir, lex),
        reads: [...new Set([rt.land, rt.sea, rt.port, rt.passes, ...(rt.maxSeas ? [rt.maxSeas] : [])].flatMap(readsOf))].sort(),
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
        file: t.pos.file,
        line: t.pos.line,
        source: src(t.pos.file, t.pos.line),
        english: `The ${words(t.name)} table, by ${t.keyLabels.map(words).join(", ")}: ` + t.rows.map((row) => readTableRow(t, row, ir, lex)).join("; ") + ".",
        reads: [],
        params: t.params.map((p) => p.name),
        scenarios: [],
        obligations: byRule.get(t.name) ?? [],
        related: [],
      })),
    ];
    const sections = new Map<string, string[]>();
    for (const r of rules) sections.set(r.section, [...(sections.get(r.section) ?? []), r.id]);
    const rep = e.proof?.report;
    const count = (obs: ObligationResult[], v: string) => obs.filter((o) => o.verdict === v).length;
    const kinds = [...new Set((rep?.obligations ?? []).map((o) => o.kind))].sort();
    const cov = inp.coverage?.editions.find((c) => c.edition === folder);
    const mine = (inp.tests?.results ?? []).filter((r) => r.edition === folder || r.edition.endsWith(`/${folder}`));
    return {
      folder,
      name: ir.name,
      title: ir.title,
      parent: ir.parent,
      actions: ir.actions.map((a) => ({ name: a.name, params: a.params.map((p) => `${p.actor ? "actor " : ""}${p.name}`).join(", "), rules: ir.rules.filter((r) => r.action === a.name).length })),
      counts: { rules: ir.rules.length, exemptions: ir.exemptions.length, invariants: ir.invariants.length, routes: ir.routes.length, tables: (ir.tables ?? []).length, removed: (ir.removed ?? []).length },
      proofs: rep
        ? {
            file: e.proof!.file,
            stale: rep.inputHash !== ir.inputHash,
            proved: count(rep.obligations, "proved"),
            refuted: count(rep.obligations, "refuted"),
            unknown: count(rep.obligations, "unknown"),
            byKind: kinds.map((k) => {
              const obs = rep.obligations.filter((o) => o.kind === k);
              return { kind: k, proved: count(obs, "proved"), refuted: count(obs, "refuted"), unknown: count(obs, "unknown") };
            }),
          }
        : null,
      coverage: cov
        ? {
            encoded: cov.encoded,
            restriction: cov.restriction,
            percent: cov.percent,
            auditable: cov.auditable,
            audited: cov.audited,
            auditedPercent: cov.auditedPercent,
            files: cov.files.map((f) => ({ source: f.source, encoded: f.encoded, restriction: f.restriction, percent: f.percent, outOfScope: f.counts.out_of_scope, procedure: f.counts.procedure, notEncoded: f.counts.not_encoded, auditable: f.auditable, audited: f.audited })),
          }
        : null,
      scenarios: { passed: mine.filter((r) => r.pass).length, failed: mine.filter((r) => !r.pass).length },
      sections: [...sections].map(([section, ids]) => ({ section, ids })).sort((a, b) => sectionKey(a.section).localeCompare(sectionKey(b.section), "en", { numeric: true })),
      rules,
      obligations,
      board: {
        spaces: ir.board.spaces.map((s) => ({ id: s.id, name: s.name, type: s.type, home: s.home })),
        connections: ir.board.connections.filter((c) => c.from < c.to).map((c) => [c.from, c.to, c.type] as [string, string, string]),
        onMap: ir.board.spaces.filter((s) => layout.positions[s.id]).length,
      },
    };
  }

  function obligationView(ir: IREdition, o: ObligationResult & { witness?: { stateFile?: string }; counterexample?: { stateFile?: string } }): ObligationView {
    const ex = o.counterexample ?? o.witness;
    const kind = o.counterexample ? "counterexample" : "witness";
    const facts = (ex?.facts ?? []).map((f) => `${f.path} = ${typeof f.value === "string" ? f.value : JSON.stringify(f.value)}`);
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
      example: ex ? exampleOf(kind, ir, ex, (ex as { stateFile?: string }).stateFile, facts, ex.source ?? (ex.replayable === false && ex.reason ? `not replayable: ${ex.reason}` : undefined)) : undefined,
      stuck: o.stuck ? { actor: o.stuck.actor, decline: o.stuck.decline, blocked: o.stuck.blocked.map((b) => ({ action: b.action, rules: b.rules })) } : undefined,
    };
  }

  function perEdition(ir: IREdition): { lex: ReturnType<typeof lexicon>; spaceIds: Set<string> } {
    let c = cache.get(ir);
    if (!c) cache.set(ir, (c = { lex: lexicon(ir), spaceIds: new Set(ir.board.spaces.map((s) => s.id)) }));
    return c;
  }

  function exampleOf(kind: Example["kind"], ir: IREdition, ex: { action: Record<string, unknown>; state?: Record<string, unknown> }, stateFile: string | undefined, facts: string[], source?: string): Example {
    let key: string | null = null;
    if (stateFile) {
      try {
        const state = JSON.parse(fs.readFileSync(path.join(inp.root, stateFile), "utf8")) as Record<string, unknown>;
        const c = compactState(state);
        key = crypto.createHash("sha256").update(JSON.stringify(c)).digest("hex").slice(0, 16);
        states[key] = c;
      } catch {
        key = null;
      }
    }
    const { lex, spaceIds } = perEdition(ir);
    const highlight = new Set<string>();
    for (const v of Object.values(ex.action)) if (typeof v === "string" && spaceIds.has(v)) highlight.add(v);
    for (const f of facts) for (const m of f.matchAll(/spaces\[([a-z0-9_]+)\]|= ([a-z0-9_]+)$/g)) if (spaceIds.has(m[1] ?? m[2])) highlight.add(m[1] ?? m[2]);
    const act = ex.action;
    const params = Object.entries(act).filter(([k]) => k !== "action").map(([k, v]) => `${words(k)} ${typeof v === "string" ? valueName(lex, v) : JSON.stringify(v)}`);
    return { kind, state: key, action: act, actionText: `${words(String(act.action ?? "?"))}${params.length ? `: ${params.join(", ")}` : ""}`, facts, highlight: [...highlight].sort(), file: stateFile, source };
  }
}

/** "§9.6" for his §9.6, the section's name for a named one. */
function sectionOf(c: { section: string; named?: true }): string {
  return c.named ? c.section : `§${c.section}`;
}

function sectionKey(s: string): string {
  return s.startsWith("§") ? `0${s}` : s.startsWith("Invariants") || s.startsWith("Routes") ? `2${s}` : `1${s}`;
}

/** The state fields an expression reads, as dotted paths without keys ("spaces.land_units"). */
export function readsOf(e: Expr): string[] {
  const out = new Set<string>();
  const walk = (x: Expr) => {
    const p = statePath(x);
    if (p) out.add(p);
    for (const c of children(x)) walk(c);
  };
  walk(e);
  // keep the longest paths only
  const all = [...out];
  return all.filter((p) => !all.some((q) => q !== p && q.startsWith(p + "."))).sort();
}

function statePath(x: Expr): string | null {
  if (x.k === "field") {
    if (x.obj.k === "state") return x.field;
    const inner = statePath(x.obj);
    return inner ? `${inner}.${x.field}` : null;
  }
  if (x.k === "index") return statePath(x.obj);
  return null;
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
