#!/usr/bin/env node
// rulewright command-line entry: loads the TypeScript CLI through tsx (no build step needed).
import { register } from "tsx/esm/api";
register();
const { main } = await import("../compiler/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
