/**
 * Where a variant's parent edition is (issue 28, "variants anywhere"): `extends` takes a bundled
 * edition's name, a folder's path, or an installed package's edition (`resolveParent`). The
 * edition folder layout itself, and the assembly that follows `extends`, are editions.ts'.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The folder of a project that holds the bundled edition folders. */
export const DSL_DIR = "dsl";

/** Whether a folder holds a `.rules` file (false when it cannot be read). */
function hasRuleFiles(dir: string): boolean {
  try {
    return fs.readdirSync(dir).some((n) => n.endsWith(".rules"));
  } catch {
    return false;
  }
}

/**
 * The root of the rulewright package or checkout this file belongs to (compiler/check/ from the
 * sources, dist/check/ compiled: both two levels down). Its `dsl/` holds the bundled editions.
 */
export const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** How an `extends` target was found (`resolveParent`). */
export type ParentVia = "sibling" | "project" | "bundled" | "path" | "package";

/**
 * The folder (absolute) of the parent edition named by `extends "<parentPath>"` of the edition
 * folder `editionAbs` (issue 28, "variants anywhere"):
 * - a path (`./x`, `../his`, `/abs/his`): relative to the variant's folder, or absolute;
 * - a plain name (`his`): the folder beside the variant's, else `<project>/dsl/<name>`, else the
 *   bundled edition of that name (`<rulewright>/dsl/<name>`);
 * - `<package>/<edition>` (`rulewright/his`, `@scope/pkg/ed`): an installed package's edition,
 *   `node_modules/<package>/dsl/<edition>` (or `node_modules/<package>/<edition>`) in the
 *   variant's folder or one above it.
 * Returns the candidates tried when none holds rule files (`abs` undefined).
 */
export function resolveParent(editionAbs: string, parentPath: string, projectRoot: string = process.cwd()): { abs?: string; via?: ParentVia; tried: string[] } {
  const tried: string[] = [];
  const holds = (dir: string) => {
    tried.push(dir);
    return hasRuleFiles(dir);
  };
  const here = path.dirname(editionAbs);
  if (isPathLike(parentPath)) {
    const abs = path.resolve(editionAbs, parentPath);
    return holds(abs) ? { abs, via: "path", tried } : { tried };
  }
  if (!parentPath.includes("/")) {
    const sibling = path.join(here, parentPath);
    if (holds(sibling)) return { abs: sibling, via: "sibling", tried };
    const inProject = path.join(projectRoot, DSL_DIR, parentPath);
    if (path.resolve(inProject) !== path.resolve(sibling) && holds(inProject)) return { abs: inProject, via: "project", tried };
    const bundled = path.join(TOOL_ROOT, DSL_DIR, parentPath);
    if (path.resolve(bundled) !== path.resolve(inProject) && path.resolve(bundled) !== path.resolve(sibling) && holds(bundled)) return { abs: bundled, via: "bundled", tried };
    return { tried };
  }
  // an installed package's edition
  const segs = parentPath.split("/");
  const pkgLen = parentPath.startsWith("@") ? 2 : 1;
  const pkg = segs.slice(0, pkgLen).join("/");
  const rest = segs.slice(pkgLen).join("/");
  for (let dir = editionAbs; ; dir = path.dirname(dir)) {
    const root = path.join(dir, "node_modules", pkg);
    if (fs.existsSync(path.join(root, "package.json"))) {
      for (const cand of [path.join(root, DSL_DIR, rest), path.join(root, rest)]) if (rest && holds(cand)) return { abs: cand, via: "package", tried };
      return { tried };
    }
    if (path.dirname(dir) === dir) break;
  }
  tried.push(`node_modules/${pkg} (no such package in \`${here}\` or a folder above it)`);
  return { tried };
}

/** Whether an `extends` target is a path (relative with `./` or `../`, or absolute) rather than a name. */
function isPathLike(p: string): boolean {
  return p.startsWith("./") || p.startsWith("../") || p === "." || p === ".." || path.isAbsolute(p) || /^[A-Za-z]:[\\/]/.test(p);
}
