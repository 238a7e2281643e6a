/**
 * A rule's condition read aloud: the AST of an expression (compiler/syntax/ast.ts) as one line of
 * plain English, for hover. `some c in state.hands[power]: c.home` reads "some c in the hands of
 * power has c's home"; `count(state.hands[power]) > state.rulers[power].admin_rating` reads
 * "the number of the hands of power is more than the admin_rating of the rulers of power".
 * Pure; names stay as written (in backticks for Markdown).
 *
 * Grouping: the words keep the AST's grouping. An operand is put in parentheses when, read
 * as it is, the words around it would regroup it — when it binds more loosely than its operator
 * (`(a or b) and c` reads "(a or b) and c", `(a + b) * c` "(a plus b) times c"), when it sits on
 * the right of a non-associative operator of the same strength (`a - (b - c)` reads "a minus (b
 * minus c)"), or when it is a quantifier, an implication or an aggregate with a `where`, whose
 * words run on to the right ("some x in d has p" would take in what follows it).
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

/** How tightly an expression's reading binds (higher: tighter; the parser's precedence, loosest `implies`); quantifiers 0, their body runs on to the right. */
function strength(e: Expr): number {
  switch (e.k) {
    case "bin":
      return BIN_STRENGTH[e.op] ?? 5;
    case "not":
      return 4;
    case "neg":
      return 8;
    case "quant":
      return 0;
    case "agg":
      return e.where ? 0 : 9;
    default:
      return 9;
  }
}

const BIN_STRENGTH: Record<string, number> = { implies: 1, or: 2, and: 3, "+": 6, "-": 6, "*": 7, "/": 7 };
/** operators whose operands can be regrouped without changing the meaning (`a and (b and c)` = `(a and b) and c`) */
const ASSOCIATIVE = new Set(["and", "or", "+", "*"]);

/** Markdown code for a name. */
const c = (s: string) => "`" + s + "`";

export function readExpr(e: Expr, depth = 0): string {
  if (depth > 40) return "…";
  const r = (x: Expr) => readExpr(x, depth + 1);
  // an operand in parentheses when its words would otherwise be regrouped by those around it
  const operand = (x: Expr, op: string, right: boolean) => {
    const own = BIN_STRENGTH[op] ?? 5;
    const s = strength(x);
    const wrap = s === 0 || s < own || (right && s === own && !ASSOCIATIVE.has(op)) || (!right && s === own && own === 5) || (x.k === "bin" && x.op === "implies");
    return wrap ? `(${r(x)})` : r(x);
  };
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
      return `minus ${strength(e.arg) < 8 ? `(${r(e.arg)})` : r(e.arg)}`;
    case "len":
      return `the number of ${strength(e.arg) < 9 ? `(${r(e.arg)})` : r(e.arg)}`;
    case "bin": {
      const left = operand(e.left, e.op, false);
      const right = operand(e.right, e.op, true);
      if (e.op === "and" || e.op === "or") return `${left} ${e.op} ${right}`;
      if (e.op === "implies") return `if ${left} then ${right}`;
      if (e.op === "+") return `${left} plus ${right}`;
      if (e.op === "-") return `${left} minus ${right}`;
      if (e.op === "*") return `${left} times ${right}`;
      if (e.op === "/") return `${left} divided by ${right} (rounded down)`;
      return `${left} ${CMP[e.op] ?? e.op} ${right}`;
    }
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
    case "pick":
      return `the ${e.op === "max" ? "larger" : "smaller"} of ${r(e.left)} and ${r(e.right)}`;
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
  // an obligation with parameters names the move: `play_card` with `card` `march` and `as` `event`
  const move = r.bind ? ` with ${r.bind.map((b) => `${c(b.param.name)} ${readExpr(b.value)}`).join(" and ")}` : "";
  return `${c(r.action.name)}${move} ${verb}${scope} when ${readExpr(r.when)}${r.unless ? `, unless ${readExpr(r.unless)}` : ""}`;
}
