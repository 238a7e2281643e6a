// npm run build (and `prepack`, so `npm pack` / `npm publish` always ship a fresh build): the
// compiler as JavaScript with type declarations in dist/ (tsconfig.build.json), the bundled
// editions' committed validators in dist/editions/<edition>/ (tsconfig.editions.json), and the
// worker scripts the compiler starts by file name (*.mjs, copied beside their modules); then the
// validators packages, one per bundled edition (scripts/build-validators.mjs, packages/dist/).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
const t0 = Date.now();
fs.rmSync("dist", { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
for (const project of ["tsconfig.build.json", "tsconfig.editions.json"]) execFileSync(process.execPath, [tsc, "-p", project], { stdio: "inherit" });
for (const dir of fs.readdirSync("compiler", { recursive: true, withFileTypes: true })) {
  if (!dir.isFile() || !dir.name.endsWith(".mjs")) continue;
  const from = path.join(dir.parentPath, dir.name);
  const to = path.join("dist", path.relative("compiler", from));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
}
console.log(`dist/ built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
// the runtime packages @rulewright/<edition> (packages/dist/<edition>/) from dist/editions and conformance/
execFileSync(process.execPath, ["scripts/build-validators.mjs"], { stdio: "inherit" });
