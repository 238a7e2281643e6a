/**
 * Writes an edition's generated files (`generateEdition`'s output: paths like
 * `generated/tiny/index.ts`) into a new temporary folder marked as an ES module project, so a test
 * can import them. Returns the folder (under `parent`, the system's temporary folder by default);
 * the caller removes it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function writeGenerated(files: readonly { path: string; content: string }[], prefix: string, parent: string = os.tmpdir()): string {
  const dir = fs.mkdtempSync(path.join(parent, prefix));
  for (const f of files) {
    const p = path.join(dir, f.path);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, f.content);
  }
  fs.writeFileSync(path.join(dir, "package.json"), '{ "type": "module" }\n');
  return dir;
}
