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
import type { BoardDomainFn, BoardFn, Domain, Expr, IRAction, IREdition, IRExemption, IRInvariant, IRRoute, IRRule, IRTable, TablePattern, TableValue } from "../ir/types.js";

/** What a reading needs from the edition: its board names, enums, actions and tables. */
export interface Lexicon {
  /** space id → printed name */
  spaces: Map<string, string>;
  /** enum member → the base enum's name, for members of enums other than Space */
  bases: Map<string, string>;
  /** table name → title */
  tables: Map<string, string>;
  /** route name → its parameter names */
  routes: Map<string, string[]>;
  /** the variables in scope that are action parameters: name → words ("the target") */
  params: Map<string, string>;
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

/** The lexicon of an edition (params empty: set per rule by `forAction`). */
export function lexicon(ir: IREdition): Lexicon {
  const bases = new Map<string, string>();
  for (const e of ir.enums) for (const m of e.members) if (!bases.has(m)) bases.set(m, e.base);
  return {
    spaces: new Map(ir.board.spaces.map((s) => [s.id, s.name])),
    bases,
    tables: new Map((ir.tables ?? []).map((t) => [t.name, t.title])),
    routes: new Map(ir.routes.map((r) => [r.name, r.params.map((p) => p.name)])),
    params: new Map(),
  };
}

/** The lexicon with an action's parameters in scope: the actor reads "the acting power", the rest "the <param>". */
export function forAction(lex: Lexicon, action: IRAction | undefined): Lexicon {
  const params = new Map<string, string>();
  for (const p of action?.params ?? []) params.set(p.name, p.actor ? "the acting power" : `the ${words(p.name)}`);
  return { ...lex, params };
}

/** An enum literal or space id in words. */
export function valueName(lex: Lexicon, v: string, type?: Expr["type"]): string {
  const base = type?.k === "enum" ? type.base : lex.bases.get(v);
  if ((base === "Space" || base === undefined) && lex.spaces.has(v)) return lex.spaces.get(v)!;
  return memberName(base, v);
}

const CMP: Record<string, string> = { "=": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than", ">=": "is at least" };
const ARITH: Record<string, string> = { "+": "plus", "-": "minus", "*": "times", "/": "divided (rounded down) by" }; // "/": issue 28 (language)

/** Board predicates: a sentence with the arguments in place of $0, $1. */
export const BOARD_FN: Record<BoardFn, string> = {
  is_land: "$0 is a land space",
  is_sea: "$0 is a sea zone",
  is_port: "$0 is a port",
  is_fortified: "$0 is fortified",
  is_key: "$0 is a key space",
  is_electorate: "$0 is an electorate",
  is_capital: "$0 is the capital of $1",
  is_home: "$0 is a home space of $1",
  adjacent: "$0 is adjacent to $1",
  pass_between: "a mountain pass lies between $0 and $1",
  port_on: "$0 is a port on $1",
};

/** Board collections: a noun phrase with the arguments in place of $0. */
export const BOARD_DOMAIN: Record<BoardDomainFn, string> = {
  ports_of: "the ports on $0",
  sea_zones_of: "the sea zones touching $0",
  neighbors: "the spaces connected to $0",
};

const AGG: Record<string, string> = { sum: "the sum", max: "the largest", min: "the smallest" };

const fill = (tpl: string, args: string[]) => tpl.replace(/\$(\d)/g, (_, i) => args[Number(i)] ?? "?");

/** An expression in words. Depth-limited (a reading deeper than 60 levels ends in "…"). */
export function readExpr(e: Expr, lex: Lexicon, depth = 0): string {
  if (depth > 60) return "…";
  const r = (x: Expr) => readExpr(x, lex, depth + 1);
  // a sub-clause of and/or/implies gets brackets when it is itself a connective
  const part = (x: Expr) => (x.k === "and" || x.k === "or" || x.k === "implies" ? `(${r(x)})` : r(x));
  switch (e.k) {
    case "lit":
      if (typeof e.value === "boolean") return e.value ? "true" : "false";
      if (typeof e.value === "number") return String(e.value);
      return e.type.k === "string" ? `“${e.value}”` : valueName(lex, e.value, e.type);
    case "var":
      return lex.params.get(e.name) ?? words(e.name);
    case "state":
      return "the game state";
    case "field":
      if (e.obj.k === "state") return `the ${words(e.field)}`;
      if (e.obj.k === "var" && !lex.params.has(e.obj.name)) return `${words(e.obj.name)}'s ${words(e.field)}`;
      return `the ${words(e.field)} of ${r(e.obj)}`;
    case "index":
      // state.spaces[s] is the space itself ("the controller of the origin")
      if (e.obj.k === "field" && e.obj.obj.k === "state" && e.key.type.k === "enum" && e.key.type.base === "Space") return r(e.key);
      if (e.obj.k === "field" && e.obj.obj.k === "state") return `${possessive(r(e.key))} ${words(e.obj.field)}`;
      if (e.obj.k === "field") return `${possessive(r(e.key))} ${words(e.obj.field)} in ${r(e.obj.obj)}`;
      return `${r(e.obj)} of ${r(e.key)}`;
    case "not":
      if (e.arg.k === "cmp" && e.arg.op === "=") return `${r(e.arg.left)} is not ${r(e.arg.right)}`;
      if (e.arg.k === "in") return `${r(e.arg.elem)} is not ${inSet(e.arg.set)}`;
      return `it is not the case that ${part(e.arg)}`;
    case "and":
      return e.args.map(part).join(" and ");
    case "or":
      return e.args.map(part).join(" or ");
    case "implies":
      return `if ${part(e.left)} then ${part(e.right)}`;
    case "cmp":
      if (e.right.k === "lit" && e.right.value === true && e.op === "=") return r(e.left);
      return `${r(e.left)} ${CMP[e.op]} ${r(e.right)}`;
    case "arith":
      return `${r(e.left)} ${ARITH[e.op]} ${r(e.right)}`;
    case "neg":
      return `minus ${r(e.arg)}`;
    case "ite":
      return `(${r(e.then)} if ${r(e.cond)}, otherwise ${r(e.else)})`;
    case "in":
      return `${r(e.elem)} is ${inSet(e.set)}`;
    case "setlit":
      return e.items.length ? e.items.map(r).join(", ") : "nothing";
    case "quant":
      return `for ${e.q} ${over(e.var, e.domain)}, ${readExpr(e.body, lex, depth + 1)}`;
    case "agg": {
      const where = e.where ? ` such that ${readExpr(e.where, lex, depth + 1)}` : "";
      if (e.op === "count") return `the number of ${over(e.var, e.domain)}${where}`;
      const what = e.body ? readExpr(e.body, lex, depth + 1) : words(e.var);
      const op = e.op === "sum_highest" ? `the sum of the ${e.n ?? 1} highest` : AGG[e.op];
      return `${op} of ${what} over ${over(e.var, e.domain)}${where}`;
    }
    case "len":
      return `the number of ${r(e.arg)}`;
    case "board":
      return fill(BOARD_FN[e.fn], e.args.map(r));
    case "distance":
      return `the distance from ${r(e.from)} to ${r(e.to)}`;
    case "reach": {
      const names = lex.routes.get(e.route) ?? [];
      const args = e.args.length ? ` (with ${e.args.map((a, i) => `${words(names[i] ?? `argument ${i + 1}`)} ${r(a)}`).join(", ")})` : "";
      const route = words(e.route);
      return `a ${route}${/path$/.test(route) ? "" : " path"}${args} leads from ${r(e.from)} to ${r(e.to)}`;
    }
    case "table":
      return `${e.field ? `the ${words(e.field)} entry of ` : ""}the ${words(e.table)} table for ${e.args.map(r).join(" and ")}`;
    default: {
      const never: never = e;
      throw new Error(`no reading for expression ${JSON.stringify(never)}`);
    }
  }

  /** "major power m" over an enum, "c in the acting power's hands" over a list or board collection */
  function over(v: string, d: Domain): string {
    return d.k === "enum" ? `${words(d.type.name)} ${words(v)}` : `${words(v)} in ${readDomain(d, lex, depth + 1)}`;
  }

  function inSet(set: Expr): string {
    if (set.k === "setlit") return set.items.length === 1 ? r(set.items[0]) : `one of ${set.items.map(r).join(", ")}`;
    return `in ${r(set)}`;
  }
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

/** "Declare war is forbidden during the spring deployment phase when …" */
export function readRule(rule: IRRule, ir: IREdition, lex = lexicon(ir)): string {
  const l = forAction(lex, ir.actions.find((a) => a.name === rule.action));
  const verb = rule.kind === "forbid" ? "is forbidden" : "is obliged (the only legal move of the acting power)";
  const scope = rule.scope ? ` during the ${phase(rule.scope.phase)}${rule.scope.segment ? ` (${words(rule.scope.segment)} segment)` : ""}` : "";
  const cond = rule.when.k === "lit" && rule.when.value === true ? " always" : ` when ${readExpr(rule.when, l)}`;
  return `${capital(words(rule.action))} ${verb}${scope}${cond}.`;
}

/** "Lifts the rules of group * and deploy.x when …" (the lifted rules' action's params in scope). */
export function readExemption(ex: IRExemption, ir: IREdition, lex = lexicon(ir)): string {
  const first = ir.rules.find((r) => ex.rules.includes(r.id) || r.groups.some((g) => ex.groups.includes(g)));
  const l = forAction(lex, ir.actions.find((a) => a.name === first?.action));
  const what = [...ex.groups.map((g) => (g === "*" ? "every rule of its action marked (*)" : `the rules of group ${words(g)}`)), ...ex.rules.map((id) => ir.rules.find((r) => r.id === id)?.title ?? id)];
  return `Lifts ${what.join(", ")} when ${readExpr(ex.when, l)}.`;
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
