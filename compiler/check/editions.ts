/**
 * Assembling an edition from folders (dsl/README.md, "Modules and variant editions"):
 * the edition folder, the chain of parents it `extends`, and the modules each of them `import`s.
 * Parses every file once, resolves `extends` and `import`, and applies a variant's
 * `override rule` / `remove rule` to the inherited rules. The result is the flat list of
 * declarations the checker (index.ts) resolves and type-checks in the one edition's vocabulary.
 *
 * Folder layout (the one place that knows it, below): a parent named by `extends "p"` is the
 * sibling folder `p` of the edition's folder; modules are `modules/<name>/` beside them (for
 * dsl/his: dsl/modules/<name>/); an edition's scenarios, fixtures and corpus are named after it.
 */
import fs from "node:fs";
import path from "node:path";
import type { Diagnostic, Span } from "../diagnostics/types.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type { Provenance, SourcePos } from "../ir/types.js";
import { declaresEdition, parseRules } from "../syntax/index.js";
import { DSL_DIR, TOOL_ROOT, resolveParent } from "./parents.js";

/** A rule-file parser: `parseRules` or one that caches its results by text. */
export type ParseRules = typeof parseRules;
import type { Decl, RuleDecl } from "../syntax/ast.js";
import type { DeclOf, Located, Origin } from "./env.js";
import { LINE1, didYouMean, posOf, type Help, type Reporter } from "./util.js";
import { MAX_INPUT_FILE_BYTES, describeInputProblem, isInsideDir, readConfinedFile } from "../diagnostics/files.js";

/**
 * Whether the real path of `folder` (symlinks resolved) lies inside the real path of one of
 * `roots` (the editions' parent folder, the project): a module or parent edition folder may be a
 * link inside the project (test fixtures link the bundled modules), not a link out of it.
 * A folder that does not exist passes (the caller reports it as unknown).
 */
function realInside(folder: string, roots: string[]): boolean {
  let real: string;
  try {
    real = fs.realpathSync(folder);
  } catch {
    return true;
  }
  return roots.some((r) => {
    try {
      return isInsideDir(real, fs.realpathSync(r));
    } catch {
      return false;
    }
  });
}

// ---------------------------------------------------------------- the edition folder layout
// The one place that knows it (the CLI's compiler/cli/common.ts and the language server's
// compiler/lsp/project.ts use these): editions are folders of rule files under `dsl/`; a parent
// named by `extends "p"` is the sibling folder `p`; modules are `modules/<name>/` beside them;
// an edition's scenarios, fixtures and conformance corpus live in folders named after it.

export { DSL_DIR, TOOL_ROOT, resolveParent, type ParentVia } from "./parents.js";

/** The name of the folder that holds modules, beside the edition folders. */
export const MODULES_FOLDER = "modules";

/**
 * Where an edition's data lives in a project, by its folder name (repo-relative, `/`):
 * its scenario files, the named states (fixtures) they start from, and its conformance corpus.
 * The folders need not exist.
 */
export function editionLayout(folder: string): { scenarios: string; fixtures: string; conformance: string } {
  return { scenarios: `test/scenarios/${folder}`, fixtures: `test/fixtures/${folder}`, conformance: `conformance/${folder}` };
}

/** The folder of module `name` for editions under `editionsRoot` (the folder holding the edition folders). */
export function moduleFolder(editionsRoot: string, name: string): string {
  return path.join(editionsRoot, MODULES_FOLDER, name);
}

/** The folder a parent edition named by `extends "<parentPath>"` is in (`resolveParent`; beside the edition folder `editionAbs` when none is found). */
export function parentEditionFolder(editionAbs: string, parentPath: string, projectRoot: string = process.cwd()): string {
  return resolveParent(editionAbs, parentPath, projectRoot).abs ?? path.join(path.dirname(editionAbs), parentPath);
}

/** The folder holding the edition folders for a rule file (absolute) of an edition or of a module (`<root>/modules/<m>/x.rules`). */
export function editionsRootOf(ruleFileAbs: string): string {
  const up = path.dirname(path.dirname(ruleFileAbs));
  return path.basename(up) === MODULES_FOLDER ? path.dirname(up) : up;
}

/** How the layout functions see rule files: the `.rules` files of a folder (absolute), and a file's text (undefined when unreadable). */
export interface RuleFileSource {
  ruleFilesIn(dirAbs: string): string[];
  read(fileAbs: string): string | undefined;
}

/** The disk as a `RuleFileSource`. */
export const DISK: RuleFileSource = {
  ruleFilesIn: (dir) => (ruleFiles(dir) ?? []).map((n) => path.join(dir, n)),
  read: (f) => {
    try {
      return fs.readFileSync(f, "utf8");
    } catch {
      return undefined;
    }
  },
};

/**
 * The edition folders (names, sorted) under `editionsRoot`: its folders but `modules/` with a rule
 * file that declares an `edition` (variants included); [] when the folder cannot be read.
 */
export function editionFolders(editionsRoot: string, src: RuleFileSource = DISK): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(editionsRoot, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== MODULES_FOLDER).map((d) => d.name).sort();
  } catch {
    return [];
  }
  return names.filter((n) => src.ruleFilesIn(path.join(editionsRoot, n)).some((f) => declaresEdition(src.read(f) ?? "")));
}

/**
 * The rule files (absolute) an edition is made of: its folder's, its parents' by `extends`, then
 * the modules any of them imports (sorted by name). Read from the declarations `declsOf` gives
 * (ASTs), so it works while the edition has errors; a cycle of `extends` stops at the repeat.
 */
export function editionRuleFiles(editionAbs: string, src: RuleFileSource, declsOf: (fileAbs: string) => Decl[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const mods = new Set<string>();
  let dir: string | undefined = editionAbs;
  while (dir && !seen.has(dir)) {
    seen.add(dir);
    const files = src.ruleFilesIn(dir);
    out.push(...files);
    let parent: string | undefined;
    for (const f of files) {
      for (const d of declsOf(f)) {
        if (d.k === "edition" && d.parent) parent = parentEditionFolder(dir, d.parent.path);
        if (d.k === "import") mods.add(d.name.name);
      }
    }
    dir = parent;
  }
  for (const m of [...mods].sort()) out.push(...src.ruleFilesIn(moduleFolder(path.dirname(editionAbs), m)));
  return [...new Set(out)];
}

/** One edition folder of the chain (the compiled edition or one of its ancestors). */
export interface Level {
  /** folder name ("his-500") */
  folder: string;
  abs: string;
  /** the level's own declarations (not its modules') */
  decls: Located<Decl>[];
  edition?: Located<DeclOf<"edition">>;
  /** the first rule file (for diagnostics about the folder as a whole) */
  firstFile: string;
}

export interface LoadedModule {
  name: string;
  title: string;
  /** the edition (folder) whose `import` brought it in first */
  importedBy: string;
  /** rule files, relative to the repo root */
  files: string[];
}

/** A rule in force after overrides and removals, with where it comes from. */
export interface PlacedRule {
  loc: Located<RuleDecl>;
  provenance: Provenance;
}

export interface Removal {
  id: string;
  reason: string;
  edition: string;
  pos: SourcePos;
  removedPos: SourcePos;
}

export interface Assembled {
  /** ancestors first; the compiled edition last */
  levels: Level[];
  modules: Map<string, LoadedModule>;
  /** every declaration but rules, overrides and removals, in level order (modules before the level's own files) */
  decls: Located<Decl>[];
  /** the rules in force (then any second rule of an id declared twice in the same files, for RW2010) */
  rules: PlacedRule[];
  removed: Removal[];
  /** module rule files (relative) → module name */
  moduleOfFile: Map<string, string>;
}

interface Ctx {
  repoRoot: string;
  r: Reporter;
  inputs: { file: string; sha256: string }[];
  textHash: (b: Buffer) => string;
  /** the text of a rule file (absolute path) to use instead of the disk's, e.g. an editor's unsaved buffer */
  readFile?: (abs: string) => string | undefined;
  /** names of `.rules` files the editor holds in a folder (absolute) that are not on disk yet (new, unsaved): read as part of the folder */
  unsavedIn?: (absDir: string) => string[];
  /** the parser (default `parseRules`): the language server's caches by text; its result is only read */
  parse?: ParseRules;
}

/** The rule files of a folder, the unsaved ones the editor holds in it included (sorted); undefined when the folder cannot be read. */
function folderRuleFiles(abs: string, c: Ctx): string[] | undefined {
  const names = ruleFiles(abs);
  const extra = c.unsavedIn?.(abs).filter((n) => n.endsWith(".rules") && !names?.includes(n)) ?? [];
  return extra.length ? [...(names ?? []), ...extra].sort() : names;
}

/**
 * A folder or file name the tool accepts: letters, digits, `_`, `.`, `-`, not starting with `.`
 * or `-` (it becomes `generated/<folder>/`, a CLI argument and a comment in generated code).
 */
export const SAFE_NAME = /^[\p{L}\p{N}_][\p{L}\p{N}_.-]*$/u;

/** A name as a diagnostic shows it: control characters and line breaks visible (`\n`). */
export function shownName(name: string): string {
  return JSON.stringify(name).slice(1, -1).replace(/[\u2028\u2029\u0080-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Names of the `.rules` files of a folder, sorted; undefined when it cannot be read. */
function ruleFiles(abs: string): string[] | undefined {
  try {
    return fs.readdirSync(abs).filter((n) => n.endsWith(".rules")).sort();
  } catch {
    return undefined;
  }
}

/** Sibling folders that are editions (hold a `.rules` file), for did-you-mean. */
function siblingFolders(parentAbs: string, exclude: string[] = []): string[] {
  try {
    return fs
      .readdirSync(parentAbs, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !exclude.includes(d.name) && (ruleFiles(path.join(parentAbs, d.name)) ?? []).length > 0)
      .map((d) => d.name);
  } catch {
    return [];
  }
}

/**
 * Reads and parses every rule file of a folder. Returns the declarations and whether there was
 * a syntax error (or an unreadable file).
 */
function parseFolder(abs: string, names: string[], c: Ctx): { decls: Located<Decl>[]; bad: boolean } {
  const rel = (a: string) => path.relative(c.repoRoot, a).split(path.sep).join("/") || ".";
  const decls: Located<Decl>[] = [];
  let bad = false;
  for (const n of names) {
    if (!SAFE_NAME.test(n.slice(0, -".rules".length))) {
      const shown = rel(path.join(abs, shownName(n)));
      c.r.report("RW4011", `rule file name \`${shownName(n)}\` is not a safe name`, shown, LINE1,
        "rename the file: letters, digits, `_`, `.` and `-` before `.rules`, not starting with `.` or `-` (the name is shown in diagnostics and written into generated code)");
      bad = true;
      continue;
    }
    const file = rel(path.join(abs, n));
    let buf: Buffer;
    const unsaved = c.readFile?.(path.join(abs, n));
    if (unsaved !== undefined) buf = Buffer.from(unsaved, "utf8");
    else {
      // a regular file of at most 16 MB whose real path stays in the folder (issue 29)
      const got = readConfinedFile(path.join(abs, n), [abs, c.repoRoot]);
      if ("problem" in got) {
        const p = got.problem;
        const code = p.k === "outside" ? "RW4012" : p.k === "not-file" || p.k === "too-large" ? "RW4013" : "RW4001";
        c.r.report(code, `cannot read \`${file}\`: it ${describeInputProblem(p, rel(abs))}`, file, LINE1,
          code === "RW4012" ? "a rule file is a file of its folder: copy it there instead of linking to it"
          : code === "RW4013" ? `a rule file is a regular text file of at most ${MAX_INPUT_FILE_BYTES / (1024 * 1024)} MB`
          : "check the file's permissions");
        bad = true;
        continue;
      }
      buf = got.buf;
    }
    c.inputs.push({ file, sha256: c.textHash(buf) });
    const { ast, diagnostics } = (c.parse ?? parseRules)(buf.toString("utf8"), file);
    // copies: the checker appends context to its diagnostics' messages
    c.r.diagnostics.push(...diagnostics.map((d) => ({ ...d })));
    if (diagnostics.some((d) => d.severity === "error")) bad = true;
    for (const d of ast.decls) decls.push({ decl: d, file });
  }
  return { decls, bad };
}

/** Repo-relative paths and located reports for the assembly. */
function helpers(c: Ctx) {
  const rel = (a: string) => path.relative(c.repoRoot, a).split(path.sep).join("/") || ".";
  const rep = (code: DiagnosticCode, msg: string, at: { file: string; span: Span }, help?: Help, related?: Diagnostic["related"]) =>
    c.r.report(code, msg, at.file, at.span, help, related);
  return { rel, rep };
}

/**
 * Loads the edition folder `absDir` with its ancestors and modules. Returns undefined when a
 * folder cannot be read or a file has syntax errors (checking a partial AST only cascades).
 */
export function assemble(absDir: string, c: Ctx): Assembled | undefined {
  const chain = readChain(absDir, c);
  if (!chain) return undefined;
  const mods = loadModules(chain.levels, c);
  if (chain.bad || mods.bad) return undefined;
  const placed = placeDeclarations(chain.levels, mods.moduleDecls, mods.importsOf, c);
  return { levels: chain.levels, modules: mods.modules, decls: placed.decls, rules: placed.rules, removed: placed.removed, moduleOfFile: mods.moduleOfFile };
}

/**
 * The chain of editions from `absDir` up its `extends` (RW4011 unsafe folder name, RW2102 unknown
 * parent or not an edition, RW2107 a module folder, RW2015 edition declarations, RW4012 a parent
 * linked out, RW2103 a cycle): ancestors first. `bad`: a file had syntax errors. Undefined when the
 * chain cannot be followed.
 */
function readChain(absDir: string, c: Ctx): { levels: Level[]; bad: boolean } | undefined {
  const { r } = c;
  const { rel, rep } = helpers(c);
  const chain: Level[] = [];
  let bad = false;
  let abs = absDir;
  let via: { file: string; span: Span; path: string } | undefined; // the `extends` that led here
  const leafName = path.basename(absDir);
  if (!SAFE_NAME.test(leafName)) {
    r.report("RW4011", `edition folder name \`${shownName(leafName)}\` is not a safe name`, rel(path.join(path.dirname(absDir), shownName(leafName))), LINE1,
      "rename the folder: letters, digits, `_`, `.` and `-`, not starting with `.` or `-` (it becomes `generated/<folder>/` and a command-line argument)");
    return undefined;
  }
  for (;;) {
    const names = folderRuleFiles(abs, c);
    if (!names || !names.length) {
      if (!via) {
        if (!names) r.report("RW4001", `cannot read edition folder \`${rel(abs)}\``, rel(abs), LINE1, "give the path of a folder like `dsl/his`");
        else r.report("RW4001", `no \`.rules\` files in \`${rel(abs)}\``, rel(abs), LINE1, "an edition folder holds `*.rules` files, the schema and the board");
      } else {
        const known = siblingFolders(path.dirname(abs), [MODULES_FOLDER, ...chain.map((l) => l.folder)]);
        rep("RW2102", `unknown parent edition \`${via.path}\`: no edition folder \`${rel(abs)}\``, via,
          didYouMean(via.path, known, known.length ? `editions beside it: ${known.map((k) => `\`${k}\``).join(", ")}` : "name a folder beside this edition's folder"));
      }
      return undefined;
    }
    const parsed = parseFolder(abs, names, c);
    bad ||= parsed.bad;
    const level: Level = { folder: path.basename(abs), abs, decls: parsed.decls, firstFile: rel(path.join(abs, names[0]!)) };
    chain.push(level);
    const eds = parsed.decls.filter((d) => d.decl.k === "edition") as Located<DeclOf<"edition">>[];
    const mods = parsed.decls.filter((d) => d.decl.k === "module") as Located<DeclOf<"module">>[];
    if (!eds.length) {
      if (parsed.bad) return undefined; // the edition declaration may be the one that did not parse
      if (via) {
        rep("RW2102", `\`${via.path}\` is not an edition: \`${rel(abs)}\` has no \`edition\` declaration`, via,
          mods.length ? "it is a module: write `import " + mods[0]!.decl.name.name + "` instead" : "extend a folder that declares `edition <name> \"<title>\" cites \"<key>\"`");
      } else if (mods.length) {
        rep("RW2107", `\`${rel(abs)}\` is a module, not an edition`, { file: mods[0]!.file, span: mods[0]!.decl.span },
          `compile an edition that imports it (\`import ${mods[0]!.decl.name.name}\`)`);
      } else {
        rep("RW2015", `no \`edition\` declaration in \`${rel(abs)}\``, { file: level.firstFile, span: LINE1 }, 'add `edition name "Title" cites "key"` (by convention in edition.rules)');
      }
      return undefined;
    }
    for (const d of eds.slice(1)) {
      rep("RW2015", "second `edition` declaration", { file: d.file, span: d.decl.span }, "an edition has exactly one `edition` declaration; remove this one",
        [{ message: "the first one", pos: posOf(eds[0]!.file, eds[0]!.decl.span) }]);
    }
    level.edition = eds[0]!;
    for (const m of mods) {
      rep("RW2107", "a `module` declaration in an edition folder", { file: m.file, span: m.decl.span },
        `a module lives in its own folder \`${MODULES_FOLDER}/${m.decl.name.name}/\` beside the editions and is imported with \`import ${m.decl.name.name}\``);
    }
    const parent = level.edition.decl.parent;
    if (!parent) break;
    const at = { file: level.edition.file, span: parent.span, path: parent.path };
    if (!parent.path.trim() || parent.path === MODULES_FOLDER || /[\0-\x1f]/.test(parent.path)) {
      rep("RW2102", `\`extends\` names no edition: \`${shownName(parent.path)}\``, at, 'write a bundled edition\'s name (`extends "his"`), a folder\'s path (`extends "../his"`) or an installed package\'s edition (`extends "rulewright/his"`)');
      return undefined;
    }
    const found = resolveParent(abs, parent.path, c.repoRoot);
    if (!found.abs) {
      const known = siblingFolders(path.dirname(abs), [MODULES_FOLDER, ...chain.map((l) => l.folder)]);
      const bundled = editionFolders(path.join(TOOL_ROOT, DSL_DIR));
      const names = [...new Set([...known, ...bundled])].sort();
      rep("RW2102", `unknown parent edition \`${shownName(parent.path)}\`: no edition folder at ${found.tried.map((t) => `\`${rel(t)}\``).join(", ")}`, at,
        didYouMean(parent.path, names, `write a bundled edition's name (${bundled.map((b) => `\`${b}\``).join(", ") || "none found"}), a folder's path relative to this edition's folder (\`../his\`) or absolute, or \`<package>/<edition>\` for an installed package`));
      return undefined;
    }
    const next = found.abs;
    // a plain name found beside the edition may not lead out through a link (an explicit path or package is what it names)
    if (found.via === "sibling" && !realInside(next, [path.dirname(abs), c.repoRoot])) {
      rep("RW4012", `parent edition \`${parent.path}\` leads out of \`${rel(path.dirname(abs))}\` and the project (through a symbolic link)`, at,
        "a parent edition is a folder beside this one: copy it there instead of linking to it");
      return undefined;
    }
    const seen = chain.findIndex((l) => path.resolve(l.abs) === path.resolve(next));
    if (seen >= 0) {
      const cycle = [...chain.slice(seen).map((l) => l.folder), chain[seen]!.folder];
      rep("RW2103", `cycle in \`extends\`: ${cycle.map((f) => `\`${f}\``).join(" → ")}`, at, "an edition may not extend itself or one of its own variants; remove one `extends`",
        chain.slice(seen).filter((l) => l !== level).map((l) => ({ message: `\`${l.folder}\` extends \`${l.edition!.decl.parent!.path}\``, pos: posOf(l.edition!.file, l.edition!.decl.parent!.span) })));
      return undefined;
    }
    via = at;
    abs = next;
  }
  return { levels: chain.reverse(), bad };
}

/**
 * The modules each level imports (a module is loaded once; the first importer owns it): RW2110
 * imported twice, RW4012 linked out, RW2101 unknown, RW2108 its `module` declaration, RW2107 what a
 * module may not hold. `bad`: a module file had syntax errors or leads out of the project.
 */
function loadModules(levels: Level[], c: Ctx) {
  const { rel, rep } = helpers(c);
  let bad = false;
  const modules = new Map<string, LoadedModule>();
  const moduleDecls = new Map<string, Located<Decl>[]>();
  const moduleOfFile = new Map<string, string>();
  const firstImport = new Map<string, { file: string; span: Span }>();
  const importsOf = new Map<Level, string[]>();
  for (const level of levels) {
    const mine: string[] = [];
    importsOf.set(level, mine);
    for (const d of level.decls) {
      if (d.decl.k !== "import") continue;
      const name = d.decl.name.name;
      const prev = firstImport.get(name);
      if (prev) {
        rep("RW2110", `module \`${name}\` is already imported${moduleDecls.has(name) && modules.get(name)!.importedBy !== level.folder ? ` by \`${modules.get(name)!.importedBy}\`` : ""}`,
          { file: d.file, span: d.decl.span }, "remove this `import`", [{ message: "imported here", pos: posOf(prev.file, prev.span) }]);
        continue;
      }
      firstImport.set(name, { file: d.file, span: d.decl.name.span });
      const modAbs = moduleFolder(path.dirname(level.abs), name);
      if (!realInside(modAbs, [path.dirname(level.abs), c.repoRoot])) {
        rep("RW4012", `module \`${name}\` leads out of \`${rel(path.dirname(level.abs))}\` and the project (through a symbolic link)`, { file: d.file, span: d.decl.name.span },
          `a module is a folder \`${MODULES_FOLDER}/${name}/\` beside the editions: copy it there instead of linking to it`);
        bad = true;
        continue;
      }
      const names = folderRuleFiles(modAbs, c);
      if (!names || !names.length) {
        const known = siblingFolders(path.join(path.dirname(level.abs), MODULES_FOLDER));
        rep("RW2101", `unknown module \`${name}\`: no rule files in \`${rel(modAbs)}\``, { file: d.file, span: d.decl.name.span },
          didYouMean(name, known, known.length ? `modules: ${known.sort().map((k) => `\`${k}\``).join(", ")}` : `modules are found in \`${rel(path.dirname(modAbs))}/<name>/\`, a \`${MODULES_FOLDER}\` folder beside the edition's folder, and it holds none: an edition copied out of its project needs the modules it imports copied beside it (a bundled edition's are in rulewright's \`dsl/${MODULES_FOLDER}\`: \`cp -r <rulewright>/dsl/${MODULES_FOLDER} ${rel(path.dirname(path.dirname(modAbs)))}/\`)`));
        continue;
      }
      const parsed = parseFolder(modAbs, names, c);
      bad ||= parsed.bad;
      const files = names.map((n) => rel(path.join(modAbs, n)));
      for (const f of files) moduleOfFile.set(f, name);
      const heads = parsed.decls.filter((x) => x.decl.k === "module") as Located<DeclOf<"module">>[];
      if (!heads.length && !parsed.bad) {
        rep("RW2108", `module folder \`${rel(modAbs)}\` has no \`module\` declaration`, { file: files[0]!, span: LINE1 }, `add \`module ${name} "<title>"\` to one of its files`);
      }
      for (const h of heads.slice(1)) {
        rep("RW2108", "second `module` declaration", { file: h.file, span: h.decl.span }, "a module has exactly one `module` declaration; remove this one",
          [{ message: "the first one", pos: posOf(heads[0]!.file, heads[0]!.decl.span) }]);
      }
      if (heads[0] && heads[0].decl.name.name !== name) {
        rep("RW2108", `module \`${heads[0].decl.name.name}\` is in folder \`${name}\``, { file: heads[0].file, span: heads[0].decl.name.span },
          `a module's name is its folder's name: write \`module ${name}\` or rename the folder`);
      }
      for (const x of parsed.decls) {
        const k = x.decl.k;
        if (k === "def" || k === "route" || k === "table" || k === "rule" || k === "exempt" || k === "invariant" || k === "module") continue;
        const what = k === "override" || k === "remove" ? `\`${k} rule\`` : `\`${k}\``;
        rep("RW2107", `${what} is not allowed in a module`, { file: x.file, span: x.decl.span },
          k === "enum" || k === "action" ? `${k}s belong to editions: declare it in the editions that import \`${name}\`; the module uses their names`
          : k === "import" ? "a module may not import modules: import both from the edition"
          : k === "override" || k === "remove" ? "a variant edition overrides or removes rules, a module only declares them"
          : `\`${k}\` belongs to an edition's folder`);
      }
      modules.set(name, { name, title: heads[0]?.decl.title ?? name, importedBy: level.folder, files });
      moduleDecls.set(name, parsed.decls);
      mine.push(name);
    }
  }
  return { modules, moduleDecls, moduleOfFile, importsOf, bad };
}

/**
 * Every declaration with its origin, level by level (a level's modules before its own files), and
 * the rules in force: a variant's `override rule` replaces the parent's rule in place, `remove
 * rule` drops it (RW2104 unknown target, RW2107 outside a variant, RW2111 twice); a new rule with an
 * id already in force is RW2106. A second rule of an id in the same files is kept last (RW2010 later).
 */
function placeDeclarations(levels: Level[], moduleDecls: Map<string, Located<Decl>[]>, importsOf: Map<Level, string[]>, c: Ctx): { decls: Located<Decl>[]; rules: PlacedRule[]; removed: Removal[] } {
  const { rep } = helpers(c);
  const decls: Located<Decl>[] = [];
  const inForce = new Map<string, PlacedRule>(); // insertion order = rule order
  const removed: Removal[] = [];
  const removedBy = new Map<string, Removal>();
  const dupes: PlacedRule[] = [];
  for (const [i, level] of levels.entries()) {
    const root = i === 0;
    const cites = level.edition!.decl.cites;
    const originOf = (module?: string): Origin => ({ edition: level.folder, cites, root, ...(module ? { module } : {}) });
    const fresh: { loc: Located<RuleDecl>; origin: Origin }[] = [];
    const take = (d: Located<Decl>, origin: Origin) => {
      const k = d.decl.k;
      if (k === "rule") fresh.push({ loc: { decl: d.decl, file: d.file, origin }, origin });
      else if (k === "enum" || k === "action" || k === "def" || k === "route" || k === "table" || k === "exempt" || k === "invariant" || k === "decline" || k === "schema" || k === "board") {
        decls.push({ ...d, origin });
      }
    };
    for (const m of importsOf.get(level)!) {
      // what a module may hold (the rest was reported above)
      for (const d of moduleDecls.get(m)!) if (["def", "route", "table", "rule", "exempt", "invariant"].includes(d.decl.k)) take(d, originOf(m));
    }
    for (const d of level.decls) take(d, originOf());

    // overrides and removals name rules of the parent (the rules in force before this level)
    const inherited = new Set(inForce.keys());
    const touched = new Map<string, { file: string; span: Span; what: string }>();
    const touch = (id: { name: string; span: Span }, file: string, what: string): boolean => {
      const prev = touched.get(id.name);
      if (prev) {
        rep("RW2111", `rule \`${id.name}\` is already ${prev.what} by this edition`, { file, span: id.span }, "override or remove a rule once",
          [{ message: `${prev.what} here`, pos: posOf(prev.file, prev.span) }]);
        return false;
      }
      touched.set(id.name, { file, span: id.span, what });
      return true;
    };
    const unknownTarget = (id: { name: string; span: Span }, file: string, verb: string) => {
      const gone = removedBy.get(id.name);
      if (gone) {
        rep("RW2104", `cannot ${verb} rule \`${id.name}\`: edition \`${gone.edition}\` removed it`, { file, span: id.span }, "a removed rule is gone; add a new rule instead",
          [{ message: "removed here", pos: gone.pos }]);
      } else if (root) {
        rep("RW2107", `\`${verb} rule\` outside a variant edition`, { file, span: id.span },
          `only an edition that \`extends\` another overrides or removes its rules; write \`rule ${id.name} …\` here`);
      } else {
        rep("RW2104", `cannot ${verb} rule \`${id.name}\`: the parent edition \`${levels[i - 1]!.folder}\` has no such rule`, { file, span: id.span },
          didYouMean(id.name, inherited, `the rules of \`${levels[i - 1]!.folder}\` are listed in generated/${levels[i - 1]!.folder}/rules.ts`));
      }
    };
    for (const d of level.decls) {
      if (d.decl.k === "override") {
        const rd = d.decl.rule;
        if (!inherited.has(rd.id.name)) {
          unknownTarget(rd.id, d.file, "override");
          continue;
        }
        if (!touch(rd.id, d.file, "overridden")) continue;
        const old = inForce.get(rd.id.name)!;
        // Map.set on an existing key keeps its place: the override stands where the rule stood
        inForce.set(rd.id.name, {
          loc: { decl: rd, file: d.file, origin: originOf() },
          provenance: { edition: level.folder, change: "overridden", replaces: posOf(old.loc.file, old.loc.decl.id.span) },
        });
      } else if (d.decl.k === "remove") {
        const id = d.decl.id;
        if (!inherited.has(id.name)) {
          unknownTarget(id, d.file, "remove");
          continue;
        }
        if (!touch(id, d.file, "removed")) continue;
        const old = inForce.get(id.name)!;
        inForce.delete(id.name);
        const rm: Removal = { id: id.name, reason: d.decl.reason, edition: level.folder, pos: posOf(d.file, d.decl.span), removedPos: posOf(old.loc.file, old.loc.decl.id.span) };
        removed.push(rm);
        removedBy.set(id.name, rm);
      }
    }

    // new rules: an id the parent has, or another module of this level has, is a redefinition
    const here = new Map<string, { file: string; span: Span; module?: string }>();
    for (const { loc, origin } of fresh) {
      const id = loc.decl.id;
      if (inherited.has(id.name)) {
        const old = inForce.get(id.name) ?? undefined;
        const where = old ? (old.provenance.module ? `module \`${old.provenance.module}\`` : `edition \`${old.provenance.edition}\``) : `edition \`${levels[i - 1]!.folder}\``;
        rep("RW2106", `rule \`${id.name}\` is already defined by ${where}`, { file: loc.file, span: id.span },
          root ? "rename one of them" : `to replace the parent's rule write \`override rule ${id.name} …\`; to drop it, \`remove rule ${id.name} "<reason>"\``,
          old ? [{ message: "defined here", pos: posOf(old.loc.file, old.loc.decl.id.span) }] : undefined);
        continue;
      }
      const prev = here.get(id.name);
      if (prev && prev.module !== origin.module) {
        const src = (m?: string) => (m ? `module \`${m}\`` : `edition \`${level.folder}\``);
        rep("RW2106", `rule \`${id.name}\` is defined by both ${src(prev.module)} and ${src(origin.module)}`, { file: loc.file, span: id.span },
          "a rule id is unique across an edition and its modules; rename one, or keep the rule in one place",
          [{ message: "first defined here", pos: posOf(prev.file, prev.span) }]);
        continue;
      }
      if (prev) {
        // twice in the same files: the checker's duplicate-id diagnostic (RW2010) reports it
        dupes.push({ loc, provenance: { edition: level.folder, change: root ? "defined" : "added" } });
        continue;
      }
      here.set(id.name, { file: loc.file, span: id.span, ...(origin.module ? { module: origin.module } : {}) });
      inForce.set(id.name, {
        loc,
        provenance: { edition: level.folder, change: root ? "defined" : "added", ...(origin.module ? { module: origin.module } : {}) },
      });
    }
  }
  return { decls, rules: [...inForce.values(), ...dupes], removed };
}
