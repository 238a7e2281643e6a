/**
 * Proving in the language server: the findings of the proof obligations as diagnostics, kept up
 * to date as the designer types.
 *
 * - On the first check of an edition, the findings of its last proof report
 *   (`proofs/<edition folder>/report.json`) are shown at once, before any proving.
 * - After every check that gives an IR (the unsaved buffers included) and a quiet time of
 *   `PROVE_DEBOUNCE_MS`, the obligations of that IR are looked up in the proof cache
 *   (`proofs/.cache/<edition dir>.json.gz`, the one `rulewright prove` writes: its keys hash what
 *   each obligation depends on, so an untouched obligation is a cache hit); the others (those the
 *   edit touched) are proved by `compiler/verify`'s `proveEdition`, one obligation per call, in
 *   the pool of solver processes (`SolverPool`: Z3 never runs on the server's thread), errors
 *   first. Unsat-core reuse and slicing are proveEdition's own. Each verdict is published as it
 *   comes.
 * - An edit of a file of the edition (the keystroke: `edited`) or a newer check makes the run stale: it starts no further obligation and its
 *   verdicts are no longer published (a solver check already running is never abandoned: it ends
 *   in its process and its verdict still goes to the cache, keyed by content).
 * - The cache is saved (never pruned: entries are keyed by content, so verdicts of unsaved
 *   buffers are right for whoever has the same rules) when the runs are idle. report.json is
 *   never written.
 *
 * This module owns no proof logic: it calls verify's API (given by `rulewright lsp`, keys.ts, and
 * loaded lazily, so that the server does not load the solver's module until it proves) and turns
 * results into LSP diagnostics.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { CodeAction, Diagnostic as LspDiagnostic } from "vscode-languageserver/node";
import { editionFolder, type IREdition } from "../ir/types.js";
import type { Obligation } from "../ir/obligations.js";
import type { ObligationResult, ProofReport } from "../ir/proof-report.js";
import { writeIrFile } from "./ir-file.js";
import { findingCodeActions, findingDiagnostics, type ShownResult } from "./findings.js";
import { editedRulesInSteps, keyedFor, STEP_MS, loadProver, result, openProofCache, proofCacheFile, PROVE_LIST_BOUND as LIST_BOUND, type ProofCache, type ProverModule } from "./keys.js";

/**
 * Quiet time after the last check of an edition before its obligations are proved again (ms).
 * The checks are already debounced (server.ts, 75 ms after the last edit), so this is short: it
 * lets the requests an editor sends as the diagnostics arrive (hover, code actions) be answered
 * before the run hashes the edited rules' obligations on the server's thread, and the other
 * editions checked with it queue behind the file's own.
 */
export const PROVE_DEBOUNCE_MS = 30;

export { PROVE_SOURCE, type FindingData } from "./findings.js";

/** Idle time after the last verdict before the proof cache is written (ms). */
const SAVE_DELAY_MS = 5000;

/** A progress reporter ($/progress): `createWorkDoneProgress` of vscode-languageserver, or a no-op. */
export interface Progress {
  begin(title: string, percentage?: number, message?: string): void;
  report(percentage: number, message?: string): void;
  done(): void;
}

export interface ProvingOptions {
  /** project root: `proofs/` lives here, IR positions are relative to it */
  root: string;
  /** prove in the background (initializationOptions `prove`, default true) */
  prove: boolean;
  /** publish proof findings at all (initializationOptions `findings`, default true) */
  findings: boolean;
  /** solver processes (default: one fewer than verify's `defaultWorkers()`, at least one) */
  workers?: number;
  /**
   * niceness of the solver processes (initializationOptions `solverNice`, default 0: the
   * priority of the server). Beside four busy loops on 2 cores, niceness 10 made a contradiction
   * take 42 s to show (bench:lsp), against about 3.5 s on a quiet machine.
   */
  solverNice?: number;
  /** the files whose proof diagnostics changed: the server publishes them again */
  onChange: (files: ReadonlySet<string>) => void;
  /** a fresh progress reporter (window/workDoneProgress/create) */
  progress: () => Promise<Progress>;
  log: (message: string) => void;
}

type Verify = ProverModule;
/** A result as shown (findings.ts `ShownResult`: `stale`, `early`). */
type Result = ShownResult;
type Pool = InstanceType<Verify["SolverPool"]>;

interface EditionState {
  /** absolute edition folder */
  dir: string;
  ir?: IREdition;
  /** results by obligation id (of `ir`; an obligation being proved again keeps its last result, `stale`) */
  results: Map<string, Result>;
  /** the IR of the last run that ended not stale (the edited rules of the next are those that differ from it) */
  proved?: IREdition;
  /** "report": the results are the last report's; "cache"/"proved": this server's */
  from: "report" | "proved";
  /** bumped by every check and every edit of a file of the edition: a run of an older generation is stale */
  generation: number;
  /** the files the published diagnostics of this edition are on */
  files: Set<string>;
  /**
   * the diagnostics of the results, by file, as of the last `refresh` (made once per change of the
   * results, not once per file published: a publish of the edition's 40 files read them 40 times)
   */
  byFile: Map<string, LspDiagnostic[]>;
}

/** Verdict order of work: errors first, cheap queries before expensive ones. */
const KIND_ORDER: Record<string, number> = {
  contradiction: 0, obligation_clash: 1, table_gap: 2, table_overlap: 2, dead_rule: 3, swallowing_exemption: 3, always_forbidden: 4, stuck_power: 5, redundant_rule: 6,
};

export class Proving {
  private editions = new Map<string, EditionState>();
  private timers = new Map<string, NodeJS.Timeout>();
  private verify: Promise<Verify> | undefined;
  /** why proving stopped for good: the prover cannot be loaded here (a server bundled without z3-solver) */
  private unavailable: string | undefined;
  private pool: Pool | undefined;
  private caches = new Map<string, { cache: ProofCache; mtime: number; unsaved: boolean }>();
  private saveTimer: NodeJS.Timeout | undefined;
  /** runs in progress (one per edition at most that is not stale) */
  private running = 0;
  private closed = false;
  /** where the IR files of the solver processes are written (ir-file.ts; removed by `close`) */
  private readonly irDir = path.join(os.tmpdir(), `rulewright-lsp-${process.pid}-${Date.now().toString(36)}`);

  constructor(private readonly opts: ProvingOptions) {}

  /**
   * An edition was checked: `ir` is its IR when it checked without error (else the last
   * findings stay). The first time, the last report's findings are shown at once; then (proving
   * on) the obligations of `ir` are proved after `PROVE_DEBOUNCE_MS`, and any run on an older IR
   * of the edition is stale from now on.
   */
  checked(dir: string, ir: IREdition | undefined): ReadonlySet<string> {
    if (!this.opts.findings || this.closed) return new Set();
    let st = this.editions.get(dir);
    let changed: ReadonlySet<string> = new Set();
    if (!st) {
      st = { dir, results: new Map(), from: "report", generation: 0, files: new Set(), byFile: new Map() };
      this.editions.set(dir, st);
      if (ir) this.showReport(st, ir);
      changed = this.refresh(st);
    } else if (ir) {
      // the findings follow the edit at once: positions from the new IR, and those about a
      // declaration the edit removed are gone (the others wait for the proofs)
      const declared = new Set([...ir.rules.map((r) => r.id), ...ir.exemptions.map((e) => e.id), ...(ir.tables ?? []).map((t) => t.name)]);
      st.ir = ir;
      for (const [id, o] of st.results) if (![...o.rules, ...o.subjects, ...(o.exemptions ?? []), ...(o.table !== undefined ? [o.table] : [])].every((x) => declared.has(x))) st.results.delete(id);
      changed = this.refresh(st);
    }
    st.generation++;
    this.wake?.();
    if (!ir || !this.opts.prove || this.unavailable) return changed;
    clearTimeout(this.timers.get(dir));
    const gen = st.generation;
    this.timers.set(
      dir,
      setTimeout(() => {
        this.timers.delete(dir);
        // the editions checked together keep their order (the edited file's own edition first)
        this.queue = this.queue.filter((q) => q.st !== st);
        this.queue.push({ st: st!, ir, gen });
        void this.pump();
      }, PROVE_DEBOUNCE_MS),
    );
    return changed;
  }

  /**
   * A rule file of the edition in folder `dir` was edited (the keystroke, before the debounced
   * check): its run is stale from now on — it starts no further obligation and looks up no more
   * keys, so the server's thread is free for the check — and a run waiting to start is dropped.
   * The findings shown stay until the next check. Nothing happens for an edition not seen yet.
   */
  edited(dir: string): void {
    const st = this.editions.get(dir);
    if (!st || this.closed) return;
    st.generation++;
    clearTimeout(this.timers.get(dir));
    this.timers.delete(dir);
    this.queue = this.queue.filter((q) => q.st !== st);
    this.wake?.();
  }

  /** runs waiting to start, in order */
  private queue: { st: EditionState; ir: IREdition; gen: number }[] = [];
  private pumping = false;
  /** resolves the pump's wait for a stale run (set while it waits) */
  private wake: (() => void) | undefined;

  /**
   * Runs the queued runs one at a time. A run that turns stale starts no further obligation; the
   * next run starts at once, beside its last obligations (they end in their processes).
   */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (let next = this.queue.shift(); next && !this.closed; next = this.queue.shift()) {
        const { st, ir, gen } = next;
        if (st.generation !== gen) continue;
        const run = this.run(st, ir, gen).catch((e) => this.opts.log(`rulewright: proving ${this.rel(st.dir)} failed: ${(e as Error).stack ?? e}`));
        for (;;) {
          const woken = new Promise<"stale">((resolve) => (this.wake = () => resolve("stale")));
          const r = await Promise.race([run.then(() => "done" as const), woken]);
          this.wake = undefined;
          if (r === "done" || st.generation !== gen) break;
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /**
   * The proof diagnostics of a file: the union over the editions (a finding two editions share
   * shows once), as of each edition's last refresh (a check, or a verdict published).
   */
  diagnostics(file: string): LspDiagnostic[] {
    const out: LspDiagnostic[] = [];
    const seen = new Set<string>();
    for (const st of this.editions.values()) {
      if (!st.ir) continue;
      for (const diag of st.byFile.get(file) ?? []) {
        const k = `${diag.range.start.line}:${diag.range.start.character}:${diag.severity}:${diag.message}`;
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(diag);
      }
    }
    return out;
  }

  /**
   * Code actions for proof diagnostics (findings.ts `findingCodeActions`): write the
   * counterexample or witness, replayed by the `rulewright check` command in the title.
   */
  codeActions(diagnostics: readonly LspDiagnostic[]): CodeAction[] {
    return findingCodeActions(this.opts.root, diagnostics, (dir) => this.editions.get(path.resolve(this.opts.root, dir))?.ir);
  }

  /**
   * Stops the solver processes until the returned function is called (verify's
   * `SolverPool.pause`): the diagnostics schedule's check after a keystroke, whose runs are stale
   * by then, has the cores first. Call the returned function in a `finally`.
   */
  pauseSolvers(): () => void {
    return this.pool?.pause?.() ?? (() => undefined);
  }

  /** Stops the solver processes and writes what the cache holds that is not on disk yet. */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      this.closed = true;
      for (const t of this.timers.values()) clearTimeout(t);
      clearTimeout(this.saveTimer);
      this.save();
      await this.pool?.close();
      fs.rmSync(this.irDir, { recursive: true, force: true });
    })());
  }
  private closing: Promise<void> | undefined;

  private rel(abs: string): string {
    return path.relative(this.opts.root, abs).split(path.sep).join("/") || ".";
  }

  /** The last report's findings of the edition (its obligations whose rules are still declared), shown before any proving. */
  private showReport(st: EditionState, ir: IREdition): void {
    const file = path.join(this.opts.root, "proofs", editionFolder(ir), "report.json");
    let report: ProofReport;
    try {
      report = JSON.parse(fs.readFileSync(file, "utf8")) as ProofReport;
      if (!Array.isArray(report.obligations)) return;
    } catch {
      return;
    }
    st.ir = ir;
    st.from = "report";
    for (const o of report.obligations) st.results.set(o.id, o);
  }

  /**
   * Makes the edition's diagnostics from its results (`byFile`); returns the files of its findings
   * now and before (a finding gone must be cleared): they are to be published.
   */
  private refresh(st: EditionState): Set<string> {
    const before = st.files;
    const byFile = new Map<string, LspDiagnostic[]>();
    if (st.ir)
      for (const o of st.results.values())
        for (const d of findingDiagnostics(this.opts.root, st, o)) {
          const list = byFile.get(d.file);
          if (list) list.push(d.diag);
          else byFile.set(d.file, [d.diag]);
        }
    st.byFile = byFile;
    st.files = new Set(byFile.keys());
    return new Set([...before, ...st.files]);
  }

  /** Publishes the edition's findings (`onChange`). */
  private republish(st: EditionState): void {
    const changed = this.refresh(st);
    if (changed.size) this.opts.onChange(changed);
  }

  /** The solver processes (created on first use; `boot` or a run starts them). */
  private async poolOf(): Promise<Pool> {
    const verify = await this.loadVerify();
    if (!this.pool && !this.closed) {
      // one process fewer than the cores leaves a core to the server; `solverNice` lowers their
      // priority too (worker.ts), at the price of proofs that starve beside other busy processes
      if (this.opts.solverNice) process.env.RULEWRIGHT_SOLVER_NICE = String(this.opts.solverNice);
      this.pool = new verify.SolverPool(this.opts.workers ?? Math.max(1, verify.defaultWorkers() - 1));
    }
    return this.pool!;
  }

  /** Verify, loaded on first use (it loads the solver's module, never its context: Z3 runs in the pool's processes). */
  private loadVerify(): Promise<Verify> {
    return (this.verify ??= loadProver());
  }

  /** The edition's proof cache, read once and again only when the file changed on disk while this server had nothing unsaved in it. */
  private cacheOf(dir: string): ProofCache {
    const name = this.rel(dir);
    const cacheDir = path.join(this.opts.root, "proofs", ".cache");
    const file = proofCacheFile(cacheDir, name) ?? "";
    let mtime = 0;
    try {
      mtime = fs.statSync(file).mtimeMs;
    } catch {
      // no cache yet
    }
    let c = this.caches.get(dir);
    if (!c || (!c.unsaved && c.mtime !== mtime)) this.caches.set(dir, (c = { cache: openProofCache(cacheDir, name), mtime, unsaved: false }));
    return c.cache;
  }

  /**
   * The proof cache of an edition folder (relative to the root) that this server keeps loaded,
   * if it has read it: hover reads its verdicts from here (they reach the file later).
   */
  loadedCache(editionRel: string): ProofCache | undefined {
    return this.caches.get(path.resolve(this.opts.root, editionRel))?.cache;
  }

  /** Writes the caches with verdicts not on disk yet (not pruned: keys are content hashes). */
  private save(): void {
    for (const c of this.caches.values()) {
      if (!c.unsaved) continue;
      try {
        c.cache.save(false);
        c.mtime = fs.statSync(c.cache.file).mtimeMs;
        c.unsaved = false;
      } catch (e) {
        this.opts.log(`rulewright: writing the proof cache ${c.cache.file} failed: ${(e as Error).message}`);
      }
    }
  }

  private scheduleSave(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      if (this.running) return this.scheduleSave();
      this.save();
    }, SAVE_DELAY_MS);
  }

  /**
   * Proves the obligations of `ir` that the cache does not answer (see the file comment). The
   * obligations of the edited rules (new, or different from the last run's IR) are looked up
   * first and proved at once, contradictions first; the others are looked up meanwhile (hashing
   * every obligation's inputs takes 100–200 ms on the server's thread for HIS) and queued behind.
   */
  private async run(st: EditionState, ir: IREdition, gen: number): Promise<void> {
    const stale = () => this.closed || st.generation !== gen;
    const cache = this.cacheOf(st.dir);
    // the keys hover uses too (keys.ts): hashed once per IR
    const { obligations, key: keyer } = keyedFor(ir);
    // in steps, a turn of the event loop after each: a request (a hover) waits for one step at most
    const turn = () => new Promise((r) => setImmediate(r));
    const edited = await editedRulesInSteps(st.proved, ir, () => turn().then(() => !stale()));
    if (!edited) return;
    // the key function (the edition's shared parts hashed: tens of ms on HIS)
    if (obligations[0]) keyer(obligations[0]);
    await turn();
    if (stale()) return;
    const mine = (ob: Obligation) => (ob.subjects.some((r) => edited.has(r)) ? 0 : ob.rules.some((r) => edited.has(r)) ? 1 : 2);
    const order = (a: Obligation, b: Obligation) => mine(a) - mine(b) || (KIND_ORDER[a.kind] ?? 9) - (KIND_ORDER[b.kind] ?? 9) || (a.id < b.id ? -1 : 1);
    const ordered = [...obligations].sort((a, b) => mine(a) - mine(b));
    const firstOthers = ordered.findIndex((ob) => mine(ob) === 2);
    const prior = st.ir ? st.results : new Map<string, Result>();
    // until an obligation is looked up, its last result stays as it was
    const ids = new Set(obligations.map((ob) => ob.id));
    const results = new Map<string, Result>([...prior].filter(([id]) => ids.has(id)));
    st.ir = ir;
    st.from = "proved";
    st.results = results;
    const todo: Obligation[] = [];
    /** proving waiting for the look-ups to find an obligation to prove */
    const waiting: (() => void)[] = [];
    let keyed = false;
    const wake = () => {
      todo.sort(order);
      for (const w of waiting.splice(0)) w();
    };
    /** looks up `ordered[from, to)`: a hit is its verdict, a miss is to prove (its last result shown stale) */
    const lookUp = async (from: number, to: number): Promise<boolean> => {
      let t0 = performance.now();
      for (let i = from; i < to; i++) {
        const ob = ordered[i]!;
        const hit = cache.get(keyer(ob));
        if (hit) results.set(ob.id, result(ob, hit, true));
        else {
          todo.push(ob);
          const last = prior.get(ob.id);
          if (last) results.set(ob.id, { ...last, stale: true });
          else results.delete(ob.id);
        }
        // in slices of STEP_MS, so that requests (and the next keystroke) are answered between them
        if (performance.now() - t0 >= STEP_MS) {
          wake();
          await turn();
          if (stale()) return false;
          t0 = performance.now();
        }
      }
      todo.sort(order);
      return true;
    };
    const split = firstOthers < 0 ? ordered.length : firstOthers;
    if (!(await lookUp(0, split))) return;
    this.republish(st);
    // the IR's file for the solver processes (ir-file.ts: in steps, not in one piece by the pool
    // as the first obligation starts), before the others' look-ups: the first proof waits for it
    const step = () => turn().then(() => !stale());
    const irFile = todo.length ? await writeIrFile(ir, this.irDir, step) : undefined;
    if (todo.length && !irFile) return;
    if (irFile && stale()) return this.dropIrFile(irFile);
    const lookingUp = lookUp(split, ordered.length)
      .catch((e: unknown) => {
        this.opts.log(`rulewright: looking up the proof cache of ${this.rel(st.dir)} failed: ${(e as Error).stack ?? e}`);
        return false;
      })
      .then((ok) => {
        keyed = true;
        if (ok) this.republish(st);
        wake();
        return ok;
      });
    if (!todo.length && !(await lookingUp)) return;
    let verify: Verify;
    try {
      verify = await this.loadVerify();
    } catch (e) {
      // said once; the last report's findings stay
      this.unavailable = (e as Error).message.split("\n")[0];
      this.opts.log(`rulewright: background proving is off: the prover cannot be loaded (${this.unavailable}); install rulewright in the project (npm install --save-dev rulewright) to prove as you type`);
      return;
    }
    if (!todo.length) {
      st.proved = ir;
      // nothing to prove (the cache answered): a solver process loads Z3 now, not on the first edit
      if (!stale()) void this.poolOf().then((p) => p.boot()).catch(() => undefined);
      return;
    }
    if (stale()) return irFile ? this.dropIrFile(irFile) : undefined;
    const pool = await this.poolOf();
    if (!(await this.handIrFile(pool, ir, irFile, step)) || stale()) return;
    const lease = pool.start();
    const progress = this.progressNow();
    let done = 0;
    const label = () => `${ir.name}: proving ${done + todo.length}${keyed ? "" : "+"} obligation${done + todo.length === 1 ? "" : "s"} the edit touched`;
    progress.begin("rulewright prove", 0, label());
    this.running++;
    /** the next obligation to prove: waits while the rest are being looked up */
    const next = async (): Promise<Obligation | undefined> => {
      for (;;) {
        const ob = todo.shift();
        if (ob || keyed || stale()) return ob;
        await new Promise<void>((r) => waiting.push(r));
      }
    };
    const one = async (): Promise<void> => {
      for (let ob = await next(); ob && !stale(); ob = await next()) {
        const id = ob.id;
        // findings first: a refutation shows as soon as its model is found; the polished
        // counterexample (canonical, minimal facts: the one cached) replaces it when the solve ends
        const onEarlyFinding = (r: ObligationResult) => {
          if (stale() || r.id !== id) return;
          st.results.set(id, { ...r, early: true });
          this.republish(st);
        };
        const rep = await verify.proveEdition(ir, { only: (o) => o.id === id, isolate: true, pool, cache, listBound: LIST_BOUND, onEarlyFinding });
        this.caches.get(st.dir)!.unsaved = true;
        done++;
        if (stale()) return;
        const r = rep.obligations[0];
        if (r) {
          st.results.set(id, r);
          this.republish(st);
        }
        const total = done + todo.length;
        progress.report(Math.round((100 * done) / total), `${ir.name}: ${done} of ${total}${keyed ? "" : "+"} proved`);
      }
    };
    try {
      await Promise.all(Array.from({ length: pool.workers }, one));
      // the next run's edited rules are those that differ from this IR, once it is all proved
      if (!stale()) st.proved = ir;
    } finally {
      this.running--;
      lease();
      progress.done();
      this.scheduleSave();
    }
  }

  /**
   * Hands the pool the IR's file `file` (written now, in steps, when there is none yet: nothing
   * was to prove among the edited rules' obligations); a pool that takes none gets none (the
   * file is removed). False when a step said to stop (nothing handed over).
   */
  private async handIrFile(pool: Pool, ir: IREdition, file: string | undefined, step: () => Promise<boolean>): Promise<boolean> {
    if (!pool.adoptIrFile) {
      if (file) fs.rmSync(file, { force: true });
      return true;
    }
    file ??= await writeIrFile(ir, this.irDir, step);
    if (!file) return false;
    // (the server closed meanwhile: the pool is gone)
    if (this.closed || !pool.adoptIrFile(ir, file)) this.dropIrFile(file);
    return !this.closed;
  }

  /** Removes an IR file no pool took (and the folder, when the server has closed meanwhile: a write may have made it again). */
  private dropIrFile(file: string): void {
    fs.rmSync(file, { force: true });
    if (this.closed) fs.rmSync(this.irDir, { recursive: true, force: true });
  }

  /**
   * A progress reporter usable at once: the token is asked of the client (a round trip) while
   * the first obligation is already being proved; the reports wait for it, the proof does not.
   */
  private progressNow(): Progress {
    let shown: Progress | undefined;
    const waiting: ((p: Progress) => void)[] = [];
    const withProgress = (f: (p: Progress) => void) => (shown ? f(shown) : void waiting.push(f));
    void this.opts.progress().then(
      (p) => {
        shown = p;
        for (const f of waiting.splice(0)) f(p);
      },
      () => undefined,
    );
    return {
      begin: (title, pct, msg) => withProgress((p) => p.begin(title, pct, msg)),
      report: (pct, msg) => withProgress((p) => p.report(pct, msg)),
      done: () => withProgress((p) => p.done()),
    };
  }
}
