/**
 * `rulewright conformance`: the conformance corpus of an edition (issue 17) — every scenario with a
 * state and an action (the examples and fidelity cases of test/scenarios/; a variant's own, then
 * its parent edition's, each with the variant's verdict) and every replayable
 * proof witness and counterexample of the last `prove` (proofs/<edition>/report.json, when there
 * is one), as plain JSON with the verdict of the generated validators: `conformance/<edition>/`
 * holds `manifest.json`, `cases.json` and the base states the cases patch. The reference runner
 * `conformance/runner.mjs` (plain JavaScript, no rulewright import) reads it; `conformance run`
 * runs an external engine against it with that runner and reports every disagreement.
 *
 *   rulewright conformance write [editions…] [--check] [--proofs dir]   exit 0 written / up to date, 1 stale (--check), 2 bad input
 *   rulewright conformance run <edition> --module m.mjs | --command "cmd"  exit 0 all agree, 1 a disagreement, 2 bad input
 *
 * Versioned with the edition: `manifest.version` is the edition's inputs hash (the rule files,
 * schema and board the verdicts come from), `manifest.scenarios` the hash of the scenarios it was
 * made from, and `--check` fails when the committed corpus was made from other rules or other
 * scenarios (`corpusStaleness`).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { editionFolder, type IREdition } from "../ir/types.js";
import { findScenarioFiles, judge, readScenarioFile, type Expectation, type Scenario } from "../scenarios/index.js";
import { compile, UsageError, color, type Format } from "./common.js";
import { actionProblems, stateProblems } from "../engine/validate.js";
import { bundledEditions, PACKAGE_ROOT, resolveEdition } from "../engine/editions.js";
import { loadValidators, type ValidatorModule } from "../engine/loader.js";
import { runMutation, type MutantResult, type MutationCase } from "../engine/mutation.js";
import { committedDecisions, idPattern, proveUndecided } from "./conformance-mutants.js";
import { applyPatch } from "../engine/mutation-proof.js";
import { stableJson } from "../diagnostics/json.js";
import { parseRlimit } from "./prove-options.js";

/** The corpus format (bumped when a case's fields change). */
export const CORPUS_FORMAT = 2;
const CORPUS_DIR = "conformance";

type Json = unknown;

export interface CorpusCase {
  id: string;
  name: string;
  /**
   * the rule the case is about, as a position in the rule files shipped with the packages
   * (`dsl/…/x.rules:line`, as `RULES[].file` and `line`): the first violated rule, else the
   * first obliged one, else the mutated rule (a mutant's case), else the action's declaration
   */
  source: string;
  /** where the case was made from: `scenario <file>:<line>`, `proof <obligation id>` or `mutant <mutant id>` */
  origin: string;
  citation?: string;
  /** the base state file, relative to the corpus folder */
  base: string;
  /** deep-merged into the base (objects key by key; arrays, scalars and null replace) */
  patch: Json;
  action: Json;
  expect: { allowed: boolean; violations: string[]; obliged: string[] };
  /** the title of every rule the case names (violated, obliged, the source rule) */
  rules: Record<string, string>;
}

/** The corpus's mutation score (compiler/engine/mutation.ts): verdict-only, mutants of every rule. */
export interface MutationSummary {
  mutants: number;
  /** killed by the scenarios and proof witnesses alone, before the search added cases */
  killedByBase: number;
  /** killed by a case the bounded search added */
  killedBySearch: number;
  /** killed by a case made from a replayed Z3 state (compiler/engine/mutation-proof.ts) */
  killedByZ3: number;
  killed: number;
  /** proved equivalent by Z3: no state tells them apart */
  equivalent: number;
  /** neither killed nor proved equivalent (a solver unknown, or no fresh Z3 answer) */
  unknown: number;
  /** killed / (mutants − equivalent), rounded to 4 decimals: an unknown mutant counts as not killed */
  killRate: number;
  /** cases the search added */
  added: number;
  byOp: Record<string, { mutants: number; killed: number; equivalent: number; unknown: number }>;
}

export interface Manifest {
  edition: string;
  title: string;
  version: string;
  format: number;
  cases: number;
  bases: string[];
  sources: { scenarios: number; witnesses: number; counterexamples: number; mutants: number };
  /**
   * sha256 (hex) of the scenarios the corpus was made from (`scenarioSources`: file, line, name,
   * citation, state, action, expectation): with `version`, what `--check` compares, so an edited
   * scenario file (the edition's or, for a variant, its parent's) makes the corpus stale
   */
  scenarios?: string;
  mutation?: MutationSummary;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
/** Deep equality with objects' keys in any order (a state whose powers were exchanged lists its map keys in another order: the same state). */
const same = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);

/** A patch p with deepMerge(base, p) = state, or undefined when a key of base is missing in state. */
export function diffState(base: unknown, state: unknown): { patch: unknown } | undefined {
  if (!isObj(base) || !isObj(state)) return { patch: state };
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(base)) if (!(k in state)) return undefined;
  for (const [k, v] of Object.entries(state)) {
    if (!(k in base)) patch[k] = v;
    else if (!same(base[k], v)) {
      const d = diffState(base[k], v);
      if (!d) return undefined;
      patch[k] = d.patch;
    }
  }
  return { patch };
}

function fixtureBases(ir: IREdition): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const folders = [editionFolder(ir), ...(ir.parent ? [path.basename(ir.parent)] : [])];
  for (const f of folders) {
    const dir = path.join("test", "fixtures", f);
    if (!fs.existsSync(dir)) continue;
    for (const n of fs.readdirSync(dir).filter((n) => n.endsWith(".json")).sort()) {
      try {
        out.set(`${f}-${n}`, JSON.parse(fs.readFileSync(path.join(dir, n), "utf8")));
      } catch {
        // not a state: skipped
      }
    }
  }
  return out;
}

/** A scenario the corpus of an edition is made from, and the parent edition it comes from (a variant's inherited one). */
export interface ScenarioSource {
  scenario: Scenario;
  /** the parent edition's folder, for a scenario of test/scenarios/<parent>/ */
  from?: string;
}

/**
 * The scenarios of an edition's corpus, in order: its own (test/scenarios/<edition>/), then for
 * a variant its parent's (test/scenarios/<parent>/), each file's in file order. Scenarios that do
 * not read (a bad file) are left out, as `rulewright test` reports them.
 */
export function scenarioSources(ir: IREdition): ScenarioSource[] {
  const out: ScenarioSource[] = [];
  for (const [dir, from] of [[editionFolder(ir), undefined], ...(ir.parent ? [[ir.parent, ir.parent]] : [])] as [string, string | undefined][]) {
    const root = path.join("test", "scenarios", dir);
    if (!fs.existsSync(root)) continue;
    for (const file of findScenarioFiles([root])) {
      for (const scenario of readScenarioFile(file, (e) => path.join("test", "fixtures", path.basename(e))).scenarios) out.push({ scenario, ...(from ? { from } : {}) });
    }
  }
  return out;
}

/** `Manifest.scenarios`: the sha256 of the scenarios' file, line, name, citation, state, action and expectation. */
export function scenariosHash(sources: readonly ScenarioSource[]): string {
  const h = crypto.createHash("sha256");
  for (const { scenario: s } of sources) h.update(stableJson([s.file.split(path.sep).join("/"), s.line, s.name, s.source ?? null, s.state, s.action, s.expect]) + "\n");
  return h.digest("hex");
}

/**
 * The case name of a parent's scenario in a variant's corpus: the scenario's name and whether the
 * variant's verdict is the one the parent's scenario expects ("(a his scenario; his-500 agrees)")
 * or not ("(a his scenario; his-500 forbids it: deploy.other_units)"), so that no name states a
 * verdict the case does not have.
 */
export function inheritedName(name: string, from: string, folder: string, expected: Expectation, v: { allowed: boolean; violations: readonly string[]; obliged: readonly string[] }): string {
  // the scenario runner's own comparison (`rulewright test`)
  const agrees = judge(expected, { allowed: v.allowed, violations: v.violations.map((rule) => ({ rule })), obliged: v.obliged }).pass;
  if (agrees) return `${name} (a ${from} scenario; ${folder} agrees)`;
  return `${name} (a ${from} scenario; ${folder} ${v.allowed ? "allows it" : `forbids it: ${v.violations.join(", ")}`}${v.obliged.length ? `, obliges ${v.obliged.join(", ")}` : ""})`;
}

/** The corpus of an edition: its manifest, cases and base states (file name → state). */
export function buildCorpus(
  ir: IREdition,
  mod: ValidatorModule,
  opts: { proofsDir?: string; mutation?: boolean; budget?: number; onMutant?: (done: number, total: number) => void; decisions?: ReturnType<typeof committedDecisions> } = {},
): { manifest: Manifest; cases: CorpusCase[]; bases: Map<string, unknown>; mutation?: MutantResult[] } {
  const folder = editionFolder(ir);
  const candidates = fixtureBases(ir);
  const bases = new Map<string, unknown>();
  const cases: CorpusCase[] = [];
  /** canonical JSON of [state, action] → its case's index in `states` (-1: rejected as input) */
  const seen = new Map<string, number>();
  const counts = { scenarios: 0, witnesses: 0, counterexamples: 0, mutants: 0 };
  const states: MutationCase[] = [];
  const add = (kind: keyof typeof counts, name: string | ((expect: CorpusCase["expect"]) => string), origin: string, citation: string | undefined, state: unknown, action: unknown, about?: string): CorpusCase | undefined => {
    if (!isObj(state) || !isObj(action)) return;
    // the same state and action with their keys in another order (a Z3 state, a scenario's) are one case
    const key = stableJson([state, action]);
    if (seen.has(key)) return;
    if (actionProblems(ir, action).length || stateProblems(ir, mod, state).length) return void seen.set(key, -1);
    let v;
    try {
      v = mod.check(state, action);
    } catch {
      return;
    }
    seen.set(key, states.length);
    // the base that gives the smallest patch; the state itself when none fits
    let best: { base: string; patch: unknown; size: number } | undefined;
    for (const [file, base] of [...candidates, ...bases]) {
      const d = diffState(base, state);
      if (!d) continue;
      const size = JSON.stringify(d.patch).length;
      if (!best || size < best.size) best = { base: file, patch: d.patch, size };
    }
    if (!best || best.size > 20_000) {
      const file = `state-${crypto.createHash("sha256").update(JSON.stringify(state)).digest("hex").slice(0, 12)}.json`;
      best = { base: file, patch: {}, size: 2 };
      bases.set(file, state);
    } else if (candidates.has(best.base)) bases.set(best.base, candidates.get(best.base));
    counts[kind]++;
    const expect = { allowed: v.allowed, violations: [...new Set(v.violations.map((x) => x.rule))].sort(), obliged: [...new Set(v.obliged)].sort() };
    const c: CorpusCase = {
      id: `${folder}-${String(cases.length + 1).padStart(4, "0")}`,
      name: typeof name === "string" ? name : name(expect),
      source: sourceOf(ir, about ?? expect.violations[0] ?? expect.obliged[0], String(action.action)),
      origin,
      ...(citation ? { citation } : {}),
      base: best.base,
      patch: best.patch,
      action,
      expect,
      rules: titles(ir, [...expect.violations, ...expect.obliged, ...(about ? [about] : [])]),
    };
    cases.push(c);
    states.push({ id: c.id, state, action, allowed: expect.allowed, violations: expect.violations });
    return c;
  };

  // the edition's own scenarios, then (a variant) its parent's: the same situations, with the
  // verdict this edition's validators give them (where a rule was overridden, it may differ from
  // the parent scenario's expectation, and the case's name says so)
  const sources = scenarioSources(ir);
  for (const { scenario: s, from } of sources) {
    const name = from ? (e: CorpusCase["expect"]) => inheritedName(s.name, from, folder, s.expect, e) : s.name;
    add("scenarios", name, `scenario ${s.file.split(path.sep).join("/")}:${s.line}`, s.source, s.state, s.action);
  }
  const report = path.join(opts.proofsDir ?? "proofs", folder, "report.json");
  if (fs.existsSync(report)) {
    const r = JSON.parse(fs.readFileSync(report, "utf8")) as { obligations?: { id: string; witness?: Example; counterexample?: Example }[] };
    for (const o of r.obligations ?? []) {
      for (const [kind, ex] of [["witnesses", o.witness], ["counterexamples", o.counterexample]] as const) {
        if (!ex || ex.replayable === false || !ex.stateFile) continue;
        const stateFile = path.resolve(path.dirname(report), "..", "..", ex.stateFile);
        const alt = path.join(path.dirname(report), path.basename(ex.stateFile));
        const sub = path.join(path.dirname(report), kind, path.basename(ex.stateFile));
        const file = [stateFile, sub, alt].find((f) => fs.existsSync(f));
        if (!file) continue;
        add(kind, `${kind === "witnesses" ? "witness" : "counterexample"} of ${o.id}`, `proof ${o.id}`, undefined, JSON.parse(fs.readFileSync(file, "utf8")), ex.action);
      }
    }
  } else {
    // no prove report here: the proof cases of the committed corpus are kept (same states, same verdicts source)
    for (const c of committedProofCases(folder)) add(c.kind, c.name, c.origin, undefined, c.state, c.action);
  }
  let mutation: ReturnType<typeof runMutation> | undefined;
  if (opts.mutation !== false) {
    const valid = (state: unknown, action: Record<string, unknown>): boolean => !actionProblems(ir, action).length && !stateProblems(ir, mod, state).length;
    mutation = runMutation(ir, [...states], {
      check: mod.check,
      valid,
      shrinkBases: [...candidates.values()],
      budget: opts.budget,
      decisions: opts.decisions ?? committedDecisions(ir),
      onMutant: opts.onMutant,
      makeCase: (found, m, from) => {
        const c = add("mutants", `kills mutant ${m.id} (${m.detail})`, `mutant ${m.id}`, citationOf(ir, m.rule), found.state, found.action, m.rule);
        if (c) return states[states.length - 1];
        // a Z3 answer's state and action that a case already has (another mutant's Z3 state): that case
        // (never for the search's: its cases seed the later searches, which must not depend on the answers)
        if (from !== "z3") return undefined;
        const i = seen.get(stableJson([found.state, found.action]));
        return i !== undefined && i >= 0 ? states[i] : undefined;
      },
    });
  }
  const manifest: Manifest = { edition: folder, title: ir.title, version: ir.inputHash, format: CORPUS_FORMAT, cases: cases.length, bases: [...bases.keys()].sort(), sources: counts, scenarios: scenariosHash(sources) };
  if (mutation) manifest.mutation = mutationSummary(mutation);
  return { manifest, cases, bases, ...(mutation ? { mutation: mutation.results } : {}) };
}

/**
 * Why a committed corpus (its manifest) is stale for the edition as it is now, or undefined when it
 * is not: no corpus, another corpus format, made from other rules (`version`, the edition's inputs
 * hash), or from other scenarios (`scenarios`, `scenariosHash` of `scenarioSources`).
 */
export function corpusStaleness(ir: IREdition, committed: Manifest | undefined): string | undefined {
  if (!committed) return "no corpus";
  if (committed.format !== CORPUS_FORMAT) return `corpus format ${committed.format}, not ${CORPUS_FORMAT}`;
  if (committed.version !== ir.inputHash) return "made from other rules";
  if (committed.scenarios !== scenariosHash(scenarioSources(ir))) return `made from other scenarios: test/scenarios/${editionFolder(ir)}/${ir.parent ? ` or test/scenarios/${ir.parent}/` : ""} changed`;
  return undefined;
}

/** The proof witness and counterexample cases of the committed corpus (`conformance/<edition>/`), their states rebuilt. */
function committedProofCases(folder: string): { kind: "witnesses" | "counterexamples"; name: string; origin: string; state: unknown; action: unknown }[] {
  const dir = path.join(CORPUS_DIR, folder);
  let cases: { name: string; source?: string; origin?: string; base: string; patch: unknown; action: unknown }[];
  try {
    cases = JSON.parse(fs.readFileSync(path.join(dir, "cases.json"), "utf8"));
  } catch {
    return [];
  }
  const merge = (b: unknown, p: unknown): unknown => {
    if (!isObj(p)) return p;
    const out: Record<string, unknown> = { ...(isObj(b) ? b : {}) };
    for (const [k, v] of Object.entries(p)) out[k] = merge(isObj(b) ? b[k] : undefined, v);
    return out;
  };
  const out = [];
  for (const c of cases) {
    const origin = c.origin ?? c.source ?? "";
    if (!origin.startsWith("proof ")) continue;
    const base = JSON.parse(fs.readFileSync(path.join(dir, c.base), "utf8"));
    out.push({ kind: c.name.startsWith("witness") ? ("witnesses" as const) : ("counterexamples" as const), name: c.name, origin, state: merge(base, c.patch), action: c.action });
  }
  return out;
}

/** The kill rate per edition as conformance/README.md shows it (between its mutation markers), from the committed manifests. */
export function mutationTable(): string {
  const rows: string[] = [];
  for (const e of fs.existsSync(CORPUS_DIR) ? fs.readdirSync(CORPUS_DIR).sort() : []) {
    const f = path.join(CORPUS_DIR, e, "manifest.json");
    if (!fs.existsSync(f)) continue;
    const m = (JSON.parse(fs.readFileSync(f, "utf8")) as Manifest).mutation;
    if (!m) continue;
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    rows.push(`| ${e} | ${m.mutants} | ${m.killedByBase} (${pct(m.killedByBase / (m.mutants - m.equivalent))}) | ${m.killedBySearch} | ${m.killedByZ3} | ${m.killed} | ${m.equivalent} | ${m.unknown} | **${pct(m.killRate)}** |`);
  }
  return [
    "| edition | mutants | killed by the scenarios and proof cases | killed by the search's cases | killed by Z3's states | killed | proved equivalent (Z3) | unknown | kill rate (verdict-only) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}

/** Rewrites the table between `<!-- mutation:begin -->` and `<!-- mutation:end -->` in conformance/README.md. */
function writeMutationTable(): void {
  const f = path.join(CORPUS_DIR, "README.md");
  if (!fs.existsSync(f)) return;
  const text = fs.readFileSync(f, "utf8");
  const next = text.replace(/<!-- mutation:begin -->[\s\S]*<!-- mutation:end -->/, `<!-- mutation:begin -->\n${mutationTable()}\n<!-- mutation:end -->`);
  if (next !== text) fs.writeFileSync(f, next);
}

/** The kill rate and counts of a mutation run (manifest.json's `mutation`). */
export function mutationSummary(m: { results: MutantResult[]; added: unknown[]; before: number }): MutationSummary {
  const byOp: MutationSummary["byOp"] = {};
  for (const r of m.results) {
    const o = (byOp[r.op] ??= { mutants: 0, killed: 0, equivalent: 0, unknown: 0 });
    o.mutants++;
    o[r.status]++;
  }
  const count = (f: (r: MutantResult) => boolean) => m.results.filter(f).length;
  const killed = count((r) => r.status === "killed");
  const equivalent = count((r) => r.status === "equivalent");
  const rate = m.results.length - equivalent ? killed / (m.results.length - equivalent) : 1;
  return {
    mutants: m.results.length,
    killedByBase: m.before,
    killedBySearch: count((r) => r.killedBy === "search"),
    killedByZ3: count((r) => r.killedBy === "z3"),
    killed,
    equivalent,
    unknown: m.results.length - killed - equivalent,
    killRate: Math.round(rate * 10000) / 10000,
    added: m.added.length,
    byOp,
  };
}

/** `file:line` of a rule (its declaration), else of the action's declaration. */
function sourceOf(ir: IREdition, rule: string | undefined, action: string): string {
  const pos = (rule !== undefined ? ir.rules.find((r) => r.id === rule)?.pos : undefined) ?? ir.actions.find((a) => a.name === action)?.pos;
  return pos ? `${pos.file}:${pos.line}` : "";
}

function citationOf(ir: IREdition, rule: string): string | undefined {
  return ir.rules.find((r) => r.id === rule)?.citation.text;
}

/** Rule id → title, for the ids given (sorted, each once). */
function titles(ir: IREdition, ids: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const id of [...new Set(ids)].sort()) {
    const r = ir.rules.find((x) => x.id === id);
    if (r) out[id] = r.title;
  }
  return out;
}

interface Example {
  action?: unknown;
  replayable?: boolean;
  stateFile?: string;
}

/** The files of a corpus folder: path (relative to the repo root) → content. */
export function corpusFiles(c: ReturnType<typeof buildCorpus>): Map<string, string> {
  const dir = path.join(CORPUS_DIR, c.manifest.edition);
  const out = new Map<string, string>();
  out.set(path.join(dir, "manifest.json"), JSON.stringify(c.manifest, null, 2) + "\n");
  // one case per line: diffs stay readable
  out.set(path.join(dir, "cases.json"), "[\n" + c.cases.map((x) => JSON.stringify(x)).join(",\n") + "\n]\n");
  for (const [f, s] of [...c.bases].sort(([a], [b]) => (a < b ? -1 : 1))) out.set(path.join(dir, f), JSON.stringify(s, null, 1) + "\n");
  // every mutant and what killed it (compiler/engine/mutation.ts): test/interpret/mutation.test.ts re-checks it
  if (c.mutation) out.set(path.join(dir, "mutation.json"), "[\n" + c.mutation.map((x) => JSON.stringify(x)).join(",\n") + "\n]\n");
  return out;
}

export async function conformanceWriteCommand(editions: string[], opts: { check?: boolean; proofs?: string; proveMutants?: boolean; rlimit?: string; mutants?: string; format: Format }): Promise<number> {
  const rlimit = opts.rlimit !== undefined ? parseRlimit(opts.rlimit) : undefined;
  if (opts.mutants !== undefined && !opts.proveMutants) throw new UsageError("--mutants chooses which mutants --prove-mutants solves", 2, `add --prove-mutants: rulewright conformance write --prove-mutants --mutants '${opts.mutants}'`);
  const only = opts.mutants !== undefined ? idPattern(opts.mutants) : undefined;
  const names = editions.length ? editions : bundledEditions();
  let stale = 0;
  const summary: { edition: string; cases: number; version: string; stale: string[] }[] = [];
  for (const name of names) {
    const ref = resolveEdition(name);
    if (!ref.bundled) throw new UsageError(`\`${name}\`: a conformance corpus is written for bundled editions only`, 2, "name an edition under dsl/");
    const res = compile(ref, opts.format);
    if (!res.edition) throw new UsageError(`the rules of \`${ref.dir}\` do not compile`, 2);
    const mod = await loadValidators(ref, res.edition);
    if (opts.check) {
      // the verdicts' version and the scenarios decide staleness: no corpus is built
      const m = path.join(CORPUS_DIR, editionFolder(res.edition), "manifest.json");
      const committed = fs.existsSync(m) ? (JSON.parse(fs.readFileSync(m, "utf8")) as Manifest) : undefined;
      const why = corpusStaleness(res.edition, committed);
      if (why) stale++;
      summary.push({ edition: editionFolder(res.edition), cases: committed?.cases ?? 0, version: committed?.version ?? "", stale: why ? [m] : [] });
      if (opts.format === "text") process.stdout.write(`${editionFolder(res.edition)}: ${why ? color.red(`stale (${why}); run \`npx rulewright conformance write ${editionFolder(res.edition)}\``) : `up to date (${committed!.cases} cases)`}\n`);
      continue;
    }
    const t0 = Date.now();
    const build = () =>
      buildCorpus(res.edition!, mod, {
        proofsDir: opts.proofs,
        onMutant: (i, n) => {
          if (opts.format === "text" && process.stderr.isTTY && i % 50 === 0) process.stderr.write(`\r${ref.dir}: mutant ${i}/${n} (${Math.round((Date.now() - t0) / 1000)} s)`);
        },
      });
    let corpus = build();
    if (opts.proveMutants && corpus.mutation) {
      // the mutants the search leaves without a fresh Z3 answer are solved, then the corpus is built again with the answers
      const valid = (state: unknown, action: Record<string, unknown>): boolean => !actionProblems(res.edition!, action).length && !stateProblems(res.edition!, mod, state).length;
      const seedCases = corpus.cases.map((c) => ({ state: applyPatch(corpus.bases.get(c.base), c.patch), action: c.action as Record<string, unknown>, allowed: c.expect.allowed, violations: c.expect.violations }));
      const p = await proveUndecided(res.edition, mod, corpus.mutation, {
        valid,
        rlimit,
        only,
        cases: seedCases,
        onMutant: (i, n, id) => {
          // a long run: progress on stderr, a line per 50 mutants when it is not a terminal
          if (opts.format !== "text") return;
          if (process.stderr.isTTY) process.stderr.write(`\r${ref.dir}: Z3 ${i}/${n} ${id.slice(0, 60).padEnd(60)}`);
          else if (i % 50 === 0) process.stderr.write(`${ref.dir}: Z3 ${i}/${n} (${Math.round((Date.now() - t0) / 1000)} s)\n`);
        },
      });
      if (opts.format === "text") process.stdout.write(`${editionFolder(res.edition)}: Z3 solved ${p.solved} mutants in ${(p.cpuMs / 1000).toFixed(1)} s of CPU: ${p.verdicts.equivalent} equivalent, ${p.verdicts.differs} told apart, ${p.verdicts.unknown} unknown\n`);
      if (p.solved) corpus = build();
    }
    const files = corpusFiles(corpus);
    const dir = path.join(CORPUS_DIR, corpus.manifest.edition);
    const differs = [...files].filter(([f, text]) => !fs.existsSync(f) || fs.readFileSync(f, "utf8") !== text).map(([f]) => f);
    const extra = fs.existsSync(dir) ? fs.readdirSync(dir).map((n) => path.join(dir, n)).filter((f) => !files.has(f)) : [];
    fs.mkdirSync(dir, { recursive: true });
    for (const f of extra) fs.rmSync(f, { force: true });
    for (const [f, text] of files) fs.writeFileSync(f, text);
    summary.push({ edition: corpus.manifest.edition, cases: corpus.cases.length, version: corpus.manifest.version, stale: [...differs, ...extra] });
    if (opts.format === "text") {
      const s = corpus.manifest.sources;
      const mu = corpus.manifest.mutation;
      process.stdout.write(`${corpus.manifest.edition}: ${corpus.cases.length} cases (${s.scenarios} scenarios, ${s.witnesses} proof witnesses, ${s.counterexamples} counterexamples, ${s.mutants} mutant killers) in ${dir}/${differs.length + extra.length ? "" : " (unchanged)"}\n`);
      if (mu) process.stdout.write(`  mutants: ${mu.killed} killed of ${mu.mutants} (${mu.killedByBase} by the scenarios and proof cases, ${mu.killedBySearch} by the search's cases, ${mu.killedByZ3} by Z3's states), ${mu.equivalent} proved equivalent, ${mu.unknown} unknown: kill rate ${(mu.killRate * 100).toFixed(1)}%\n`);
    }
  }
  if (!opts.check) writeMutationTable();
  if (opts.format === "json") process.stdout.write(JSON.stringify({ editions: summary }, null, 2) + "\n");
  return stale ? 1 : 0;
}

/**
 * The corpus folder of an edition: `--corpus`, else `conformance/<edition>/` in the working folder,
 * else the one shipped in the installed rulewright package (PACKAGE_ROOT/conformance/<edition>).
 */
export function corpusDir(edition: string, given?: string): string {
  if (given) return given;
  const here = path.join(CORPUS_DIR, edition);
  if (fs.existsSync(path.join(here, "manifest.json"))) return here;
  const shipped = path.join(PACKAGE_ROOT, CORPUS_DIR, edition);
  return fs.existsSync(path.join(shipped, "manifest.json")) ? shipped : here;
}

export async function conformanceRunCommand(edition: string, opts: { module?: string; command?: string; corpus?: string; verdictOnly?: boolean; format: Format }): Promise<number> {
  if (!!opts.module === !!opts.command) throw new UsageError("conformance run needs one engine: --module <file> or --command <cmd>", 2, 'e.g. rulewright conformance run his --command "python3 engine.py"');
  const dir = corpusDir(edition, opts.corpus);
  if (!fs.existsSync(path.join(dir, "manifest.json"))) throw new UsageError(`no conformance corpus in \`${dir}\``, 2, `run \`npx rulewright conformance write ${edition}\``);
  if (opts.module && !fs.existsSync(opts.module)) throw new UsageError(`no engine module \`${opts.module}\``, 2, "give the path of an ES module exporting check(state, action)");
  const runnerUrl = new URL("../../conformance/runner.mjs", import.meta.url).href;
  const runner = (await import(runnerUrl)) as {
    runCorpus(dir: string, engine: { module?: string; command?: string }, o: { verdictOnly?: boolean }): Promise<RunResult>;
    printable(r: RunResult): { shown: RunResult["disagreements"]; note: string };
  };
  const r = await runner.runCorpus(dir, { module: opts.module, command: opts.command }, { verdictOnly: opts.verdictOnly });
  if (opts.format === "json") process.stdout.write(JSON.stringify(r, null, 2) + "\n");
  else {
    const { shown, note } = runner.printable(r);
    for (const d of shown) {
      const names = Object.entries(d.rules ?? {}).map(([id, t]) => `      ${id}: ${t}\n`).join("");
      process.stdout.write(`${color.red("✗")} ${d.id} ${d.name}\n    rule ${d.source}${d.citation ? ` (${d.citation})` : ""}; from ${d.origin ?? "?"}\n    action ${JSON.stringify(d.action)}\n${d.problems.map((p) => `    ${p}\n`).join("")}${names}`);
    }
    if (note) process.stdout.write(`${color.yellow(note)}\n`);
    const mode = r.verdictOnly ? " (verdicts only)" : `; verdicts alone: ${r.verdictsAgreed}/${r.total}`;
    process.stdout.write(`${r.edition} corpus ${r.version.slice(0, 12)}: ${r.agreed}/${r.total} cases agree${r.disagreements.length ? `, ${color.red(`${r.disagreements.length} disagree`)}` : ""}${mode}\n`);
  }
  return r.disagreements.length ? 1 : 0;
}

interface RunResult {
  edition: string;
  version: string;
  verdictOnly: boolean;
  total: number;
  agreed: number;
  verdictsAgreed: number;
  notVerdicts: number;
  disagreements: { id: string; name: string; source: string; origin?: string; citation?: string; action: unknown; rules?: Record<string, string>; problems: string[] }[];
}
