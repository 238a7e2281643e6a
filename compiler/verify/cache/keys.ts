/**
 * The cache keys of incremental proving (README "Incremental proving"): every obligation is
 * keyed by a sha256 of everything its verdict depends on, and a verdict once found is reused
 * while the key is unchanged (store.ts keeps them).
 *
 * The key covers: the obligation (kind, id, rules, exemptions, phase, and the phase's declared
 * decline move); the IR of the rules it involves, of the exemptions that lift them, of every
 * invariant (all are assumed) and of the routes they call, and every result table (a rule may look
 * one up) — without positions, titles, citations or `@severity` annotations, which do not change a
 * verdict (except for a table obligation, whose example cites row lines: its own table is keyed
 * with positions); the actions involved; the state type, the enums and the board; the list bound;
 * and the tool version (package version, z3-solver version, and a hash of the prover's own code:
 * `PROVER_CODE`). The per-obligation timeout (a CPU-time safety net) and the resource budget are
 * not in the key (the budget is in the entry, store.ts).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { IREdition, IRRule } from "../../ir/types.js";
import { liftsOf, type Obligation } from "../../ir/obligations.js";
import { routesIn, tablesIn } from "../../ir/walk.js";
import { stableJson } from "../../diagnostics/json.js";
import { contentFingerprint, ruleFingerprint } from "../../ir/fingerprint.js";
import { obligationPaths, sliceInvariants, statePaths } from "../obligations/slice.js";

/**
 * The prover's own code, relative to compiler/ (or dist/): what decides a verdict — the IR it
 * reads (not the report shapes and words, nor the diff's vocabulary), the obligations, their encoding, the solving and `proveEdition` — hashed into every key
 * so that a change of the prover solves everything again. Not the cache (it stores verdicts, its
 * format is `FORMAT` in store.ts), the report writers (SARIF, JUnit) or the edition diff: a change
 * there changes no verdict, so it keeps the cache.
 */
export const PROVER_CODE: readonly string[] = ["ir/types", "ir/analyses", "ir/ints", "ir/board", "ir/walk", "ir/obligations", "verify/index", "verify/obligations", "verify/encode", "verify/run"];

/** The source files of `PROVER_CODE` under `base` (compiler/ or dist/), relative to it, sorted: `.ts` or `.js`, no declarations. */
export function proverFiles(base: string): string[] {
  const out: string[] = [];
  for (const entry of PROVER_CODE) {
    const dir = path.join(base, entry);
    if (fs.existsSync(dir) && fs.statSync(dir).isDirectory()) {
      for (const f of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) if (/\.[jt]s$/.test(f) && !f.endsWith(".d.ts")) out.push(path.join(entry, f).split(path.sep).join("/"));
    } else for (const ext of [".ts", ".js"]) if (fs.existsSync(dir + ext)) out.push(entry + ext);
  }
  return out.sort();
}

let toolVersionMemo: string | undefined;
/** package version + z3-solver version + a hash of the prover's own code (`PROVER_CODE`) */
export function toolVersion(): string {
  if (toolVersionMemo) return toolVersionMemo;
  const req = createRequire(import.meta.url);
  const pkg = (req("../../../package.json") as { version: string }).version;
  let z3 = "?";
  try {
    z3 = (req("z3-solver/package.json") as { version: string }).version;
  } catch {
    // keep "?"
  }
  const h = crypto.createHash("sha256");
  // compiler/ (or dist/): this file is <base>/verify/cache/keys.{ts,js}
  const base = fileURLToPath(new URL("../../", import.meta.url));
  for (const f of proverFiles(base)) h.update(f + "\0" + fs.readFileSync(path.join(base, f)) + "\0");
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


/** Stable JSON (object keys sorted): the one helper, compiler/diagnostics/json.ts; cache keys and seals are made of it. */
export const stable: (x: unknown) => string = stableJson;

/** sha256 of a text, hex. */
export const sha = (s: string): string => crypto.createHash("sha256").update(s).digest("hex");

/** Texts kept by `contentHash` before its memo is emptied (a text is a rule's JSON: 20 KB on average in HIS). */
const CONTENT_MEMO_MAX = 2000;
const contentHashes = new Map<string, string>();

/**
 * `sha(stable(stripPos(x)))` (or of `x` as it is, `positions` true), memoised by the native JSON
 * text of what it hashes: a fingerprint is 3× quicker to make than the stable text, so a language
 * server that re-keys every obligation after an edit hashes again only the rules whose content
 * changed. Equal fingerprints are equal values (same keys, same order, holes marked), so a hit is
 * the hash the value would get. `fp`: `contentFingerprint(x, positions)` when the caller has it.
 */
function contentHash(x: unknown, positions = false, fp = contentFingerprint(x, positions)): string {
  const key = `${positions ? "p" : "s"}${fp}`;
  let h = contentHashes.get(key);
  if (h === undefined) {
    h = sha(stable(positions ? x : stripPos(x)));
    if (contentHashes.size >= CONTENT_MEMO_MAX) contentHashes.clear();
    contentHashes.set(key, h);
  }
  return h;
}

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
    h = contentHash(
      { tool: toolVersion(), listBound, state: ir.state, enums: ir.enums.map((e) => ({ name: e.name, base: e.base, members: e.members })), board: ir.board, invariants: ir.invariants.map((i) => ({ id: i.id, expr: stripPos(i.expr) })) },
      true,
    );
    m.set(listBound, h);
  }
  return h;
}

/** The hash of a result table as its lookups read it (no positions). */
const tableHashOf = (t: NonNullable<IREdition["tables"]>[number]) => sha(stable({ name: t.name, params: t.params, keys: stripPos(t.keys), result: t.result, rows: stripPos(t.rows) }));
/** The hash of a route (no positions); memoised by content (a route's text is large: 350 KB in HIS). */
const routeHashOf = (r: IREdition["routes"][number]) => contentHash({ ...r });
/** The tables a route's conditions look up. */
function routeTablesOf(r: IREdition["routes"][number]): string[] {
  const t = new Set<string>();
  for (const c of [r.land, r.sea, r.port, ...(r.maxSeas ? [r.maxSeas] : []), ...(r.maxSteps ? [r.maxSteps] : []), r.passes]) tablesIn(c, t);
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
    stable({
      fact: "defaults satisfy the invariants",
      shared: sharedHash(ir, opts.listBound),
      routes: ir.routes.filter((r) => routes.has(r.name)).map(routeHashOf),
      tables: (ir.tables ?? []).filter((t) => tables.has(t.name)).map(tableHashOf),
    }),
  );
}

/**
 * What every key of an obligation (`obligationKeyer`, `sliceKeyer`, `frameKeyer`) says of the
 * obligation itself: its id without the edition (a variant's unchanged obligation has its
 * parent's key), kind, action, rules, exemptions, phase and table; for a table obligation the
 * table as written (its example names rows by file and line); for a phase, its declared decline
 * moves (they decide what "stuck" means).
 */
function obligationHead(ir: IREdition, ob: Obligation): { ob: unknown; table: string | undefined; decline: unknown } {
  return {
    ob: { id: ob.id.startsWith(`${ob.edition}.`) ? ob.id.slice(ob.edition.length + 1) : ob.id, kind: ob.kind, action: ob.action, rules: ob.rules, exemptions: ob.exemptions, phase: ob.phase, table: ob.table },
    table: ob.table === undefined ? undefined : sha(stable((ir.tables ?? []).find((t) => t.name === ob.table))),
    decline: ob.phase === undefined ? undefined : (ir.declines ?? []).filter((d) => d.phase === ob.phase).map((d) => ({ action: d.action, phase: d.phase })),
  };
}

/** The actions an obligation's query involves: every action for `*`, else its own and its rules'. */
function actionsOf(ir: IREdition, ob: Obligation, rules: readonly IRRule[]): IREdition["actions"] {
  const names = new Set([ob.action, ...rules.map((r) => r.action)]);
  return ob.action === "*" ? ir.actions : ir.actions.filter((a) => names.has(a.name));
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
  // (only `when` holds positions: stripping the whole object hashes what the stable text of the rule without them did)
  // (the fingerprint is `ruleFingerprint`'s, made once per rule object and shared with the language server's `editedRules`)
  const ruleHash = memo((r: IRRule) => contentHash({ id: r.id, kind: r.kind, action: r.action, scope: r.scope, groups: r.groups, when: r.when }, false, ruleFingerprint(r)));
  const exemptionHash = memo((e: IREdition["exemptions"][number]) => contentHash({ id: e.id, groups: e.groups, rules: e.rules, when: e.when }));
  const actionHash = memo((a: IREdition["actions"][number]) => sha(stable({ name: a.name, params: a.params })));
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
    const actions = actionsOf(ir, ob, rules);
    return sha(
      stable({
        shared,
        ...obligationHead(ir, ob),
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
 * The slice key of every obligation (issue 28, "proofs reused from the parent"): a sha256 (hex)
 * over what the obligation's **sliced** query reads, so that an edition that differs from
 * another only in parts the obligation does not read — a variant's new rule of another action,
 * its new invariant over other fields, a new state field — gives it the same slice key. It
 * covers what `obligationKeyer` covers (the obligation, its rules, exemptions, actions, routes,
 * tables, the phase's decline move, the tool and the list bound) but, instead of the whole state
 * type and every invariant: the invariants in the obligation's cone of influence (slice.ts
 * `sliceInvariants`), the types of the top-level state fields that the obligation and those
 * invariants read (the whole state when one reads `state` itself), and the board. A
 * `stuck_power` obligation reads every rule: its slice key covers all of them.
 *
 * A slice key is not a cache key: the same slice key only says that the two queries restricted
 * to their slices are the same. The prover (index.ts) reuses such a verdict when it holds in the
 * whole edition too: an unsat verdict always (the edition's query assumes at least the slice's
 * invariants), a verdict found on a state only when that state, completed for this edition,
 * satisfies all of its invariants (`ProveOptions.completeExample`).
 */
export function sliceKeyer(ir: IREdition, opts: { listBound: number }): (ob: Obligation) => string {
  const ruleOf = new Map(ir.rules.map((r) => [r.id, r]));
  const fieldHash = new Map<string, string>();
  const fieldsOf = (ir.state.k === "record" ? ir.state.fields : []) as { name: string; type: unknown }[];
  for (const f of fieldsOf) fieldHash.set(f.name, contentHash({ name: f.name, type: f.type }));
  const stateHash = contentHash(ir.state);
  const boardHash = contentHash(ir.board, true);
  const invHash = new Map(ir.invariants.map((i) => [i.id, contentHash(noStateType({ id: i.id, expr: i.expr }))]));
  const invPaths = new Map(
    ir.invariants.map((i) => {
      const s = new Set<string>();
      statePaths(i.expr, ir, s);
      return [i.id, s] as const;
    }),
  );
  const tableHash = new Map((ir.tables ?? []).map((t) => [t.name, tableHashOf(noStateType(t) as typeof t)]));
  const routeHash = new Map(ir.routes.map((r) => [r.name, routeHashOf(noStateType(r) as typeof r)]));
  const routeTables = new Map(ir.routes.map((r) => [r.name, routeTablesOf(r)]));
  const ruleMemo = new Map<IRRule, string>();
  const ruleHash = (r: IRRule) => {
    let h = ruleMemo.get(r);
    if (h === undefined) ruleMemo.set(r, (h = contentHash(noStateType({ id: r.id, kind: r.kind, action: r.action, scope: r.scope, groups: r.groups, when: r.when }))));
    return h;
  };
  const exemptionHash = (e: IREdition["exemptions"][number]) => contentHash(noStateType({ id: e.id, groups: e.groups, rules: e.rules, when: e.when }));
  return (ob) => {
    const all = ob.kind === "stuck_power";
    const rules = all ? ir.rules : ob.rules.map((id) => ruleOf.get(id)).filter((r): r is IRRule => !!r);
    const exIds = new Set([...(ob.exemptions ?? []), ...rules.flatMap((r) => liftsOf(ir, r).map((e) => e.id))]);
    const exemptions = all ? ir.exemptions : ir.exemptions.filter((e) => exIds.has(e.id));
    const invariants = sliceInvariants(ir, ob);
    const paths = new Set(obligationPaths(ir, ob));
    for (const i of invariants) for (const p of invPaths.get(i.id) ?? []) paths.add(p);
    const whole = [...paths].some((p) => p === "");
    const fields = whole ? [] : [...new Set([...paths].map((p) => p.split(".")[0]!))].sort();
    const routes = new Set<string>();
    const tables = new Set<string>();
    for (const x of [...rules.map((r) => r.when), ...exemptions.map((e) => e.when), ...invariants.map((i) => i.expr)]) {
      routesIn(x, routes);
      tablesIn(x, tables);
    }
    for (const r of routes) for (const t of routeTables.get(r) ?? []) tables.add(t);
    const actions = actionsOf(ir, ob, rules);
    return sha(
      stable({
        slice: 1,
        tool: toolVersion(),
        listBound: opts.listBound,
        ...obligationHead(ir, ob),
        rules: rules.map(ruleHash),
        exemptions: exemptions.map(exemptionHash),
        actions: actions.map((a) => sha(stable({ name: a.name, params: a.params }))),
        routes: [...routes].sort().map((r) => routeHash.get(r) ?? r),
        lookups: [...tables].sort().map((t) => tableHash.get(t) ?? t),
        invariants: invariants.map((i) => invHash.get(i.id)),
        state: whole ? stateHash : fields.map((f) => fieldHash.get(f) ?? `missing ${f}`),
        board: boardHash,
      }),
    );
  };
}

/**
 * The frame key of every obligation (issue 28, "proofs reused from the parent", finer): a sha256
 * (hex) over what its query is made of **besides** the constraints a variant may add — the
 * obligation, its rules and exemptions (every one for `stuck_power`), actions, routes, tables,
 * the phase's decline move, the base enums (the solver's datatypes), the board, the tool and the
 * list bound, each expression without the types of the nodes that read the state (`state`,
 * `field`, `index`: the encoder takes a leaf's domain from the state type, never from them).
 * Left out: the invariants and the state type. Two obligations with the same frame key ask the
 * same question over the states their editions allow; when one edition only adds constraints to
 * the other (reuse.ts `addedConstraints`: every invariant of the other kept, every field the same
 * or narrower), an unsat answer of the looser one holds for the stricter one, and a state that
 * answered the looser one answers the stricter one once it is checked to be one of its states.
 */
export function frameKeyer(ir: IREdition, opts: { listBound: number }): (ob: Obligation) => string {
  const ruleOf = new Map(ir.rules.map((r) => [r.id, r]));
  const h = (x: unknown) => contentHash(noStateReadTypes(x));
  const ruleHash = new Map(ir.rules.map((r) => [r.id, h({ id: r.id, kind: r.kind, action: r.action, scope: r.scope, groups: r.groups, when: r.when })]));
  const exemptionHash = new Map(ir.exemptions.map((e) => [e.id, h({ id: e.id, groups: e.groups, rules: e.rules, when: e.when })]));
  const tableHash = new Map((ir.tables ?? []).map((t) => [t.name, tableHashOf(noStateReadTypes(t) as typeof t)]));
  const routeHash = new Map(ir.routes.map((r) => [r.name, routeHashOf(noStateReadTypes(r) as typeof r)]));
  const routeTables = new Map(ir.routes.map((r) => [r.name, routeTablesOf(r)]));
  const common = sha(stable({
    frame: 1,
    tool: toolVersion(),
    listBound: opts.listBound,
    board: contentHash(ir.board, true),
    enums: ir.enums.filter((e) => e.base === e.name).map((e) => ({ name: e.name, members: e.members })),
  }));
  return (ob) => {
    const all = ob.kind === "stuck_power";
    const rules = all ? ir.rules : ob.rules.map((id) => ruleOf.get(id)).filter((r): r is IRRule => !!r);
    const exIds = new Set([...(ob.exemptions ?? []), ...rules.flatMap((r) => liftsOf(ir, r).map((e) => e.id))]);
    const exemptions = all ? ir.exemptions : ir.exemptions.filter((e) => exIds.has(e.id));
    const routes = new Set<string>();
    const tables = new Set<string>();
    for (const x of [...rules.map((r) => r.when), ...exemptions.map((e) => e.when)]) {
      routesIn(x, routes);
      tablesIn(x, tables);
    }
    for (const r of routes) for (const t of routeTables.get(r) ?? []) tables.add(t);
    const actions = actionsOf(ir, ob, rules);
    return sha(
      stable({
        common,
        ...obligationHead(ir, ob),
        rules: rules.map((r) => ruleHash.get(r.id)),
        exemptions: exemptions.map((e) => exemptionHash.get(e.id)),
        actions: actions.map((a) => sha(stable({ name: a.name, params: a.params }))),
        routes: [...routes].sort().map((r) => routeHash.get(r) ?? r),
        lookups: [...tables].sort().map((t) => tableHash.get(t) ?? t),
      }),
    );
  };
}

/** The hash of an invariant as `frameKeyer` hashes expressions (no types on the nodes that read the state), for comparing two editions' invariants. */
export function invariantFrameHash(inv: IREdition["invariants"][number]): string {
  return contentHash(noStateReadTypes({ id: inv.id, expr: inv.expr }));
}

/** A copy of an IR value without the `type` of its `state`, `field` and `index` nodes (see `frameKeyer`). */
function noStateReadTypes(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(noStateReadTypes);
  if (x && typeof x === "object") {
    const o: Record<string, unknown> = {};
    const k = (x as { k?: unknown }).k;
    const reads = k === "state" || k === "field" || k === "index";
    for (const [key, v] of Object.entries(x)) if (!(reads && key === "type")) o[key] = noStateReadTypes(v);
    return o;
  }
  return x;
}

/**
 * A copy of an IR value without the type of its `state` nodes (the whole state record: a new
 * field of a variant would change every expression that reads the state). What an expression
 * reads of the state is in the types of its field nodes and in the slice key's field types.
 */
function noStateType(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(noStateType);
  if (x && typeof x === "object") {
    const o: Record<string, unknown> = {};
    const isState = (x as { k?: unknown }).k === "state";
    for (const [k, v] of Object.entries(x)) if (!(isState && k === "type")) o[k] = noStateType(v);
    return o;
  }
  return x;
}

/**
 * The top-level state fields an obligation's own formula reads — its rules, scopes, exemptions,
 * routes, without the invariants (undefined: the whole state): what a state carried over from
 * the parent must keep (reuse.ts); the invariants are checked on the carried state itself.
 */
export function formulaFields(ir: IREdition, ob: Obligation): Set<string> | undefined {
  const paths = obligationPaths(ir, ob);
  if (paths.has("")) return undefined;
  return new Set([...paths].map((p) => p.split(".")[0]!));
}

/** The top-level state fields an obligation's sliced query reads (undefined: the whole state), for completing a reused example (index.ts). */
export function sliceFields(ir: IREdition, ob: Obligation): Set<string> | undefined {
  const paths = new Set(obligationPaths(ir, ob));
  for (const i of sliceInvariants(ir, ob)) statePaths(i.expr, ir, paths);
  if (paths.has("")) return undefined;
  return new Set([...paths].map((p) => p.split(".")[0]!));
}
