/**
 * Plain-English readings of the IR (compiler/ir/types.ts), for the rulebook report.
 *
 * A reading follows the structure of the expression: `target = scotland and by in {ottoman,
 * papacy}` reads "the target is Scotland and the acting power is one of Ottoman or Papacy". Names
 * are shown, never raw ids, where the edition has a name: a board space by its printed name
 * (`st_quentin` → "St. Quentin"), an enum member, field, action, phase, route or table in words
 * (`hungary_bohemia` → "Hungary Bohemia", `active_power` → "active power"; members of power enums
 * capitalized). Pure functions of the IR; every `Expr` kind, `Domain` kind, board function,
 * operator and table pattern has a rendering (test/cli/report.test.ts enumerates them).
 */
import type { CmpOp, Domain, Expr, IRAction, IREdition, IRExemption, IRInvariant, IRRoute, IRRule, IRTable, TablePattern, TableValue } from "../ir/types.js";
import { defCallOf, defSpansOf, type DefCall } from "../ir/def-calls.js";
import { liftedBy } from "../ir/derived.js";
import { emptyPhrases, fillPhrase, negative, positive, type Phrases } from "./phrases.js";
import { BOARD_DOMAIN, BOARD_ELEMENT, BOARD_FN, BOARD_FN_NOT } from "./board-words.js";

export { BOARD_DOMAIN, BOARD_FN };

/** What a reading needs from the edition: its board names, enums, actions, tables and phrases. */
export interface Lexicon {
  /** space id → printed name */
  spaces: Map<string, string>;
  /** enum member → the base enum's name, for members of enums other than Space */
  bases: Map<string, string>;
  /** table name → title */
  tables: Map<string, string>;
  /** table name → its parameter names */
  tableParams: Map<string, string[]>;
  /** route name → its parameter names */
  routes: Map<string, string[]>;
  /** the variables in scope that are action parameters: name → words ("the target") */
  params: Map<string, string>;
  /** the bound variables in scope (quantifiers, aggregates): name → what they are called */
  vars: Map<string, { noun: string; ref: string }>;
  /** the domain's words (compiler/report/phrases.ts) */
  phrases: Phrases;
  /** every connective (and, or, if … then) in square brackets, for checking a reading's grouping */
  brackets: boolean;
  /** names read without a phrase of their own (`field:spaces.unrest`, `def:allied`, `var:m`): a reading to improve */
  misses: Set<string>;
}

/** `active_power` → "active power", `MajorPower` → "major power". */
export function words(id: string): string {
  return id.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/_+/g, " ").trim().toLowerCase();
}

/** "Hungary Bohemia" for a member of a power enum, words otherwise. */
function memberName(base: string | undefined, m: string): string {
  const w = m.replace(/_+/g, " ").trim();
  return base && /power/i.test(base) ? w.replace(/\b\w/g, (c) => c.toUpperCase()) : w;
}

/** The lexicon of an edition (params empty: set per rule by `forAction`), with its phrases (none by default). */
export function lexicon(ir: IREdition, phrases: Phrases = emptyPhrases(), opts: { brackets?: boolean } = {}): Lexicon {
  const bases = new Map<string, string>();
  for (const e of ir.enums) for (const m of e.members) if (!bases.has(m)) bases.set(m, e.base);
  return {
    spaces: new Map(ir.board.spaces.map((s) => [s.id, s.name])),
    bases,
    tables: new Map((ir.tables ?? []).map((t) => [t.name, t.title])),
    tableParams: new Map((ir.tables ?? []).map((t) => [t.name, (t.params ?? []).map((p) => p.name)])),
    routes: new Map(ir.routes.map((r) => [r.name, r.params.map((p) => p.name)])),
    params: new Map(),
    vars: new Map(),
    phrases,
    brackets: opts.brackets ?? false,
    misses: new Set(),
  };
}

/** The lexicon with an action's parameters in scope: the actor reads "the acting power", the rest their phrase or "the <param>". */
export function forAction(lex: Lexicon, action: IRAction | undefined): Lexicon {
  const params = new Map<string, string>();
  for (const p of action?.params ?? []) params.set(p.name, lex.phrases.params[`${action!.name}.${p.name}`] ?? (p.actor ? "the acting power" : `the ${words(p.name)}`));
  return { ...lex, params, vars: new Map() };
}

/** An action's name in words: its phrase, or the name's words ("declare war"). */
export function actionName(lex: Lexicon, action: string): string {
  return lex.phrases.actions[action] ?? words(action);
}

/** An enum literal or space id in words. */
export function valueName(lex: Lexicon, v: string, type?: Expr["type"]): string {
  const base = type?.k === "enum" ? type.base : lex.bases.get(v);
  const named = lex.phrases.names[`${base}.${v}`] ?? lex.phrases.names[v];
  if (named !== undefined) return named;
  if (base === "Phase") return `the ${phase(v)}`;
  if ((base === "Space" || base === undefined) && lex.spaces.has(v)) return lex.spaces.get(v)!;
  return memberName(base, v);
}

const CMP: Record<string, string> = { "=": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than", ">=": "is at least" };
/** the comparison that holds when `op` does not */
const NOT_CMP: Record<string, string> = { "=": "!=", "!=": "=", "<": ">=", "<=": ">", ">": "<=", ">=": "<" };
const ARITH: Record<string, string> = { "+": "plus", "-": "minus", "*": "times", "/": "divided (rounded down) by" };

const AGG: Record<string, string> = { sum: "the sum", max: "the largest", min: "the smallest" };

const fill = (tpl: string, args: string[]) => tpl.replace(/\$(\d)/g, (_, i) => args[Number(i)] ?? "?");

/** Kinds whose reading is a connective: grouped by brackets when nested. */
const CONNECTIVE = new Set(["and", "or", "implies"]);

/** A plural noun ("card" → "cards", "sea zone" → "sea zones", "alliance" → "alliances"). */
function plural(noun: string): string {
  if (/(s|x|ch|sh)$/.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/** An expression in words. Depth-limited (a reading deeper than 60 levels ends in "…"). */
export function readExpr(e: Expr, lex: Lexicon, depth = 0): string {
  if (depth > 60) return "…";
  const r = (x: Expr) => readExpr(x, lex, depth + 1);
  const viaDef = readDefCall(e, lex, depth, false);
  if (viaDef !== undefined) return viaDef;
  switch (e.k) {
    case "lit":
      if (typeof e.value === "boolean") return e.value ? "true" : "false";
      if (typeof e.value === "number") return String(e.value);
      return e.type.k === "string" ? `“${e.value}”` : valueName(lex, e.value, e.type);
    case "var": {
      const v = lex.vars.get(e.name);
      if (v) return v.ref;
      const p = lex.params.get(e.name);
      if (p !== undefined) return p;
      lex.misses.add(`var:${e.name}`);
      return words(e.name);
    }
    case "state":
      return "the game state";
    case "field":
      return readField(e, lex, depth, false);
    case "index":
      return readIndex(e, lex, depth);
    case "not":
      return readNot(e.arg, lex, depth + 1);
    case "and":
    case "or":
      return group(connectiveParts(e, lex, depth).join(` ${e.k} `), lex);
    case "implies":
      return group(`if ${part(e.left, lex, depth)} then ${part(e.right, lex, depth)}`, lex);
    case "cmp":
      return readCmp(e.op, e.left, e.right, lex, depth);
    case "arith":
      return `${r(e.left)} ${ARITH[e.op]} ${r(e.right)}`;
    case "neg":
      return `minus ${r(e.arg)}`;
    case "ite":
      return `(${r(e.then)} if ${r(e.cond)}, otherwise ${r(e.else)})`;
    case "in":
      return `${r(e.elem)} is ${inSet(e.set, lex, depth)}`;
    case "setlit":
      return e.items.length ? listWords(e.items.map(r), "and") : "nothing";
    case "quant":
      return readQuant(e.q, e, lex, depth);
    case "agg":
      return readAgg(e, lex, depth);
    case "len":
      return readLen(e.arg, lex, depth);
    case "board":
      return fill(BOARD_FN[e.fn], e.args.map(r));
    case "distance":
      return `the distance from ${r(e.from)} to ${r(e.to)}`;
    case "reach":
      return readReach(e, lex, depth, false);
    case "table":
      return readTable(e, lex, depth);
    default: {
      const never: never = e;
      throw new Error(`no reading for expression ${JSON.stringify(never)}`);
    }
  }
}

/** "A, B or C" */
function listWords(items: string[], conj: string): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} ${conj} ${items[items.length - 1]}`;
}

/** A connective's words: in brackets in bracket mode. */
function group(text: string, lex: Lexicon): string {
  return lex.brackets ? `[${text}]` : text;
}

/** A clause of a connective: in parentheses when it is itself a connective (brackets already in bracket mode). */
function part(x: Expr, lex: Lexicon, depth: number): string {
  const s = readExpr(x, lex, depth + 1);
  return !lex.brackets && CONNECTIVE.has(x.k) && !hasPhrase(x, lex) ? `(${s})` : s;
}

/** Whether `e` is an inlined def with a phrase (read as one clause). */
function hasPhrase(e: Expr, lex: Lexicon): boolean {
  const call = defCallOf(e);
  return !!call && lex.phrases.defs[call.def] !== undefined;
}

/** A def call with a phrase, positive or negated; undefined when `e` is no def call with one. */
function readDefCall(e: Expr, lex: Lexicon, depth: number, negated: boolean): string | undefined {
  const call = defCallOf(e);
  return call ? readCall(call, lex, depth, negated) : undefined;
}

/** A def call in its phrase's words (undefined, and noted as a miss, when the def has no phrase). */
function readCall(call: DefCall, lex: Lexicon, depth: number, negated: boolean): string | undefined {
  const p = lex.phrases.defs[call.def];
  if (p === undefined) {
    lex.misses.add(`def:${call.def}`);
    return undefined;
  }
  const args: Record<string, string> = {};
  call.args.forEach((a, i) => {
    const text = readExpr(a, lex, depth + 1);
    args[call.params[i] ?? String(i)] = text;
    args[String(i)] = text;
  });
  if (!negated) return fillPhrase(positive(p), args);
  const neg = negative(p);
  return neg !== undefined ? fillPhrase(neg, args) : `it is not the case that ${fillPhrase(positive(p), args)}`;
}

/**
 * The clauses of an `and`/`or`: each argument, but a def call the checker spread into it (its body
 * an `and`/`or` of the same kind: compiler/ir/def-calls.ts `DefSpan`) read as one clause, its phrase.
 */
function connectiveParts(e: Extract<Expr, { k: "and" | "or" }>, lex: Lexicon, depth: number): string[] {
  const spans = defSpansOf(e);
  const out: string[] = [];
  for (let i = 0; i < e.args.length; ) {
    const sp = spans.find((x) => x.start === i);
    const text = sp ? readCall(sp.call, lex, depth, false) : undefined;
    if (sp && text !== undefined) {
      out.push(text);
      i += sp.count;
    } else {
      out.push(part(e.args[i]!, lex, depth));
      i++;
    }
  }
  return out;
}

/** `not x` in words: the negative phrase of a def or field, "is not", "no …", or "it is not the case that …". */
function readNot(x: Expr, lex: Lexicon, depth: number): string {
  const r = (y: Expr) => readExpr(y, lex, depth + 1);
  const viaDef = readDefCall(x, lex, depth, true);
  if (viaDef !== undefined) return viaDef;
  switch (x.k) {
    case "not":
      return r(x.arg);
    case "cmp":
      return readCmp(NOT_CMP[x.op] as CmpOp, x.left, x.right, lex, depth);
    case "in":
      return `${r(x.elem)} is not ${inSet(x.set, lex, depth)}`;
    case "field":
      return readField(x, lex, depth, true);
    case "board":
      return fill(BOARD_FN_NOT[x.fn], x.args.map(r));
    case "quant":
      return readQuant(x.q === "some" ? "no" : "not every", x, lex, depth);
    case "reach":
      return readReach(x, lex, depth, true);
    default: {
      const inner = readExpr(x, lex, depth + 1);
      return lex.brackets ? `not ${inner}` : CONNECTIVE.has(x.k) ? `it is not the case that (${inner})` : `it is not the case that ${inner}`;
    }
  }
}

/** A comparison; `= true`/`= false` read as the clause; `count(list) = 0` as "… is empty". */
function readCmp(op: CmpOp, left: Expr, right: Expr, lex: Lexicon, depth: number): string {
  const r = (y: Expr) => readExpr(y, lex, depth + 1);
  if (right.k === "lit" && typeof right.value === "boolean" && (op === "=" || op === "!=")) return (right.value === (op === "=")) ? r(left) : readNot(left, lex, depth);
  // two true/false clauses compared: "exactly when", or for `!=` "either … or …, but not both"
  if (left.type.k === "bool" && right.type.k === "bool" && (op === "=" || op === "!=")) return op === "=" ? `${r(left)} exactly when ${r(right)}` : `either ${r(left)} or ${r(right)}, but not both`;
  if (left.k === "len" && right.k === "lit" && typeof right.value === "number") {
    const list = r(left.arg);
    if ((op === "=" && right.value === 0) || (op === "<" && right.value === 1) || (op === "<=" && right.value === 0)) return `${list} ${pluralVerb(list)} empty`;
    if ((op === "!=" && right.value === 0) || (op === ">" && right.value === 0) || (op === ">=" && right.value === 1)) return `${list} ${pluralVerb(list)} not empty`;
  }
  return `${r(left)} ${CMP[op]} ${r(right)}`;
}

/** "is" or "are" for a noun phrase (a plural read from its last word). */
function pluralVerb(np: string): string {
  return /\b(units|cards|alliances|wars|powers|leaders|spaces|loans|deployments|expeditions|arrivals|galleons|treasures)$/.test(np) ? "are" : "is";
}

/** `elem in set` in words: "one of A, B or C", "one of <the list>". */
function inSet(set: Expr, lex: Lexicon, depth: number): string {
  const r = (y: Expr) => readExpr(y, lex, depth + 1);
  if (set.k === "setlit") return set.items.length === 1 ? r(set.items[0]!) : `one of ${listWords(set.items.map(r), "or")}`;
  return `one of ${r(set)}`;
}

/** The phrase keys of a field read: its path from the state (`spaces.unrest`), then its record type's (`Card.home`), or for an unnamed record off the state its bare name. */
function fieldKeys(e: Extract<Expr, { k: "field" }>): string[] {
  const keys: string[] = [];
  const path = pathOf(e);
  if (path !== undefined) keys.push(path);
  const t = e.obj.type;
  if (t.k === "record" && t.name) keys.push(`${t.name}.${e.field}`);
  // a field of an unnamed record off the state (a quantified element of a literal list type): its bare name
  if (path === undefined && t.k === "record" && !t.name) keys.push(e.field);
  return keys;
}

/** The dotted path of a state read, map keys left out (`state.spaces[s].unrest` → "spaces.unrest"); undefined off the state. */
function pathOf(e: Expr): string | undefined {
  if (e.k === "field") {
    if (e.obj.k === "state") return e.field;
    const p = pathOf(e.obj);
    return p === undefined ? undefined : `${p}.${e.field}`;
  }
  if (e.k === "index") return pathOf(e.obj);
  return undefined;
}

/** The reading of a map's key or a field's record, for `{key}`/`{of}`. */
function ownerReading(e: Expr, lex: Lexicon, depth: number): string {
  return readExpr(e, lex, depth + 1);
}

/** A field read: its phrase (negated when `negated` and the phrase says how), or "the <field> of <record>". */
function readField(e: Extract<Expr, { k: "field" }>, lex: Lexicon, depth: number, negated: boolean): string {
  const of = e.obj.k === "state" ? "" : ownerReading(e.obj, lex, depth);
  for (const key of fieldKeys(e)) {
    const p = lex.phrases.fields[key];
    if (p === undefined) continue;
    if (!negated) return fillPhrase(positive(p), { of });
    const neg = negative(p);
    return neg !== undefined ? fillPhrase(neg, { of }) : `it is not the case that ${fillPhrase(positive(p), { of })}`;
  }
  lex.misses.add(`field:${fieldKeys(e)[0] ?? e.field}`);
  const plain = e.obj.k === "state" ? `the ${words(e.field)}` : `the ${words(e.field)} of ${of}`;
  return negated ? `it is not the case that ${plain}` : plain;
}

/** A map lookup: the record of a space is the space itself; otherwise the map's phrase with `{key}`, or "<key>'s <map>". */
function readIndex(e: Extract<Expr, { k: "index" }>, lex: Lexicon, depth: number): string {
  const key = ownerReading(e.key, lex, depth);
  // state.spaces[s] is the space itself ("the controller of the origin")
  if (e.obj.k === "field" && e.obj.obj.k === "state" && e.key.type.k === "enum" && e.key.type.base === "Space" && e.type.k === "record") return key;
  if (e.obj.k === "field") {
    const of = e.obj.obj.k === "state" ? "" : ownerReading(e.obj.obj, lex, depth);
    for (const k of fieldKeys(e.obj)) {
      const p = lex.phrases.fields[k];
      if (p !== undefined) return fillPhrase(positive(p), { key, of });
    }
    lex.misses.add(`field:${fieldKeys(e.obj)[0] ?? e.obj.field}`);
    return e.obj.obj.k === "state" ? `${possessive(key)} ${words(e.obj.field)}` : `${possessive(key)} ${words(e.obj.field)} in ${of}`;
  }
  return `${readExpr(e.obj, lex, depth + 1)} of ${key}`;
}

/** What one element of a domain is called, and the words after it ("in the hand of the acting power"). */
function element(d: Domain, varType: Expr["type"], lex: Lexicon, depth: number): { noun: string; tail: string } {
  if (d.k === "enum") return { noun: lex.phrases.nouns[d.type.name] ?? words(d.type.name), tail: "" };
  if (d.k === "board") {
    const [noun, tail] = BOARD_ELEMENT[d.fn];
    return { noun, tail: fill(tail, d.args.map((a) => readExpr(a, lex, depth + 1))) };
  }
  const path = pathOf(d.expr);
  const named = path !== undefined ? lex.phrases.nouns[path] : undefined;
  const typeNoun = varType.k === "record" && varType.name ? lex.phrases.nouns[varType.name] ?? words(varType.name) : varType.k === "enum" ? lex.phrases.nouns[varType.name] ?? words(varType.name) : varType.k === "string" ? "name" : "item";
  const noun = named ?? typeNoun;
  // a state list read whole is named by its noun alone ("some alliance"); a list of something ("in the hand of …") keeps its words
  const whole = d.expr.k === "field" && d.expr.obj.k === "state" && named !== undefined;
  return { noun, tail: whole ? "" : ` in ${readExpr(d.expr, lex, depth + 1)}` };
}

/** A variable bound to a noun: "the card", "the other power" when a power is already in scope. */
function bind(lex: Lexicon, v: string, noun: string): { inner: Lexicon; noun: string; ref: string } {
  // a variable or action parameter already read "the <noun>" takes the plain name: this one is "the other <noun>"
  const taken = [...lex.vars.values()].filter((x) => x.noun === noun || x.noun === `other ${noun}`).length + ([...lex.params.values()].includes(`the ${noun}`) ? 1 : 0);
  const n = taken === 0 ? noun : taken === 1 ? `other ${noun}` : `${ORDINAL[taken] ?? `${taken + 1}th`} ${noun}`;
  const vars = new Map(lex.vars);
  vars.set(v, { noun, ref: `the ${n}` });
  return { inner: { ...lex, vars }, noun: n, ref: `the ${n}` };
}
const ORDINAL = ["first", "second", "third", "fourth", "fifth"];

/** Whether a body reads as one clause that can take the quantified noun in place of its variable. */
function atomic(e: Expr, lex: Lexicon): boolean {
  return hasPhrase(e, lex) || !["and", "or", "implies", "not", "quant", "agg", "ite"].includes(e.k);
}

/** "some card in the hand of the acting power is a home card", "every space connected to the space is …", "no power …". */
function readQuant(q: "some" | "every" | "no" | "not every", e: Extract<Expr, { k: "quant" }>, lex: Lexicon, depth: number): string {
  const { noun, tail } = element(e.domain, e.varType, lex, depth);
  const ph = `\u0001${e.var}\u0001`;
  const b = bind(lex, e.var, noun);
  const vars = new Map(b.inner.vars);
  vars.set(e.var, { noun, ref: ph });
  const body = readExpr(e.body, { ...b.inner, vars }, depth + 1);
  const np = `${q} ${b.noun}${tail}`;
  const count = body.split(ph).length - 1;
  if (count === 1 && atomic(e.body, lex)) return body.replace(ph, np);
  if (count >= 1 && body.startsWith(ph) && atomic(e.body, lex)) return np + body.slice(ph.length).split(ph).join(b.ref);
  return `${np} is such that ${body.split(ph).join(b.ref)}`;
}

/** count/sum/max/min/sum_highest over a domain, "where …" for a filter. */
function readAgg(e: Extract<Expr, { k: "agg" }>, lex: Lexicon, depth: number): string {
  const { noun, tail } = element(e.domain, e.varType, lex, depth);
  const b = bind(lex, e.var, noun);
  const where = e.where ? ` where ${readExpr(e.where, b.inner, depth + 1)}` : "";
  if (e.op === "count") return `the number of ${plural(b.noun)}${tail}${where}`;
  const what = e.body ? readExpr(e.body, b.inner, depth + 1) : b.ref;
  const op = e.op === "sum_highest" ? `the sum of the ${e.n ?? 1} highest` : AGG[e.op];
  return `${op} of ${what} over every ${b.noun}${tail}${where}`;
}

/** `count(list)`: "the number of cards in the hand of the acting power". */
function readLen(list: Expr, lex: Lexicon, depth: number): string {
  const path = pathOf(list);
  const noun = path !== undefined ? lex.phrases.nouns[path] : undefined;
  const of = readExpr(list, lex, depth + 1);
  return noun ? `the number of ${plural(noun)} in ${of}` : `the number of entries in ${of}`;
}

/** `reachable(route(args), from, to)`: the route's phrase ("a deployment path from … to …"), or the route's name in words. */
function readReach(e: Extract<Expr, { k: "reach" }>, lex: Lexicon, depth: number, negated: boolean): string {
  const r = (y: Expr) => readExpr(y, lex, depth + 1);
  const names = lex.routes.get(e.route) ?? [];
  const tpl = lex.phrases.routes[e.route];
  let np: string;
  if (tpl !== undefined) {
    const args: Record<string, string> = { from: r(e.from), to: r(e.to) };
    const flags: Record<string, boolean | undefined> = {};
    const conds: Record<string, string> = {};
    e.args.forEach((a, i) => {
      const n = names[i] ?? String(i);
      args[n] = r(a);
      if (a.k === "lit" && typeof a.value === "boolean") flags[n] = a.value;
      else conds[n] = r(a);
    });
    np = fillPhrase(tpl, args, flags, conds);
  } else {
    lex.misses.add(`route:${e.route}`);
    const route = words(e.route);
    np = `a ${route}${/path$/.test(route) ? "" : " path"} from ${r(e.from)} to ${r(e.to)}`;
  }
  if (!negated) return `there is ${np}`;
  return `there is ${np.replace(/^(a|an) /, "no ")}`;
}

/** A table lookup: its phrase over the arguments, or "the <field> entry of the <table> table for …". */
function readTable(e: Extract<Expr, { k: "table" }>, lex: Lexicon, depth: number): string {
  const r = (y: Expr) => readExpr(y, lex, depth + 1);
  const p = lex.phrases.tables[e.field ? `${e.table}.${e.field}` : e.table];
  const args: Record<string, string> = {};
  const names = lex.tableParams.get(e.table) ?? [];
  e.args.forEach((a, i) => {
    args[names[i] ?? String(i)] = r(a);
    args[String(i)] = r(a);
  });
  if (p !== undefined) return fillPhrase(positive(p), args);
  lex.misses.add(`table:${e.table}${e.field ? `.${e.field}` : ""}`);
  return `${e.field ? `the ${words(e.field)} entry of ` : ""}the ${words(e.table)} table for ${listWords(e.args.map(r), "and")}`;
}

/** A quantifier or aggregate domain in words. */
export function readDomain(d: Domain, lex: Lexicon, depth = 0): string {
  switch (d.k) {
    case "enum":
      return `every ${words(d.type.name)}`;
    case "list":
      return readExpr(d.expr, lex, depth);
    case "board":
      return fill(BOARD_DOMAIN[d.fn], d.args.map((a) => readExpr(a, lex, depth)));
    default: {
      const never: never = d;
      throw new Error(`no reading for domain ${JSON.stringify(never)}`);
    }
  }
}

/**
 * "Declare war is forbidden during the spring deployment phase when …, unless …": the rule's
 * condition, then the condition of each exemption that lifts it (compiler/ir/derived.ts liftedBy).
 */
export function readRule(rule: IRRule, ir: IREdition, lex = lexicon(ir)): string {
  const l = forAction(lex, ir.actions.find((a) => a.name === rule.action));
  const verb = rule.kind === "forbid" ? "is forbidden" : "is obliged (the only legal move of the acting power)";
  const scope = rule.scope ? ` during the ${phase(rule.scope.phase)}${rule.scope.segment ? ` (${words(rule.scope.segment)} segment)` : ""}` : "";
  const cond = rule.when.k === "lit" && rule.when.value === true ? " always" : ` when ${readExpr(rule.when, l)}`;
  const unless = liftedBy(ir, rule).map((ex) => `, unless ${readExpr(ex.when, l)}`).join("");
  // an obligation with parameters names its move: "Play card with card the march and as event is obliged …"
  const move = rule.bind ? ` with ${rule.bind.map((b) => `${words(b.param)} ${readExpr(b.value, l)}`).join(" and ")}` : "";
  return `${capital(actionName(lex, rule.action))}${move} ${verb}${scope}${cond}${unless}.`;
}

/**
 * "When …, the ban on remove unrest of §12.4 does not apply." (the lifted rules' action's params
 * in scope; the rules named by kind, action and citation, never by title or id).
 */
export function readExemption(ex: IRExemption, ir: IREdition, lex = lexicon(ir)): string {
  const lifted = ir.rules.filter((r) => liftedBy(ir, r).includes(ex));
  const l = forAction(lex, ir.actions.find((a) => a.name === lifted[0]?.action));
  const what = lifted.map((r) => `the ${r.kind === "forbid" ? "ban on" : "obligation to"} ${actionName(lex, r.action)} of ${r.citation.text.replace(/^\S+ (?=§)/, "")}`);
  const uniq = [...new Set(what)];
  const subject = uniq.length ? listWords(uniq, "and") : "no rule";
  return `When ${readExpr(ex.when, l)}, ${subject} ${uniq.length > 1 ? "do" : "does"} not apply.`;
}

/** "Always holds: …" */
export function readInvariant(inv: IRInvariant, ir: IREdition, lex = lexicon(ir)): string {
  return `In every legal state, ${readExpr(inv.expr, lex)}.`;
}

/** A route's clauses in words. */
export function readRoute(route: IRRoute, ir: IREdition, lex = lexicon(ir)): string {
  const l: Lexicon = { ...lex, params: new Map(route.params.map((p) => [p.name, `the ${words(p.name)}`])) };
  const parts = [`every land space on the path (as ${words(route.landVar)}): ${readExpr(route.land, l)}`, `every sea zone on it (as ${words(route.seaVar)}): ${readExpr(route.sea, l)}`, `every port where it enters or leaves the sea (as ${words(route.portVar)}): ${readExpr(route.port, l)}`];
  if (route.maxSeas) parts.push(`at most ${readExpr(route.maxSeas, l)} sea zones`);
  if (route.maxSteps) parts.push(`at most ${readExpr(route.maxSteps, l)} connections`);
  parts.push(`mountain passes may be crossed: ${readExpr(route.passes, l)}`);
  return `A ${words(route.name)} path: ${parts.join("; ")}.`;
}

/** One row of a table: "when roll is 2–4 and explorer is anything: lost". */
export function readTableRow(table: IRTable, row: IRTable["rows"][number], ir: IREdition, lex = lexicon(ir)): string {
  const l: Lexicon = { ...lex, params: new Map(table.params.map((p) => [p.name, words(p.name)])) };
  const conds = row.patterns.map((p, i) => readPattern(p, words(table.keyLabels[i] ?? `key ${i + 1}`), lex)).filter((s) => s !== "");
  if (row.guard) conds.push(readExpr(row.guard, l));
  return `${conds.length ? `when ${conds.join(" and ")}` : "otherwise"}: ${readValue(row.value, lex)}`;
}

/** A row pattern against a key ("" for `_`, which matches anything). */
export function readPattern(p: TablePattern, key: string, lex: Lexicon): string {
  switch (p.k) {
    case "any":
      return "";
    case "range":
      return p.min !== undefined && p.max !== undefined ? (p.min === p.max ? `${key} is ${p.min}` : `${key} is ${p.min} to ${p.max}`) : p.min !== undefined ? `${key} is at least ${p.min}` : p.max !== undefined ? `${key} is at most ${p.max}` : "";
    case "members":
      return `${key} is ${p.members.length === 1 ? "" : "one of "}${p.members.map((m) => valueName(lex, m)).join(", ")}`;
    case "bool":
      return p.value ? key : `not ${key}`;
    default: {
      const never: never = p;
      throw new Error(`no reading for pattern ${JSON.stringify(never)}`);
    }
  }
}

/** A table's value in words. */
export function readValue(v: TableValue, lex: Lexicon): string {
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${words(k)} ${readValue(x, lex)}`).join(", ");
  if (typeof v === "string") return valueName(lex, v);
  return String(v);
}

/** "action phase", "spring deployment phase" */
function phase(p: string): string {
  const w = words(p);
  return /phase$/.test(w) ? w : `${w} phase`;
}

function possessive(s: string): string {
  return /s$/.test(s) ? `${s}'` : `${s}'s`;
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
