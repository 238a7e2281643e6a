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
import { loadEdition, type LoadResult } from "../check/index.js";
import type { Resolution } from "../check/resolution.js";
import { DISK, DSL_DIR, editionFolders, editionRuleFiles, editionsRootOf, type ParseRules } from "../check/editions.js";
import { parseRules } from "../syntax/index.js";
import type { AstFile } from "../syntax/ast.js";

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
    return this.parseText(this.read(abs) ?? "", this.rel(abs));
  }

  /** `parseRules(text, rel)`, cached by file and text (shared with `parse`). */
  parseText(text: string, rel: string): ReturnType<typeof parseRules> {
    const abs = this.abs(rel);
    const hit = this.parsed.get(abs);
    if (hit && hit.text === text) return hit.result;
    const result = parseRules(text, rel);
    this.parsed.set(abs, { text, result });
    return result;
  }

  ast(abs: string): AstFile {
    return this.parse(abs).ast;
  }

  /** The folder holding the edition folders (`dsl/`) of a rule file, or undefined. */
  dslRootOf(abs: string): string | undefined {
    return editionsRootOf(abs);
  }

  /** Edition folders (absolute) under a dsl root: folders whose rule files declare an `edition`. */
  editionsUnder(dslRoot: string): string[] {
    return editionFolders(dslRoot, this).map((n) => path.join(dslRoot, n));
  }

  /**
   * The rule files of an edition: its folder, the folders of the parents it `extends` and the
   * modules any of them imports (read from the ASTs, so it works while the edition has errors).
   */
  filesOf(editionDir: string): string[] {
    return editionRuleFiles(editionDir, this, (f) => this.ast(f).decls);
  }

  private editionsMemo = new Map<string, string[]>();
  /** bumped by `invalidate`: a resolution table of an older stamp predates a change */
  private stamp = 0;
  /** the resolution table of each edition's last check, with the stamp it was made at */
  /** (undefined: the check met a syntax error, see `resolutionOf`) */
  private resolutions = new Map<string, { stamp: number; resolution?: Resolution }>();

  /** Forget what was derived from the files (call after any rule file changed, in the editor or on disk). */
  invalidate(): void {
    this.editionsMemo.clear();
    this.stamp++;
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

  /**
   * The checker's resolution table of an edition as the files are now (compiler/check/resolution.ts):
   * the last check's, when no file changed since (`invalidate`), else from a new check. The
   * checker stops before resolving names when a rule file has a syntax error; the editor needs
   * names while a file is half typed, so then the edition is checked again on the ASTs the parser
   * could build (a declaration with a syntax error left out, the syntax errors not reported): the
   * checker's resolution of every declaration that parses.
   */
  resolutionOf(editionDir: string): Resolution {
    let hit = this.resolutions.get(editionDir);
    if (!hit || hit.stamp !== this.stamp) {
      this.check(editionDir);
      hit = this.resolutions.get(editionDir)!;
    }
    if (hit.resolution) return hit.resolution;
    const resolution = this.load(editionDir, (text, file) => {
      const r = this.parseText(text, file);
      return r.diagnostics.length ? { ast: r.ast, diagnostics: [] } : r;
    }).resolution;
    this.resolutions.set(editionDir, { stamp: hit.stamp, resolution });
    return resolution;
  }

  /** Check one edition with the open buffers; remembers its IR when it has no error. */
  check(editionDir: string): Checked {
    const files = this.filesOf(editionDir);
    let syntaxErrors = false;
    const res = this.load(editionDir, (text, file) => {
      const r = this.parseText(text, file);
      if (r.diagnostics.some((d) => d.severity === "error")) syntaxErrors = true;
      return r;
    });
    if (res.edition) this.lastGood.set(editionDir, res.edition);
    this.resolutions.set(editionDir, { stamp: this.stamp, resolution: syntaxErrors ? undefined : res.resolution });
    return { dir: editionDir, edition: res.edition, diagnostics: res.diagnostics, files };
  }

  /**
   * `loadEdition` with the open buffers (new unsaved rule files included) and the given parser (an
   * edit changes one file: the others' parses are reused from the cache `parse` shares).
   */
  private load(editionDir: string, parse: ParseRules): LoadResult {
    return loadEdition(editionDir, {
      repoRoot: this.root,
      readFile: (a) => this.open.get(path.resolve(a))?.text,
      unsavedIn: (d) => this.ruleFilesIn(path.resolve(d)).map((f) => path.basename(f)),
      parse,
    });
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
    if (fs.statSync(path.join(dir, DSL_DIR)).isDirectory()) return true;
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
  return DISK.ruleFilesIn(dir);
}
