/**
 * A rule's condition read aloud: the AST of an expression (compiler/syntax/ast.ts) as one line of
 * plain English, for hover. `some c in state.hands[power]: c.home` reads "some c in the hands of
 * power has c's home"; `count(state.hands[power]) > state.rulers[power].admin_rating` reads
 * "the number of the hands of power is more than the admin_rating of the rulers of power".
 * Pure; names stay as written (in backticks for Markdown).
 */
import type { Expr, RuleDecl } from "../syntax/ast.js";

const CMP: Record<string, string> = {
  "=": "is",
  "!=": "is not",
  "<": "is less than",
  "<=": "is at most",
  ">": "is more than",
  ">=": "is at least",
  in: "is one of",
  "not in": "is none of",
};

/** Markdown code for a name. */
const c = (s: string) => "`" + s + "`";

export function readExpr(e: Expr, depth = 0): string {
  if (depth > 40) return "…";
  const r = (x: Expr) => readExpr(x, depth + 1);
  switch (e.k) {
    case "int":
      return String(e.value);
    case "str":
      return JSON.stringify(e.value);
    case "bool":
      return e.value ? "true" : "false";
    case "state":
      return "the state";
    case "name":
      return c(e.name);
    case "call":
      return `${c(e.callee.name)}(${e.args.map(r).join(", ")})`;
    case "field":
      if (e.obj.k === "state") return `the ${c(e.field.name)}`;
      if (e.obj.k === "name") return `${c(e.obj.name)}'s ${c(e.field.name)}`;
      return `the ${c(e.field.name)} of ${r(e.obj)}`;
    case "index":
      return `${r(e.obj)} of ${r(e.key)}`;
    case "not":
      return `not (${r(e.arg)})`;
    case "neg":
      return `minus ${r(e.arg)}`;
    case "len":
      return `the number of ${r(e.arg)}`;
    case "bin":
      if (e.op === "and" || e.op === "or") return `${r(e.left)} ${e.op} ${r(e.right)}`;
      if (e.op === "implies") return `if ${r(e.left)} then ${r(e.right)}`;
      if (e.op === "+") return `${r(e.left)} plus ${r(e.right)}`;
      if (e.op === "-") return `${r(e.left)} minus ${r(e.right)}`;
      if (e.op === "*") return `${r(e.left)} times ${r(e.right)}`;
      return `${r(e.left)} ${CMP[e.op] ?? e.op} ${r(e.right)}`;
    case "set":
      return `{${e.items.map(r).join(", ")}}`;
    case "quant":
      return e.q === "some" ? `some ${c(e.var.name)} in ${r(e.domain)} has ${r(e.body)}` : `every ${c(e.var.name)} in ${r(e.domain)} has ${r(e.body)}`;
    case "agg": {
      const where = e.where ? ` where ${r(e.where)}` : "";
      if (e.op === "count") return `the number of ${c(e.var.name)} in ${r(e.domain)}${where}`;
      const what = e.body ? r(e.body) : c(e.var.name);
      const op = e.op === "sum" ? "the sum" : e.op === "max" ? "the largest" : e.op === "min" ? "the smallest" : `the sum of the ${e.n} highest`;
      return `${op} of ${what} over ${c(e.var.name)} in ${r(e.domain)}${where}`;
    }
    case "ite":
      return `(if ${r(e.cond)} then ${r(e.then)} else ${r(e.else)})`;
    case "reach":
      return `a ${c(e.route.name)} path leads from ${r(e.from)} to ${r(e.to)}`;
    default:
      return "…";
  }
}

/** "`pass` is forbidden during `action_phase` when …" for a rule. */
export function readRule(r: RuleDecl): string {
  const scope = r.during ? ` during ${c(r.during.phase.name + (r.during.segment ? "." + r.during.segment.name : ""))}` : "";
  const verb = r.kind === "forbid" ? "is forbidden" : "is the only legal move of its actor";
  return `${c(r.action.name)} ${verb}${scope} when ${readExpr(r.when)}`;
}
