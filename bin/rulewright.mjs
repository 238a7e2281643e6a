#!/usr/bin/env node
// rulewright command-line entry. Installed (the npm package: no TypeScript sources beside this
// file) it runs the compiled CLI in dist/, with no TypeScript loader. In a checkout of the
// repository it runs the TypeScript sources through tsx (a devDependency), so an edit to
// compiler/ needs no build step; RULEWRIGHT_DIST=1 runs dist/ there too (after `npm run build`).
// It exits explicitly: the Z3 runtime keeps worker threads alive after the last proof.
import { existsSync } from "node:fs";

const fromSources = !process.env.RULEWRIGHT_DIST && existsSync(new URL("../compiler/cli/main.ts", import.meta.url));
let main;
if (fromSources) {
  (await import("tsx/esm/api")).register();
  ({ main } = await import("../compiler/cli/main.ts"));
} else {
  ({ main } = await import("../dist/cli/main.js"));
}
const code = await main(process.argv.slice(2));
// a pipe takes large output asynchronously: let stdout and stderr drain before exiting
await Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write("", resolve))));
process.exit(code);
