/**
 * The import architecture of compiler/ (issue 13): the file-level import graph has no circle,
 * and every arrow between folders points down the pipeline (syntax → check → ir → codegen |
 * verify → cli), as each folder's README says what it may use.
 *
 * The graph is dependency-cruiser's (TypeScript sources, `.js` specifiers resolved to `.ts`),
 * with every kind of import: static, `export … from`, dynamic `import()` with a literal, and
 * type-only ones (`import type`, `import("…").T`). Type-only imports count: they vanish from the
 * JavaScript, but a file that needs another's types cannot be read, moved or shipped without it,
 * so a circle or an upward arrow of types is the same design fault as one of values. One more
 * kind of edge is added by hand: a file that starts another by URL (`new Worker(new URL("./x.mjs",
 * import.meta.url))`, a solver process's script) loads it, so a worker whose entry imports the
 * module that starts it closes a circle too. (A worker script writes its imports as literals,
 * `compiled ? await import("./a.js") : await import("./a.ts")`, so that they are edges here.)
 *
 * Runs in a few seconds (one cruise of compiler/); no whole-edition proof.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import ts from "typescript";
import { cruise, getAvailableTranspilers, type ICruiseResult } from "dependency-cruiser";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The folders of compiler/ that a file of each folder may import (besides its own folder), as
 * the folders' READMEs say; "." is compiler/index.ts, the package's library entry. Nothing but
 * cli imports cli; codegen and verify never import each other.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // the catalog of codes, their pages, rendering, JSON input with positions: under every stage
  diagnostics: [],
  // the IR "imports nothing" (compiler/ir/README.md)
  ir: [],
  // no names, schema, types, IR, Z3 or codegen (compiler/syntax/README.md)
  syntax: ["diagnostics"],
  // never codegen, verify or Z3 (compiler/check/README.md); lowers to the IR
  check: ["syntax", "ir", "diagnostics"],
  // the compiler's own tokens; resolves no names, reads no schema (compiler/fmt/README.md)
  fmt: ["syntax", "diagnostics"],
  // the two backends read only the IR, and never each other
  codegen: ["ir", "diagnostics"],
  verify: ["ir", "diagnostics"],
  // its own evaluation of the IR, compared with codegen's and verify's, sharing neither
  interpret: ["ir", "diagnostics"],
  // knows no game and no generated module (compiler/scenarios/README.md)
  scenarios: ["ir", "diagnostics"],
  // manifests against the IR's rule ids (did-you-mean and positions from check/util.ts)
  coverage: ["check", "ir", "diagnostics"],
  // at the cli end: the IR and what the other commands write (proof results as compiler/ir/proof-report.ts
  // shapes, coverage, scenarios); never the prover (issue 24)
  report: ["ir", "coverage", "scenarios", "diagnostics"],
  // the front end's ASTs and checker, the formatter; the prover only as the cli gives it (compiler/lsp/keys.ts)
  lsp: ["syntax", "check", "ir", "fmt", "diagnostics"],
  // the library layer under cli (compiler/engine/README.md): finding editions, loading the generated
  // validators (generating them when needed), validating inputs, the witness judge; no printing
  engine: ["syntax", "check", "ir", "codegen", "verify", "interpret", "scenarios", "diagnostics"],
  cli: ["syntax", "check", "ir", "codegen", "verify", "interpret", "scenarios", "coverage", "fmt", "lsp", "report", "engine", "diagnostics"],
  // the library API: the front end and the code generator (compiler/index.ts)
  ".": ["syntax", "check", "ir", "codegen", "diagnostics"],
};

/** npm packages that only some folders may load (statically or lazily): the solver and ts-morph are heavy. */
const PACKAGE_ONLY_IN: Record<string, readonly string[]> = {
  "z3-solver": ["verify"],
  "ts-morph": ["codegen", "engine"],
};

/** Entry files whose static value imports never load a package (the READMEs' lazy-loading promises). */
const NEVER_LOADS: { from: string; packages: string[]; why: string }[] = [
  { from: "compiler/cli/main.ts", packages: ["z3-solver", "ts-morph"], why: "subcommands are imported lazily (compiler/cli/README.md)" },
  { from: "compiler/cli/check.ts", packages: ["z3-solver", "ts-morph"], why: "`rulewright check` loads neither (compiler/cli/README.md)" },
  { from: "compiler/lsp/server.ts", packages: ["z3-solver"], why: "the language server never loads the solver (compiler/lsp/README.md)" },
];

interface Edge {
  from: string;
  to: string;
  /** type-only: erased from the JavaScript */
  typeOnly: boolean;
  /** `import()` or a file started by URL: loaded when used, not when the importer loads */
  lazy: boolean;
  kind: string;
}

/** The folder of compiler/ a file belongs to ("." for a file directly in compiler/). */
function folderOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? parts[1]! : ".";
}

/** An npm package's name from a module specifier (`z3-solver`, `@scope/name`, `tsx/esm/api` → `tsx`). */
function packageName(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * Files that a file starts by URL: `new URL("./x", import.meta.url)` naming a source file of
 * compiler/ (a worker thread's or solver process's script). Targets outside compiler/ or that
 * exist only compiled (`./worker.js`) are not edges of this graph.
 */
function startedByUrl(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/new\s+URL\(\s*["'](\.{1,2}\/[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!));
    if (target.startsWith("compiler/") && /\.(ts|mjs)$/.test(target) && fs.existsSync(path.join(ROOT, target))) out.push(target);
  }
  return out;
}

/** The circles of a graph: its strongly connected components of more than one file, or a file importing itself (Tarjan). */
function circles(files: string[], next: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let n = 0;
  const visit = (v: string): void => {
    index.set(v, n);
    low.set(v, n++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (next.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const f of [...files].sort()) if (!index.has(f)) visit(f);
  return out;
}

/** One shortest circle through `start` inside its component, as `a → b → a`, for the message. */
function circleThrough(start: string, scc: Set<string>, next: Map<string, string[]>): string {
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of next.get(v) ?? []) {
      if (!scc.has(w)) continue;
      if (w === start) {
        const pathBack = [v];
        while (pathBack[0] !== start) pathBack.unshift(prev.get(pathBack[0]!)!);
        return [...pathBack, start].join(" → ");
      }
      if (!prev.has(w) && w !== start) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return start;
}

/** the files of compiler/, sorted */
const files: string[] = [];
/** edges between files of compiler/ */
const edges: Edge[] = [];
/** every npm package a file of compiler/ imports, with how */
const packages: { from: string; name: string; typeOnly: boolean; lazy: boolean }[] = [];
/** relative imports that resolve to no file (the graph would miss an edge) */
const unresolved: string[] = [];

beforeAll(async () => {
  const { output } = await cruise(
    ["compiler"],
    { baseDir: ROOT, tsPreCompilationDeps: true, doNotFollow: { path: "node_modules" } },
    {},
    { tsConfig: extractTSConfig(path.join(ROOT, "tsconfig.json")) },
  );
  const result = output as ICruiseResult;
  for (const m of result.modules) {
    if (!m.source.startsWith("compiler/")) continue;
    files.push(m.source);
    for (const d of m.dependencies) {
      const typeOnly = d.dependencyTypes.includes("type-only") || d.dependencyTypes.includes("type-import");
      if (d.coreModule) continue;
      if (d.module.startsWith(".")) {
        if (d.couldNotResolve) unresolved.push(`${m.source}: ${d.module}`);
        else edges.push({ from: m.source, to: d.resolved, typeOnly, lazy: d.dynamic, kind: d.dependencyTypes.join(",") });
      } else packages.push({ from: m.source, name: packageName(d.module), typeOnly, lazy: d.dynamic });
    }
    for (const to of startedByUrl(m.source)) edges.push({ from: m.source, to, typeOnly: false, lazy: true, kind: "started by URL" });
  }
  files.sort();
}, 600_000);

describe("the import graph of compiler/", () => {
  it("is the whole of compiler/: TypeScript is parsed, every relative import resolves", () => {
    // dependency-cruiser silently skips TypeScript when no supported compiler is installed
    expect(getAvailableTranspilers().find((t) => t.name === "typescript")?.available).toBe(true);
    const onDisk = fs
      .readdirSync(path.join(ROOT, "compiler"), { recursive: true, encoding: "utf8" })
      .filter((f) => /\.(ts|mjs)$/.test(f))
      .map((f) => `compiler/${f.split(path.sep).join("/")}`)
      .sort();
    expect(files.filter((f) => /\.(ts|mjs)$/.test(f))).toEqual(onDisk);
    expect(unresolved).toEqual([]);
    // edges of every kind are seen
    const has = (from: string, to: string) => edges.find((e) => e.from === from && e.to === to);
    expect(has("compiler/check/editions.ts", "compiler/syntax/index.ts")?.typeOnly).toBe(false);
    expect(has("compiler/verify/index.ts", "compiler/ir/types.ts")?.typeOnly).toBe(true);
    expect(has("compiler/engine/loader.ts", "compiler/codegen/index.ts")?.lazy).toBe(true);
    expect(packages.find((p) => p.from === "compiler/verify/run/z3.ts" && p.name === "z3-solver")).toEqual({ from: "compiler/verify/run/z3.ts", name: "z3-solver", typeOnly: false, lazy: false });
    expect(edges.some((e) => e.from === "compiler/verify/run/runner.ts" && e.to === "compiler/verify/run/worker.ts" && e.kind === "started by URL")).toBe(true);
    // nothing in compiler/ imports generated/, test/ or bench/ (DESIGN.md)
    expect(edges.filter((e) => !e.to.startsWith("compiler/")).map((e) => `${e.from} → ${e.to}`)).toEqual([]);
  });

  it("has no circle of imports between files (type-only imports and started workers included)", () => {
    const next = new Map<string, string[]>();
    for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
    const found = circles(files, next).map((scc) => circleThrough(scc[0]!, new Set(scc), next));
    expect(found).toEqual([]);
  });

  it("points down the pipeline: each folder imports only the folders its README allows", () => {
    const folders = new Set(files.map(folderOf));
    // every folder has its row (a new folder is placed in the table before it lands)
    expect([...folders].filter((f) => !(f in MAY_IMPORT))).toEqual([]);
    const upward = edges
      .filter((e) => folderOf(e.from) !== folderOf(e.to) && !MAY_IMPORT[folderOf(e.from)]?.includes(folderOf(e.to)))
      .map((e) => `${e.from} → ${e.to} (${folderOf(e.from)} may not import ${folderOf(e.to)}${e.typeOnly ? "; type-only" : ""})`);
    expect(upward).toEqual([]);
  });

  it("the table itself is a layering: no circle of folders, only cli imports cli, codegen and verify apart", () => {
    const next = new Map(Object.entries(MAY_IMPORT).map(([f, to]) => [f, [...to]]));
    expect(circles(Object.keys(MAY_IMPORT), next)).toEqual([]);
    expect(Object.entries(MAY_IMPORT).filter(([, to]) => to.includes("cli")).map(([f]) => f)).toEqual([]);
    expect(MAY_IMPORT.codegen).not.toContain("verify");
    expect(MAY_IMPORT.verify).not.toContain("codegen");
  });

  it("loads z3-solver only from verify and ts-morph only from codegen and engine", () => {
    const misplaced = packages
      .filter((p) => p.name in PACKAGE_ONLY_IN && !PACKAGE_ONLY_IN[p.name]!.includes(folderOf(p.from)))
      .map((p) => `${p.from} → ${p.name}`);
    expect(misplaced).toEqual([]);
  });

  it.each(NEVER_LOADS)("$from never loads $packages at start-up: $why", ({ from, packages: banned }) => {
    // the files a module loads with it: static value imports, transitively (type-only and lazy ones are not loaded)
    const via = new Map<string, string | undefined>([[from, undefined]]);
    const queue = [from];
    while (queue.length) {
      const f = queue.shift()!;
      for (const e of edges) if (e.from === f && !e.typeOnly && !e.lazy && !via.has(e.to)) via.set(e.to, f), queue.push(e.to);
    }
    expect(files).toContain(from);
    const chain = (f: string): string => (via.get(f) === undefined ? f : `${chain(via.get(f)!)} → ${f}`);
    const loads = packages.filter((p) => via.has(p.from) && !p.typeOnly && !p.lazy && banned.includes(p.name)).map((p) => `${chain(p.from)} → ${p.name}`);
    expect(loads).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// size limits (issue 24): no source file of compiler/ over MAX_FILE_LINES lines, no function over
// MAX_FUNCTION_LINES lines

const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 150;

/**
 * Today's violators (2026-12-03, before the splits of issue 24 land), each with its size then:
 * an entry lets that file or function stay as big as it is, never grow. A new violator fails, an
 * entry that has grown fails, and an entry that is no longer over the limit (split, moved,
 * renamed) fails until it is taken off this list. Empty it; never add to it.
 */
const SIZE_EXCEPTIONS: Record<string, number> = {
  // files (lines)
  // functions (lines, from the first line of its declaration to its closing brace)
};

/** The lines of a text file (a final newline ends the last line, it does not start another). */
function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/**
 * A function's name as a reader finds it: its own name, else the variable, property or class
 * member it is assigned to, qualified by its class (`Encoder.bool`); `(anonymous)` otherwise.
 */
function functionName(node: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  const own = node.name && !ts.isComputedPropertyName(node.name) ? node.name.getText(sf) : ts.isConstructorDeclaration(node) ? "constructor" : undefined;
  const p = node.parent;
  const name =
    own ??
    (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && !ts.isComputedPropertyName(p.name) ? p.name.getText(sf) : "(anonymous)");
  const cls = ts.isClassLike(p) ? p : p && ts.isPropertyDeclaration(p) && ts.isClassLike(p.parent) ? p.parent : undefined;
  return cls?.name ? `${cls.name.text}.${name}` : name;
}

/** Every function with a body in a source text (declarations, methods, accessors, constructors, arrows, function expressions), with its line count. */
function functionSizes(file: string, text: string): { name: string; lines: number }[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ name: functionName(node, sf), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe("size limits of compiler/ (issue 24)", () => {
  /** `file` or `file function` → its size, for every one over its limit */
  const over = new Map<string, number>();
  beforeAll(() => {
    for (const f of files.filter((x) => /\.(ts|mts|mjs)$/.test(x))) {
      const text = fs.readFileSync(path.join(ROOT, f), "utf8");
      const n = lineCount(text);
      if (n > MAX_FILE_LINES) over.set(f, n);
      for (const fn of functionSizes(f, text)) if (fn.lines > MAX_FUNCTION_LINES) over.set(`${f} ${fn.name}`, Math.max(fn.lines, over.get(`${f} ${fn.name}`) ?? 0));
    }
  });

  it("measures functions as a reader counts them", () => {
    const text = ["export function f() {", "  const g = () => {", "    return 1;", "  };", "  return g();", "}", "class C {", "  m(): void {}", "}", ""].join("\n");
    expect(lineCount(text)).toBe(9);
    expect(functionSizes("x.ts", text)).toEqual([
      { name: "f", lines: 6 },
      { name: "g", lines: 3 },
      { name: "C.m", lines: 1 },
    ]);
  });

  it(`has no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES} lines, but the listed ones, none grown`, () => {
    const problems: string[] = [];
    for (const [key, n] of over) {
      const allowed = SIZE_EXCEPTIONS[key];
      if (allowed === undefined) problems.push(`${key}: ${n} lines (limit ${key.includes(" ") ? MAX_FUNCTION_LINES : MAX_FILE_LINES}): split it`);
      else if (n > allowed) problems.push(`${key}: ${n} lines, grown from ${allowed}: split it, never grow a listed one`);
    }
    for (const key of Object.keys(SIZE_EXCEPTIONS)) if (!over.has(key)) problems.push(`${key}: now within its limit (or gone): take it off SIZE_EXCEPTIONS`);
    expect(problems).toEqual([]);
  });
});
