/**
 * The grammar of an action declaration's scope (dsl/README.md, "Action scopes") for the rule
 * parser (parser.ts): `during <phase>[.<segment>][, <phase>[.<segment>]]* [actor <who>]` or
 * `actor <who>`, then the citations that say so. Grammar only; the CST node names are
 * `actionScope` and `scopePhase` (one phase), read by cst-to-ast.ts.
 */
import { Comma, Dot, Ident, KW } from "./tokens.js";
import type { GrammarDsl, Rule } from "./grammar-tables.js";

/**
 * Records the scope rules on the parser `$` (called from a field initializer of the parser, before
 * its self-analysis). `r()` gives the parser's `citations` rule (read when a rule runs). Returns
 * `actionScope`, the entry rule (optional after an action's parameters).
 */
export function scopeGrammar($: GrammarDsl, r: () => { citations: Rule }): { actionScope: Rule } {
  // one phase of the scope: `<phase>[.<segment>]`
  const scopePhase = $.RULE("scopePhase", () => {
    $.CONSUME(Ident, { LABEL: "phase" });
    $.OPTION(() => {
      $.CONSUME(Dot);
      $.CONSUME2(Ident, { LABEL: "segment" });
    });
  });
  // several phases, comma-separated: the action is a move in any of them
  const actionScope = $.RULE("actionScope", () => {
    $.OR([
      {
        ALT: () => {
          $.CONSUME(KW.during);
          $.SUBRULE(scopePhase);
          $.MANY(() => {
            $.CONSUME(Comma);
            $.SUBRULE2(scopePhase);
          });
          $.OPTION2(() => {
            $.CONSUME(KW.actor);
            $.CONSUME3(Ident, { LABEL: "who" });
          });
        },
      },
      {
        ALT: () => {
          $.CONSUME2(KW.actor);
          $.CONSUME4(Ident, { LABEL: "who" });
        },
      },
    ]);
    $.SUBRULE(r().citations);
  });
  return { actionScope };
}
