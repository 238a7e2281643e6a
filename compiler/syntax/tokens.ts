/**
 * Tokens of the rules language (dsl/README.md, "Lexical structure").
 * Every token has a label so parser messages read `'when'`, not `When`.
 */
import { createToken, Lexer, type TokenType } from "chevrotain";

/** Category shared by identifiers and keywords: rule-id parts may be any word (`state.x`). */
export const AnyName = createToken({ name: "AnyName", pattern: Lexer.NA, label: "a name" });

export const WhiteSpace = createToken({ name: "WhiteSpace", pattern: /[ \t\r\n\f\uFEFF]+/, group: Lexer.SKIPPED });
/** `//` to the end of the line (LF, CRLF or a lone CR: the line ends the lexer counts). */
export const Comment = createToken({ name: "Comment", pattern: /\/\/[^\n\r]*/, group: Lexer.SKIPPED });

/** The longest identifier accepted (RW1008 above it): names are read, compared and suggested in time linear in their length. */
export const MAX_IDENT_LENGTH = 256;

export const Ident = createToken({
  name: "Ident",
  pattern: /[A-Za-z_][A-Za-z0-9_]*/,
  label: "identifier",
  categories: [AnyName],
});

export const KEYWORDS = [
  "edition", "cites", "schema", "board", "enum", "action", "actor", "def", "route", "land", "sea",
  "port", "max_seas", "max_steps", "passes", "rule", "forbid", "oblige", "when", "during", "exempt", "lifts",
  "invariant", "some", "every", "in", "not", "and", "or", "implies", "if", "then", "else", "true",
  "false", "state", "count", "sum", "max", "min", "sum_highest", "reachable", "where", "bool",
  "int", "string", "list", "module", "import", "extends", "override", "remove",
  "table", "decline", "unless",
] as const;
export type Keyword = (typeof KEYWORDS)[number];

/** Keyword token types by spelling. */
export const KW = {} as Record<Keyword, TokenType>;
for (const k of KEYWORDS) {
  const name = "Kw_" + k;
  KW[k] = createToken({
    name,
    pattern: new RegExp(k),
    longer_alt: Ident,
    label: `'${k}'`,
    categories: [AnyName],
  });
}

/** The keywords that start a declaration: the parser re-synchronizes on them. */
export const DECL_KEYWORDS: Keyword[] = [
  "edition", "schema", "board", "enum", "action", "def", "route", "rule", "exempt", "invariant",
  "module", "import", "override", "remove", "table", "decline",
];

export const Section = createToken({
  name: "Section",
  pattern: /§[0-9]+(?:\.[0-9]+)*/,
  start_chars_hint: ["§"],
  label: "a section like `§9.6`",
});
/** A named section, for sources without numbers: `§"Spring Deployment Procedure, step 6"`. */
export const NamedSection = createToken({
  name: "NamedSection",
  pattern: /§"(?:[^"\\\n\r]|\\["\\])*"/,
  start_chars_hint: ["§"],
  label: 'a named section like `§"Action Phase"`',
});
/** Matched only when Section and NamedSection fail: reported as a malformed section and dropped. */
export const BadSection = createToken({ name: "BadSection", pattern: /§/, label: "a section" });
export const IntLit = createToken({ name: "IntLit", pattern: /[0-9]+/, label: "an integer" });
export const StringLit = createToken({
  name: "StringLit",
  pattern: /"(?:[^"\\\n\r]|\\["\\])*"/,
  label: "a string",
});
/** Matched only when StringLit fails: reported as an unterminated string and dropped. */
export const BadString = createToken({ name: "BadString", pattern: /"[^\n\r]*/, label: "a string" });

export const Le = createToken({ name: "Le", pattern: /<=/, label: "'<='" });
export const Ge = createToken({ name: "Ge", pattern: />=/, label: "'>='" });
export const Neq = createToken({ name: "Neq", pattern: /!=/, label: "'!='" });
export const Lt = createToken({ name: "Lt", pattern: /</, label: "'<'" });
export const Gt = createToken({ name: "Gt", pattern: />/, label: "'>'" });
export const Eq = createToken({ name: "Eq", pattern: /=/, label: "'='" });
export const Colon = createToken({ name: "Colon", pattern: /:/, label: "':'" });
export const Comma = createToken({ name: "Comma", pattern: /,/, label: "','" });
/** `..` of an integer range (`5..6`, `int in 2..12`): the longer alternative of `.`. */
export const DotDot = createToken({ name: "DotDot", pattern: /\.\./, label: "'..'" });
export const Dot = createToken({ name: "Dot", pattern: /\./, label: "'.'", longer_alt: DotDot });
export const LParen = createToken({ name: "LParen", pattern: /\(/, label: "'('" });
export const RParen = createToken({ name: "RParen", pattern: /\)/, label: "')'" });
export const LBrace = createToken({ name: "LBrace", pattern: /\{/, label: "'{'" });
export const RBrace = createToken({ name: "RBrace", pattern: /\}/, label: "'}'" });
export const LBracket = createToken({ name: "LBracket", pattern: /\[/, label: "'['" });
export const RBracket = createToken({ name: "RBracket", pattern: /\]/, label: "']'" });
export const Plus = createToken({ name: "Plus", pattern: /\+/, label: "'+'" });
export const Minus = createToken({ name: "Minus", pattern: /-/, label: "'-'" });
export const Star = createToken({ name: "Star", pattern: /\*/, label: "'*'" });
/** Integer division `a / 2` (rounds down); `//` starts a comment (Comment is tried first). */
export const Slash = createToken({ name: "Slash", pattern: /\//, label: "'/'" });
/** Starts an annotation of a rule or exemption: `@severity redundant_rule off "why"`. */
export const At = createToken({ name: "At", pattern: /@/, label: "'@'" });

// Longer keywords first: chevrotain takes the first matching pattern (`int` before `in`,
// `max_seas` before `max`); longer_alt turns `integer` or `maxi` into identifiers.
const keywordTokens = [...KEYWORDS].sort((a, b) => b.length - a.length).map((k) => KW[k]);

export const allTokens: TokenType[] = [
  WhiteSpace, Comment, AnyName,
  ...keywordTokens,
  Ident, Section, NamedSection, BadSection, IntLit, StringLit, BadString,
  Le, Ge, Neq, Lt, Gt, Eq, Colon, Comma, Dot, LParen, RParen, LBrace, RBrace, LBracket, RBracket,
  Plus, Minus, Star, Slash, At,
  DotDot,
];

export const RulesLexer = new Lexer(allTokens, { positionTracking: "full", ensureOptimizations: false });
