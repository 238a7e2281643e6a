/**
 * The grammar of result tables (dsl/README.md, "Tables") for the rule parser (parser.ts):
 * `table <name> <citations> "<title>" (<params>): <result> [key <expr>, …] { <rows> }`, its
 * parameters with ranges, result types, rows of patterns, guards and values. Grammar only.
 */
import type { ConsumeMethodOpts, CstNode, DSLMethodOpts, GrammarAction, IOrAlt, IToken, OrMethodOpts, ParserMethod, SubruleMethodOpts, TokenType } from "chevrotain";
import { Colon, Comma, Dot, DotDot, Ge, Ident, IntLit, KW, LBrace, Le, LParen, Minus, RBrace, RParen, StringLit } from "./tokens.js";

export type Rule = ParserMethod<[], CstNode>;

/** The part of chevrotain's parser DSL the table grammar records with (protected on `CstParser`: the parser hands itself over). */
export interface GrammarDsl {
  RULE(name: string, implementation: () => void): Rule;
  SUBRULE(rule: Rule, options?: SubruleMethodOpts<[]>): CstNode;
  SUBRULE2(rule: Rule, options?: SubruleMethodOpts<[]>): CstNode;
  SUBRULE3(rule: Rule, options?: SubruleMethodOpts<[]>): CstNode;
  SUBRULE4(rule: Rule, options?: SubruleMethodOpts<[]>): CstNode;
  CONSUME(tokType: TokenType, options?: ConsumeMethodOpts): IToken;
  CONSUME2(tokType: TokenType, options?: ConsumeMethodOpts): IToken;
  CONSUME3(tokType: TokenType, options?: ConsumeMethodOpts): IToken;
  CONSUME4(tokType: TokenType, options?: ConsumeMethodOpts): IToken;
  OPTION(action: GrammarAction<unknown> | DSLMethodOpts<unknown>): unknown;
  OPTION2(action: GrammarAction<unknown> | DSLMethodOpts<unknown>): unknown;
  OR(alts: IOrAlt<unknown>[] | OrMethodOpts<unknown>): unknown;
  OR2(alts: IOrAlt<unknown>[] | OrMethodOpts<unknown>): unknown;
  OR3(alts: IOrAlt<unknown>[] | OrMethodOpts<unknown>): unknown;
  MANY(action: GrammarAction<unknown> | DSLMethodOpts<unknown>): void;
  MANY2(action: GrammarAction<unknown> | DSLMethodOpts<unknown>): void;
  MANY3(action: GrammarAction<unknown> | DSLMethodOpts<unknown>): void;
  LA(howMuch: number): IToken;
}

/**
 * Records the table rules on the parser `$` (called from a field initializer of the parser, before
 * its self-analysis). `r()` gives the parser's rules the table grammar calls (read when a rule runs,
 * so their order of definition does not matter). Returns `tableDecl`, the entry rule.
 */
export function tableGrammar($: GrammarDsl, r: () => { citations: Rule; expr: Rule; typeRef: Rule }): { tableDecl: Rule } {

  /**
   * `table <name> <citations> "<title>" (<params>): <result> [key <expr>, …] { <rows> }`.
   * `key` is a contextual word (an identifier elsewhere).
   */
  const tableDecl = $.RULE("tableDecl", () => {
    $.CONSUME(KW.table);
    $.CONSUME(Ident, { LABEL: "name" });
    $.SUBRULE(r().citations);
    $.CONSUME(StringLit, { LABEL: "title" });
    $.CONSUME(LParen);
    $.SUBRULE(tableParam);
    $.MANY(() => {
      $.CONSUME(Comma);
      $.SUBRULE2(tableParam);
    });
    $.CONSUME(RParen);
    $.CONSUME(Colon);
    $.SUBRULE(tableResult);
    $.OPTION({
      GATE: () => $.LA(1).tokenType === Ident && $.LA(1).image === "key",
      DEF: () => {
        $.CONSUME2(Ident, { LABEL: "keyWord" });
        $.SUBRULE(r().expr, { LABEL: "key" });
        $.MANY2(() => {
          $.CONSUME2(Comma);
          $.SUBRULE2(r().expr, { LABEL: "key" });
        });
      },
    });
    $.CONSUME(LBrace);
    $.MANY3(() => $.SUBRULE(tableRow));
    $.CONSUME(RBrace);
  });

  /** `roll: int in 2..12`, `explorer: int`, `mercators_map: bool`, `holding: Holding`. */
  const tableParam = $.RULE("tableParam", () => {
    $.CONSUME(Ident, { LABEL: "name" });
    $.CONSUME(Colon);
    $.SUBRULE(r().typeRef);
    $.OPTION(() => {
      $.CONSUME(KW.in);
      $.SUBRULE(signedInt, { LABEL: "min" });
      $.CONSUME(DotDot);
      $.SUBRULE2(signedInt, { LABEL: "max" });
    });
  });

  const signedInt = $.RULE("signedInt", () => {
    $.OPTION(() => $.CONSUME(Minus));
    $.CONSUME(IntLit);
  });

  /** A scalar type, or a small record `{ success: bool, bonus_card: bool }`. */
  const tableResult = $.RULE("tableResult", () => {
    $.OR([
      {
        ALT: () => {
          $.CONSUME(LBrace);
          $.CONSUME(Ident, { LABEL: "field" });
          $.CONSUME(Colon);
          $.SUBRULE(r().typeRef, { LABEL: "fieldType" });
          $.MANY(() => {
            $.CONSUME(Comma);
            $.CONSUME2(Ident, { LABEL: "field" });
            $.CONSUME2(Colon);
            $.SUBRULE2(r().typeRef, { LABEL: "fieldType" });
          });
          $.CONSUME(RBrace);
        },
      },
      { ALT: () => $.SUBRULE3(r().typeRef, { LABEL: "type" }) },
    ]);
  });

  const { tableRow } = rowGrammar($, r, signedInt);
  return { tableDecl };
}

/** The rows of a table: patterns (by key), an optional guard, and a constant value. */
function rowGrammar($: GrammarDsl, r: () => { expr: Rule }, signedInt: Rule): { tableRow: Rule } {
  /** `5..6: no_discovery`, `2 when hapsburg_galleons: { … }`, `explore, {england, france}: …`. */
  const tableRow = $.RULE("tableRow", () => {
    $.SUBRULE(tablePattern);
    $.MANY(() => {
      $.CONSUME(Comma);
      $.SUBRULE2(tablePattern);
    });
    $.OPTION(() => {
      $.CONSUME(KW.when);
      $.SUBRULE(r().expr, { LABEL: "guard" });
    });
    $.CONSUME(Colon);
    $.SUBRULE(tableValue);
  });

  /** `_`, `7`, `5..6`, `<= 4`, `>= 10`, `true`, `member`, `Enum.member`, `{a, b}`. */
  const tablePattern = $.RULE("tablePattern", () => {
    $.OR([
      {
        ALT: () => {
          $.SUBRULE(signedInt, { LABEL: "lo" });
          $.OPTION(() => {
            $.CONSUME(DotDot);
            $.SUBRULE2(signedInt, { LABEL: "hi" });
          });
        },
      },
      {
        ALT: () => {
          $.CONSUME(Le);
          $.SUBRULE3(signedInt, { LABEL: "atMost" });
        },
      },
      {
        ALT: () => {
          $.CONSUME(Ge);
          $.SUBRULE4(signedInt, { LABEL: "atLeast" });
        },
      },
      { ALT: () => $.CONSUME(KW.true) },
      { ALT: () => $.CONSUME(KW.false) },
      { ALT: () => $.SUBRULE(memberRef, { LABEL: "member" }) },
      {
        ALT: () => {
          $.CONSUME(LBrace);
          $.SUBRULE2(memberRef, { LABEL: "member" });
          $.MANY(() => {
            $.CONSUME(Comma);
            $.SUBRULE3(memberRef, { LABEL: "member" });
          });
          $.CONSUME(RBrace);
        },
      },
    ]);
  });

  /** `member` or `Enum.member` (`_` is a member-shaped wildcard, read in cst-to-ast). */
  const memberRef = $.RULE("memberRef", () => {
    $.CONSUME(Ident, { LABEL: "first" });
    $.OPTION(() => {
      $.CONSUME(Dot);
      $.CONSUME2(Ident, { LABEL: "second" });
    });
  });

  /** A constant: an integer, `true`/`false`, an enum member, or a record `{ field: value, … }`. */
  const tableValue = $.RULE("tableValue", () => {
    $.OR([
      { ALT: () => $.SUBRULE(signedInt, { LABEL: "int" }) },
      { ALT: () => $.CONSUME(KW.true) },
      { ALT: () => $.CONSUME(KW.false) },
      { ALT: () => $.SUBRULE(memberRef, { LABEL: "member" }) },
      {
        ALT: () => {
          $.CONSUME(LBrace);
          $.CONSUME(Ident, { LABEL: "field" });
          $.CONSUME(Colon);
          $.SUBRULE(tableValue, { LABEL: "fieldValue" });
          $.MANY(() => {
            $.CONSUME(Comma);
            $.CONSUME2(Ident, { LABEL: "field" });
            $.CONSUME2(Colon);
            $.SUBRULE2(tableValue, { LABEL: "fieldValue" });
          });
          $.CONSUME(RBrace);
        },
      },
    ]);
  });
  return { tableRow };
}
