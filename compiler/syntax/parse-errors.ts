/**
 * The parser's error messages (parser.ts hands `errorMessageProvider` to chevrotain) in the project
 * style: lowercase, user text in backticks, what was expected first, and the construct it was in.
 */
import { EOF, type IParserErrorMessageProvider, type IToken, type TokenType } from "chevrotain";

/** `'when'` → `` `when` `` for messages; other labels (`identifier`) stay as they are. */
export function showLabel(t: TokenType): string {
  const l = t.LABEL ?? t.name;
  if (t === EOF) return "end of declaration";
  return l.startsWith("'") ? "`" + l.slice(1, -1) + "`" : l;
}
export function showToken(t: IToken): string {
  if (t.tokenType === EOF) return "end of declaration";
  return "`" + t.image + "`";
}

const RULE_CONTEXT: Record<string, string> = {
  editionDecl: "the edition declaration",
  schemaDecl: "the schema declaration",
  boardDecl: "the board declaration",
  enumDecl: "the enum declaration",
  actionDecl: "the action declaration",
  actionScope: "the action's scope (`during <phase>[.<segment>][, <phase>[.<segment>]]* [actor active] <citation>`)",
  scopePhase: "a phase of the action's scope (`<phase>[.<segment>]`, several separated by commas)",
  defDecl: "the def",
  routeDecl: "the route",
  routeClause: "the route clause",
  ruleDecl: "the rule",
  exemptDecl: "the exemption",
  invariantDecl: "the invariant",
  declineDecl: "the decline declaration",
  moduleDecl: "the module declaration",
  importDecl: "the import",
  overrideDecl: "the override",
  removeDecl: "the removal",
  citation: "the citation",
  param: "the parameter",
  typeRef: "a type",
  tableDecl: "the table",
  tableParam: "the table parameter",
  tableResult: "the table's result type",
  tableRow: "the table row",
  tablePattern: "a row pattern",
  tableValue: "a row value",
  annotation: "the annotation",
  reachableExpr: "`reachable(…)`",
  ifExpr: "the `if`",
};

function uniq(xs: string[]): string[] {
  return [...new Set(xs)];
}

/** Messages in the project style: lowercase, user text in backticks, what was expected first. */
export const errorMessageProvider: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual, previous, ruleName }) {
    const after = previous && previous.tokenType !== EOF && previous.image ? ` after \`${previous.image}\`` : "";
    const where = RULE_CONTEXT[ruleName] ? ` in ${RULE_CONTEXT[ruleName]}` : "";
    return `expected ${showLabel(expected)}${after}${where}, found ${showToken(actual)}`;
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return `unexpected ${showToken(firstRedundant)} after the end of the declaration`;
  },
  buildNoViableAltMessage({ expectedPathsPerAlt, actual, previous, ruleName }) {
    const firsts = uniq(expectedPathsPerAlt.flat().map((path) => (path[0] ? showLabel(path[0]) : "")).filter(Boolean));
    const after = previous && previous.tokenType !== EOF && previous.image ? ` after \`${previous.image}\`` : "";
    const what = ruleName === "declaration" ? "a declaration" : firsts.length > 6 ? (RULE_CONTEXT[ruleName] ?? "an expression") : firsts.join(" or ");
    return `expected ${what}${after}, found ${showToken(actual[0])}`;
  },
  buildEarlyExitMessage({ expectedIterationPaths, actual, previous, ruleName }) {
    const firsts = uniq(expectedIterationPaths.map((p) => (p[0] ? showLabel(p[0]) : "")).filter(Boolean));
    const after = previous && previous.tokenType !== EOF && previous.image ? ` after \`${previous.image}\`` : "";
    void ruleName;
    return `expected ${firsts.join(" or ") || "more input"}${after}, found ${showToken(actual[0])}`;
  },
};
