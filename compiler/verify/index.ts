/**
 * Verification entry: IR → proof obligations → (cache | Z3) → ProofReport (+ proofs/<edition>/ files).
 *
 * obligations.ts says what to prove, analyses.ts how each analysis is asked, solve.ts solves one
 * obligation, runner.ts runs many (in a solver child process with a watchdog and a deadline, or
 * in this process), cache.ts reuses verdicts whose inputs did not change. Never imports codegen.
 */
import fs from "node:fs";
import path from "node:path";
import type { IREdition } from "../ir/types.js";
import { obligationKeys, ProofCache } from "./cache.js";
import { obligationsFor, safeName, type Obligation } from "./obligations.js";
import { runInProcess, runIsolated } from "./runner.js";
import type { Example, SolvedObligation, StuckInfo } from "./solve.js";
import type { TableExample } from "./tables.js";

export { obligationsFor, safeName, type Obligation } from "./obligations.js";
export type { Example, Fact, StuckInfo } from "./solve.js";
export { describeTableExample, tableObligations, type TableExample } from "./tables.js";

export interface ObligationResult extends Obligation {
  verdict: "proved" | "refuted" | "unknown";
  /** refuted contradiction / obligation_clash / stuck_power: the state (+ action) that refutes it */
  counterexample?: Example;
  /** proved always_forbidden / dead_rule / redundant_rule / swallowing_exemption: the state that shows it */
  witness?: Example;
  /** unsat core (rule, exemption and invariant ids) whenever the check was unsat */
  core?: string[];
  /** refuted table_gap / table_overlap: the offending inputs, their keys and the matching rows */
  example?: TableExample;
  /** why the verdict is unknown (timeout, deadline, solver process crash, unsupported construct, …) or vacuous */
  reason?: string;
  /** proved only because the subject never applies (redundant_rule, swallowing_exemption of a dead rule) */
  vacuous?: boolean;
  /** stuck_power counterexample: the power, and what blocks each of its actions */
  stuck?: StuckInfo;
  /** file name of the SMT-LIB benchmark, relative to outDir */
  smt2: string;
  /** the verdict came from the proof cache (not solved in this run) */
  cached?: boolean;
  /** wall time of this obligation (strip for determinism; 0 when cached) */
  ms: number;
}

export interface ProofReport {
  edition: string;
  inputHash: string;
  obligations: ObligationResult[];
  summary: {
    proved: number;
    refuted: number;
    unknown: number;
    /** refuted obligations of severity error / warning / info */
    errors: number;
    warnings: number;
    infos: number;
    /** obligations solved in this run / taken from the proof cache (run-dependent, like `ms`) */
    solved: number;
    cached: number;
  };
  bounds: { listBound: number; timeoutMs: number; lists: { path: string; bound: number }[]; note: string };
  /** wall time of the whole run (strip for determinism) */
  ms: number;
}

export interface ProveOptions {
  /** per-obligation solver timeout (default 10 000 ms) */
  timeoutMs?: number;
  /** bound of list-typed action parameters (default 4) */
  listBound?: number;
  /** write report.json and one <id>.smt2 per obligation here */
  outDir?: string;
  /** reuse and store verdicts in `<cacheDir>/<cacheName>.json.gz` (cache.ts); absent = no cache */
  cacheDir?: string;
  /** the cache file's name (default: the edition name; the CLI uses the edition folder) */
  cacheName?: string;
  /** run Z3 in a child process (runner.ts): a crash or hang becomes `unknown`. Default false */
  isolate?: boolean;
  /** whole-run deadline in ms: obligations not solved by then are `unknown` */
  deadlineMs?: number;
  /** isolated mode: kill a solver process silent for this long on one obligation (default 3 × timeout + 15 s) */
  killAfterMs?: number;
  /** prove only these obligations (the report lists only them; the cache is then not pruned) */
  only?: (ob: Obligation) => boolean;
  /** progress: called when an obligation starts solving and when it has a verdict */
  onProgress?: (e: ProgressEvent) => void;
}

export interface ProgressEvent {
  type: "start" | "done";
  id: string;
  /** obligations with a verdict so far / in all */
  done: number;
  total: number;
  verdict?: ObligationResult["verdict"];
  cached?: boolean;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_LIST_BOUND = 4;

/**
 * Proves an edition. Every obligation gets a verdict: a timeout, an encoding error, a solver
 * crash or the deadline give `unknown` (with `reason`), never `proved`; nothing throws for them.
 * @throws only on I/O errors writing `outDir` or the cache.
 */
export async function proveEdition(ir: IREdition, opts: ProveOptions = {}): Promise<ProofReport> {
  const t0 = performance.now();
  const timeoutMs = Math.max(1, Math.floor(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS));
  const listBound = opts.listBound ?? DEFAULT_LIST_BOUND;
  const all = obligationsFor(ir);
  const obligations = opts.only ? all.filter(opts.only) : all;
  const keys = obligationKeys(ir, obligations, { listBound });
  const keyOf = new Map(obligations.map((ob, i) => [ob.id, keys[i]]));
  const cache = opts.cacheDir ? new ProofCache(opts.cacheDir, opts.cacheName ?? ir.name) : undefined;
  const results = new Map<string, ObligationResult>();
  const smt2 = new Map<string, string>();
  const total = obligations.length;
  const settle = (ob: Obligation, r: SolvedObligation, ms: number, cached: boolean) => {
    const { smt2: text, ...rest } = r;
    smt2.set(ob.id, text);
    results.set(ob.id, { ...ob, ...rest, smt2: `${safeName(ob.id)}.smt2`, ...(cached ? { cached: true } : {}), ms });
    opts.onProgress?.({ type: "done", id: ob.id, done: results.size, total, verdict: r.verdict, cached });
  };

  const toSolve: Obligation[] = [];
  for (const ob of obligations) {
    const hit = cache?.get(keyOf.get(ob.id)!);
    if (hit) settle(ob, hit, 0, true);
    else toSolve.push(ob);
  }
  if (toSolve.length) {
    const byId = new Map(toSolve.map((ob) => [ob.id, ob]));
    const run = opts.isolate ? runIsolated : runInProcess;
    await run(ir, toSolve, {
      timeoutMs,
      listBound,
      deadline: opts.deadlineMs === undefined ? undefined : t0 + opts.deadlineMs,
      killAfterMs: opts.killAfterMs ?? 3 * timeoutMs + 15_000,
      onStart: (id) => opts.onProgress?.({ type: "start", id, done: results.size, total }),
      onResult: (id, r, ms) => {
        const ob = byId.get(id);
        if (!ob || results.has(id)) return;
        settle(ob, r, ms, false);
        cache?.set(keyOf.get(id)!, r);
      },
    });
  }
  cache?.save(!opts.only);

  const list = obligations.map((ob) => results.get(ob.id)!);
  const count = (f: (o: ObligationResult) => boolean) => list.filter(f).length;
  const report: ProofReport = {
    edition: ir.name,
    inputHash: ir.inputHash,
    obligations: list,
    summary: {
      proved: count((o) => o.verdict === "proved"),
      refuted: count((o) => o.verdict === "refuted"),
      unknown: count((o) => o.verdict === "unknown"),
      errors: count((o) => o.severity === "error" && o.verdict === "refuted"),
      warnings: count((o) => o.severity === "warning" && o.verdict === "refuted"),
      infos: count((o) => o.severity === "info" && o.verdict === "refuted"),
      solved: count((o) => !o.cached),
      cached: count((o) => !!o.cached),
    },
    bounds: {
      listBound,
      timeoutMs,
      lists: listBounds(ir),
      note:
        `state lists are unrolled to their schema maxItems (exact); list-typed action parameters to ${listBound} items ` +
        `(a proof about them holds only up to that length); routes are uninterpreted predicates`,
    },
    ms: Math.round(performance.now() - t0),
  };
  if (opts.outDir) {
    fs.mkdirSync(opts.outDir, { recursive: true });
    for (const o of list) fs.writeFileSync(path.join(opts.outDir, o.smt2), smt2.get(o.id) ?? `; ${o.id}: not encoded\n`);
    fs.writeFileSync(path.join(opts.outDir, "report.json"), JSON.stringify(report, null, 2) + "\n");
  }
  return report;
}

/** Every state list path with its bound (map keys shown as `[*]`). */
function listBounds(ir: IREdition): { path: string; bound: number }[] {
  const out: { path: string; bound: number }[] = [];
  const walk = (p: string, t: IREdition["state"]["fields"][number]["type"]): void => {
    if (t.k === "record") for (const f of t.fields) walk(`${p}.${f.name}`, f.type);
    else if (t.k === "map") walk(`${p}[*]`, t.value);
    else if (t.k === "list") {
      out.push({ path: p, bound: t.bound });
      walk(`${p}[i]`, t.elem);
    }
  };
  walk("state", ir.state);
  return out;
}
