/**
 * Name resolution + type checking + lowering of expressions (AST → typed IR Expr).
 * A function returns `undefined` when it reported an error (callers then stay silent, so one
 * mistake gives one diagnostic). Defs are checked once into a template and inlined by
 * capture-avoiding substitution.
 */
import type { Diagnostic, Span } from "../diagnostics/types.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type { BoardDomainFn, BoardFn, Domain, EnumType, Expr, SourcePos, Type } from "../ir/types.js";
import type { Expr as Ast } from "../syntax/ast.js";
import { children, domainExprs } from "../ir/walk.js";
import { boardDistances, unreachableDistance } from "../ir/board.js";
import { enumType, typeName, type Env, type ParamInfo } from "./env.js";
import { didYouMean, listedNames, posOf, type Help, type Reporter } from "./util.js";
import { SAFE_INT_MAX, isLanguageInt } from "../ir/ints.js";
import { localKey, type Resolution, type Use } from "./resolution.js";
import { recordPointer } from "./schema.js";

export const BOARD_FNS: Record<BoardFn, ("Space" | "Power")[]> = {
  is_land: ["Space"],
  is_sea: ["Space"],
  is_port: ["Space"],
  is_fortified: ["Space"],
  is_key: ["Space"],
  is_electorate: ["Space"],
  is_capital: ["Space", "Power"],
  is_home: ["Space", "Power"],
  adjacent: ["Space", "Space"],
  pass_between: ["Space", "Space"],
  port_on: ["Space", "Space"],
};
export const BOARD_DOMAIN_FNS: BoardDomainFn[] = ["ports_of", "sea_zones_of", "neighbors"];
/** The board builtin `distance(a, b)` (an int, unlike the bool `BOARD_FNS`; IR `{ k: "distance" }`). */
export const DISTANCE = "distance";
const BOOL: Type = { k: "bool" };
const INT: Type = { k: "int" };
const STRING: Type = { k: "string" };

export interface Binding {
  type: Type;
  irName: string;
  /** the resolution key of its declaration (compiler/check/resolution.ts), when it has one */
  key?: string;
}

export interface Ctx {
  file: string;
  scope: Map<string, Binding>;
  /** every IR variable name visible here (to pick fresh names for binders) */
  inUse: Set<string>;
  /** exemption checks: parameter name → a lifted rule whose action lacks it */
  missingParam?: Map<string, string>;
}

export function isScalar(t: Type): boolean {
  return t.k === "bool" || t.k === "int" || t.k === "string" || t.k === "enum";
}

/** `=`/`!=` compatibility: same scalar kind, enums with a common base. */
export function comparable(a: Type, b: Type): boolean {
  if (a.k === "enum" && b.k === "enum") return a.base === b.base;
  return a.k === b.k && isScalar(a);
}

/** Can a value of `actual` (the expression `e`) be used where `expected` is wanted? */
export function assignable(actual: Type, expected: Type, e?: Expr): boolean {
  if (actual.k === "enum" && expected.k === "enum") {
    if (actual.base !== expected.base) return false;
    if (e?.k === "lit") return expected.members.includes(String(e.value));
    return actual.members.every((m) => expected.members.includes(m));
  }
  if (actual.k === "list" && expected.k === "list") return assignable(actual.elem, expected.elem);
  if (actual.k === "map" && expected.k === "map") return assignable(actual.key, expected.key) && assignable(actual.value, expected.value);
  if (actual.k === "record" && expected.k === "record") return actual.name === expected.name && actual.fields.length === expected.fields.length;
  return actual.k === expected.k;
}

export class ExprChecker {
  private defTemplates = new Map<string, { ir?: Expr } | "busy">();

  /**
   * @param res the resolution table to record every resolved name in (compiler/check/resolution.ts);
   *   without one nothing is recorded
   */
  constructor(
    private env: Env,
    private r: Reporter,
    readonly res?: Resolution,
  ) {}

  /** Record a use of `key` at `span` of the current file (when a resolution table is kept). */
  private used(ctx: Ctx, span: Span, key: string, type?: Type): void {
    if (!this.res) return;
    const u: Use = { file: ctx.file, span, key };
    if (type) u.type = type;
    this.res.use(u);
  }

  private err(ctx: Ctx, code: DiagnosticCode, msg: string, span: Span, help?: Help, related?: Diagnostic["related"]): undefined {
    this.r.report(code, msg, ctx.file, span, help, related);
    return undefined;
  }

  /** The source span of each IR node's position (the range analysis reports at it; substitution keeps `pos` objects). */
  readonly spans = new WeakMap<SourcePos, Span>();

  private mk(e: Expr, ctx: Ctx, span: Span): Expr {
    const pos = posOf(ctx.file, span);
    this.spans.set(pos, span);
    return { ...e, pos };
  }

  /** Expect a given type (reporting RW3001 with `what` on mismatch). */
  expect(e: Ast, ctx: Ctx, want: Type, what: string): Expr | undefined {
    const x = this.expr(e, ctx, want);
    if (!x) return undefined;
    if (!assignable(x.type, want, x)) {
      const lit = x.k === "lit" && x.type.k === "enum" ? ` (\`${String(x.value)}\` is not a member of \`${typeName(want)}\`)` : "";
      return this.err(ctx, "RW3001", `${what} must be \`${typeName(want)}\`, found \`${typeName(x.type)}\`${lit}`, e.span,
        want.k === "enum" && x.type.k === "enum" && want.base === x.type.base ? `use a value of \`${want.name}\`` : `give a \`${typeName(want)}\` here`);
    }
    return x;
  }

  private bool(e: Ast, ctx: Ctx, opName: string): Expr | undefined {
    const x = this.expr(e, ctx, BOOL);
    if (x && x.type.k !== "bool") return this.err(ctx, "RW3002", `\`${opName}\` takes a \`bool\`, found \`${typeName(x.type)}\``, e.span, "compare it to get a bool, e.g. `x > 0`");
    return x;
  }

  private int(e: Ast, ctx: Ctx, opName: string): Expr | undefined {
    const x = this.expr(e, ctx, INT);
    if (x && x.type.k !== "int") return this.err(ctx, "RW3002", `\`${opName}\` takes an \`int\`, found \`${typeName(x.type)}\``, e.span, "use an integer expression here");
    return x;
  }

  /** A bare name that only the expected type can resolve (an ambiguous enum member)? */
  private needsContext(e: Ast, ctx: Ctx): boolean {
    return e.k === "name" && !ctx.scope.has(e.name) && (this.env.memberIndex.get(e.name)?.length ?? 0) > 1;
  }

  expr(e: Ast, ctx: Ctx, expected?: Type): Expr | undefined {
    const env = this.env;
    switch (e.k) {
      case "int":
        if (!isLanguageInt(e.value)) {
          return this.err(ctx, "RW3105", `the integer literal ${literalText(e.value)} is outside the safe integer range ±${SAFE_INT_MAX}`, e.span,
            `write an integer within ±${SAFE_INT_MAX} (at most 16 digits): the prover counts exactly, the validators with JavaScript numbers`);
        }
        return this.mk({ k: "lit", value: e.value, type: INT }, ctx, e.span);
      case "str":
        return this.mk({ k: "lit", value: e.value, type: STRING }, ctx, e.span);
      case "bool":
        return this.mk({ k: "lit", value: e.value, type: BOOL }, ctx, e.span);
      case "state":
        if (!env.state) return undefined; // the schema already failed
        return this.mk({ k: "state", type: env.state }, ctx, e.span);
      case "name":
        return this.name(e.name, e.span, ctx, expected);
      case "field":
        return this.field(e, ctx);
      case "index": {
        const o = this.expr(e.obj, ctx);
        if (!o) return undefined;
        if (o.type.k !== "map") {
          return this.err(ctx, "RW3008", `\`[…]\` looks up a map, but this is \`${typeName(o.type)}\``, e.span,
            o.type.k === "record" ? "read a record's field with `.field`" : "only maps keyed by an enum can be indexed");
        }
        const key = this.expr(e.key, ctx, o.type.key);
        if (!key) return undefined;
        if (!assignable(key.type, o.type.key, key)) {
          return this.err(ctx, "RW3007", `map keyed by \`${o.type.key.name}\` indexed by \`${typeName(key.type)}\``, e.key.span,
            `look it up with a \`${o.type.key.name}\` value`);
        }
        return this.mk({ k: "index", obj: o, key, type: o.type.value }, ctx, e.span);
      }
      case "not": {
        const a = this.bool(e.arg, ctx, "not");
        return a && this.mk({ k: "not", arg: a, type: BOOL }, ctx, e.span);
      }
      case "neg": {
        const a = this.int(e.arg, ctx, "-");
        return a && this.mk({ k: "neg", arg: a, type: INT }, ctx, e.span);
      }
      case "bin":
        return this.bin(e, ctx);
      case "set":
        return this.err(ctx, "RW3005", "a set literal `{…}` can only be used on the right of `in`", e.span, "write `x in {a, b}`");
      case "quant": {
        const d = this.domain(e.domain, ctx);
        if (!d) return undefined;
        const inner = this.bind(ctx, e.var, d.varType, e.span);
        const body = this.bool(e.body, inner.ctx, e.q);
        return body && this.mk({ k: "quant", q: e.q, var: inner.irName, varType: d.varType, domain: d.domain, body, type: BOOL }, ctx, e.span);
      }
      case "agg": {
        const d = this.domain(e.domain, ctx);
        if (!d) return undefined;
        if (e.op === "sum_highest" && e.n !== undefined && !isLanguageInt(e.n)) {
          return this.err(ctx, "RW3105", `the count ${literalText(e.n)} is outside the safe integer range ±${SAFE_INT_MAX}`, e.span, "give a count of at most the list's size");
        }
        if (e.op === "sum_highest" && !(e.n! >= 1)) return this.err(ctx, "RW3009", "`sum_highest` needs a count of at least 1", e.span, "write `sum_highest(2, x in D: …)`");
        const inner = this.bind(ctx, e.var, d.varType, e.span);
        const where = e.where ? this.bool(e.where, inner.ctx, "where") : undefined;
        const body = e.body ? this.int(e.body, inner.ctx, e.op) : undefined;
        if ((e.where && !where) || (e.body && !body)) return undefined;
        return this.mk({
          k: "agg", op: e.op, ...(e.n !== undefined ? { n: e.n } : {}), var: inner.irName, varType: d.varType, domain: d.domain,
          ...(where ? { where } : {}), ...(body ? { body } : {}), type: INT,
        }, ctx, e.span);
      }
      case "len": {
        const a = this.expr(e.arg, ctx);
        if (!a) return undefined;
        if (a.type.k !== "list") {
          return this.err(ctx, "RW3002", `\`count(…)\` takes a list, found \`${typeName(a.type)}\``, e.arg.span, "to count the members of a domain write `count(x in D where …)`");
        }
        return this.mk({ k: "len", arg: a, type: INT }, ctx, e.span);
      }
      case "ite": {
        const c = this.bool(e.cond, ctx, "if");
        const thenFirst = !this.needsContext(e.then, ctx);
        const a = thenFirst ? this.expr(e.then, ctx, expected) : undefined;
        const b = this.expr(e.else, ctx, a?.type ?? expected);
        const t = thenFirst ? a : this.expr(e.then, ctx, b?.type ?? expected);
        if (!c || !t || !b) return undefined;
        const same = isScalar(t.type) ? comparable(t.type, b.type) : assignable(t.type, b.type) && assignable(b.type, t.type);
        if (!same) return this.err(ctx, "RW3001", `\`then\` is \`${typeName(t.type)}\` but \`else\` is \`${typeName(b.type)}\``, e.else.span, "both branches must have the same type");
        const type = t.type.k === "enum" && b.type.k === "enum" && t.type.name !== b.type.name ? (enumType(env, t.type.base) ?? t.type) : t.type;
        return this.mk({ k: "ite", cond: c, then: t, else: b, type }, ctx, e.span);
      }
      case "call":
        return this.call(e, ctx);
      case "reach":
        return this.reach(e, ctx);
    }
  }

  /** Bind a quantifier's or aggregate's variable (declared at `v.span`, visible in `within`) under a fresh IR name. */
  private bind(ctx: Ctx, v: { name: string; span: Span }, type: Type, within: Span): { ctx: Ctx; irName: string } {
    const name = v.name;
    let irName = name;
    for (let i = 1; ctx.inUse.has(irName); i++) irName = `${name}_${i}`;
    const scope = new Map(ctx.scope);
    const key = localKey(ctx.file, v.span);
    if (this.res) {
      this.res.declare({ key, kind: "local", name, file: ctx.file, span: v.span, type });
      this.res.scope({ file: ctx.file, span: within, name, key });
    }
    scope.set(name, { type, irName, key });
    return { ctx: { ...ctx, scope, inUse: new Set([...ctx.inUse, irName]) }, irName };
  }

  private name(n: string, span: Span, ctx: Ctx, expected?: Type): Expr | undefined {
    const env = this.env;
    const b = ctx.scope.get(n);
    if (b) {
      if (b.key) this.used(ctx, span, b.key, b.type);
      return this.mk({ k: "var", name: b.irName, type: b.type }, ctx, span);
    }
    const bases = env.memberIndex.get(n);
    if (bases && bases.length) {
      let base: string | undefined = bases.length === 1 ? bases[0] : undefined;
      if (!base && expected?.k === "enum" && bases.includes(expected.base)) base = expected.base;
      if (!base) {
        return this.err(ctx, "RW2011", `ambiguous enum member \`${n}\`: it is a member of ${[...bases].sort().map((x) => "`" + x + "`").join(" and ")}`, span,
          `write ${[...bases].sort().map((x) => "`" + x + "." + n + "`").join(" or ")}`);
      }
      const t = enumType(env, base)!;
      this.used(ctx, span, `member:${base}.${n}`, t);
      return this.mk({ k: "lit", value: n, type: t }, ctx, span);
    }
    if (ctx.missingParam?.has(n)) {
      return this.err(ctx, "RW2012", `\`${n}\` is not a parameter of every lifted rule's action (\`${ctx.missingParam.get(n)}\` lacks it)`, span,
        "an exemption may only read `state` and the parameters that every lifted rule's action has");
    }
    if (env.enums.has(n)) return this.err(ctx, "RW2020", `\`${n}\` is an enum, not a value`, span, `use it as a domain (\`some x in ${n}: …\`) or name a member: \`${n}.member\``);
    if (env.defs.has(n)) return this.err(ctx, "RW2020", `def \`${n}\` must be called`, span, `write \`${n}(…)\``);
    const candidates = [...ctx.scope.keys(), ...env.memberIndex.keys()];
    return this.err(ctx, "RW2002", `unknown name \`${n}\``, span, didYouMean(n, candidates, "declare it as a parameter, or as a member of an enum"));
  }

  private field(e: Extract<Ast, { k: "field" }>, ctx: Ctx): Expr | undefined {
    const env = this.env;
    // t(args).field on a record-valued table
    if (e.obj.k === "call" && !env.defs.has(e.obj.callee.name) && env.tables?.has(e.obj.callee.name)) return this.tableCall(e.obj, ctx, e.field, e.span);
    // E.member
    if (e.obj.k === "name" && !ctx.scope.has(e.obj.name) && env.enums.has(e.obj.name)) {
      const en = env.enums.get(e.obj.name)!;
      this.used(ctx, e.obj.span, `enum:${en.name}`);
      if (!en.members.includes(e.field.name)) {
        return this.err(ctx, "RW2004", `\`${e.field.name}\` is not a member of \`${en.name}\``, e.field.span,
          didYouMean(e.field.name, en.members, `members: ${en.members.slice(0, 8).join(", ")}${en.members.length > 8 ? ", …" : ""}`));
      }
      const t = enumType(env, en.base)!;
      this.used(ctx, e.field.span, `member:${en.base}.${e.field.name}`, t);
      return this.mk({ k: "lit", value: e.field.name, type: t }, ctx, e.span);
    }
    const o = this.expr(e.obj, ctx);
    if (!o) return undefined;
    if (o.type.k !== "record") {
      return this.err(ctx, "RW3008", `\`.${e.field.name}\` reads a record field, but this is \`${typeName(o.type)}\``, e.field.span,
        o.type.k === "map" ? `look the map up first: \`[key].${e.field.name}\`` : "only records (from the schema) have fields");
    }
    const f = o.type.fields.find((x) => x.name === e.field.name);
    if (!f) {
      const names = o.type.fields.map((x) => x.name);
      const what = o.k === "state" ? "state field" : `field of \`${typeName(o.type)}\``;
      return this.err(ctx, "RW2001", `unknown ${what} \`${e.field.name}\``, e.field.span,
        didYouMean(e.field.name, names, listedNames("fields", names, { verb: "Use", noun: "field" }, 10)));
    }
    const ptr = recordPointer(o.type);
    if (ptr !== undefined) this.used(ctx, e.field.span, `field:${ptr}/properties/${f.name}`, f.type);
    return this.mk({ k: "field", obj: o, field: f.name, type: f.type }, ctx, e.span);
  }

  private bin(e: Extract<Ast, { k: "bin" }>, ctx: Ctx): Expr | undefined {
    const op = e.op;
    if (op === "and" || op === "or") {
      // The parser folds `a and b and c` left-deep; walk the chain without recursion (a chain
      // may have 10,000 operands) and check its operands left to right.
      const operands: Ast[] = [];
      let cur: Ast = e;
      while (cur.k === "bin" && cur.op === op) {
        operands.push(cur.right);
        cur = cur.left;
      }
      operands.push(cur);
      operands.reverse();
      const args: Expr[] = [];
      let ok = true;
      for (const x of operands) {
        const c = this.bool(x, ctx, op);
        if (!c) ok = false;
        else if (c.k === op) for (const a of (c as Extract<Expr, { k: "and" | "or" }>).args) args.push(a);
        else args.push(c);
      }
      if (!ok) return undefined;
      return this.mk({ k: op, args, type: BOOL }, ctx, e.span);
    }
    if (op === "implies") {
      const l = this.bool(e.left, ctx, op);
      const r = this.bool(e.right, ctx, op);
      return l && r && this.mk({ k: "implies", left: l, right: r, type: BOOL }, ctx, e.span);
    }
    if (op === "+" || op === "-" || op === "*" || op === "<" || op === "<=" || op === ">" || op === ">=") {
      const l = this.int(e.left, ctx, op);
      const r = this.int(e.right, ctx, op);
      if (!l || !r) return undefined;
      if (op === "+" || op === "-" || op === "*") return this.mk({ k: "arith", op, left: l, right: r, type: INT }, ctx, e.span);
      return this.mk({ k: "cmp", op, left: l, right: r, type: BOOL }, ctx, e.span);
    }
    if (op === "=" || op === "!=") {
      const [l, r] = this.pair(e.left, e.right, ctx);
      if (!l || !r) return undefined;
      if (!isScalar(l.type) || !isScalar(r.type)) {
        const bad = isScalar(l.type) ? r.type : l.type;
        return this.err(ctx, "RW3006", `\`${op}\` compares scalars, not \`${typeName(bad)}\``, e.span, "compare bools, ints, strings or enum values");
      }
      if (!comparable(l.type, r.type)) {
        return this.err(ctx, "RW3006", `cannot compare \`${typeName(l.type)}\` with \`${typeName(r.type)}\``, e.span, "both sides of `=`/`!=` must have the same type");
      }
      return this.mk({ k: "cmp", op, left: l, right: r, type: BOOL }, ctx, e.span);
    }
    // in, not in
    const res = this.inExpr(e, ctx);
    if (!res) return undefined;
    return op === "not in" ? this.mk({ k: "not", arg: res, type: BOOL }, ctx, e.span) : res;
  }

  /** Check two sides that give each other an expected type (an ambiguous member goes last). */
  private pair(a: Ast, b: Ast, ctx: Ctx): [Expr | undefined, Expr | undefined] {
    if (this.needsContext(a, ctx) && !this.needsContext(b, ctx)) {
      const y = this.expr(b, ctx);
      return [this.expr(a, ctx, y?.type), y];
    }
    const x = this.expr(a, ctx);
    return [x, this.expr(b, ctx, x?.type)];
  }

  private inExpr(e: Extract<Ast, { k: "bin" }>, ctx: Ctx): Expr | undefined {
    if (e.right.k === "set") {
      const items = e.right.items;
      let elem: Expr | undefined;
      let first: Expr | undefined;
      if (this.needsContext(e.left, ctx)) {
        const ctxItem = items.find((i) => !this.needsContext(i, ctx));
        first = ctxItem ? this.expr(ctxItem, ctx) : undefined;
        elem = this.expr(e.left, ctx, first?.type);
      } else elem = this.expr(e.left, ctx);
      if (!elem) return undefined;
      if (!isScalar(elem.type)) return this.err(ctx, "RW3005", `\`in\` tests a scalar, not \`${typeName(elem.type)}\``, e.left.span, "test an enum, int, string or bool value");
      const checked: Expr[] = [];
      let ok = true;
      for (const it of items) {
        const x = this.expr(it, ctx, elem.type);
        if (!x) {
          ok = false;
          continue;
        }
        if (!comparable(x.type, elem.type)) {
          this.err(ctx, "RW3001", `set item is \`${typeName(x.type)}\`, but the tested value is \`${typeName(elem.type)}\``, it.span, `list \`${typeName(elem.type)}\` values in the set`);
          ok = false;
          continue;
        }
        checked.push(x);
      }
      if (!ok) return undefined;
      const elemT = elem.type.k === "enum" ? (enumType(this.env, elem.type.base) ?? elem.type) : elem.type;
      const set = this.mk({ k: "setlit", items: checked, type: { k: "list", elem: elemT, bound: checked.length } }, ctx, e.right.span);
      return this.mk({ k: "in", elem, set, type: BOOL }, ctx, e.span);
    }
    const set = this.expr(e.right, ctx);
    if (!set) return undefined;
    if (set.type.k !== "list" || !isScalar(set.type.elem)) {
      return this.err(ctx, "RW3005", `\`in\` needs a set \`{…}\` or a list of scalars, found \`${typeName(set.type)}\``, e.right.span,
        set.type.k === "enum" ? "compare with `=`" : "write `x in {a, b}` or `x in state.some_list`");
    }
    const elem = this.expr(e.left, ctx, set.type.elem);
    if (!elem) return undefined;
    if (!comparable(elem.type, set.type.elem)) {
      return this.err(ctx, "RW3001", `\`${typeName(elem.type)}\` tested against a \`${typeName(set.type)}\``, e.left.span, `test a \`${typeName(set.type.elem)}\` value`);
    }
    return this.mk({ k: "in", elem, set, type: BOOL }, ctx, e.span);
  }

  /** A quantifier or aggregate domain. */
  domain(e: Ast, ctx: Ctx): { domain: Domain; varType: Type } | undefined {
    const env = this.env;
    if (e.k === "name" && !ctx.scope.has(e.name) && env.enums.has(e.name)) {
      const t = enumType(env, e.name)!;
      this.used(ctx, e.span, `enum:${e.name}`);
      return { domain: { k: "enum", type: t }, varType: t };
    }
    if (e.k === "call" && (BOARD_DOMAIN_FNS as string[]).includes(e.callee.name) && !env.defs.has(e.callee.name)) {
      const space = enumType(env, "Space");
      if (!space) return undefined; // the board failed
      this.used(ctx, e.callee.span, `builtin:${e.callee.name}`);
      if (e.args.length !== 1) return this.err(ctx, "RW3003", `\`${e.callee.name}\` takes 1 argument, found ${e.args.length}`, e.span, `write \`${e.callee.name}(s)\` with a Space`);
      const a = this.expect(e.args[0]!, ctx, space, `the argument of \`${e.callee.name}\``);
      return a && { domain: { k: "board", fn: e.callee.name as BoardDomainFn, args: [a] }, varType: space };
    }
    if (e.k === "name" && !ctx.scope.has(e.name) && !env.memberIndex.has(e.name)) {
      const c = didYouMean(e.name, [...env.enums.keys(), ...ctx.scope.keys()]);
      return this.err(ctx, "RW2003", `unknown domain \`${e.name}\``, e.span, c ?? "a domain is an enum name, a list, or `ports_of(z)`, `sea_zones_of(q)`, `neighbors(s)`");
    }
    const x = this.expr(e, ctx);
    if (!x) return undefined;
    if (x.type.k !== "list") {
      return this.err(ctx, "RW3004", `not a domain: \`${typeName(x.type)}\``, e.span, "a domain is an enum name, a list, or `ports_of(z)`, `sea_zones_of(q)`, `neighbors(s)`");
    }
    return { domain: { k: "list", expr: x }, varType: x.type.elem };
  }

  /** Check call arguments against parameter types. */
  private args(args: Ast[], params: ParamInfo[], ctx: Ctx, callee: string, span: Span): Expr[] | undefined {
    if (args.length !== params.length) {
      return this.err(ctx, "RW3003", `\`${callee}\` takes ${params.length} argument${params.length === 1 ? "" : "s"}, found ${args.length}`, span,
        `write \`${callee}(${params.map((p) => p.name).join(", ")})\``);
    }
    const out: Expr[] = [];
    let ok = true;
    args.forEach((a, i) => {
      const x = this.expect(a, ctx, params[i]!.type, `argument \`${params[i]!.name}\` of \`${callee}\``);
      if (x) out.push(x);
      else ok = false;
    });
    return ok ? out : undefined;
  }

  private call(e: Extract<Ast, { k: "call" }>, ctx: Ctx): Expr | undefined {
    const env = this.env;
    const n = e.callee.name;
    const def = env.defs.get(n);
    if (def) {
      this.used(ctx, e.callee.span, `def:${n}`, def.ret);
      if (!def.params || !def.ret) return undefined; // its signature already failed
      const args = this.args(e.args, def.params, ctx, n, e.span);
      if (!args) return undefined;
      const tpl = this.defTemplate(n, ctx, e.callee.span);
      if (!tpl) return undefined;
      const m = new Map(def.params.map((p, i) => [p.name, args[i]!]));
      const pos = posOf(ctx.file, e.span);
      this.spans.set(pos, e.span);
      return { ...substitute(tpl, m), pos };
    }
    // a table named like a builtin takes precedence, as a def does (and as `t(args).field` reads it)
    if (env.tables?.has(n)) return this.tableCall(e, ctx);
    if (n === DISTANCE) return this.distance(e, ctx);
    if (n in BOARD_FNS) {
      this.used(ctx, e.callee.span, `builtin:${n}`, BOOL);
      const sig = BOARD_FNS[n as BoardFn];
      const params: ParamInfo[] = [];
      for (const [i, tn] of sig.entries()) {
        const t = enumType(env, tn);
        if (!t) {
          if (tn === "Space") return undefined; // the board failed
          return this.err(ctx, "RW2003", `board builtin \`${n}\` needs \`enum ${tn}\``, e.callee.span, `declare \`enum ${tn} { … }\` with the board's home powers`);
        }
        params.push({ name: tn === "Power" ? "p" : i === 0 ? "a" : "b", type: t, actor: false });
      }
      const args = this.args(e.args, params, ctx, n, e.span);
      return args && this.mk({ k: "board", fn: n as BoardFn, args, type: BOOL }, ctx, e.span);
    }
    if ((BOARD_DOMAIN_FNS as string[]).includes(n)) {
      return this.err(ctx, "RW2020", `\`${n}\` is a board collection, not a value`, e.span, `use it as a domain: \`some x in ${n}(…): …\``);
    }
    if (env.routes.has(n)) return this.err(ctx, "RW2020", `route \`${n}\` is not a function`, e.span, `use it in \`reachable(${n}(…), from, to)\``);
    if (env.actions.has(n)) return this.err(ctx, "RW2020", `action \`${n}\` is not a function`, e.span, "actions are named only after `forbid`/`oblige`");
    return this.err(ctx, "RW2005", `unknown def or builtin \`${n}\``, e.callee.span,
      didYouMean(n, [...env.defs.keys(), ...(env.tables?.keys() ?? []), ...Object.keys(BOARD_FNS), DISTANCE, ...BOARD_DOMAIN_FNS], "declare it with `def` or use a board builtin (dsl/README.md)"));
  }

  /**
   * `t(args)` / `t(args).field`: a table lookup. Every argument must lie in its parameter's
   * declared domain (so the lookup never falls outside the table the prover checked): enums and
   * bools by type, a ranged `int` by the argument's known bounds (a literal, a schema
   * `minimum`/`maximum`, or both branches of an `if`).
   */
  private tableCall(e: Extract<Ast, { k: "call" }>, ctx: Ctx, field?: { name: string; span: Span }, span?: Span): Expr | undefined {
    const n = e.callee.name;
    const t = this.env.tables!.get(n)!;
    this.used(ctx, e.callee.span, `table:${n}`, t.result);
    if (!t.params || !t.result) return undefined; // its signature already failed
    const args = this.args(e.args, t.params.map((p) => ({ name: p.name, type: p.type, actor: false })), ctx, n, e.span);
    if (!args) return undefined;
    let ok = true;
    args.forEach((a, i) => {
      const p = t.params![i]!;
      if (p.type.k !== "int" || (p.type.min === undefined && p.type.max === undefined)) return;
      const b = intBounds(a);
      const lo = p.type.min ?? -Infinity;
      const hi = p.type.max ?? Infinity;
      if (!b || b[0] < lo || b[1] > hi) {
        ok = false;
        this.err(ctx, "RW3103", `argument \`${p.name}\` of table \`${n}\` may lie outside ${lo}..${hi}${b ? ` (it ranges over ${b[0]}..${b[1]})` : ""}`, e.args[i]!.span,
          "pass a literal or a state field whose schema `minimum`/`maximum` lie in the table's range");
      }
    });
    if (!ok) return undefined;
    const res = t.result;
    if (res.k === "record") {
      if (!field) {
        const names = res.fields.map((f) => f.name);
        return this.err(ctx, "RW3104", `table \`${n}\` gives a record: pick one of its fields`, e.span, `write \`${n}(…).${names[0]}\` (fields: ${names.join(", ")})`);
      }
      const f = res.fields.find((x) => x.name === field.name);
      if (!f) {
        const names = res.fields.map((x) => x.name);
        return this.err(ctx, "RW2001", `table \`${n}\` has no field \`${field.name}\``, field.span, didYouMean(field.name, names, listedNames("fields", names, { verb: "Use", noun: "field" })));
      }
      return this.mk({ k: "table", table: n, args, field: f.name, type: f.type }, ctx, span ?? e.span);
    }
    if (field) {
      return this.err(ctx, "RW3008", `\`.${field.name}\` reads a record field, but table \`${n}\` gives \`${typeName(res)}\``, field.span, "only record-valued tables have fields");
    }
    return this.mk({ k: "table", table: n, args, type: res }, ctx, e.span);
  }

  /**
   * `distance(a, b)`: Space × Space → int in 0..n (n = the board's space count, the value of a
   * pair no path joins). Two literal spaces the board does not connect are a warning (RW3010):
   * the call is then the constant n, which is almost surely not what the rule means.
   */
  private distance(e: Extract<Ast, { k: "call" }>, ctx: Ctx): Expr | undefined {
    const env = this.env;
    const space = enumType(env, "Space");
    if (!space || !env.board) return undefined; // the board failed
    this.used(ctx, e.callee.span, `builtin:${DISTANCE}`, INT);
    const params: ParamInfo[] = [{ name: "from", type: space, actor: false }, { name: "to", type: space, actor: false }];
    const args = this.args(e.args, params, ctx, DISTANCE, e.span);
    if (!args) return undefined;
    const [from, to] = args as [Expr, Expr];
    const n = space.members.length;
    if (from.k === "lit" && to.k === "lit") {
      const order = space.members;
      const i = order.indexOf(String(from.value));
      const j = order.indexOf(String(to.value));
      const far = unreachableDistance(n);
      if (i >= 0 && j >= 0 && this.distances(order)[i]![j] === far) {
        this.r.report("RW3010", `no path on the board joins \`${String(from.value)}\` and \`${String(to.value)}\`: \`distance\` gives ${far} (the space count)`, ctx.file, e.span,
          "check board.json's connections, or compare with a space the board connects");
      }
    }
    return this.mk({ k: "distance", from, to, type: { k: "int", min: 0, max: n } }, ctx, e.span);
  }

  private distanceCache?: number[][];
  private distances(order: string[]): number[][] {
    this.distanceCache ??= boardDistances(this.env.board!, order);
    return this.distanceCache;
  }

  private reach(e: Extract<Ast, { k: "reach" }>, ctx: Ctx): Expr | undefined {
    const env = this.env;
    const route = env.routes.get(e.route.name);
    if (route) this.used(ctx, e.route.span, `route:${e.route.name}`);
    if (!route) return this.err(ctx, "RW2006", `unknown route \`${e.route.name}\``, e.route.span, didYouMean(e.route.name, env.routes.keys(), "declare it with `route`"));
    const space = enumType(env, "Space");
    if (!route.params || !space) return undefined;
    const args = this.args(e.args, route.params, ctx, e.route.name, e.route.span);
    const from = this.expect(e.from, ctx, space, "the start of `reachable`");
    const to = this.expect(e.to, ctx, space, "the end of `reachable`");
    if (!args || !from || !to) return undefined;
    return this.mk({ k: "reach", route: e.route.name, args, from, to, type: BOOL }, ctx, e.span);
  }

  /** The body of a def over its parameters (as vars), checked once. */
  defTemplate(name: string, callerCtx: Ctx | undefined, callSpan: Span | undefined): Expr | undefined {
    const def = this.env.defs.get(name)!;
    const state = this.defTemplates.get(name);
    if (state === "busy") {
      if (callerCtx && callSpan) {
        this.err(callerCtx, "RW2013", `recursive call to def \`${name}\``, callSpan, "defs are inlined where called, so they cannot call themselves (directly or not)",
          [{ message: `\`${name}\` is defined here`, pos: posOf(def.file, def.decl.name.span) }]);
      }
      return undefined;
    }
    if (state) return state.ir;
    if (!def.params || !def.ret) {
      this.defTemplates.set(name, {});
      return undefined;
    }
    this.defTemplates.set(name, "busy");
    const scope = new Map(def.params.map((p) => [p.name, { type: p.type, irName: p.name, ...(p.key ? { key: p.key } : {}) }]));
    if (this.res) for (const p of def.params) if (p.key) this.res.scope({ file: def.file, span: def.decl.span, name: p.name, key: p.key });
    const ctx: Ctx = { file: def.file, scope, inUse: new Set(def.params.map((p) => p.name)) };
    const ir = this.expect(def.decl.body, ctx, def.ret, `the body of def \`${name}\``);
    this.defTemplates.set(name, ir ? { ir } : {});
    return ir;
  }
}

/** A literal's value for a message: `Infinity` (a literal too long for a number) as "of more than 308 digits". */
function literalText(v: number): string {
  return Number.isFinite(v) ? String(v) : "of more than 308 digits";
}

/** Known [min, max] of an int expression (a literal, a bounded int, an `if` of those), or undefined. */
function intBounds(e: Expr): [number, number] | undefined {
  if (e.k === "lit" && typeof e.value === "number") return [e.value, e.value];
  if (e.k === "ite") {
    const a = intBounds(e.then);
    const b = intBounds(e.else);
    return a && b ? [Math.min(a[0], b[0]), Math.max(a[1], b[1])] : undefined;
  }
  if (e.type.k === "int" && e.type.min !== undefined && e.type.max !== undefined) return [e.type.min, e.type.max];
  return undefined;
}

// ---------------------------------------------------------------- substitution

function freeVars(e: Expr, out = new Set<string>(), bound = new Set<string>()): Set<string> {
  const rec = (x: Expr, b = bound) => freeVars(x, out, b);
  switch (e.k) {
    case "var":
      if (!bound.has(e.name)) out.add(e.name);
      break;
    case "quant":
    case "agg": {
      domainExprs(e.domain).forEach((x) => rec(x));
      const b = new Set([...bound, e.var]);
      if (e.k === "quant") rec(e.body, b);
      else {
        if (e.where) rec(e.where, b);
        if (e.body) rec(e.body, b);
      }
      break;
    }
    default:
      children(e).forEach((x) => rec(x));
  }
  return out;
}


/** Replace free variables by expressions, renaming binders that would capture them. */
export function substitute(e: Expr, m: Map<string, Expr>): Expr {
  if (m.size === 0) return e;
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
      for (const v of inner.values()) freeVars(v, captured);
      let v = e.var;
      if (captured.has(v)) {
        const taken = new Set([...captured, ...freeVars(e), ...inner.keys()]);
        for (let i = 1; taken.has(v); i++) v = `${e.var}_${i}`;
        inner.set(e.var, { k: "var", name: v, type: e.varType });
      }
      const si = (x: Expr) => substitute(x, inner);
      if (e.k === "quant") return { ...e, var: v, domain: sd(e.domain), body: si(e.body) };
      return { ...e, var: v, domain: sd(e.domain), ...(e.where ? { where: si(e.where) } : {}), ...(e.body ? { body: si(e.body) } : {}) };
    }
  }
}

export type { EnumType };
