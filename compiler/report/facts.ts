/**
 * Counterexamples and witnesses as a designer reads them (issue 25): the prover's facts
 * (`state.spaces[paris].unrest = true`, `state.alliances[8].a = genoa`, `action.target = scotland`)
 * kept to those the finding depends on (the state fields the rules of its unsat core read),
 * grouped by what they are about (the action, the alliances, the hands, the spaces…), each read
 * with the edition's phrases ("Paris is in unrest", "the first power of alliance 9 is Genoa"),
 * and marked when they name a board space — by the state type, not by the value's spelling: in
 * `state.alliances[8].a = genoa` Genoa is a power, not the space Genoa.
 */
import type { Fact } from "../ir/proof-report.js";
import type { Expr, IREdition, Type } from "../ir/types.js";
import { forAction, readExpr, words, type Lexicon } from "./english.js";
import { positive } from "./phrases.js";
import { readsOf } from "./view-helpers.js";

/** One fact as the page shows it. */
export interface FactView {
  /** as the prover wrote it: `state.spaces[paris].unrest`, `state.hands[france]#len`, `action.target` */
  path: string;
  value: unknown;
  /** the fact in words, with the edition's phrases */
  text: string;
  /** the board space this fact is about, when its type says it is one (a Space-keyed map's key or a Space value) */
  space?: string;
  /** the rules and exemptions of the finding that read this fact's field */
  rules: string[];
}

/** Facts about one thing ("the alliances"), in the order the prover gave them. */
export interface FactGroup {
  /** `action`, or the state's top-level field (`alliances`, `spaces`) */
  key: string;
  /** its name in words */
  title: string;
  facts: FactView[];
}

/** One step of a fact's path. */
type Step = { k: "field"; name: string } | { k: "key"; key: string } | { k: "len" };

/** `state.spaces[paris].land_units[france]#len` → steps; undefined for a path that is not the state's or the action's. */
export function parseFactPath(p: string): { root: "state" | "action"; steps: Step[] } | undefined {
  const m = /^(state|action)((?:\.[A-Za-z_]\w*|\[[^\]]*\])*)(#len)?$/.exec(p);
  if (!m) return undefined;
  const steps: Step[] = [];
  for (const s of m[2]!.matchAll(/\.([A-Za-z_]\w*)|\[([^\]]*)\]/g)) steps.push(s[1] !== undefined ? { k: "field", name: s[1] } : { k: "key", key: s[2]! });
  if (m[3]) steps.push({ k: "len" });
  return { root: m[1] as "state" | "action", steps };
}

const BOOL: Type = { k: "bool" };
const INT: Type = { k: "int" };

/**
 * A fact's path as an IR expression over the state (so the renderer reads it with the phrases);
 * undefined when the path does not fit the state type. A list
 * element is a variable read "<noun> <n>" (1-based), e.g. "alliance 9".
 */
function pathExpr(ir: IREdition, lex: Lexicon, root: "state" | "action", steps: Step[], vars: Lexicon["vars"]): { e: Expr } | undefined {
  let e: Expr;
  let t: Type;
  if (root === "action") {
    const first = steps[0];
    if (first?.k !== "field") return undefined;
    e = { k: "var", name: first.name, type: { k: "string" } };
    return steps.length === 1 ? { e } : undefined;
  }
  e = { k: "state", type: ir.state };
  t = ir.state;
  let listNoun = "entry";
  for (const s of steps) {
    if (s.k === "field") {
      if (t.k !== "record") return undefined;
      const f: { name: string; type: Type } | undefined = t.fields.find((x) => x.name === s.name);
      if (!f) return undefined;
      const path = pathKey(e);
      listNoun = lex.phrases.nouns[path ? `${path}.${s.name}` : s.name] ?? "entry";
      e = { k: "field", obj: e, field: s.name, type: f.type };
      t = f.type;
    } else if (s.k === "key") {
      if (t.k === "map") {
        e = { k: "index", obj: e, key: { k: "lit", value: s.key, type: t.key }, type: t.value };
        t = t.value;
      } else if (t.k === "list") {
        const n = Number(s.key);
        if (!Number.isInteger(n)) return undefined;
        const name = `#${vars.size}`;
        const noun = t.elem.k === "record" && t.elem.name ? (lex.phrases.nouns[t.elem.name] ?? listNoun) : listNoun;
        vars.set(name, { noun, ref: `${noun === "entry" ? "entry" : noun} ${n + 1}` });
        e = { k: "var", name, type: t.elem };
        t = t.elem;
      } else return undefined;
    } else {
      if (t.k !== "list") return undefined;
      e = { k: "len", arg: e, type: INT };
      t = INT;
    }
  }
  return { e };
}

/** "spaces.unrest" for an expression built by pathExpr (keys and list positions left out). */
function pathKey(e: Expr): string {
  if (e.k === "field") {
    const p = pathKey(e.obj);
    return p ? `${p}.${e.field}` : e.field;
  }
  if (e.k === "index") return pathKey(e.obj);
  return "";
}

/** The type a fact's path ends in (undefined when it does not fit the state). */
function typeAt(ir: IREdition, steps: Step[]): Type | undefined {
  let t: Type = ir.state;
  for (const s of steps) {
    if (s.k === "field") {
      if (t.k !== "record") return undefined;
      const f: { name: string; type: Type } | undefined = t.fields.find((x) => x.name === s.name);
      if (!f) return undefined;
      t = f.type;
    } else if (s.k === "key") {
      if (t.k === "map") t = t.value;
      else if (t.k === "list") t = t.elem;
      else return undefined;
    } else t = INT;
  }
  return t;
}

/** The field path a fact reads, as `readsOf` writes them (`spaces.land_units`; `action` for the action's). */
function readKey(root: "state" | "action", steps: Step[]): string {
  if (root === "action") return "action";
  return steps.filter((s): s is Extract<Step, { k: "field" }> => s.k === "field").map((s) => s.name).join(".");
}

/**
 * The facts of an example as the page shows them: kept to those the rules and exemptions of
 * `readers` read (all of them when none of them reads any fact), grouped by what they are about,
 * each in words and marked with the space it is about.
 */
export function factGroups(ir: IREdition, lex: Lexicon, facts: Fact[], readers: string[], action: string | undefined): FactGroup[] {
  const l = forAction(lex, ir.actions.find((a) => a.name === action));
  const reads = new Map<string, string[]>();
  for (const id of readers) {
    const decl = ir.rules.find((r) => r.id === id) ?? ir.exemptions.find((x) => x.id === id);
    if (!decl) continue;
    reads.set(id, readsOf(decl.when));
  }
  const views: (FactView & { group: string })[] = [];
  for (const f of facts) {
    const parsed = parseFactPath(f.path);
    const key = parsed ? readKey(parsed.root, parsed.steps) : f.path;
    const rules = [...reads].filter(([, paths]) => key === "action" || paths.some((p) => p === key || p.startsWith(`${key}.`) || key.startsWith(`${p}.`))).map(([id]) => id);
    views.push({ path: f.path, value: f.value, text: factText(ir, l, f, parsed), ...spaceOf(ir, f, parsed, action), rules, group: parsed?.root === "action" ? "action" : (parsed?.steps[0]?.k === "field" ? parsed.steps[0].name : "other") });
  }
  const anyRead = views.some((v) => v.group !== "action" && v.rules.length);
  const kept = anyRead ? views.filter((v) => v.group === "action" || v.rules.length) : views;
  const groups = new Map<string, FactView[]>();
  for (const { group, ...v } of kept) groups.set(group, [...(groups.get(group) ?? []), v]);
  return [...groups].map(([k, fs]) => ({ key: k, title: groupTitle(lex, k), facts: fs }));
}

/** "the action", "the alliances", "the spaces" */
function groupTitle(lex: Lexicon, key: string): string {
  if (key === "action") return "the action";
  const p = lex.phrases.fields[key];
  const text = p !== undefined ? positive(p) : "";
  return text && !/\{/.test(text) ? text : `the ${words(key)}`;
}

/** The space a fact is about: the key of a Space-keyed map on its path, else its value when the value's type is Space. */
function spaceOf(ir: IREdition, f: Fact, parsed: ReturnType<typeof parseFactPath>, action: string | undefined): { space?: string } {
  if (!parsed) return {};
  const spaces = new Set(ir.board.spaces.map((s) => s.id));
  if (parsed.root === "action") {
    const a = parsed.steps[0]?.k === "field" ? parsed.steps[0].name : "";
    return typeof f.value === "string" && spaces.has(f.value) && actionParamIsSpace(ir, action, a) ? { space: f.value } : {};
  }
  let t: Type = ir.state;
  let space: string | undefined;
  for (const s of parsed.steps) {
    if (s.k === "field" && t.k === "record") t = t.fields.find((x) => x.name === s.name)?.type ?? BOOL;
    else if (s.k === "key" && t.k === "map") {
      if (t.key.base === "Space") space = s.key;
      t = t.value;
    } else if (s.k === "key" && t.k === "list") t = t.elem;
    else if (s.k === "len") t = INT;
  }
  if (t.k === "enum" && t.base === "Space" && typeof f.value === "string") space = f.value;
  return space && spaces.has(space) ? { space } : {};
}

/** Whether the action's parameter of this name is a Space. */
function actionParamIsSpace(ir: IREdition, action: string | undefined, name: string): boolean {
  const p = ir.actions.find((a) => a.name === action)?.params.find((x) => x.name === name);
  return !!p && p.type.k === "enum" && p.type.base === "Space";
}

/** A fact in words: "Paris is in unrest", "the hand of France is empty", "the target is Scotland"; the raw `path = value` when its path does not fit the state. */
function factText(ir: IREdition, lex: Lexicon, f: Fact, parsed: ReturnType<typeof parseFactPath>): string {
  const raw = `${f.path} = ${typeof f.value === "string" ? f.value : JSON.stringify(f.value)}`;
  if (!parsed) return raw;
  const vars = new Map(lex.vars);
  const built = pathExpr(ir, lex, parsed.root, parsed.steps, vars);
  if (!built) return raw;
  const l: Lexicon = { ...lex, vars };
  let t: Type | undefined = parsed.root === "state" ? typeAt(ir, parsed.steps) : undefined;
  if (parsed.root === "action") {
    const a = ir.actions.flatMap((x) => x.params).find((p) => parsed.steps[0]?.k === "field" && p.name === parsed.steps[0].name);
    t = a?.type;
    if (!l.params.has((built.e as Extract<Expr, { k: "var" }>).name)) return raw;
  }
  const left: Expr = { ...built.e, type: t ?? built.e.type } as Expr;
  const v = f.value;
  const right: Expr | undefined =
    typeof v === "boolean" ? { k: "lit", value: v, type: BOOL } : typeof v === "number" ? { k: "lit", value: v, type: INT } : typeof v === "string" ? { k: "lit", value: v, type: t && t.k === "enum" ? t : { k: "string" } } : undefined;
  if (!right) return raw;
  return readExpr({ k: "cmp", op: "=", left, right, type: BOOL }, l);
}
