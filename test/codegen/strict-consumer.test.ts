/**
 * generated/* in a strictly configured engine (issue 17, item 2): the committed validators of
 * his (the largest check a test can afford; CI's "generated/ compiles strictly" step checks every
 * edition with tsconfig.generated.json) are compiled with the strictest options engines set (strict,
 * noUnusedLocals, noUnusedParameters, exactOptionalPropertyTypes, noUncheckedIndexedAccess,
 * verbatimModuleSyntax) together with an ESM consumer (.mts, `import`) and a CommonJS consumer
 * (.cts, `import x = require(...)`, Node's require of an ES module), emitted, and both consumers
 * run: they check an action and call validateState (schema errors as JSON pointers, invariants).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO = path.resolve(__dirname, "../..");
const EDITIONS = ["his"];

const STRICT: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  skipLibCheck: false,
  types: [],
  lib: ["lib.es2022.d.ts"],
};


const esm = `
import * as his from "./gen/his/index.js";
import { readFileSync } from "node:fs";
declare const process: { argv: string[] };
declare const console: { log(s: string): void };
const state: unknown = JSON.parse(readFileSync(process.argv[2]!, "utf8"));
const out: unknown[] = [];
for (const m of [his]) {
  const bad = m.validateState({ ...(state as object), phase: "nowhere", extra: 1 });
  out.push({ bad: bad.map((e) => e.pointer + " " + e.keyword).sort().slice(0, 2), good: m.validateState(state).map((e) => e.invariant ?? e.pointer) });
}
if (his.isValidState(state)) out.push(his.checkDeclareWar(state, { action: "declare_war", by: "france", target: "scotland" }).allowed);
console.log(JSON.stringify(out));
`;
const cjs = `
import his = require("./gen/his/index.js");
import fs = require("node:fs");
declare const process: { argv: string[] };
declare const console: { log(s: string): void };
const state: unknown = JSON.parse(fs.readFileSync(process.argv[2]!, "utf8"));
const out: unknown[] = [];
for (const m of [his]) {
  const bad = m.validateState({ ...(state as object), phase: "nowhere", extra: 1 });
  out.push({ bad: bad.map((e) => e.pointer + " " + e.keyword).sort().slice(0, 2), good: m.validateState(state).map((e) => e.invariant ?? e.pointer) });
}
if (his.isValidState(state)) out.push(his.checkDeclareWar(state, { action: "declare_war", by: "france", target: "scotland" }).allowed);
console.log(JSON.stringify(out));
`;

let dir = "";
let diagnostics: string[] = [];

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rw-strict-"));
  for (const e of EDITIONS) fs.cpSync(path.join(REPO, "generated", e), path.join(dir, "gen", e), { recursive: true });
  // the generated folder is ES modules; the consumers pick their kind by extension (.mts / .cts)
  fs.writeFileSync(path.join(dir, "gen", "package.json"), JSON.stringify({ type: "module" }));
  fs.writeFileSync(path.join(dir, "consumer-esm.mts"), esm);
  fs.writeFileSync(path.join(dir, "consumer-cjs.cts"), cjs);
  // a minimal `node:fs` for the consumers (types: [] keeps @types/node out of the strict check)
  fs.writeFileSync(path.join(dir, "node-fs.d.ts"), `declare module "node:fs" { export function readFileSync(p: string, enc: "utf8"): string; }\n`);
  const roots = [path.join(dir, "consumer-esm.mts"), path.join(dir, "consumer-cjs.cts"), path.join(dir, "node-fs.d.ts")];
  const program = ts.createProgram(roots, { ...STRICT, outDir: path.join(dir, "out"), rootDir: dir });
  const diags = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  diagnostics = diags.map((d) => {
    const msg = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return msg;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${path.relative(dir, d.file.fileName)}:${line + 1}:${character + 1}: TS${d.code} ${msg}`;
  });
}, 120_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const STATE = path.join(REPO, "test/fixtures/his/examples/deploy-paris-genoa.state.json");

function run(file: string): unknown {
  const r = spawnSync(process.execPath, [path.join(dir, "out", file), STATE], { encoding: "utf8", timeout: 60_000 });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

describe("generated/* under the strictest tsc options", () => {
  it("compiles with no error from an ESM and a CommonJS consumer", () => {
    expect(diagnostics).toEqual([]);
  });

  it("runs from both consumers with the same results: schema errors as JSON pointers, a valid state, a verdict", () => {
    const a = run("consumer-esm.mjs");
    const b = run("consumer-cjs.cjs");
    expect(b).toEqual(a);
    const [his] = a as { bad: string[]; good: string[] }[];
    // the unknown property and the bad enum value, each at its JSON pointer
    expect(his!.bad).toEqual([" additionalProperties", "/phase enum"]);
    expect(his!.good).toEqual([]);
  });
});
