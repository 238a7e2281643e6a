/**
 * The rule-level diff of two editions, from their IR alone (no solver, milliseconds): for every
 * action both declare with the same parameters (as `rulewright diff` compares them), the rules
 * one edition has and the other does not, and the rules of the same id whose meaning or wording
 * differs; and the invariants, exemptions, routes, tables and decline moves that differ.
 *
 * It says which rules differ, not whether a verdict differs: a changed rule may decide nothing new
 * (his-500's Scotland clause), and changed invariants or another action's obligations can change
 * a verdict with the same rules. `rulewright diff` proves that (compiler/verify/diff/diff.ts); the
 * report shows both (compiler/report/README.md).
 *
 * "Meaning" is what a verdict depends on, source positions left out: a rule's kind, action, scope,
 * exemption groups and condition (defs are inlined in the IR), the routes it calls and the
 * tables it looks up (their definitions), and the exemptions that lift it (id, condition). A rule
 * whose meaning is the same but whose title or citation differs is `reworded`.
 */
import type { IREdition, IRRule } from "../ir/types.js";
import { routesIn, tablesIn } from "../ir/walk.js";
import { liftedBy } from "../ir/derived.js";
import { sharedActions } from "../ir/vocabulary.js";

/** A rule of the same id in both editions whose meaning differs; `what` names the parts that do. */
export interface ChangedRule {
  id: string;
  /** of "kind", "scope", "groups", "condition", "route <name>", "table <name>", "exemptions" */
  what: string[];
}

export interface ActionRuleDiff {
  action: string;
  /** rule ids of the action in B only */
  added: string[];
  /** rule ids of the action in A only, with the reason when B removed them (`remove rule`) */
  removed: { id: string; reason?: string }[];
  changed: ChangedRule[];
  /** same meaning, another title or citation */
  reworded: string[];
  /** rules of the action the same in both */
  same: number;
}

/** An invariant, exemption, route, table or decline move that differs (decline: its phase as id). */
export interface OtherChange {
  what: "invariant" | "exemption" | "route" | "table" | "decline";
  id: string;
  change: "added" | "removed" | "changed";
}

export interface RuleDiff {
  /** edition folders */
  a: string;
  b: string;
  /** the number of actions both declare with the same parameters */
  shared: number;
  /** the shared actions whose rules differ, by name */
  actions: ActionRuleDiff[];
  /** actions declared by one edition only, or with other parameters (the reason as `rulewright diff` gives it) */
  notShared: { action: string; reason: string }[];
  other: OtherChange[];
}

/** canon() of IR objects already seen (a route or an exemption is read once per rule that uses it; IR is never changed after checking). */
const canonMemo = new WeakMap<object, string>();

/** Stable JSON: object keys sorted, `pos` fields left out. */
function canon(x: unknown): string {
  if (!x || typeof x !== "object") return JSON.stringify(x);
  let c = canonMemo.get(x);
  if (c === undefined) {
    if (Array.isArray(x)) c = `[${x.map(canon).join(",")}]`;
    else {
      const o = x as Record<string, unknown>;
      c = `{${Object.keys(o)
        .filter((k) => k !== "pos" && o[k] !== undefined)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canon(o[k])}`)
        .join(",")}}`;
    }
    canonMemo.set(x, c);
  }
  return c;
}

/** The parts of a rule's meaning, each as a canonical string. */
function meaning(r: IRRule, ir: IREdition): Map<string, string> {
  const parts = new Map<string, string>([
    ["kind", r.kind],
    ["scope", canon(r.scope)],
    ["groups", canon([...r.groups].sort())],
    ["condition", canon(r.when)],
  ]);
  const routes = new Set<string>();
  routesIn(r.when, routes);
  for (const n of [...routes].sort()) parts.set(`route ${n}`, canon(ir.routes.find((x) => x.name === n) ?? null));
  const tables = new Set<string>();
  tablesIn(r.when, tables);
  for (const n of [...tables].sort()) parts.set(`table ${n}`, canon((ir.tables ?? []).find((x) => x.name === n) ?? null));
  parts.set("exemptions", canon(liftedBy(ir, r).map((x) => [x.id, x.when]).sort((p, q) => (String(p[0]) < String(q[0]) ? -1 : 1))));
  return parts;
}

/** The parts that differ; a route or table called on one side only is part of the condition's change. */
function changedParts(x: Map<string, string>, y: Map<string, string>): string[] {
  return [...x.keys()].filter((k) => y.has(k) && x.get(k) !== y.get(k));
}

/**
 * The rule-level diff of A → B, or null when they share no action (nothing to compare).
 * Pure; never throws on well-formed IR.
 */
export function ruleDiff(a: IREdition, b: IREdition): RuleDiff | null {
  const fa = a.folder ?? a.name;
  const fb = b.folder ?? b.name;
  // the actions `rulewright diff` compares (compiler/ir/vocabulary.ts), and why the others are not
  const { shared: names, notCompared } = sharedActions(a, b, { a: fa, b: fb });
  const shared = [...names].sort();
  if (!shared.length) return null;
  const actions: ActionRuleDiff[] = [];
  for (const action of shared) {
    const ra = a.rules.filter((r) => r.action === action);
    const rb = b.rules.filter((r) => r.action === action);
    const d: ActionRuleDiff = { action, added: [], removed: [], changed: [], reworded: [], same: 0 };
    for (const r of rb) if (!ra.some((x) => x.id === r.id)) d.added.push(r.id);
    for (const r of ra) {
      const s = rb.find((x) => x.id === r.id);
      if (!s) {
        const why = (b.removed ?? []).find((x) => x.id === r.id && !(a.removed ?? []).some((y) => y.id === r.id));
        d.removed.push(why ? { id: r.id, reason: why.reason } : { id: r.id });
        continue;
      }
      const what = changedParts(meaning(r, a), meaning(s, b));
      if (what.length) d.changed.push({ id: r.id, what });
      else if (r.title !== s.title || r.citation.text !== s.citation.text) d.reworded.push(r.id);
      else d.same++;
    }
    if (d.added.length || d.removed.length || d.changed.length || d.reworded.length) actions.push(d);
  }
  const notShared: RuleDiff["notShared"] = [...notCompared];
  notShared.sort((p, q) => (p.action < q.action ? -1 : p.action > q.action ? 1 : 0));
  const other: OtherChange[] = [];
  const compare = <T>(what: OtherChange["what"], xs: T[], ys: T[], id: (t: T) => string, key: (t: T) => string) => {
    for (const x of xs) {
      const y = ys.find((t) => id(t) === id(x));
      if (!y) other.push({ what, id: id(x), change: "removed" });
      else if (key(x) !== key(y)) other.push({ what, id: id(x), change: "changed" });
    }
    for (const y of ys) if (!xs.some((t) => id(t) === id(y))) other.push({ what, id: id(y), change: "added" });
  };
  compare("invariant", a.invariants, b.invariants, (v) => v.id, (v) => canon(v.expr));
  compare("exemption", a.exemptions, b.exemptions, (x) => x.id, (x) => canon([x.when, [...x.groups].sort(), [...x.rules].sort()]));
  compare("route", a.routes, b.routes, (r) => r.name, canon);
  compare("table", a.tables ?? [], b.tables ?? [], (t) => t.name, (t) => canon({ ...t, title: undefined, citation: undefined }));
  compare("decline", a.declines ?? [], b.declines ?? [], (d) => d.phase, (d) => d.action);
  return { a: fa, b: fb, shared: shared.length, actions, notShared, other };
}
