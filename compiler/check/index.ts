/**
 * The front-end driver: load an edition folder, parse every rule file, read the schema and the
 * board, resolve and type-check every declaration, lower to IR. Bad input never throws.
 * Stops after parsing when a file has syntax errors (checking a partial AST only cascades).
 */
import { createHash } from "node:crypto";
import path from "node:path";
import type { Diagnostic, Span } from "../diagnostics/types.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type {
  Citation, EnumType, Expr, IRAction, IREdition, IREnum, IRExemption, IRInvariant, IRDecline, IRParam, IRRoute, IRRule, IRScope, Provenance, Type,
} from "../ir/types.js";
import type { Annotation, Citation as CitationRef, Decl, Param, TypeRef } from "../syntax/ast.js";
import { assemble, editionLayout, shownName } from "./editions.js";
import { ANALYSES, EXEMPTION_ANALYSES, RULE_ANALYSES, SEVERITY_LEVELS, type AnalysisKind, type SeverityLevel, type SeverityOverride } from "../ir/analyses.js";
import { checkBoard } from "./board.js";
import { enumType, typeName, type DeclOf, type EnumInfo, type Env, type Located, type Origin, type ParamInfo } from "./env.js";
import { BOARD_DOMAIN_FNS, BOARD_FNS, DISTANCE, ExprChecker, type Ctx } from "./expr.js";
import { schemaToState } from "./schema.js";
import { checkTables, declareTables } from "./tables.js";
import { checkIntRanges } from "./ranges.js";
import { LINE1, Reporter, citationStub, didYouMean, jsonPositions, posOf, spanAt, type Help } from "./util.js";
import { parseJson, stripBom } from "../diagnostics/json.js";
import { Resolution, localKey } from "./resolution.js";
import { recordPointer } from "./schema.js";
import { MAX_INPUT_FILE_BYTES, describeInputProblem, readConfinedFile, resolveConfined, utf8Text } from "../diagnostics/files.js";

export { renderDiagnostic } from "../diagnostics/render.js";

const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
/** Hash of a text input with line endings normalized, so a CRLF checkout is not "stale". */
const textHash = (b: Buffer) => sha256(b.toString("utf8").replace(/\r\n?/g, "\n"));

/**
 * `opts.readFile(abs)`: the text of a rule file to use instead of the disk's (the language
 * server's open, unsaved documents); undefined = read the disk. `opts.unsavedIn(absDir)`: names of
 * `.rules` files in that folder that exist only in the editor (a new file not saved yet), read
 * with `readFile` as part of the folder. Schema and board are always read from disk.
 */
export function loadEdition(editionDir: string, opts?: { repoRoot?: string; readFile?: (abs: string) => string | undefined; unsavedIn?: (absDir: string) => string[] }): LoadResult {
  const r = new Reporter();
  const repoRoot = opts?.repoRoot ?? process.cwd();
  const folder = path.relative(repoRoot, path.resolve(repoRoot, editionDir)).split(path.sep).join("/") || ".";
  const resolution = new Resolution({ folder, rules: [], ...editionLayout(path.posix.basename(folder)) });
  try {
    const edition = load(editionDir, repoRoot, r, resolution, opts?.readFile, opts?.unsavedIn);
    return r.errorCount === 0 && edition ? { edition, diagnostics: r.diagnostics, resolution } : { diagnostics: r.diagnostics, resolution };
  } catch (e) {
    // INVARIANT: unreachable on any input; if it is reached, report instead of throwing.
    r.report("RW4001", `internal error while checking \`${editionDir}\`: ${(e as Error).message}`, editionDir, LINE1, "please report this with the input files");
    return { diagnostics: r.diagnostics, resolution };
  }
}

/** What `loadEdition` gives: the IR (only without error diagnostics), the diagnostics, and the resolution table (always; partial when the edition has errors). */
export interface LoadResult {
  edition?: IREdition;
  diagnostics: Diagnostic[];
  /** every name's declaration and uses, and the edition's files (compiler/check/resolution.ts) */
  resolution: Resolution;
}

function load(editionDir: string, repoRoot: string, r: Reporter, res: Resolution, readFile?: (abs: string) => string | undefined, unsavedIn?: (absDir: string) => string[]): IREdition | undefined {
  const absDir = path.resolve(repoRoot, editionDir);
  const rel = (abs: string) => path.relative(repoRoot, abs).split(path.sep).join("/") || ".";
  const inputs: { file: string; sha256: string }[] = [];

  // 1. parse the edition, its ancestors (`extends`) and the modules they import
  const asm = assemble(absDir, { repoRoot, r, inputs, textHash, readFile, unsavedIn });
  res.files.rules = inputs.map((i) => i.file);
  if (!asm) return undefined;
  const leaf = asm.levels[asm.levels.length - 1]!;
  const checkedFrom = r.diagnostics.length;
  const decls = asm.decls;

  const of = <K extends Decl["k"]>(k: K) => decls.filter((d) => d.decl.k === k) as Located<DeclOf<K>>[];
  const rep = (code: DiagnosticCode, msg: string, at: { file: string; span: Span }, help?: Help, related?: Diagnostic["related"]) =>
    r.report(code, msg, at.file, at.span, help, related);

  // 2. edition / schema / board declarations: one edition per folder (assemble checks it); one
  // schema and one board, from the nearest edition of the chain that declares them
  const editionDecl = leaf.edition!;
  const single = <K extends "schema" | "board">(k: K, shape: string): Located<DeclOf<K>> | undefined => {
    for (const level of [...asm.levels].reverse()) {
      const ds = of(k).filter((d) => d.origin?.edition === level.folder);
      if (!ds.length) continue;
      for (const d of ds.slice(1)) {
        rep("RW2015", `second \`${k}\` declaration`, { file: d.file, span: (d.decl as Decl).span }, `an edition has exactly one \`${k}\` declaration; remove this one`,
          [{ message: "the first one", pos: posOf(ds[0]!.file, (ds[0]!.decl as Decl).span) }]);
      }
      return ds[0];
    }
    rep("RW2015", `no \`${k}\` declaration in \`${rel(absDir)}\``, { file: leaf.firstFile, span: LINE1 },
      `add \`${shape}\` (by convention in edition.rules)${asm.levels.length > 1 ? "; a variant inherits its parent's" : ""}`);
    return undefined;
  };
  const schemaDecl = single("schema", 'schema "state.schema.json"');
  const boardDecl = single("board", 'board "board.json"');
  const folderOf = (d: Located<unknown>) => asm.levels.find((l) => l.folder === d.origin?.edition)?.abs ?? absDir;

  /**
   * Reads the schema or board a declaration names, confined to the folder of the edition whose
   * file declares it (compiler/diagnostics/files.ts): an absolute path, `..` out of the folder or a
   * symlink leading out is RW4012; a device, FIFO or folder, or a file over 16 MB, is RW4013; a
   * file that is not UTF-8 text is RW4002 at the declaration (its bytes are never echoed).
   */
  const readJson = (d: Located<DeclOf<"schema" | "board">>): { json: unknown; file: string; positions: Map<string, Span> } | undefined => {
    const folder = folderOf(d);
    const at = { file: d.file, span: d.decl.pathSpan };
    const what = `${d.decl.k} file`;
    const shownPath = shownName(d.decl.path);
    const resolved = resolveConfined(d.decl.path, folder, folder);
    const got = "abs" in resolved ? readConfinedFile(resolved.abs, [folder, repoRoot]) : resolved;
    if ("problem" in got) {
      const p = got.problem;
      const code: DiagnosticCode = p.k === "absolute" || p.k === "outside" ? "RW4012" : p.k === "not-file" || p.k === "too-large" ? "RW4013" : "RW4001";
      rep(code, code === "RW4001" && "abs" in resolved ? `cannot read ${what} \`${rel(resolved.abs)}\`` : `${d.decl.k === "schema" ? "the schema" : "the board"} path \`${shownPath}\` ${describeInputProblem(p, rel(folder))}`, at,
        code === "RW4012" ? `name a file inside the edition folder \`${rel(folder)}\`, relative to it (e.g. \`${d.decl.k === "schema" ? "state.schema.json" : "board.json"}\`)`
        : code === "RW4013" ? `a ${what} is a regular JSON file of at most ${MAX_INPUT_FILE_BYTES / (1024 * 1024)} MB`
        : `the path is relative to the edition folder \`${rel(folder)}\``);
      return undefined;
    }
    const file = rel((resolved as { abs: string }).abs);
    inputs.push({ file, sha256: textHash(got.buf) });
    const decoded = utf8Text(got.buf);
    if (decoded === undefined) {
      rep("RW4002", `the ${what} \`${file}\` is not UTF-8 text`, at, `a ${what} is a JSON text file`);
      return undefined;
    }
    const text = stripBom(decoded);
    const parsed = parseJson(text);
    if (parsed.error) {
      const { line, column, message } = parsed.error;
      r.report("RW4002", `invalid JSON: ${message}`, file, { line, column, endLine: line, endColumn: column + 1 }, "fix the JSON syntax");
      return undefined;
    }
    return { json: parsed.value, file, positions: jsonPositions(text) };
  };

  // 3. board
  const env: Env = { enums: new Map(), memberIndex: new Map(), defs: new Map(), routes: new Map(), actions: new Map() };
  const boardJson = boardDecl && readJson(boardDecl);
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

  // 4. enums
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

  // 5. types of parameters
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
        if (t.name.name === "Space" && boardDecl) return undefined; // the board failed
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

  // 6. actions, defs, routes (names, signatures)
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

  // 7. schema → state
  const schemaJson = schemaDecl && readJson(schemaDecl);
  if (schemaJson) {
    res.files.schema = schemaJson.file;
    env.state = schemaToState(schemaJson.json, env, (code, msg, ptr, help) => r.report(code, msg, schemaJson.file, spanAt(schemaJson.positions, ptr), help));
    if (env.state) declareFields(res, env.state, schemaJson.file, schemaJson.positions);
  }

  // 8. expressions
  const ex = new ExprChecker(env, r, res);
  /** The context of an expression over parameters, visible in `within` of `file` (recorded as their scope). */
  const paramCtx = (file: string, params: ParamInfo[], within: Span): Ctx => {
    for (const p of params) if (p.key) res.scope({ file, span: within, name: p.name, key: p.key });
    return {
      file,
      scope: new Map(params.map((p) => [p.name, { type: p.type, irName: p.name, ...(p.key ? { key: p.key } : {}) }])),
      inUse: new Set(params.map((p) => p.name)),
    };
  };
  const BOOL: Type = { k: "bool" };
  // defs: check every body once, even unused ones
  for (const n of env.defs.keys()) ex.defTemplate(n, undefined, undefined);

  const ids = new Map<string, { file: string; span: Span; what: string }>();
  const claimId = (id: { name: string; span: Span }, file: string, what: string): boolean => {
    const prev = ids.get(id.name);
    if (prev) {
      rep("RW2010", `duplicate id \`${id.name}\``, { file, span: id.span }, "rule, exemption and invariant ids are unique in an edition; rename this one",
        [{ message: `first used here by ${prev.what}`, pos: posOf(prev.file, prev.span) }]);
      return false;
    }
    ids.set(id.name, { file, span: id.span, what });
    return true;
  };
  const cites = editionDecl.decl.cites;
  /**
   * The citation a rule or exemption shows in this edition: an unkeyed one cites the key of the
   * edition whose file declares it; otherwise the one keyed with that edition's `cites` key (for a
   * module, the key of the edition that imports it). Reports RW2109/RW2105.
   */
  const citation = (cs: CitationRef[], id: { name: string; span: Span }, file: string, origin: Origin | undefined, what: string): Citation | undefined => {
    const key = origin?.cites ?? cites;
    if (origin?.module) {
      for (const c of cs.filter((x) => !x.key)) {
        rep("RW2109", `a citation in module \`${origin.module}\` needs a game key`, { file, span: c.span },
          `write the game before the section, e.g. \`${key} ${c.named ? `§"${c.value}"` : `§${c.value}`}\`; a module is shared by editions of several games`);
      }
    }
    const c = cs.find((x) => x.key?.name === key) ?? (origin?.module ? undefined : cs.find((x) => !x.key));
    if (c) {
      const text = c.named ? `${key} §"${c.value}"` : `${key} §${c.value}`;
      return { source: key, section: c.value, text, ...(c.named ? { named: true as const } : {}) };
    }
    if (origin?.module && cs.some((x) => !x.key)) return undefined; // RW2109 said it
    const keys = cs.map((x) => x.key?.name).filter((k): k is string => !!k);
    const importer = origin && origin.edition !== leaf.folder ? `edition \`${origin.edition}\`` : `this edition`;
    rep("RW2105", origin?.module
      ? `${what} \`${id.name}\` of module \`${origin.module}\` has no citation for \`${key}\`, the \`cites\` key of ${importer} that imports it`
      : `${what} \`${id.name}\` has no citation for \`${key}\`, the edition's \`cites\` key`,
      { file, span: cs[0]?.span ?? id.span },
      citationStub(key, cs, id.span, `add \`${key} §<section>\` to its citations (it cites ${keys.map((k) => `\`${k}\``).join(", ") || "nothing"})`));
    return undefined;
  };

  // routes
  const irRoutes: IRRoute[] = [];
  const space = enumType(env, "Space");
  for (const [n, rt] of env.routes) {
    if (!rt.params || !space) continue;
    const base = paramCtx(rt.file, rt.params, rt.decl.span);
    const seen = new Map<string, Span>();
    const got: Partial<Record<"land" | "sea" | "port" | "max_seas" | "passes", { v?: string; e?: Expr }>> = {};
    let ok = true;
    for (const c of rt.decl.clauses) {
      if (seen.has(c.k)) {
        rep("RW2009", `second \`${c.k}\` clause in route \`${n}\``, { file: rt.file, span: c.span }, "combine the conditions with `and`",
          [{ message: "the first one", pos: posOf(rt.file, seen.get(c.k)!) }]);
        ok = false;
        continue;
      }
      seen.set(c.k, c.span);
      if (c.k === "land" || c.k === "sea" || c.k === "port") {
        const scope = new Map(base.scope);
        const key = localKey(rt.file, c.var.span);
        res.declare({ key, kind: "local", name: c.var.name, file: rt.file, span: c.var.span, type: space });
        res.scope({ file: rt.file, span: c.span, name: c.var.name, key });
        scope.set(c.var.name, { type: space, irName: c.var.name, key });
        const e = ex.expect(c.expr, { ...base, scope, inUse: new Set([...base.inUse, c.var.name]) }, BOOL, `the \`${c.k}\` clause`);
        if (!e) ok = false;
        got[c.k] = { v: c.var.name, ...(e ? { e } : {}) };
      } else {
        const e = ex.expect(c.expr, base, c.k === "max_seas" ? { k: "int" } : BOOL, `the \`${c.k}\` clause`);
        if (!e) ok = false;
        got[c.k] = e ? { e } : {};
      }
    }
    if (!ok) continue;
    const T = (pos: Span): Expr => ({ k: "lit", value: true, type: BOOL, pos: posOf(rt.file, pos) });
    irRoutes.push({
      name: n,
      params: rt.params.map(irParam),
      landVar: got.land?.v ?? "s", land: got.land?.e ?? T(rt.decl.name.span),
      seaVar: got.sea?.v ?? "z", sea: got.sea?.e ?? T(rt.decl.name.span),
      portVar: got.port?.v ?? "q", port: got.port?.e ?? T(rt.decl.name.span),
      maxSeas: got.max_seas?.e ?? null,
      passes: got.passes?.e ?? T(rt.decl.name.span),
      pos: posOf(rt.file, rt.decl.name.span),
    });
  }

  // during: Phase/Segment
  const scopeOf = (d: DeclOf<"rule">, file: string): IRScope | null | undefined => {
    if (!d.during) return null;
    let ok = true;
    const check = (which: "Phase" | "Segment", field: "phase" | "segment", m: { name: string; span: Span }) => {
      const en = env.enums.get(which);
      if (en?.members.includes(m.name)) res.use({ file, span: m.span, key: `member:${en.base}.${m.name}`, type: enumType(env, en.name)! });
      if (!en) {
        rep("RW2018", `\`during\` needs \`enum ${which}\``, { file, span: m.span }, `declare \`enum ${which} { … }\` and a state field \`${field}\` of that type`);
        ok = false;
        return;
      }
      if (!en.members.includes(m.name)) {
        rep("RW2018", `\`${m.name}\` is not a member of \`${which}\``, { file, span: m.span }, didYouMean(m.name, en.members, `members: ${en.members.join(", ")}`));
        ok = false;
      }
      const f = env.state?.fields.find((x) => x.name === field);
      if (env.state && (!f || f.type.k !== "enum" || f.type.base !== en.base)) {
        rep("RW2018", `\`during\` needs a state field \`${field}\` of type \`${which}\`${f ? `, found \`${typeName(f.type)}\`` : ""}`, { file, span: d.during!.span },
          `add \`"${field}": { "$ref": "#/$defs/${which}" }\` to the schema's properties`);
        ok = false;
      }
    };
    check("Phase", "phase", d.during.phase);
    if (d.during.segment) check("Segment", "segment", d.during.segment);
    if (!ok) return undefined;
    return { phase: d.during.phase.name, ...(d.during.segment ? { segment: d.during.segment.name } : {}) };
  };

  /**
   * `@severity <analysis> <level> "<note>"` annotations of a rule or exemption (see
   * compiler/ir/analyses.ts); reports RW2050–RW2052 and returns the overrides (absent when none).
   */
  const severitiesOf = (anns: Annotation[], file: string, what: "rule" | "exemption"): SeverityOverride[] | undefined => {
    const applicable = what === "rule" ? RULE_ANALYSES : EXEMPTION_ANALYSES;
    const out: SeverityOverride[] = [];
    for (const a of anns) {
      if (a.name.name !== "severity") {
        rep("RW2050", `unknown annotation \`@${a.name.name}\``, { file, span: a.name.span }, didYouMean(a.name.name, ["severity"], "the only annotation is `@severity <analysis> <level> \"why\"`"));
        continue;
      }
      const [kind, level, ...extra] = a.args;
      if (!kind || !level || extra.length) {
        rep("RW2051", `\`@severity\` takes an analysis and a level, e.g. \`@severity redundant_rule off "stated twice on purpose"\``, { file, span: a.span },
          `analyses: ${applicable.join(", ")}; levels: ${SEVERITY_LEVELS.join(", ")}`);
        continue;
      }
      if (!(ANALYSES as readonly string[]).includes(kind.name)) {
        rep("RW2051", `unknown analysis \`${kind.name}\``, { file, span: kind.span }, didYouMean(kind.name, applicable, `analyses of a ${what}: ${applicable.join(", ")}`));
        continue;
      }
      if (!applicable.includes(kind.name as AnalysisKind)) {
        rep("RW2051", `\`${kind.name}\` is not about a single ${what}, so a ${what} cannot change its severity`, { file, span: kind.span }, `analyses of a ${what}: ${applicable.join(", ")}`);
        continue;
      }
      if (!(SEVERITY_LEVELS as readonly string[]).includes(level.name)) {
        rep("RW2051", `unknown severity level \`${level.name}\``, { file, span: level.span }, didYouMean(level.name, SEVERITY_LEVELS, `levels: ${SEVERITY_LEVELS.join(", ")}`));
        continue;
      }
      const prev = out.find((o) => o.kind === kind.name);
      if (prev) {
        rep("RW2052", `\`${kind.name}\` is given a severity twice`, { file, span: kind.span }, "keep one `@severity` line per analysis",
          [{ message: "first given here", pos: prev.pos }]);
        continue;
      }
      out.push({ kind: kind.name as AnalysisKind, level: level.name as SeverityLevel, ...(a.note !== undefined ? { note: a.note } : {}), pos: posOf(file, a.span) });
    }
    return out.length ? out : undefined;
  };

  // rules
  const irRules: IRRule[] = [];
  const ruleInfo = new Map<string, { action?: string; groups: string[]; file: string; span: Span }>();
  for (const { loc: { decl: d, file, origin }, provenance } of asm.rules) {
    const fresh = claimId(d.id, file, "a rule");
    const cite = citation(d.citations, d.id, file, origin, "rule");
    const groups = [...new Set(d.groups.map((g) => g.name))];
    const act = env.actions.get(d.action.name);
    if (fresh) res.declare({ key: `rule:${d.id.name}`, kind: "rule", name: d.id.name, file, span: d.id.span });
    if (act) res.use({ file, span: d.action.span, key: `action:${d.action.name}` });
    for (const g of d.groups) {
      const key = `group:${g.name}`;
      if (res.declaration(key)) res.use({ file, span: g.span, key });
      else res.declare({ key, kind: "group", name: g.name, file, span: g.span });
    }
    if (fresh) ruleInfo.set(d.id.name, { ...(act ? { action: d.action.name } : {}), groups, file, span: d.id.span });
    if (!act) {
      rep("RW2007", `unknown action \`${d.action.name}\``, { file, span: d.action.span }, didYouMean(d.action.name, env.actions.keys(), "declare it with `action`"));
      continue;
    }
    if (!act.params) continue;
    if (d.kind === "oblige") {
      const others = act.params.filter((p) => !p.actor);
      if (others.length || !act.params.some((p) => p.actor)) {
        rep("RW2017", others.length
          ? `\`oblige\` on \`${d.action.name}\`, which has parameters other than its actor (${others.map((p) => "`" + p.name + "`").join(", ")})`
          : `\`oblige\` on \`${d.action.name}\`, which has no \`actor\` parameter`,
          { file, span: d.action.span }, "an obliged action names only who must do it; oblige an action like `pass(actor power: MajorPower)`",
          [{ message: `\`${d.action.name}\` is declared here`, pos: posOf(act.file, act.decl.name.span) }]);
      }
    }
    const scope = scopeOf(d, file);
    const when = ex.expect(d.when, paramCtx(file, act.params, d.span), BOOL, "a rule's `when` condition");
    const severities = severitiesOf(d.annotations ?? [], file, "rule");
    if (!when || scope === undefined || !fresh || !cite) continue;
    irRules.push({
      id: d.id.name, kind: d.kind, action: d.action.name, title: d.title, citation: cite, scope, groups, when, pos: posOf(file, d.id.span), provenance,
      ...(severities ? { severities } : {}),
    });
  }

  // exemptions
  const irExemptions: IRExemption[] = [];
  for (const { decl: d, file, origin } of of("exempt")) {
    const fresh = claimId(d.id, file, "an exemption");
    if (fresh) res.declare({ key: `exempt:${d.id.name}`, kind: "exempt", name: d.id.name, file, span: d.id.span });
    const cite = citation(d.citations, d.id, file, origin, "exemption");
    const groups: string[] = [];
    const ruleIds: string[] = [];
    let ok = true;
    // an inherited exemption keeps working when a variant removes rules it lifts
    const inherited = origin !== undefined && origin.edition !== leaf.folder;
    for (const t of d.targets) {
      if (t.k === "group") {
        if (res.declaration(`group:${t.group.name}`)) res.use({ file, span: t.group.span, key: `group:${t.group.name}` });
        if (![...ruleInfo.values()].some((ri) => ri.groups.includes(t.group.name)) && !(inherited && asm.removed.length)) {
          rep("RW2008", `no rule is in group \`(${t.group.name})\``, { file, span: t.group.span },
            didYouMean(t.group.name, [...new Set([...ruleInfo.values()].flatMap((ri) => ri.groups))], "put rules in the group by writing it after their title"));
          ok = false;
        }
        if (!groups.includes(t.group.name)) groups.push(t.group.name);
      } else {
        if (ruleInfo.has(t.id.name)) res.use({ file, span: t.id.span, key: `rule:${t.id.name}` });
        if (asm.removed.some((x) => x.id === t.id.name) && !ruleInfo.has(t.id.name)) continue;
        if (!ruleInfo.has(t.id.name)) {
          rep("RW2008", `unknown rule id \`${t.id.name}\``, { file, span: t.id.span }, didYouMean(t.id.name, ruleInfo.keys(), "name the id of a `rule`"));
          ok = false;
        }
        if (!ruleIds.includes(t.id.name)) ruleIds.push(t.id.name);
      }
    }
    const lifted = [...ruleInfo.entries()].filter(([id, ri]) => ruleIds.includes(id) || ri.groups.some((g) => groups.includes(g)));
    if (ok && !lifted.length) rep("RW2021", `exemption \`${d.id.name}\` lifts no rule`, { file, span: d.id.span }, "name a rule id or a group that has rules");
    // parameters common to every lifted rule's action (same name, same kind, same enum base)
    const liftedParams = lifted.map(([id, ri]) => ({ id, action: ri.action, params: ri.action ? env.actions.get(ri.action)?.params : undefined }));
    if (liftedParams.some((l) => !l.params)) ok = false;
    const common: ParamInfo[] = [];
    const missing = new Map<string, string>();
    for (const p of liftedParams.flatMap((l) => l.params ?? [])) {
      if (common.some((c) => c.name === p.name) || missing.has(p.name)) continue;
      const same = (q: ParamInfo | undefined) => !!q && q.type.k === p.type.k && (q.type.k !== "enum" || (p.type.k === "enum" && q.type.base === p.type.base));
      const lacking = liftedParams.find((l) => l.params && !same(l.params.find((q) => q.name === p.name)));
      if (lacking) {
        missing.set(p.name, `${lacking.action}\` of rule \`${lacking.id}`);
        continue;
      }
      // a lifted rule whose action is unknown (already reported) has no parameters to compare
      const all = liftedParams.flatMap((l) => (l.params ? [l.params.find((q) => q.name === p.name)!.type] : []));
      const identical = all.every((t) => JSON.stringify(t) === JSON.stringify(p.type));
      common.push({ name: p.name, type: identical || p.type.k !== "enum" ? p.type : enumType(env, p.type.base)!, actor: false });
    }
    const ctx: Ctx = { ...paramCtx(file, common, d.span), missingParam: missing };
    const when = ex.expect(d.when, ctx, BOOL, "an exemption's `when` condition");
    const severities = severitiesOf(d.annotations ?? [], file, "exemption");
    if (!when || !ok || !fresh || !cite) continue;
    irExemptions.push({ id: d.id.name, title: d.title, citation: cite, groups, rules: ruleIds, when, pos: posOf(file, d.id.span), provenance: provenanceOf(origin), ...(severities ? { severities } : {}) });
  }

  // invariants
  const irInvariants: IRInvariant[] = [];
  for (const { decl: d, file } of of("invariant")) {
    const fresh = claimId(d.id, file, "an invariant");
    if (fresh) res.declare({ key: `invariant:${d.id.name}`, kind: "invariant", name: d.id.name, file, span: d.id.span });
    const e = ex.expect(d.expr, { file, scope: new Map(), inUse: new Set() }, BOOL, "an invariant");
    if (e && fresh) irInvariants.push({ id: d.id.name, title: d.title, expr: e, pos: posOf(file, d.id.span) });
  }

  // declines: the move by which a power declines to act in a phase (dsl/README.md, "Declining to act")
  const irDeclines: IRDecline[] = [];
  const phaseEnum = env.enums.get("Phase");
  const declineOf = new Map<string, { file: string; span: Span }>();
  for (const { decl: d, file } of of("decline")) {
    let ok = true;
    const act = env.actions.get(d.action.name);
    if (act) res.use({ file, span: d.action.span, key: `action:${d.action.name}` });
    if (phaseEnum?.members.includes(d.phase.name)) res.use({ file, span: d.phase.span, key: `member:${phaseEnum.base}.${d.phase.name}`, type: enumType(env, "Phase")! });
    if (!act) {
      rep("RW2022", `unknown action \`${d.action.name}\``, { file, span: d.action.span }, didYouMean(d.action.name, env.actions.keys(), "declare it with `action`"));
      ok = false;
    } else if (act.params && (act.params.length !== 1 || !act.params[0]!.actor)) {
      rep("RW2022", `\`${d.action.name}\` cannot be a decline move: it has parameters other than its actor`, { file, span: d.action.span },
        "declining is one choice-free move: declare an action whose only parameter is its actor, e.g. `action end_deployments(actor power: MajorPower)`");
      ok = false;
    }
    if (!phaseEnum) {
      rep("RW2022", "`decline … during` needs `enum Phase`", { file, span: d.phase.span }, "declare `enum Phase { … }` and a state field `phase` of that type");
      ok = false;
    } else if (!phaseEnum.members.includes(d.phase.name)) {
      rep("RW2022", `\`${d.phase.name}\` is not a member of \`Phase\``, { file, span: d.phase.span }, didYouMean(d.phase.name, phaseEnum.members, `members: ${phaseEnum.members.join(", ")}`));
      ok = false;
    }
    const prev = declineOf.get(d.phase.name);
    if (prev) {
      rep("RW2022", `phase \`${d.phase.name}\` already has a decline move`, { file, span: d.phase.span }, "a phase has one decline move: remove one of the two declarations",
        [{ message: "the first one", pos: posOf(prev.file, prev.span) }]);
      ok = false;
    }
    if (!ok) continue;
    declineOf.set(d.phase.name, { file, span: d.phase.span });
    irDeclines.push({ phase: d.phase.name, action: d.action.name, title: d.title, pos: posOf(file, d.action.span) });
  }
  irDeclines.sort((a, b) => (a.phase < b.phase ? -1 : a.phase > b.phase ? 1 : 0));
  // a phase whose rules scope a move of a power (an action with an actor) names its decline move
  if (phaseEnum && !r.errorCount) {
    const firstScoped = new Map<string, IRRule>();
    for (const rule of irRules) {
      const ph = rule.scope?.phase;
      const a = env.actions.get(rule.action);
      if (ph && a?.params?.some((x) => x.actor) && !firstScoped.has(ph)) firstScoped.set(ph, rule);
    }
    for (const [ph, rule] of firstScoped) {
      if (declineOf.has(ph)) continue;
      const at = rule.pos;
      rep("RW2023", `phase \`${ph}\` has moves but no decline move`, { file: at.file, span: { line: at.line, column: at.column, endLine: at.line, endColumn: at.column + rule.id.length } },
        `say how a power declines to act in it, e.g. \`decline pass during ${ph} "…"\` (an action whose only parameter is its actor); without one the stuck-power analysis takes declining as always possible unless an obligation binds the power`);
    }
  }

  // tables (a variant's and a module's come through the assembly like defs)
  const irTables = checkTables(env, ex, rep, (t) => citation(t.decl.citations, t.decl.name, t.file, t.origin, "table"), repoRoot);

  // every arithmetic result within the safe integer range (RW3106; compiler/check/ranges.ts)
  checkIntRanges([
    ...irRules.map((x) => x.when),
    ...irExemptions.map((x) => x.when),
    ...irInvariants.map((x) => x.expr),
    ...irRoutes.flatMap((x) => [x.land, x.sea, x.port, ...(x.maxSeas ? [x.maxSeas] : []), x.passes]),
    ...irTables.flatMap((t) => [...t.keys, ...t.rows.flatMap((row) => (row.guard ? [row.guard] : []))]),
  ], { tables: irTables, spaces: env.board?.spaces.length ?? 0, spanOf: (p) => ex.spans.get(p), report: (code, msg, file, span, help) => r.report(code, msg, file, span, help) });

  // a problem found in a module's file is a problem of the module in this edition's vocabulary
  for (const d of r.diagnostics.slice(checkedFrom)) {
    const m = asm.moduleOfFile.get(d.file);
    if (m && !d.code.startsWith("RW21")) d.message += ` (in module \`${m}\`, checked for edition \`${leaf.folder}\`)`;
  }

  if (r.errorCount || !env.state || !env.board || !schemaJson) return undefined;

  // 9. IR
  const irEnums: IREnum[] = [...env.enums.values()].map((e) => ({ name: e.name, base: e.base, members: [...e.members], pos: posOf(e.file, e.span) }));
  const irActions: IRAction[] = [...env.actions.values()].map((a) => ({ name: a.decl.name.name, params: a.params!.map(irParam), pos: posOf(a.file, a.decl.name.span) }));
  inputs.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return {
    name: editionDecl.decl.name.name,
    folder: leaf.folder,
    title: editionDecl.decl.title,
    cites,
    ...(asm.levels.length > 1 ? { parent: asm.levels[asm.levels.length - 2]!.folder } : {}),
    modules: [...asm.modules.keys()].sort(),
    enums: irEnums,
    actions: irActions,
    rules: irRules,
    removed: asm.removed.map((x) => ({ ...x })),
    exemptions: irExemptions,
    invariants: irInvariants,
    ...(irDeclines.length ? { declines: irDeclines } : {}),
    routes: irRoutes,
    tables: irTables,
    state: env.state,
    schema: schemaJson.json as Record<string, unknown>,
    board: env.board,
    inputs,
    inputHash: sha256(inputs.map((i) => `${i.file}\0${i.sha256}\n`).join("")),
  };
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

function provenanceOf(origin: Origin | undefined): Provenance {
  // INVARIANT: assemble() gives every declaration an origin
  if (!origin) return { edition: "", change: "defined" };
  return { edition: origin.edition, change: origin.root ? "defined" : "added", ...(origin.module ? { module: origin.module } : {}) };
}

function irParam(p: ParamInfo): IRParam {
  return { name: p.name, type: p.type, actor: p.actor };
}

export type { EnumType };
