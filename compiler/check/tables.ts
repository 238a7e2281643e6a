/**
 * Result tables (dsl/README.md, "Tables"): signatures, keys, row patterns, guards and values →
 * `IRTable`. A table is a pure function of its parameters: its expressions may not read `state`.
 * Table calls inside rules are checked by `ExprChecker` (expr.ts) against the signatures
 * registered here (`env.tables`).
 */
import { SAFE_INT_MAX, isLanguageInt } from "../ir/ints.js";
import fs from "node:fs";
import path from "node:path";
import type { Span } from "../diagnostics/types.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type { Citation, EnumType, Expr, IRTable, IRTableRow, TablePattern, TableScalar, TableValue, Type } from "../ir/types.js";
import type { MemberRef, TableDecl, TablePattern as AstPattern, TableValue as AstValue, TypeRef } from "../syntax/ast.js";
import { children } from "../ir/walk.js";
import { enumType, typeName, type Env, type Located, type TableInfo } from "./env.js";
import type { ExprChecker } from "./expr.js";
import { localKey } from "./resolution.js";
import { didYouMean, posOf, type Help } from "./util.js";

type Rep = (code: DiagnosticCode, msg: string, at: { file: string; span: Span }, help?: Help) => void;

/** Reports RW3105 for each of `values` that is not a safe integer (issue 29); true when all are. */
function safeInts(values: (number | undefined)[], what: string, at: { file: string; span: Span }, rep: Rep): boolean {
  const bad = values.find((v) => v !== undefined && !isLanguageInt(v));
  if (bad === undefined) return true;
  rep("RW3105", `${what} ${String(bad)} is outside the safe integer range ±${SAFE_INT_MAX}`, at, `write an integer within ±${SAFE_INT_MAX} (at most 16 digits)`);
  return false;
}

const isTableScalar = (t: Type): boolean => t.k === "bool" || t.k === "int" || t.k === "enum";

/**
 * Registers every table's signature (parameters and result type) in `env.tables`. Names share the
 * namespace of defs, routes and board builtins (`taken`). Returns nothing: problems are reported.
 */
export function declareTables(decls: Located<TableDecl>[], env: Env, taken: (name: string) => string | undefined, rep: Rep): void {
  const tables = (env.tables ??= new Map<string, TableInfo>());
  for (const d of decls) {
    const n = d.decl.name.name;
    const prev = tables.get(n);
    if (prev) {
      rep("RW2009", `duplicate table \`${n}\``, { file: d.file, span: d.decl.name.span }, "rename or remove one of them");
      continue;
    }
    const other = taken(n);
    if (other) {
      rep("RW2009", `table \`${n}\` has the name of ${other}`, { file: d.file, span: d.decl.name.span }, "tables, defs, routes and board builtins share one namespace; rename the table");
      continue;
    }
    let ok = true;
    const params: { name: string; type: Type }[] = [];
    const seen = new Set<string>();
    for (const p of d.decl.params) {
      if (seen.has(p.name.name)) {
        rep("RW2009", `duplicate parameter \`${p.name.name}\``, { file: d.file, span: p.name.span }, "give each parameter a distinct name");
        ok = false;
        continue;
      }
      seen.add(p.name.name);
      const t = scalarType(p.type, env, d.file, rep, "a table parameter");
      if (!t) {
        ok = false;
        continue;
      }
      if (p.range) {
        if (t.k !== "int") {
          rep("RW2201", `only an \`int\` parameter takes a range, not \`${typeName(t)}\``, { file: d.file, span: p.range.span }, "remove `in …`, or make the parameter an `int`");
          ok = false;
          continue;
        }
        if (!safeInts([p.range.min, p.range.max], "the range bound", { file: d.file, span: p.range.span }, rep)) {
          ok = false;
          continue;
        }
        if (p.range.min > p.range.max) {
          rep("RW2201", `empty range \`${p.range.min}..${p.range.max}\``, { file: d.file, span: p.range.span }, `write the smaller end first: \`${p.range.max}..${p.range.min}\``);
          ok = false;
          continue;
        }
        params.push({ name: p.name.name, type: { k: "int", min: p.range.min, max: p.range.max } });
      } else params.push({ name: p.name.name, type: t });
    }
    let result: Type | undefined;
    const r = d.decl.result;
    if (r.k === "type") result = scalarType(r.type, env, d.file, rep, "a table's result");
    else {
      const fields: { name: string; type: Type }[] = [];
      const names = new Set<string>();
      for (const f of r.fields) {
        if (names.has(f.name.name)) {
          rep("RW2009", `duplicate field \`${f.name.name}\``, { file: d.file, span: f.name.span }, "give each field a distinct name");
          ok = false;
          continue;
        }
        names.add(f.name.name);
        const t = scalarType(f.type, env, d.file, rep, "a result field");
        if (t) fields.push({ name: f.name.name, type: t });
        else ok = false;
      }
      result = ok ? { k: "record", fields } : undefined;
    }
    tables.set(n, { decl: d.decl, file: d.file, ...(d.origin ? { origin: d.origin } : {}), ...(ok && result ? { params, result } : {}) });
  }
}

/** bool, int or an enum (tables hold scalars only). */
function scalarType(t: TypeRef, env: Env, file: string, rep: Rep, what: string): Type | undefined {
  if (t.k === "bool") return { k: "bool" };
  if (t.k === "int") return { k: "int" };
  if (t.k === "named") {
    const e = enumType(env, t.name.name);
    if (e) return e;
    if (t.name.name === "Space" && !env.board) return undefined; // the board failed
    rep("RW2003", `unknown type \`${t.name.name}\``, { file, span: t.name.span }, didYouMean(t.name.name, [...env.enums.keys(), "bool", "int"], "a table's parameters and results are `bool`, `int` or an enum"));
    return undefined;
  }
  rep("RW2201", `${what} must be \`bool\`, \`int\` or an enum, not \`${t.k === "list" ? "list<…>" : t.k}\``, { file, span: t.span }, "tables map scalars to scalars");
  return undefined;
}

/**
 * Checks the keys, rows, guards and values of every declared table and lowers them to IR,
 * sorted by name. `citation` picks a table's citation in this edition the way rules are cited
 * (index.ts: the edition's `cites` key, a module's keyed citation); it reports and returns
 * undefined when there is none. Rule files are read again from `repoRoot` for the key labels
 * (the source text of a key expression).
 */
export function checkTables(env: Env, ex: ExprChecker, rep: Rep, citation: (t: TableInfo) => Citation | undefined, repoRoot: string): IRTable[] {
  const texts = new Map<string, string>();
  const text = (file: string): string => {
    let t = texts.get(file);
    if (t === undefined) {
      try {
        t = fs.readFileSync(path.resolve(repoRoot, file), "utf8");
      } catch {
        t = "";
      }
      texts.set(file, t);
    }
    return t;
  };
  const out: IRTable[] = [];
  for (const [name, info] of [...(env.tables ?? new Map<string, TableInfo>())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!info.params || !info.result) continue;
    const cite = citation(info);
    const t = lowerTable(name, info, env, ex, rep, text);
    if (!t || !cite) continue;
    const { name: n, title, ...rest } = t;
    out.push({ name: n, title, citation: cite, ...rest }); // the IR's field order
  }
  return out;
}

function lowerTable(
  name: string,
  info: TableInfo,
  env: Env,
  ex: ExprChecker,
  rep: Rep,
  text: (file: string) => string,
): Omit<IRTable, "citation"> | undefined {
  const d = info.decl;
  const file = info.file;
  const params = info.params!;
  const result = info.result!;
  // a parameter's resolution key: where the table declares it (compiler/check/resolution.ts)
  const keyOf = (n: string) => {
    const p = d.params.find((x) => x.name.name === n);
    return p ? { key: localKey(file, p.name.span) } : {};
  };
  const ctx = {
    file,
    scope: new Map(params.map((p) => [p.name, { type: p.type, irName: p.name, ...keyOf(p.name) }])),
    inUse: new Set(params.map((p) => p.name)),
  };
  for (const p of d.params) ex.res?.scope({ file, span: d.span, name: p.name.name, key: localKey(file, p.name.span) });
  let ok = true;
  const pure = (e: Expr | undefined, span: Span, what: string): Expr | undefined => {
    if (!e) return undefined;
    const impure = impurity(e);
    if (impure) {
      rep("RW2202", `${what} of table \`${name}\` ${impure}`, { file, span }, "a table is a function of its parameters only: pass what it needs as a parameter");
      return undefined;
    }
    return e;
  };

  // keys
  const keys: Expr[] = [];
  const keyLabels: string[] = [];
  if (d.keys) {
    for (const k of d.keys) {
      const e = pure(ex.expr(k, ctx), k.span, "a key");
      if (!e) {
        ok = false;
        continue;
      }
      if (!isTableScalar(e.type)) {
        rep("RW3101", `a table key must be \`int\`, \`bool\` or an enum, found \`${typeName(e.type)}\``, { file, span: k.span }, "key the table by a roll, a total, a flag or an enum value");
        ok = false;
        continue;
      }
      keys.push(e);
      keyLabels.push(k.k === "name" ? k.name : sourceText(text(file), k.span));
    }
  } else {
    for (const p of params) {
      keys.push({ k: "var", name: p.name, type: p.type, pos: posOf(file, d.name.span) });
      keyLabels.push(p.name);
    }
  }
  if (!ok) return undefined;

  // rows
  const rows: IRTableRow[] = [];
  let countReported = false;
  for (const r of d.rows) {
    if (r.patterns.length !== keys.length) {
      // reported once per table: every other row usually has the same shape
      if (!countReported) {
        rep("RW2201", `this row has ${r.patterns.length} pattern${r.patterns.length === 1 ? "" : "s"}, but the table has ${keys.length} key${keys.length === 1 ? "" : "s"} (${keyLabels.map((l) => "`" + l + "`").join(", ")})`,
          { file, span: r.span }, d.keys ? "write one pattern per key, separated by commas; `_` matches anything" : "without `key`, the keys are the parameters in order: write one pattern per parameter, or name the keys with `key <expr>, …`");
      }
      countReported = true;
      ok = false;
      continue;
    }
    const patterns: TablePattern[] = [];
    r.patterns.forEach((p, i) => {
      const pt = pattern(p, keys[i]!.type, keyLabels[i]!, env, file, rep);
      if (pt) patterns.push(pt);
      else ok = false;
    });
    let guard: Expr | null = null;
    if (r.guard) {
      const g = pure(ex.expect(r.guard, ctx, { k: "bool" }, "a row's `when` condition"), r.guard.span, "a row's `when` condition");
      if (!g) ok = false;
      else guard = g;
    }
    const value = rowValue(r.value, result, env, file, rep);
    if (value === undefined) ok = false;
    if (patterns.length === keys.length && value !== undefined) rows.push({ patterns, guard, value, pos: posOf(file, r.span) });
  }
  if (!ok) return undefined;
  if (!rows.length) {
    rep("RW2201", `table \`${name}\` has no rows`, { file, span: d.name.span }, "add rows `<pattern>: <value>` between the braces");
    return undefined;
  }
  return { name, title: d.title, params, keys, keyLabels, result, rows, pos: posOf(file, d.name.span) };
}

/** What makes an expression more than a function of the table's parameters, or undefined. */
function impurity(e: Expr): string | undefined {
  if (e.k === "state") return "reads `state`";
  if (e.k === "reach") return "searches a route (which reads the state)";
  if (e.k === "table") return `looks up table \`${e.table}\` (a table's expressions may not use tables)`;
  for (const c of children(e)) {
    const x = impurity(c);
    if (x) return x;
  }
  return undefined;
}

/** The source text of a span (one line, whitespace collapsed). */
function sourceText(text: string, span: Span): string {
  const lines = text.split(/\r?\n/);
  const parts: string[] = [];
  for (let l = span.line; l <= span.endLine; l++) {
    const line = lines[l - 1] ?? "";
    const from = l === span.line ? span.column - 1 : 0;
    const to = l === span.endLine ? span.endColumn - 1 : line.length;
    parts.push(line.slice(from, to));
  }
  return parts.join(" ").replace(/\s+/g, " ").trim();
}

function pattern(p: AstPattern, keyType: Type, label: string, env: Env, file: string, rep: Rep): TablePattern | undefined {
  const kt = typeName(keyType);
  switch (p.k) {
    case "any":
      return { k: "any" };
    case "int":
      if (keyType.k !== "int") {
        rep("RW3102", `an integer pattern for the key \`${label}\`, which is \`${kt}\``, { file, span: p.span }, keyType.k === "bool" ? "write `true`, `false` or `_`" : `name members of \`${kt}\`, or \`_\``);
        return undefined;
      }
      if (!safeInts([p.min, p.max], "the pattern's integer", { file, span: p.span }, rep)) return undefined;
      if (p.min !== undefined && p.max !== undefined && p.min > p.max) {
        rep("RW2201", `empty range \`${p.min}..${p.max}\``, { file, span: p.span }, `write the smaller end first: \`${p.max}..${p.min}\``);
        return undefined;
      }
      return { k: "range", ...(p.min !== undefined ? { min: p.min } : {}), ...(p.max !== undefined ? { max: p.max } : {}) };
    case "bool":
      if (keyType.k !== "bool") {
        rep("RW3102", `a \`${p.value}\` pattern for the key \`${label}\`, which is \`${kt}\``, { file, span: p.span }, keyType.k === "int" ? "write `7`, `5..6`, `<= 4` or `>= 10`" : `name members of \`${kt}\`, or \`_\``);
        return undefined;
      }
      return { k: "bool", value: p.value };
    case "members": {
      if (keyType.k !== "enum") {
        rep("RW3102", `a member pattern for the key \`${label}\`, which is \`${kt}\``, { file, span: p.span }, keyType.k === "int" ? "write `7`, `5..6`, `<= 4` or `>= 10` (`_` matches anything)" : "write `true`, `false` or `_`");
        return undefined;
      }
      const members: string[] = [];
      for (const m of p.members) {
        const v = member(m, keyType, env, file, rep, `the key \`${label}\``);
        if (v === undefined) return undefined;
        if (!members.includes(v)) members.push(v);
      }
      return { k: "members", members };
    }
  }
}

/** A member of enum `t` written `m` or `E.m` (E = t, a subset or base of t's base). */
function member(m: MemberRef, t: EnumType, env: Env, file: string, rep: Rep, what: string): string | undefined {
  if (m.enum) {
    const e = env.enums.get(m.enum.name);
    if (!e) {
      rep("RW2003", `unknown enum \`${m.enum.name}\``, { file, span: m.enum.span }, didYouMean(m.enum.name, env.enums.keys(), `write a member of \`${t.name}\``));
      return undefined;
    }
    if (e.base !== t.base) {
      rep("RW3102", `\`${m.enum.name}.${m.name.name}\` is not a value of \`${t.name}\` (${what})`, { file, span: m.span }, `write a member of \`${t.name}\``);
      return undefined;
    }
    if (!e.members.includes(m.name.name)) {
      rep("RW2004", `\`${m.name.name}\` is not a member of \`${e.name}\``, { file, span: m.name.span }, didYouMean(m.name.name, e.members, `members: ${e.members.slice(0, 8).join(", ")}`));
      return undefined;
    }
  }
  if (!t.members.includes(m.name.name)) {
    rep("RW3102", `\`${m.name.name}\` is not a member of \`${t.name}\` (${what})`, { file, span: m.name.span },
      didYouMean(m.name.name, t.members, `members: ${t.members.slice(0, 8).join(", ")}${t.members.length > 8 ? ", …" : ""}`));
    return undefined;
  }
  return m.name.name;
}

function rowValue(v: AstValue, t: Type, env: Env, file: string, rep: Rep): TableValue | undefined {
  if (t.k === "record") {
    if (v.k !== "record") {
      rep("RW3102", `this table's rows give a record \`{ ${t.fields.map((f) => f.name + ": …").join(", ")} }\``, { file, span: v.span }, "write every field with its value");
      return undefined;
    }
    const out: Record<string, TableScalar> = {};
    let ok = true;
    for (const f of v.fields) {
      const ft = t.fields.find((x) => x.name === f.name.name);
      if (!ft) {
        rep("RW3102", `the result has no field \`${f.name.name}\``, { file, span: f.name.span }, didYouMean(f.name.name, t.fields.map((x) => x.name), `fields: ${t.fields.map((x) => x.name).join(", ")}`));
        ok = false;
        continue;
      }
      if (f.name.name in out) {
        rep("RW2009", `field \`${f.name.name}\` given twice`, { file, span: f.name.span }, "give each field once");
        ok = false;
        continue;
      }
      const x = scalarValue(f.value, ft.type, env, file, rep);
      if (x === undefined) ok = false;
      else out[f.name.name] = x;
    }
    const missing = t.fields.filter((f) => !v.fields.some((x) => x.name.name === f.name));
    if (missing.length && ok) {
      rep("RW3102", `missing field${missing.length > 1 ? "s" : ""} ${missing.map((f) => "`" + f.name + "`").join(", ")}`, { file, span: v.span }, "every row gives every field of the result");
      ok = false;
    }
    if (!ok) return undefined;
    // fields in declaration order (deterministic output)
    return Object.fromEntries(t.fields.map((f) => [f.name, out[f.name]!]));
  }
  return scalarValue(v, t, env, file, rep);
}

function scalarValue(v: AstValue, t: Type, env: Env, file: string, rep: Rep): TableScalar | undefined {
  const want = typeName(t);
  if (t.k === "int" && v.k === "int") return safeInts([v.value], "the row value", { file, span: v.span }, rep) ? v.value : undefined;
  if (t.k === "bool" && v.k === "bool") return v.value;
  if (t.k === "enum" && v.k === "member") return member(v.member, t, env, file, rep, "a row value");
  rep("RW3102", `a row value must be \`${want}\`, found ${v.k === "member" ? `\`${v.member.enum ? v.member.enum.name + "." : ""}${v.member.name.name}\`` : v.k === "record" ? "a record" : `\`${v.k}\``}`, { file, span: v.span },
    t.k === "enum" ? `write a member of \`${want}\`` : t.k === "int" ? "write an integer" : "write `true` or `false`");
  return undefined;
}
