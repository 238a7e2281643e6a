/**
 * Checking the input of a validator call: a state against the edition's JSON Schema (ajv), its
 * 32-bit integers and its invariants; an action against the edition's action declarations; a
 * table lookup's inputs against the table's parameters. Each returns human-readable problems
 * (empty when good) and never throws on bad input.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { IREdition, Type } from "../ir/types.js";
import { intRange } from "../ir/ints.js";
import type { ValidatorModule } from "./loader.js";

const ajvCache = new WeakMap<object, ReturnType<Ajv2020["compile"]>>();

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * The state with every field the schema gives a `default` and the state lacks filled in (records
 * within records too, `$ref`s to `$defs` followed): how a variant's new fields (a schema
 * extension, compiler/check/schema-extension.ts) keep its parent's fixtures and scenarios valid.
 * Returns `state` itself when nothing is missing (or it is not an object); never mutates it.
 */
export function withStateDefaults(edition: Pick<IREdition, "schema">, state: unknown): unknown {
  const defs = isObj(edition.schema.$defs) ? edition.schema.$defs : {};
  const fill = (schema: unknown, v: unknown, depth: number): unknown => {
    if (depth > 32 || !isObj(v) || !isObj(schema)) return v;
    const s = typeof schema.$ref === "string" && schema.$ref.startsWith("#/$defs/") ? defs[schema.$ref.slice(8)] : schema;
    if (!isObj(s) || !isObj(s.properties)) return v;
    let out: Record<string, unknown> | undefined;
    for (const [k, ps] of Object.entries(s.properties)) {
      const cur = v[k];
      const next = cur === undefined ? (isObj(ps) && "default" in ps ? structuredClone(ps.default) : undefined) : fill(ps, cur, depth + 1);
      if (next !== cur) (out ??= { ...v })[k] = next;
    }
    return out ?? v;
  };
  return fill(edition.schema, state, 0);
}

/**
 * Validates a state against the edition's JSON Schema (ajv) and its invariants.
 * Returns human-readable problems; empty when the state is good.
 */
export function stateProblems(edition: IREdition, mod: Pick<ValidatorModule, "brokenInvariants"> | undefined, state: unknown): string[] {
  let validate = ajvCache.get(edition.schema);
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    validate = ajv.compile(edition.schema);
    ajvCache.set(edition.schema, validate);
  }
  if (!validate(state)) {
    return (validate.errors ?? []).slice(0, 20).map((e) => `state${e.instancePath.replace(/\//g, ".")} ${e.message}${e.params && "allowedValues" in e.params ? ` (${(e.params.allowedValues as string[]).slice(0, 8).join(", ")}${(e.params.allowedValues as string[]).length > 8 ? ", …" : ""})` : ""}${e.params && "additionalProperty" in e.params ? ` (\`${e.params.additionalProperty}\`)` : ""}`);
  }
  // an integer the schema leaves unbounded holds a 32-bit integer (compiler/ir/ints.ts): the range
  // the prover and the checker's arithmetic assume
  const wide = unboundedIntProblems(edition.state, state, "state").slice(0, 20);
  if (wide.length) return wide;
  if (mod) {
    return mod.brokenInvariants(state).map((id) => `state breaks invariant \`${id}\``);
  }
  return [];
}

/** The integers of `v` (a value of type `t` that the schema accepted) outside their `intRange`. */
function unboundedIntProblems(t: Type, v: unknown, at: string): string[] {
  if (t.k === "int") {
    const [lo, hi] = intRange(t);
    return typeof v === "number" && (v < lo || v > hi) ? [`${at} is ${v}, outside ${lo}..${hi} (an integer without a declared \`minimum\`/\`maximum\` holds a 32-bit integer)`] : [];
  }
  if (typeof v !== "object" || v === null) return [];
  if (t.k === "list" && Array.isArray(v)) return v.flatMap((x, i) => unboundedIntProblems(t.elem, x, `${at}[${i}]`));
  if (t.k === "record") return t.fields.flatMap((f) => unboundedIntProblems(f.type, (v as Record<string, unknown>)[f.name], `${at}.${f.name}`));
  if (t.k === "map") return t.key.members.flatMap((m) => unboundedIntProblems(t.value, (v as Record<string, unknown>)[m], `${at}.${m}`));
  return [];
}

/**
 * Checks an action JSON against the edition's action declarations.
 * Returns problems (unknown action, missing/unknown parameter, wrong type); empty when good.
 * With the edition's loaded validators (`mod`), their own `validateAction` answers (the check an
 * engine calls: one implementation for the CLI and the generated API); without, or with
 * validators generated before it existed, the same check is made from the IR.
 */
export function actionProblems(edition: IREdition, action: unknown, mod?: { validateAction?: (action: unknown) => readonly { message: string }[] }): string[] {
  if (typeof mod?.validateAction === "function") return mod.validateAction(action).map((p) => p.message);
  if (typeof action !== "object" || action === null || Array.isArray(action)) return ["the action must be a JSON object like {\"action\": \"pass\", \"power\": \"france\"}"];
  const a = action as Record<string, unknown>;
  if (typeof a.action !== "string") {
    return [`the action needs an \`action\` field naming it; actions: ${edition.actions.map((x) => x.name).join(", ")}`];
  }
  const decl = edition.actions.find((x) => x.name === a.action);
  if (!decl) {
    return [`unknown action \`${String(a.action)}\`; actions: ${edition.actions.map((x) => x.name).join(", ")}`];
  }
  const problems: string[] = [];
  for (const p of decl.params) {
    if (!(p.name in a)) problems.push(`action \`${decl.name}\` needs parameter \`${p.name}\``);
    else {
      const err = valueProblem(p.type, a[p.name]);
      if (err) problems.push(`parameter \`${p.name}\`: ${err}`);
    }
  }
  for (const k of Object.keys(a)) {
    if (k !== "action" && !decl.params.some((p) => p.name === k)) problems.push(`action \`${decl.name}\` has no parameter \`${k}\``);
  }
  return problems;
}

/**
 * Checks the inputs of a table lookup against the table's parameters (names, types, declared
 * ranges). Returns problems (unknown table, missing/unknown input, wrong type); empty when good.
 */
export function tableInputProblems(edition: IREdition, table: string, inputs: Record<string, unknown>): string[] {
  const t = (edition.tables ?? []).find((x) => x.name === table);
  if (!t) {
    const names = (edition.tables ?? []).map((x) => x.name);
    return [`unknown table \`${table}\`${names.length ? `; tables: ${names.join(", ")}` : " (the edition has no tables)"}`];
  }
  const problems: string[] = [];
  for (const p of t.params) {
    if (!(p.name in inputs)) {
      problems.push(`table \`${t.name}\` needs input \`${p.name}\``);
      continue;
    }
    const v = inputs[p.name];
    const err = valueProblem(p.type, v);
    if (err) problems.push(`input \`${p.name}\`: ${err}`);
    else if (p.type.k === "int" && ((p.type.min !== undefined && (v as number) < p.type.min) || (p.type.max !== undefined && (v as number) > p.type.max))) {
      problems.push(`input \`${p.name}\`: ${String(v)} is outside ${p.type.min ?? "…"}..${p.type.max ?? "…"}`);
    }
  }
  for (const k of Object.keys(inputs)) if (!t.params.some((p) => p.name === k)) problems.push(`table \`${t.name}\` has no parameter \`${k}\``);
  return problems;
}

function valueProblem(t: IREdition["actions"][number]["params"][number]["type"], v: unknown): string | undefined {
  switch (t.k) {
    case "bool":
      return typeof v === "boolean" ? undefined : "expected true or false";
    case "int": {
      if (!Number.isInteger(v)) return "expected an integer";
      const [lo, hi] = intRange(t);
      if ((v as number) >= lo && (v as number) <= hi) return undefined;
      return `${String(v)} is outside ${lo}..${hi}${t.min === undefined || t.max === undefined ? " (an int without a declared range holds a 32-bit integer)" : ""}`;
    }
    case "string":
      return typeof v === "string" ? undefined : "expected a string";
    case "enum":
      return typeof v === "string" && t.members.includes(v) ? undefined : `expected one of ${t.members.slice(0, 12).join(", ")}${t.members.length > 12 ? ", …" : ""}`;
    case "list":
      if (!Array.isArray(v)) return "expected a list";
      for (const x of v) {
        const e = valueProblem(t.elem, x);
        if (e) return `list item: ${e}`;
      }
      return undefined;
    default:
      return typeof v === "object" && v !== null ? undefined : "expected an object";
  }
}

