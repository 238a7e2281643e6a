/**
 * Rename (and prepareRename): every occurrence of the name in the rule files of the editions the
 * file belongs to; a state field's key in the schema (and in `required`), an enum member in the
 * schema's `enum` lists; a rule id also in the scenario files (test/scenarios/<edition>/) and
 * coverage manifests (dsl/coverage/). Refused, with the reason as an Error (the server answers it
 * as an error), for a name that is not an identifier, a name already in use where it would clash,
 * a board space, and a state field or enum member that scenario, fixture or conformance files name
 * (rename does not rewrite data).
 */
import fs from "node:fs";
import path from "node:path";
import { editionLayout } from "../check/editions.js";
import type { Span } from "../diagnostics/types.js";
import { KEYWORDS } from "../syntax/tokens.js";
import type { FeatureContext } from "./context.js";
import { occurrencesOf } from "./navigation.js";
import type { EditionIndex, Occurrence } from "./symbols.js";

/** The edits of a rename: per file (absolute path, in the order first edited), the spans to write `newText` over. */
export type RenameEdits = Map<string, { span: Span; newText: string }[]>;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The range of the name at the position when it can be renamed, else null. Throws an Error
 * with the reason (the server answers it as an error) when the name is one that rename
 * refuses: a board space, or a state field or enum member that scenario, fixture or
 * conformance files name (see `dataUses`).
 */
export function prepareRename(ctx: FeatureContext, file: string, line: number, column: number): Span | null {
  const hit = ctx.at(file, line, column)[0];
  if (!hit || (hit.occ.kind === "member" && hit.occ.key.startsWith("member:Space."))) return null;
  refuseDataUses(ctx, hit.occ, ctx.indexesOf(file));
  return hit.occ.span;
}

/**
 * Renames the symbol at the position across the editions the file belongs to: every occurrence
 * in the rule files; for a state field also its key in the schema (and in `required`); for an
 * enum member also the schema's `enum` lists; for a rule id also the scenario files
 * (test/scenarios/<edition>/) and coverage manifests (dsl/coverage/) that name it.
 * Throws an Error with a message (the server answers it as an error) for a name that is not an
 * identifier (a rule id: dotted), for a name already in use where the new name would clash (a
 * rule, exemption or invariant id; a def, table, route, action or enum name; a member of any
 * enum; a field of the same record; a parameter of the same declaration), and for a state field
 * or enum member that scenario, fixture or conformance files name (rename does not rewrite the
 * states and actions written there, so it refuses rather than leave them failing).
 */
export function rename(ctx: FeatureContext, file: string, line: number, column: number, newName: string): RenameEdits | null {
  const hit = ctx.at(file, line, column)[0];
  if (!hit) return null;
  const { occ } = hit;
  const ok = occ.kind === "rule" || occ.kind === "exempt" || occ.kind === "invariant" ? /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/ : /^[A-Za-z_][A-Za-z0-9_]*$/;
  if (!ok.test(newName) || (KEYWORDS as readonly string[]).includes(newName)) throw new Error(`\`${newName}\` is not a valid ${occ.kind} name`);
  if (occ.key.startsWith("member:Space.")) throw new Error("board spaces are renamed in board.json, not in the rule files");
  const editions = ctx.indexesOf(file);
  if (newName !== occ.name) {
    const clash = nameInUse(editions, occ, newName);
    if (clash) throw new Error(`\`${newName}\` is already ${clash}: renaming ${occ.kind} \`${occ.name}\` to it would make the two one name`);
  }
  refuseDataUses(ctx, occ, editions);
  const changes: RenameEdits = new Map();
  const edit = (f: string, span: Span, text: string) => {
    changes.set(f, [...(changes.get(f) ?? []), { span, newText: text }]);
  };
  const occs = occurrencesOf(ctx, file, line, column, true);
  for (const o of occs) {
    if (o.file.endsWith(".json")) continue; // schema / board definitions: below
    edit(o.file, o.span, newName);
  }
  if (occ.kind === "field") renameInSchema(editions, occ.key.slice("field:".length), occ.name, newName, edit, "field");
  if (occ.kind === "member") {
    const root = occ.key.slice("member:".length).split(".")[0]!;
    renameInSchema(editions, root, occ.name, newName, edit, "member");
  }
  if (occ.kind === "rule") {
    const re = new RegExp(`(?<![A-Za-z0-9_.])${escapeRe(occ.name)}(?![A-Za-z0-9_.])`, "g");
    const dirs = new Set<string>();
    for (const idx of editions) {
      dirs.add(path.join(ctx.project.root, editionLayout(path.basename(idx.dir)).scenarios));
      const dslRoot = ctx.project.dslRootOf(idx.files[0] ?? idx.dir);
      if (dslRoot) dirs.add(path.join(dslRoot, "coverage"));
    }
    for (const dir of dirs) {
      for (const f of listFiles(dir, /\.ya?ml$/)) {
        const lines = (fs.readFileSync(f, "utf8")).split("\n");
        lines.forEach((l, i) => {
          for (const m of l.matchAll(re)) edit(f, { line: i + 1, column: m.index! + 1, endLine: i + 1, endColumn: m.index! + 1 + occ.name.length }, newName);
        });
      }
    }
  }
  return changes;
}

/**
 * The scenario, fixture and conformance files (YAML and JSON, comments left out) that name a
 * state field or enum member as a whole word: test/scenarios/<edition folder>/,
 * test/fixtures/<edition folder>/ and conformance/<edition folder>/ of every edition involved,
 * under the project root. Absolute paths, sorted; [] for other kinds of names.
 */
export function dataUses(ctx: FeatureContext, occ: Occurrence, editions: EditionIndex[]): string[] {
  if (occ.kind !== "field" && occ.kind !== "member") return [];
  const re = new RegExp(`(?<![A-Za-z0-9_])${escapeRe(occ.name)}(?![A-Za-z0-9_])`);
  const dirs = new Set<string>();
  for (const idx of editions) {
    const layout = editionLayout(path.basename(idx.dir));
    for (const rel of [layout.scenarios, layout.fixtures, layout.conformance]) dirs.add(path.join(ctx.project.root, rel));
  }
  const out: string[] = [];
  for (const dir of dirs) {
    for (const f of listFiles(dir, /\.(ya?ml|json)$/)) {
      let text: string;
      try {
        text = fs.readFileSync(f, "utf8");
      } catch {
        continue;
      }
      const yaml = /\.ya?ml$/.test(f);
      if (text.split(/\r\n|\r|\n/).some((l) => re.test(yaml ? l.replace(/(^|\s)#.*$/, "") : l))) out.push(f);
    }
  }
  return out.sort();
}

function refuseDataUses(ctx: FeatureContext, occ: Occurrence, editions: EditionIndex[]): void {
  const uses = dataUses(ctx, occ, editions);
  if (!uses.length) return;
  const shown = uses.slice(0, 3).map((f) => ctx.project.rel(f)).join(", ");
  const what = occ.kind === "field" ? "state field" : "enum member";
  throw new Error(
    `cannot rename the ${what} \`${occ.name}\`: ${uses.length} scenario, fixture or conformance file${uses.length === 1 ? "" : "s"} name${uses.length === 1 ? "s" : ""} it (${shown}${uses.length > 3 ? `, and ${uses.length - 3} more` : ""}), and rename does not rewrite the states and actions written there — they would fail. Rename it in those files too (by hand), or pick a ${what} no data names`,
  );
}

function renameInSchema(editions: EditionIndex[], target: string, oldName: string, newName: string, edit: (f: string, s: Span, t: string) => void, what: "field" | "member"): void {
  const done = new Set<string>();
  for (const idx of editions) {
    const schema = idx.schema;
    if (!schema || done.has(schema.file)) continue;
    done.add(schema.file);
    let text: string;
    try {
      text = fs.readFileSync(schema.file, "utf8");
    } catch {
      continue;
    }
    const lines = text.split("\n");
    const quoted = `"${oldName}"`;
    const at = (line: number, from = 0): Span | undefined => {
      const col = (lines[line - 1] ?? "").indexOf(quoted, from);
      return col < 0 ? undefined : { line, column: col + 2, endLine: line, endColumn: col + 2 + oldName.length };
    };
    if (what === "field") {
      // the property key is on the line where its value starts
      const key = at(schema.spanOf(target).line);
      if (key) edit(schema.file, key, newName);
      const recPtr = target.replace(/\/properties\/[^/]+$/, "");
      for (let i = 0; i < 4096; i++) {
        const p = `${recPtr}/required/${i}`;
        const s = schema.spanOf(p);
        if (s.line === 1 && s.column === 1) break;
        const k = at(s.line, s.column - 1);
        if (k && k.column - 1 === s.column) edit(schema.file, k, newName);
      }
    } else {
      // every $defs enum that is the member's root or a subset of it
      const names = [...idx.enums.values()].filter((e) => (e.name === target || e.base !== undefined) && e.members.includes(oldName)).map((e) => e.name);
      for (const n of names) {
        for (let i = 0; i < 4096; i++) {
          const s = schema.spanOf(`/$defs/${n}/enum/${i}`);
          if (s.line === 1 && s.column === 1) break;
          const k = at(s.line, s.column - 1);
          if (k && k.column - 1 === s.column) edit(schema.file, k, newName);
        }
      }
    }
  }
}


/**
 * What `newName` already names where renaming `occ` to it would clash, in words ("the def
 * `x`"), or undefined: rule, exemption and invariant ids share one namespace; defs, tables,
 * routes, actions and enums another; enum members are written bare, so a member clashes with a
 * member of any enum; a field with a field of the same record; a parameter with a parameter of
 * the same declaration.
 */
export function nameInUse(editions: EditionIndex[], occ: Occurrence, newName: string): string | undefined {
  for (const idx of editions) {
    switch (occ.kind) {
      case "rule": case "exempt": case "invariant": {
        for (const k of ["rule", "exempt", "invariant"]) if (idx.defs.has(`${k}:${newName}`)) return `the id of ${k === "exempt" ? "an exemption" : `a${k === "invariant" ? "n" : ""} ${k}`}`;
        if (idx.occurrences.some((o) => o.kind === "rule" && o.name === newName)) return "the id of a rule";
        break;
      }
      case "def": case "table": case "route": case "action": case "enum": {
        for (const k of ["def", "table", "route", "action", "enum"]) if (idx.defs.has(`${k}:${newName}`) || (k === "enum" && idx.enums.has(newName))) return `the name of ${k === "enum" || k === "action" ? "an" : "a"} ${k}`;
        break;
      }
      case "member": {
        for (const e of idx.enums.values()) if (e.members.includes(newName)) return `a member of the enum \`${e.name}\``;
        break;
      }
      case "field": {
        const rec = occ.key.slice("field:".length).replace(/\/properties\/[^/]+$/, "");
        if (idx.defs.has(`field:${rec}/properties/${newName.replace(/~/g, "~0").replace(/\//g, "~1")}`) || schemaHasProperty(idx, rec, newName)) return "a field of the same record";
        break;
      }
      case "param": {
        const within = idx.defs.get(occ.key)?.within ?? occ.within;
        const d = idx.decls.find((x) => (x.decl.k === "action" || x.decl.k === "def" || x.decl.k === "table" || x.decl.k === "route") && x.decl.name.name === within);
        const params = d && "params" in d.decl ? (d.decl.params as { name: { name: string } }[]) : [];
        if (params.some((p) => p.name.name === newName)) return `a parameter of \`${within}\``;
        break;
      }
      default:
        break;
    }
  }
  return undefined;
}

/** Whether the schema's record at JSON pointer `rec` has a property `name`. */
function schemaHasProperty(idx: EditionIndex, rec: string, name: string): boolean {
  if (!idx.schema) return false;
  let node: unknown;
  try {
    node = JSON.parse(fs.readFileSync(idx.schema.file, "utf8"));
  } catch {
    return false;
  }
  for (const seg of rec.split("/").slice(1).map((x) => x.replace(/~1/g, "/").replace(/~0/g, "~"))) {
    if (!node || typeof node !== "object") return false;
    node = (node as Record<string, unknown>)[seg];
  }
  const props = node && typeof node === "object" ? (node as Record<string, unknown>).properties : undefined;
  return !!props && typeof props === "object" && Object.prototype.hasOwnProperty.call(props, name);
}

function listFiles(dir: string, re: RegExp): string[] {
  const out: string[] = [];
  let ents: fs.Dirent[];
  try {
    ents = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of ents) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p, re));
    else if (re.test(e.name)) out.push(p);
  }
  return out.sort();
}
