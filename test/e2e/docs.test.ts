/**
 * Docs that stay true (issue 24): every source file of compiler/ is named in its folder's
 * README.md (the nearest README.md at or above it; the top README.md for compiler/index.ts), and
 * no doc (each README.md, DESIGN.md, SECURITY.md, docs/*.md) and no source comment (compiler/,
 * test/, bench/, scripts/, bin/, editors/vscode/) names a file of the repository that does not
 * exist. A named path counts when it starts at a top folder of the repository (`compiler/…`,
 * `test/…`, `dsl/…`, …) or is a capitalised document (`DESIGN.md`, found in the naming file's
 * folder or at the root); paths with a placeholder (`generated/<edition>/`, `test/*.test.ts`)
 * and paths git ignores (outputs such as `proofs/.cache`, `dist/`) are not files of the
 * repository. Reads files only: a few seconds.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The repository's files (tracked, and new ones not ignored), as git lists them, `/`-separated. */
const FILES: string[] = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28 })
  .split("\n")
  .filter((f) => f && fs.existsSync(path.join(ROOT, f)));

/** The top folders a path named in a doc or comment starts at. */
const TOP = ["compiler", "test", "dsl", "bench", "scripts", "docs", "editors", "examples", "generated", "proofs", "conformance", "bin", ".ci"];

/** Characters that, right after a path, show it is a pattern or a template rather than a file. */
const PLACEHOLDER_AFTER = /^[<*{…$[]/;

/**
 * Paths named as examples, never files of the repository: a user's project (`rulewright init`'s
 * `dsl/my-edition`, `generated/my-game`) and the trees tests build in a temporary folder (a copy
 * of the mini edition as `dsl/mini`, a module `dsl/modules/passing`, `generated/tiny`).
 */
const EXAMPLES = ["dsl/my-edition", "generated/my-game", "dsl/mini", "dsl/modules/passing", "generated/tiny"];

/** The repository paths a text names: `{ name, at }` (at: index in the text), placeholders left out. */
export function namedPaths(text: string): { name: string; at: number }[] {
  const out: { name: string; at: number }[] = [];
  const re = new RegExp(`(?<![\\w./@~-])((?:${TOP.map((t) => t.replace(".", "\\.")).join("|")})/[\\w.\\-/]*\\w|[A-Z][A-Z_]+\\.md)(?![\\w-])`, "g");
  for (const m of text.matchAll(re)) {
    const after = text.slice(m.index + m[0].length);
    // `test/*.test.ts`, `generated/<edition>/…`, `proofs/{a,b}`: a pattern; `dsl/his/` followed by `…`
    if (PLACEHOLDER_AFTER.test(after) || /^[/.][<*{…$[]/.test(after)) continue;
    if (EXAMPLES.some((e) => m[0] === e || m[0].startsWith(`${e}/`))) continue;
    out.push({ name: m[0], at: m.index });
  }
  return out;
}

/** 1-based line of an index in a text. */
const lineAt = (text: string, at: number) => text.slice(0, at).split("\n").length;

/**
 * The paths git ignores, asked once for all: outputs of the tools (`proofs/.cache`, `dist/`, the
 * CI's `.ci/out`). A path counts as ignored when it, or a file inside it, is (`out/` patterns
 * match only folders, and a folder that does not exist yet is not one to git).
 */
function ignored(paths: string[]): Set<string> {
  if (!paths.length) return new Set();
  let out = "";
  try {
    out = execFileSync("git", ["check-ignore", "--no-index", "--stdin"], { cwd: ROOT, input: paths.flatMap((p) => [p, `${p}/x`]).join("\n"), encoding: "utf8" });
  } catch (e) {
    // exit 1: none is ignored
    out = (e as { stdout?: string }).stdout ?? "";
  }
  const asked = new Set(paths);
  return new Set(out.split("\n").flatMap((p) => (asked.has(p) ? [p] : asked.has(p.replace(/\/x$/, "")) ? [p.replace(/\/x$/, "")] : [])));
}

/** Whether a path named in `from` (a repository file) exists: from the root, or a document beside `from`. */
function exists(name: string, from: string): boolean {
  // an import specifier names the TypeScript source by its JavaScript name (`verify/index.js`)
  if (fs.existsSync(path.join(ROOT, name)) || (name.endsWith(".js") && fs.existsSync(path.join(ROOT, name.replace(/\.js$/, ".ts"))))) return true;
  return !name.includes("/") && fs.existsSync(path.join(ROOT, path.dirname(from), name));
}

/** The comments of a TypeScript or JavaScript source, each with its index in the text. */
export function comments(file: string, text: string): { text: string; at: number }[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".ts") || file.endsWith(".mts") ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const seen = new Map<number, string>();
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) if (!seen.has(r.pos)) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node): void => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const c of node.getChildren(sf)) visit(c);
  };
  visit(sf);
  return [...seen].map(([at, t]) => ({ text: t, at })).sort((a, b) => a.at - b.at);
}

const DOCS = FILES.filter((f) => /(^|\/)README\.md$/.test(f) || ["DESIGN.md", "SECURITY.md"].includes(f) || /^docs\/[^/]+\.md$/.test(f)).filter(
  // the rulebook fixtures' and test trees' own notes are docs too, but node_modules never is
  (f) => !f.includes("node_modules/"),
);
const SOURCES = FILES.filter((f) => /^(compiler|test|bench|scripts|bin|editors\/vscode)\//.test(f) && /\.(ts|mts|mjs|js|cjs)$/.test(f) && !f.includes("node_modules/") && !f.startsWith("editors/vscode/out/"));

describe("docs that stay true (issue 24)", () => {
  it("finds paths as a reader writes them", () => {
    const names = (t: string) => namedPaths(t).map((x) => x.name);
    expect(names("see compiler/verify/obligations.ts:75, and DESIGN.md \"Pipeline\".")).toEqual(["compiler/verify/obligations.ts", "DESIGN.md"]);
    expect(names("generated/<edition>/index.ts, test/*.test.ts, proofs/{a,b}")).toEqual([]);
    expect(names("../shared/maps/his and ~/test/x and node_modules/test/x")).toEqual([]);
    expect(names("(`dsl/his/`), bench/results/results.{md,json}, dsl/mini/war.rules")).toEqual(["dsl/his"]);
    const src = ['const a = "compiler/no/such.ts"; // see test/helpers/tiny-ir.ts', "/** DESIGN.md */", "const b = `// not a comment ${a}`;", ""].join("\n");
    expect(comments("x.ts", src).map((c) => c.text)).toEqual(["// see test/helpers/tiny-ir.ts", "/** DESIGN.md */"]);
    expect(exists("compiler/no/such.ts", "README.md")).toBe(false);
    expect(exists("DESIGN.md", "compiler/verify/diff.ts")).toBe(true);
    expect(exists("BOARD.md", "dsl/his/README.md")).toBe(true);
    expect(exists("compiler/verify/index.js", "compiler/lsp/README.md")).toBe(true);
    expect(ignored(["proofs/.cache/x", ".ci/out", "compiler/verify/diff.ts"])).toEqual(new Set(["proofs/.cache/x", ".ci/out"]));
  });

  it("names every source file of compiler/ in its folder's README.md", () => {
    const sources = FILES.filter((f) => f.startsWith("compiler/") && /\.(ts|mts|mjs|js)$/.test(f));
    expect(sources.length).toBeGreaterThan(100);
    const unnamed: string[] = [];
    for (const f of sources) {
      // the nearest README.md at or above the file's folder (compiler/index.ts: the top README)
      let dir = path.posix.dirname(f);
      while (dir !== "compiler" && dir !== "." && !fs.existsSync(path.join(ROOT, dir, "README.md"))) dir = path.posix.dirname(dir);
      const readme = dir === "compiler" ? "README.md" : `${dir}/README.md`;
      const text = fs.readFileSync(path.join(ROOT, readme), "utf8");
      const rel = dir === "compiler" ? f : path.posix.relative(dir, f);
      const word = (w: string) => new RegExp(`(?<![\\w.-])${w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`).test(text);
      if (!word(rel) && !(rel === path.posix.basename(f) && word(path.posix.basename(f)))) unnamed.push(`${f} (not in ${readme})`);
    }
    expect(unnamed).toEqual([]);
  });

  it("names no repository file that does not exist, in a doc or a source comment", () => {
    expect(DOCS).toEqual(expect.arrayContaining(["README.md", "DESIGN.md", "compiler/verify/README.md"]));
    expect(SOURCES.length).toBeGreaterThan(150);
    const named: { name: string; where: string; from: string }[] = [];
    for (const f of DOCS) {
      const text = fs.readFileSync(path.join(ROOT, f), "utf8");
      for (const p of namedPaths(text)) named.push({ name: p.name, from: f, where: `${f}:${lineAt(text, p.at)}` });
    }
    for (const f of SOURCES) {
      const text = fs.readFileSync(path.join(ROOT, f), "utf8");
      for (const c of comments(f, text)) for (const p of namedPaths(c.text)) named.push({ name: p.name, from: f, where: `${f}:${lineAt(text, c.at + p.at)}` });
    }
    expect(named.length).toBeGreaterThan(500);
    const missing = named.filter((n) => !exists(n.name, n.from));
    const outputs = ignored(missing.map((n) => n.name));
    expect(missing.filter((n) => !outputs.has(n.name)).map((n) => `${n.where}: ${n.name}`)).toEqual([]);
  });

  it("links every docs/ page from the top README, and every relative link of README.md and docs/ leads to a file (issue 28)", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const pages = FILES.filter((f) => /^docs\/[^/]+\.md$/.test(f));
    expect(pages.length).toBeGreaterThanOrEqual(6);
    expect(pages.filter((p) => !readme.includes(`](${p})`))).toEqual([]);
    const broken: string[] = [];
    for (const f of ["README.md", ...pages]) {
      const text = fs.readFileSync(path.join(ROOT, f), "utf8");
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split("#")[0]!;
        if (!target || /^[a-z]+:/.test(target)) continue;
        if (!fs.existsSync(path.join(ROOT, path.dirname(f), target))) broken.push(`${f}:${lineAt(text, m.index)}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("keeps the README's \"Making a variant\" to ten lines or fewer (issue 28)", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const m = /^## Making a variant\n([\s\S]*?)^## /m.exec(readme);
    expect(m).not.toBeNull();
    const lines = m![1]!.split("\n").filter((l) => l.trim());
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(m![1]).toContain("init --extends his");
  });
});
