/**
 * Where an edition is and where its outputs go: the bundled editions under `dsl/`, an edition
 * shipped in the installed package (`PACKAGE_ROOT`), a folder given by path (`resolveEdition`).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DSL_DIR, editionFolders } from "../check/editions.js";
import { UsageError } from "./errors.js";

/** The folder of bundled editions (the layout is compiler/check/editions.ts'). */
export { DSL_DIR };
export const GENERATED_DIR = "generated";
export const PROOFS_DIR = "proofs";

/**
 * Names of the bundled editions, sorted: folders under `dsl/` with a rule file that declares an
 * `edition` (variants included; `dsl/modules/` holds modules, not editions).
 */
export function bundledEditions(root = process.cwd()): string[] {
  return editionFolders(path.join(root, DSL_DIR));
}

export interface EditionRef {
  /** folder holding the rule files (relative to `root` when that is given, else to the working folder) */
  dir: string;
  /** true for `dsl/<name>` (its outputs go to generated/<name>, proofs/<name>) */
  bundled: boolean;
  /**
   * set for an edition shipped in the installed package (`<package>/dsl/<name>`, used when the
   * working folder has no `dsl/<name>`): the package's root folder. Its rule files are compiled
   * from there (the same file names as in the rulewright repository) and its validators are the
   * package's compiled `dist/editions/<name>/`.
   */
  root?: string;
}

/**
 * The root folder of the rulewright package or checkout this file belongs to (compiler/engine/
 * from the sources, dist/engine/ compiled: both two levels down).
 */
export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** True when this code runs compiled (dist/, the installed package): no TypeScript loader is registered. */
export const COMPILED = import.meta.url.endsWith(".js");

/**
 * Resolves an edition argument: a bundled edition name (`his`) or a path to an edition folder.
 * @throws UsageError (exit 2) when neither exists.
 */
export function resolveEdition(arg: string, root = process.cwd()): EditionRef {
  const asName = path.join(root, DSL_DIR, arg);
  const plainName = !arg.includes("/") && !arg.includes(path.sep) && arg !== "." && arg !== "..";
  if (plainName && fs.existsSync(asName) && fs.statSync(asName).isDirectory()) {
    return { dir: path.relative(root, asName), bundled: true };
  }
  // an edition shipped with the installed package (`rulewright build his` in an engine's project)
  const shipped = path.join(PACKAGE_ROOT, DSL_DIR, arg);
  if (plainName && path.resolve(PACKAGE_ROOT) !== path.resolve(root) && fs.existsSync(shipped) && fs.statSync(shipped).isDirectory() && bundledEditions(PACKAGE_ROOT).includes(arg)) {
    return { dir: path.join(DSL_DIR, arg), bundled: true, root: PACKAGE_ROOT };
  }
  if (fs.existsSync(arg) && fs.statSync(arg).isDirectory()) {
    const rel = path.relative(root, path.resolve(arg));
    const bundled = path.dirname(rel) === DSL_DIR;
    return { dir: rel, bundled };
  }
  const known = [...new Set([...bundledEditions(root), ...(path.resolve(PACKAGE_ROOT) !== path.resolve(root) ? bundledEditions(PACKAGE_ROOT) : [])])].sort();
  throw new UsageError(
    `no edition \`${arg}\`: not a bundled edition and not a folder`,
    2,
    known.length ? `bundled editions: ${known.map((k) => `\`${k}\``).join(", ")}` : undefined,
  );
}

