/**
 * The grammar of dsl/README.md as a chevrotain CstParser. Grammar only: the CST is turned into
 * the AST by cst-to-ast.ts. One instance is created and reused (see `parser`).
 *
 * The top rule is `declaration`: index.ts splits a file's tokens at declaration keywords and
 * parses each slice, so an error never hides the declarations after it.
 */
import { CstParser } from "chevrotain";
import {
  allTokens, AnyName, Ident, KW, Section, NamedSection, IntLit, StringLit, Le, Ge, Neq, Lt, Gt, Eq, Colon,
  Comma, Dot, LParen, RParen, LBrace, RBrace, LBracket, RBracket, Plus, Minus, Star, Slash, At,
} from "./tokens.js";
import { errorMessageProvider } from "./parse-errors.js";
import { tableGrammar, type GrammarDsl } from "./grammar-tables.js";
import { routeGrammar } from "./grammar-routes.js";
import { scopeGrammar } from "./grammar-scopes.js";

export { errorMessageProvider, showLabel } from "./parse-errors.js";

/**
 * The grammar as a chevrotain parser, without chevrotain's error recovery (issue 29): its
 * re-sync computes the follow set of the whole rule stack at every level an error unwinds through
 * and scans ahead for a token of it, so an unclosed bracket 400 levels deep cost 2.3 s and twice
 * as deep four times that, and a long declaration with many errors was quadratic in its length.
 * Without it a parse stops at the first error of the declaration (parse-file.ts parses every
 * declaration on its own, so the others are still checked) and costs a bounded amount of work per
 * token and rule invocation: linear in the input. The first error is the same message recovery
 * gave, or a better one (recovery's in-repetition re-sync named the wrong previous token).
 */
export class RulesParser extends CstParser {
  constructor() {
    super(allTokens, { recoveryEnabled: false, maxLookahead: 4, errorMessageProvider });
    this.performSelfAnalysis();
  }

  public declaration = this.RULE("declaration", () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.editionDecl) },
      { ALT: () => this.SUBRULE(this.schemaDecl) },
      { ALT: () => this.SUBRULE(this.boardDecl) },
      { ALT: () => this.SUBRULE(this.enumDecl) },
      { ALT: () => this.SUBRULE(this.actionDecl) },
      { ALT: () => this.SUBRULE(this.defDecl) },
      { ALT: () => this.SUBRULE(this.routes.routeDecl) },
      { ALT: () => this.SUBRULE(this.ruleDecl) },
      { ALT: () => this.SUBRULE(this.exemptDecl) },
      { ALT: () => this.SUBRULE(this.invariantDecl) },
      { ALT: () => this.SUBRULE(this.declineDecl) },
      { ALT: () => this.SUBRULE(this.tables.tableDecl) },
      { ALT: () => this.SUBRULE(this.moduleDecl) },
      { ALT: () => this.SUBRULE(this.importDecl) },
      { ALT: () => this.SUBRULE(this.overrideDecl) },
      { ALT: () => this.SUBRULE(this.removeDecl) },
    ]);
  });

  private editionDecl = this.RULE("editionDecl", () => {
    this.CONSUME(KW.edition);
    this.CONSUME(Ident, { LABEL: "name" });
    this.CONSUME(StringLit, { LABEL: "title" });
    this.CONSUME(KW.cites);
    this.CONSUME2(StringLit, { LABEL: "cites" });
    this.OPTION(() => {
      this.CONSUME(KW.extends);
      this.CONSUME3(StringLit, { LABEL: "parent" });
    });
  });

  /** `module <name> "<title>"`: the one declaration naming a module folder (dsl/modules/<name>/). */
  private moduleDecl = this.RULE("moduleDecl", () => {
    this.CONSUME(KW.module);
    this.CONSUME(Ident, { LABEL: "name" });
    this.CONSUME(StringLit, { LABEL: "title" });
  });

  /** `import <module>`: an edition uses the declarations of a module. */
  private importDecl = this.RULE("importDecl", () => {
    this.CONSUME(KW.import);
    this.CONSUME(Ident, { LABEL: "name" });
  });

  /** `override rule …`: a variant replaces its parent's rule of that id (the rule grammar follows). */
  private overrideDecl = this.RULE("overrideDecl", () => {
    this.CONSUME(KW.override);
    this.SUBRULE(this.ruleDecl);
  });

  /** `remove rule <id> "<reason>"`: a variant drops its parent's rule of that id. */
  private removeDecl = this.RULE("removeDecl", () => {
    this.CONSUME(KW.remove);
    this.CONSUME(KW.rule);
    this.SUBRULE(this.ruleId);
    this.CONSUME(StringLit, { LABEL: "reason" });
  });

  private schemaDecl = this.RULE("schemaDecl", () => {
    this.CONSUME(KW.schema);
    this.CONSUME(StringLit, { LABEL: "path" });
  });

  private boardDecl = this.RULE("boardDecl", () => {
    this.CONSUME(KW.board);
    this.CONSUME(StringLit, { LABEL: "path" });
  });

  private enumDecl = this.RULE("enumDecl", () => {
    this.CONSUME(KW.enum);
    this.CONSUME(Ident, { LABEL: "name" });
    this.OPTION(() => {
      this.CONSUME(Colon);
      this.CONSUME2(Ident, { LABEL: "base" });
    });
    this.CONSUME(LBrace);
    this.CONSUME3(Ident, { LABEL: "member" });
    this.MANY(() => {
      this.CONSUME(Comma);
      this.OPTION2(() => this.CONSUME4(Ident, { LABEL: "member" }));
    });
    this.CONSUME(RBrace);
  });

  private actionDecl = this.RULE("actionDecl", () => {
    this.CONSUME(KW.action);
    this.CONSUME(Ident, { LABEL: "name" });
    this.CONSUME(LParen);
    this.SUBRULE(this.param);
    this.MANY(() => {
      this.CONSUME(Comma);
      this.SUBRULE2(this.param);
    });
    this.CONSUME(RParen);
    this.OPTION(() => this.SUBRULE(this.scopes.actionScope));
  });

  private paramList = this.RULE("paramList", () => {
    this.CONSUME(LParen);
    this.OPTION(() => {
      this.SUBRULE(this.param);
      this.MANY(() => {
        this.CONSUME(Comma);
        this.SUBRULE2(this.param);
      });
    });
    this.CONSUME(RParen);
  });

  private param = this.RULE("param", () => {
    this.OPTION(() => this.CONSUME(KW.actor));
    this.CONSUME(Ident, { LABEL: "name" });
    this.CONSUME(Colon);
    this.SUBRULE(this.typeRef);
  });

  private typeRef = this.RULE("typeRef", () => {
    this.OR([
      { ALT: () => this.CONSUME(KW.bool) },
      { ALT: () => this.CONSUME(KW.int) },
      { ALT: () => this.CONSUME(KW.string) },
      {
        ALT: () => {
          this.CONSUME(KW.list);
          this.CONSUME(Lt);
          this.SUBRULE(this.typeRef);
          this.CONSUME(Gt);
        },
      },
      { ALT: () => this.CONSUME(Ident) },
    ]);
  });

  private defDecl = this.RULE("defDecl", () => {
    this.CONSUME(KW.def);
    this.CONSUME(Ident, { LABEL: "name" });
    this.SUBRULE(this.paramList);
    this.CONSUME(Colon);
    this.SUBRULE(this.typeRef);
    this.CONSUME(Eq);
    this.SUBRULE(this.expr);
  });

  private routes = routeGrammar(this as unknown as GrammarDsl, () => ({ expr: this.expr, paramList: this.paramList }));
  private scopes = scopeGrammar(this as unknown as GrammarDsl, () => ({ citations: this.citations }));

  private ruleId = this.RULE("ruleId", () => {
    this.CONSUME(AnyName);
    this.MANY(() => {
      this.CONSUME(Dot);
      this.CONSUME2(AnyName);
    });
  });

  private group = this.RULE("group", () => {
    this.CONSUME(LParen);
    this.OR([{ ALT: () => this.CONSUME(Star) }, { ALT: () => this.CONSUME(Ident) }]);
    this.CONSUME(RParen);
  });

  /** `§9.6`, `§"Named section"`, optionally after a game key: `vq §"Action Phase"`. */
  private citation = this.RULE("citation", () => {
    this.OPTION(() => this.CONSUME(Ident, { LABEL: "key" }));
    this.OR([
      { ALT: () => this.CONSUME(Section) },
      { ALT: () => this.CONSUME(NamedSection) },
    ]);
  });

  private citations = this.RULE("citations", () => {
    this.SUBRULE(this.citation);
    this.MANY(() => {
      this.CONSUME(Comma);
      this.SUBRULE2(this.citation);
    });
  });

  /** `@name word* "note"?`, e.g. `@severity redundant_rule off "stated twice on purpose"` */
  private annotation = this.RULE("annotation", () => {
    this.CONSUME(At);
    this.CONSUME(Ident, { LABEL: "name" });
    this.MANY(() => this.CONSUME2(Ident, { LABEL: "arg" }));
    this.OPTION(() => this.CONSUME(StringLit, { LABEL: "note" }));
  });

  private ruleDecl = this.RULE("ruleDecl", () => {
    this.CONSUME(KW.rule);
    this.SUBRULE(this.ruleId);
    this.SUBRULE(this.citations);
    this.CONSUME(StringLit, { LABEL: "title" });
    this.MANY(() => this.SUBRULE(this.group));
    this.MANY2(() => this.SUBRULE(this.annotation));
    this.OPTION(() => {
      this.CONSUME(KW.during);
      this.CONSUME(Ident, { LABEL: "phase" });
      this.OPTION2(() => {
        this.CONSUME(Dot);
        this.CONSUME2(Ident, { LABEL: "segment" });
      });
    });
    this.OR([
      { ALT: () => this.CONSUME(KW.forbid, { LABEL: "kind" }) },
      { ALT: () => this.CONSUME(KW.oblige, { LABEL: "kind" }) },
    ]);
    this.CONSUME3(Ident, { LABEL: "action" });
    // `oblige play_card(card: c, as: event)`: the obliged move's parameter values
    this.OPTION4(() => {
      this.CONSUME(LParen);
      this.AT_LEAST_ONE_SEP({ SEP: Comma, DEF: () => (this.CONSUME4(Ident, { LABEL: "bindParam" }), this.CONSUME(Colon), this.SUBRULE3(this.expr, { LABEL: "bindValue" })) });
      this.CONSUME(RParen);
    });
    this.CONSUME(KW.when);
    this.SUBRULE(this.expr);
    // `unless <exception>`: an exemption written inline (dsl/README.md, "Rules")
    this.OPTION3(() => {
      this.CONSUME(KW.unless);
      this.SUBRULE2(this.expr, { LABEL: "unless" });
    });
  });

  private exemptDecl = this.RULE("exemptDecl", () => {
    this.CONSUME(KW.exempt);
    this.SUBRULE(this.ruleId);
    this.SUBRULE(this.citations);
    this.CONSUME(StringLit, { LABEL: "title" });
    this.MANY2(() => this.SUBRULE(this.annotation));
    this.CONSUME(KW.lifts);
    this.SUBRULE(this.target);
    this.MANY(() => {
      this.CONSUME(Comma);
      this.SUBRULE2(this.target);
    });
    this.CONSUME(KW.when);
    this.SUBRULE(this.expr);
  });

  private target = this.RULE("target", () => {
    this.OR([{ ALT: () => this.SUBRULE(this.group) }, { ALT: () => this.SUBRULE(this.ruleId) }]);
  });

  /** `§9.6` or `§"Voyages of Exploration"` (a named section, for sources without numbers). */
  // tables (dsl/README.md, "Tables"): grammar-tables.ts
  private tables = tableGrammar(this as unknown as GrammarDsl, () => ({ citations: this.citations, expr: this.expr, typeRef: this.typeRef }));

  /**
   * `decline <action> during <phase> "<why>"`: the move by which the active power declines to act
   * in that phase (`pass`, ending its deployments); the stuck-power analysis reads it.
   */
  private declineDecl = this.RULE("declineDecl", () => {
    this.CONSUME(KW.decline);
    this.CONSUME(Ident, { LABEL: "action" });
    this.CONSUME(KW.during);
    this.CONSUME2(Ident, { LABEL: "phase" });
    this.CONSUME(StringLit, { LABEL: "title" });
  });

  private invariantDecl = this.RULE("invariantDecl", () => {
    this.CONSUME(KW.invariant);
    this.SUBRULE(this.ruleId);
    this.CONSUME(StringLit, { LABEL: "title" });
    this.CONSUME(Colon);
    this.SUBRULE(this.expr);
  });

  // ---------------------------------------------------------------- expressions

  public expr = this.RULE("expr", () => {
    this.SUBRULE(this.orExpr, { LABEL: "operand" });
    this.OPTION(() => {
      this.CONSUME(KW.implies, { LABEL: "op" });
      this.SUBRULE2(this.orExpr, { LABEL: "operand" });
    });
  });

  private orExpr = this.RULE("orExpr", () => {
    this.SUBRULE(this.andExpr, { LABEL: "operand" });
    this.MANY(() => {
      this.CONSUME(KW.or, { LABEL: "op" });
      this.SUBRULE2(this.andExpr, { LABEL: "operand" });
    });
  });

  private andExpr = this.RULE("andExpr", () => {
    this.SUBRULE(this.notExpr, { LABEL: "operand" });
    this.MANY(() => {
      this.CONSUME(KW.and, { LABEL: "op" });
      this.SUBRULE2(this.notExpr, { LABEL: "operand" });
    });
  });

  private notExpr = this.RULE("notExpr", () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(KW.not);
          this.SUBRULE(this.notExpr);
        },
      },
      { ALT: () => this.SUBRULE(this.cmpExpr) },
    ]);
  });

  private cmpExpr = this.RULE("cmpExpr", () => {
    this.SUBRULE(this.addExpr, { LABEL: "operand" });
    this.OPTION(() => {
      this.OR([
        { ALT: () => this.CONSUME(Eq, { LABEL: "op" }) },
        { ALT: () => this.CONSUME(Neq, { LABEL: "op" }) },
        { ALT: () => this.CONSUME(Le, { LABEL: "op" }) },
        { ALT: () => this.CONSUME(Ge, { LABEL: "op" }) },
        { ALT: () => this.CONSUME(Lt, { LABEL: "op" }) },
        { ALT: () => this.CONSUME(Gt, { LABEL: "op" }) },
        { ALT: () => this.CONSUME(KW.in, { LABEL: "op" }) },
        {
          ALT: () => {
            this.CONSUME(KW.not, { LABEL: "notOp" });
            this.CONSUME2(KW.in, { LABEL: "op" });
          },
        },
      ]);
      this.SUBRULE2(this.addExpr, { LABEL: "operand" });
    });
  });

  private addExpr = this.RULE("addExpr", () => {
    this.SUBRULE(this.mulExpr, { LABEL: "operand" });
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(Plus, { LABEL: "op" }) },
        { ALT: () => this.CONSUME(Minus, { LABEL: "op" }) },
      ]);
      this.SUBRULE2(this.mulExpr, { LABEL: "operand" });
    });
  });

  private mulExpr = this.RULE("mulExpr", () => {
    this.SUBRULE(this.unaryExpr, { LABEL: "operand" });
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(Star, { LABEL: "op" }) },
        { ALT: () => this.CONSUME(Slash, { LABEL: "op" }) },
      ]);
      this.SUBRULE2(this.unaryExpr, { LABEL: "operand" });
    });
  });

  private unaryExpr = this.RULE("unaryExpr", () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(Minus);
          this.SUBRULE(this.unaryExpr);
        },
      },
      { ALT: () => this.SUBRULE(this.postfixExpr) },
    ]);
  });

  private postfixExpr = this.RULE("postfixExpr", () => {
    this.SUBRULE(this.primary);
    this.MANY(() => {
      this.OR([
        {
          ALT: () => {
            this.CONSUME(Dot, { LABEL: "suffix" });
            this.CONSUME(Ident, { LABEL: "suffix" });
          },
        },
        {
          ALT: () => {
            this.CONSUME(LBracket, { LABEL: "suffix" });
            this.SUBRULE(this.expr, { LABEL: "suffix" });
            this.CONSUME(RBracket, { LABEL: "suffix" });
          },
        },
      ]);
    });
  });

  private primary = this.RULE("primary", () => {
    this.OR([
      { ALT: () => this.CONSUME(IntLit) },
      { ALT: () => this.CONSUME(StringLit) },
      { ALT: () => this.CONSUME(KW.true) },
      { ALT: () => this.CONSUME(KW.false) },
      { ALT: () => this.CONSUME(KW.state) },
      { ALT: () => this.SUBRULE(this.nameOrCall) },
      {
        ALT: () => {
          this.CONSUME(LParen);
          this.SUBRULE(this.expr);
          this.CONSUME(RParen);
        },
      },
      { ALT: () => this.SUBRULE(this.setLit) },
      { ALT: () => this.SUBRULE(this.quantExpr) },
      { ALT: () => this.SUBRULE(this.countExpr) },
      { ALT: () => this.SUBRULE(this.aggExpr) },
      { ALT: () => this.SUBRULE(this.sumHighestExpr) },
      { ALT: () => this.SUBRULE(this.ifExpr) },
      { ALT: () => this.SUBRULE(this.reachableExpr) },
    ]);
  });

  private args = this.RULE("args", () => {
    this.CONSUME(LParen);
    this.OPTION(() => {
      this.SUBRULE(this.expr, { LABEL: "arg" });
      this.MANY(() => {
        this.CONSUME(Comma);
        this.SUBRULE2(this.expr, { LABEL: "arg" });
      });
    });
    this.CONSUME(RParen);
  });

  private nameOrCall = this.RULE("nameOrCall", () => {
    this.CONSUME(Ident);
    this.OPTION(() => this.SUBRULE(this.args));
  });

  private setLit = this.RULE("setLit", () => {
    this.CONSUME(LBrace);
    this.SUBRULE(this.expr, { LABEL: "item" });
    this.MANY(() => {
      this.CONSUME(Comma);
      this.SUBRULE2(this.expr, { LABEL: "item" });
    });
    this.CONSUME(RBrace);
  });

  /** `x in domain`: the binder of quantifiers and aggregates. */
  private binder = this.RULE("binder", () => {
    this.CONSUME(Ident);
    this.CONSUME(KW.in);
    this.SUBRULE(this.postfixExpr, { LABEL: "domain" });
    this.OPTION(() => {
      this.CONSUME(KW.where);
      this.SUBRULE(this.expr, { LABEL: "where" });
    });
  });

  private quantExpr = this.RULE("quantExpr", () => {
    this.OR([
      { ALT: () => this.CONSUME(KW.some, { LABEL: "q" }) },
      { ALT: () => this.CONSUME(KW.every, { LABEL: "q" }) },
    ]);
    this.CONSUME(Ident);
    this.CONSUME(KW.in);
    this.SUBRULE(this.postfixExpr, { LABEL: "domain" });
    this.CONSUME(Colon);
    this.SUBRULE(this.expr, { LABEL: "body" });
  });

  private countExpr = this.RULE("countExpr", () => {
    this.CONSUME(KW.count);
    this.CONSUME(LParen);
    this.OR([
      {
        GATE: () => this.LA(1).tokenType === Ident && this.LA(2).tokenType === KW.in,
        IGNORE_AMBIGUITIES: true,
        ALT: () => this.SUBRULE(this.binder),
      },
      { ALT: () => this.SUBRULE(this.expr, { LABEL: "arg" }) },
    ]);
    this.CONSUME(RParen);
  });

  private aggExpr = this.RULE("aggExpr", () => {
    this.OR([
      { ALT: () => this.CONSUME(KW.sum, { LABEL: "op" }) },
      { ALT: () => this.CONSUME(KW.max, { LABEL: "op" }) },
      { ALT: () => this.CONSUME(KW.min, { LABEL: "op" }) },
    ]);
    this.CONSUME(LParen);
    this.OR2([
      {
        // `max(x in D: body)`, the aggregate
        GATE: () => this.LA(1).tokenType === Ident && this.LA(2).tokenType === KW.in,
        IGNORE_AMBIGUITIES: true,
        ALT: () => {
          this.SUBRULE(this.binder);
          this.CONSUME(Colon);
          this.SUBRULE(this.expr, { LABEL: "body" });
        },
      },
      {
        // `max(a, b)`, the larger of two integers
        ALT: () => {
          this.SUBRULE2(this.expr, { LABEL: "pick" });
          this.CONSUME(Comma);
          this.SUBRULE3(this.expr, { LABEL: "pick" });
        },
      },
    ]);
    this.CONSUME(RParen);
  });

  private sumHighestExpr = this.RULE("sumHighestExpr", () => {
    this.CONSUME(KW.sum_highest);
    this.CONSUME(LParen);
    this.CONSUME(IntLit);
    this.CONSUME(Comma);
    this.SUBRULE(this.binder);
    this.CONSUME(Colon);
    this.SUBRULE(this.expr, { LABEL: "body" });
    this.CONSUME(RParen);
  });

  private ifExpr = this.RULE("ifExpr", () => {
    this.CONSUME(KW.if);
    this.SUBRULE(this.expr, { LABEL: "cond" });
    this.CONSUME(KW.then);
    this.SUBRULE2(this.expr, { LABEL: "then" });
    this.CONSUME(KW.else);
    this.SUBRULE3(this.expr, { LABEL: "else" });
  });

  private reachableExpr = this.RULE("reachableExpr", () => {
    this.CONSUME(KW.reachable);
    this.CONSUME(LParen);
    this.CONSUME(Ident, { LABEL: "route" });
    this.SUBRULE(this.args);
    this.CONSUME(Comma);
    this.SUBRULE(this.expr, { LABEL: "from" });
    this.CONSUME2(Comma);
    this.SUBRULE2(this.expr, { LABEL: "to" });
    this.CONSUME(RParen);
  });
}

/** The one parser instance (chevrotain parsers are meant to be reused). */
export const parser = new RulesParser();
