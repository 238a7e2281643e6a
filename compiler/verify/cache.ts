/**
 * Incremental proving: every obligation is keyed by a hash of everything its verdict depends on,
 * and a verdict once found is reused while the key is unchanged.
 *
 * The key covers: the obligation (kind, id, rules, exemptions, phase, and the phase's declared
 * decline move); the IR of the rules it
 * involves, of the exemptions that lift them, of every invariant (all are assumed) and of the
 * routes they call, and every result table (a rule may look one up) — without positions, titles, citations or `@severity` annotations, which do not
 * change a verdict (except for a table obligation, whose example cites row lines: its own table
 * is keyed with positions); the actions involved; the state type, the enums and the board; the list bound;
 * and the tool version (package version, z3-solver version, and a hash of compiler/verify and
 * compiler/ir sources). The per-obligation timeout (a wall-clock safety net) is not in the key.
 * The resource budget (`rlimit`, README "Budgets") is in the entry: a `proved`/`refuted` verdict is
 * reused under any budget at least the count it used, an `unknown` from a spent budget (the only
 * `unknown` stored) under that same budget only; otherwise the obligation is solved again.
 *
 * The store is one gzip'd JSON file per edition folder under the cache directory (the CLI uses
 * `proofs/.cache/`, git-ignored; CI proves without it: `prove --ci`). Writes are atomic (temp
 * file + rename). A store that cannot be read is ignored (everything is solved again), never an
 * error.
 *
 * Sealed (issue 29): every stored verdict and fact carries an HMAC-SHA256 under the user's secret
 * (user-cache.ts `cacheSecret`) over its key and content, and every stored state is checked
 * against its content hash. An entry without a valid seal — forged, edited, committed to a
 * repository, copied from another user or machine — is dropped on reading: its obligation is
 * solved again. Witnesses and unsat-core lists are not sealed: a witness is only a candidate the
 * solver checks, and a core is only reused through a sealed entry under the key it recomputes.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { IREdition, IRRule } from "../ir/types.js";
import { liftsOf, phaseMoves, safeName, type Obligation } from "./obligations.js";
import type { Example, SolvedObligation } from "./results.js";
import { routesIn, tablesIn } from "../ir/walk.js";
import { cacheSecret, sealed, seal, UntrustedCacheError } from "./user-cache.js";
import { DEFAULT_RLIMIT } from "./limits.js";
import { stableJson } from "../diagnostics/json.js";

const FORMAT = 4;

let toolVersionMemo: string | undefined;
/** package version + z3-solver version + a hash of the prover's own sources */
export function toolVersion(): string {
  if (toolVersionMemo) return toolVersionMemo;
  const req = createRequire(import.meta.url);
  const pkg = (req("../../package.json") as { version: string }).version;
  let z3 = "?";
  try {
    z3 = (req("z3-solver/package.json") as { version: string }).version;
  } catch {
    // keep "?"
  }
  const h = crypto.createHash("sha256");
  for (const dir of ["../verify", "../ir"]) {
    const abs = fileURLToPath(new URL(dir, import.meta.url));
    for (const f of fs.readdirSync(abs).filter((x) => /\.[jt]s$/.test(x) && !x.endsWith(".d.ts")).sort()) h.update(f + "\0" + fs.readFileSync(path.join(abs, f)) + "\0");
  }
  toolVersionMemo = `rulewright ${pkg}; z3-solver ${z3}; prover ${h.digest("hex").slice(0, 16)}`;
  return toolVersionMemo;
}

/** An Expr without source positions (positions move when a rule above is edited). */
function stripPos(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(stripPos);
  if (x && typeof x === "object") {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) if (k !== "pos") o[k] = stripPos(v);
    return o;
  }
  return x;
}


const sha = (s: string) => crypto.createHash("sha256").update(s).digest("hex");

/**
 * The cache key of every obligation (same order): a sha256 (hex) over the obligation and the
 * hashes of the parts its verdict depends on. Each part (rule, exemption, action, route, table)
 * is serialised and hashed once per call, not once per obligation that names it: the tables the
 * invariants look up are in every key, and a large table serialised 700 times cost seconds.
 */
export function obligationKeys(ir: IREdition, obligations: Obligation[], opts: { listBound: number }): string[] {
  return obligations.map(obligationKeyer(ir, opts));
}

const sharedHashes = new WeakMap<IREdition, Map<number, string>>();
/** The hash of what every query of an edition depends on: tool, list bound, state, enums, board, invariants. */
function sharedHash(ir: IREdition, listBound: number): string {
  let m = sharedHashes.get(ir);
  if (!m) sharedHashes.set(ir, (m = new Map()));
  let h = m.get(listBound);
  if (h === undefined) {
    h = sha(
      stableJson({ tool: toolVersion(), listBound, state: ir.state, enums: ir.enums.map((e) => ({ name: e.name, base: e.base, members: e.members })), board: ir.board, invariants: ir.invariants.map((i) => ({ id: i.id, expr: stripPos(i.expr) })) }),
    );
    m.set(listBound, h);
  }
  return h;
}

/** The hash of a result table as its lookups read it (no positions). */
const tableHashOf = (t: NonNullable<IREdition["tables"]>[number]) => sha(stableJson({ name: t.name, params: t.params, keys: stripPos(t.keys), result: t.result, rows: stripPos(t.rows) }));
/** The hash of a route (no positions). */
const routeHashOf = (r: IREdition["routes"][number]) => sha(stableJson(stripPos({ ...r })));
/** The tables a route's conditions look up. */
function routeTablesOf(r: IREdition["routes"][number]): string[] {
  const t = new Set<string>();
  for (const c of [r.land, r.sea, r.port, ...(r.maxSeas ? [r.maxSeas] : []), r.passes]) tablesIn(c, t);
  return [...t];
}
/** The routes the invariants call and the tables they look up (their routes' tables included). */
function invariantLookups(ir: IREdition): { routes: Set<string>; tables: Set<string> } {
  const routes = new Set<string>();
  const tables = new Set<string>();
  for (const i of ir.invariants) {
    routesIn(i.expr, routes);
    tablesIn(i.expr, tables);
  }
  for (const r of ir.routes) if (routes.has(r.name)) for (const t of routeTablesOf(r)) tables.add(t);
  return { routes, tables };
}

/**
 * The key of the fact "the default state satisfies every invariant" (solve.ts
 * `defaultsSatisfyInvariants`, which makes slicing exact), stored with `ProofCache.setFact`: a
 * sha256 (hex) over what it depends on — the tool, the list bound, the state schema (its
 * defaults), enums, board, invariants, and the tables and routes the invariants look up. Editing
 * a rule leaves it alone.
 */
export function defaultsFactKey(ir: IREdition, opts: { listBound: number }): string {
  const { routes, tables } = invariantLookups(ir);
  return sha(
    stableJson({
      fact: "defaults satisfy the invariants",
      shared: sharedHash(ir, opts.listBound),
      routes: ir.routes.filter((r) => routes.has(r.name)).map(routeHashOf),
      tables: (ir.tables ?? []).filter((t) => tables.has(t.name)).map(tableHashOf),
    }),
  );
}

/**
 * The key function behind `obligationKeys`: the edition's shared parts are hashed once, then each
 * call keys one obligation (also a core obligation, `coreObligation`, that no rulebook lists).
 */
export function obligationKeyer(ir: IREdition, opts: { listBound: number }): (ob: Obligation) => string {
  const shared = sharedHash(ir, opts.listBound);
  /** one hash per part, computed on first use */
  const memo = <T, V>(of: (x: T) => V) => {
    const m = new Map<T, V>();
    return (x: T): V => {
      if (m.has(x)) return m.get(x)!;
      const v = of(x);
      m.set(x, v);
      return v;
    };
  };
  const tableHash = memo(tableHashOf);
  const ruleHash = memo((r: IRRule) => sha(stableJson({ id: r.id, kind: r.kind, action: r.action, scope: r.scope, groups: r.groups, when: stripPos(r.when) })));
  const exemptionHash = memo((e: IREdition["exemptions"][number]) => sha(stableJson({ id: e.id, groups: e.groups, rules: e.rules, when: stripPos(e.when) })));
  const actionHash = memo((a: IREdition["actions"][number]) => sha(stableJson({ name: a.name, params: a.params })));
  const routeHash = memo(routeHashOf);
  /** the routes and tables an expression mentions, per expression */
  const refs = memo((e: IRRule["when"]): [Set<string>, Set<string>] => {
    const routes = new Set<string>();
    const tables = new Set<string>();
    routesIn(e, routes);
    tablesIn(e, tables);
    return [routes, tables];
  });
  const { routes: invRoutes, tables: invTables } = invariantLookups(ir);
  const routeTables = new Map(ir.routes.map((r) => [r.name, routeTablesOf(r)]));
  const ruleOf = new Map(ir.rules.map((r) => [r.id, r]));
  const liftIds = memo((r: IRRule) => liftsOf(ir, r).map((e) => e.id));
  return (ob) => {
    const rules = ob.rules.map((id) => ruleOf.get(id)).filter((r): r is IRRule => !!r);
    const exIds = new Set([...(ob.exemptions ?? []), ...rules.flatMap(liftIds)]);
    const exemptions = ir.exemptions.filter((e) => exIds.has(e.id));
    const routes = new Set(invRoutes);
    // the tables the obligation's formulas look up (rules, exemptions, routes, invariants)
    const tables = new Set(invTables);
    for (const x of [...rules.map((r) => r.when), ...exemptions.map((e) => e.when)]) {
      const [r, t] = refs(x);
      for (const y of r) routes.add(y);
      for (const y of t) tables.add(y);
    }
    for (const r of routes) for (const t of routeTables.get(r) ?? []) tables.add(t);
    const actionNames = new Set([ob.action, ...rules.map((r) => r.action)]);
    const actions = ob.action === "*" ? ir.actions : ir.actions.filter((a) => actionNames.has(a.name));
    return sha(
      stableJson({
        shared,
        // the id without its edition: a variant's unchanged obligation has its parent's key
        ob: { id: ob.id.startsWith(`${ob.edition}.`) ? ob.id.slice(ob.edition.length + 1) : ob.id, kind: ob.kind, action: ob.action, rules: ob.rules, exemptions: ob.exemptions, phase: ob.phase, table: ob.table },
        // a table obligation's example names its rows by file and line: key on the table as written
        table: ob.table === undefined ? undefined : sha(stableJson((ir.tables ?? []).find((t) => t.name === ob.table))),
        // a phase's declared decline move decides what "stuck" means (stuck_power)
        decline: ob.phase === undefined ? undefined : (ir.declines ?? []).filter((d) => d.phase === ob.phase).map((d) => ({ action: d.action, phase: d.phase })),
        rules: rules.map(ruleHash),
        exemptions: exemptions.map(exemptionHash),
        actions: actions.map(actionHash),
        routes: ir.routes.filter((r) => routes.has(r.name)).map(routeHash),
        lookups: (ir.tables ?? []).filter((t) => tables.has(t.name)).map(tableHash),
      }),
    );
  };
}

/**
 * The kinds whose unsat verdict is reused through its unsat core: their query is a conjunction of
 * tracked parts (rules, exemptions, invariants; for stuck_power the phase and one part per move)
 * and the domain facts of the leaves, with no other assertion (analyses.ts), so a core that is
 * still asserted, unchanged, is still unsat whatever happened to the other parts.
 */
export const CORE_REUSE_KINDS: ReadonlySet<Obligation["kind"]> = new Set(["redundant_rule", "always_forbidden", "stuck_power"]);

/**
 * The obligation an unsat core of `ob` stands for: `ob` with only the rules the core names (a
 * redundant_rule's subject, `ob.rules[0]`, always kept); keyed by `obligationKeyer`, its key
 * covers those rules, the exemptions lifting them, every invariant, the action and the state
 * type. Undefined when the core cannot stand for `ob` today: it names a rule `ob` no longer has,
 * an invariant the query of `ob` would not assume (`assumed`: the ids of its sliced invariants),
 * or an id that is no rule, exemption or invariant of the edition.
 */
export function coreObligation(ir: IREdition, ob: Obligation, core: readonly string[], assumed: ReadonlySet<string>): Obligation | undefined {
  if (ob.kind === "stuck_power") return stuckCoreObligation(ir, ob, core, assumed);
  const inRules = new Set(ob.rules);
  const named = new Set<string>();
  for (const id of core) {
    if (inRules.has(id)) named.add(id);
    else if (ir.invariants.some((i) => i.id === id)) {
      if (!assumed.has(id)) return undefined;
    } else if (!ir.exemptions.some((e) => e.id === id)) return undefined;
  }
  const subject = ob.kind === "redundant_rule" ? ob.rules[0] : undefined;
  return { ...ob, rules: ob.rules.filter((id) => id === subject || named.has(id)) };
}

/**
 * coreObligation of a stuck_power obligation. Its query (analyses.ts stuckQuery) is the phase
 * (with, when the phase declares no decline move, an obligation binding the power) and one part
 * per move `move:<action>`: every choice of the move forbidden, by its forbid rules or an oblige
 * rule of another action. A core names the moves and invariants its proof needs; the obligation
 * it stands for has the forbid rules of those moves and every oblige rule of the phase's
 * obligation (all of them: the binding part and every move part read them), so its key changes
 * with any of them, with the actions, the phase's decline move, the state and the invariants.
 * Undefined when a move of the core is no longer a move of the phase, an invariant is not
 * assumed, an id is unknown, or the edition has no `state.active_power` (the actor is then an
 * action's parameter, chosen by rule order).
 */
function stuckCoreObligation(ir: IREdition, ob: Obligation, core: readonly string[], assumed: ReadonlySet<string>): Obligation | undefined {
  if (!ob.phase) return undefined;
  const phaseMoveList = phaseMoves(ir, ob.phase);
  // the actor is state.active_power when it is an enum of the actors' type (as stuckQuery reads it)
  const actorType = phaseMoveList[0]?.params.find((x) => x.actor)?.type;
  const ap = ir.state.fields.find((f) => f.name === "active_power");
  if (!actorType || actorType.k !== "enum" || ap?.type.k !== "enum" || ap.type.base !== actorType.base) return undefined;
  const moves = new Set(phaseMoveList.map((a) => a.name));
  const used = new Set<string>();
  for (const id of core) {
    if (id.startsWith("move:")) {
      const a = id.slice("move:".length);
      if (!moves.has(a)) return undefined;
      used.add(a);
    } else if (ir.invariants.some((i) => i.id === id)) {
      if (!assumed.has(id)) return undefined;
    } else return undefined;
  }
  const inRules = new Set(ob.rules);
  const rules = ir.rules.filter((r) => inRules.has(r.id) && (r.kind === "oblige" || used.has(r.action))).map((r) => r.id);
  return { ...ob, rules: rules.sort() };
}

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
  return `${what}\0${key}\0${stableJson(value)}`;
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
    const entries = keep.map(([k, r]) => [k, this.deflate(r)] as const);
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
      entries: Object.fromEntries(entries.map(([k, r]) => [k, seal(secret, sealText("entry", k, JSON.parse(JSON.stringify(r))))])),
      facts: Object.fromEntries(facts.map(([k, v]) => [k, seal(secret, sealText("fact", k, v))])),
    };
    // level 1: a quarter of the default level's time for a few percent more bytes
    fs.writeFileSync(tmp, zlib.gzipSync(JSON.stringify(data), { level: 1 }));
    fs.renameSync(tmp, this.file);
  }
}
