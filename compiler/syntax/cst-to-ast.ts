/**
 * CST → AST. Runs only on declarations that parsed without error, so every child the grammar
 * requires is present (INVARIANT: never called on a recovered CST).
 */
import type { CstNode, CstElement, IToken } from "chevrotain";
import type { Span } from "../diagnostics/types.js";
import type { AggOp, Annotation, BinOp, Citation, Decl, Expr, Group, Name, Param, RouteClause, RuleDecl, TypeRef } from "./ast.js";
import type { ActionScope, MemberRef, TableDecl, TablePattern, TableValue } from "./ast.js";

type Children = Record<string, CstElement[] | undefined>;

export function tokSpan(t: IToken): Span {
  return { line: t.startLine ?? 1, column: t.startColumn ?? 1, endLine: t.endLine ?? 1, endColumn: (t.endColumn ?? 0) + 1 };
}
export function joinSpan(a: Span, b: Span): Span {
  return { line: a.line, column: a.column, endLine: b.endLine, endColumn: b.endColumn };
}

function isToken(e: CstElement): e is IToken {
  return (e as IToken).image !== undefined;
}
function tokensOf(n: CstElement, out: IToken[] = []): IToken[] {
  if (isToken(n)) out.push(n);
  else for (const arr of Object.values(n.children)) for (const c of arr ?? []) tokensOf(c, out);
  return out;
}
/** The first and the last token of a CST node, memoized: spans of nested nodes cost linear time, not quadratic. */
const ends = new WeakMap<CstNode, [IToken, IToken]>();
function endTokens(n: CstElement): [IToken, IToken] | undefined {
  if (isToken(n)) return [n, n];
  const memo = ends.get(n);
  if (memo) return memo;
  let first: IToken | undefined;
  let last: IToken | undefined;
  for (const arr of Object.values(n.children)) {
    for (const c of arr ?? []) {
      const e = endTokens(c);
      if (!e) continue;
      if (!first || e[0].startOffset < first.startOffset) first = e[0];
      if (!last || e[1].startOffset > last.startOffset) last = e[1];
    }
  }
  if (!first || !last) return undefined;
  ends.set(n, [first, last]);
  return [first, last];
}
function nodeSpan(n: CstElement): Span {
  const [a, b] = endTokens(n)!;
  return joinSpan(tokSpan(a), tokSpan(b));
}

function ch(n: CstNode): Children {
  return n.children as Children;
}
function tok(n: CstNode, key: string, i = 0): IToken {
  return ch(n)[key]![i] as IToken;
}
function optTok(n: CstNode, key: string, i = 0): IToken | undefined {
  return ch(n)[key]?.[i] as IToken | undefined;
}
function node(n: CstNode, key: string, i = 0): CstNode {
  return ch(n)[key]![i] as CstNode;
}
function nodes(n: CstNode, key: string): CstNode[] {
  return (ch(n)[key] ?? []) as CstNode[];
}
function toks(n: CstNode, key: string): IToken[] {
  return (ch(n)[key] ?? []) as IToken[];
}
function name(t: IToken): Name {
  return { name: t.image, span: tokSpan(t) };
}
export function unquote(image: string): string {
  return image.slice(1, -1).replace(/\\(["\\])/g, "$1");
}

export interface AstProblem {
  code: string;
  message: string;
  span: Span;
  help?: string;
}

/** Build the AST of one declaration. Problems that the grammar cannot express are pushed. */
export function declToAst(cst: CstNode, problems: AstProblem[]): Decl {
  const d = node(cst, Object.keys(cst.children)[0]!);
  const span = nodeSpan(d);
  switch (d.name) {
    case "editionDecl": {
      const parent = optTok(d, "parent");
      return {
        k: "edition",
        name: name(tok(d, "name")),
        title: unquote(tok(d, "title").image),
        cites: unquote(tok(d, "cites").image),
        ...(parent ? { parent: { path: unquote(parent.image), span: tokSpan(parent) } } : {}),
        span,
      };
    }
    case "moduleDecl":
      return { k: "module", name: name(tok(d, "name")), title: unquote(tok(d, "title").image), span };
    case "importDecl":
      return { k: "import", name: name(tok(d, "name")), span };
    case "overrideDecl":
      return { k: "override", rule: ruleDecl(node(d, "ruleDecl"), problems), span };
    case "removeDecl":
      return { k: "remove", id: ruleId(node(d, "ruleId"), problems), reason: unquote(tok(d, "reason").image), span };
    case "schemaDecl":
    case "boardDecl": {
      const p = tok(d, "path");
      return { k: d.name === "schemaDecl" ? "schema" : "board", path: unquote(p.image), pathSpan: tokSpan(p), span };
    }
    case "enumDecl": {
      const b = optTok(d, "base");
      return { k: "enum", name: name(tok(d, "name")), ...(b ? { base: name(b) } : {}), members: toks(d, "member").map(name), span };
    }
    case "actionDecl": {
      const sc = nodes(d, "actionScope")[0];
      return { k: "action", name: name(tok(d, "name")), params: nodes(d, "param").map(param), ...(sc ? { scope: actionScope(sc, problems) } : {}), span };
    }
    case "defDecl":
      return {
        k: "def",
        name: name(tok(d, "name")),
        params: nodes(node(d, "paramList"), "param").map(param),
        ret: typeRef(node(d, "typeRef")),
        body: expr(node(d, "expr")),
        span,
      };
    case "routeDecl":
      return {
        k: "route",
        name: name(tok(d, "name")),
        params: nodes(node(d, "paramList"), "param").map(param),
        clauses: nodes(d, "routeClause").map(routeClause),
        span,
      };
    case "ruleDecl":
      return ruleDecl(d, problems);
    case "exemptDecl":
      return {
        k: "exempt",
        id: ruleId(node(d, "ruleId"), problems),
        citations: citations(node(d, "citations"), problems),
        title: unquote(tok(d, "title").image),
        annotations: nodes(d, "annotation").map(annotation),
        targets: nodes(d, "target").map((t) =>
          ch(t).group ? { k: "group" as const, group: group(node(t, "group")) } : { k: "rule" as const, id: ruleId(node(t, "ruleId"), problems) },
        ),
        when: expr(node(d, "expr")),
        span,
      };
    case "declineDecl":
      return { k: "decline", action: name(tok(d, "action")), phase: name(tok(d, "phase")), title: unquote(tok(d, "title").image), span };
    case "invariantDecl":
      return { k: "invariant", id: ruleId(node(d, "ruleId"), problems), title: unquote(tok(d, "title").image), expr: expr(node(d, "expr")), span };
    case "tableDecl":
      return tableDecl(d, span, problems);
  }
  throw new Error(`unexpected CST node ${d.name}`);
}

/** `during P[.S][, P[.S]]* [actor who] <citations>` of an action declaration. */
function actionScope(d: CstNode, problems: AstProblem[]): ActionScope {
  const who = optTok(d, "who");
  const during = nodes(d, "scopePhase").map((n) => {
    const phase = tok(n, "phase");
    const seg = optTok(n, "segment");
    return { phase: name(phase), ...(seg ? { segment: name(seg) } : {}), span: joinSpan(tokSpan(phase), tokSpan(seg ?? phase)) };
  });
  return { ...(during.length ? { during } : {}), ...(who ? { who: name(who) } : {}), citations: citations(node(d, "citations"), problems), span: nodeSpan(d) };
}

function ruleDecl(d: CstNode, problems: AstProblem[]): RuleDecl {
  const phase = optTok(d, "phase");
  const seg = optTok(d, "segment");
  const during = phase
    ? { phase: name(phase), ...(seg ? { segment: name(seg) } : {}), span: joinSpan(tokSpan(tok(d, "Kw_during")), tokSpan(seg ?? phase)) }
    : undefined;
  return {
    k: "rule",
    id: ruleId(node(d, "ruleId"), problems),
    citations: citations(node(d, "citations"), problems),
    title: unquote(tok(d, "title").image),
    groups: nodes(d, "group").map(group),
    annotations: nodes(d, "annotation").map(annotation),
    ...(during ? { during } : {}),
    kind: tok(d, "kind").image as "forbid" | "oblige",
    action: name(tok(d, "action")),
    ...(ch(d).bindValue ? { bind: bindings(d) } : {}),
    when: expr(node(d, "expr")),
    ...(optNode(d, "unless") ? { unless: expr(node(d, "unless")) } : {}),
    span: nodeSpan(d),
  };
}

/** The citations of a rule or exemption; a game key cited twice is reported (RW1102). */
function citations(n: CstNode, problems: AstProblem[]): Citation[] {
  const out = nodes(n, "citation").map(citation);
  const seen = new Map<string, Citation>();
  for (const c of out) {
    const k = c.key?.name ?? "";
    const prev = seen.get(k);
    if (prev) {
      problems.push({
        code: "RW1102",
        message: c.key ? `two citations for \`${k}\`` : "two citations without a game key",
        span: c.span,
        help: c.key ? `cite \`${k}\` once` : "an unkeyed citation cites the edition's own key; give one, or key each citation like `his §11, vq §\"Action Phase\"`",
      });
    } else seen.set(k, c);
  }
  return out;
}

function citation(n: CstNode): Citation {
  const key = optTok(n, "key");
  const num = optTok(n, "Section");
  const named = optTok(n, "NamedSection");
  const value = num ? num.image.slice(1) : unquote(named!.image.slice(1));
  return { ...(key ? { key: name(key) } : {}), value, named: !num, span: nodeSpan(n) };
}

function annotation(n: CstNode): Annotation {
  const note = optTok(n, "note");
  return { name: name(tok(n, "name")), args: toks(n, "arg").map(name), ...(note ? { note: unquote(note.image) } : {}), span: nodeSpan(n) };
}

function ruleId(n: CstNode, problems: AstProblem[]): Name {
  const ts = tokensOf(n).sort((a, b) => a.startOffset - b.startOffset);
  const span = joinSpan(tokSpan(ts[0]!), tokSpan(ts[ts.length - 1]!));
  for (let i = 1; i < ts.length; i++) {
    if (ts[i]!.startOffset !== ts[i - 1]!.endOffset! + 1) {
      const id = ts.map((t) => t.image).join("");
      problems.push({ code: "RW1006", message: `rule id \`${id}\` contains spaces`, span, help: `write it without spaces: \`${id}\`` });
      break;
    }
  }
  return { name: ts.map((t) => t.image).join(""), span };
}

// ---------------------------------------------------------------- tables

function signedInt(n: CstNode): number {
  const v = Number(tok(n, "IntLit").image);
  return optTok(n, "Minus") ? -v : v;
}

function memberRef(n: CstNode): MemberRef {
  const first = name(tok(n, "first"));
  const second = optTok(n, "second");
  return second ? { enum: first, name: name(second), span: nodeSpan(n) } : { name: first, span: first.span };
}

function tableDecl(d: CstNode, span: Span, problems: AstProblem[]): TableDecl {
  const res = node(d, "tableResult");
  const fields = toks(res, "field");
  const result: TableDecl["result"] = fields.length
    ? { k: "record", fields: fields.map((f, i) => ({ name: name(f), type: typeRef(nodes(res, "fieldType")[i]!) })), span: nodeSpan(res) }
    : { k: "type", type: typeRef(node(res, "type")), span: nodeSpan(res) };
  const keys = nodes(d, "key");
  return {
    k: "table",
    name: name(tok(d, "name")),
    citations: citations(node(d, "citations"), problems),
    title: unquote(tok(d, "title").image),
    params: nodes(d, "tableParam").map((p) => {
      const min = optNode(p, "min");
      const max = optNode(p, "max");
      return {
        name: name(tok(p, "name")),
        type: typeRef(node(p, "typeRef")),
        ...(min && max ? { range: { min: signedInt(min), max: signedInt(max), span: joinSpan(nodeSpan(min), nodeSpan(max)) } } : {}),
        span: nodeSpan(p),
      };
    }),
    result,
    ...(keys.length ? { keys: keys.map(expr) } : {}),
    rows: nodes(d, "tableRow").map((r) => {
      const g = optNode(r, "guard");
      return { patterns: nodes(r, "tablePattern").map(tablePattern), ...(g ? { guard: expr(g) } : {}), value: tableValue(node(r, "tableValue")), span: nodeSpan(r) };
    }),
    span,
  };
}

function tablePattern(n: CstNode): TablePattern {
  const span = nodeSpan(n);
  const lo = optNode(n, "lo");
  if (lo) {
    const hi = optNode(n, "hi");
    return { k: "int", min: signedInt(lo), max: signedInt(hi ?? lo), span };
  }
  const atMost = optNode(n, "atMost");
  if (atMost) return { k: "int", max: signedInt(atMost), span };
  const atLeast = optNode(n, "atLeast");
  if (atLeast) return { k: "int", min: signedInt(atLeast), span };
  if (optTok(n, "Kw_true")) return { k: "bool", value: true, span };
  if (optTok(n, "Kw_false")) return { k: "bool", value: false, span };
  const members = nodes(n, "member").map(memberRef);
  if (members.length === 1 && !members[0]!.enum && members[0]!.name.name === "_" && !optTok(n, "LBrace")) return { k: "any", span };
  return { k: "members", members, span };
}

function tableValue(n: CstNode): TableValue {
  const span = nodeSpan(n);
  const i = optNode(n, "int");
  if (i) return { k: "int", value: signedInt(i), span };
  if (optTok(n, "Kw_true")) return { k: "bool", value: true, span };
  if (optTok(n, "Kw_false")) return { k: "bool", value: false, span };
  const m = optNode(n, "member");
  if (m) return { k: "member", member: memberRef(m), span };
  const vals = nodes(n, "fieldValue");
  return { k: "record", fields: toks(n, "field").map((f, j) => ({ name: name(f), value: tableValue(vals[j]!) })), span };
}

function group(n: CstNode): Group {
  const star = optTok(n, "Star");
  return { name: star ? "*" : tok(n, "Ident").image, span: nodeSpan(n) };
}

function param(n: CstNode): Param {
  return { actor: !!optTok(n, "Kw_actor"), name: name(tok(n, "name")), type: typeRef(node(n, "typeRef")), span: nodeSpan(n) };
}

function typeRef(n: CstNode): TypeRef {
  const span = nodeSpan(n);
  if (optTok(n, "Kw_bool")) return { k: "bool", span };
  if (optTok(n, "Kw_int")) return { k: "int", span };
  if (optTok(n, "Kw_string")) return { k: "string", span };
  if (optTok(n, "Kw_list")) return { k: "list", elem: typeRef(node(n, "typeRef")), span };
  return { k: "named", name: name(tok(n, "Ident")), span };
}

function routeClause(n: CstNode): RouteClause {
  const kind = tok(n, "kind");
  const span = nodeSpan(n);
  const k = kind.image as RouteClause["k"];
  if (k === "land" || k === "sea" || k === "port") return { k, var: name(tok(n, "var")), expr: expr(node(n, "expr")), span };
  return { k, expr: expr(node(n, "expr")), span };
}

// ---------------------------------------------------------------- expressions

function fold(operands: Expr[], ops: IToken[], opOf: (t: IToken, i: number) => BinOp): Expr {
  let acc = operands[0]!;
  for (let i = 0; i < ops.length; i++) {
    const right = operands[i + 1]!;
    acc = { k: "bin", op: opOf(ops[i]!, i), left: acc, right, opSpan: tokSpan(ops[i]!), span: joinSpan(acc.span, right.span) };
  }
  return acc;
}

export function expr(n: CstNode): Expr {
  switch (n.name) {
    case "expr":
    case "orExpr":
    case "andExpr":
    case "addExpr":
    case "mulExpr":
      return fold(nodes(n, "operand").map(expr), toks(n, "op"), (t) => t.image as BinOp);
    case "cmpExpr": {
      const notOp = optTok(n, "notOp");
      const ops = toks(n, "op");
      const operands = nodes(n, "operand").map(expr);
      if (notOp && ops.length) {
        const e = fold(operands, ops, () => "not in");
        if (e.k === "bin") e.opSpan = joinSpan(tokSpan(notOp), tokSpan(ops[0]!));
        return e;
      }
      return fold(operands, ops, (t) => t.image as BinOp);
    }
    case "notExpr": {
      const not = optTok(n, "Kw_not");
      if (not) {
        const arg = expr(node(n, "notExpr"));
        return { k: "not", arg, span: joinSpan(tokSpan(not), arg.span) };
      }
      return expr(node(n, "cmpExpr"));
    }
    case "unaryExpr": {
      const minus = optTok(n, "Minus");
      if (minus) {
        const arg = expr(node(n, "unaryExpr"));
        return { k: "neg", arg, span: joinSpan(tokSpan(minus), arg.span) };
      }
      return expr(node(n, "postfixExpr"));
    }
    case "postfixExpr": {
      let acc = primary(node(n, "primary"));
      const suffix = ch(n).suffix ?? [];
      for (let i = 0; i < suffix.length; i++) {
        const s = suffix[i]!;
        if (isToken(s) && s.image === ".") {
          const f = suffix[++i] as IToken;
          acc = { k: "field", obj: acc, field: name(f), span: joinSpan(acc.span, tokSpan(f)) };
        } else if (isToken(s) && s.image === "[") {
          const key = expr(suffix[++i] as CstNode);
          const close = suffix[++i] as IToken;
          acc = { k: "index", obj: acc, key, span: joinSpan(acc.span, tokSpan(close)) };
        }
      }
      return acc;
    }
  }
  throw new Error(`unexpected CST node ${n.name}`);
}

function primary(n: CstNode): Expr {
  const span = nodeSpan(n);
  const c = ch(n);
  if (c.IntLit) return { k: "int", value: Number(tok(n, "IntLit").image), span };
  if (c.StringLit) return { k: "str", value: unquote(tok(n, "StringLit").image), span };
  if (c.Kw_true) return { k: "bool", value: true, span };
  if (c.Kw_false) return { k: "bool", value: false, span };
  if (c.Kw_state) return { k: "state", span };
  if (c.expr) return { ...expr(node(n, "expr")), span }; // parenthesized: keep the parens in the span
  if (c.nameOrCall) {
    const nc = node(n, "nameOrCall");
    const id = tok(nc, "Ident");
    const a = optNode(nc, "args");
    if (!a) return { k: "name", name: id.image, span };
    return { k: "call", callee: name(id), args: nodes(a, "arg").map(expr), span };
  }
  if (c.setLit) return { k: "set", items: nodes(node(n, "setLit"), "item").map(expr), span };
  if (c.quantExpr) {
    const q = node(n, "quantExpr");
    return {
      k: "quant",
      q: tok(q, "q").image as "some" | "every",
      var: name(tok(q, "Ident")),
      domain: expr(node(q, "domain")),
      body: expr(node(q, "body")),
      span,
    };
  }
  if (c.countExpr) {
    const q = node(n, "countExpr");
    const b = optNode(q, "binder");
    if (!b) return { k: "len", arg: expr(node(q, "arg")), span };
    return { k: "agg", op: "count", ...binder(b), span };
  }
  if (c.aggExpr) {
    const q = node(n, "aggExpr");
    const pick = nodes(q, "pick");
    if (pick.length) return { k: "pick", op: tok(q, "op").image as "min" | "max" | "sum", left: expr(pick[0]!), right: expr(pick[1]!), span };
    return { k: "agg", op: tok(q, "op").image as AggOp, ...binder(node(q, "binder")), body: expr(node(q, "body")), span };
  }
  if (c.sumHighestExpr) {
    const q = node(n, "sumHighestExpr");
    return {
      k: "agg",
      op: "sum_highest",
      n: Number(tok(q, "IntLit").image),
      ...binder(node(q, "binder")),
      body: expr(node(q, "body")),
      span,
    };
  }
  if (c.ifExpr) {
    const q = node(n, "ifExpr");
    return { k: "ite", cond: expr(node(q, "cond")), then: expr(node(q, "then")), else: expr(node(q, "else")), span };
  }
  if (c.reachableExpr) {
    const q = node(n, "reachableExpr");
    return {
      k: "reach",
      route: name(tok(q, "route")),
      args: nodes(node(q, "args"), "arg").map(expr),
      from: expr(node(q, "from")),
      to: expr(node(q, "to")),
      span,
    };
  }
  throw new Error("unexpected primary");
}

/** `oblige A(p: e, …)`: the parameter tokens and value nodes, in order (one span from a name to its value's end). */
function bindings(d: CstNode): NonNullable<RuleDecl["bind"]> {
  const values = nodes(d, "bindValue");
  return (ch(d).bindParam as IToken[]).map((t, i) => {
    const value = expr(values[i]!);
    const at = tokSpan(t);
    return { param: name(t), value, span: { ...value.span, line: at.line, column: at.column } };
  });
}

function optNode(n: CstNode, key: string): CstNode | undefined {
  return ch(n)[key]?.[0] as CstNode | undefined;
}

function binder(b: CstNode): { var: Name; domain: Expr; where?: Expr } {
  const w = optNode(b, "where");
  return { var: name(tok(b, "Ident")), domain: expr(node(b, "domain")), ...(w ? { where: expr(w) } : {}) };
}
