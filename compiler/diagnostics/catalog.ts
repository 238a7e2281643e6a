/**
 * The closed catalog of diagnostic codes. A phase may only report a code listed here
 * (test/check/check.test.ts asserts it). RW1xxx syntax, RW2xxx names and declarations, RW3xxx types,
 * RW4xxx schema, board and input files, RW5xxx coverage manifests.
 */
import type { Severity } from "./types.js";

export interface CatalogEntry {
  severity: Severity;
  summary: string;
}

export const CATALOG = {
  // syntax
  RW1001: { severity: "error", summary: "unexpected character" },
  RW1002: { severity: "error", summary: "unterminated string" },
  RW1003: { severity: "error", summary: "expected a specific token" },
  RW1004: { severity: "error", summary: "expected one of several constructs (an expression, a type, …)" },
  RW1005: { severity: "error", summary: "input outside of a declaration" },
  RW1006: { severity: "error", summary: "rule id contains spaces" },
  RW1008: { severity: "error", summary: "identifier longer than the limit (256 characters)" },
  RW1007: { severity: "error", summary: "expression nested deeper than the limit (brackets, `if`, quantifiers, operator chains)" },
  RW1101: { severity: "error", summary: "`§` not followed by a section number or a quoted section name" },
  RW1102: { severity: "error", summary: "two citations for one game key" },

  // names and declarations
  RW2001: { severity: "error", summary: "unknown state or record field" },
  RW2002: { severity: "error", summary: "unknown name (variable, parameter or enum member)" },
  RW2003: { severity: "error", summary: "unknown type or enum" },
  RW2004: { severity: "error", summary: "unknown member of a named enum (`E.member`)" },
  RW2005: { severity: "error", summary: "unknown def or board builtin" },
  RW2006: { severity: "error", summary: "unknown route" },
  RW2007: { severity: "error", summary: "unknown action" },
  RW2008: { severity: "error", summary: "exemption lifts an unknown rule id" },
  RW2009: { severity: "error", summary: "duplicate declaration name (enum, action, def, route, member, parameter)" },
  RW2010: { severity: "error", summary: "duplicate rule, exemption or invariant id" },
  RW2011: { severity: "error", summary: "ambiguous enum member" },
  RW2012: { severity: "error", summary: "exemption reads an action parameter that a lifted rule's action lacks" },
  RW2013: { severity: "error", summary: "recursive def" },
  RW2014: { severity: "error", summary: "misplaced or repeated `actor` parameter" },
  RW2015: { severity: "error", summary: "missing or repeated edition, schema or board declaration" },
  RW2016: { severity: "error", summary: "bad subset enum (unknown base, or member not in the base)" },
  RW2017: { severity: "error", summary: "an `oblige` that names no one move (values missing, repeated, for the actor or a list, or reading the move)" },
  RW2018: { severity: "error", summary: "`during` scope not backed by enums Phase/Segment and state fields phase/segment" },
  RW2019: { severity: "error", summary: "`enum Space` declared in a rule file (Space comes from the board)" },
  RW2020: { severity: "error", summary: "a name used in the wrong role (a route, domain or enum used as a value, …)" },
  RW2021: { severity: "warning", summary: "exemption lifts no rule" },
  RW2022: { severity: "error", summary: "bad `decline` declaration (unknown action or phase, an action with choices, a second one for a phase)" },
  RW2023: { severity: "warning", summary: "a phase with moves of a power but no `decline` move" },
  // tables (RW22xx, RW31xx)
  RW2201: { severity: "error", summary: "bad table declaration (parameter or result type, empty range, pattern count, no rows)" },
  RW2202: { severity: "error", summary: "a table's key or row condition reads the state, a route or a table" },
  // annotations (a block of its own, RW205x)
  RW2050: { severity: "error", summary: "unknown annotation" },
  RW2051: { severity: "error", summary: "bad `@severity` annotation (unknown analysis or level, or one that does not apply here)" },
  RW2052: { severity: "error", summary: "the same analysis given two severities" },

  // modules and variant editions (dsl/README.md, "Modules and variant editions")
  RW2101: { severity: "error", summary: "unknown module (no folder dsl/modules/<name>/ with a `module` declaration)" },
  RW2102: { severity: "error", summary: "unknown parent edition in `extends`" },
  RW2103: { severity: "error", summary: "cycle in `extends`" },
  RW2104: { severity: "error", summary: "`override rule` or `remove rule` of an id the parent edition does not have" },
  RW2105: { severity: "error", summary: "rule or exemption without a citation for the edition's `cites` key" },
  RW2106: { severity: "error", summary: "rule id defined again by a variant or a second module (a variant writes `override rule`)" },
  RW2107: { severity: "error", summary: "declaration not allowed here (in a module, or `override`/`remove` outside a variant)" },
  RW2108: { severity: "error", summary: "missing, repeated or misnamed `module` declaration" },
  RW2109: { severity: "error", summary: "citation without a game key in a module" },
  RW2110: { severity: "warning", summary: "module imported twice" },
  RW2111: { severity: "error", summary: "one rule overridden or removed twice by the same edition" },

  // types
  RW3001: { severity: "error", summary: "type mismatch" },
  RW3002: { severity: "error", summary: "operator applied to operands of the wrong type" },
  RW3003: { severity: "error", summary: "wrong number of arguments" },
  RW3004: { severity: "error", summary: "not a domain (enum, list or board collection)" },
  RW3005: { severity: "error", summary: "`in` with something that is not a set or a list" },
  RW3006: { severity: "error", summary: "comparison of incompatible types" },
  RW3007: { severity: "error", summary: "map indexed by a key of the wrong enum" },
  RW3008: { severity: "error", summary: "field access on a non-record or lookup on a non-map" },
  RW3009: { severity: "error", summary: "bad aggregate argument (`sum_highest` count)" },
  RW3010: { severity: "warning", summary: "`distance` between two literal spaces that no path on the board joins" },
  RW3011: { severity: "error", summary: "`/` with a divisor that is not a positive integer literal" },
  RW3101: { severity: "error", summary: "table key of a non-scalar type" },
  RW3102: { severity: "error", summary: "table row pattern or value that does not fit the key or result type" },
  RW3103: { severity: "error", summary: "table call whose argument may lie outside the table's declared domain" },
  RW3104: { severity: "error", summary: "record-valued table used without picking a field" },
  RW3105: { severity: "error", summary: "integer outside the safe range ±(2^53−1) (a literal, a table range, a schema bound)" },
  RW3106: { severity: "error", summary: "arithmetic whose result may lie outside the safe range ±(2^53−1)" },

  // schema, board, files
  RW4001: { severity: "error", summary: "cannot read an input file or folder" },
  RW4002: { severity: "error", summary: "invalid JSON" },
  RW4003: { severity: "error", summary: "unsupported JSON Schema construct" },
  RW4004: { severity: "warning", summary: "list without `maxItems` (bounded to 8)" },
  RW4005: { severity: "error", summary: "schema enum and rule-file enum differ" },
  RW4006: { severity: "error", summary: "unresolved `$ref` or schema enum not declared in the rule files" },
  RW4007: { severity: "error", summary: "board does not have the board shape" },
  RW4008: { severity: "error", summary: "inconsistent board (duplicate id, unknown space, unknown home power)" },
  RW4009: { severity: "error", summary: "schema `$defs.Space` does not match the board" },
  RW4010: { severity: "error", summary: "record or map schema not closed (`required`, `additionalProperties`)" },
  RW4011: { severity: "error", summary: "unsafe edition folder or rule file name (control character, line break, space, …)" },
  RW4012: { severity: "error", summary: "a file named by an input (schema, board, fixture) or a folder it reaches (module, parent edition) lies outside its folder (absolute path, `..`, symbolic link)" },
  RW4013: { severity: "error", summary: "an input file that is not a regular file, or larger than the limit (16 MB)" },

  // coverage manifests (dsl/coverage/*.yaml)
  RW5001: { severity: "error", summary: "coverage manifest is not valid YAML" },
  RW5002: { severity: "error", summary: "coverage manifest has the wrong shape (missing or unknown key, bad entry)" },
  RW5003: { severity: "error", summary: "paragraph number beyond the end of the source" },
  RW5004: { severity: "error", summary: "paragraphs of the source not listed in its manifest" },
  RW5005: { severity: "error", summary: "paragraph listed twice" },
  RW5006: { severity: "error", summary: "unknown rule id for the manifest's edition" },
  RW5007: { severity: "error", summary: "rule referenced by no paragraph and not marked implied (orphan)" },
  RW5008: { severity: "error", summary: "source file changed since the manifest was written (sha256)" },
  RW5009: { severity: "error", summary: "source file missing, or covered by two manifests" },
  RW5010: { severity: "error", summary: "manifest names rules of an edition that is not bundled" },
  RW5011: { severity: "warning", summary: "no rule of an edition is referenced by its manifests yet (orphans not checked)" },
  RW5012: { severity: "error", summary: "coverage manifest has a bad audit mark (`audited`: shape, `compared`, scenario references)" },
  RW5013: { severity: "error", summary: "audit mark names a scenario file or scenario that does not exist" },
  RW5014: { severity: "error", summary: "audit mark's scenarios survive the removal of a rule it claims (coverage --verify-audit)" },
  RW5015: { severity: "warning", summary: "citation of a section beyond the sources' section index (e.g. `§99.9`)" },
} as const satisfies Record<string, CatalogEntry>;

export type DiagnosticCode = keyof typeof CATALOG;

export function isKnownCode(code: string): code is DiagnosticCode {
  return Object.prototype.hasOwnProperty.call(CATALOG, code);
}
