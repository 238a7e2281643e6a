/**
 * The language server's seam to the prover, and the proof obligations of an IR with their
 * proof-cache keys.
 *
 * lsp/ never imports compiler/verify (test/e2e/architecture.test.ts): its caller, `rulewright lsp`
 * (compiler/cli/lsp.ts), gives it with `useProver` — the proof cache and its keys, which load no
 * solver (hover and the first findings read them), and a loader of the prover itself (it loads
 * z3-solver's module; background proving, proving.ts, calls it on first use). Without one (a
 * server started by other code) the proof caches read as empty and background proving is off.
 *
 * The obligations and keys are shared by hover (proof-verdicts.ts) and background proving: listed once
 * per IR, each key hashed once, when first asked for (hashing every obligation's inputs is the
 * costly part of a cache lookup on a large edition).
 */
import type { IREdition } from "../ir/types.js";
import { obligationsFor, type Obligation } from "../ir/obligations.js";
import type { ObligationResult, ProofReport, SolvedObligation } from "../ir/proof-report.js";
import { ruleFingerprint } from "../ir/fingerprint.js";

/** The list bound of `rulewright prove` (compiler/verify/index.ts DEFAULT_LIST_BOUND; importing it would load the solver): part of every cache key. */
export const PROVE_LIST_BOUND = 4;

/** A proof cache of one edition folder as the server reads and fills it (compiler/verify/cache/store.ts `ProofCache`). */
export interface ProofCache {
  /** its file */
  readonly file: string;
  /** the verdict stored under a key that holds under the resource budget `rlimit` (default: prove's), or undefined */
  get(key: string, rlimit?: number): SolvedObligation | undefined;
  /** writes the file (`prune`: keep only the entries used since it was read) */
  save(prune: boolean): void;
}

/** A pool of solver processes (compiler/verify/run/runner.ts `SolverPool`). */
export interface SolverPool {
  readonly workers: number;
  /** keeps processes busy until the returned release is called */
  start(wanted?: number): () => void;
  /** starts one process (it loads Z3) if none runs, so that the first edit finds one ready */
  boot(): void;
  /**
   * makes `file` (the JSON of `ir`, ir-file.ts) the file the solver processes read `ir` from; false
   * when `ir` has one already (runner.ts `SolverPool.adoptIrFile`). Without it the pool writes the
   * file itself, in one piece, when the first obligation of `ir` starts.
   */
  adoptIrFile?(ir: IREdition, file: string): boolean;
  /** stops the solver processes until the returned function is called (runner.ts `SolverPool.pause`) */
  pause?(): () => void;
  close(): Promise<void>;
}

/** The prover's API that background proving calls (compiler/verify/index.ts). */
export interface ProverModule {
  SolverPool: new (workers: number) => SolverPool;
  /** solver processes by default (one per core, at most 4) */
  defaultWorkers(): number;
  /** `onEarlyFinding`: a refutation as soon as its model is found (compiler/verify/index.ts `ProveOptions`) */
  proveEdition(ir: IREdition, opts: { only: (o: Obligation) => boolean; isolate: boolean; pool: SolverPool; cache: ProofCache; listBound: number; onEarlyFinding?: (r: ObligationResult) => void }): Promise<ProofReport>;
}

/** What the caller gives the server of compiler/verify (compiler/cli/lsp.ts). */
export interface Prover {
  /** the file of the proof cache of edition folder `name` (relative to the root) under `dir`; nothing is read */
  cacheFile(dir: string, name: string): string;
  /** reads that proof cache (a missing or unreadable file is an empty cache) */
  openCache(dir: string, name: string): ProofCache;
  /** the cache key function of `ir`'s obligations (compiler/verify/cache/keys.ts `obligationKeyer`) */
  obligationKeyer(ir: IREdition, opts: { listBound: number }): (ob: Obligation) => string;
  /** the prover itself; rejects when it cannot be loaded here (a server bundled without z3-solver) */
  load(): Promise<ProverModule>;
}

let given: Prover | undefined;

/** Gives the server its prover (undefined: none; see the file comment). Call before `startServer`. */
export function useProver(p: Prover | undefined): void {
  given = p;
}

/** The file of an edition folder's proof cache under `dir`, or undefined without a prover. */
export function proofCacheFile(dir: string, name: string): string | undefined {
  return given?.cacheFile(dir, name);
}

/** Reads an edition folder's proof cache under `dir` (empty without a prover). */
export function openProofCache(dir: string, name: string): ProofCache {
  return given?.openCache(dir, name) ?? { file: "", get: () => undefined, save: () => undefined };
}

/** The prover, loaded on first use; rejects without one. */
export function loadProver(): Promise<ProverModule> {
  return given ? given.load() : Promise.reject(new Error("no prover was given to the language server"));
}

/** The obligations of an IR and their key function (see `keyedFor`). */
export interface Keyed {
  obligations: Obligation[];
  key: (ob: Obligation) => string;
  /** whether the key function is made (the edition's shared parts hashed): `key` is then quick */
  readonly ready: boolean;
}

const keyed = new WeakMap<IREdition, Keyed>();

/**
 * The obligations of `ir` (in `obligationsFor` order) and their key function (`obligationKeyer`
 * with prove's list bound, made on the first key asked for — hashing the edition's shared parts
 * takes tens of ms on HIS — and memoized per obligation object: pass objects of `obligations`).
 * Without a prover every key is "" (the caches are empty then).
 */
export function keyedFor(ir: IREdition): Keyed {
  let k = keyed.get(ir);
  if (!k) {
    let keyer: ((ob: Obligation) => string) | undefined;
    const memo = new Map<Obligation, string>();
    k = {
      obligations: obligationsFor(ir),
      key: (ob) => {
        let v = memo.get(ob);
        if (v === undefined) {
          keyer ??= given ? given.obligationKeyer(ir, { listBound: PROVE_LIST_BOUND }) : () => "";
          memo.set(ob, (v = keyer(ob)));
        }
        return v;
      },
      get ready() {
        return keyer !== undefined;
      },
    };
    keyed.set(ir, k);
  }
  return k;
}

/**
 * The ids of the rules of `ir` that are new or differ from those of `before` (positions aside:
 * compiler/ir/fingerprint.ts, what the proof cache keys a rule by): the rules an edit touched.
 * Every rule when there is no `before`.
 */
export function editedRules(before: IREdition | undefined, ir: IREdition): Set<string> {
  const old = new Map((before?.rules ?? []).map((r) => [r.id, ruleFingerprint(r)]));
  return new Set(ir.rules.filter((r) => old.get(r.id) !== ruleFingerprint(r)).map((r) => r.id));
}

/**
 * Longest stretch (ms) of the server's thread that background work does in one piece before it
 * awaits its step (a turn of the event loop): a keystroke or request arriving meanwhile waits at
 * most about this long. A rule's fingerprint takes 0.1–3 ms on HIS (16 of them took up to 30 ms
 * on a loaded machine), so the slices are cut by time, not by count.
 */
export const STEP_MS = 4;

/**
 * `editedRules` in steps: the rules of `ir` fingerprinted for `STEP_MS` at a time (70 ms for all
 * of HIS on a loaded machine), `step()` awaited after each slice (a turn of the event loop, so
 * that a request is answered between); undefined as soon as a step says to stop (false).
 */
export async function editedRulesInSteps(before: IREdition | undefined, ir: IREdition, step: () => Promise<boolean>): Promise<Set<string> | undefined> {
  let t0 = performance.now();
  for (const r of ir.rules) {
    ruleFingerprint(r);
    if (performance.now() - t0 < STEP_MS) continue;
    if (!(await step())) return undefined;
    t0 = performance.now();
  }
  if (!(await step())) return undefined;
  return editedRules(before, ir);
}

/** An obligation's result from a cached verdict (`cached`: marked as read from the cache; its SMT-LIB text and profile left out). */
export function result(ob: Obligation, r: SolvedObligation, cached: boolean): ObligationResult {
  const { smt2: _s, profile: _p, ...rest } = r;
  return { ...ob, ...rest, ...(cached ? { cached: true } : {}), ms: 0 } as ObligationResult;
}
