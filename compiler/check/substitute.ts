/**
 * Capture-avoiding substitution on IR expressions: how a def's checked body is inlined at each
 * call (its parameters replaced by the call's arguments; a binder that would capture a free
 * variable of an argument is renamed).
 */
import type { Domain, Expr } from "../ir/types.js";
import { freeVars } from "../ir/walk.js";
import { defCallOf, defSpansOf, markDefCall, markDefSpans } from "../ir/def-calls.js";

/** Replace free variables by expressions, renaming binders that would capture them. */
export function substitute(e: Expr, m: Map<string, Expr>): Expr {
  if (m.size === 0) return e;
  let out = substituteNode(e, m);
  if (out === e) return out;
  // a def called inside the template keeps its mark (compiler/ir/def-calls.ts), its arguments substituted too
  const call = defCallOf(e);
  if (call) out = markDefCall({ ...out }, { def: call.def, params: call.params, args: call.args.map((a) => substitute(a, m)) });
  const spans = defSpansOf(e);
  if (spans.length) out = markDefSpans(out, spans.map((sp) => ({ ...sp, call: { ...sp.call, args: sp.call.args.map((a) => substitute(a, m)) } })));
  return out;
}

function substituteNode(e: Expr, m: Map<string, Expr>): Expr {
  const s = (x: Expr) => substitute(x, m);
  const sd = (d: Domain): Domain => (d.k === "list" ? { k: "list", expr: s(d.expr) } : d.k === "board" ? { ...d, args: d.args.map(s) } : d);
  switch (e.k) {
    case "var": return m.get(e.name) ?? e;
    case "lit": case "state": return e;
    case "field": return { ...e, obj: s(e.obj) };
    case "index": return { ...e, obj: s(e.obj), key: s(e.key) };
    case "not": case "neg": case "len": return { ...e, arg: s(e.arg) } as Expr;
    case "and": case "or": return { ...e, args: e.args.map(s) };
    case "implies": case "cmp": case "arith": return { ...e, left: s(e.left), right: s(e.right) } as Expr;
    case "ite": return { ...e, cond: s(e.cond), then: s(e.then), else: s(e.else) };
    case "in": return { ...e, elem: s(e.elem), set: s(e.set) };
    case "setlit": return { ...e, items: e.items.map(s) };
    case "board": return { ...e, args: e.args.map(s) };
    case "reach": return { ...e, args: e.args.map(s), from: s(e.from), to: s(e.to) };
    case "distance": return { ...e, from: s(e.from), to: s(e.to) };
    case "table": return { ...e, args: e.args.map(s) };
    case "quant":
    case "agg": {
      const inner = new Map(m);
      inner.delete(e.var);
      const captured = new Set<string>();
      for (const v of inner.values()) for (const n of freeVars(v).keys()) captured.add(n);
      let v = e.var;
      if (captured.has(v)) {
        const taken = new Set([...captured, ...freeVars(e).keys(), ...inner.keys()]);
        for (let i = 1; taken.has(v); i++) v = `${e.var}_${i}`;
        inner.set(e.var, { k: "var", name: v, type: e.varType });
      }
      const si = (x: Expr) => substitute(x, inner);
      if (e.k === "quant") return { ...e, var: v, domain: sd(e.domain), body: si(e.body) };
      return { ...e, var: v, domain: sd(e.domain), ...(e.where ? { where: si(e.where) } : {}), ...(e.body ? { body: si(e.body) } : {}) };
    }
  }
}
