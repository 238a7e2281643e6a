/**
 * The domain's words for readings (issue 25): what a def, a state field, a route, a table, an
 * action parameter or a listed thing is called, kept beside the rules in a `phrases.json` per
 * edition or module folder (dsl/README.md, "Phrases"). The checker never reads these files: a
 * phrase changes a reading, never a verdict or a generated file.
 *
 * A phrase is a template: `{name}` is replaced by the reading of the def's (route's, table's)
 * argument of that name, `{of}` by the reading of the record a field belongs to (the space of
 * `state.spaces[s].unrest`), `{key}` by the key of a map lookup (the power of `state.hands[p]`).
 * A true/false phrase may give its negation (`{ "is": "…", "not": "…" }`), read for `not …`.
 * A route phrase may hold `{?param:words}` or `{?param:words|else}`: the words when that bool
 * argument is the literal `true`, the else-words (or nothing) for `false`, and otherwise the words
 * with "if <the argument>" (and "(otherwise <else>)").
 */
import fs from "node:fs";
import path from "node:path";
import { editionFolder, type IREdition } from "../ir/types.js";

/** A phrase: a template, or a true/false template with its negation. */
export type Phrase = string | { is: string; not?: string };

/** The phrases of an edition (merged from its modules, its ancestors and its own folder). */
export interface Phrases {
  /** def name → phrase over its parameters (`{a} is allied with {b}`) */
  defs: Record<string, Phrase>;
  /**
   * field → phrase: a state field by name (`schmalkaldic_league_played`, `hands` with `{key}`), a
   * field of a map's records by `map.field` (`spaces.unrest` with `{of}` the space), a field of a
   * named record type by `Type.field` (`Card.home`)
   */
  fields: Record<string, Phrase>;
  /** what one element is called: a list field (`alliances` → "alliance"), a record type or an enum by name */
  nouns: Record<string, string>;
  /** `action.param` → noun phrase (`spend_cp.on` → "the action the CP are spent on") */
  params: Record<string, string>;
  /** route name → phrase over `{from}`, `{to}` and its parameters */
  routes: Record<string, string>;
  /** table name, or `table.field` for a field of a record result → phrase over its parameters */
  tables: Record<string, Phrase>;
  /** action name → its name in words (`spend_cp` → "spend CP") */
  actions: Record<string, string>;
  /** enum member (`Base.member` first, then the bare member) or space id → its printed name (`hungary_bohemia` → "Hungary-Bohemia") */
  names: Record<string, string>;
}

/** No phrases: every reading falls back to the names' words. */
export function emptyPhrases(): Phrases {
  return { defs: {}, fields: {}, nouns: {}, params: {}, routes: {}, tables: {}, actions: {}, names: {} };
}

const KINDS = ["defs", "fields", "nouns", "params", "routes", "tables", "actions", "names"] as const;

/** The file name of a folder's phrases. */
export const PHRASES_FILE = "phrases.json";

/**
 * The folders whose `phrases.json` an edition reads, in merge order (a later one wins): the
 * modules' folders, then the edition's ancestors from the root, then its own. From the IR's
 * input files (paths relative to the project root).
 */
export function phraseFolders(ir: Pick<IREdition, "inputs" | "name" | "folder" | "parent">): string[] {
  const dirs = [...new Set(ir.inputs.filter((i) => i.file.endsWith(".rules")).map((i) => path.posix.dirname(i.file)))].sort();
  const modules = dirs.filter((d) => /(^|\/)modules\//.test(d));
  const own = dirs.find((d) => path.posix.basename(d) === editionFolder(ir) && !modules.includes(d));
  const parent = ir.parent === undefined ? undefined : dirs.find((d) => path.posix.basename(d) === ir.parent && !modules.includes(d));
  // the editions further up the chain (a parent's parent) first, then the parent, then the edition itself
  const further = dirs.filter((d) => !modules.includes(d) && d !== own && d !== parent);
  return [...modules, ...further, ...(parent ? [parent] : []), ...(own ? [own] : [])];
}

/**
 * The merged phrases of an edition, read from `<root>/<folder>/phrases.json` for each folder of
 * `phraseFolders`. A missing file is no phrases; a malformed one throws a `PhrasesError` naming
 * the file, line, column and entry.
 */
export function readPhrases(ir: Pick<IREdition, "inputs" | "name" | "folder" | "parent">, root: string): Phrases {
  const out = emptyPhrases();
  for (const dir of phraseFolders(ir)) {
    const file = path.join(root, dir, PHRASES_FILE);
    if (!fs.existsSync(file)) continue;
    mergePhrases(out, parsePhrases(fs.readFileSync(file, "utf8"), path.posix.join(dir, PHRASES_FILE)));
  }
  return out;
}

/** Merge `more` into `into` (its entries win). */
export function mergePhrases(into: Phrases, more: Partial<Phrases>): Phrases {
  for (const k of KINDS) Object.assign(into[k], more[k] ?? {});
  return into;
}

/** A malformed phrases file: the message starts with `<file>:<line>:<column>:`. */
export class PhrasesError extends Error {
  readonly hint = 'a phrases.json holds sections (defs, fields, nouns, params, routes, tables, actions, names), each an object of strings or { "is": "…", "not": "…" } (dsl/README.md, "Phrases")';
}

/** 1-based line and column of an offset of a text. */
function lineCol(text: string, offset: number): string {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split("\n").length;
  return `${line}:${offset - before.lastIndexOf("\n")}`;
}

/**
 * A phrases file's JSON, checked: each section an object of strings (or `{ is, not }` for defs,
 * fields, tables). Errors: `PhrasesError` naming `file:line:column` and the entry.
 */
export function parsePhrases(text: string, file: string): Partial<Phrases> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    const at = /position (\d+)/.exec((e as Error).message);
    throw new PhrasesError(`${file}:${at ? lineCol(text, Number(at[1])) : "1:1"}: not JSON (${(e as Error).message})`);
  }
  const where = (key: string) => `${file}:${lineCol(text, Math.max(0, text.indexOf(JSON.stringify(key))))}`;
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new PhrasesError(`${file}:1:1: must hold a JSON object`);
  const out: Partial<Phrases> = {};
  for (const [kind, entries] of Object.entries(v as Record<string, unknown>)) {
    if (kind.startsWith("$")) continue; // $comment
    if (!(KINDS as readonly string[]).includes(kind)) throw new PhrasesError(`${where(kind)}: unknown section "${kind}" (expected one of ${KINDS.join(", ")})`);
    if (!entries || typeof entries !== "object" || Array.isArray(entries)) throw new PhrasesError(`${where(kind)}: "${kind}" must be an object`);
    const withNot = kind === "defs" || kind === "fields" || kind === "tables";
    for (const [name, p] of Object.entries(entries as Record<string, unknown>)) {
      const ok = typeof p === "string" || (withNot && !!p && typeof p === "object" && typeof (p as { is?: unknown }).is === "string" && ["undefined", "string"].includes(typeof (p as { not?: unknown }).not));
      if (!ok) throw new PhrasesError(`${where(name)}: ${kind}.${name} must be a string${withNot ? ' or { "is": "…", "not": "…" }' : ""}`);
    }
    (out as Record<string, unknown>)[kind] = entries;
  }
  return out;
}

/** The positive template of a phrase. */
export function positive(p: Phrase): string {
  return typeof p === "string" ? p : p.is;
}

/** The negated template of a phrase, when it gives one. */
export function negative(p: Phrase): string | undefined {
  return typeof p === "string" ? undefined : p.not;
}

/**
 * Fill a template: `{name}` from `args` (a missing one stays as "?"), `{?name:yes|no}` by the
 * literal truth of `flags[name]` (true: yes; false: no, or nothing; otherwise yes + " if " +
 * `conds[name]` + " (otherwise no)").
 */
export function fillPhrase(tpl: string, args: Record<string, string>, flags: Record<string, boolean | undefined> = {}, conds: Record<string, string> = {}): string {
  const withFlags = tpl.replace(/\{\?(\w+):([^}]*)\}/g, (_, n: string, text: string) => {
    const [yes, no = ""] = text.split("|") as [string, string?];
    const f = flags[n];
    if (f === true) return yes;
    if (f === false) return no;
    if (conds[n] === undefined) return yes;
    return `${yes} if ${conds[n]}${no.trim() ? ` (otherwise ${no.trim()})` : ""}`;
  });
  return withFlags.replace(/\{(\w+)\}/g, (_, n: string) => args[n] ?? "?").replace(/\s+,/g, ",").replace(/ {2,}/g, " ").trim();
}
