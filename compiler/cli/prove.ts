/**
 * `rulewright prove [editions…]`: runs the Z3 pass and writes proofs/<edition>/.
 *
 * Output: report.json (deterministic but for timings and the cache counters), profile.json (where
 * the time went), an .smt2 per obligation not proved (per obligation with `--smt2`), for every
 * counterexample `counterexamples/<id>.state.json` + `.action.json`, and for every witness
 * `witnesses/<id>.action.json` with its state in `witnesses/states/<hash>.state.json` (one file
 * per distinct state), replayable with `rulewright check`. Printed as text (with explanations),
 * JSON, SARIF 2.1.0 or JUnit XML; progress goes to stderr only.
 *
 * Exit codes (README "CLI"): 0 nothing at or above `--fail-on` (default error) is refuted or
 * unknown; 1 an obligation at or above it is refuted; 3 none is refuted but one at or above it
 * is unknown (timeout, deadline, solver crash); 2 compile error or bad usage.
 *
 * `--watch` (compiler/cli/watch.ts): proves again on every save of a rule, schema or board file
 * of an edition, through the proof cache (only the obligations whose inputs changed are solved
 * again), with one pool of solver processes for the whole watch; after the first run it prints,
 * per edition proved again, how many obligations were solved again and the verdicts that changed.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type { Severity } from "../ir/analyses.js";
import { editionFolder, type IREdition } from "../ir/types.js";
import { ProofCache, proveEdition, SolverPool, safeName, type ObligationResult, type ProofReport, type ProveOptions, type Witnesses } from "../verify/index.js";
import { describeParentReuse, reuseParentProofs } from "./parent-proofs.js";
import { judgeWith, scenarioWitnesses, stagedJudge } from "../engine/witnesses.js";
import { claim, describeTableExample, factText, idInfo, involved, posText, verdictMessage } from "../ir/verdict-words.js";
import { replayCommandFor, verdictMeaning } from "../ir/explanations.js";
import { toSarif, type FormatInput } from "../verify/report/sarif.js";
import { counts, toJunit } from "../verify/report/junit.js";
import { KIND_ORDER } from "../ir/obligations.js";
import { compile, errorCount, outsideProject, parseMillis, UsageError, color } from "./common.js";
import { bundledEditions, DSL_DIR, resolveEdition, PROOFS_DIR, type EditionRef } from "../engine/editions.js";
import { loadCheckers, needsGenerating } from "../engine/loader.js";
import { Progress } from "./progress.js";
import { parseDuration, parseRlimit, parseShard } from "./prove-options.js";
export { parseDuration, parseRlimit, parseShard } from "./prove-options.js";
import type { WatchRun } from "./watch.js";
import { ciPreflight, compareVerdicts, isInsideDir, mismatchLines, readVerdictTable } from "./ci.js";
import { cacheSecret, ensurePrivateDir, UntrustedCacheError } from "../verify/cache/user-cache.js";

export type ProveFormat = "text" | "json" | "sarif" | "junit";
type Report = ProofReport;

export const DEFAULT_CACHE_DIR = path.join(PROOFS_DIR, ".cache");
/** The committed verdict table of the bundled editions (scripts/verdicts.ts writes it). */
export const VERDICT_TABLE = path.join(PROOFS_DIR, "verdicts.tsv");
const VERSION = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;

export interface ProveResult {
  edition: string;
  dir: string;
  outDir: string;
  report?: Report;
  ir?: IREdition;
  /** state/action files written per obligation id */
  files?: Map<string, { state: string; action: string }>;
  errors: number;
  /** an error-severity obligation is refuted or unknown (what `all` reports) */
  failed: boolean;
  ms: number;
}

export interface ProveOneOptions {
  format: ProveFormat;
  /** safety net of one obligation (solver CPU time) (ms; default: the prover's) */
  timeoutMs?: number;
  /** resource budget of one obligation (rlimit units; default: the prover's, README "Budgets") */
  rlimit?: number;
  out?: string;
  /** whole-run deadline in ms (from the start of this edition) */
  deadlineMs?: number;
  /** proof cache folder; false = no cache (default proofs/.cache) */
  cacheDir?: string | false;
  /** run Z3 in a child process (default true) */
  isolate?: boolean;
  /** progress on stderr (default true) */
  progress?: boolean;
  /** solver processes shared with the other editions of the run */
  pool?: SolverPool;
  /** verdicts shared with the other editions of the run (a variant's unchanged obligations) */
  memo?: ProveOptions["memo"];
  /** prove one shard of the obligations */
  shard?: { index: number; count: number };
  /** folders of scenario files whose states are tried as witnesses first (default test/scenarios); false = none */
  witnesses?: string[] | false;
  /** slice invariants to the cone of influence (default true) */
  slicing?: boolean;
  /** which obligations get an .smt2 file (default "findings") */
  smt2?: ProveOptions["smt2"];
  /** --watch: witnesses are judged by validators generated from the rule files as they are when generated/ is stale */
  watching?: boolean;
}

/** Where proofs of an edition folder go: proofs/<edition> for bundled ones, `<folder>/proofs` for a folder outside the project, proofs/.fixtures/<folder name> otherwise (git-ignored). */
export function proofsDirFor(ref: { dir: string; bundled: boolean }, name: string): string {
  if (!ref.bundled && outsideProject(ref.dir)) return path.join(ref.dir, "proofs"); // a variant anywhere (issue 28): beside its rules
  return ref.bundled ? path.join("proofs", name) : path.join("proofs", ".fixtures", name);
}

export async function proveOne(arg: string, opts: ProveOneOptions): Promise<ProveResult> {
  const t0 = performance.now();
  const ref = resolveEdition(arg);
  const res = compile(ref, opts.format === "text" ? "text" : "json");
  const name = path.basename(ref.dir);
  if (!res.edition) return { edition: name, dir: ref.dir, outDir: "", errors: errorCount(res.diagnostics), failed: true, ms: performance.now() - t0 };
  const ir = res.edition;
  const outDir = opts.out ?? proofsDirFor(ref, name);
  clearOutDir(outDir);
  const progress = new Progress(`prove ${ref.bundled ? editionFolder(ir) : ref.dir}`, opts.progress !== false);
  const cacheDir = opts.cacheDir === false ? undefined : (opts.cacheDir ?? DEFAULT_CACHE_DIR);
  const cache = cacheDir === undefined ? undefined : new ProofCache(cacheDir, ref.dir);
  // a variant: the verdicts of obligations whose slice its changes leave alone, from the parent's cache (issue 28)
  const fromParent = cache && res.parentDir ? reuseParentProofs(ir, res.parentDir, cache, cacheDir!, opts.rlimit) : undefined;
  if (fromParent && opts.format === "text" && opts.progress !== false) process.stderr.write(`prove ${ref.bundled ? editionFolder(ir) : ref.dir}: ${describeParentReuse(fromParent)}\n`);
  const report = await proveEdition(ir, {
    timeoutMs: opts.timeoutMs,
    rlimit: opts.rlimit,
    outDir,
    // report.json is written below, compact (example states in files of their own)
    writeReport: false,
    cache,
    isolate: opts.isolate !== false,
    deadlineMs: opts.deadlineMs,
    onProgress: (e) => progress.event(e),
    pool: opts.pool,
    memo: opts.memo,
    shard: opts.shard,
    slicing: opts.slicing,
    smt2: opts.smt2,
    // judged only if some obligation is not answered by the cache or by another edition's verdict
    witnesses: opts.witnesses === false ? undefined : () => witnessesFor(ref, ir, opts.witnesses === false ? undefined : opts.witnesses),
  });
  progress.end(report.obligations.length);
  cache?.save(!opts.shard); // ours (passed in): saved as proveEdition saves its own, pruned but for a shard
  // counterexamples and witnesses as files that `rulewright check` replays; the report points at them
  const files = writeExampleFiles(outDir, report.obligations);
  fs.writeFileSync(path.join(outDir, "report.json"), JSON.stringify(compactReport(report, files), null, 2) + "\n");
  // where the time went, per obligation (run-dependent; bench/prove.ts and README "Profile" read it)
  fs.writeFileSync(path.join(outDir, "profile.json"), JSON.stringify({ edition: report.edition, ms: report.ms, obligations: report.obligations.map((o) => ({ id: o.id, kind: o.kind, verdict: o.verdict, ms: o.ms, cached: !!o.cached, reusedFrom: o.reusedFrom, witness: o.witness?.source ? "concrete" : o.witness ? "solver" : undefined, ...o.profile })) }, null, 2) + "\n");
  const failed = report.obligations.some((o) => o.severity === "error" && o.verdict !== "proved");
  return { edition: editionFolder(ir), dir: ref.dir, outDir, report, ir, files, errors: 0, failed, ms: performance.now() - t0 };
}

/** Where the states of witnesses are kept, once per distinct state (many obligations share a scenario's state). */
const WITNESS_STATES = path.join("witnesses", "states");

/**
 * Empties an edition's output folder for a new run, keeping the witness states
 * (`witnesses/states/<hash>.state.json`, named by content: a file there never changes, and
 * rewriting hundreds of large states on every run cost seconds). Creates the folder.
 */
function clearOutDir(outDir: string): void {
  fs.mkdirSync(outDir, { recursive: true });
  for (const e of fs.readdirSync(outDir)) {
    if (e !== "witnesses") fs.rmSync(path.join(outDir, e), { recursive: true, force: true });
  }
  const w = path.join(outDir, "witnesses");
  if (fs.existsSync(w)) for (const e of fs.readdirSync(w)) if (e !== "states") fs.rmSync(path.join(w, e), { recursive: true, force: true });
}

/**
 * Writes every counterexample as `counterexamples/<id>.state.json` + `.action.json`, and every
 * witness as `witnesses/<id>.action.json` with its state in `witnesses/states/<hash>.state.json`
 * (written if absent; the states no witness uses any more are removed). Returns the files per
 * obligation id, as report.json names them.
 */
function writeExampleFiles(outDir: string, obligations: readonly ObligationResult[]): Map<string, { state: string; action: string }> {
  const files = new Map<string, { state: string; action: string }>();
  const statesDir = path.join(outDir, WITNESS_STATES);
  const used = new Set<string>();
  for (const o of obligations) {
    const ex = o.counterexample ?? o.witness;
    if (!ex) continue;
    const cdir = path.join(outDir, o.counterexample ? "counterexamples" : "witnesses");
    fs.mkdirSync(cdir, { recursive: true });
    const base = path.join(cdir, safeName(o.id));
    const text = JSON.stringify(ex.state, null, 2) + "\n";
    let state = base + ".state.json";
    if (o.counterexample) fs.writeFileSync(state, text);
    else {
      const name = `${createHash("sha256").update(text).digest("hex").slice(0, 20)}.state.json`;
      state = path.join(statesDir, name);
      used.add(name);
      if (!fs.existsSync(state)) {
        fs.mkdirSync(statesDir, { recursive: true });
        fs.writeFileSync(state, text);
      }
    }
    fs.writeFileSync(base + ".action.json", JSON.stringify(ex.action, null, 2) + "\n");
    files.set(o.id, { state, action: base + ".action.json" });
  }
  if (fs.existsSync(statesDir)) for (const e of fs.readdirSync(statesDir)) if (!used.has(e)) fs.rmSync(path.join(statesDir, e), { force: true });
  return files;
}

/**
 * The report as written to report.json and printed by `--format json`: no timings and, instead
 * of whole states, the files that hold them (the facts that matter stay).
 */
export function compactReport(report: Report, files: Map<string, { state: string; action: string }>): unknown {
  return {
    ...report,
    obligations: report.obligations.map((o) => {
      const { ms: _ms, profile: _profile, counterexample, witness, ...rest } = o as ObligationResult & { ms?: number };
      const f = files.get(o.id);
      const slim = (ex: ObligationResult["witness"]) =>
        ex && { action: ex.action, replayable: ex.replayable, reason: ex.reason, facts: ex.facts, minimal: ex.minimal, source: ex.source, stateFile: f?.state, actionFile: f?.action };
      return { ...rest, counterexample: slim(counterexample), witness: slim(witness) };
    }),
    ms: undefined,
  };
}

/**
 * The concrete witness candidates of an edition (compiler/engine/witnesses.ts): scenario states its
 * validators and interpreter agree on, and the judge of earlier witnesses. When a bundled
 * edition's generated/ is stale (a designer edited a rule and proves before `build`), the judge
 * uses validators generated from the rule files for this run (in the user's code cache; generated/
 * is left alone): a concrete witness then still spares a search. Undefined (the solver does all
 * the work) when no validators can be loaded.
 */
async function witnessesFor(ref: EditionRef, ir: IREdition, roots: string[] | undefined): Promise<Witnesses | undefined> {
  const checkers = (actions?: readonly string[]) => loadCheckers(ref, ir, { generateWhenStale: true, quiet: true, actions });
  if (!needsGenerating(ref, ir)) {
    try {
      const judge = judgeWith(ir, await checkers());
      return { states: scenarioWitnesses(judge, roots), judge };
    } catch {
      return undefined;
    }
  }
  // the validators have to be generated: the interpreter picks the states, the solver processes
  // try them, and a witness counts once the generated validators agree (verify's Witnesses.confirm)
  const { judge, confirm } = stagedJudge(ir, checkers);
  return { states: scenarioWitnesses(judge, roots), judge, confirm };
}

/** The command that replays an obligation's counterexample (or undefined when it has none). */
export function replayCommand(r: ProveResult, o: ObligationResult): string | undefined {
  const f = r.files?.get(o.id);
  if (!o.counterexample || !f) return undefined;
  return replayCommandFor(r.dir, f.state, f.action);
}

const sevColor = (s: string) => (s === "error" ? color.red(s) : s === "warning" ? color.yellow(s) : s === "info" ? color.cyan(s) : color.dim(s));

/** The explanation of one obligation's verdict, as indented text lines. */
export function explainLines(r: ProveResult, o: ObligationResult, indent = "    "): string[] {
  const ir = r.ir!;
  const lines: string[] = [];
  lines.push(`${indent}${verdictMessage(o, ir)}`);
  // what the verdict means (compiler/ir/explanations.ts, shared with the report and the hover)
  lines.push(`${indent}${color.dim(verdictMeaning(o))}`);
  if (o.severityNote) lines.push(`${indent}severity ${o.severity}: ${o.severityNote}`);
  const ids = involved(o);
  if (ids.length) {
    lines.push(`${indent}involves:`);
    const infos = ids.map((id) => idInfo(ir, id)).filter((x): x is NonNullable<typeof x> => !!x);
    const w = Math.max(...infos.map((i) => i.id.length));
    for (const i of infos) lines.push(`${indent}  ${i.id.padEnd(w)}  ${i.what.padEnd(9)} ${posText(i.pos)}${i.citation ? `  ${i.citation}` : ""}  ${color.dim(i.title)}`);
  }
  if (o.example) lines.push(`${indent}table example: ${describeTableExample(o.kind, o.example)}`);
  const ex = o.counterexample;
  if (ex) {
    lines.push(`${indent}counterexample${ex.minimal ? " — the facts that matter (any legal state with them refutes it)" : " — the facts that differ from the defaults"}:`);
    for (const f of ex.facts ?? []) lines.push(`${indent}  ${factText(f)}`);
    lines.push(`${indent}  action: ${JSON.stringify(ex.action)}${ex.replayable ? "" : color.yellow(` (not replayable: ${ex.reason})`)}`);
    const replay = replayCommand(r, o);
    if (replay) lines.push(`${indent}replay: ${replay}`);
  }
  if (o.core?.length) lines.push(`${indent}unsat core: ${o.core.join(", ")}`);
  if (o.verdict === "unknown" && o.reason) lines.push(`${indent}reason: ${o.reason}`);
  return lines;
}

/** Prints the human summary of one edition's proofs (findings explained; `verbose`: every proof with its core). */
export function printProveSummary(r: ProveResult, opts: { verbose?: boolean; failOn?: Severity } = {}): void {
  const out = (s: string) => process.stdout.write(s + "\n");
  if (!r.report) {
    out(`${r.edition}: ${color.red(`${r.errors} compile error(s)`)} — nothing proved`);
    return;
  }
  const obs = r.report.obligations;
  const count = (v: string) => obs.filter((o) => o.verdict === v).length;
  const { solved, cached, reused } = r.report.summary;
  const witnessed = obs.filter((o) => !o.cached && !o.reusedFrom && o.witness?.source).length;
  out(
    `${color.bold(r.edition)}${r.dir !== `dsl/${r.edition}` ? ` (${r.dir})` : ""}: ${obs.length} obligations — ${color.green(`${count("proved")} proved`)}, ${count("refuted") ? color.red(`${count("refuted")} refuted`) : "0 refuted"}, ${count("unknown") ? color.yellow(`${count("unknown")} unknown`) : "0 unknown"} (${(r.ms / 1000).toFixed(1)} s; ${solved} solved${witnessed ? ` (${witnessed} by a concrete witness)` : ""}, ${cached} from the proof cache${reused ? `, ${reused} shared with another edition` : ""})`,
  );
  for (const kind of KIND_ORDER) {
    const list = obs.filter((o) => o.kind === kind);
    if (!list.length) continue;
    const p = list.filter((o) => o.verdict === "proved").length;
    out(`  ${kind.padEnd(21)} ${String(p).padStart(3)}/${list.length} proved`);
  }
  const rank = { error: 0, warning: 1, info: 2, off: 3 } as const;
  const findings = obs.filter((o) => o.verdict !== "proved").sort((a, b) => rank[a.severity] - rank[b.severity] || (a.id < b.id ? -1 : 1));
  for (const o of findings) {
    const mark = o.verdict === "unknown" ? color.yellow("unknown") : color.red("refuted");
    const gate = counts(o, opts.failOn ?? "error") ? "" : color.dim(" (does not fail the run)");
    out(`  ${mark} ${sevColor(o.severity)} ${o.kind} ${o.id}${gate}`);
    for (const l of explainLines(r, o)) out(l);
  }
  if (opts.verbose) {
    for (const o of obs.filter((x) => x.verdict === "proved")) {
      out(`  ${color.green("proved")} ${o.id}${o.cached ? color.dim(" (cached)") : ""}: ${o.vacuous ? (o.reason ?? "vacuous") : claim(o)}`);
      if (o.core) out(`    unsat core: ${o.core.length ? o.core.join(", ") : "(nothing: the domain alone)"}`);
      else if (o.witness) out(`    witness: ${(o.witness.facts ?? []).map(factText).join("; ") || "(the default state)"} — ${JSON.stringify(o.witness.action)}`);
    }
  }
  out(`  report: ${path.join(r.outDir, "report.json")}`);
}

export interface ProveCommandOptions {
  format: ProveFormat;
  timeout?: string;
  /** resource budget of one obligation (parseRlimit) */
  rlimit?: string;
  out?: string;
  failOn?: string;
  deadline?: string;
  cache?: boolean;
  cacheDir?: string;
  isolate?: boolean;
  verbose?: boolean;
  quiet?: boolean;
  /** `i/n`: prove the i-th of n shards */
  shard?: string;
  /** solver processes (default one per core) */
  workers?: string;
  /** scenario folders whose states are witness candidates; false with --no-witnesses */
  witnesses?: string | boolean;
  /** false with --no-slice */
  slice?: boolean;
  /** --smt2: a benchmark for every obligation */
  smt2?: boolean;
  /** prove again on every save of an edition's rule, schema or board file (compiler/cli/watch.ts) */
  watch?: boolean;
  /** --watch: ends the watch (tests); the CLI ends it on Ctrl-C */
  signal?: AbortSignal;
  onRun?: (r: WatchRun) => void;
  /** --ci: trust nothing from the checkout (compiler/cli/ci.ts; README "Proving in CI") */
  ci?: boolean;
  /** a verdict table (proofs/verdicts.tsv) the fresh verdicts must equal */
  expectVerdicts?: string;
}

/** The exit code of a prove run (see the file comment). */
export function proveExitCode(results: ProveResult[], failOn: Severity): number {
  if (results.some((r) => !r.report)) return 2;
  const obs = results.flatMap((r) => r.report!.obligations);
  if (obs.some((o) => o.verdict === "refuted" && counts(o, failOn))) return 1;
  if (obs.some((o) => o.verdict === "unknown" && counts(o, failOn))) return 3;
  return 0;
}

export async function proveCommand(editions: string[], opts: ProveCommandOptions): Promise<number> {
  const names = editions.length ? editions : bundledEditions();
  if (!names.length) throw new UsageError("no editions found under dsl/", 2);
  let timeoutMs: number | undefined;
  if (opts.timeout !== undefined) timeoutMs = parseMillis(opts.timeout, "--timeout");
  const rlimit = opts.rlimit !== undefined ? parseRlimit(opts.rlimit) : undefined;
  const failOn = (opts.failOn ?? "error") as Severity;
  if (!["error", "warning", "info"].includes(failOn)) throw new UsageError(`--fail-on takes error, warning or info, not \`${opts.failOn}\``, 2);
  const deadlineMs = opts.deadline !== undefined ? parseDuration(opts.deadline, "--deadline") : undefined;
  if (opts.out && names.length > 1) throw new UsageError("--out takes one edition", 2);
  const shard = opts.shard !== undefined ? parseShard(opts.shard) : undefined;
  let workers: number | undefined;
  if (opts.workers !== undefined) {
    workers = Number(opts.workers);
    if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new UsageError(`--workers takes a number of solver processes from 1 to 64, not \`${opts.workers}\``, 2);
  }
  if (opts.cacheDir !== undefined && opts.cache !== false && fs.existsSync(opts.cacheDir) && !fs.statSync(opts.cacheDir).isDirectory())
    throw new UsageError(`--cache-dir \`${opts.cacheDir}\` is a file, not a folder`, 2, "give a folder (it is created when missing), or --no-cache");
  const witnesses = opts.witnesses === false ? false : typeof opts.witnesses === "string" ? opts.witnesses.split(",") : undefined;
  // --ci and --expect-verdicts (issue 29, compiler/cli/ci.ts): no cache from the checkout (none at
  // all unless --cache-dir names a folder outside it), a committed proof cache fails the run, the
  // verdicts are compared with the verdict table (by default proofs/verdicts.tsv when every
  // edition is a bundled one and the run is not a shard); any cache used is sealed with the
  // user's key (compiler/verify/cache/user-cache.ts), checked before anything is proved
  if (opts.ci && opts.watch) throw new UsageError("--ci proves once; it does not take --watch", 2);
  if (opts.ci) ciPreflight(opts.cache === false ? undefined : opts.cacheDir);
  const useCache = opts.cache !== false && (!opts.ci || opts.cacheDir !== undefined);
  if (useCache) {
    try {
      cacheSecret();
      // a cache folder outside the project is held to the per-user folder's rules (0700, yours)
      if (opts.cacheDir !== undefined && !isInsideDir(opts.cacheDir, process.cwd())) ensurePrivateDir(path.resolve(opts.cacheDir));
    } catch (e) {
      if (e instanceof UntrustedCacheError) throw new UsageError(e.message, 2, `${e.help}; or prove with --no-cache`);
      throw e;
    }
  }
  if (opts.expectVerdicts !== undefined && shard) throw new UsageError("--expect-verdicts compares whole editions; a --shard run proves only part of them", 2, "compare the merged report, or drop --shard");
  const bundledOnly = names.every((n) => resolveEdition(n).bundled);
  const verdictFile = opts.expectVerdicts ?? (opts.ci && !shard && bundledOnly && fs.existsSync(VERDICT_TABLE) ? VERDICT_TABLE : undefined);
  const verdictTable = verdictFile === undefined ? undefined : readVerdictTable(verdictFile);
  const results: ProveResult[] = [];
  // one pool of solver processes and one table of verdicts for every edition of the run
  const pool = opts.isolate === false ? undefined : new SolverPool(workers);
  // one solver process loads Z3 while the editions compile (each run then asks for as many as it needs)
  pool?.boot();
  const base = (memo: NonNullable<ProveOptions["memo"]>, watching: boolean): ProveOneOptions => ({
    format: opts.format,
    timeoutMs,
    rlimit,
    out: opts.out,
    deadlineMs,
    cacheDir: useCache ? opts.cacheDir : false,
    isolate: opts.isolate,
    // a watch captures each run's output: no progress in it
    progress: !opts.quiet && !watching,
    pool,
    memo,
    shard,
    witnesses,
    slicing: opts.slice,
    smt2: opts.smt2 ? "all" : undefined,
    watching,
  });
  if (opts.watch) {
    try {
      if (opts.format === "sarif" || opts.format === "junit") throw new UsageError(`--watch prints text or JSON, not ${opts.format}`, 2, "drop --watch to write a SARIF or JUnit document once");
      return await proveWatch(names, opts, failOn, (memo) => base(memo, true));
    } finally {
      await pool?.close();
    }
  }
  try {
    // every edition at once: the pool stays busy, and a variant's obligations wait for the verdicts
    // its parent's identical ones get (memo) instead of being solved twice
    const memo: NonNullable<ProveOptions["memo"]> = new Map();
    results.push(...(await Promise.all(names.map((n) => proveOne(n, base(memo, false))))));
  } finally {
    await pool?.close();
  }
  const inputs: FormatInput[] = results.filter((r) => r.report).map((r) => ({ ir: r.ir!, report: r.report!, replay: (o) => replayCommand(r, o) }));
  const code = proveExitCode(results, failOn);
  if (opts.format === "json") {
    process.stdout.write(
      JSON.stringify(
        results.map((r) => ({
          edition: r.edition,
          dir: r.dir,
          outDir: r.outDir,
          compileErrors: r.errors,
          failed: r.failed,
          report: r.report && compactReport(r.report, r.files ?? new Map()),
        })),
        null,
        2,
      ) + "\n",
    );
  } else if (opts.format === "sarif") {
    process.stdout.write(JSON.stringify(toSarif(inputs, VERSION), null, 2) + "\n");
  } else if (opts.format === "junit") {
    process.stdout.write(toJunit(inputs, failOn));
  } else {
    for (const r of results) printProveSummary(r, { verbose: opts.verbose, failOn });
    if (code === 3) process.stdout.write(color.yellow(`not proved: an obligation at or above --fail-on ${failOn} is unknown (exit 3)\n`));
  }
  if (verdictTable && verdictFile !== undefined && code !== 2) return expectVerdicts(verdictFile, verdictTable, results, opts.format, code);
  return code;
}

/**
 * `--expect-verdicts` (and `--ci`): compares the run's verdicts with the verdict table; prints the
 * differences on stderr (stdout holds only the document with --format json|sarif|junit) and
 * returns 1 when there is one, else `code` (the run's exit code).
 */
function expectVerdicts(file: string, table: Map<string, string>, results: ProveResult[], format: ProveFormat, code: number): number {
  const mismatches = compareVerdicts(table, results.map((r) => ({ edition: r.ir!.name, obligations: r.report!.obligations })));
  if (!mismatches.length) {
    if (format === "text") process.stdout.write(color.dim(`verdicts: every obligation as in ${file}\n`));
    return code;
  }
  process.stderr.write(`${color.red("verdicts differ")} from ${file} (${mismatches.length}):\n${mismatchLines(file, mismatches).join("\n")}\n`);
  process.stderr.write("  the committed table must equal a fresh proof: fix the rules, or after a change made on purpose run `npx rulewright prove && npm run verdicts` and review the diff\n");
  return 1;
}

/** A verdict that differs between two runs of `prove --watch`; `before`/`after` absent: the obligation is new / gone. */
export interface VerdictChange {
  id: string;
  kind: string;
  severity: string;
  before?: ObligationResult["verdict"];
  after?: ObligationResult["verdict"];
}

/** The obligations whose verdict (or severity) differs between two reports, in id order; every obligation when there is no `before`. */
export function verdictChanges(before: Report | undefined, after: Report): VerdictChange[] {
  const old = new Map((before?.obligations ?? []).map((o) => [o.id, o]));
  const now = new Map(after.obligations.map((o) => [o.id, o]));
  const changes: VerdictChange[] = [];
  for (const o of after.obligations) {
    const b = old.get(o.id);
    if (!b || b.verdict !== o.verdict || b.severity !== o.severity) changes.push({ id: o.id, kind: o.kind, severity: o.severity, ...(b ? { before: b.verdict } : {}), after: o.verdict });
  }
  for (const b of old.values()) if (!now.has(b.id)) changes.push({ id: b.id, kind: b.kind, severity: b.severity, before: b.verdict });
  return changes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * `prove --watch`: every edition proved at start (the usual summary), then, after each save, the
 * editions the saved files belong to (`affects`; every edition whose last run did not compile),
 * through the proof cache, with the one pool of solver processes (closed by the caller when the
 * watch ends; runs never overlap, so a solver check is never abandoned). A run after the first
 * prints per edition proved again `re-solved N of M obligations, K from the proof cache` and only
 * the verdicts that changed since its last report (explained when not proved), or that none did;
 * `--format json` prints per edition `{ edition, dir, compileErrors, total, solved, cached,
 * reused, changes }` (on the first run every obligation is a change). The exit code is that of
 * the editions' last runs (`proveExitCode`).
 */
async function proveWatch(names: string[], opts: ProveCommandOptions, failOn: Severity, base: (memo: NonNullable<ProveOptions["memo"]>) => ProveOneOptions): Promise<number> {
  const { watch, affects } = await import("./watch.js");
  const refs = names.map((n) => ({ name: n, ref: resolveEdition(n) }));
  // the last run of each edition, and its last run that compiled (verdicts are compared with it)
  const last = new Map<string, ProveResult>();
  const proved = new Map<string, ProveResult>();
  const out = (s: string) => process.stdout.write(s + "\n");
  const run = async (changed: readonly string[]): Promise<number> => {
    const todo = refs.filter(({ name, ref }) => !changed.length || !last.has(name) || affects(changed, ref.dir, last.get(name)!.ir?.inputs, ref.root));
    const memo: NonNullable<ProveOptions["memo"]> = new Map();
    const results = await Promise.all(todo.map(({ name }) => proveOne(name, base(memo))));
    const json: unknown[] = [];
    for (const [i, { name }] of todo.entries()) {
      const r = results[i];
      const before = proved.get(name);
      last.set(name, r);
      if (!r.report) {
        if (opts.format === "json") json.push({ edition: r.edition, dir: r.dir, compileErrors: r.errors });
        else out(`${r.edition}: ${color.red(`${r.errors} compile error(s)`)} — nothing proved${before ? "; the verdicts of its last run stand" : ""}`);
        continue;
      }
      proved.set(name, r);
      const { solved, cached, reused } = r.report.summary;
      const total = r.report.obligations.length;
      const changes = verdictChanges(before?.report, r.report);
      if (opts.format === "json") {
        json.push({ edition: r.edition, dir: r.dir, outDir: r.outDir, compileErrors: 0, total, solved, cached, reused, changes });
        continue;
      }
      if (!before) {
        printProveSummary(r, { verbose: opts.verbose, failOn });
        continue;
      }
      out(`${color.bold(r.edition)}: re-solved ${solved} of ${total} obligations, ${cached} from the proof cache${reused ? `, ${reused} shared with another edition` : ""} (${(r.ms / 1000).toFixed(1)} s)`);
      if (!changes.length) out(color.dim("  no verdict changed"));
      const byId = new Map(r.report.obligations.map((o) => [o.id, o]));
      for (const c of changes) {
        const paint = (v?: string) => (v === "proved" ? color.green(v) : v === "refuted" ? color.red(v) : v ? color.yellow(v) : "");
        if (!c.after) {
          out(`  gone ${c.id} (was ${paint(c.before)})`);
          continue;
        }
        out(`  ${c.before ? `${paint(c.before)} → ${paint(c.after)}` : `new ${paint(c.after)}`} ${sevColor(c.severity)} ${c.kind} ${c.id}`);
        const o = byId.get(c.id)!;
        if (o.verdict !== "proved") for (const l of explainLines(r, o)) out(l);
      }
    }
    if (opts.format === "json") process.stdout.write(JSON.stringify(json, null, 2) + "\n");
    else if (!todo.length) out("no edition uses the saved files");
    const code = proveExitCode([...last.values()], failOn);
    if (opts.format !== "json" && code === 3) out(color.yellow(`not proved: an obligation at or above --fail-on ${failOn} is unknown (exit 3)`));
    return code;
  };
  const dirs = refs.map(({ ref }) => (ref.root ? path.join(ref.root, ref.dir) : ref.dir));
  return watch({ label: "prove", paths: [...new Set([...dirs, DSL_DIR])].filter((p) => fs.existsSync(p)), ignore: opts.out !== undefined ? [opts.out] : [], format: opts.format === "json" ? "json" : "text", whole: true, signal: opts.signal, onRun: opts.onRun, run });
}
