/**
 * Schema extensions (issue 28, dsl/README.md "Making a variant"): a variant's `schema` file may
 * be a small file over its parent's schema instead of a copy of it. Its root holds
 * `"extends": "parent"` and any of `properties` (new fields, or a parent's field narrowed: an
 * enum to a subset of its members, an integer to a range inside the parent's), `required` (added
 * to the parent's) and `$defs` (added, or replacing the parent's of the same name); nothing else.
 * The result is the parent's schema with these merged in: the state type, the generated types
 * and validators, the prover and the interpreter all see one schema. A new field with a
 * `default` keeps the parent's fixtures and scenarios valid: the engine fills missing fields
 * with their defaults before validating a state (compiler/engine/validate.ts `withStateDefaults`).
 */
import type { Checking } from "./context.js";
import type { DeclOf, Located } from "./env.js";
import { readJson, type JsonInput } from "./inputs.js";

/** The keys a schema extension's root may hold. */
const EXTENSION_KEYS = new Set(["extends", "properties", "required", "$defs", "$schema", "$comment", "title", "description"]);

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** Whether a schema file's JSON is an extension of the parent's (`"extends": "parent"` at its root). */
export function isSchemaExtension(json: unknown): boolean {
  return isObj(json) && "extends" in json;
}

/**
 * The edition's state schema: the nearest level's `schema` file, merged over its parent's
 * while it is an extension (RW4003 at the extension for a bad root, a field that widens its
 * parent's, or an extension in an edition that extends nothing). Every file read is an input.
 * @param nearest the `schema` declaration `findSingle` picked (the nearest level's)
 */
export function readStateSchema(c: Checking, nearest: Located<DeclOf<"schema">>): JsonInput | undefined {
  const first = readJson(c, nearest);
  if (!first || !isSchemaExtension(first.json)) return first;
  // the extensions from the nearest level up, then the first full schema above them
  const chain: JsonInput[] = [first];
  let levelIdx = c.asm.levels.findIndex((l) => l.folder === nearest.origin?.edition);
  for (;;) {
    const top = chain[chain.length - 1]!;
    const root = top.json as Record<string, unknown>;
    if (root.extends !== "parent") {
      c.r.report("RW4003", "a schema extension's `extends` is `\"parent\"`", top.file, top.positions.get("/extends") ?? { line: 1, column: 1, endLine: 1, endColumn: 2 }, 'write `"extends": "parent"`: the extension adds to the schema of the edition this one extends');
      return undefined;
    }
    const above = parentSchemaDecl(c, levelIdx);
    if (!above) {
      c.r.report("RW4003", "a schema extension in an edition without a parent schema", top.file, top.positions.get("/extends") ?? { line: 1, column: 1, endLine: 1, endColumn: 2 },
        "only a variant (`extends` in its edition declaration) extends a schema; write the whole schema here instead");
      return undefined;
    }
    levelIdx = above.levelIdx;
    const next = readJson(c, above.decl);
    if (!next) return undefined;
    if (!isSchemaExtension(next.json)) {
      let merged = next.json as Record<string, unknown>;
      for (const ext of chain.reverse()) {
        const m = mergeExtension(merged, ext, c);
        if (!m) return undefined;
        merged = m;
      }
      // positions: the nearest extension's (its new fields); a parent's field is shown at its file's first line
      return { json: merged, file: first.file, positions: first.positions };
    }
    chain.push(next);
  }
}

/** The `schema` declaration of the nearest level above level `idx` (ancestors first in `asm.levels`). */
function parentSchemaDecl(c: Checking, idx: number): { decl: Located<DeclOf<"schema">>; levelIdx: number } | undefined {
  for (let i = idx - 1; i >= 0; i--) {
    const folder = c.asm.levels[i]!.folder;
    const d = c.of("schema").find((x) => x.origin?.edition === folder);
    if (d) return { decl: d as Located<DeclOf<"schema">>, levelIdx: i };
  }
  return undefined;
}

/** The parent's schema with one extension merged in; undefined (reported) when the extension is malformed or widens a field. */
function mergeExtension(parent: Record<string, unknown>, ext: JsonInput, c: Checking): Record<string, unknown> | undefined {
  const root = ext.json as Record<string, unknown>;
  const report = (msg: string, ptr: string, help: string) => {
    c.r.report("RW4003", msg, ext.file, ext.positions.get(ptr) ?? { line: 1, column: 1, endLine: 1, endColumn: 2 }, help);
    return undefined;
  };
  for (const k of Object.keys(root)) {
    if (!EXTENSION_KEYS.has(k)) return report(`\`${k}\` is not allowed in a schema extension`, `/${k}`, "an extension holds `extends`, `properties`, `required` and `$defs`; the rest is the parent's");
  }
  if (root.properties !== undefined && !isObj(root.properties)) return report("`properties` must be an object", "/properties", "map each new or narrowed field to its schema");
  if (root.$defs !== undefined && !isObj(root.$defs)) return report("`$defs` must be an object", "/$defs", "map each name to a schema");
  if (root.required !== undefined && !(Array.isArray(root.required) && root.required.every((x) => typeof x === "string"))) return report("`required` must be a list of field names", "/required", 'e.g. `"required": ["war_weariness"]`');
  const parentProps = isObj(parent.properties) ? parent.properties : {};
  const parentDefs = isObj(parent.$defs) ? parent.$defs : {};
  for (const [name, s] of Object.entries((root.properties ?? {}) as Record<string, unknown>)) {
    const old = parentProps[name];
    if (old === undefined) continue;
    const widened = widens(resolveRef(old, parentDefs), resolveRef(s, { ...parentDefs, ...((root.$defs ?? {}) as Record<string, unknown>) }));
    if (widened) return report(`field \`${name}\` ${widened}: an extension adds fields or narrows the parent's`, `/properties/${name}`, "give a subset of the parent's enum members, or a range inside the parent's");
  }
  const { extends: _e, properties, required, $defs, ...rest } = root;
  void rest;
  return {
    ...parent,
    properties: { ...parentProps, ...((properties ?? {}) as Record<string, unknown>) },
    required: [...new Set([...((parent.required ?? []) as string[]), ...((required ?? []) as string[])])],
    ...(Object.keys(parentDefs).length || $defs ? { $defs: { ...parentDefs, ...(($defs ?? {}) as Record<string, unknown>) } } : {}),
  };
}

/** A `$ref: "#/$defs/X"` schema replaced by the definition it names (one level). */
function resolveRef(s: unknown, defs: Record<string, unknown>): unknown {
  if (isObj(s) && typeof s.$ref === "string" && s.$ref.startsWith("#/$defs/")) return defs[s.$ref.slice("#/$defs/".length)] ?? s;
  return s;
}

/** How `next` widens `old` (a member or a bound the parent does not allow), or undefined when it narrows it or is of another shape. */
function widens(old: unknown, next: unknown): string | undefined {
  if (!isObj(old) || !isObj(next)) return undefined;
  if (Array.isArray(old.enum) && Array.isArray(next.enum)) {
    const extra = next.enum.filter((m) => !(old.enum as unknown[]).includes(m));
    return extra.length ? `adds enum member${extra.length > 1 ? "s" : ""} ${extra.map((m) => `\`${String(m)}\``).join(", ")}` : undefined;
  }
  if (old.type === "integer" && next.type === "integer") {
    if (typeof old.minimum === "number" && (typeof next.minimum !== "number" || next.minimum < old.minimum)) return `lowers the minimum below ${old.minimum}`;
    if (typeof old.maximum === "number" && (typeof next.maximum !== "number" || next.maximum > old.maximum)) return `raises the maximum above ${old.maximum}`;
  }
  return undefined;
}

