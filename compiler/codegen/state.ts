/**
 * generated/<edition>/state.ts: the `State` type from the edition's JSON Schema
 * (json-schema-to-typescript), plus every enum of the edition as a string-literal union.
 */
import { jsString } from "./escape.js";
import path from "node:path";
import { compile } from "json-schema-to-typescript";
import type { IREdition } from "../ir/types.js";
import { header } from "./header.js";
import type { EditionContext } from "./context.js";

function schemaDir(ir: IREdition): string {
  const schemaInput = ir.inputs.find((i) => i.file.endsWith(".json") && !i.file.endsWith("board.json"));
  return path.resolve(schemaInput ? path.dirname(schemaInput.file) : ".");
}

/** The text of generated/<edition>/state.ts. */
export async function stateFile(cx: EditionContext): Promise<string> {
  const { ir } = cx;
  // json-schema-to-typescript mutates its input: work on a copy. The root is always `State`;
  // $defs titles are dropped so every definition is named after its key (`Power`, `Space`).
  const schema = structuredClone(ir.schema) as Record<string, unknown>;
  schema.title = "State";
  delete schema.$id;
  const defs = schema.$defs as Record<string, Record<string, unknown>> | undefined;
  if (defs && typeof defs === "object") {
    for (const d of Object.values(defs)) if (d && typeof d === "object") delete d.title;
  }
  let ts = await compile(schema as never, "State", {
    additionalProperties: false,
    enableConstEnums: false,
    bannerComment: header(ir, "The game state of this edition (from its JSON Schema)."),
    cwd: schemaDir(ir),
    $refOptions: { resolve: { http: false } },
    declareExternallyReferenced: true,
    unreachableDefinitions: true,
    ignoreMinAndMaxItems: true,
    strictIndexSignatures: false,
    format: true,
    style: { printWidth: 100, singleQuote: false, trailingComma: "all", semi: true, tabWidth: 2, useTabs: false, endOfLine: "lf" },
  });
  // Enums the schema does not define (subsets declared in the rules, `Space` from the board).
  const exported = new Set([...ts.matchAll(/^export (?:type|interface|enum|const) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!));
  const extra: string[] = [];
  for (const name of cx.enumTypes) {
    if (exported.has(name)) continue;
    const ms = cx.members.get(name)!;
    extra.push(`/** enum \`${name}\` of the rules */\nexport type ${name} = ${ms.length ? ms.map((x) => jsString(x)).join(" | ") : "never"};\n`);
  }
  if (!ts.endsWith("\n")) ts += "\n";
  return extra.length ? `${ts}\n${extra.join("\n")}` : ts;
}
