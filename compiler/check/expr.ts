/**
 * Name resolution + type checking + lowering of expressions (AST → typed IR Expr), recording every
 * resolved name in the resolution table. A function returns `undefined` when it reported an error
 * (callers then stay silent, so one mistake gives one diagnostic). Defs are checked once into a
 * template and inlined by capture-avoiding substitution (substitute.ts); table lookups,
 * `distance` and `reachable` are checked in calls.ts.
 */
import type { Diagnostic, Span } from "../diagnostics/types.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type { BoardDomainFn, BoardFn, Domain, EnumType, Expr, SourcePos, Type } from "../ir/types.js";
import type { Expr as Ast } from "../syntax/ast.js";
import { BOARD_DOMAIN_FNS, BOARD_FNS, DISTANCE } from "./builtins.js";
import { distanceCall, reachCall, tableCall, type CallChecker } from "./calls.js";
import type { Ctx } from "./env.js";
import { assignable, comparable, enumType, isScalar, typeName, type Env, type ParamInfo } from "./env.js";
import { didYouMean, listedNames, posOf, type Help, type Reporter } from "./util.js";
import { SAFE_INT_MAX, isLanguageInt } from "../ir/ints.js";
import { localKey, type Resolution, type Use } from "./resolution.js";
import { recordPointer } from "./schema.js";
import { substitute } from "./substitute.js";
import { defCallOf, defSpansOf, markDefCall, markDefSpans, type DefSpan } from "../ir/def-calls.js";
import { divide, guardFacts, inEnum, pick } from "./arith.js";

export { BOARD_DOMAIN_FNS, BOARD_FNS, DISTANCE } from "./builtins.js";
export { assignable, comparable, isScalar } from "./env.js";
export type { Binding, Ctx } from "./env.js";
export { substitute } from "./substitute.js";

const BOOL: Type = { k: "bool" };
const INT: Type = { k: "int" };
const STRING: Type = { k: "string" };


/** Checks expressions of one edition (see the file comment); `CallChecker` is the part calls.ts uses. */
export class ExprChecker implements CallChecker {
  private defTemplates = new Map<string, { ir?: Expr } | "busy">();

  /**
   * @param res the resolution table to record every resolved name in (compiler/check/resolution.ts);
   *   without one nothing is recorded
   */
  constructor(
    readonly env: Env,
    readonly r: Reporter,
    readonly res?: Resolution,
  ) {}

  /** Record a use of `key` at `span` of the current file (when a resolution table is kept). */
  used(ctx: Ctx, span: Span, key: string, type?: Type): void {
    if (!this.res) return;
    const u: Use = { file: ctx.file, span, key };
    if (type) u.type = type;
    this.res.use(u);
  }

  err(ctx: Ctx, code: DiagnosticCode, msg: string, span: Span, help?: Help, related?: Diagnostic["related"]): undefined {
    this.r.report(code, msg, ctx.file, span, help, related);
    return undefined;
  }

  /** The source span of each IR node's position (the range analysis reports at it; substitution keeps `pos` objects). */
  readonly spans = new WeakMap<SourcePos, Span>();

  mk(e: Expr, ctx: Ctx, span: Span): Expr {
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
        const thenCtx = c ? withFacts(ctx, c) : ctx;
        const thenFirst = !this.needsContext(e.then, ctx);
        const a = thenFirst ? this.expr(e.then, thenCtx, expected) : undefined;
        const b = this.expr(e.else, ctx, a?.type ?? expected);
        const t = thenFirst ? a : this.expr(e.then, thenCtx, b?.type ?? expected);
        if (!c || !t || !b) return undefined;
        const same = isScalar(t.type) ? comparable(t.type, b.type) : assignable(t.type, b.type) && assignable(b.type, t.type);
        if (!same) return this.err(ctx, "RW3001", `\`then\` is \`${typeName(t.type)}\` but \`else\` is \`${typeName(b.type)}\``, e.else.span, "both branches must have the same type");
        const type = t.type.k === "enum" && b.type.k === "enum" && t.type.name !== b.type.name ? (enumType(env, t.type.base) ?? t.type) : t.type;
        return this.mk({ k: "ite", cond: c, then: t, else: b, type }, ctx, e.span);
      }
      case "pick":
        return pick(this, e, ctx);
      case "call":
        return this.call(e, ctx);
      case "reach":
        return reachCall(this, e, ctx);
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
    if (e.obj.k === "call" && !env.defs.has(e.obj.callee.name) && env.tables?.has(e.obj.callee.name)) return tableCall(this, e.obj, ctx, e.field, e.span);
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
      const spans: DefSpan[] = [];
      let ok = true;
      let opCtx = ctx;
      for (const x of operands) {
        const c = this.bool(x, opCtx, op);
        // the operands after a guard of an `and` chain are read where it holds (a table call's bounds)
        if (c && op === "and") opCtx = withFacts(opCtx, c);
        if (!c) ok = false;
        else if (c.k === op) {
          // a def call whose body is spread here keeps its place (compiler/ir/def-calls.ts), as do those spread into it
          const call = defCallOf(c);
          if (call) spans.push({ start: args.length, count: c.args.length, call });
          else for (const sp of defSpansOf(c)) spans.push({ ...sp, start: args.length + sp.start });
          for (const a of (c as Extract<Expr, { k: "and" | "or" }>).args) args.push(a);
        } else args.push(c);
      }
      if (!ok) return undefined;
      const made = this.mk({ k: op, args, type: BOOL }, ctx, e.span);
      return made && markDefSpans(made, spans);
    }
    if (op === "implies") {
      const l = this.bool(e.left, ctx, op);
      const r = this.bool(e.right, l ? withFacts(ctx, l) : ctx, op);
      return l && r && this.mk({ k: "implies", left: l, right: r, type: BOOL }, ctx, e.span);
    }
    if (op === "+" || op === "-" || op === "*" || op === "/" || op === "<" || op === "<=" || op === ">" || op === ">=") {
      const l = this.int(e.left, ctx, op);
      const r = this.int(e.right, ctx, op);
      if (!l || !r) return undefined;
      if (op === "/") return divide(this, l, r, e.right, ctx, e.span);
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
    const asEnum = inEnum(this, e.left, e.right, ctx, e.span);
    if (asEnum !== "not-enum") return asEnum;
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
  args(args: Ast[], params: ParamInfo[], ctx: Ctx, callee: string, span: Span): Expr[] | undefined {
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
      const body = substitute(tpl, m);
      return markDefSpans(markDefCall({ ...body, pos }, { def: n, params: def.params.map((p) => p.name), args }), [...defSpansOf(body)]);
    }
    // a table named like a builtin takes precedence, as a def does (and as `t(args).field` reads it)
    if (env.tables?.has(n)) return tableCall(this, e, ctx);
    if (n === DISTANCE) return distanceCall(this, e, ctx);
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

/** `ctx` where `cond` holds: the bounds its comparisons give (arith.ts `guardFacts`) added. */
function withFacts(ctx: Ctx, cond: Expr): Ctx {
  const facts = new Map(ctx.facts ?? []);
  guardFacts(cond, facts);
  return facts.size === (ctx.facts?.size ?? 0) && facts.size === 0 ? ctx : { ...ctx, facts };
}

/** A literal's value for a message: `Infinity` (a literal too long for a number) as "of more than 308 digits". */
function literalText(v: number): string {
  return Number.isFinite(v) ? String(v) : "of more than 308 digits";
}

export type { EnumType };
