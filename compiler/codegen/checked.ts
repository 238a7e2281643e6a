/**
 * generated/<edition>/checked.ts: the checked entry points of the generated API — `validateAction`
 * (an action JSON against the edition's action declarations: names, enum members, integers and
 * their ranges, lists), `check` and `legalMoves`, which check their input first (the state against
 * the schema, the action, the actor) and answer an `InputError` (`{ ok: false, errors }`, never a
 * verdict) for bad input; they never throw on JSON data. `checkTrusted` and `legalMovesTrusted`
 * (validators.ts) are the unchecked fast path.
 */
import type { IRAction, Type } from "../ir/types.js";
import { intRange } from "../ir/ints.js";
import type { EditionContext } from "./context.js";
import { jsString } from "./escape.js";
import { header } from "./header.js";

/** The spec of one value's type, as the generated `valueProblem` reads it. */
function spec(t: Type): string {
  switch (t.k) {
    case "bool":
      return `{ k: "bool" }`;
    case "string":
      return `{ k: "string" }`;
    case "int": {
      const [lo, hi] = intRange(t);
      return `{ k: "int", lo: ${lo}, hi: ${hi}, declared: ${t.min !== undefined && t.max !== undefined} }`;
    }
    case "enum":
      return `{ k: "enum", members: ${memberConst(t.name)} }`;
    case "list":
      return `{ k: "list", elem: ${spec(t.elem)} }`;
    default:
      return `{ k: "object" }`;
  }
}

const memberConst = (name: string): string => `M_${name.replace(/[^A-Za-z0-9_]/g, "_")}`;

function enumsOf(t: Type, out: Map<string, string[]>): void {
  if (t.k === "enum") out.set(t.name, t.members);
  if (t.k === "list") enumsOf(t.elem, out);
}

/** The statements of generated/<edition>/checked.ts. */
export function checkedStatements(cx: EditionContext): string[] {
  const { ir, actions, actorType } = cx;
  const enums = new Map<string, string[]>();
  for (const a of actions) for (const p of a.params) enumsOf(p.type, enums);
  if (actorType) enumsOf(actorType, enums);
  const names = actions.map((a) => a.name);
  const paramRows = actions.map((a: IRAction) => `  ${jsString(a.name)}: [${a.params.map((p) => `{ name: ${jsString(p.name)}, type: ${spec(p.type)} }`).join(", ")}],`);
  const actorMembers = actorType?.k === "enum" ? memberConst(actorType.name) : undefined;
  const actorCheck = actorMembers
    ? `if (typeof actor !== "string" || !${actorMembers}.includes(actor)) return inputError([{ input: "actor", path: "", message: \`expected one of \${list(${actorMembers})}\` }]);`
    : `if (typeof actor !== "string") return inputError([{ input: "actor", path: "", message: "expected a string" }]);`;
  const s: string[] = [header(ir, `${ir.title}: the checked entry points (check, legalMoves, validateAction).`)];
  s.push(
    [
      `import type { Action } from "./validators.js";`,
      `import type { State } from "./state.js";`,
      `import type { ExplainedViolation, LiftedRule } from "./index.js";`,
      `import { checkTrusted, explainVerdict, legalMovesTrusted } from "./validators.js";`,
      `import { validateSchema } from "./schema.js";`,
    ].join("\n"),
  );
  s.push(typesText());
  const enumConsts = [...enums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([n, m]) => `const ${memberConst(n)}: readonly string[] = [${m.map((x) => jsString(x)).join(", ")}];`);
  s.push(runtimeText(paramRows, enumConsts, names));
  s.push(validateActionText(names[0] ?? "pass"));
  s.push(stateGuardText());
  s.push(entryPointsText(actorCheck));
  return s;
}

/** A part of checked.ts (checkedStatements). */
function typesText(): string {
  return [
      `/** One problem of the input of \`check\` or \`legalMoves\`: which input, where in it (a JSON pointer, "" the whole input), and what is wrong. */`,
      `export interface InputProblem {`,
      `  readonly input: "state" | "action" | "actor";`,
      `  readonly path: string;`,
      `  readonly message: string;`,
      `}`,
      ``,
      `/** The answer to malformed input: never a verdict (no \`allowed\`), so it cannot be taken for one. */`,
      `export interface InputError {`,
      `  readonly ok: false;`,
      `  readonly errors: readonly InputProblem[];`,
      `}`,
      ``,
      `/**`,
      ` * The verdict of \`check\` on valid input: that of \`checkTrusted\`, marked \`ok\`, each violation with`,
      ` * its reasons (\`values\`, \`message\`), and the rules exemptions lifted (\`lifted\`).`,
      ` */`,
      `export interface CheckedVerdict {`,
      `  readonly ok: true;`,
      `  readonly allowed: boolean;`,
      `  readonly violations: readonly ExplainedViolation[];`,
      `  readonly obliged: readonly string[];`,
      `  readonly lifted: readonly LiftedRule[];`,
      `}`,
      ``,
      `/** What \`check\` answers: a verdict (\`ok: true\`) or the problems of its input (\`ok: false\`). */`,
      `export type CheckResult = CheckedVerdict | InputError;`,
  ].join("\n");
}

/** A part of checked.ts (checkedStatements). */
function runtimeText(paramRows: string[], enumConsts: string[], names: string[]): string {
  return [
      `type Spec = { readonly k: "bool" | "string" | "object" } | { readonly k: "int"; readonly lo: number; readonly hi: number; readonly declared: boolean } | { readonly k: "enum"; readonly members: readonly string[] } | { readonly k: "list"; readonly elem: Spec };`,
      ...enumConsts,
      `/** Every action's parameters and their types. */`,
      `const PARAMS: { readonly [action: string]: readonly { readonly name: string; readonly type: Spec }[] } = {`,
      ...paramRows,
      `};`,
      `const ACTION_NAMES: readonly string[] = [${names.map((n) => jsString(n)).join(", ")}];`,
      `const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);`,
      `const list = (xs: readonly string[]): string => \`\${xs.slice(0, 12).join(", ")}\${xs.length > 12 ? ", …" : ""}\`;`,
      `const pointer = (k: string): string => "/" + k.replace(/~/g, "~0").replace(/\\//g, "~1");`,
      ``,
      `function valueProblem(t: Spec, v: unknown): string | undefined {`,
      `  switch (t.k) {`,
      `    case "bool":`,
      `      return typeof v === "boolean" ? undefined : "expected true or false";`,
      `    case "int":`,
      `      if (typeof v !== "number" || !Number.isInteger(v)) return "expected an integer";`,
      `      if (v >= t.lo && v <= t.hi) return undefined;`,
      `      return \`\${v} is outside \${t.lo}..\${t.hi}\${t.declared ? "" : " (an int without a declared range holds a 32-bit integer)"}\`;`,
      `    case "string":`,
      `      return typeof v === "string" ? undefined : "expected a string";`,
      `    case "enum":`,
      `      return typeof v === "string" && t.members.includes(v) ? undefined : \`expected one of \${list(t.members)}\`;`,
      `    case "list": {`,
      `      if (!Array.isArray(v)) return "expected a list";`,
      `      for (const x of v as unknown[]) {`,
      `        const e = valueProblem(t.elem, x);`,
      `        if (e !== undefined) return \`list item: \${e}\`;`,
      `      }`,
      `      return undefined;`,
      `    }`,
      `    default:`,
      `      return typeof v === "object" && v !== null ? undefined : "expected an object";`,
      `  }`,
      `}`,
  ].join("\n");
}

/** A part of checked.ts (checkedStatements). */
function validateActionText(first: string): string {
  return [
      `/**`,
      ` * The problems of an action JSON against the edition's action declarations: not an object, no or`,
      ` * an unknown \`action\`, a missing or unknown parameter, a value of the wrong type (an enum member,`,
      ` * an integer within its range, a list of such values). Empty when the action is valid (then it is`,
      ` * an \`Action\`). \`path\` is a JSON pointer into the action. Never throws.`,
      ` */`,
      `export function validateAction(action: unknown): InputProblem[] {`,
      `  if (typeof action !== "object" || action === null || Array.isArray(action)) return [{ input: "action", path: "", message: 'the action must be a JSON object like {"action": ${jsString(first).slice(1, -1)}, …}' }];`,
      `  const a = action as { readonly [k: string]: unknown };`,
      `  const name = a["action"];`,
      `  if (typeof name !== "string") return [{ input: "action", path: "/action", message: \`the action needs an \\\`action\\\` field naming it; actions: \${list(ACTION_NAMES)}\` }];`,
      `  if (!has(PARAMS, name)) return [{ input: "action", path: "/action", message: \`unknown action \\\`\${name}\\\`; actions: \${list(ACTION_NAMES)}\` }];`,
      `  const params = PARAMS[name]!;`,
      `  const out: InputProblem[] = [];`,
      `  for (const p of params) {`,
      `    if (!has(a, p.name)) out.push({ input: "action", path: pointer(p.name), message: \`action \\\`\${name}\\\` needs parameter \\\`\${p.name}\\\`\` });`,
      `    else {`,
      `      const e = valueProblem(p.type, a[p.name]);`,
      `      if (e !== undefined) out.push({ input: "action", path: pointer(p.name), message: \`parameter \\\`\${p.name}\\\`: \${e}\` });`,
      `    }`,
      `  }`,
      `  for (const k of Object.keys(a)) {`,
      `    if (k !== "action" && !params.some((p) => p.name === k)) out.push({ input: "action", path: pointer(k), message: \`action \\\`\${name}\\\` has no parameter \\\`\${k}\\\`\` });`,
      `  }`,
      `  return out;`,
      `}`,
  ].join("\n");
}

/** A part of checked.ts (checkedStatements). */
function stateGuardText(): string {
  return [
      `interface AjvError {`,
      `  readonly instancePath: string;`,
      `  readonly keyword: string;`,
      `  readonly message?: string;`,
      `  readonly params?: { readonly [k: string]: unknown };`,
      `}`,
      `const schemaCheck = validateSchema as unknown as { (data: unknown): boolean; errors?: readonly AjvError[] | null };`,
      ``,
      `/** The state's problems against the JSON Schema (not the invariants: \`validateState\` adds them). */`,
      `function stateProblems(state: unknown): InputProblem[] {`,
      `  if (schemaCheck(state)) return [];`,
      `  return (schemaCheck.errors ?? []).map((e) => {`,
      `    const extra = e.params?.["missingProperty"] ?? e.params?.["additionalProperty"];`,
      `    return { input: "state" as const, path: e.instancePath, message: \`\${e.message ?? e.keyword}\${typeof extra === "string" ? \`: \${JSON.stringify(extra)}\` : ""}\` };`,
      `  });`,
      `}`,
      ``,
      `const inputError = (errors: readonly InputProblem[]): InputError => ({ ok: false, errors });`,
  ].join("\n");
}

/** A part of checked.ts (checkedStatements). */
function entryPointsText(actorCheck: string): string {
  return [
      `/**`,
      ` * The verdict on an action in a state, after checking both: \`{ ok: true, allowed, violations,`,
      ` * obliged }\` (the verdict of \`checkTrusted\`) for a state that matches the schema and a valid`,
      ` * action, else \`{ ok: false, errors }\` — never \`allowed\` for malformed input. Never throws on`,
      ` * JSON data. It does not check the invariants (\`validateState\` does). An engine that checked its`,
      ` * input once calls \`checkTrusted\` in its loop (no input checks).`,
      ` */`,
      `export function check(state: unknown, action: unknown): CheckResult {`,
      `  const errors = [...stateProblems(state), ...validateAction(action)];`,
      `  if (errors.length) return inputError(errors);`,
      `  const v = checkTrusted(state as State, action as Action);`,
      `  const r = explainVerdict(state as State, action as Action, v);`,
      `  return { ok: true, allowed: v.allowed, violations: r.violations, obliged: v.obliged, lifted: r.lifted };`,
      `}`,
      ``,
      `/**`,
      ` * The moves \`actor\` may make now (see \`legalMovesTrusted\`), after checking the state against the`,
      ` * schema and the actor against the actors' type: an \`InputError\` for bad input (never throws on`,
      ` * JSON data). \`options.unencoded\`: also the actions no rule restricts.`,
      ` */`,
      `export function legalMoves(state: unknown, actor: unknown, options: { readonly unencoded?: boolean } = {}): Action[] | InputError {`,
      `  const errors = stateProblems(state);`,
      `  if (errors.length) return inputError(errors);`,
      `  ${actorCheck}`,
      `  return legalMovesTrusted(state as State, actor as never, options);`,
      `}`,
  ].join("\n");
}
