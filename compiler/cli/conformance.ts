/**
 * `rulewright conformance`: the conformance corpus of an edition (issue 17) — every scenario with a
 * state and an action (the examples and fidelity cases of test/scenarios/) and every replayable
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
 * schema and board the verdicts come from), and `--check` fails when the committed corpus was
 * made from other rules.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { editionFolder, type IREdition } from "../ir/types.js";
import { findScenarioFiles, readScenarioFile } from "../scenarios/index.js";
import { compile, UsageError, color, type Format } from "./common.js";
import { actionProblems, stateProblems } from "../engine/validate.js";
import { bundledEditions, resolveEdition } from "../engine/editions.js";
import { loadValidators, type ValidatorModule } from "../engine/loader.js";

/** The corpus format (bumped when a case's fields change). */
export const CORPUS_FORMAT = 1;
const CORPUS_DIR = "conformance";

type Json = unknown;

export interface CorpusCase {
  id: string;
  name: string;
  /** where the case comes from: a scenario file and line, or a proof obligation */
  source: string;
  citation?: string;
  /** the base state file, relative to the corpus folder */
  base: string;
  /** deep-merged into the base (objects key by key; arrays, scalars and null replace) */
  patch: Json;
  action: Json;
  expect: { allowed: boolean; violations: string[]; obliged: string[] };
}

export interface Manifest {
  edition: string;
  title: string;
  version: string;
  format: number;
  cases: number;
  bases: string[];
  sources: { scenarios: number; witnesses: number; counterexamples: number };
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

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

/** The corpus of an edition: its manifest, cases and base states (file name → state). */
export function buildCorpus(ir: IREdition, mod: ValidatorModule, opts: { proofsDir?: string } = {}): { manifest: Manifest; cases: CorpusCase[]; bases: Map<string, unknown> } {
  const folder = editionFolder(ir);
  const candidates = fixtureBases(ir);
  const bases = new Map<string, unknown>();
  const cases: CorpusCase[] = [];
  const seen = new Set<string>();
  const counts = { scenarios: 0, witnesses: 0, counterexamples: 0 };
  const add = (kind: keyof typeof counts, name: string, source: string, citation: string | undefined, state: unknown, action: unknown): void => {
    if (!isObj(state) || !isObj(action)) return;
    const key = JSON.stringify([state, action]);
    if (seen.has(key)) return;
    if (actionProblems(ir, action).length || stateProblems(ir, mod, state).length) return;
    let v;
    try {
      v = mod.check(state, action);
    } catch {
      return;
    }
    seen.add(key);
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
    cases.push({
      id: `${folder}-${String(cases.length + 1).padStart(4, "0")}`,
      name,
      source,
      ...(citation ? { citation } : {}),
      base: best.base,
      patch: best.patch,
      action,
      expect: { allowed: v.allowed, violations: [...new Set(v.violations.map((x) => x.rule))].sort(), obliged: [...new Set(v.obliged)].sort() },
    });
  };

  const root = path.join("test", "scenarios", folder);
  if (fs.existsSync(root)) {
    for (const file of findScenarioFiles([root])) {
      for (const s of readScenarioFile(file, (e) => path.join("test", "fixtures", path.basename(e))).scenarios) {
        add("scenarios", s.name, `${file.split(path.sep).join("/")}:${s.line}`, s.source, s.state, s.action);
      }
    }
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
  }
  const manifest: Manifest = { edition: folder, title: ir.title, version: ir.inputHash, format: CORPUS_FORMAT, cases: cases.length, bases: [...bases.keys()].sort(), sources: counts };
  return { manifest, cases, bases };
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
  return out;
}

export async function conformanceWriteCommand(editions: string[], opts: { check?: boolean; proofs?: string; format: Format }): Promise<number> {
  const names = editions.length ? editions : bundledEditions();
  let stale = 0;
  const summary: { edition: string; cases: number; version: string; stale: string[] }[] = [];
  for (const name of names) {
    const ref = resolveEdition(name);
    if (!ref.bundled) throw new UsageError(`\`${name}\`: a conformance corpus is written for bundled editions only`, 2, "name an edition under dsl/");
    const res = compile(ref, opts.format);
    if (!res.edition) throw new UsageError(`the rules of \`${ref.dir}\` do not compile`, 2);
    const mod = await loadValidators(ref, res.edition);
    const corpus = buildCorpus(res.edition, mod, { proofsDir: opts.proofs });
    const files = corpusFiles(corpus);
    const dir = path.join(CORPUS_DIR, corpus.manifest.edition);
    const differs = [...files].filter(([f, text]) => !fs.existsSync(f) || fs.readFileSync(f, "utf8") !== text).map(([f]) => f);
    const extra = fs.existsSync(dir) ? fs.readdirSync(dir).map((n) => path.join(dir, n)).filter((f) => !files.has(f)) : [];
    if (opts.check) {
      // only the verdicts' version decides staleness: a corpus written with other proof witnesses is still current
      const m = path.join(dir, "manifest.json");
      const committed = fs.existsSync(m) ? (JSON.parse(fs.readFileSync(m, "utf8")) as Manifest) : undefined;
      const bad = !committed || committed.version !== corpus.manifest.version || committed.format !== CORPUS_FORMAT;
      if (bad) stale++;
      summary.push({ edition: corpus.manifest.edition, cases: committed?.cases ?? 0, version: committed?.version ?? "", stale: bad ? [m] : [] });
      if (opts.format === "text") process.stdout.write(`${corpus.manifest.edition}: ${bad ? color.red(`stale (made from other rules); run \`npx rulewright conformance write ${corpus.manifest.edition}\``) : `up to date (${committed!.cases} cases)`}\n`);
      continue;
    }
    fs.mkdirSync(dir, { recursive: true });
    for (const f of extra) fs.rmSync(f, { force: true });
    for (const [f, text] of files) fs.writeFileSync(f, text);
    summary.push({ edition: corpus.manifest.edition, cases: corpus.cases.length, version: corpus.manifest.version, stale: [...differs, ...extra] });
    if (opts.format === "text") {
      const s = corpus.manifest.sources;
      process.stdout.write(`${corpus.manifest.edition}: ${corpus.cases.length} cases (${s.scenarios} scenarios, ${s.witnesses} proof witnesses, ${s.counterexamples} counterexamples) in ${dir}/${differs.length + extra.length ? "" : " (unchanged)"}\n`);
    }
  }
  if (opts.format === "json") process.stdout.write(JSON.stringify({ editions: summary }, null, 2) + "\n");
  return stale ? 1 : 0;
}

export async function conformanceRunCommand(edition: string, opts: { module?: string; command?: string; corpus?: string; format: Format }): Promise<number> {
  if (!!opts.module === !!opts.command) throw new UsageError("conformance run needs one engine: --module <file> or --command <cmd>", 2, 'e.g. rulewright conformance run his --command "python3 engine.py"');
  const dir = opts.corpus ?? path.join(CORPUS_DIR, edition);
  if (!fs.existsSync(path.join(dir, "manifest.json"))) throw new UsageError(`no conformance corpus in \`${dir}\``, 2, `run \`npx rulewright conformance write ${edition}\``);
  if (opts.module && !fs.existsSync(opts.module)) throw new UsageError(`no engine module \`${opts.module}\``, 2, "give the path of an ES module exporting check(state, action)");
  const runnerUrl = new URL("../../conformance/runner.mjs", import.meta.url).href;
  const runner = (await import(runnerUrl)) as { runCorpus(dir: string, engine: { module?: string; command?: string }): Promise<RunResult> };
  const r = await runner.runCorpus(dir, { module: opts.module, command: opts.command });
  if (opts.format === "json") process.stdout.write(JSON.stringify(r, null, 2) + "\n");
  else {
    for (const d of r.disagreements) {
      process.stdout.write(`${color.red("✗")} ${d.id} ${d.name}\n    from ${d.source}${d.citation ? ` (${d.citation})` : ""}\n    action ${JSON.stringify(d.action)}\n${d.problems.map((p) => `    ${p}\n`).join("")}`);
    }
    process.stdout.write(`${r.edition} corpus ${r.version.slice(0, 12)}: ${r.agreed}/${r.total} cases agree${r.disagreements.length ? `, ${color.red(`${r.disagreements.length} disagree`)}` : ""}\n`);
  }
  return r.disagreements.length ? 1 : 0;
}

interface RunResult {
  edition: string;
  version: string;
  total: number;
  agreed: number;
  disagreements: { id: string; name: string; source: string; citation?: string; action: unknown; problems: string[] }[];
}
