/**
 * Small builders of generated statements shared by the file passes: ts-morph function
 * structures, flat object literals, the rules language's spelling of a type, `&&` operands.
 * Every text from the IR still goes through escape.ts (`objectLiteral` quotes with `jsString`).
 */
import { StructureKind, type FunctionDeclarationStructure, type InterfaceDeclarationStructure } from "ts-morph";
import type { Type } from "../ir/types.js";
import { jsString } from "./escape.js";
import { AND_PREC, type Code, type Helper } from "./expr.js";
import { propKey } from "./names.js";

/** One top-level statement of a generated file: text as it is, or a ts-morph structure. */
export type Statement = string | FunctionDeclarationStructure | InterfaceDeclarationStructure;

/** A function declaration: parameters `{ name, type }` in order, the body as text. */
export function fn(name: string, params: { name: string; type: string }[], returnType: string, body: string, opts: { exported?: boolean; docs?: string[] } = {}): FunctionDeclarationStructure {
  return {
    kind: StructureKind.Function,
    name,
    isExported: opts.exported ?? false,
    parameters: params.map((p) => ({ name: p.name, type: p.type })),
    returnType,
    statements: body,
    docs: opts.docs,
  };
}

/** A lifted helper of the expression compiler as a function declaration. */
export function helperStructure(h: Helper): FunctionDeclarationStructure {
  return fn(h.name, h.params, h.returnType, h.body, { docs: h.doc ? [h.doc] : undefined });
}

/** `{ a: 1, b: "x" }` for a flat object of JSON scalars (keys in insertion order). */
export function objectLiteral(o: Record<string, unknown>): string {
  return `{ ${Object.entries(o).map(([k, v]) => `${propKey(k)}: ${typeof v === "string" ? jsString(v) : JSON.stringify(v)}`).join(", ")} }`;
}

/** The type as the rules language spells it (for ACTIONS and docs). */
export function dslType(t: Type): string {
  switch (t.k) {
    case "bool":
    case "int":
    case "string":
      return t.k;
    case "enum":
      return t.name;
    case "list":
      return `list<${dslType(t.elem)}>`;
    case "map":
      return `map<${t.key.name}, ${dslType(t.value)}>`;
    case "record":
      return t.name ?? "record";
  }
}

/** A compiled operand of `&&`, parenthesized when it binds more loosely. */
export function andOperand(c: Code): string {
  return c.prec < AND_PREC ? `(${c.code})` : c.code;
}
