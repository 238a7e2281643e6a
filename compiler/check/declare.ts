/**
 * Pass "declare": everything that is declared before any body is checked — the board's spaces
 * (`Space`), the enums (subsets resolved to their base, `memberIndex`), the types of parameters,
 * the signatures of actions, defs, routes and tables (one namespace with the board builtins), and
 * the state record from the schema. Fills `c.env` and declares every name in the resolution table.
 */
import type { Span } from "../diagnostics/types.js";
import type { Type } from "../ir/types.js";
import type { Param, TypeRef } from "../syntax/ast.js";
import { checkBoard } from "./board.js";
import type { Checking } from "./context.js";
import { enumType, typeName, type DeclOf, type EnumInfo, type Located, type ParamInfo } from "./env.js";
import { BOARD_DOMAIN_FNS, BOARD_FNS, DISTANCE } from "./builtins.js";
import type { JsonInput } from "./inputs.js";
import { localKey, type Resolution } from "./resolution.js";
import { recordPointer, schemaToState } from "./schema.js";
import { declareTables } from "./tables.js";
import { LINE1, didYouMean, posOf, spanAt } from "./util.js";

/** The board: checks its shape and consistency (board.ts) and declares `Space` with the board's spaces as members. */
export function declareBoard(c: Checking, boardJson: JsonInput | undefined): void {
  const { env, r, res } = c;
  if (boardJson) {
    res.files.board = boardJson.file;
    env.board = checkBoard(boardJson.json, (code, msg, ptr, help) => r.report(code, msg, boardJson.file, spanAt(boardJson.positions, ptr), help));
    if (env.board) {
      res.declare({ key: "enum:Space", kind: "enum", name: "Space", file: boardJson.file, span: LINE1 });
      const space = { k: "enum" as const, name: "Space", base: "Space", members: env.board.spaces.map((s) => s.id) };
      env.board.spaces.forEach((s, i) =>
        res.declare({ key: `member:Space.${s.id}`, kind: "member", name: s.id, file: boardJson.file, span: spanAt(boardJson.positions, `/spaces/${i}/id`), type: space, parent: "enum:Space" }));
      env.enums.set("Space", {
        name: "Space", base: "Space", members: env.board.spaces.map((s) => s.id), file: boardJson.file, span: LINE1, memberSpans: new Map(),
      });
    }
  }
}

/**
 * The enums: duplicates and `enum Space` (RW2009, RW2019), subsets resolved to their base
 * (RW2016), the member index (member → root enums), and the board's home powers checked against
 * `Power` (RW4008).
 */
export function declareEnums(c: Checking, boardJson: JsonInput | undefined): void {
  const { env, of, rep, r, res } = c;
  const enumDecls = new Map<string, Located<DeclOf<"enum">>>();
  for (const d of of("enum")) {
    const n = d.decl.name.name;
    if (n === "Space") {
      rep("RW2019", "`enum Space` cannot be declared: `Space` comes from the board", { file: d.file, span: d.decl.name.span }, "remove it; the board's space ids are the members of `Space`");
      continue;
    }
    const prev = enumDecls.get(n);
    if (prev) {
      rep("RW2009", `duplicate enum \`${n}\``, { file: d.file, span: d.decl.name.span }, "rename or remove one of them", [{ message: "first declared here", pos: posOf(prev.file, prev.decl.name.span) }]);
      continue;
    }
    enumDecls.set(n, d);
  }
  const resolving = new Set<string>();
  const resolveEnum = (n: string): EnumInfo | undefined => {
    if (env.enums.has(n)) return env.enums.get(n);
    const d = enumDecls.get(n);
    if (!d || resolving.has(n)) return undefined;
    resolving.add(n);
    const memberSpans = new Map<string, Span>();
    const info0: { broken?: boolean } = {};
    for (const m of d.decl.members) {
      if (memberSpans.has(m.name)) info0.broken = true;
      if (memberSpans.has(m.name)) rep("RW2009", `duplicate member \`${m.name}\` in enum \`${n}\``, { file: d.file, span: m.span }, "list each member once");
      else memberSpans.set(m.name, m.span);
    }
    const info: EnumInfo = { name: n, base: n, members: [...memberSpans.keys()], file: d.file, span: d.decl.name.span, memberSpans, ...info0 };
    const b = d.decl.base;
    if (b) {
      const parent = enumDecls.has(b.name) || env.enums.has(b.name) ? resolveEnum(b.name) : undefined;
      if (!parent) {
        info.broken = true;
        const cyclic = enumDecls.has(b.name);
        rep("RW2016", cyclic ? `enum \`${n}\` is a subset of itself (through \`${b.name}\`)` : `unknown base enum \`${b.name}\``, { file: d.file, span: b.span },
          cyclic ? "a subset chain must end at an enum without `:`" : didYouMean(b.name, [...enumDecls.keys(), ...env.enums.keys()], "declare the base enum"));
      } else {
        info.base = parent.base;
        info.parent = parent.name;
        for (const m of d.decl.members) {
          if (!parent.members.includes(m.name)) {
            info.broken = true;
            rep("RW2016", `\`${m.name}\` is not a member of \`${parent.name}\``, { file: d.file, span: m.span },
              didYouMean(m.name, parent.members, `a subset enum lists members of its base \`${parent.name}\``));
          }
        }
        info.members = info.members.filter((m) => parent.members.includes(m));
      }
    }
    resolving.delete(n);
    env.enums.set(n, info);
    return info;
  };
  for (const n of enumDecls.keys()) resolveEnum(n);
  for (const [n, d] of enumDecls) {
    const info = env.enums.get(n);
    res.declare({ key: `enum:${n}`, kind: "enum", name: n, file: d.file, span: d.decl.name.span });
    if (d.decl.base && env.enums.has(d.decl.base.name)) res.use({ file: d.file, span: d.decl.base.span, key: `enum:${d.decl.base.name}` });
    if (!info) continue;
    const t = enumType(env, info.base)!;
    for (const m of d.decl.members) {
      const key = `member:${info.base}.${m.name}`;
      if (info.base === n) res.declare({ key, kind: "member", name: m.name, file: d.file, span: m.span, type: t, parent: `enum:${n}` });
      else if (info.members.includes(m.name)) res.use({ file: d.file, span: m.span, key, type: t });
    }
  }
  for (const e of env.enums.values()) {
    if (e.base !== e.name) continue;
    for (const m of e.members) env.memberIndex.set(m, [...(env.memberIndex.get(m) ?? []), e.name]);
  }
  if (env.board && env.enums.has("Power")) {
    const power = env.enums.get("Power")!;
    env.board.spaces.forEach((s, i) =>
      s.home.forEach((h, j) => {
        if (!power.members.includes(h)) {
          r.report("RW4008", `space \`${s.id}\` has home power \`${h}\`, which is not a member of \`Power\``, boardJson!.file, spanAt(boardJson!.positions, `/spaces/${i}/home/${j}`),
            didYouMean(h, power.members, "home powers are members of `enum Power`"));
        }
      }),
    );
  }

}

/** Resolves type references and parameter lists (RW2003, RW2009, RW2014), declaring each parameter. */
export interface TypeResolver {
  resolveType(t: TypeRef, file: string): Type | undefined;
  /** `parent`: the resolution key of the declaration the parameters belong to */
  resolveParams(ps: Param[], file: string, where: "action" | "def" | "route", parent: string): ParamInfo[] | undefined;
}

/** The type resolver over the enums declared so far; `boardDeclared`: an unknown `Space` is the board's failure, not reported again. */
export function typeResolver(c: Checking, boardDeclared: boolean): TypeResolver {
  const { env, rep, res } = c;
  const resolveType = (t: TypeRef, file: string): Type | undefined => {
    switch (t.k) {
      case "bool": return { k: "bool" };
      case "int": return { k: "int" };
      case "string": return { k: "string" };
      case "list": {
        const e = resolveType(t.elem, file);
        return e && { k: "list", elem: e, bound: 8 };
      }
      case "named": {
        const e = enumType(env, t.name.name);
        if (e) {
          res.use({ file, span: t.name.span, key: `enum:${t.name.name}` });
          return e;
        }
        if (t.name.name === "Space" && boardDeclared) return undefined; // the board failed
        rep("RW2003", `unknown type \`${t.name.name}\``, { file, span: t.name.span },
          didYouMean(t.name.name, [...env.enums.keys(), "bool", "int", "string"], "a type is `bool`, `int`, `string`, `list<T>`, an enum, or `Space`"));
        return undefined;
      }
    }
  };
  const resolveParams = (ps: Param[], file: string, where: "action" | "def" | "route", parent: string): ParamInfo[] | undefined => {
    const out: ParamInfo[] = [];
    const seen = new Map<string, Param>();
    let ok = true;
    let actor: Param | undefined;
    for (const p of ps) {
      const prev = seen.get(p.name.name);
      if (prev) {
        rep("RW2009", `duplicate parameter \`${p.name.name}\``, { file, span: p.name.span }, "give each parameter a distinct name", [{ message: "first declared here", pos: posOf(file, prev.name.span) }]);
        ok = false;
      }
      seen.set(p.name.name, p);
      if (p.actor && where !== "action") {
        rep("RW2014", `\`actor\` is only allowed on action parameters`, { file, span: p.span }, "remove `actor`");
        ok = false;
      } else if (p.actor && actor) {
        rep("RW2014", "an action has at most one `actor` parameter", { file, span: p.span }, `\`${actor.name.name}\` is already the actor; remove one \`actor\``,
          [{ message: "the first actor", pos: posOf(file, actor.span) }]);
        ok = false;
      } else if (p.actor) actor = p;
      const t = resolveType(p.type, file);
      const key = localKey(file, p.name.span);
      if (!prev) res.declare({ key, kind: "param", name: p.name.name, file, span: p.name.span, ...(t ? { type: t } : {}), parent });
      if (!t) ok = false;
      else out.push({ name: p.name.name, type: t, actor: p.actor, key });
    }
    return ok ? out : undefined;
  };

  return { resolveType, resolveParams };
}

/**
 * The signatures of actions (one actor type per edition, RW2014), defs and routes (one namespace,
 * not a board builtin's name, RW2009) and tables (tables.ts, the same namespace); declares them
 * and the board builtins in the resolution table.
 */
export function declareSignatures(c: Checking, types: TypeResolver): void {
  const { env, of, rep, res } = c;
  const { resolveType, resolveParams } = types;
  let firstActor: { info: ParamInfo; file: string; span: Span } | undefined;
  for (const d of of("action")) {
    const prev = env.actions.get(d.decl.name.name);
    if (prev) {
      rep("RW2009", `duplicate action \`${d.decl.name.name}\``, { file: d.file, span: d.decl.name.span }, "rename or remove one of them", [{ message: "first declared here", pos: posOf(prev.file, prev.decl.name.span) }]);
      continue;
    }
    res.declare({ key: `action:${d.decl.name.name}`, kind: "action", name: d.decl.name.name, file: d.file, span: d.decl.name.span });
    const params = resolveParams(d.decl.params, d.file, "action", `action:${d.decl.name.name}`);
    env.actions.set(d.decl.name.name, { ...d, ...(params ? { params } : {}) });
    // INVARIANT (relied on by codegen and verify): every actor of an edition has one type, so an
    // obligation of one action can be read with the actor of any other.
    const actorIdx = d.decl.params.findIndex((p) => p.actor);
    const actorInfo = actorIdx >= 0 ? params?.[actorIdx] : undefined;
    if (actorInfo) {
      if (!firstActor) firstActor = { info: actorInfo, file: d.file, span: d.decl.params[actorIdx].span };
      else if (typeName(actorInfo.type) !== typeName(firstActor.info.type)) {
        rep("RW2014", `the actor \`${actorInfo.name}\` has type \`${typeName(actorInfo.type)}\`, but the edition's actors have type \`${typeName(firstActor.info.type)}\``,
          { file: d.file, span: d.decl.params[actorIdx].span }, `give every action's actor the type \`${typeName(firstActor.info.type)}\``,
          [{ message: "the first actor", pos: posOf(firstActor.file, firstActor.span) }]);
      }
    }
  }
  const callables = new Map<string, Located<DeclOf<"def"> | DeclOf<"route">>>();
  for (const d of [...of("def"), ...of("route")].sort((a, b) => a.file.localeCompare(b.file) || a.decl.span.line - b.decl.span.line)) {
    const n = d.decl.name.name;
    const prev = callables.get(n);
    if (prev) {
      rep("RW2009", `duplicate ${d.decl.k} \`${n}\``, { file: d.file, span: d.decl.name.span }, "defs and routes share one namespace; rename one of them",
        [{ message: `first declared here (a ${prev.decl.k})`, pos: posOf(prev.file, prev.decl.name.span) }]);
      continue;
    }
    if (n in BOARD_FNS || (BOARD_DOMAIN_FNS as string[]).includes(n)) {
      rep("RW2009", `${d.decl.k} \`${n}\` has the name of a board builtin`, { file: d.file, span: d.decl.name.span }, "rename it");
      continue;
    }
    callables.set(n, d);
    if (d.decl.k === "def") {
      const params = resolveParams(d.decl.params, d.file, "def", `def:${n}`);
      const ret = resolveType(d.decl.ret, d.file);
      res.declare({ key: `def:${n}`, kind: "def", name: n, file: d.file, span: d.decl.name.span, ...(ret ? { type: ret } : {}) });
      env.defs.set(n, { decl: d.decl, file: d.file, ...(params ? { params } : {}), ...(ret ? { ret } : {}) });
    } else {
      res.declare({ key: `route:${n}`, kind: "route", name: n, file: d.file, span: d.decl.name.span });
      const params = resolveParams(d.decl.params, d.file, "route", `route:${n}`);
      env.routes.set(n, { decl: d.decl, file: d.file, ...(params ? { params } : {}) });
    }
  }

  // tables share the namespace of defs, routes and board builtins
  declareTables(of("table"), env, (n) =>
    callables.has(n) ? `${callables.get(n)!.decl.k === "def" ? "a def" : "a route"}` : n in BOARD_FNS || (BOARD_DOMAIN_FNS as string[]).includes(n) ? "a board builtin" : undefined, rep);

  for (const [n, t] of env.tables ?? []) {
    res.declare({ key: `table:${n}`, kind: "table", name: n, file: t.file, span: t.decl.name.span, ...(t.result ? { type: t.result } : {}) });
    for (const p of t.decl.params) {
      const type = t.params?.find((x) => x.name === p.name.name)?.type;
      res.declare({ key: localKey(t.file, p.name.span), kind: "param", name: p.name.name, file: t.file, span: p.name.span, ...(type ? { type } : {}), parent: `table:${n}` });
    }
  }
  for (const n of [...Object.keys(BOARD_FNS), DISTANCE, ...BOARD_DOMAIN_FNS]) res.declare({ key: `builtin:${n}`, kind: "builtin", name: n, file: "", span: LINE1 });
}

/** The state record from the schema (schema.ts), and every field of it declared in the resolution table. */
export function declareState(c: Checking, schemaJson: JsonInput | undefined): void {
  const { env, r, res } = c;
  if (schemaJson) {
    res.files.schema = schemaJson.file;
    env.state = schemaToState(schemaJson.json, env, (code, msg, ptr, help) => r.report(code, msg, schemaJson.file, spanAt(schemaJson.positions, ptr), help));
    if (env.state) declareFields(res, env.state, schemaJson.file, schemaJson.positions);
  }
}

/** Declare every field of the state record and of the records it holds (`field:<JSON pointer>`, at the property's key in the schema). */
function declareFields(res: Resolution, state: Extract<Type, { k: "record" }>, file: string, positions: Map<string, Span>): void {
  const seen = new Set<object>();
  const walk = (t: Type): void => {
    if (t.k === "list") return walk(t.elem);
    if (t.k === "map") return walk(t.value);
    if (t.k !== "record" || seen.has(t.fields)) return;
    seen.add(t.fields);
    const ptr = recordPointer(t);
    for (const f of t.fields) {
      if (ptr !== undefined) {
        const fp = `${ptr}/properties/${f.name}`;
        res.declare({ key: `field:${fp}`, kind: "field", name: f.name, file, span: spanAt(positions, fp), type: f.type });
      }
      walk(f.type);
    }
  };
  walk(state);
}
