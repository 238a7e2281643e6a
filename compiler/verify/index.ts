/**
 * Verification entry: IR → proof obligations → (cache | Z3) → ProofReport (+ proofs/<edition>/ files).
 *
 * compiler/ir/obligations.ts says what to prove, obligations/ what an obligation needs (its
 * invariants, candidates, what its unsat core stands for), encode/ how each analysis is asked
 * (queries.ts) in Z3 terms, run/ solves one obligation (solve.ts) and runs many (runner.ts: in
 * solver child processes with a watchdog and a deadline, or in this process), cache/ keys and
 * stores verdicts whose inputs did not change. Never imports codegen.
 */
import fs from "node:fs";
import path from "node:path";
import type { IREdition } from "../ir/types.js";
import { CORE_REUSE_KINDS, coreObligation } from "./obligations/core.js";
import { defaultsFactKey, obligationKeyer } from "./cache/keys.js";
import { ProofCache } from "./cache/store.js";
import { obligationsFor, safeName, type Obligation } from "../ir/obligations.js";
import { defaultWorkers, preparePool, runInProcess, runPool, SolverPool, type RunOptions } from "./run/runner.js";
import type { Candidate, ObligationResult, ProofReport, Smt2Mode, SolvedObligation } from "./run/results.js";
import { candidatesFor, WITNESS_KINDS, type JudgedState } from "./obligations/witnesses.js";
import { sliceInvariants } from "./obligations/slice.js";
import { DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, KILL_GRACE_MS } from "./run/limits.js";

export { obligationsFor, safeName, type Obligation } from "../ir/obligations.js";
export { SolverPool, defaultWorkers } from "./run/runner.js";
export { ProofCache } from "./cache/store.js";
export { obligationKeyer } from "./cache/keys.js";
export type { JudgedState } from "./obligations/witnesses.js";
export type { Candidate, Example, Fact, ObligationResult, ProofReport, Profile, Smt2Mode, SolvedObligation, StuckInfo } from "./run/results.js";
export { tableObligations, type TableExample } from "./run/tables.js";
export { describeTableExample } from "../ir/verdict-words.js";

export interface ProveOptions {
  /**
   * resource budget of one obligation: units of Z3's deterministic resource count (`rlimit`)
   * all its checks may use together (default `DEFAULT_RLIMIT`; README "Budgets"). Running out
   * is `unknown`, the same on every machine and under any load.
   */
  rlimit?: number;
  /**
   * CPU-time safety net of one obligation in ms, counted from its start in a solver process
   * (default `DEFAULT_TIMEOUT_MS`, far above what the budget takes): only a wedged solver hits it
   */
  timeoutMs?: number;
  /** bound of list-typed action parameters (default 4) */
  listBound?: number;
  /** write report.json and the <id>.smt2 files (see `smt2`) here */
  outDir?: string;
  /** false: write only the .smt2 files to `outDir` (a caller that writes a report.json of its own) */
  writeReport?: boolean;
  /** reuse and store verdicts in `<cacheDir>/<cacheName>.json.gz` (cache/store.ts); absent = no cache */
  cacheDir?: string;
  /** the cache file's name (default: the edition name; the CLI uses the edition folder) */
  cacheName?: string;
  /**
   * A proof cache the caller keeps loaded between runs (the language server: one read of the
   * file, then a run per edit): used instead of `cacheDir`/`cacheName`, and never saved here —
   * the caller saves it (`ProofCache.save(false)`) when it likes.
   */
  cache?: ProofCache;
  /** run Z3 in a child process (runner.ts): a crash or hang becomes `unknown`. Default false */
  isolate?: boolean;
  /** whole-run deadline in ms: obligations not solved by then are `unknown` */
  deadlineMs?: number;
  /** isolated mode: kill a solver process silent for this long on one obligation (default timeout + 30 s) */
  killAfterMs?: number;
  /** prove only these obligations (the report lists only them; the cache is then not pruned) */
  only?: (ob: Obligation) => boolean;
  /**
   * Findings first (the language server): called with an obligation's `refuted` result as soon
   * as the solver finds its model, before the counterexample is made canonical and its facts
   * minimal (facts: the model's non-default leaves, `minimal: false`). The verdict is the one the
   * obligation then gets (same solve, same budget: the polishing only picks among models); its
   * polished result comes in the report as always, and only that one is cached. Not called for
   * cached or witnessed verdicts, nor for the other verdicts.
   */
  onEarlyFinding?: (result: ObligationResult) => void;
  /** progress: called when an obligation starts solving and when it has a verdict */
  onProgress?: (e: ProgressEvent) => void;
  /** isolated mode: solver processes of the run (default one per core); ignored with `pool` */
  workers?: number;
  /** isolated mode: a pool shared with other runs (the caller closes it) */
  pool?: SolverPool;
  /** leave out the invariants outside each obligation's cone of influence (default true; README "Slicing") */
  slicing?: boolean;
  /**
   * Concrete witnesses first (README "Concrete witnesses"): judged states to try before the
   * solver searches, and the judge of an earlier run's witnesses (from the proof cache). A judge
   * returns undefined for a state the validators disagree on or that is not a valid state.
   * Given as a function, it is called only when some obligation is solved (not when the cache
   * and the shared verdicts answer every one): judging the scenario states costs seconds.
   */
  witnesses?: Witnesses | (() => Promise<Witnesses | undefined>);
  /**
   * Which obligations get an SMT-LIB benchmark (`<id>.smt2`): `findings` (default) those not
   * proved and every table obligation; `all` every one (printing a large query costs time).
   */
  smt2?: Smt2Mode;
  /** prove only shard `index` (1-based) of `count`: the obligations at positions ≡ index − 1 (mod count) in id order */
  shard?: { index: number; count: number };
  /**
   * Verdicts of this run shared across editions, by edition-independent key: an obligation whose
   * key another edition of the run already solved (a variant's unchanged rules) is not solved again.
   */
  memo?: Map<string, Promise<{ id: string; result: SolvedObligation }>>;
}

/** Judged states to try as witnesses, and the judge of an earlier run's witnesses (ProveOptions.witnesses). */
export interface Witnesses {
  /**
   * The judged states, in the order to try them; or a function giving those of one action (its
   * name), called only for the actions of the obligations solved in this run (judging costs).
   */
  states: readonly JudgedState[] | ((action: string) => readonly JudgedState[]);
  /**
   * When `states` and `judge` could only ask the interpreter so far: loads the generated
   * validators of `actions` (the actions of the obligations a witness may answer; called once,
   * when the solver processes have started on this run's obligations: the loading then does not
   * hold up their tasks) and resolves to whether they agree on a state and action (valid state,
   * same verdict). A concrete witness counts only when it resolves true (else its obligation is
   * solved again, with no candidates).
   */
  confirm?: (actions: readonly string[]) => Promise<(state: Record<string, unknown>, action: Record<string, unknown>) => boolean>;
  judge?: (state: Record<string, unknown>, action: Record<string, unknown>, source: string) => JudgedState | undefined;
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

export { DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, KILL_GRACE_MS } from "./run/limits.js";
export const DEFAULT_LIST_BOUND = 4;

/**
 * Proves an edition. Every obligation gets a verdict: a timeout, an encoding error, a solver
 * crash or the deadline give `unknown` (with `reason`), never `proved`; nothing throws for them.
 * @throws only on I/O errors writing `outDir` or the cache.
 */
export async function proveEdition(ir: IREdition, opts: ProveOptions = {}): Promise<ProofReport> {
  const t0 = performance.now();
  const listBound = opts.listBound ?? DEFAULT_LIST_BOUND;
  const obligations = selected(ir, opts);
  const keyer = obligationKeyer(ir, { listBound });
  const cache = opts.cache ?? (opts.cacheDir ? new ProofCache(opts.cacheDir, opts.cacheName ?? ir.name) : undefined);
  const slicing = opts.slicing ?? true;
  const rlimit = Math.max(1, Math.floor(opts.rlimit ?? DEFAULT_RLIMIT));
  const results = new Map<string, ObligationResult>();
  const smt2 = new Map<string, string>();
  const run: Run = {
    ir,
    opts,
    t0,
    timeoutMs: Math.max(1, Math.floor(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS)),
    rlimit,
    listBound,
    slicing,
    smt2Mode: opts.smt2 ?? "findings",
    cache,
    keyOf: new Map(obligations.map((ob) => [ob.id, keyer(ob)])),
    results,
    total: obligations.length,
    mine: new Map(),
    cores: coreReuse(ir, cache, keyer, slicing, rlimit),
    settle: (ob, r, ms, cached) => {
      const { smt2: text, profile, ...rest } = r as SolvedObligation & { reusedFrom?: string };
      if (text !== undefined) smt2.set(ob.id, retitle(text, ob));
      results.set(ob.id, { ...ob, ...rest, ...(text !== undefined ? { smt2: `${safeName(ob.id)}.smt2` } : {}), ...(cached ? { cached: true } : {}), ms, ...(profile ? { profile } : {}) });
      opts.onProgress?.({ type: "done", id: ob.id, done: results.size, total: obligations.length, verdict: r.verdict, cached });
    },
  };
  const { toSolve, twins } = lookUp(run, obligations);
  if (toSolve.length) await solveRest(run, toSolve);
  await Promise.all(twins);
  for (const ob of obligations) {
    const w = results.get(ob.id)?.witness;
    if (w) cache?.rememberWitness(ob.id, w);
  }
  if (!opts.cache) cache?.save(!opts.only && !opts.shard);
  const report = reportOf(run, obligations.map((ob) => results.get(ob.id)!));
  if (opts.outDir) {
    fs.mkdirSync(opts.outDir, { recursive: true });
    for (const o of report.obligations) if (o.smt2) fs.writeFileSync(path.join(opts.outDir, o.smt2), smt2.get(o.id) ?? `; ${o.id}: not encoded\n`);
    if (opts.writeReport !== false) fs.writeFileSync(path.join(opts.outDir, "report.json"), JSON.stringify(report, null, 2) + "\n");
  }
  return report;
}

/** What the steps of one `proveEdition` run share. */
interface Run {
  ir: IREdition;
  opts: ProveOptions;
  /** start (performance.now()) */
  t0: number;
  timeoutMs: number;
  rlimit: number;
  listBound: number;
  slicing: boolean;
  smt2Mode: Smt2Mode;
  cache?: ProofCache;
  /** obligation id → cache key */
  keyOf: Map<string, string>;
  results: Map<string, ObligationResult>;
  total: number;
  /** obligation id → the resolver of its entry in `opts.memo` (the obligations this run solves) */
  mine: Map<string, (v: { id: string; result: SolvedObligation }) => void>;
  cores: ReturnType<typeof coreReuse>;
  /** records an obligation's verdict (and its .smt2 text) and reports progress */
  settle(ob: Obligation, r: SolvedObligation, ms: number, cached: boolean): void;
}

/** The obligations of this run: `only`, then the shard. @throws RangeError on a bad shard */
function selected(ir: IREdition, opts: ProveOptions): Obligation[] {
  const all = obligationsFor(ir);
  let obligations = opts.only ? all.filter(opts.only) : all;
  if (opts.shard) {
    const { index, count } = opts.shard;
    if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 1 || index > count) throw new RangeError(`bad shard ${index}/${count}: use i/n with 1 ≤ i ≤ n`);
    obligations = obligations.filter((_, i) => i % count === index - 1);
  }
  return obligations;
}

/**
 * Reuse by unsat core (obligations/core.ts `coreObligation`): `hit` finds an unsat verdict of an
 * earlier run whose core is still asserted unchanged (the rules, their exemptions, the
 * invariants, the action and state type hashed as they are now) — it holds whatever happened to
 * the obligation's other rules; `remember` stores a new verdict under its core's key too.
 */
function coreReuse(ir: IREdition, cache: ProofCache | undefined, keyer: (ob: Obligation) => string, slicing: boolean, rlimit: number) {
  /** the ids of the invariants the query of `ob` assumes (at least: the solver may assume all) */
  const assumed = (ob: Obligation) => new Set((slicing ? sliceInvariants(ir, ob) : ir.invariants).map((i) => i.id));
  return {
    hit: (ob: Obligation): SolvedObligation | undefined => {
      if (!cache || !CORE_REUSE_KINDS.has(ob.kind)) return undefined;
      for (const c of cache.coresOf(ob.id)) {
        const core = coreObligation(ir, ob, c.core, assumed(ob));
        if (core && keyer(core) === c.key) {
          const r = cache.get(c.key, rlimit);
          if (r) return r;
        }
      }
      return undefined;
    },
    remember: (ob: Obligation, r: SolvedObligation): void => {
      if (!cache || !r.core || r.verdict === "unknown" || !CORE_REUSE_KINDS.has(ob.kind)) return;
      const core = coreObligation(ir, ob, r.core, assumed(ob));
      if (core) cache.rememberCore(ob.id, r.core, keyer(core), r);
    },
  };
}

/**
 * Settles what the cache (by key, then by core) and the run's shared verdicts (`memo`) answer;
 * returns the obligations left to solve and the verdicts of other editions still awaited.
 */
function lookUp(run: Run, obligations: Obligation[]): { toSolve: Obligation[]; twins: Promise<void>[] } {
  const { cache, opts, rlimit } = run;
  const toSolve: Obligation[] = [];
  const twins: Promise<void>[] = [];
  for (const ob of obligations) {
    const key = run.keyOf.get(ob.id)!;
    let hit = cache?.get(key, rlimit);
    if (!hit) {
      hit = run.cores.hit(ob);
      // stored under this run's key too: the next run hits it directly
      if (hit) cache?.set(key, hit);
    }
    cache?.keepCores(ob.id);
    // a cached proof printed without its SMT-LIB text is solved again when every text is asked for
    if (hit && run.smt2Mode === "all" && hit.smt2 === undefined) hit = undefined;
    const twin = hit ? undefined : opts.memo?.get(key);
    if (hit) run.settle(ob, hit, 0, true);
    else if (twin)
      twins.push(
        twin.then((t) => {
          run.settle(ob, { ...t.result, reusedFrom: t.id } as SolvedObligation, 0, false);
          cache?.set(key, t.result);
        }),
      );
    else {
      toSolve.push(ob);
      if (opts.memo) opts.memo.set(key, new Promise((resolve) => run.mine.set(ob.id, resolve)));
    }
  }
  return { toSolve, twins };
}

/**
 * The witness candidates of a run's obligations (README "Concrete witnesses"): the judged states
 * first (in their order), then the obligation's witness of an earlier run; picked once per
 * obligation, none before `witnesses` is set or after `reset`.
 */
class CandidatePicker {
  witnesses: Witnesses | undefined;
  private readonly picked = new Map<string, Candidate[]>();
  constructor(private readonly cache: ProofCache | undefined) {}

  private statesOf(action: string): readonly JudgedState[] {
    const s = this.witnesses?.states;
    return typeof s === "function" ? s(action) : (s ?? []);
  }

  readonly candidates = (ob: Obligation): Candidate[] => {
    if (!WITNESS_KINDS.has(ob.kind)) return [];
    let c = this.picked.get(ob.id);
    if (!c) {
      const earlier = this.cache?.earlierWitness(ob.id);
      const judged = earlier && this.witnesses?.judge?.(earlier.state, earlier.action, `earlier witness of ${ob.id}`);
      const states = this.statesOf(ob.action);
      this.picked.set(ob.id, (c = candidatesFor(ob, judged ? [...states, judged] : states)));
    }
    return c;
  };

  /** No candidates from now on (a solve again after a rejected witness). */
  reset(): void {
    this.witnesses = undefined;
    this.picked.clear();
  }
}

/**
 * Solves the obligations the cache and the shared verdicts left (`toSolve`), in a pool of solver
 * processes (isolated) or in this process, and settles each: the ones no witness can answer at
 * once, the others after the witnesses are judged; what a process's history can cause once more in a fresh process (`worthAnotherTry`), a
 * witness the generated validators reject solved again without candidates.
 */
async function solveRest(run: Run, toSolve: Obligation[]): Promise<void> {
  const { ir, opts, cache, results } = run;
  const byId = new Map(toSolve.map((ob) => [ob.id, ob]));
  // a pool of this run's own when isolated and none is shared (closed at the end)
  const owned = opts.isolate && !opts.pool ? new SolverPool(Math.min(opts.workers ?? defaultWorkers(), toSolve.length)) : undefined;
  const pool = opts.isolate ? (opts.pool ?? owned) : undefined;
  // the solver processes load Z3 while the witnesses are judged; one process when at most one
  // obligation is likely to need a search (the others have a witness of an earlier run to try)
  const searches = toSolve.filter((ob) => !WITNESS_KINDS.has(ob.kind) || !cache?.earlierWitness(ob.id)).length;
  const release = pool?.start(searches <= 1 ? 1 : undefined);
  const picker = new CandidatePicker(cache);
  const { candidates } = picker;
  const confirming: Promise<void>[] = [];
  let confirmP: ReturnType<NonNullable<Witnesses["confirm"]>> | undefined;
  /** the generated validators' agreement (Witnesses.confirm), loaded on first use */
  const confirming_ = () => (picker.witnesses?.confirm ? (confirmP ??= picker.witnesses.confirm([...new Set(toSolve.filter((ob) => WITNESS_KINDS.has(ob.kind)).map((ob) => ob.action))].sort())) : undefined);
  const unconfirmed: Obligation[] = [];
  const retried = new Set<string>();
  const retry: Obligation[] = [];
  const onResult = (id: string, r: SolvedObligation, ms: number) => {
    const ob = byId.get(id);
    if (!ob || results.has(id)) return;
    // what a solver process's history can cause (a spent budget, its memory, a crash, an
    // untrusted model) gets one more try, in a process of its own that solved nothing before,
    // whose answer is final (a spent budget in this very process is final at once: no process
    // of its own to try); the safety net, a kill and the deadline are final at once
    if (r.verdict === "unknown" && !retried.has(id) && worthAnotherTry(r.reason, !!pool)) {
      retried.add(id);
      retry.push(ob);
      return;
    }
    const accept = () => {
      run.settle(ob, r, ms, false);
      cache?.set(run.keyOf.get(id)!, r);
      run.cores.remember(ob, r);
      run.mine.get(id)?.({ id, result: r });
    };
    const w = r.verdict === "proved" ? r.witness : undefined;
    const confirm = confirming_();
    if (!w?.source || !confirm) return accept();
    // a concrete witness picked by the interpreter alone counts once the generated
    // validators agree on it; else the obligation is solved again without candidates
    confirming.push(
      confirm
        .then((agrees) => agrees(w.state, w.action))
        .catch(() => false)
        .then((ok) => {
          if (ok) accept();
          else unconfirmed.push(ob);
        }),
    );
  };
  const runOpts = runOptions(run, candidates, (id) => {
    confirming_();
    opts.onProgress?.({ type: "start", id, done: results.size, total: run.total });
  }, onResult);
  if (opts.onEarlyFinding) {
    const early = opts.onEarlyFinding;
    runOpts.onEarlyVerdict = (id: string, r: SolvedObligation) => {
      const ob = byId.get(id);
      if (!ob || results.has(id) || r.verdict !== "refuted") return;
      const { smt2: _t, profile: _p, ...rest } = r;
      early({ ...ob, ...rest, ms: 0 });
    };
  }
  const solve = async (batch: Obligation[]) => {
    if (batch.length) await (pool ? runPool(ir, batch, runOpts, pool) : runInProcess(ir, batch, runOpts));
  };
  /**
   * The second tries (`worthAnotherTry`): each obligation in a solver process of its own that has
   * solved nothing before (as many at once as the pool has processes), so that its answer is the
   * one a fresh process gives, whatever the pool did before; in this process when not isolated.
   */
  const solveFresh = async (batch: Obligation[]) => {
    if (!pool) return solve(batch);
    const queue = [...batch];
    const one = async () => {
      for (let ob = queue.shift(); ob; ob = queue.shift()) {
        const alone = new SolverPool(1);
        try {
          await runPool(ir, [ob], runOpts, alone);
        } finally {
          await alone.close();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(pool.workers, queue.length) }, one));
  };
  const byWeight = (list: Obligation[]) => [...list].sort((a, b) => weight(b, candidates) - weight(a, candidates) || (a.id < b.id ? -1 : 1));
  try {
    // the obligations no witness can answer go to the solver processes at once, while this
    // process judges the witnesses (the longest searches first: the pool's tail stays short)
    const early = pool ? byWeight(toSolve.filter((ob) => !WITNESS_KINDS.has(ob.kind))) : [];
    const first = solve(early);
    // solver processes the early ones leave idle encode the actions of the others meanwhile
    if (pool) {
      const actions = new Map<string, Obligation>();
      for (const ob of toSolve) if (WITNESS_KINDS.has(ob.kind) && !actions.has(ob.action)) actions.set(ob.action, ob);
      preparePool(ir, [...actions.values()], runOpts, pool);
    }
    picker.witnesses = typeof opts.witnesses === "function" ? await opts.witnesses() : opts.witnesses;
    const earlyIds = new Set(early.map((ob) => ob.id));
    // the solver's searches first, witnesses to try last
    await Promise.all([first, solve(byWeight(toSolve.filter((ob) => !earlyIds.has(ob.id))))]);
    // what a fresh process may answer otherwise gets one more try; a witness the generated validators reject, a solve with no
    // candidates (and that solve its own retry)
    for (let round = 0; round < 4; round++) {
      await Promise.all(confirming.splice(0));
      const again = retry.splice(0);
      const unconfirmedNow = unconfirmed.splice(0);
      if (!again.length && !unconfirmedNow.length) break;
      picker.reset();
      await Promise.all([solveFresh(again), solve(unconfirmedNow)]);
    }
    await Promise.all(confirming.splice(0));
  } finally {
    release?.();
    await owned?.close();
  }
  // every obligation gets a verdict (a safety net: the rounds above leave none without)
  for (const ob of toSolve) {
    if (results.has(ob.id)) continue;
    const r: SolvedObligation = { verdict: "unknown", reason: "not solved: its retries ran out", smt2: `; ${ob.id}: not solved\n` };
    run.settle(ob, r, 0, false);
    run.mine.get(ob.id)?.({ id: ob.id, result: r });
  }
}

/**
 * Whether an `unknown` with this reason may come out otherwise in a fresh solver process: a spent
 * resource budget (Z3's count for one query differs with what its process solved before: term
 * ids, learnt state; `vq.stuck_power.action_phase` takes 2.9 M units in a fresh process and has
 * run out of 60 M in a busy pool), Z3's memory ceiling, a process that crashed or an error inside
 * Z3, a model that did not satisfy its query. The second try's answer is final: a spent budget
 * in a fresh process is the same on every machine. The safety net, a killed process, the deadline
 * and a pool that could not start are final at once; so is a spent budget when no fresh process
 * can be had (`freshProcess` false: a run in this process).
 */
export function worthAnotherTry(reason: string | undefined, freshProcess: boolean): boolean {
  // a spent budget solved again in this very process would spend it again the same way
  if (!freshProcess && /^resource budget exhausted/.test(reason ?? "")) return false;
  return /^resource budget exhausted|^memory limit reached|^the solver process exited|^error: |not trusted/.test(reason ?? "");
}

/**
 * The runner's options of a run. "The default state satisfies the invariants" (slicing is
 * exact) comes from the proof cache, or as the first solver process decides it (the others are
 * then spared the check).
 */
function runOptions(run: Run, candidates: (ob: Obligation) => Candidate[], onStart: (id: string) => void, onResult: RunOptions["onResult"]): RunOptions {
  const { ir, opts, cache, timeoutMs } = run;
  const defaultsKey = cache ? defaultsFactKey(ir, { listBound: run.listBound }) : undefined;
  let defaultsOk = defaultsKey ? cache!.fact(defaultsKey) : undefined;
  return {
    timeoutMs,
    rlimit: run.rlimit,
    listBound: run.listBound,
    deadline: opts.deadlineMs === undefined ? undefined : run.t0 + opts.deadlineMs,
    killAfterMs: opts.killAfterMs ?? timeoutMs + KILL_GRACE_MS,
    workers: opts.workers,
    slicing: run.slicing,
    candidates,
    smt2: run.smt2Mode,
    defaultsOk: () => defaultsOk || undefined,
    onDefaultsOk: (ok) => {
      if (!ok || defaultsOk) return;
      defaultsOk = true;
      if (defaultsKey) cache!.setFact(defaultsKey, true);
    },
    onStart,
    onResult,
  };
}

/** The report of a run: its results in obligation order, counted, with the bounds it assumed. */
function reportOf(run: Run, list: ObligationResult[]): ProofReport {
  const { ir, listBound } = run;
  const count = (f: (o: ObligationResult) => boolean) => list.filter(f).length;
  return {
    edition: ir.name,
    inputHash: ir.inputHash,
    obligations: list,
    summary: summarize(list, count),
    bounds: {
      listBound,
      timeoutMs: run.timeoutMs,
      rlimit: run.rlimit,
      lists: listBounds(ir),
      note:
        `state lists are unrolled to their schema maxItems (exact); list-typed action parameters to ${listBound} items ` +
        `(a proof about them holds only up to that length); routes are uninterpreted predicates`,
    },
    ms: Math.round(performance.now() - run.t0),
  };
}

/**
 * Merges the reports of the shards of one edition (`shard: { index, count }`) into the report an
 * unsharded run gives: obligations in id order, the summary recounted, `ms` the longest shard's.
 * @throws Error when the reports are of different editions or inputs, or two shards hold one obligation
 */
export function mergeReports(reports: readonly ProofReport[]): ProofReport {
  if (!reports.length) throw new Error("no report to merge");
  const [first] = reports;
  for (const r of reports) if (r.edition !== first.edition || r.inputHash !== first.inputHash) throw new Error(`cannot merge reports of ${first.edition} and ${r.edition} (or of other rule files)`);
  const byId = new Map<string, ObligationResult>();
  for (const r of reports)
    for (const o of r.obligations) {
      if (byId.has(o.id)) throw new Error(`obligation ${o.id} is in two shards`);
      byId.set(o.id, o);
    }
  const list = [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const count = (f: (o: ObligationResult) => boolean) => list.filter(f).length;
  return { ...first, obligations: list, summary: summarize(list, count), ms: Math.max(...reports.map((r) => r.ms)) };
}

function summarize(list: ObligationResult[], count: (f: (o: ObligationResult) => boolean) => number): ProofReport["summary"] {
  return {
    proved: count((o) => o.verdict === "proved"),
    refuted: count((o) => o.verdict === "refuted"),
    unknown: count((o) => o.verdict === "unknown"),
    errors: count((o) => o.severity === "error" && o.verdict === "refuted"),
    warnings: count((o) => o.severity === "warning" && o.verdict === "refuted"),
    infos: count((o) => o.severity === "info" && o.verdict === "refuted"),
    solved: count((o) => !o.cached && !o.reusedFrom),
    cached: count((o) => !!o.cached),
    reused: count((o) => !!o.reusedFrom),
  };
}

/** Rough cost of an obligation, for ordering the pool's queue (larger first). */
function weight(ob: Obligation, candidates: (ob: Obligation) => Candidate[]): number {
  if (ob.kind === "stuck_power") return 3;
  if (ob.kind === "table_gap" || ob.kind === "table_overlap") return 0;
  return candidates(ob).length ? 1 : 2;
}

/** The .smt2 text with its first line naming this obligation (a result shared by another edition's twin names that one). */
function retitle(text: string, ob: Obligation): string {
  return text.replace(/^; [^\s:]+:/, `; ${ob.id}:`);
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
