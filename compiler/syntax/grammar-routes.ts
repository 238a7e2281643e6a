/**
 * The grammar of routes (dsl/README.md, "Routes") for the rule parser (parser.ts):
 * `route <name>(<params>) { <clauses> }`, each clause `land|sea|port <var>: <expr>` (which spaces a
 * step may use) or `max_seas|max_steps|passes <expr>` (limits of the path: sea zones, connections, mountain passes). Grammar only; the CST node
 * names are `routeDecl` and `routeClause` (cst-to-ast.ts).
 */
import { Colon, Ident, KW, LBrace, RBrace } from "./tokens.js";
import type { GrammarDsl, Rule } from "./grammar-tables.js";

/**
 * Records the route rules on the parser `$` (called from a field initializer of the parser, before
 * its self-analysis). `r()` gives the parser's rules the route grammar calls (read when a rule
 * runs). Returns `routeDecl`, the entry rule.
 */
export function routeGrammar($: GrammarDsl, r: () => { expr: Rule; paramList: Rule }): { routeDecl: Rule } {
  const routeClause = $.RULE("routeClause", () => {
    $.OR([
      {
        ALT: () => {
          $.OR2([
            { ALT: () => $.CONSUME(KW.land, { LABEL: "kind" }) },
            { ALT: () => $.CONSUME(KW.sea, { LABEL: "kind" }) },
            { ALT: () => $.CONSUME(KW.port, { LABEL: "kind" }) },
          ]);
          $.CONSUME(Ident, { LABEL: "var" });
          $.CONSUME(Colon);
          $.SUBRULE(r().expr);
        },
      },
      {
        ALT: () => {
          $.OR3([
            { ALT: () => $.CONSUME(KW.max_seas, { LABEL: "kind" }) },
            { ALT: () => $.CONSUME(KW.max_steps, { LABEL: "kind" }) },
            { ALT: () => $.CONSUME(KW.passes, { LABEL: "kind" }) },
          ]);
          $.SUBRULE2(r().expr);
        },
      },
    ]);
  });
  const routeDecl = $.RULE("routeDecl", () => {
    $.CONSUME(KW.route);
    $.CONSUME(Ident, { LABEL: "name" });
    $.SUBRULE(r().paramList);
    $.CONSUME(LBrace);
    $.MANY(() => $.SUBRULE(routeClause));
    $.CONSUME(RBrace);
  });
  return { routeDecl };
}
