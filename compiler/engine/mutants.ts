/**
 * Mutants of an edition's rules (issue 26, item 5): small, plausible engine bugs written as
 * changes to one rule's condition in the IR, so that the interpreter (compiler/interpret) can
 * evaluate them and the conformance corpus can be measured by how many it tells apart from the
 * real rules ("kills") in verdict-only mode (compiler/engine/mutation.ts).
 *
 * Operators, each applied at every place it fits in a rule's `when`:
 * - `negate_cmp`: a comparison with its opposite operator (`=` ↔ `!=`, `<` ↔ `>=`, `>` ↔ `<=`),
 *   and `x in S` ↔ `not (x in S)`;
 * - `const_plus` / `const_minus`: an integer literal ± 1;
 * - `drop_conjunct` / `drop_disjunct`: one operand of an `and` / `or` left out;
 * - `first_element`: a quantifier over a list that looks at the list's first element only
 *   (`some c in L: B` → `count(L) > 0 and B[c := L[0]]`; `every` → `count(L) = 0 or B[c := L[0]]`);
 * - `swap_params`: two action parameters of the same type exchanged throughout the condition;
 * - `exempt_actor`: the rule skipped for one value of the action's actor (`when ∧ actor != p`),
 *   an engine that forgets a rule for one power.
 *
 * Pure functions of the IR: the same edition always gives the same mutants, in the same order,
 * with the same ids (`<rule>#<op>@<site>[:<detail>]`).
 */
import type { Expr, IRAction, IREdition, IRRule, Type } from "../ir/types.js";

/** The mutation operators (module docstring). */
export type MutationOp = "negate_cmp" | "const_plus" | "const_minus" | "drop_conjunct" | "drop_disjunct" | "first_element" | "swap_params" | "exempt_actor";

/** One mutant: rule `rule` with condition `when` in place of its own. */
export interface Mutant {
  /** `<rule>#<op>@<site>[:<detail>]`, unique in the edition */
  id: string;
  rule: string;
  op: MutationOp;
  /** where in the condition: a path of child names from the rule's `when` ("when.args.1.left") */
  site: string;
  /** what changed, for people ("= → !=", "drop operand 2 of 3", "by ↔ target", "by != ottoman") */
  detail: string;
  when: Expr;
}

type Rebuild = (replacement: Expr) => Expr;
interface Site {
  path: string;
  node: Expr;
  rebuild: Rebuild;
}

const BOOL: Type = { k: "bool" };
const INT: Type = { k: "int" };
const NEGATED = { "=": "!=", "!=": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">" } as const;

/** Every sub-expression of `root` with a function that rebuilds `root` with it replaced (pre-order, children in field order). */
function sites(root: Expr): Site[] {
  const out: Site[] = [];
  const visit = (e: Expr, path: string, rebuild: Rebuild): void => {
    out.push({ path, node: e, rebuild });
    const child = (field: string, sub: Expr): void => visit(sub, `${path}.${field}`, (r) => rebuild({ ...e, [field]: r } as Expr));
    const listChild = (field: string, list: Expr[], i: number): void =>
      visit(list[i]!, `${path}.${field}.${i}`, (r) => rebuild({ ...e, [field]: list.map((x, j) => (j === i ? r : x)) } as Expr));
    switch (e.k) {
      case "field": return child("obj", e.obj);
      case "index": child("obj", e.obj); return child("key", e.key);
      case "not": case "neg": case "len": return child("arg", e.arg);
      case "and": case "or": case "setlit": {
        const list = e.k === "setlit" ? e.items : e.args;
        const f = e.k === "setlit" ? "items" : "args";
        for (let i = 0; i < list.length; i++) listChild(f, list, i);
        return;
      }
      case "implies": case "cmp": case "arith": child("left", e.left); return child("right", e.right);
      case "ite": child("cond", e.cond); child("then", e.then); return child("else", e.else);
      case "in": child("elem", e.elem); return child("set", e.set);
      case "quant": case "agg": {
        const d = e.domain;
        if (d.k === "list") visit(d.expr, `${path}.domain.expr`, (r) => rebuild({ ...e, domain: { ...d, expr: r } } as Expr));
        if (d.k === "board") d.args.forEach((a, i) => visit(a, `${path}.domain.args.${i}`, (r) => rebuild({ ...e, domain: { ...d, args: d.args.map((x, j) => (j === i ? r : x)) } } as Expr)));
        if (e.k === "agg" && e.where) child("where", e.where);
        if (e.k === "agg" && e.body) child("body", e.body);
        if (e.k === "quant") child("body", e.body);
        return;
      }
      case "board": case "table": for (let i = 0; i < e.args.length; i++) listChild("args", e.args, i); return;
      case "reach": for (let i = 0; i < e.args.length; i++) listChild("args", e.args, i); child("from", e.from); return child("to", e.to);
      case "distance": child("from", e.from); return child("to", e.to);
      default: return; // lit, var, state
    }
  };
  visit(root, "when", (r) => r);
  return out;
}

/** `e` with every free occurrence of variable `name` replaced by `by` (binders of the same name shadow it). */
function substitute(e: Expr, name: string, by: Expr): Expr {
  const s = (x: Expr): Expr => substitute(x, name, by);
  switch (e.k) {
    case "var": return e.name === name ? by : e;
    case "lit": case "state": return e;
    case "field": return { ...e, obj: s(e.obj) };
    case "index": return { ...e, obj: s(e.obj), key: s(e.key) };
    case "not": case "neg": case "len": return { ...e, arg: s(e.arg) };
    case "and": case "or": return { ...e, args: e.args.map(s) };
    case "setlit": return { ...e, items: e.items.map(s) };
    case "implies": case "cmp": case "arith": return { ...e, left: s(e.left), right: s(e.right) } as Expr;
    case "ite": return { ...e, cond: s(e.cond), then: s(e.then), else: s(e.else) };
    case "in": return { ...e, elem: s(e.elem), set: s(e.set) };
    case "quant": case "agg": {
      const d = e.domain;
      const domain = d.k === "list" ? { ...d, expr: s(d.expr) } : d.k === "board" ? { ...d, args: d.args.map(s) } : d;
      if (e.var === name) return { ...e, domain } as Expr;
      if (e.k === "quant") return { ...e, domain, body: s(e.body) };
      return { ...e, domain, ...(e.where ? { where: s(e.where) } : {}), ...(e.body ? { body: s(e.body) } : {}) };
    }
    case "board": case "table": return { ...e, args: e.args.map(s) } as Expr;
    case "reach": return { ...e, args: e.args.map(s), from: s(e.from), to: s(e.to) };
    case "distance": return { ...e, from: s(e.from), to: s(e.to) };
  }
}

const lit = (value: number | string, type: Type): Expr => ({ k: "lit", value, type });
const sameType = (a: Type, b: Type): boolean =>
  a.k === b.k && (a.k !== "enum" || (b.k === "enum" && a.base === b.base)) && (a.k === "int" || a.k === "bool" || a.k === "enum" || a.k === "string");

function usesVar(e: Expr, name: string): boolean {
  return sites(e).some((s) => s.node.k === "var" && s.node.name === name);
}

/** The mutants of one rule's condition, in a fixed order (sites in pre-order, then the rule-level operators). */
function ruleMutants(rule: IRRule, action: IRAction | undefined): Mutant[] {
  const out: Mutant[] = [];
  const add = (op: MutationOp, site: string, detail: string, when: Expr, tag = ""): void => {
    out.push({ id: `${rule.id}#${op}@${site}${tag ? `:${tag}` : ""}`, rule: rule.id, op, site, detail, when });
  };
  for (const { path, node, rebuild } of sites(rule.when)) {
    if (node.k === "cmp") add("negate_cmp", path, `${node.op} → ${NEGATED[node.op]}`, rebuild({ ...node, op: NEGATED[node.op] }));
    if (node.k === "in") add("negate_cmp", path, "in → not in", rebuild({ k: "not", arg: node, type: BOOL }));
    if (node.k === "lit" && typeof node.value === "number") {
      add("const_plus", path, `${node.value} → ${node.value + 1}`, rebuild({ ...node, value: node.value + 1 }));
      add("const_minus", path, `${node.value} → ${node.value - 1}`, rebuild({ ...node, value: node.value - 1 }));
    }
    if ((node.k === "and" || node.k === "or") && node.args.length >= 2) {
      node.args.forEach((_, i) => {
        const rest = node.args.filter((__, j) => j !== i);
        add(node.k === "and" ? "drop_conjunct" : "drop_disjunct", path, `drop operand ${i + 1} of ${node.args.length}`, rebuild(rest.length === 1 ? rest[0]! : { ...node, args: rest }), String(i));
      });
    }
    if (node.k === "quant" && node.domain.k === "list") {
      const list = node.domain.expr;
      const first: Expr = { k: "index", obj: list, key: lit(0, INT), type: node.varType };
      const body = substitute(node.body, node.var, first);
      const len: Expr = { k: "len", arg: list, type: INT };
      const m: Expr =
        node.q === "some"
          ? { k: "and", args: [{ k: "cmp", op: ">", left: len, right: lit(0, INT), type: BOOL }, body], type: BOOL }
          : { k: "or", args: [{ k: "cmp", op: "=", left: len, right: lit(0, INT), type: BOOL }, body], type: BOOL };
      add("first_element", path, `${node.q} ${node.var} in a list → its first element only`, rebuild(m));
    }
  }
  const params = action?.params ?? [];
  for (let i = 0; i < params.length; i++) {
    for (let j = i + 1; j < params.length; j++) {
      const [a, b] = [params[i]!, params[j]!];
      if (!sameType(a.type, b.type) || !(usesVar(rule.when, a.name) || usesVar(rule.when, b.name))) continue;
      const tmp = `\u0000swap`;
      const swapped = substitute(substitute(substitute(rule.when, a.name, { k: "var", name: tmp, type: a.type }), b.name, { k: "var", name: a.name, type: a.type }), tmp, { k: "var", name: b.name, type: b.type });
      add("swap_params", "when", `${a.name} ↔ ${b.name}`, swapped, `${a.name},${b.name}`);
    }
  }
  const actor = params.find((p) => p.actor);
  if (actor && actor.type.k === "enum") {
    for (const member of actor.type.members) {
      const ne: Expr = { k: "cmp", op: "!=", left: { k: "var", name: actor.name, type: actor.type }, right: lit(member, actor.type), type: BOOL };
      add("exempt_actor", "when", `${actor.name} != ${member}`, { k: "and", args: [rule.when, ne], type: BOOL }, member);
    }
  }
  return out;
}

/**
 * Every mutant of every rule of an edition (forbid and oblige rules), rules in `ir.rules` order.
 * @param ir a checked edition (loadEdition)
 */
export function mutantsOf(ir: IREdition): Mutant[] {
  const actions = new Map(ir.actions.map((a) => [a.name, a]));
  return ir.rules.flatMap((r) => ruleMutants(r, actions.get(r.action)));
}

/** The edition with mutant `m` in place of its rule (a new `rules` array; everything else shared). */
export function mutateEdition(ir: IREdition, m: Mutant): IREdition {
  return { ...ir, rules: ir.rules.map((r) => (r.id === m.rule ? { ...r, when: m.when } : r)) };
}
