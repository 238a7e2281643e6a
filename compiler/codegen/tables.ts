/**
 * generated/<edition>/tables.ts: one typed lookup function per result table (IREdition.tables),
 * the `TABLES` catalogue and the `lookup(name, inputs)` dispatcher (dsl/README.md, "Tables").
 *
 * A lookup checks that every input lies in the table's declared domain, computes the keys once,
 * and returns the value of the first row that matches (rows in source order, record values as
 * shared frozen constants). When no row matches it throws: the prover's `table_gap` obligation
 * shows that this never happens inside the domain. Nothing here reads the state.
 */
import { docText, jsString, lineComment, templateText } from "./escape.js";
import type { IRTable, TablePattern, TableScalar, TableValue, Type } from "../ir/types.js";
import { CodegenError, ExprCompiler, type Ctx } from "./expr.js";
import { header } from "./header.js";
import { Names, identPart, pascal, propKey } from "./names.js";
import { lookupName, tablesReserved, type EditionContext } from "./context.js";

/** Precedence of `&&` in ExprCompiler's `Code` (operands below it need parentheses). */
const AND_PREC = 2;

const JS_RESERVED = new Set(
  ("break case catch class const continue debugger default delete do else enum export extends false finally for function if import in " +
    "instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package " +
    "private protected public await arguments eval undefined NaN Infinity").split(" "),
);

/** A parameter's name in the generated signature: the DSL name unless JavaScript reserves it. */
function paramName(name: string): string {
  const n = identPart(name);
  return JS_RESERVED.has(n) ? `${n}_` : n;
}

/** `2..12`, `any integer`, `boolean`, `one of ActionType` — a parameter's domain in words. */
function domainText(t: Type): string {
  if (t.k === "int") {
    if (t.min !== undefined && t.max !== undefined) return `an integer in ${t.min}..${t.max}`;
    if (t.min !== undefined) return `an integer ≥ ${t.min}`;
    if (t.max !== undefined) return `an integer ≤ ${t.max}`;
    return "an integer";
  }
  if (t.k === "bool") return "true or false";
  if (t.k === "enum") return `a ${t.name}`;
  throw new CodegenError(`table parameter of type \`${t.k}\``);
}

function scalarTs(t: Type): string {
  if (t.k === "int") return "number";
  if (t.k === "bool") return "boolean";
  if (t.k === "enum") return t.name;
  throw new CodegenError(`table scalar of type \`${t.k}\``);
}

function scalarCode(v: TableScalar): string {
  return typeof v === "string" ? jsString(v) : String(v);
}

/** The statements generated/<edition>/tables.ts collects while each table is compiled. */
interface TablesPass {
  readonly cx: EditionContext;
  readonly names: Names;
  readonly ec: ExprCompiler;
  /** enum types the file names (imported from state.ts) */
  readonly typesUsed: Set<string>;
  /** enum name → const name of its member set (parameter domain checks) */
  readonly domains: Map<string, string>;
  readonly consts: string[];
  readonly ifaces: string[];
  readonly fns: string[];
  readonly catalogue: string[];
  readonly cases: string[];
  readonly rowCases: string[];
}

/** The statements of generated/<edition>/tables.ts: one pass over the edition's tables (by name). */
export function tablesStatements(cx: EditionContext): string[] {
  const names = new Names([...tablesReserved(cx), ...cx.resultTypeNames.values()]);
  const ec = new ExprCompiler(cx.ir, names, cx.members, new Map(), new Map(), true);
  const pass: TablesPass = { cx, names, ec, typesUsed: new Set(), domains: new Map(), consts: [], ifaces: [], fns: [], catalogue: [], cases: [], rowCases: [] };
  for (const t of cx.tables) tableStatements(pass, t);
  return assembleTables(pass);
}

/** The const name of an enum's member set (declared once in the file). */
function domainOf(pass: TablesPass, en: string): string {
  let d = pass.domains.get(en);
  if (!d) {
    d = pass.names.take(`DOMAIN_${identPart(en)}`);
    pass.domains.set(en, d);
  }
  return d;
}

/** One table: its row type, row values, row finder, typed lookup, catalogue row and dispatcher cases. */
function tableStatements(pass: TablesPass, t: IRTable): void {
  const { names, ec, typesUsed, consts, ifaces, fns, catalogue, cases, rowCases } = pass;
  const fname = lookupName(t);
  // result type
  let resultTs: string;
  if (t.result.k === "record") {
    resultTs = pass.cx.resultTypeNames.get(t.name)!;
    ifaces.push(
      [
        `/** A row value of table \`${docText(t.name)}\` (${docText(t.citation.text)}). */`,
        `export interface ${resultTs} {`,
        ...t.result.fields.map((f) => `  readonly ${propKey(f.name)}: ${scalarTs(f.type)};`),
        `}`,
      ].join("\n"),
    );
    for (const f of t.result.fields) if (f.type.k === "enum") typesUsed.add(f.type.name);
  } else {
    resultTs = scalarTs(t.result);
    if (t.result.k === "enum") typesUsed.add(t.result.name);
  }
  // the row values, in row order (records frozen)
  const valueCode = (v: TableValue): string =>
    typeof v !== "object" ? scalarCode(v) : `Object.freeze({ ${Object.entries(v).map(([k, x]) => `${propKey(k)}: ${scalarCode(x)}`).join(", ")} })`;
  const valuesName = names.take(`VALUES_${identPart(t.name)}`);
  consts.push(`/** the row values of table \`${docText(t.name)}\`, in row order */\nconst ${valuesName}: readonly ${resultTs}[] = Object.freeze([\n${t.rows.map((r) => `  ${valueCode(r.value)}, // ${lineComment(r.pos.file)}:${r.pos.line}`).join("\n")}\n]);`);
  const rowFn = names.take(`rowOf${pascal(t.name)}`);
  // parameters and their domain checks
  const pnames = t.params.map((p) => paramName(p.name));
  const ctx: Ctx = new Map(t.params.map((p, i) => [p.name, pnames[i]!]));
  const lines: string[] = [];
  t.params.forEach((p, i) => {
    const v = pnames[i]!;
    const ty = p.type;
    let bad: string;
    if (ty.k === "int") {
      bad = [`!Number.isInteger(${v})`, ...(ty.min !== undefined ? [`${v} < ${ty.min}`] : []), ...(ty.max !== undefined ? [`${v} > ${ty.max}`] : [])].join(" || ");
    } else if (ty.k === "bool") bad = `typeof ${v} !== "boolean"`;
    else if (ty.k === "enum") {
      bad = `!${domainOf(pass, ty.name)}.has(${v})`;
      typesUsed.add(ty.name);
    } else throw new CodegenError(`table \`${t.name}\`: parameter of type \`${ty.k}\``);
    lines.push(`if (${bad}) throw new RangeError(\`${templateText(`${t.name}: ${p.name} must be ${domainText(ty)}, got `)}\${String(${v})}\`);`);
  });
  // keys
  const keyVars: string[] = [];
  t.keys.forEach((k, i) => {
    if (k.k === "var" && ctx.has(k.name)) {
      keyVars.push(ctx.get(k.name)!);
      return;
    }
    const kv = `k${i}`;
    lines.push(`const ${kv}: ${scalarTs(k.type)} = ${ec.expr(k, ctx, `${identPart(t.name)}_key`).code};`);
    keyVars.push(kv);
  });
  // rows, first match wins
  let exhaustive = false;
  for (const [ri, r] of t.rows.entries()) {
    const conds: string[] = [];
    r.patterns.forEach((p, i) => {
      const c = patternCode(p, keyVars[i]!);
      if (c) conds.push(c);
    });
    if (r.guard) {
      const g = ec.expr(r.guard, ctx, `${identPart(t.name)}_when`);
      conds.push(g.prec < AND_PREC ? `(${g.code})` : g.code);
    }
    const where = `// ${lineComment(r.pos.file)}:${r.pos.line}`;
    if (!conds.length) {
      lines.push(`return ${ri}; ${where}`);
      exhaustive = true;
      break;
    }
    lines.push(`if (${conds.join(" && ")}) return ${ri}; ${where}`);
  }
  if (!exhaustive) {
    const shown = t.params.map((p, i) => `${templateText(p.name)} \${String(${pnames[i]})}`).join(", ");
    lines.push(`throw new RangeError(\`${templateText(t.name)}: no row for ${shown}\`);`);
  }
  const params = t.params.map((p, i) => `${pnames[i]}: ${scalarTs(p.type)}`).join(", ");
  const doc = [
    ` * ${docText(t.citation.text)}: ${docText(t.title)}`,
    ...t.params.map((p, i) => ` * @param ${pnames[i]} ${docText(domainText(p.type))}`),
    ` * Keys: ${t.keyLabels.map((l) => "`" + docText(l) + "`").join(", ")}. ${docText(t.pos.file)}:${t.pos.line}`,
    ` * @throws RangeError when an input lies outside the domain, or no row matches (a gap \`rulewright prove\` reports)`,
  ];
  fns.push(
    [
      `/**`,
      ` * The index of the first row of table \`${docText(t.name)}\` that matches (rows in source order).`,
      ...doc.slice(1),
      ` */`,
      `function ${rowFn}(${params}): number {`,
      ...lines.map((l) => `  ${l}`),
      `}`,
      ``,
      `/**`,
      ...doc,
      ` */`,
      `export function ${fname}(${params}): ${resultTs} {`,
      `  return ${valuesName}[${rowFn}(${pnames.join(", ")})]!;`,
      `}`,
    ].join("\n"),
  );
  const paramInfo = t.params
    .map((p) => {
      const ty = p.type;
      const extra = ty.k === "int" ? `${ty.min !== undefined ? `, min: ${ty.min}` : ""}${ty.max !== undefined ? `, max: ${ty.max}` : ""}` : "";
      return `{ name: ${jsString(p.name)}, type: ${jsString(ty.k === "enum" ? ty.name : ty.k)}${extra} }`;
    })
    .join(", ");
  const resultInfo = t.result.k === "record" ? `{ ${t.result.fields.map((f) => `${propKey(f.name)}: ${f.type.k === "enum" ? f.type.name : f.type.k}`).join(", ")} }` : t.result.k === "enum" ? t.result.name : t.result.k;
  catalogue.push(
    `  { name: ${jsString(t.name)}, citation: ${jsString(t.citation.text)}, title: ${jsString(t.title)}, params: Object.freeze([${paramInfo}]), keys: Object.freeze([${t.keyLabels.map((l) => jsString(l)).join(", ")}]), result: ${jsString(resultInfo)}, rowLines: Object.freeze([${t.rows.map((r) => r.pos.line).join(", ")}]), file: ${jsString(t.pos.file)}, line: ${t.pos.line} },`,
  );
  const args = t.params.map((p) => `inputs[${jsString(p.name)}] as ${scalarTs(p.type)}`).join(", ");
  cases.push(`  case ${jsString(t.name)}:\n    return ${fname}(${args});`);
  rowCases.push(`  case ${jsString(t.name)}:\n    return ${rowFn}(${args});`);
}

/** The file: the catalogue type, row types, domain and member sets, row values, lookups, `lookup`, `lookupRow` and the lifted helpers. */
function assembleTables(pass: TablesPass): string[] {
  const { cx, ec, typesUsed, domains, consts, ifaces, fns, catalogue, cases, rowCases } = pass;
  const { ir } = cx;
  const out: string[] = [];
  out.push(
    [
      `/** A table of the catalogue: its parameters (with their declared ranges), keys and result. */`,
      `export interface TableInfo {`,
      `  readonly name: string;`,
      `  readonly citation: string;`,
      `  readonly title: string;`,
      `  readonly params: readonly { readonly name: string; readonly type: string; readonly min?: number; readonly max?: number }[];`,
      `  readonly keys: readonly string[];`,
      `  readonly result: string;`,
      `  /** the line of each row in \`file\`, in row order (the index \`lookupRow\` returns) */`,
      `  readonly rowLines: readonly number[];`,
      `  readonly file: string;`,
      `  readonly line: number;`,
      `}`,
    ].join("\n"),
  );
  out.push(...ifaces);
  const domainConsts = [...domains.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([en, d]) => `const ${d}: ReadonlySet<unknown> = new Set([${(cx.members.get(en) ?? []).map((m) => jsString(m)).join(", ")}]);`);
  if (domainConsts.length) out.push(domainConsts.join("\n"));
  const enumConsts = [...ec.enumArrays.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([en, a]) => `const ${a.name}: readonly ${en}[] = [${a.members.map((m) => jsString(m)).join(", ")}];`);
  for (const en of ec.enumArrays.keys()) typesUsed.add(en);
  if (enumConsts.length) out.push(enumConsts.join("\n"));
  if (consts.length) out.push(consts.join("\n"));
  out.push(`/** Every table, sorted by name. */\nexport const TABLES: readonly TableInfo[] = Object.freeze([${catalogue.length ? `\n${catalogue.join("\n")}\n` : ""}]);`);
  out.push(...fns);
  out.push(
    [
      `/**`,
      ` * The value of table \`table\` for \`inputs\` (one entry per parameter, by name), as the typed`,
      ` * lookup gives it. @throws RangeError for an unknown table or an input outside the domain.`,
      ` */`,
      `export function lookup(table: string, inputs: Readonly<Record<string, unknown>>): unknown {`,
      `  switch (table) {`,
      ...cases.map((c) => c.replace(/^/gm, "  ")),
      `    default:`,
      `      throw new RangeError(\`unknown table \${JSON.stringify(table)}\`);`,
      `  }`,
      `}`,
    ].join("\n"),
  );
  out.push(
    [
      `/**`,
      ` * The index of the row of table \`table\` that gives its value for \`inputs\` (its line is`,
      ` * \`TABLES[…].rowLines[index]\`). @throws RangeError like \`lookup\`.`,
      ` */`,
      `export function lookupRow(table: string, inputs: Readonly<Record<string, unknown>>): number {`,
      `  switch (table) {`,
      ...rowCases.map((c) => c.replace(/^/gm, "  ")),
      `    default:`,
      `      throw new RangeError(\`unknown table \${JSON.stringify(table)}\`);`,
      `  }`,
      `}`,
    ].join("\n"),
  );
  for (const h of ec.helpers) {
    out.push(
      `${h.doc ? `/** ${h.doc} */\n` : ""}function ${h.name}(${h.params.map((p) => `${p.name}: ${p.type}`).join(", ")}): ${h.returnType} {\n${h.body.replace(/^/gm, "  ")}\n}`,
    );
  }
  if (ec.tablesUsed.size || ec.boardUsed.size) throw new CodegenError("a table expression uses a table or the board");
  // every enum type the file names (signatures, helpers) is imported from state.ts
  const text = out.join("\n");
  const types = cx.enumTypes.filter((n) => typesUsed.has(n) || new RegExp(`\\b${n}\\b`).test(text));
  return [header(ir, `Result tables of ${ir.title}: one lookup per table.`), ...(types.length ? [`import type { ${types.join(", ")} } from "./state.js";`] : []), ...out];
}

/** The test of one pattern against a key variable, or "" for `_`. */
function patternCode(p: TablePattern, k: string): string {
  switch (p.k) {
    case "any":
      return "";
    case "range":
      if (p.min !== undefined && p.max !== undefined) return p.min === p.max ? `${k} === ${p.min}` : `${k} >= ${p.min} && ${k} <= ${p.max}`;
      if (p.min !== undefined) return `${k} >= ${p.min}`;
      if (p.max !== undefined) return `${k} <= ${p.max}`;
      return "";
    case "bool":
      return p.value ? k : `!${k}`;
    case "members": {
      const parts = p.members.map((m) => `(${k} as string) === ${jsString(m)}`);
      return parts.length === 1 ? parts[0]! : `(${parts.join(" || ")})`;
    }
  }
}
