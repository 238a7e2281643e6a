/**
 * Range analysis of integer expressions (issue 29, "one arithmetic"): every arithmetic result of
 * the rules must lie in the safe range ±(2^53 − 1) (compiler/ir/ints.ts), where JavaScript numbers
 * (the validators, the interpreter) are exact and so agree with the prover's exact integers.
 *
 * An interval [lo, hi] is computed bottom-up for each `int` expression, exactly (BigInt):
 * a literal is its value; a state field, a map value, a parameter or a bound variable its type's
 * range (`intRange`: the schema's `minimum`/`maximum` or a table parameter's `in a..b`, the 32-bit
 * bounds where undeclared); `count` 0..n and `distance` its type; an aggregate over a domain of at
 * most n elements: `sum` n × its body's range (with 0), `sum_highest(k, …)` min(k, n) × it, `max`/
 * `min` its body's range with 0; a table lookup the range of the values its rows give; `if` the
 * union of its branches; `+`, `-`, `*`, `/` (by a positive literal), unary `-` interval arithmetic. An arithmetic node (or a sum)
 * whose interval leaves the safe range is RW3106 at its source span, once per position (a def
 * inlined in many rules is reported once); the expressions above it are not reported again.
 *
 * Runs on the lowered roots (defs already inlined, so a def's parameters carry the ranges of the
 * arguments of each call).
 */
import type { Span } from "../diagnostics/types.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type { Domain, Expr, IRTable, SourcePos, Type } from "../ir/types.js";
import { SAFE_INT_MAX, UNBOUNDED_INT_MAX, UNBOUNDED_INT_MIN, intRange } from "../ir/ints.js";
import { children, domainExprs } from "../ir/walk.js";

type Range = readonly [bigint, bigint];
const MAX = BigInt(SAFE_INT_MAX);

export type RangeReport = (code: DiagnosticCode, message: string, file: string, span: Span, help?: string) => void;

/**
 * Checks every arithmetic result of `roots` against the safe range; reports RW3106 through
 * `report` at the span `spanOf(pos)` of the offending node (or its position's line when unknown).
 * @param tables the edition's tables, for the ranges of their int results
 * @param spaces the board's space count (the largest board domain)
 */
export function checkIntRanges(roots: Expr[], opts: { tables: IRTable[]; spaces: number; spanOf: (p: SourcePos) => Span | undefined; report: RangeReport }): void {
  const reported = new Set<string>();
  const tables = new Map(opts.tables.map((t) => [t.name, t]));
  const vars = new Map<string, Range>();

  const typeRange = (t: Type): Range | undefined => {
    if (t.k !== "int") return undefined;
    const [lo, hi] = intRange(t);
    return [BigInt(lo), BigInt(hi)];
  };

  const tableRange = (e: Extract<Expr, { k: "table" }>): Range | undefined => {
    const t = tables.get(e.table);
    if (!t) return typeRange(e.type) ?? [BigInt(UNBOUNDED_INT_MIN), BigInt(UNBOUNDED_INT_MAX)];
    let lo: bigint | undefined;
    let hi: bigint | undefined;
    for (const row of t.rows) {
      const v = e.field !== undefined && typeof row.value === "object" && row.value !== null ? (row.value as Record<string, unknown>)[e.field] : row.value;
      if (typeof v !== "number") continue;
      const b = BigInt(v);
      if (lo === undefined || b < lo) lo = b;
      if (hi === undefined || b > hi) hi = b;
    }
    return lo !== undefined && hi !== undefined ? [lo, hi] : [0n, 0n];
  };

  /** The most elements a domain has. */
  const domainSize = (d: Domain): bigint => {
    if (d.k === "enum") return BigInt(d.type.members.length);
    if (d.k === "board") return BigInt(opts.spaces);
    const t = d.expr.type;
    return BigInt(t.k === "list" ? t.bound : 0);
  };

  const overflow = (e: Expr, r: Range, what: string): boolean => {
    if (r[0] >= -MAX && r[1] <= MAX) return false;
    const pos = e.pos;
    const key = pos ? `${pos.file}:${pos.line}:${pos.column}` : undefined;
    if (key !== undefined && reported.has(key)) return true;
    if (key !== undefined) reported.add(key);
    const span = (pos && opts.spanOf(pos)) ?? { line: pos?.line ?? 1, column: pos?.column ?? 1, endLine: pos?.line ?? 1, endColumn: (pos?.column ?? 1) + 1 };
    const constant = r[0] === r[1];
    const far = r[1] > MAX ? r[1] : r[0];
    opts.report("RW3106", constant
      ? `${what} is ${r[0]}, outside the safe integer range ±${SAFE_INT_MAX}`
      : `${what} may be ${far} (it ranges over ${r[0]}..${r[1]}), outside the safe integer range ±${SAFE_INT_MAX}`,
    pos?.file ?? "", span,
    constant ? "use smaller numbers: JavaScript numbers (the validators) are exact only within ±(2^53−1)"
      : `bound what it reads (a schema \`minimum\`/\`maximum\`, a table parameter's \`in a..b\`; an action parameter and any int without a declared range hold ${UNBOUNDED_INT_MIN}..${UNBOUNDED_INT_MAX}), or use smaller factors`);
    return true;
  };

  const withVar = <T>(name: string, t: Type, f: () => T): T => {
    const prev = vars.get(name);
    const r = typeRange(t);
    if (r) vars.set(name, r);
    else vars.delete(name);
    try {
      return f();
    } finally {
      if (prev) vars.set(name, prev);
      else vars.delete(name);
    }
  };

  /** The range of `e` (undefined: not an int, or already reported below); visits every sub-expression. */
  const range = (e: Expr): Range | undefined => {
    switch (e.k) {
      case "lit":
        return typeof e.value === "number" ? [BigInt(e.value), BigInt(e.value)] : undefined;
      case "var":
        return vars.get(e.name) ?? typeRange(e.type);
      case "arith": {
        const a = range(e.left);
        const b = range(e.right);
        if (!a || !b) return undefined;
        let r: Range;
        if (e.op === "+") r = [a[0] + b[0], a[1] + b[1]];
        else if (e.op === "-") r = [a[0] - b[1], a[1] - b[0]];
        else if (e.op === "/") r = [floorDiv(a[0], b[0]), floorDiv(a[1], b[0])]; // b: a positive literal (RW3011)
        else {
          const ps = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]];
          r = [ps.reduce((x, y) => (y < x ? y : x)), ps.reduce((x, y) => (y > x ? y : x))];
        }
        const what = e.op === "+" ? "this sum" : e.op === "-" ? "this difference" : e.op === "/" ? "this quotient" : "this product";
        return overflow(e, r, what) ? undefined : r;
      }
      case "neg": {
        const a = range(e.arg);
        if (!a) return undefined;
        const r: Range = [-a[1], -a[0]];
        return overflow(e, r, "this negation") ? undefined : r;
      }
      case "ite": {
        range(e.cond);
        const a = range(e.then);
        const b = range(e.else);
        if (e.type.k !== "int") return undefined;
        if (!a || !b) return undefined;
        return [a[0] < b[0] ? a[0] : b[0], a[1] > b[1] ? a[1] : b[1]];
      }
      case "len": {
        range(e.arg);
        const t = e.arg.type;
        return [0n, BigInt(t.k === "list" ? t.bound : 0)];
      }
      case "table":
        e.args.forEach(range);
        return e.type.k === "int" ? tableRange(e) : undefined;
      case "quant":
        domainExprs(e.domain).forEach(range);
        withVar(e.var, e.varType, () => range(e.body));
        return undefined;
      case "agg": {
        domainExprs(e.domain).forEach(range);
        const n = domainSize(e.domain);
        const body = withVar(e.var, e.varType, () => {
          if (e.where) range(e.where);
          return e.body ? range(e.body) : ([1n, 1n] as Range);
        });
        if (!body) return undefined;
        const lo0 = body[0] < 0n ? body[0] : 0n;
        const hi0 = body[1] > 0n ? body[1] : 0n;
        if (e.op === "count") return [0n, n];
        if (e.op === "max" || e.op === "min") return [lo0, hi0];
        const k = e.op === "sum_highest" && e.n !== undefined && BigInt(e.n) < n ? BigInt(e.n) : n;
        const r: Range = [k * lo0, k * hi0];
        return overflow(e, r, e.op === "sum" ? "this sum" : "this `sum_highest`") ? undefined : r;
      }
      default:
        children(e).forEach(range);
        return typeRange(e.type);
    }
  };

  for (const root of roots) range(root);
}

/** ⌊a / k⌋ for k > 0 (BigInt `/` rounds toward zero). */
function floorDiv(a: bigint, k: bigint): bigint {
  const q = a / k;
  return a % k !== 0n && a < 0n ? q - 1n : q;
}
