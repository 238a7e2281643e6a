#!/usr/bin/env node
// rulewright command-line entry: loads the TypeScript CLI through tsx (no build step needed).
// It exits explicitly: the Z3 runtime keeps worker threads alive after the last proof.
import { register } from "tsx/esm/api";
register();
const { main } = await import("../compiler/cli/main.ts");
const code = await main(process.argv.slice(2));
// a pipe takes large output asynchronously: let stdout and stderr drain before exiting
await Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write("", resolve))));
process.exit(code);
