/**
 * The proof cache: one gzip'd JSON file per edition folder that keeps verdicts by their cache key
 * (keys.ts), a verdict once found being reused while its key is unchanged. The resource budget
 * (`rlimit`, README "Budgets") is in the entry: a `proved`/`refuted` verdict is reused under any
 * budget at least the count it used, an `unknown` from a spent budget (the only `unknown` stored)
 * under that same budget only; otherwise the obligation is solved again.
 *
 * The store is one gzip'd JSON file per edition folder under the cache directory (the CLI uses
 * `proofs/.cache/`, git-ignored; CI proves without it: `prove --ci`). Writes are atomic (temp
 * file + rename). A store that cannot be read is ignored (everything is solved again), never an
 * error. It holds no analysis: which keys to ask for, and what an unsat core stands for
 * (obligations/core.ts), is the prover's (index.ts).
 *
 * Sealed (issue 29): every stored verdict and fact carries an HMAC-SHA256 under the user's secret
 * (user-cache.ts `cacheSecret`) over its key and content, and every stored state is checked
 * against its content hash. An entry without a valid seal — forged, edited, committed to a
 * repository, copied from another user or machine — is dropped on reading: its obligation is
 * solved again. Witnesses and unsat-core lists are not sealed: a witness is only a candidate the
 * solver checks, and a core is only reused through a sealed entry under the key it recomputes.
 */
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { safeName } from "../../ir/obligations.js";
import type { Example, SolvedObligation } from "../run/results.js";
import { sha, stable, toolVersion } from "./keys.js";
import { cacheSecret, sealed, seal, UntrustedCacheError } from "./user-cache.js";
import { DEFAULT_RLIMIT } from "../run/limits.js";

const FORMAT = 4;

export type CachedResult = SolvedObligation;

/** A verdict as stored: the states of its counterexample and witness replaced by `{ $state: <hash> }`. */
type StoredResult = Omit<CachedResult, "counterexample" | "witness"> & {
  counterexample?: Omit<Example, "state"> & { state: Record<string, unknown> };
  witness?: Omit<Example, "state"> & { state: Record<string, unknown> };
};

interface StoreFile {
  format: number;
  tool?: string;
  entries: Record<string, StoredResult>;
  witnesses?: Record<string, { state: string; action: Record<string, unknown> }>;
  states?: Record<string, Record<string, unknown>>;
  /** obligation id → the unsat cores of its verdicts, each with the key of its core obligation (an entry of `entries`) */
  cores?: Record<string, StoredCore[]>;
  /** facts about the edition that queries depend on, by key (`defaultsFactKey`) */
  facts?: Record<string, boolean>;
  /** the seals (`sealText`) of `entries` and `facts`, by key */
  seals?: { entries?: Record<string, string>; facts?: Record<string, string> };
}

/** The text a stored verdict's or fact's seal is computed over: what it is, its key and its content. */
function sealText(what: "entry" | "fact", key: string, value: unknown): string {
  return `${what}\0${key}\0${stable(value)}`;
}

/** An unsat core of an obligation's verdict and the key its verdict is stored under. */
export interface StoredCore {
  core: string[];
  key: string;
}

/** Cores kept per obligation (the latest first): a few edits back and forth still hit. */
const CORES_KEPT = 4;

/** A proof cache of one edition folder (a gzip'd JSON file). */
export class ProofCache {
  private entries = new Map<string, CachedResult>();
  /** each entry as last written (stored form and seal), by key: a save after a few new verdicts re-packs only those */
  private packed = new Map<string, { r: CachedResult; stored: StoredResult; seal: string }>();
  private used = new Set<string>();
  /** obligation id → the state and action of its last witness (by content hash in `states`) */
  private witnesses = new Map<string, { state: string; action: Record<string, unknown> }>();
  private states = new Map<string, Record<string, unknown>>();
  private cores = new Map<string, StoredCore[]>();
  private seenIds = new Set<string>();
  private facts = new Map<string, boolean>();
  private usedFacts = new Set<string>();
  readonly file: string;
  /** the key of the seals; undefined when the user's secret cannot be trusted (then nothing is read or written) */
  private readonly secret?: Buffer;
  /** why the cache is off (the user's cache folder or secret is not safe), or undefined */
  readonly untrusted?: string;

  /** The store's file for an edition folder (nothing is read). */
  static fileFor(dir: string, name: string): string {
    return path.join(dir, `${safeName(name)}.json.gz`);
  }

  /**
   * Reads the store of edition folder `name` under `dir` (a missing or unreadable one is empty),
   * keeping only the entries and facts sealed with `opts.secret` (default: the user's secret,
   * `cacheSecret()`). When the user's secret cannot be trusted (`untrusted` says why) the cache
   * reads and writes nothing.
   */
  constructor(dir: string, name: string, opts: { secret?: Buffer } = {}) {
    this.file = ProofCache.fileFor(dir, name);
    try {
      this.secret = opts.secret ?? cacheSecret();
    } catch (e) {
      if (!(e instanceof UntrustedCacheError)) throw e;
      this.untrusted = e.message;
      return;
    }
    try {
      const data = JSON.parse(zlib.gunzipSync(fs.readFileSync(this.file)).toString("utf8")) as StoreFile;
      if (data.format === FORMAT) this.load(data, this.secret);
    } catch {
      // missing or unreadable: start empty
    }
  }

  /** Takes in what `data` holds that is sealed with `secret` (states: those whose content has their hash). */
  private load(data: StoreFile, secret: Buffer): void {
    const seals = data.seals ?? {};
    this.states = new Map(Object.entries(data.states ?? {}).filter(([h, st]) => sha(JSON.stringify(st)).slice(0, 24) === h));
    this.witnesses = new Map(Object.entries(data.witnesses ?? {}));
    this.cores = new Map(Object.entries(data.cores ?? {}));
    this.facts = new Map(Object.entries(data.facts ?? {}).filter(([k, v]) => typeof v === "boolean" && sealed(secret, sealText("fact", k, v), seals.facts?.[k])));
    for (const [k, r] of Object.entries(data.entries)) {
      if (!sealed(secret, sealText("entry", k, r), seals.entries?.[k])) continue;
      const e = this.inflate(r);
      if (e) this.entries.set(k, e);
    }
  }

  /**
   * The witness an earlier run found for this obligation id, whatever its key was then (a
   * candidate for "concrete witnesses first" after an edit), or undefined.
   */
  earlierWitness(id: string): { state: Record<string, unknown>; action: Record<string, unknown> } | undefined {
    const w = this.witnesses.get(id);
    const state = w && this.states.get(w.state);
    return w && state ? { state, action: w.action } : undefined;
  }

  /** Keeps this run's witness of an obligation for a later run (states are stored once by content). */
  rememberWitness(id: string, ex: { state: Record<string, unknown>; action: Record<string, unknown> }): void {
    const text = JSON.stringify(ex.state);
    const h = sha(text).slice(0, 24);
    if (!this.states.has(h)) this.states.set(h, ex.state);
    this.witnesses.set(id, { state: h, action: ex.action });
    this.seenIds.add(id);
  }

  /** The stored form of a verdict: the states of its examples by content hash (kept in `states`). */
  private deflate(r: CachedResult): StoredResult {
    const ref = (ex: Example | undefined) => {
      if (!ex) return undefined;
      const h = sha(JSON.stringify(ex.state)).slice(0, 24);
      if (!this.states.has(h)) this.states.set(h, ex.state);
      return { ...ex, state: { $state: h } };
    };
    const out: StoredResult = { ...r, counterexample: ref(r.counterexample), witness: ref(r.witness) };
    return out;
  }

  /** A stored verdict with its states put back; undefined when a state is missing (then it is solved again). */
  private inflate(r: StoredResult): CachedResult | undefined {
    const back = (ex: StoredResult["witness"]): Example | undefined | null => {
      if (!ex) return undefined;
      const st = ex.state as Record<string, unknown>;
      if (typeof st.$state !== "string") return ex as Example;
      const state = this.states.get(st.$state);
      return state ? ({ ...ex, state } as Example) : null;
    };
    const counterexample = back(r.counterexample);
    const witness = back(r.witness);
    if (counterexample === null || witness === null) return undefined;
    const out: CachedResult = { ...(r as CachedResult) };
    if (counterexample) out.counterexample = counterexample;
    else delete out.counterexample;
    if (witness) out.witness = witness;
    else delete out.witness;
    return out;
  }

  /**
   * The verdict stored under `key` if it holds under the resource budget `rlimit` (default
   * `DEFAULT_RLIMIT`; see the file comment), reported with that budget; undefined when absent or
   * to be solved again.
   */
  get(key: string, rlimit: number = DEFAULT_RLIMIT): CachedResult | undefined {
    const r = this.entries.get(key);
    if (!r?.rlimit) return undefined;
    const holds = r.verdict === "unknown" ? r.rlimit.budget === rlimit : r.rlimit.used <= rlimit;
    if (!holds) return undefined;
    this.used.add(key);
    return { ...r, rlimit: { budget: rlimit, used: r.rlimit.used } };
  }

  /** The unsat cores stored for an obligation id (latest first), whatever its key was then. */
  coresOf(id: string): readonly StoredCore[] {
    return this.cores.get(id) ?? [];
  }

  /** Keeps the stored cores of an obligation id (and their verdicts) through a pruning save. */
  keepCores(id: string): void {
    for (const c of this.cores.get(id) ?? []) if (this.entries.has(c.key)) this.used.add(c.key);
  }

  /**
   * Stores an unsat verdict a second time, under the key of its core obligation
   * (`coreObligation`), so that a later run whose edits left the core alone reuses it.
   */
  rememberCore(id: string, core: string[], key: string, r: CachedResult): void {
    if (r.verdict === "unknown") return;
    this.set(key, r);
    const list = [{ core, key }, ...(this.cores.get(id) ?? []).filter((c) => c.key !== key)].slice(0, CORES_KEPT);
    this.cores.set(id, list);
  }

  /** A stored fact (`defaultsFactKey`), or undefined. */
  fact(key: string): boolean | undefined {
    const v = this.facts.get(key);
    if (v !== undefined) this.usedFacts.add(key);
    return v;
  }

  /** Stores a fact decided in this run. */
  setFact(key: string, value: boolean): void {
    this.facts.set(key, value);
    this.usedFacts.add(key);
  }

  /**
   * Stores a definite verdict, or an `unknown` whose resource budget ran out (the same answer
   * every time under that budget); no other `unknown` and no verdict without its `rlimit`.
   */
  set(key: string, r: CachedResult): void {
    if (!r.rlimit) return;
    if (r.verdict === "unknown" && r.rlimit.used < r.rlimit.budget) return;
    const { profile: _p, ...kept } = r;
    this.entries.set(key, kept);
    this.used.add(key);
  }

  /**
   * Writes the store. With `prune`, only the entries used in this run are kept (the store then
   * holds exactly the current rulebook's verdicts and does not grow).
   */
  save(prune: boolean): void {
    const secret = this.secret;
    if (!secret) return;
    const keep = prune ? [...this.entries].filter(([k]) => this.used.has(k)) : [...this.entries];
    keep.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const wit = [...this.witnesses].filter(([id]) => !prune || this.seenIds.has(id)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const packed = keep.map(([k, r]) => {
      let p = this.packed.get(k);
      if (!p || p.r !== r) {
        const stored = this.deflate(r);
        this.packed.set(k, (p = { r, stored, seal: seal(secret, sealText("entry", k, JSON.parse(JSON.stringify(stored)))) }));
      }
      return [k, p] as const;
    });
    const entries = packed.map(([k, p]) => [k, p.stored] as const);
    const stateIds = new Set(wit.map(([, w]) => w.state));
    for (const [, r] of entries) for (const ex of [r.counterexample, r.witness]) if (ex) stateIds.add((ex.state as { $state: string }).$state);
    const states = [...this.states].filter(([h]) => stateIds.has(h)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    const kept = new Set(keep.map(([k]) => k));
    const cores = [...this.cores]
      .map(([id, list]) => [id, list.filter((c) => kept.has(c.key))] as const)
      .filter(([, list]) => list.length)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const facts = [...this.facts].filter(([k]) => !prune || this.usedFacts.has(k)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const data: StoreFile = { format: FORMAT, tool: toolVersion(), entries: Object.fromEntries(entries), witnesses: Object.fromEntries(wit), states: Object.fromEntries(states), cores: Object.fromEntries(cores), facts: Object.fromEntries(facts) };
    // sealed as written (the JSON text reads back to the same stable text)
    data.seals = {
      entries: Object.fromEntries(packed.map(([k, p]) => [k, p.seal])),
      facts: Object.fromEntries(facts.map(([k, v]) => [k, seal(secret, sealText("fact", k, v))])),
    };
    // level 1: a quarter of the default level's time for a few percent more bytes
    fs.writeFileSync(tmp, zlib.gzipSync(JSON.stringify(data), { level: 1 }));
    fs.renameSync(tmp, this.file);
  }
}

