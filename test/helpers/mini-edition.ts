/**
 * Copies of the mini edition (test/fixtures/frontend/mini) with extra files, each in its own
 * folder under `tmpRoot` and loaded with `repoRoot = tmpRoot`: what the checker tests of one
 * construct (tables, the designer's language) compile.
 */
import fs from "node:fs";
import path from "node:path";
import { loadEdition } from "../../compiler/check/index.js";
import type { Diagnostic } from "../../compiler/diagnostics/types.js";

export const MINI = path.resolve("test/fixtures/frontend/mini");

/** The loader of mini editions under `tmpRoot`: the mini edition plus `files` (name → text), in a fresh folder `ed<n>`. */
export function miniEditions(tmpRoot: string): (files: Record<string, string>) => { dir: string; result: ReturnType<typeof loadEdition> } {
  let n = 0;
  return (files) => {
    const name = `ed${n++}`;
    const dir = path.join(tmpRoot, name);
    fs.cpSync(MINI, dir, { recursive: true });
    for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, f), text);
    return { dir, result: loadEdition(name, { repoRoot: tmpRoot }) };
  };
}

/** The errors among `ds`, each as "<code> <message>". */
export const errorLines = (ds: Diagnostic[]): string[] => ds.filter((d) => d.severity === "error").map((d) => `${d.code} ${d.message}`);
