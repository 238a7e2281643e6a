/**
 * Nesting limits of the rules language (issue 18: no recursion limit the user can reach).
 *
 * The parser, the checker and the code generator recurse on the nesting of an expression, so
 * nesting is measured before any of them runs, without recursion:
 * - `tokenNesting` on a declaration's tokens (before parsing): brackets `( [ {`, and the
 *   constructs whose last operand extends to the end of the enclosing one (`if … then … else`,
 *   `some`/`every … :`), plus runs of prefix `not` / `-`;
 * - `astDepth` on a declaration's AST (after parsing): the depth of the expression tree, where a
 *   chain of one `and` (or `or`) counts once — the checker folds it into one n-ary node, so
 *   chains of any length (10,000 operands and more) compile.
 * Above `MAX_NESTING` the declaration gets RW1007 at the construct that is too deep, with the
 * limit in the message; the compiler never reaches a stack overflow on such input.
 */
import type { IToken } from "chevrotain";
import { KW, LBrace, LBracket, LParen, Minus, RBrace, RBracket, RParen, Colon, Comma } from "./tokens.js";

/** The deepest nesting accepted (levels of brackets, `if`, quantifiers, prefix operators, operator chains). */
export const MAX_NESTING = 1024;

/**
 * Above this token nesting the parser runs on a thread with a large stack (`parse-deep.ts`):
 * chevrotain spends several kilobytes of stack per level, more than Node's default 1 MB allows
 * for a thousand levels.
 */
export const SHALLOW_NESTING = 48;

type Entry = { k: "bracket" } | { k: "if"; stage: 0 | 1 | 2 } | { k: "quant"; stage: 0 | 1 };

const OPEN = new Set([LParen, LBracket, LBrace]);
const CLOSE = new Set([RParen, RBracket, RBrace]);
/** Tokens after which a `-` is a prefix minus (an operand starts there). */
const BEFORE_OPERAND = new Set([LParen, LBracket, LBrace, Comma, Colon, Minus]);

/**
 * The nesting of a token sequence (one declaration): the maximum, and the first token at which
 * it exceeds `limit`. Linear; never recurses.
 */
export function tokenNesting(tokens: readonly IToken[], limit = MAX_NESTING): { max: number; tooDeep?: IToken } {
  const stack: Entry[] = [];
  let max = 0;
  let run = 0; // consecutive prefix `not` / `-`
  let tooDeep: IToken | undefined;
  const popTo = (pred: (e: Entry) => boolean): Entry | undefined => {
    for (let i = stack.length - 1; i >= 0; i--) {
      if (pred(stack[i]!)) {
        const e = stack[i]!;
        stack.length = i + 1;
        return e;
      }
      if (stack[i]!.k === "bracket") return undefined; // never pop past an open bracket
    }
    return undefined;
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const ty = t.tokenType;
    const prev = i > 0 ? tokens[i - 1]!.tokenType : undefined;
    const prefix = ty === KW.not ? prev !== undefined && !isOperandEnd(prev) : ty === Minus && (prev === undefined || BEFORE_OPERAND.has(prev) || isOperator(prev));
    run = prefix ? run + 1 : 0;
    if (OPEN.has(ty)) stack.push({ k: "bracket" });
    else if (CLOSE.has(ty)) {
      for (let j = stack.length - 1; j >= 0; j--) {
        if (stack[j]!.k === "bracket") {
          stack.length = j;
          break;
        }
        if (j === 0) stack.length = 0;
      }
    } else if (ty === KW.if) stack.push({ k: "if", stage: 0 });
    else if (ty === KW.some || ty === KW.every) stack.push({ k: "quant", stage: 0 });
    else if (ty === KW.then) {
      const e = popTo((x) => x.k === "if" && x.stage === 0);
      if (e && e.k === "if") e.stage = 1;
    } else if (ty === KW.else) {
      const e = popTo((x) => x.k === "if" && x.stage === 1);
      if (e && e.k === "if") e.stage = 2;
    } else if (ty === Colon) {
      const e = popTo((x) => x.k === "quant" && x.stage === 0);
      if (e && e.k === "quant") e.stage = 1;
    } else if (ty === Comma) popTo(() => false);
    const depth = stack.length + run;
    if (depth > max) max = depth;
    if (depth > limit && !tooDeep) tooDeep = t;
  }
  return { max, ...(tooDeep ? { tooDeep } : {}) };
}

function isOperandEnd(ty: IToken["tokenType"]): boolean {
  return CLOSE.has(ty) || ty.name === "Ident" || ty.name === "IntLit" || ty.name === "StringLit" || ty === KW.true || ty === KW.false || ty === KW.state;
}

function isOperator(ty: IToken["tokenType"]): boolean {
  return ["Le", "Ge", "Neq", "Lt", "Gt", "Eq", "Plus", "Star", "Slash"].includes(ty.name) || ty === KW.unless || ty === KW.and || ty === KW.or || ty === KW.not || ty === KW.implies || ty === KW.in || ty === KW.then || ty === KW.else || ty === KW.if || ty === KW.when || ty === KW.where;
}

/**
 * The depth of an AST (any node with a `k` field counts one level; a child `and`/`or` node under
 * a parent of the same operator counts none) and the deepest node's span when it exceeds
 * `limit`. Iterative: safe on any depth.
 */
export function astDepth(root: object, limit = MAX_NESTING): { max: number; tooDeep?: { span: { line: number; column: number; endLine: number; endColumn: number } } } {
  let max = 0;
  let tooDeep: { span: { line: number; column: number; endLine: number; endColumn: number } } | undefined;
  const stack: [unknown, number, string | undefined][] = [[root, 0, undefined]];
  while (stack.length) {
    const [n, d, parentOp] = stack.pop()!;
    if (n === null || typeof n !== "object") continue;
    if (Array.isArray(n)) {
      for (const x of n) stack.push([x, d, parentOp]);
      continue;
    }
    const o = n as Record<string, unknown>;
    let depth = d;
    let op: string | undefined;
    if (typeof o.k === "string") {
      op = o.k === "bin" && (o.op === "and" || o.op === "or") ? (o.op as string) : undefined;
      depth = op !== undefined && op === parentOp ? d : d + 1;
      if (depth > max) max = depth;
      if (depth > limit && !tooDeep && o.span && typeof o.span === "object") tooDeep = { span: o.span as never };
    }
    for (const [key, v] of Object.entries(o)) {
      if (key === "span" || key === "opSpan" || v === null || typeof v !== "object") continue;
      stack.push([v, depth, op]);
    }
  }
  return { max, ...(tooDeep ? { tooDeep } : {}) };
}
