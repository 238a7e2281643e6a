/**
 * The language server's view of the rule files on disk and in the editor: which edition folders
 * a file belongs to, the files of an edition (its own, its parents' by `extends`, its imported
 * modules'), the text of a file (the editor's unsaved buffer first, then the disk), parsed ASTs
 * (cached by text) and checked editions (`loadEdition` with the unsaved buffers).
 *
 * Paths are absolute, with the platform's separators. `root` is the project root, the folder
 * diagnostics are relative to and where `dsl/`, `proofs/` and `test/scenarios/` live: found from
 * a rule file by `projectRootOf` (not the editor's workspace folder, which may be its parent or
 * `dsl/his`). A new rule file the editor holds but the disk does not yet is part of its folder.
 * Nothing here throws on bad input: an unreadable file reads as undefined.
 */
import fs from "node:fs";
import path from "node:path";
import type { Diagnostic } from "../diagnostics/types.js";
import type { IREdition } from "../ir/types.js";
import { loadEdition } from "../check/index.js";
import { MODULES_FOLDER } from "../check/editions.js";
import { declaresEdition, parseRules } from "../syntax/index.js";
import type { AstFile } from "../syntax/ast.js";

/** The folder holding shared modules, beside the edition folders (the checker's). */
const MODULES = MODULES_FOLDER;

export interface Checked {
  /** absolute edition folder */
  dir: string;
  /** the edition's IR, only when it checked without error */
  edition?: IREdition;
  diagnostics: Diagnostic[];
  /** absolute paths of the rule files the edition is made of */
  files: string[];
}

export class Project {
  /** editor buffers by absolute path: text and LSP version */
  readonly open = new Map<string, { text: string; version: number }>();
  private parsed = new Map<string, { text: string; result: ReturnType<typeof parseRules> }>();
  /** the last IR of each edition that checked without error (kept while the files have errors) */
  readonly lastGood = new Map<string, IREdition>();

  constructor(readonly root: string) {}

  /** The `.rules` files of a folder: on disk, and the editor's buffers in it not saved yet (absolute, sorted). */
  ruleFilesIn(dir: string): string[] {
    const disk = ruleFiles(dir);
    const unsaved = [...this.open.keys()].filter((f) => f.endsWith(".rules") && path.dirname(f) === dir && !disk.includes(f));
    return unsaved.length ? [...disk, ...unsaved].sort() : disk;
  }

  /** A rule file's text: the open buffer, else the disk; undefined when unreadable. */
  read(abs: string): string | undefined {
    const o = this.open.get(abs);
    if (o) return o.text;
    try {
      return fs.readFileSync(abs, "utf8");
    } catch {
      return undefined;
    }
  }

  /** Repo-relative path with `/` (the form of diagnostics and IR positions). */
  rel(abs: string): string {
    return path.relative(this.root, abs).split(path.sep).join("/") || ".";
  }

  abs(rel: string): string {
    return path.resolve(this.root, rel);
  }

  /** The parsed file (cached while its text is unchanged); an empty AST when unreadable. */
  parse(abs: string): ReturnType<typeof parseRules> {
    const text = this.read(abs) ?? "";
    const hit = this.parsed.get(abs);
    if (hit && hit.text === text) return hit.result;
    const result = parseRules(text, this.rel(abs));
    this.parsed.set(abs, { text, result });
    return result;
  }

  ast(abs: string): AstFile {
    return this.parse(abs).ast;
  }

  /** The folder holding the edition folders (`dsl/`) of a rule file, or undefined. */
  dslRootOf(abs: string): string | undefined {
    const dir = path.dirname(abs);
    const up = path.dirname(dir);
    if (path.basename(up) === MODULES) return path.dirname(up);
    return up;
  }

  /** Edition folders (absolute) under a dsl root: folders whose rule files declare an `edition`. */
  editionsUnder(dslRoot: string): string[] {
    let names: string[];
    try {
      names = fs.readdirSync(dslRoot, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== MODULES).map((d) => d.name).sort();
    } catch {
      return [];
    }
    return names.map((n) => path.join(dslRoot, n)).filter((d) => this.ruleFilesIn(d).some((f) => declaresEdition(this.read(f) ?? "")));
  }

  /**
   * The rule files of an edition: its folder, the folders of the parents it `extends` and the
   * modules any of them imports (read from the ASTs, so it works while the edition has errors).
   */
  filesOf(editionDir: string): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    const mods = new Set<string>();
    let dir: string | undefined = editionDir;
    while (dir && !seen.has(dir)) {
      seen.add(dir);
      const files = this.ruleFilesIn(dir);
      out.push(...files);
      let parent: string | undefined;
      for (const f of files) {
        for (const d of this.ast(f).decls) {
          if (d.k === "edition" && d.parent) parent = path.join(path.dirname(dir), d.parent.path);
          if (d.k === "import") mods.add(d.name.name);
        }
      }
      dir = parent;
    }
    for (const m of [...mods].sort()) out.push(...this.ruleFilesIn(path.join(path.dirname(editionDir), MODULES, m)));
    return [...new Set(out)];
  }

  private editionsMemo = new Map<string, string[]>();

  /** Forget what was derived from the files (call after any rule file changed, in the editor or on disk). */
  invalidate(): void {
    this.editionsMemo.clear();
  }

  /** The editions (absolute folders) a rule file is part of: its own folder and every edition under the same root using it. */
  editionsOf(abs: string): string[] {
    const hit = this.editionsMemo.get(abs);
    if (hit) return hit;
    const root = this.dslRootOf(abs);
    const res = root ? this.editionsUnder(root).filter((e) => this.filesOf(e).includes(abs)) : [];
    this.editionsMemo.set(abs, res);
    return res;
  }

  /** Check one edition with the open buffers; remembers its IR when it has no error. */
  check(editionDir: string): Checked {
    const files = this.filesOf(editionDir);
    const res = loadEdition(editionDir, {
      repoRoot: this.root,
      readFile: (a) => this.open.get(path.resolve(a))?.text,
      unsavedIn: (d) => this.ruleFilesIn(path.resolve(d)).map((f) => path.basename(f)),
    });
    if (res.edition) this.lastGood.set(editionDir, res.edition);
    return { dir: editionDir, edition: res.edition, diagnostics: res.diagnostics, files };
  }

  /** The IR to answer questions with: the last one that checked (may be older than the buffers). */
  irOf(editionDir: string): IREdition | undefined {
    if (!this.lastGood.has(editionDir)) this.check(editionDir);
    return this.lastGood.get(editionDir);
  }
}

/**
 * The project root of a file: the nearest folder at or above it that holds a `dsl/` folder or a
 * `package.json` naming or depending on `rulewright`; undefined when there is none (up to the
 * file system's root).
 */
export function projectRootOf(abs: string): string | undefined {
  let dir = path.dirname(path.resolve(abs));
  for (;;) {
    if (isProjectRoot(dir)) return dir;
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

function isProjectRoot(dir: string): boolean {
  try {
    if (fs.statSync(path.join(dir, "dsl")).isDirectory()) return true;
  } catch {
    // no dsl/ here
  }
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    return pkg.name === "rulewright" || !!pkg.dependencies?.rulewright || !!pkg.devDependencies?.rulewright;
  } catch {
    return false;
  }
}

/** Absolute paths of the `.rules` files of a folder on disk, sorted; [] when unreadable. */
export function ruleFiles(dir: string): string[] {
  try {
    return fs.readdirSync(dir).filter((n) => n.endsWith(".rules")).sort().map((n) => path.join(dir, n));
  } catch {
    return [];
  }
}
