/**
 * Walking an edition's state schema (`state.schema.json`, the subset of dsl/README.md "The
 * state schema") for the editor: the definition of a state field (its JSON pointer and position
 * in the schema file) and its type written as the rules language writes it (`int in 0..5`,
 * `list<Card> (at most 12)`, `map<MajorPower, Ruler>`). Malformed schemas give undefined, never
 * an exception (the checker reports them).
 */
import fs from "node:fs";
import type { Span } from "../diagnostics/types.js";
import { jsonPositions } from "../diagnostics/json.js";

type Json = Record<string, unknown>;

/** A schema node with the pointer of where it is written (after following `$ref`). */
export interface SchemaNode {
  node: Json;
  /** JSON pointer of the node in the schema file ("" = the root) */
  pointer: string;
  /** the `$defs` name when the node was reached through a `$ref` */
  defName?: string;
}

export class StateSchema {
  private constructor(
    readonly file: string,
    private readonly root: Json,
    private readonly positions: Map<string, Span>,
  ) {}

  /** Reads and parses a schema file; undefined when unreadable or not JSON. */
  static load(file: string): StateSchema | undefined {
    try {
      const text = fs.readFileSync(file, "utf8");
      const json = JSON.parse(text) as unknown;
      if (!json || typeof json !== "object") return undefined;
      return new StateSchema(file, json as Json, jsonPositions(text));
    } catch {
      return undefined;
    }
  }

  rootNode(): SchemaNode {
    return this.deref({ node: this.root, pointer: "" });
  }

  /** Follows `$ref: "#/$defs/X"` (a few levels at most). */
  deref(n: SchemaNode): SchemaNode {
    let cur = n;
    for (let i = 0; i < 8 && typeof cur.node.$ref === "string"; i++) {
      const ref = cur.node.$ref as string;
      const m = /^#\/\$defs\/(.+)$/.exec(ref);
      const defs = this.root.$defs as Json | undefined;
      const target = m && defs && typeof defs[m[1]!] === "object" ? (defs[m[1]!] as Json) : undefined;
      if (!target) return cur;
      cur = { node: target, pointer: `/$defs/${m![1]}`, defName: m![1] };
    }
    return cur;
  }

  /** The record field `name` of a record node (its definition, not dereferenced). */
  field(rec: SchemaNode | undefined, name: string): SchemaNode | undefined {
    const props = rec?.node.properties as Json | undefined;
    if (!props || typeof props[name] !== "object") return undefined;
    return { node: props[name] as Json, pointer: `${rec!.pointer}/properties/${escape(name)}` };
  }

  /** The field names of a record node, in schema order. */
  fields(rec: SchemaNode | undefined): string[] {
    const props = rec?.node.properties as Json | undefined;
    return props && typeof props === "object" ? Object.keys(props) : [];
  }

  /** The value node of a map (`state.hands[power]`). */
  mapValue(map: SchemaNode | undefined): SchemaNode | undefined {
    const v = map?.node.additionalProperties;
    return v && typeof v === "object" ? { node: v as Json, pointer: `${map!.pointer}/additionalProperties` } : undefined;
  }

  /** The element node of a list. */
  items(list: SchemaNode | undefined): SchemaNode | undefined {
    const v = list?.node.items;
    return v && typeof v === "object" ? { node: v as Json, pointer: `${list!.pointer}/items` } : undefined;
  }

  /** The node at a JSON pointer of the schema file (`/$defs/Card/properties/cost`), not dereferenced; undefined when the pointer leads nowhere. */
  at(pointer: string): SchemaNode | undefined {
    let node: unknown = this.root;
    for (const seg of pointer.split("/").slice(1)) {
      if (!node || typeof node !== "object") return undefined;
      node = (node as Json)[seg.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    return node && typeof node === "object" && !Array.isArray(node) ? { node: node as Json, pointer } : undefined;
  }

  /** Where a pointer's value starts in the schema file (line 1 when unknown). */
  spanOf(pointer: string): Span {
    return this.positions.get(pointer) ?? { line: 1, column: 1, endLine: 1, endColumn: 2 };
  }

  /** The type of a node as the rules language writes it, with bounds: `int in 0..5`, `list<Card> (at most 12)`. */
  typeText(n: SchemaNode | undefined, depth = 0): string {
    if (!n || depth > 6) return "?";
    const d = this.deref(n);
    const s = d.node;
    if (Array.isArray(s.enum)) return d.defName ?? `one of ${(s.enum as unknown[]).join(", ")}`;
    switch (s.type) {
      case "boolean":
        return "bool";
      case "string":
        return "string";
      case "integer": {
        const lo = typeof s.minimum === "number" ? s.minimum : undefined;
        const hi = typeof s.maximum === "number" ? s.maximum : undefined;
        return lo !== undefined || hi !== undefined ? `int in ${lo ?? "…"}..${hi ?? "…"}` : "int";
      }
      case "array":
        return `list<${this.typeText(this.items(d), depth + 1)}>${typeof s.maxItems === "number" ? ` (at most ${s.maxItems})` : ""}`;
      case "object": {
        if (s.propertyNames && typeof s.propertyNames === "object") {
          const key = this.deref({ node: s.propertyNames as Json, pointer: `${d.pointer}/propertyNames` });
          return `map<${key.defName ?? "?"}, ${this.typeText(this.mapValue(d), depth + 1)}>`;
        }
        return d.defName ? (depth ? d.defName : `record ${d.defName}`) : `record { ${this.fields(d).join(", ")} }`;
      }
      default:
        return "?";
    }
  }

  /** The schema's `description` of a field, when it has one. */
  description(n: SchemaNode | undefined): string | undefined {
    const own = n?.node.description;
    if (typeof own === "string") return own;
    const d = n && this.deref(n).node.description;
    return typeof d === "string" ? d : undefined;
  }
}

function escape(s: string): string {
  return s.replace(/~/g, "~0").replace(/\//g, "~1");
}
