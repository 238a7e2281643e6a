/**
 * Proof obligations of result tables (dsl/README.md, "Tables"), two per table:
 *
 * | kind | query | refuted means |
 * |---|---|---|
 * | `table_gap` (error) | dom ∧ ⋀ᵢ ¬row_i | an input of the declared domain that no row matches |
 * | `table_overlap` (error) | dom ∧ Σᵢ [row_i] ≥ 2 | an input that two or more rows match |
 *
 * dom: every `int in a..b` parameter within its range, enum parameters among their type's members
 * (bools and unranged ints are unconstrained). row_i: each pattern matches its key and the guard
 * holds (Encoder.tableRowConds, the same encoding rules use for lookups).
 *
 * A refutation is reported as a `TableExample`: the offending inputs, the keys they give and the
 * rows that match. It is canonical (independent of Z3's search): the parameters after the first
 * (the modifiers) are made as small as possible in turn — bools false, enums their first member,
 * ints as close to 0 as their range allows (then the positive one) — and then the first parameter
 * (the roll). So a gap at a total shows as that roll with no modifiers whenever the roll's range
 * allows it.
 */
import { intRange } from "../../ir/ints.js";
import type { Bool, Expr as ZExpr, Model } from "z3-solver";
import type { IREdition, IRTable, TableScalar, Type } from "../../ir/types.js";
import type { Encoder, Sym } from "../encode/encoder.js";
import { obligationsFor, type Obligation } from "../../ir/obligations.js";
import { canonicalSmt2 } from "./smt2.js";
import { budgetedCheck, errorReason, type Budget, type Z3Ctx } from "./z3.js";

type B = Bool<"main">;

/** The witness of a refuted table obligation. */
export type { TableExample } from "../../ir/proof-report.js";
import type { TableExample } from "../../ir/proof-report.js";

/** The two obligations of every table (obligationsFor's table_gap / table_overlap), sorted by id. */
export function tableObligations(ir: IREdition): (Obligation & { table: string })[] {
  return obligationsFor(ir).filter((o): o is Obligation & { table: string } => o.table !== undefined);
}

/** A solved table obligation: the fields of solve.ts's SolvedObligation it fills. */
export interface SolvedTable {
  verdict: "proved" | "refuted" | "unknown";
  /** refuted: the offending inputs, their keys and the matching rows */
  example?: TableExample;
  reason?: string;
  /** the SMT-LIB text of the query (written as <id>.smt2) */
  smt2: string;
}

/**
 * Solves one table_gap / table_overlap obligation (called by solve.ts's Prover for these kinds,
 * in the solver process or in-process; inside `runExclusive`). Never throws: an encoding or
 * solver error is `unknown` with the reason; running out of `budget` (z3.ts) is `unknown`, never
 * `proved`.
 */
export async function solveTable(ctx: Z3Ctx, enc: Encoder, ob: Obligation, budget: Budget): Promise<SolvedTable> {
  if (!ob.table || (ob.kind !== "table_gap" && ob.kind !== "table_overlap")) {
    return { verdict: "unknown", reason: `error: \`${ob.id}\` is not a table obligation`, smt2: `; ${ob.id}: not encoded\n` };
  }
  try {
    const t = enc.table(ob.table);
    const out = await proveOne(ctx, enc, t, ob.kind === "table_gap" ? "gap" : "overlap", budget);
    const smt2 = `; ${ob.id}: ${ob.kind} (${ob.severity}) of table ${t.name}\n` + out.smt2.replace(/^; *\n/, "");
    if (out.result === "unsat") return { verdict: "proved", smt2 };
    if (out.result === "sat") return { verdict: "refuted", example: out.example, smt2 };
    return { verdict: "unknown", reason: out.reason, smt2 };
  } catch (e) {
    return { verdict: "unknown", reason: errorReason(e), smt2: `; ${ob.id}: not encoded\n` };
  }
}

interface Input {
  name: string;
  type: Type;
  sym: Sym;
  /** the Z3 term (Int, Bool or enum datatype constant) */
  e: ZExpr<"main">;
}

async function proveOne(ctx: Z3Ctx, enc: Encoder, t: IRTable, what: "gap" | "overlap", budget: Budget): Promise<{ result: "sat" | "unsat" | "unknown"; smt2: string; example?: TableExample; reason?: string }> {
  const facts: B[] = [];
  const inputs: Input[] = t.params.map((p) => {
    const name = `table.${t.name}.${p.name}`;
    if (p.type.k === "bool") {
      const e = ctx.Bool.const(name);
      return { name: p.name, type: p.type, sym: { k: "b", e }, e };
    }
    if (p.type.k === "int") {
      const e = ctx.Int.const(name);
      // the declared range; 32-bit where undeclared (compiler/ir/ints.ts), as the checker assumed
      const [lo, hi] = intRange(p.type);
      facts.push(e.ge(lo), e.le(hi));
      return { name: p.name, type: p.type, sym: { k: "i", e }, e };
    }
    if (p.type.k === "enum") {
      const ty = p.type;
      const e = ctx.Const(name, enc.terms.enumSort(ty.base)) as ZExpr<"main">;
      if (ty.members.length !== enc.terms.baseMembers(ty).length) facts.push(enc.terms.memberE(e, ty.base, ty.members.map((m) => enc.terms.enumCode(ty, m))));
      return { name: p.name, type: ty, sym: { k: "e", e, base: ty.base }, e };
    }
    throw new Error(`table \`${t.name}\`: parameter \`${p.name}\` of type \`${p.type.k}\``);
  });
  const conds = enc.tableRowConds(t, inputs.map((i) => i.sym));
  const query: B =
    what === "gap"
      ? enc.terms.and(conds.map((c) => enc.terms.not(c)))
      : (ctx.Sum(ctx.Int.val(0), ...conds.map((c) => ctx.If(c, ctx.Int.val(1), ctx.Int.val(0)))) as ReturnType<Z3Ctx["Int"]["val"]>).ge(2);
  const solver = new ctx.Solver();
  try {
    for (const f of facts) solver.add(f);
    const q = ctx.Bool.const(`table:${t.name}`);
    solver.add(ctx.Implies(q, query));
    const smt2 = canonicalSmt2(solver.toSmtlib2("unknown")).replace(/\(check-sat\)\s*$/, `(check-sat-assuming (|table:${t.name}|))\n`);
    const pins: B[] = [q];
    let proxies = 0;
    const check = async (extra: B[] = []): Promise<"sat" | "unsat" | "unknown"> => {
      // assumptions are Boolean constants only (see z3.ts / index.ts)
      const lits = extra.map((f) => {
        const p = ctx.Bool.const(`pin:${t.name}:${++proxies}`);
        solver.add(ctx.Implies(p, f));
        return p;
      });
      return budgetedCheck(ctx, solver, budget, [...pins, ...lits]);
    };
    const first = await check();
    if (first !== "sat") return { result: first, smt2, ...(first === "unknown" ? { reason: budget.reason(solver) } : {}) };
    // canonical inputs: the modifiers first, then the roll
    const order = [...inputs.slice(1), ...inputs.slice(0, 1)];
    for (const inp of order) {
      const v = await smallest(ctx, enc, inp, check);
      if (v === undefined) break; // a timeout while minimizing: keep the model's values
      const pin = ctx.Bool.const(`pin:${t.name}:${++proxies}`);
      solver.add(ctx.Implies(pin, eqValue(ctx, enc, inp, v)));
      pins.push(pin);
    }
    if ((await check()) !== "sat") return { result: "unknown", smt2, reason: budget.exhausted || budget.interrupted ? budget.reason(solver) : "the canonical counterexample could not be confirmed" };
    const model = solver.model();
    try {
      return { result: "sat", smt2, example: exampleOf(ctx, enc, t, inputs, conds, model) };
    } finally {
      model.release();
    }
  } finally {
    solver.release();
  }
}

/** The input's value equal to v. */
function eqValue(ctx: Z3Ctx, enc: Encoder, inp: Input, v: TableScalar): B {
  if (inp.type.k === "bool") return v ? (inp.e as B) : (inp.e as B).not();
  if (inp.type.k === "int") return (inp.e as ReturnType<Z3Ctx["Int"]["const"]>).eq(v as number);
  const ty = inp.type as Extract<Type, { k: "enum" }>;
  return (inp.e as ZExpr<"main">).eq(enc.terms.enumVal(ty.base, enc.terms.enumCode(ty, v as string))) as B;
}

/**
 * The smallest value of one input (in its preference order) that keeps the query satisfiable
 * with the inputs pinned so far; undefined on a timeout.
 */
async function smallest(ctx: Z3Ctx, enc: Encoder, inp: Input, check: (extra?: B[]) => Promise<"sat" | "unsat" | "unknown">): Promise<TableScalar | undefined> {
  const t = inp.type;
  if (t.k === "bool") {
    const r = await check([(inp.e as B).not()]);
    return r === "sat" ? false : r === "unsat" ? true : undefined;
  }
  if (t.k === "enum") {
    // the shortest prefix of the members that holds a solution, by binary search
    const x = inp.e as ZExpr<"main">;
    const inPrefix = (n: number): B => enc.terms.memberE(x, t.base, t.members.slice(0, n).map((m) => enc.terms.enumCode(t, m)));
    let lo = 1;
    let hi = t.members.length;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const r = await check([inPrefix(mid)]);
      if (r === "unknown") return undefined;
      if (r === "sat") hi = mid;
      else lo = mid + 1;
    }
    return t.members[lo - 1];
  }
  // int: the target is 0 clamped into the range; find the smallest distance d from it, then
  // prefer target + d over target - d
  if (t.k !== "int") throw new Error(`table input of type \`${t.k}\``);
  const x = inp.e as ReturnType<Z3Ctx["Int"]["const"]>;
  const target = Math.min(Math.max(0, t.min ?? 0), t.max ?? Math.max(0, t.min ?? 0));
  const within = (d: number): B => ctx.And(x.ge(target - d), x.le(target + d));
  let hi = 1;
  for (;;) {
    const r = await check([within(hi)]);
    if (r === "unknown") return undefined;
    if (r === "sat") break;
    if (hi > 1 << 30) return undefined;
    hi *= 2;
  }
  let lo = 0;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const r = await check([within(mid)]);
    if (r === "unknown") return undefined;
    if (r === "sat") hi = mid;
    else lo = mid + 1;
  }
  if (lo === 0) return target;
  const up = await check([x.eq(target + lo)]);
  if (up === "unknown") return undefined;
  return up === "sat" ? target + lo : target - lo;
}

function exampleOf(ctx: Z3Ctx, enc: Encoder, t: IRTable, inputs: Input[], conds: B[], model: Model<"main">): TableExample {
  const value = (e: ZExpr<"main">, ty: Type): TableScalar => {
    const v = model.eval(e, true);
    if (ty.k === "enum") {
      const i = enc.terms.enumIndexOf(ty.base, v);
      return i === undefined ? String(v) : enc.terms.baseMembers(ty)[i]!;
    }
    if (ctx.isBool(v)) return ctx.isTrue(v);
    if (ctx.isIntVal(v)) return Number(v.value());
    return String(v);
  };
  const ins: Record<string, TableScalar> = {};
  for (const i of inputs) ins[i.name] = value(i.e, i.type);
  const env = new Map(inputs.map((i) => [i.name, i.sym]));
  const keys = t.keys.map((k, j) => {
    const s = enc.expr(k, env);
    const e = s.k === "b" || s.k === "i" || s.k === "e" ? s.e : undefined;
    return { label: t.keyLabels[j]!, value: e ? value(e, k.type) : "?" };
  });
  const rows = t.rows.filter((_, j) => ctx.isTrue(model.eval(conds[j]!, true))).map((r) => ({ file: r.pos.file, line: r.pos.line }));
  return { inputs: ins, keys, rows };
}

