/**
 * One rule file parsed on the calling thread: text → AST + diagnostics. Never throws on bad input.
 *
 * Error recovery: the token stream is cut before every declaration keyword (`rule`, `enum`, …,
 * unless it follows a `.` as in a rule id) and each slice is parsed on its own by the one parser
 * instance, so every declaration with an error is reported (its first error: chevrotain's own
 * recovery is off, it made parsing quadratic — parser.ts) and the declarations after it are
 * still parsed. Parsing is linear in the input (test/syntax/parse-linear.test.ts).
 *
 * `parseRules` (index.ts) calls it with the large-stack thread as `deep`; that thread
 * (parse-deep-worker.mjs) calls it without, so this file never starts the thread (no import
 * circle through the worker).
 */
import { EOF, type IToken } from "chevrotain";
import type { Diagnostic, Span } from "../diagnostics/types.js";
import type { AstFile, Decl } from "./ast.js";
import { declToAst, tokSpan } from "./cst-to-ast.js";
import { astDepth, MAX_NESTING, SHALLOW_NESTING, tokenNesting } from "./depth.js";
import { parser } from "./parser.js";
import { BadSection, BadString, DECL_KEYWORDS, Dot, Ident, KW, MAX_IDENT_LENGTH, RulesLexer } from "./tokens.js";

/** The AST of one rule file and its diagnostics. */
export interface ParseResult {
  ast: AstFile;
  diagnostics: Diagnostic[];
}

const DECL_TOKEN_TYPES = new Set(DECL_KEYWORDS.map((k) => KW[k]));

/** The shape of each declaration, shown as the help of a syntax error inside it. */
const DECL_SHAPES: Record<string, string> = {
  edition: 'an edition reads `edition <name> "<title>" cites "<key>"`, a variant `edition <name> "<title>" cites "<key>" extends "<parent folder>"`',
  schema: 'a schema declaration reads `schema "state.schema.json"`',
  board: 'a board declaration reads `board "board.json"`',
  enum: "an enum reads `enum Name { a, b, c }` or `enum Sub : Base { a, b }`",
  action: "an action reads `action name(actor p: MajorPower, x: Space)`, optionally followed by its scope `during <phase>[.<segment>][, <phase>[.<segment>]]* [actor active] <citation>`",
  def: "a def reads `def name(a: Power): bool = <expression>`",
  route: "a route reads `route name(p: Power) { land s: <expr> sea z: <expr> port q: <expr> max_seas <expr> max_steps <expr> passes <expr> }`",
  rule: 'a rule reads `rule <id> <citations> "<title>" (group)* [@severity <analysis> <level> "<why>"]* [during phase.segment] forbid <action> when <condition>` or `… oblige <action>[(<param>: <value>, …)] when <condition>`; citations are `§9.6`, `§"Named section"`, or per game `his §11, vq §"Action Phase"`',
  exempt: 'an exemption reads `exempt <id> <citations> "<title>" [@severity <analysis> <level> "<why>"]* lifts (*), <rule id> when <condition>`; citations are `§9.6`, `§"Named section"`, or per game `his §10, vq §"…"`',
  invariant: 'an invariant reads `invariant <id> "<title>": <condition>`',
  table: 'a table reads `table <name> <citations> "<title>" (roll: int in 2..12, bonus: int): Result key roll + bonus { <= 4: a  5..6: b  >= 7: c }`',
  module: 'a module reads `module <name> "<title>"`, in one file of the folder dsl/modules/<name>/',
  import: "an import reads `import <module name>` (a folder under dsl/modules/)",
  override: 'an override reads `override rule <id> <citations> "<title>" … forbid|oblige <action> when <condition>` (a whole rule)',
  remove: 'a removal reads `remove rule <id> "<the reason the variant drops it>"`',
  decline: 'a decline move reads `decline <action> during <phase> "<why this is how a power declines to act>"`',
};

function pointAfter(t: IToken): Span {
  const line = t.endLine ?? 1;
  const col = (t.endColumn ?? 0) + 1;
  return { line, column: col, endLine: line, endColumn: col + 1 };
}

/**
 * Parses one rule file here. Never throws. Declarations nested deeper than `MAX_NESTING` get
 * RW1007 and are left out; when a declaration nests deeper than `SHALLOW_NESTING` and `deep` is
 * given, the file is `deep(text, file)` instead (the large-stack thread, parse-deep.ts).
 */
export function parseFile(text: string, file: string, deep?: (text: string, file: string) => ParseResult): ParseResult {
  const diagnostics: Diagnostic[] = [];
  const diag = (code: string, message: string, span: Span, help?: string) =>
    diagnostics.push({ code, severity: "error", message, file, span, ...(help ? { help } : {}) });

  // a UTF-8 byte-order mark is not part of the text (columns of line 1 count from after it)
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lexed = RulesLexer.tokenize(text);
  for (const e of lexed.errors) {
    const ch = text.slice(e.offset, e.offset + e.length);
    const line = e.line ?? 1;
    const col = e.column ?? 1;
    diag("RW1001", `unexpected character${e.length > 1 ? "s" : ""} \`${ch.length > 20 ? ch.slice(0, 20) + "…" : ch}\``, { line, column: col, endLine: line, endColumn: col + e.length },
      "identifiers are `[A-Za-z_][A-Za-z0-9_]*`; comments start with `//`");
  }
  const tokens: IToken[] = [];
  // a token right after a dropped bad token: a parse error there only repeats the lexical one
  const afterDropped = new Set<number>();
  let dropped = false;
  for (const t of lexed.tokens) {
    if (t.tokenType === Ident && t.image.length > MAX_IDENT_LENGTH) {
      const sp = tokSpan(t);
      diag("RW1008", `identifier of ${t.image.length} characters (\`${t.image.slice(0, 24)}…\`): the limit is ${MAX_IDENT_LENGTH}`, { ...sp, endLine: sp.line, endColumn: sp.column + 1 },
        `shorten it to at most ${MAX_IDENT_LENGTH} characters`);
    }
    if (dropped) afterDropped.add(t.startOffset);
    dropped = t.tokenType === BadString || t.tokenType === BadSection;
    if (t.tokenType === BadString) {
      diag("RW1002", "unterminated string", tokSpan(t), 'close the string with `"` on the same line');
      continue;
    }
    if (t.tokenType === BadSection) {
      diag("RW1101", "`§` must be followed by a section number or a quoted section name", tokSpan(t), 'write `§9.6` or `§"Spring Deployment Procedure"` (no space after `§`)');
      continue;
    }
    tokens.push(t);
  }

  // Cut the stream before each declaration keyword.
  const chunks: IToken[][] = [];
  let junk: IToken[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const prev = i > 0 ? tokens[i - 1]!.tokenType : undefined;
    // `rule` right after `override`/`remove` continues that declaration
    const startsDecl = DECL_TOKEN_TYPES.has(t.tokenType) && prev !== Dot && !(t.tokenType === KW.rule && (prev === KW.override || prev === KW.remove));
    if (startsDecl) chunks.push([t]);
    else if (chunks.length) chunks[chunks.length - 1]!.push(t);
    else junk.push(t);
  }
  if (junk.length) {
    const first = junk[0]!;
    diag("RW1005", `expected a declaration, found \`${first.image}\``, joinTok(first, junk[junk.length - 1]!),
      "a file is a list of declarations: edition, schema, board, import, module, enum, action, def, route, rule, exempt, invariant, table, override, remove");
    junk = [];
  }

  // Nesting limits (depth.ts): a declaration nested too deep is reported and not parsed.
  const nesting = chunks.map((c) => tokenNesting(c));
  if (deep && nesting.some((n) => !n.tooDeep && n.max > SHALLOW_NESTING)) return deep(text, file);

  const decls: Decl[] = [];
  for (let c = 0; c < chunks.length; c++) {
    const chunk = chunks[c]!;
    const deep = nesting[c]!.tooDeep;
    if (deep) {
      diag("RW1007", `nested more than ${MAX_NESTING} levels deep`, tokSpan(deep),
        `the limit is ${MAX_NESTING} levels of brackets, \`if\`, \`some\`/\`every\` and prefix \`not\`/\`-\`; move inner parts into defs`);
      continue;
    }
    const next = chunks[c + 1]?.[0];
    // the parser sees the declaration alone: its end is where the next declaration starts
    const endWord = next ? `\`${next.image}\` (the start of the next declaration, line ${next.startLine})` : "end of file";
    parser.input = chunk;
    const cst = parser.declaration();
    const kw = chunk[0]!.image;
    if (parser.errors.length === 0) {
      const problems: { code: string; message: string; span: Span; help?: string }[] = [];
      try {
        const d = declToAst(cst, problems);
        const depth = astDepth(d, MAX_NESTING + 3); // + the declaration, the innermost operator and its operand
        if (depth.tooDeep) {
          diag("RW1007", `expression nested more than ${MAX_NESTING} levels deep`, depth.tooDeep.span,
            `the limit is ${MAX_NESTING} levels (a chain of \`+\`, \`-\` or \`*\` counts one level per operator; \`and\`/\`or\` chains count once); move inner parts into defs`);
        } else decls.push(d);
      } catch {
        // INVARIANT: an error-free CST always converts; keep going if it ever does not.
        diag("RW1004", `could not read this \`${kw}\` declaration`, tokSpan(chunk[0]!), DECL_SHAPES[kw]);
      }
      for (const p of problems) diag(p.code, p.message, p.span, p.help);
      continue;
    }
    const seen = new Set<string>();
    for (const e of parser.errors) {
      const t = e.token;
      const atEnd = t.tokenType === EOF || Number.isNaN(t.startOffset) || t.startLine === undefined;
      const span = atEnd ? pointAfter(chunk[chunk.length - 1]!) : tokSpan(t);
      const key = `${span.line}:${span.column}`;
      if (seen.has(key) || (!atEnd && afterDropped.has(t.startOffset))) continue;
      seen.add(key);
      const code = e.name === "MismatchedTokenException" ? "RW1003" : e.name === "NotAllInputParsedException" ? "RW1005" : "RW1004";
      const message = e.message.replace("end of declaration", endWord);
      const help = code === "RW1005" ? `is an operator missing before ${showTok(t)}? otherwise remove it; ${DECL_SHAPES[kw]}` : constructHelp(e.context?.ruleStack) ?? DECL_SHAPES[kw];
      diag(code, message, span, help);
    }
  }
  return { ast: { file, decls }, diagnostics };
}

/** The innermost construct with a shape of its own, shown as the help of an error inside it (the declaration's shape otherwise). */
const CONSTRUCT_SHAPES: Record<string, string> = {
  reachableExpr: "`reachable` reads `reachable(<route>(<arguments>), <from>, <to>)`: the route's arguments close with their own `)` before `, <from>`; is a `)` missing?",
  ifExpr: "an `if` reads `if <condition> then <value> else <value>` (all three parts)",
  quantExpr: "a quantifier reads `some x in <domain>: <condition>` or `every x in <domain>: <condition>`",
  aggExpr: "an aggregate reads `sum(x in <domain> [where <condition>]: <int>)` (or `max`, `min`); two numbers: `max(a, b)`, `min(a, b)`",
  countExpr: "`count` reads `count(x in <domain> [where <condition>])` or `count(<list>)`",
};

function constructHelp(ruleStack: string[] | undefined): string | undefined {
  for (let i = (ruleStack?.length ?? 0) - 1; i >= 0; i--) {
    const h = CONSTRUCT_SHAPES[ruleStack![i]!];
    if (h) return h;
  }
  return undefined;
}

function showTok(t: IToken): string {
  return t.tokenType === EOF ? "the end" : `\`${t.image}\``;
}

function joinTok(a: IToken, b: IToken): Span {
  const s = tokSpan(a);
  const e = tokSpan(b);
  return { line: s.line, column: s.column, endLine: e.endLine, endColumn: e.endColumn };
}
