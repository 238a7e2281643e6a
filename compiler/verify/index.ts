/**
 * Verification entry: IR → proof obligations → Z3 → ProofReport (+ proofs/<edition>/ files).
 *
 * fires(R) = scope(R) ∧ when(R) ∧ ¬(some exemption lifting R holds), in R's action context
 * (CONTRACTS.md "Verdict semantics"). Assertions are tracked under `inv:<id>`, `rule:<id>` and
 * `exempt:<id>` so unsat cores map back to ids. Never imports codegen.
 */
import fs from "node:fs";
import path from "node:path";
import type { Bool, Expr as ZExpr, Model, Solver } from "z3-solver";
import type { IRAction, IREdition, IRRule } from "../ir/types.js";
import { decode } from "./decode.js";
import { canonicalSmt2 } from "./smt2.js";
import { Encoder, type Env, type Unit } from "./encode.js";
import { actorOf, obligationsFor, safeName, type Obligation } from "./obligations.js";
import { duringCheck, getZ3, runExclusive, type Z3Ctx } from "./z3.js";
import { proveTables, type TableExample } from "./tables.js";

export { obligationsFor, safeName, type Obligation } from "./obligations.js";
export { describeTableExample, tableObligations, type TableExample } from "./tables.js";

export interface Example {
  /** a complete state, valid against the edition's JSON Schema */
  state: Record<string, unknown>;
  /** flat action JSON: `{ "action": name, ...params }` */
  action: Record<string, unknown>;
  /** false when the formula mentions a route (routes are uninterpreted in the prover) */
  replayable: boolean;
  reason?: string;
}

export interface ObligationResult extends Obligation {
  verdict: "proved" | "refuted" | "unknown";
  /** refuted contradiction: a state + action both obliged and forbidden */
  counterexample?: Example;
  /** proved always_forbidden / dead_rule: a state + action that is allowed / where the rule fires */
  witness?: Example;
  /** unsat core (rule, exemption and invariant ids) whenever the check was unsat */
  core?: string[];
  /** refuted table_gap / table_overlap: the offending inputs, their keys and the matching rows */
  table?: string;
  example?: TableExample;
  /** why the verdict is unknown (timeout, unsupported construct, …) */
  reason?: string;
  /** file name of the SMT-LIB benchmark, relative to outDir */
  smt2: string;
  /** wall time of this obligation (strip for determinism) */
  ms: number;
}

export interface ProofReport {
  edition: string;
  inputHash: string;
  obligations: ObligationResult[];
  summary: { proved: number; refuted: number; unknown: number; errors: number; warnings: number };
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
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_LIST_BOUND = 4;

export async function proveEdition(ir: IREdition, opts: ProveOptions = {}): Promise<ProofReport> {
  const ctx = await getZ3();
  return runExclusive(() => proveWith(ctx, ir, opts));
}

/**
 * Encodings are kept per IR object (and list bound) for the life of the IR: proving the same
 * edition again in one process reuses the same Z3 terms, so Z3 sees identical term ids and gives
 * identical models (fresh terms could recycle ids freed by the JS GC in any order).
 */
interface Session {
  enc: Encoder;
  cache: Map<string, Unit | Error>;
  envs: Map<string, { env: Env; params: Unit }>;
}
const sessions = new WeakMap<IREdition, Map<number, Session>>();
function sessionFor(ctx: Z3Ctx, ir: IREdition, listBound: number): Session {
  let m = sessions.get(ir);
  if (!m) sessions.set(ir, (m = new Map()));
  let s = m.get(listBound);
  if (!s) m.set(listBound, (s = { enc: new Encoder(ctx, ir, listBound), cache: new Map(), envs: new Map() }));
  return s;
}

interface Tracked {
  name: string; // inv:<id> | rule:<id> | exempt:<id>
  unit: Unit;
  negate?: boolean;
}

async function proveWith(ctx: Z3Ctx, ir: IREdition, opts: ProveOptions): Promise<ProofReport> {
  const t0 = performance.now();
  const timeoutMs = Math.max(1, Math.floor(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS));
  const listBound = opts.listBound ?? DEFAULT_LIST_BOUND;
  const session = sessionFor(ctx, ir, listBound);
  const { enc, cache, envs } = session;
  const obligations = obligationsFor(ir);

  // ---- lazily encoded, cached units (an encoding error is cached too) -----------------------
  const unit = (key: string, f: () => ReturnType<Encoder["bool"]>): Unit => {
    let u = cache.get(key);
    if (!u) {
      try {
        u = enc.unit(f);
      } catch (e) {
        u = e instanceof Error ? e : new Error(String(e));
      }
      cache.set(key, u);
    }
    if (u instanceof Error) throw u;
    return u;
  };
  const actionOf = (name: string): IRAction => {
    const a = ir.actions.find((x) => x.name === name);
    if (!a) throw new Error(`unknown action \`${name}\``);
    return a;
  };
  /** action envs: `name` = the action's own params; `name@other` = rules of `name` read with its actor bound to `other`'s actor */
  const envOf = (action: string, actorFrom?: string): { env: Env; params: Unit } => {
    const key = actorFrom ? `${action}@${actorFrom}` : action;
    let v = envs.get(key);
    if (!v) {
      let env!: Env;
      const host = actionOf(actorFrom ?? action);
      const params = enc.unit(() => {
        env = enc.actionEnv(host);
        return ctx.Bool.val(true);
      });
      if (actorFrom) {
        const own = actionOf(action);
        const actor = own.params.find((p) => p.actor)!;
        const hostActor = host.params.find((p) => p.actor)!;
        env = new Map([[actor.name, env.get(hostActor.name)!]]);
      }
      v = { env, params };
      envs.set(key, v);
    }
    return v;
  };
  const inv = (): Tracked[] =>
    ir.invariants.map((i) => ({ name: `inv:${i.id}`, unit: unit(`inv:${i.id}`, () => enc.bool(i.expr, new Map())) }));
  const liftsOf = (r: IRRule) => ir.exemptions.filter((e) => e.rules.includes(r.id) || e.groups.some((g) => r.groups.includes(g)));
  const ruleCore = (r: IRRule, ctxAction: string): Unit => {
    const { env } = envOf(r.action, ctxAction === r.action ? undefined : ctxAction);
    return unit(`rule:${r.id}@${ctxAction}`, () => enc.ruleCore(r, env));
  };
  const exemptHolds = (exId: string, r: IRRule, ctxAction: string): Unit => {
    const ex = ir.exemptions.find((e) => e.id === exId)!;
    const { env } = envOf(r.action, ctxAction === r.action ? undefined : ctxAction);
    return unit(`exempt:${exId}@${r.action}@${ctxAction}`, () => enc.bool(ex.when, env));
  };
  /** fires(R) as one unit (for negation) */
  const fires = (r: IRRule, ctxAction: string): Unit => {
    const core = ruleCore(r, ctxAction);
    const lifts = liftsOf(r).map((e) => exemptHolds(e.id, r, ctxAction));
    return {
      e: enc.and([core.e, ...lifts.map((l) => enc.not(l.e))]),
      leaves: new Set([...core.leaves, ...lifts.flatMap((l) => [...l.leaves])]),
      routes: new Set([...core.routes, ...lifts.flatMap((l) => [...l.routes])]),
    };
  };
  /** fires(R) split into conjuncts: rule:R = scope ∧ when, exempt:E = ¬E.when for each lifting E */
  const firesParts = (r: IRRule, into: Map<string, Tracked>) => {
    into.set(`rule:${r.id}`, { name: `rule:${r.id}`, unit: ruleCore(r, r.action) });
    for (const e of liftsOf(r)) into.set(`exempt:${e.id}`, { name: `exempt:${e.id}`, unit: exemptHolds(e.id, r, r.action), negate: true });
  };
  const ruleById = (id: string) => ir.rules.find((r) => r.id === id)!;

  const results: ObligationResult[] = [];
  for (const ob of obligations) {
    const s0 = performance.now();
    const smt2 = `${safeName(ob.id)}.smt2`;
    const res: ObligationResult = { ...ob, verdict: "unknown", smt2, ms: 0 };
    let text = "";
    try {
      const tracked = new Map<string, Tracked>();
      for (const t of inv()) tracked.set(t.name, t);
      if (ob.kind === "contradiction" || ob.kind === "dead_rule") {
        for (const id of ob.rules) firesParts(ruleById(id), tracked);
      } else {
        for (const id of ob.rules) {
          const r = ruleById(id);
          tracked.set(`rule:${r.id}`, { name: `rule:${r.id}`, unit: fires(r, ob.action), negate: true });
        }
      }
      const params = envOf(ob.action).params;
      const out = await check(ctx, enc, [...tracked.values()], params, timeoutMs, actionOf(ob.action));
      text = `; ${ob.id}: ${ob.kind} (${ob.severity}) of ${ob.action}; rules ${ob.rules.join(", ") || "(none)"}\n` + out.smt2.replace(/^; *\n/, "");
      if (out.result === "unknown") res.reason = out.reason;
      else if (out.result === "sat") {
        const ex: Example = { ...out.example!, replayable: out.routes.length === 0 };
        if (out.routes.length) ex.reason = `depends on route ${out.routes.join(", ")}`;
        if (ob.kind === "contradiction") {
          res.verdict = "refuted";
          res.counterexample = ex;
        } else {
          res.verdict = "proved";
          res.witness = ex;
        }
      } else {
        res.verdict = ob.kind === "contradiction" ? "proved" : "refuted";
        res.core = out.core;
      }
    } catch (e) {
      res.verdict = "unknown";
      res.reason = `error: ${e instanceof Error ? e.message : String(e)}`;
    }
    res.ms = Math.round(performance.now() - s0);
    results.push(res);
    if (opts.outDir) {
      fs.mkdirSync(opts.outDir, { recursive: true });
      fs.writeFileSync(path.join(opts.outDir, smt2), text || `; ${ob.id}: not encoded (${res.reason ?? "?"})\n`);
    }
  }

  // result tables: gap and overlap (compiler/verify/tables.ts)
  results.push(...(await proveTables(ctx, enc, ir, { timeoutMs, outDir: opts.outDir })));
  results.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const count = (f: (o: ObligationResult) => boolean) => results.filter(f).length;
  const report: ProofReport = {
    edition: ir.name,
    inputHash: ir.inputHash,
    obligations: results,
    summary: {
      proved: count((o) => o.verdict === "proved"),
      refuted: count((o) => o.verdict === "refuted"),
      unknown: count((o) => o.verdict === "unknown"),
      errors: count((o) => o.severity === "error" && o.verdict === "refuted"),
      warnings: count((o) => o.severity === "warning" && o.verdict === "refuted"),
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

interface CheckOut {
  result: "sat" | "unsat" | "unknown";
  smt2: string;
  reason?: string;
  core?: string[];
  example?: { state: Record<string, unknown>; action: Record<string, unknown> };
  routes: string[];
}

/** One solver per obligation: domain facts untracked, every part tracked by name. */
async function check(ctx: Z3Ctx, enc: Encoder, parts: Tracked[], params: Unit, timeoutMs: number, action: IRAction): Promise<CheckOut> {
  const leaves = new Set<string>(params.leaves);
  const routes = new Set<string>();
  for (const p of parts) {
    for (const l of p.unit.leaves) leaves.add(l);
    for (const r of p.unit.routes) routes.add(r);
  }
  const solver = new ctx.Solver();
  try {
    solver.set("timeout", timeoutMs);
    // relevancy propagation off: 10-20× faster on the unrolled list quantifiers of HIS
    solver.set("smt.relevancy", 0);
    for (const name of [...leaves].sort()) for (const f of enc.leaves.get(name)?.facts ?? []) solver.add(f);
    // tracked by hand (not addAndTrack) so a core can be minimized by re-checking subsets
    const track = new Map<string, Bool<"main">>();
    for (const p of [...parts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const lit = ctx.Bool.const(p.name);
      solver.add(ctx.Implies(lit, p.negate ? enc.not(p.unit.e) : p.unit.e));
      track.set(p.name, lit);
    }
    const names = [...track.keys()].map((n) => `|${n}|`).join(" ");
    const smt2 = canonicalSmt2(solver.toSmtlib2("unknown")).replace(/\(check-sat\)\s*$/, `(check-sat-assuming (${names}))\n`);
    const out: CheckOut = { result: "unknown", smt2, routes: [...routes].sort() };
    const r = await solveCanonical(ctx, enc, solver, leaves, timeoutMs, track);
    out.result = r.result;
    if (r.result === "unknown") out.reason = r.reason;
    else if (r.result === "unsat") out.core = r.core;
    else {
      try {
        out.example = decode(enc, r.model!, leaves, action);
      } finally {
        r.model!.release();
      }
    }
    return out;
  } finally {
    solver.release();
  }
}

/**
 * Solves with a canonical model, so witnesses are small, readable and independent of Z3's
 * internal term order (which varies within one process):
 * 1. check assuming every leaf takes its default (false, 0/min, first member, empty list, …);
 *    on unsat, the defaults named in the core are dropped and the check repeated; an unsat core
 *    naming no default is the obligation's real core;
 * 2. on sat, the model is made the lexicographic minimum over the leaves in name order (each
 *    leaf's order: its default first, then ascending): a leaf already at its default costs no
 *    check, others a binary search. Capped at `MAX_PIN_CHECKS` checks and `CANON_MS` ms; past
 *    the cap leaves keep their model values (the witness is still a model, just not canonical).
 * Falls back to one plain check (full timeout) when the defaults keep failing. All preference
 * checks use a short timeout (`CANON_CHECK_MS`), a timeout counting as "not satisfiable".
 * Unsat cores are minimized by deletion (re-checking without each part).
 */
const MAX_PIN_CHECKS = 128;
/** wall-time cap of the canonicalization of one model (past it, leaves keep their model values) */
const CANON_MS = 1500;
const CANON_CHECK_MS = 1000;
const MAX_DROP_ROUNDS = 12;
interface Solved {
  result: "sat" | "unsat" | "unknown";
  model?: Model<"main">;
  core?: string[];
  reason?: string;
  checks: number;
}
async function solveCanonical(
  ctx: Z3Ctx,
  enc: Encoder,
  solver: Solver<"main">,
  leaves: Set<string>,
  timeoutMs: number,
  track: Map<string, Bool<"main">>,
): Promise<Solved> {
  type IntE = ReturnType<Z3Ctx["Int"]["const"]>;
  let checks = 0;
  const tracked = [...track.values()];
  const run = async (assume0: Bool<"main">[], only?: Bool<"main">[]) => {
    const assume = [...(only ?? tracked), ...assume0];
    checks++;
    return guardedCheck(ctx, solver, timeoutMs, assume);
  };
  const coreNames = () => [...solver.unsatCore()].map((c) => c.toString().replace(/^\|(.*)\|$/, "$1"));
  const realCore = (names: string[]) => [...new Set(names.map((n) => n.replace(/^[a-z]+:/, "")))].sort();
  /** deletion-based: drop each tracked part whose removal keeps the rest unsat (a timeout keeps it) */
  const minimalCore = async (names: string[]): Promise<string[]> => {
    let core = names.filter((n) => track.has(n)).sort();
    for (const n of [...core]) {
      if (core.length <= 1 || !core.includes(n)) continue;
      const rest = core.filter((x) => x !== n);
      const restLits = rest.map((x) => track.get(x)!);
      // a model under (some of) the defaults shows `n` is needed, cheaply; drop defaults that
      // conflict (named by the core) for a few rounds, then check without any
      const local = new Map(prefs);
      let verdict: string = "?";
      for (let round = 0; round < MAX_DROP_ROUNDS && local.size && verdict === "?"; round++) {
        const r = await run([...local.values()], restLits);
        if (r === "sat") verdict = "sat";
        else if (r === "unknown") break;
        else {
          const bad = coreNames().filter((x) => local.has(x));
          if (!bad.length) verdict = "unsat";
          for (const b of bad) local.delete(b);
        }
      }
      if (verdict === "sat") continue;
      if (verdict === "unsat" || (await run([], restLits)) === "unsat") {
        const again = new Set(coreNames());
        core = rest.filter((x) => again.has(x));
      }
    }
    return realCore(core);
  };
  const prefs = new Map<string, Bool<"main">>();
  const prefLits = new Map<string, Bool<"main">>();
  for (const name of [...leaves].sort()) {
    const leaf = enc.leaves.get(name);
    if (!leaf) continue;
    const d = enc.defaultOf(leaf);
    if (d === undefined) continue;
    const p = ctx.Bool.const(`pref:${name}`);
    solver.add(ctx.Implies(p, (leaf.e as IntE).eq(d as never)));
    prefs.set(`pref:${name}`, p);
    prefLits.set(name, p);
  }
  const dropped: string[] = [];
  let sat = false;
  // the checks under defaults are only a shortcut: a short timeout, then the plain check
  solver.set("timeout", Math.max(1, Math.min(timeoutMs, CANON_CHECK_MS)));
  for (let i = 0; i < MAX_DROP_ROUNDS; i++) {
    const r = await run([...prefs.values()]);
    if (r === "sat") {
      sat = true;
      break;
    }
    if (r === "unknown") break;
    const names = coreNames();
    const bad = names.filter((n) => prefs.has(n));
    if (!bad.length) return { result: "unsat", core: await minimalCore(names), checks };
    for (const n of bad) {
      prefs.delete(n);
      dropped.push(n.slice("pref:".length));
    }
  }
  if (!sat) {
    // plain check
    solver.set("timeout", timeoutMs);
    const r = await run([]);
    if (r === "unsat") return { result: "unsat", core: await minimalCore(coreNames()), checks };
    if (r === "unknown") return { result: "unknown", reason: reasonUnknown(solver), checks };
  }
  // Lexicographic minimum over the leaves in name order (value order: the default first, then
  // ascending; bool false < true; enum members in declaration order). A leaf whose current model
  // value is already the minimum is pinned without a check, so the cost is a few checks per leaf
  // that must deviate from its default. Past MAX_PIN_CHECKS a leaf keeps its model value.
  let model = solver.model();
  const pins: Bool<"main">[] = [];
  let budget = MAX_PIN_CHECKS;
  const deadline = performance.now() + Math.min(timeoutMs, CANON_MS);
  // canonicalization checks are only preferences: a short timeout (counted as "not sat")
  solver.set("timeout", Math.max(1, Math.min(timeoutMs, CANON_CHECK_MS)));
  const spent = () => budget <= 0 || performance.now() > deadline;
  let proxies = 0;
  // INVARIANT: assumptions are always Boolean constants (proxies); formulas as assumptions have
  // crashed the wasm build of Z3.
  const proxy = (f: Bool<"main">): Bool<"main"> => {
    const p = ctx.Bool.const(`pin:${++proxies}`);
    solver.add(ctx.Implies(p, f));
    return p;
  };
  const ok = async (extra: Bool<"main">): Promise<boolean> => {
    budget--;
    return (await run([...pins, proxy(extra)])) === "sat";
  };
  const order = [...leaves].filter((n) => enc.leaves.has(n)).sort();
  /** kept defaults of the leaves after position i: soft guidance for the models, never decisive */
  const softAfter = (i: number) => order.slice(i + 1).flatMap((n) => (prefs.has(`pref:${n}`) ? [prefs.get(`pref:${n}`)!] : []));
  const refresh = async (i: number): Promise<boolean> => {
    // a model under the pins, preferably with the later leaves at their defaults
    let r = await run([...pins, ...softAfter(i)]);
    if (r !== "sat") r = await run(pins);
    if (r !== "sat") return false;
    model.release();
    model = solver.model();
    return true;
  };
  try {
    for (let i = 0; i < order.length; i++) {
      const name = order[i];
      const leaf = enc.leaves.get(name)!;
      const t = leaf.type;
      const cur = valueOf(enc, model, leaf);
      if (cur === undefined) continue;
      const def = enc.defaultValue(leaf);
      const eqVal = (v: number | boolean): Bool<"main"> =>
        t.k === "bool" ? (v ? (leaf.e as Bool<"main">) : (leaf.e as Bool<"main">).not())
        : t.k === "enum" ? ((leaf.e as ZExpr<"main">).eq(enc.enumVal(t.base, v as number)) as Bool<"main">)
        : (leaf.e as IntE).eq(v as number);
      if (cur === def) {
        pins.push(prefLits.get(name) ?? proxy(eqVal(def)));
        continue;
      }
      if (spent()) {
        pins.push(proxy(eqVal(cur)));
        continue;
      }
      // the smallest value in the leaf's order (default first) still satisfiable with the pins
      let best: number | boolean | undefined;
      const defPin = prefLits.get(name) ?? proxy(eqVal(def));
      budget--;
      if ((await run([...pins, defPin, ...softAfter(i)])) === "sat" || ((budget--, !spent()) && (await run([...pins, defPin])) === "sat")) {
        pins.push(defPin);
        model.release();
        model = solver.model();
        continue;
      }
      if (t.k === "bool") best = true;
      else if (t.k === "enum") {
        const codes = t.members.map((m) => enc.enumCode(t, m));
        const v = leaf.e as ZExpr<"main">;
        let [a, b] = [1, Math.max(1, codes.indexOf(cur as number))];
        while (a < b && !spent()) {
          const mid = Math.floor((a + b) / 2);
          if (await ok(enc.memberE(v, t.base, codes.slice(a, mid + 1)))) b = mid;
          else a = mid + 1;
        }
        if (a === b) best = codes[a];
      } else {
        const x = leaf.e as IntE;
        const c = cur as number;
        const floor = def as number;
        let lo = floor + 1;
        let hi = c;
        if (c < floor) {
          // below the default (an unbounded int): only values above it are searched
          if (!spent() && (await ok(x.gt(floor)))) hi = t.k === "int" && t.max !== undefined ? t.max : floor + (1 << 20);
          else lo = hi = c;
        }
        while (lo < hi && !spent()) {
          const mid = Math.floor((lo + hi) / 2);
          if (await ok(ctx.And(x.gt(floor), x.le(mid)))) hi = mid;
          else lo = mid + 1;
        }
        if (lo === hi) best = lo;
      }
      pins.push(proxy(eqVal(best ?? cur)));
      if (best !== undefined && best !== cur && !(await refresh(i))) {
        pins.pop();
        pins.push(proxy(eqVal(cur)));
      }
    }
    if (process.env.RW_VERIFY_DEBUG) process.stderr.write(`  sat checks=${checks} pinChecks=${MAX_PIN_CHECKS - budget} leaves=${leaves.size} dropped=${dropped.length} fellBack=${!sat}\n`);
    return { result: "sat", model, checks };
  } catch (e) {
    model.release();
    throw e;
  }
}

/** The value of a leaf in a model, comparable with `Encoder.defaultValue`. */
function valueOf(enc: Encoder, model: Model<"main">, leaf: { e: unknown; type: import("../ir/types.js").Type }): number | boolean | undefined {
  const v = model.eval(leaf.e as ZExpr<"main">, true);
  if (leaf.type.k === "enum") return enc.enumIndexOf(leaf.type.base, v);
  if (enc.ctx.isBool(v)) return enc.ctx.isTrue(v);
  if (enc.ctx.isIntVal(v)) return Number(v.value());
  return undefined;
}

function reasonUnknown(solver: Solver<"main">): string {
  try {
    const r = solver.reasonUnknown();
    return r === "canceled" || r === "timeout" ? `timeout (${r})` : r || "unknown";
  } catch {
    return "unknown";
  }
}

/** `solver.check()` with a watchdog: if the solver's own timeout does not fire, interrupt and await. */
async function guardedCheck(ctx: Z3Ctx, solver: Solver<"main">, timeoutMs: number, assumptions: Bool<"main">[] = []): Promise<"sat" | "unsat" | "unknown"> {
  const timer = setTimeout(() => ctx.interrupt(), timeoutMs + 2000);
  try {
    return await duringCheck(() => solver.check(...assumptions));
  } finally {
    clearTimeout(timer);
  }
}
