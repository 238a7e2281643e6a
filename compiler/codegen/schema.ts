/**
 * generated/<edition>/schema.ts (the edition's JSON Schema compiled to standalone JavaScript by
 * ajv: no ajv at run time) and generated/<edition>/validate-state.ts (`validateState`: the schema,
 * then the invariants, every problem as a JSON pointer into the state).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import standaloneModule from "ajv/dist/standalone/index.js";
import type { EditionContext } from "./context.js";
import { CodegenError } from "./expr.js";
import { header } from "./header.js";

// ajv's standalone module is CommonJS with the function as `default`
const standaloneCode = ((standaloneModule as unknown as { default?: typeof standaloneModule }).default ?? standaloneModule) as unknown as (ajv: Ajv2020, v: unknown) => string;

/**
 * The text of schema.ts: `validateSchema(data)` (ajv's standalone validator, all errors) with
 * `validateSchema.errors` set to ajv's error objects (`instancePath` a JSON pointer) when false.
 * Every text of the schema reaches the code through ajv's own quoting (its `stringify`), never raw.
 * The file is JavaScript in a .ts file, so it starts with `// @ts-nocheck`; its typed face is
 * validate-state.ts. @throws CodegenError when ajv cannot compile the schema.
 */
export function schemaFile({ ir }: EditionContext): string {
  let code: string;
  try {
    const ajv = new Ajv2020({ allErrors: true, strict: false, code: { source: true, esm: true, lines: true } });
    code = standaloneCode(ajv, ajv.compile(ir.schema));
  } catch (e) {
    throw new CodegenError(`the state schema does not compile to a standalone validator: ${(e as Error).message}`);
  }
  if (/\brequire\s*\(/.test(code)) throw new CodegenError("the state schema needs an ajv run-time module (a format or keyword ajv does not inline); the generated code must not depend on ajv");
  code = code.replace(/^"use strict";\s*/, "").replace(/export const validate = (\w+);\s*export default \1;/, "export const validateSchema = $1;");
  if (!code.includes("export const validateSchema = ")) throw new CodegenError("ajv's standalone code did not have the expected `export const validate` (an ajv upgrade?)");
  return [header(ir, `${ir.title}: the state's JSON Schema as standalone code (ajv, no run-time dependency).`), "// @ts-nocheck", code.trimEnd(), ""].join("\n");
}

/** The text of validate-state.ts. */
export function validateStateFile({ ir }: EditionContext): string {
  return [
    header(ir, `${ir.title}: validateState, the state's schema and invariants.`),
    `import type { State } from "./state.js";`,
    `import { validateSchema } from "./schema.js";`,
    `import { INVARIANTS } from "./rules.js";`,
    `import { brokenInvariants } from "./validators.js";`,
    ``,
    `/**`,
    ` * One problem of a state. \`pointer\` is a JSON pointer (RFC 6901) into the state ("" the whole`,
    ` * state); \`keyword\` the JSON Schema keyword that failed, or "invariant" with \`invariant\` the`,
    ` * id of the invariant the state breaks (an invariant reads the whole state: pointer "").`,
    ` */`,
    `export interface StateError {`,
    `  readonly pointer: string;`,
    `  readonly keyword: string;`,
    `  readonly message: string;`,
    `  readonly invariant?: string;`,
    `}`,
    ``,
    `interface AjvError {`,
    `  readonly instancePath: string;`,
    `  readonly keyword: string;`,
    `  readonly message?: string;`,
    `  readonly params?: Readonly<Record<string, unknown>>;`,
    `}`,
    ``,
    `const schemaCheck = validateSchema as unknown as { (data: unknown): boolean; errors?: readonly AjvError[] | null };`,
    ``,
    `function detail(e: AjvError): string {`,
    `  const p = e.params ?? {};`,
    `  const extra = p["additionalProperty"] ?? p["missingProperty"];`,
    `  const allowed = p["allowedValues"];`,
    `  let m = e.message ?? e.keyword;`,
    `  if (typeof extra === "string") m += \`: \${JSON.stringify(extra)}\`;`,
    `  if (Array.isArray(allowed)) m += \`: \${allowed.slice(0, 8).map((x) => JSON.stringify(x)).join(", ")}\${allowed.length > 8 ? ", …" : ""}\`;`,
    `  return m;`,
    `}`,
    ``,
    `/**`,
    ` * The problems of a state: first the JSON Schema (every error), then, only for a state that`,
    ` * matches the schema, the invariants it breaks. Empty when the state is valid (then it is a`,
    ` * \`State\`: see \`isValidState\`). Never throws; runs no ajv (standalone code in schema.ts).`,
    ` */`,
    `export function validateState(state: unknown): StateError[] {`,
    `  if (!schemaCheck(state)) {`,
    `    return (schemaCheck.errors ?? []).map((e) => ({ pointer: e.instancePath, keyword: e.keyword, message: detail(e) }));`,
    `  }`,
    `  const broken = brokenInvariants(state as State);`,
    `  return broken.map((id) => ({ pointer: "", keyword: "invariant", message: INVARIANTS.find((i) => i.id === id)?.title ?? id, invariant: id }));`,
    `}`,
    ``,
    `/** Whether \`validateState(state)\` finds nothing (a type guard). */`,
    `export function isValidState(state: unknown): state is State {`,
    `  return validateState(state).length === 0;`,
    `}`,
    ``,
  ].join("\n");
}
