/**
 * The state schema (JSON Schema subset of dsl/README.md) → the state record Type.
 * Every unsupported keyword, every open record/map and every enum that differs from the rule
 * files is a diagnostic; nothing throws.
 */
import type { Span } from "../diagnostics/types.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type { Type } from "../ir/types.js";
import { enumType, type Env } from "./env.js";
import { didYouMean, type Help } from "./util.js";
import { SAFE_INT_MAX, isLanguageInt } from "../ir/ints.js";

const ANNOTATIONS = new Set(["$schema", "$id", "title", "description", "$comment", "default", "examples"]);
export const DEFAULT_LIST_BOUND = 8;

type Report = (code: DiagnosticCode, message: string, ptr: string, help?: Help) => void;

interface Ctx {
  env: Env;
  defs: Record<string, unknown>;
  report: Report;
  cache: Map<string, Type | undefined | "busy">;
  /** enums already compared with the rule files */
  compared: Set<string>;
}

function isObj(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function extraKeys(ctx: Ctx, s: Record<string, unknown>, allowed: string[], ptr: string, what: string): void {
  for (const k of Object.keys(s)) {
    if (allowed.includes(k) || ANNOTATIONS.has(k)) continue;
    ctx.report("RW4003", `unsupported JSON Schema keyword \`${k}\` in ${what}`, `${ptr}/${k}`,
      `allowed here: ${allowed.map((a) => "`" + a + "`").join(", ")} (see dsl/README.md, "The state schema")`);
  }
}

function isEnumSchema(s: unknown): s is { type: "string"; enum: unknown[] } {
  return isObj(s) && s.type === "string" && Array.isArray(s.enum);
}

/** Convert the schema root. Returns undefined when the root is not a usable record. */
export function schemaToState(schema: unknown, env: Env, report: Report): Extract<Type, { k: "record" }> | undefined {
  if (!isObj(schema)) {
    report("RW4003", "the state schema must be a JSON object", "", 'start it with `{ "type": "object", "properties": { … } }`');
    return undefined;
  }
  const defs = isObj(schema.$defs) ? schema.$defs : {};
  if (schema.$defs !== undefined && !isObj(schema.$defs)) report("RW4003", "`$defs` must be an object", "/$defs", "map each name to a schema");
  const ctx: Ctx = { env, defs, report, cache: new Map(), compared: new Set() };
  // Every $defs entry is checked, referenced or not (e.g. $defs.Space against the board).
  for (const name of Object.keys(defs)) defType(ctx, name, `/$defs/${name}`);
  const root = convert(ctx, schema, "", true);
  if (root && root.k !== "record") {
    report("RW4003", "the state schema root must be a record (`\"type\": \"object\"` with `properties`)", "", "put the state's fields under `properties`");
    return undefined;
  }
  return root;
}

function defType(ctx: Ctx, name: string, ptr: string): Type | undefined {
  const cached = ctx.cache.get(name);
  if (cached === "busy") {
    ctx.report("RW4003", `recursive \`$ref\` to \`${name}\``, ptr, "the state must be a finite tree; remove the cycle");
    return undefined;
  }
  if (ctx.cache.has(name)) return cached as Type | undefined;
  const s = ctx.defs[name];
  ctx.cache.set(name, "busy");
  let t: Type | undefined;
  if (isEnumSchema(s)) t = enumDef(ctx, name, s, `/$defs/${name}`);
  else {
    t = convert(ctx, s, `/$defs/${name}`, false);
    if (t?.k === "record") t = { ...t, name };
  }
  ctx.cache.set(name, t);
  return t;
}

function enumDef(ctx: Ctx, name: string, s: { enum: unknown[] } & Record<string, unknown>, ptr: string): Type | undefined {
  extraKeys(ctx, s, ["type", "enum"], ptr, `enum \`${name}\``);
  const members = s.enum.filter((m): m is string => typeof m === "string");
  if (members.length !== s.enum.length) ctx.report("RW4003", `enum \`${name}\` has non-string members`, `${ptr}/enum`, "enum members are strings");
  const info = ctx.env.enums.get(name);
  if (!info && name === "Space") return undefined; // the board is missing or broken: reported there
  if (!info) {
    ctx.report("RW4006", `schema enum \`${name}\` is not declared in the rule files`, ptr,
      didYouMean(name, ctx.env.enums.keys()) ?? `declare it: \`enum ${name} { ${members.slice(0, 3).join(", ")}${members.length > 3 ? ", …" : ""} }\``);
    return undefined;
  }
  if (!ctx.compared.has(name) && !info.broken) {
    ctx.compared.add(name);
    const missing = info.members.filter((m) => !members.includes(m));
    const extra = members.filter((m) => !info.members.includes(m));
    if (missing.length || extra.length) {
      const parts = [
        ...(extra.length ? [`only in the schema: ${extra.map((m) => "`" + m + "`").join(", ")}`] : []),
        ...(missing.length ? [`only in the ${name === "Space" ? "board" : "rule files"}: ${missing.map((m) => "`" + m + "`").join(", ")}`] : []),
      ];
      if (name === "Space") ctx.report("RW4009", `schema \`$defs.Space\` does not match the board (${parts.join("; ")})`, ptr, "list exactly the board's space ids");
      else ctx.report("RW4005", `schema enum \`${name}\` differs from \`enum ${name}\` in the rule files (${parts.join("; ")})`, ptr, "make both lists name the same members");
    }
  }
  return enumType(ctx.env, name);
}

function refType(ctx: Ctx, s: Record<string, unknown>, ptr: string): Type | undefined {
  extraKeys(ctx, s, ["$ref"], ptr, "a `$ref`");
  const ref = s.$ref;
  const m = typeof ref === "string" ? /^#\/\$defs\/([^/]+)$/.exec(ref) : null;
  if (!m) {
    ctx.report("RW4006", `unsupported \`$ref\` \`${String(ref)}\``, `${ptr}/$ref`, "refer to a local definition: `#/$defs/Name`");
    return undefined;
  }
  const name = m[1]!;
  if (!(name in ctx.defs)) {
    ctx.report("RW4006", `\`$ref\` to unknown definition \`${name}\``, `${ptr}/$ref`, didYouMean(name, Object.keys(ctx.defs), "add it under `$defs`"));
    return undefined;
  }
  return defType(ctx, name, `${ptr}/$ref`);
}

function convert(ctx: Ctx, s: unknown, ptr: string, root: boolean): Type | undefined {
  if (!isObj(s)) {
    ctx.report("RW4003", "a schema here must be an object", ptr, 'write e.g. `{ "type": "integer" }`');
    return undefined;
  }
  if ("$ref" in s) return refType(ctx, s, ptr);
  const rootKeys = root ? ["$defs"] : [];
  switch (s.type) {
    case "boolean":
      extraKeys(ctx, s, ["type"], ptr, "a boolean");
      return { k: "bool" };
    case "integer": {
      extraKeys(ctx, s, ["type", "minimum", "maximum"], ptr, "an integer");
      const t: Type = { k: "int" };
      for (const key of ["minimum", "maximum"] as const) {
        const v = s[key];
        if (v === undefined) continue;
        if (!isLanguageInt(v)) {
          ctx.report(typeof v === "number" && Number.isInteger(v) ? "RW3105" : "RW4003", typeof v === "number" && Number.isInteger(v)
            ? `\`${key}\` ${v} is outside the safe integer range ±${SAFE_INT_MAX}` : `\`${key}\` must be an integer, found ${JSON.stringify(v)}`,
            `${ptr}/${key}`, `give an integer within ±${SAFE_INT_MAX}: the prover counts exactly, the validators with JavaScript numbers`);
          continue;
        }
        if (key === "minimum") t.min = v;
        else t.max = v;
      }
      return t;
    }
    case "string":
      if ("enum" in s) {
        ctx.report("RW4003", "inline string enum", `${ptr}/enum`, "declare the enum under `$defs` and refer to it with `$ref`");
        return undefined;
      }
      extraKeys(ctx, s, ["type"], ptr, "a string");
      return { k: "string" };
    case "array": {
      extraKeys(ctx, s, ["type", "items", "maxItems"], ptr, "a list");
      const elem = "items" in s ? convert(ctx, s.items, `${ptr}/items`, false) : undefined;
      if (!("items" in s)) ctx.report("RW4003", "a list needs `items`", ptr, 'add `"items": <schema>`');
      let bound = DEFAULT_LIST_BOUND;
      if (typeof s.maxItems === "number" && Number.isInteger(s.maxItems) && s.maxItems >= 0) bound = s.maxItems;
      else ctx.report("RW4004", `list without \`maxItems\`: bounded to ${DEFAULT_LIST_BOUND}`, ptr, 'add `"maxItems": N` (the bound the prover unrolls to)');
      return elem ? { k: "list", elem, bound } : undefined;
    }
    case "object":
      return "propertyNames" in s ? mapType(ctx, s, ptr, rootKeys) : recordType(ctx, s, ptr, rootKeys);
    default: {
      const odd = s.type === undefined ? Object.keys(s).find((k) => !ANNOTATIONS.has(k)) : undefined;
      if (odd) ctx.report("RW4003", `unsupported JSON Schema keyword \`${odd}\``, `${ptr}/${odd}`, "use `type` with `boolean`, `integer`, `string`, `array` or `object`, or a `$ref`");
      else ctx.report("RW4003", s.type === undefined ? "a schema without `type`" : `unsupported type \`${JSON.stringify(s.type)}\``, s.type === undefined ? ptr : `${ptr}/type`,
        "use `boolean`, `integer`, `string`, `array`, `object`, or a `$ref`");
      return undefined;
    }
  }
}

/** The JSON pointer of each record's schema, by the record type's `fields` array (shared by the copies a named `$defs` record gets). */
const recordPointers = new WeakMap<object, string>();

/**
 * The JSON pointer (in the state schema) of a record type's schema (`""` for the state root,
 * `/$defs/Name` for a named record), or undefined for a record this module did not make.
 * A field's pointer is this + `/properties/<field>`.
 */
export function recordPointer(t: Extract<Type, { k: "record" }>): string | undefined {
  return recordPointers.get(t.fields);
}

function recordType(ctx: Ctx, s: Record<string, unknown>, ptr: string, rootKeys: string[]): Type | undefined {
  extraKeys(ctx, s, ["type", "properties", "required", "additionalProperties", ...rootKeys], ptr, "a record");
  const props = isObj(s.properties) ? s.properties : {};
  if (!isObj(s.properties)) ctx.report("RW4003", "a record needs `properties`", ptr, 'add `"properties": { … }`, or `propertyNames` for a map');
  const required = Array.isArray(s.required) ? s.required : [];
  const missing = Object.keys(props).filter((p) => !required.includes(p));
  if (missing.length) ctx.report("RW4010", `record properties not \`required\`: ${missing.map((m) => "`" + m + "`").join(", ")}`, "required" in s ? `${ptr}/required` : ptr, "every property of a record must be listed in `required`");
  if (s.additionalProperties !== false) ctx.report("RW4010", "record without `\"additionalProperties\": false`", ptr, 'add `"additionalProperties": false`');
  const fields: { name: string; type: Type }[] = [];
  let ok = true;
  for (const [name, sub] of Object.entries(props)) {
    const t = convert(ctx, sub, `${ptr}/properties/${name}`, false);
    if (t) fields.push({ name, type: t });
    else ok = false;
  }
  if (!ok) return undefined;
  recordPointers.set(fields, ptr);
  return { k: "record", fields };
}

function mapType(ctx: Ctx, s: Record<string, unknown>, ptr: string, rootKeys: string[]): Type | undefined {
  extraKeys(ctx, s, ["type", "propertyNames", "additionalProperties", "required", ...rootKeys], ptr, "a map");
  const key = isObj(s.propertyNames) && "$ref" in s.propertyNames ? refType(ctx, s.propertyNames, `${ptr}/propertyNames`) : undefined;
  if (!(isObj(s.propertyNames) && "$ref" in s.propertyNames)) {
    ctx.report("RW4003", "a map's `propertyNames` must be a `$ref` to an enum", `${ptr}/propertyNames`, 'write `"propertyNames": { "$ref": "#/$defs/Power" }`');
  } else if (key && key.k !== "enum") {
    ctx.report("RW4003", "a map's `propertyNames` must refer to an enum", `${ptr}/propertyNames`, "maps are keyed by an enum");
  }
  if (!isObj(s.additionalProperties)) {
    ctx.report("RW4003", "a map needs `additionalProperties`: the schema of its values", ptr, 'add `"additionalProperties": <value schema>`');
    return undefined;
  }
  const value = convert(ctx, s.additionalProperties, `${ptr}/additionalProperties`, false);
  if (!key || key.k !== "enum" || !value) return undefined;
  const required = Array.isArray(s.required) ? s.required : [];
  const missing = key.members.filter((m) => !required.includes(m));
  if (missing.length) {
    ctx.report("RW4010", `map keyed by \`${key.name}\` does not require ${missing.length === key.members.length ? "its members" : missing.slice(0, 5).map((m) => "`" + m + "`").join(", ") + (missing.length > 5 ? ", …" : "")}`,
      "required" in s ? `${ptr}/required` : ptr, `list every member of \`${key.name}\` in \`required\``);
  }
  return { k: "map", key, value };
}

export type { Span };
