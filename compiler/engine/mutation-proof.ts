/**
 * Equivalence of the mutants the bounded search cannot tell apart, decided by Z3 (issue 26, item
 * 5; conformance/README.md "Mutation testing"): each such mutant is compared with the edition by
 * the prover's encoding (compiler/verify/diff/variants.ts, `compareRuleVariants`: "a schema-valid
 * state satisfying the invariants and an action where the two `allowed` differ"):
 *
 * - unsat for every action the rule decides → `equivalent` (proved);
 * - sat → the decoded state and action are replayed here — valid under the schema and the
 *   invariants, the generated validators and the interpreter agree on the edition's verdict, and
 *   the mutant's verdict-only answer differs (`distinguishes`) — then shrunk towards the edition's
 *   fixture state and kept as a witness, which `conformance write` turns into a corpus case; a
 *   model that does not replay is `unknown` (never trusted unreplayed);
 * - a spent resource budget or an encoding error → `unknown`, never `equivalent`.
 *
 * The answers are committed data (`proofs/mutants/<edition>.json`, one entry per line), each with
 * the mutant's `key`: a hash of everything its answer depends on (the mutated rule, its variant,
 * the rules deciding the same actions and their exemptions, the invariants, actions, state type,
 * schema, enums, board, routes and tables; source positions left out), so an entry stays fresh
 * while those are unchanged and `conformance write` reads it without solving. The solving is
 * `rulewright conformance write --prove-mutants`; test/interpret/mutation.test.ts checks the
 * freshness. Never writes files (the CLI does).
 */
import crypto from "node:crypto";
import type { IRAction, IREdition, IRRule } from "../ir/types.js";
import { someExpr } from "../ir/walk.js";
import { actorParam, isActorOnly, liftedBy } from "../ir/derived.js";
import { createInterpreter } from "../interpret/index.js";
import { mutateEdition, type Mutant } from "./mutants.js";
import { distinguishes, shrinkTowards, type CheckFn } from "./mutation.js";

type Rec = Record<string, unknown>;

/** The format of `proofs/mutants/<edition>.json` (bumped when an entry's fields or the key change). */
export const MUTANT_PROOFS_FORMAT = 1;

/** One mutant's Z3 answer, as committed. */
export interface MutantProof {
  id: string;
  /** `mutantKey` when solved */
  key: string;
  verdict: "equivalent" | "differs" | "unknown";
  /** why `unknown` */
  reason?: string;
  /** Z3 resource units used (summed over the actions of the rule) */
  rlimit: number;
  /** the resource budget of each action's search (Z3 rlimit units) the answer was solved with */
  budget?: number;
  /** differs: the replayed, shrunk state as a patch of a fixture state (`base`, a path in the repository, with its content's sha256) and the action */
  witness?: { base: string; baseHash: string; patch: unknown; action: Rec };
}

/** A committed answer that is fresh for the current rules, its witness state rebuilt. */
export interface MutantDecision {
  verdict: MutantProof["verdict"];
  reason?: string;
  state?: unknown;
  action?: Rec;
}

const sha = (s: string): string => crypto.createHash("sha256").update(s).digest("hex");

/** JSON with object keys sorted and source positions (`pos`) left out: the same text for the same meaning. */
function stable(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  const o = v as Rec;
  return `{${Object.keys(o).filter((k) => k !== "pos" && o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${stable(o[k])}`).join(",")}}`;
}

/** The actions whose `allowed` rule `r` decides (as compiler/verify/diff/variants.ts `decidedActions`, and the interpreter's `check`). */
function decided(ir: IREdition, r: IRRule): IRAction[] {
  if (r.kind === "forbid") return ir.actions.filter((a) => a.name === r.action);
  const own = ir.actions.find((a) => a.name === r.action);
  return own && isActorOnly(own) ? ir.actions.filter((a) => a.name !== r.action && actorParam(a) !== undefined) : [];
}

/**
 * Whether a mutant's searches decide routes (a rule deciding one of its actions calls
 * `reachable`, as `has_loc`): those are refined against the validator's search round by round and
 * cost far more than the rest, so `conformance write --prove-mutants` solves them last.
 */
export function routeBound(ir: IREdition, m: Mutant): boolean {
  const rule = ir.rules.find((r) => r.id === m.rule);
  if (!rule) return false;
  const actions = new Set(decided(ir, rule).map((a) => a.name));
  return ir.rules.some((r) => decided(ir, r).some((a) => actions.has(a.name)) && someExpr(r.when, (x) => x.k === "reach"));
}

const sharedKeys = new WeakMap<IREdition, string>();

/**
 * The key of a mutant's Z3 answer: sha256 over what the answer depends on (module docstring).
 * Editing a rule that decides none of the mutated rule's actions leaves it unchanged.
 */
export function mutantKey(ir: IREdition, m: Mutant): string {
  // an action's scope (`during …`, legalMoves only) is left out: the variant comparison does not read it
  let shared = sharedKeys.get(ir);
  if (!shared) {
    shared = sha(stable({ format: MUTANT_PROOFS_FORMAT, state: ir.state, schema: ir.schema, enums: ir.enums, board: ir.board, routes: ir.routes, tables: ir.tables, actions: ir.actions.map(({ scope: _scope, ...a }) => a), invariants: ir.invariants.map((i) => i.expr) }));
    sharedKeys.set(ir, shared);
  }
  const rule = ir.rules.find((r) => r.id === m.rule)!;
  const actions = new Set(decided(ir, rule).map((a) => a.name));
  const deciding = ir.rules.filter((r) => decided(ir, r).some((a) => actions.has(a.name)));
  const part = (r: IRRule) => ({ id: r.id, kind: r.kind, action: r.action, scope: r.scope, when: r.when, lifts: liftedBy(ir, r).map((x) => x.when) });
  return sha(shared + stable({ mutant: m.when, rule: part(rule), deciding: deciding.map(part) }));
}

const isObj = (v: unknown): v is Rec => v !== null && typeof v === "object" && !Array.isArray(v);

/** base deep-merged with patch (objects key by key; arrays, scalars and null replace), as the corpus's cases. */
export function applyPatch(base: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Rec = { ...(isObj(base) ? base : {}) };
  for (const [k, v] of Object.entries(patch)) out[k] = applyPatch(isObj(base) ? base[k] : undefined, v);
  return out;
}

/** The patch p with applyPatch(base, p) deep-equal to state (state's keys a superset of base's: a complete state). */
function patchOf(base: unknown, state: unknown): unknown {
  if (!isObj(base) || !isObj(state)) return state;
  const out: Rec = {};
  for (const [k, v] of Object.entries(state)) if (!(k in base) || JSON.stringify(base[k]) !== JSON.stringify(v)) out[k] = isObj(base[k]) && isObj(v) ? patchOf(base[k], v) : v;
  return out;
}

/**
 * Solves the given mutants with Z3 and replays every state found (module docstring).
 * @param base the fixture state witnesses are shrunk towards and patched against (`file`: its path in the repository)
 * @returns one entry per mutant, in order
 */
export async function proveMutants(
  ir: IREdition,
  mutants: readonly Mutant[],
  opts: {
    check: CheckFn;
    valid: (state: unknown, action: Rec) => boolean;
    base: { file: string; text: string };
    rlimit?: number;
    /** the corpus's cases, as seeds of the searches (compiler/verify/diff/variants.ts `VariantOptions.seeds`) */
    cases?: readonly SeedCase[];
    onMutant?: (done: number, total: number, id: string) => void;
  },
): Promise<MutantProof[]> {
  const { compareRuleVariants, DEFAULT_VARIANT_RLIMIT } = await import("../verify/diff/variants.js");
  const { defaultJson } = await import("../verify/encode/state-facts.js");
  const interp = createInterpreter(ir);
  // whether the default state satisfies every invariant (the variants' slicing; unused while the
  // invariants are assumed lazily through `brokenInvariants`, below, but kept for its fallback)
  let defaultsOk = false;
  try {
    defaultsOk = interp.brokenInvariants(defaultJson(ir.state)).length === 0;
  } catch {
    // an invariant the interpreter cannot evaluate on the default state: no slicing
  }
  const verdicts = await compareRuleVariants(ir, mutants, { rlimit: opts.rlimit, defaultsSatisfyInvariants: defaultsOk, brokenInvariants: (state) => interp.brokenInvariants(state), seeds: seedsOf(opts.cases ?? []), routePath: (route, args, from, to, state) => interp.routePath(route, args, from, to, state), onVariant: opts.onMutant });
  const baseState = JSON.parse(opts.base.text) as unknown;
  return mutants.map((m, i) => {
    const v = verdicts[i]!;
    const entry: MutantProof = { id: m.id, key: mutantKey(ir, m), verdict: v.verdict, ...(v.reason ? { reason: v.reason } : {}), rlimit: v.rlimitUsed, ...(v.verdict === "unknown" ? { budget: opts.rlimit ?? DEFAULT_VARIANT_RLIMIT } : {}) };
    if (v.verdict !== "differs") return entry;
    const o = { check: opts.check, interp, mut: createInterpreter(mutateEdition(ir, m)), valid: opts.valid };
    const action = v.witness!.action;
    if (!distinguishes(ir, m, o, v.witness!.state, action)) return { ...entry, verdict: "unknown", reason: `the solver's state for ${v.action} did not replay: the validators and the interpreter do not tell the mutant apart on it` };
    const state = shrinkTowards(baseState, v.witness!.state, (s) => distinguishes(ir, m, o, s, action));
    return { ...entry, witness: { base: opts.base.file, baseHash: sha(opts.base.text), patch: patchOf(baseState, state), action } };
  });
}

/** A corpus case as a seed: its complete state, action and expected verdict. */
export interface SeedCase {
  state: unknown;
  action: Rec;
  allowed: boolean;
  violations: readonly string[];
}

/**
 * The seeds of the searches for a mutant of rule `rule` on action `action`: the cases of that
 * action that only `rule` forbids, then the allowed ones, then the rest (every other rule of the
 * action quiet on the first two kinds, so a change of what `rule` reads may flip the verdict).
 */
function seedsOf(cases: readonly SeedCase[]): (action: string, rule: string) => SeedCase[] {
  const byAction = new Map<string, SeedCase[]>();
  for (const c of cases) {
    const a = String(c.action.action);
    const list = byAction.get(a);
    if (list) list.push(c);
    else byAction.set(a, [c]);
  }
  const rank = (c: SeedCase, rule: string) => (c.violations.length === 1 && c.violations[0] === rule ? 0 : c.allowed ? 1 : 2);
  return (action, rule) => [...(byAction.get(action) ?? [])].sort((x, y) => rank(x, rule) - rank(y, rule));
}

/**
 * Whether a committed answer is worth solving again with a per-action budget of `rlimit` Z3
 * units: an `unknown` whose budget ran out under a smaller budget (`budget`, else the one its
 * reason names: "resource budget exhausted (rlimit N; …)"). An unknown for another reason (an
 * encoding error, a state that did not replay) is not: more budget would not change it.
 */
export function retriable(e: MutantProof, rlimit: number): boolean {
  if (e.verdict !== "unknown" || !/resource budget exhausted/.test(e.reason ?? "")) return false;
  const spent = e.budget ?? Number(/rlimit (\d+)/.exec(e.reason ?? "")?.[1] ?? Infinity);
  return spent < rlimit;
}

/** `proofs/mutants/<edition>.json`'s text: a header line, then one entry per line (sorted by id). */
export function formatMutantProofs(edition: string, entries: readonly MutantProof[]): string {
  const sorted = [...entries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const head = JSON.stringify({ edition, format: MUTANT_PROOFS_FORMAT });
  return `{"about": ${head},\n"mutants": [\n${sorted.map((e) => JSON.stringify(e)).join(",\n")}\n]}\n`;
}

/** The entries of a `proofs/mutants/<edition>.json` text; none when its format is another. */
export function parseMutantProofs(text: string): MutantProof[] {
  const j = JSON.parse(text) as { about?: { format?: number }; mutants?: MutantProof[] };
  return j.about?.format === MUTANT_PROOFS_FORMAT ? (j.mutants ?? []) : [];
}

/**
 * The committed answers that are fresh for the current rules (key equal to `mutantKey`; a
 * witness's base file unchanged), by mutant id, each witness state rebuilt.
 * @param readFile the text of a repository file (a witness's base), or undefined when missing
 */
export function freshDecisions(ir: IREdition, mutants: readonly Mutant[], entries: readonly MutantProof[], readFile: (file: string) => string | undefined): Map<string, MutantDecision> {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const bases = new Map<string, { text?: string; state?: unknown }>();
  const out = new Map<string, MutantDecision>();
  for (const m of mutants) {
    const e = byId.get(m.id);
    if (!e || e.key !== mutantKey(ir, m)) continue;
    if (e.verdict !== "differs") {
      out.set(m.id, { verdict: e.verdict, ...(e.reason ? { reason: e.reason } : {}) });
      continue;
    }
    const w = e.witness!;
    let b = bases.get(w.base);
    if (!b) {
      const text = readFile(w.base);
      bases.set(w.base, (b = text === undefined ? {} : { text, state: JSON.parse(text) }));
    }
    if (b.text === undefined || sha(b.text) !== w.baseHash) continue;
    out.set(m.id, { verdict: "differs", state: applyPatch(b.state, w.patch), action: w.action });
  }
  return out;
}
