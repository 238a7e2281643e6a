// npm run build:validators (and the end of npm run build): the runtime packages, one per bundled
// edition, in packages/dist/<edition>/ — `@rulewright/<edition>`: the edition's validators as
// minified ES modules with their type declarations, no dependency, `"sideEffects": false`, plus
// what the toolchain package (`rulewright`, the compiler, prover and CLI) knows of the edition
// and an engine needs at run time: ENUMS (every enum's members as run-time values, read from the
// edition's IR: a separate emit step here, not in compiler/codegen), START_STATE (the edition's
// start state, test/fixtures/<edition>/base-state.json), EDITION_HASH (the inputs hash of the
// rules the validators were generated from) and the conformance corpus (`/corpus`).
// Needs dist/ (scripts/build-dist.mjs: the compiled compiler and dist/editions/<edition>/).
// Template: packages/validators/ (README.md, the package's documentation).
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
process.chdir(root);
const t0 = Date.now();
const esbuild = await import("esbuild");
// the compiled compiler (npm run build), or its sources when run under tsx (node --import tsx)
const compiled = path.join(root, "dist/index.js");
const { loadEdition } = await import(pathToFileURL(fs.existsSync(compiled) ? compiled : path.join(root, "compiler/index.ts")).href);
const rootPkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
const OUT = "packages/dist";
fs.rmSync(OUT, { recursive: true, force: true });

const editions = fs.readdirSync("dist/editions").filter((e) => fs.existsSync(path.join("dist/editions", e, "index.js"))).sort();
for (const edition of editions) {
  const { edition: ir, diagnostics } = loadEdition(path.join("dsl", edition));
  if (!ir) throw new Error(`dsl/${edition} does not compile: ${diagnostics.map((d) => d.message).join("; ")}`);
  const out = path.join(OUT, edition);
  fs.mkdirSync(path.join(out, "corpus"), { recursive: true });
  const from = path.join("dist/editions", edition);
  const header = fs.readFileSync(path.join("generated", edition, "index.ts"), "utf8");
  const hash = /inputs sha256: ([0-9a-f]{64})/.exec(header)?.[1];
  if (hash !== ir.inputHash) throw new Error(`generated/${edition} is stale (run npx rulewright build ${edition})`);

  // the generated validators: each module minified on its own (the module graph, and so a bundler's tree shaking, unchanged)
  for (const f of fs.readdirSync(from).sort()) {
    if (f.endsWith(".d.ts")) {
      fs.copyFileSync(path.join(from, f), path.join(out, f === "index.d.ts" ? "validators-index.d.ts" : f));
    } else if (f.endsWith(".js")) {
      const src = fs.readFileSync(path.join(from, f), "utf8");
      const { code } = await esbuild.transform(src, { format: "esm", minify: true, target: "es2022", legalComments: "none" });
      fs.writeFileSync(path.join(out, f === "index.js" ? "validators-index.js" : f), code);
    }
  }
  // ENUMS: each enum of the edition (schema enums and the board's Space) as a frozen list of its members
  const enums = [...ir.enums].sort((a, b) => (a.name < b.name ? -1 : 1));
  fs.writeFileSync(
    path.join(out, "enums.js"),
    `export const ENUMS=/* @__PURE__ */Object.freeze({${enums.map((e) => `${JSON.stringify(e.name)}:Object.freeze(${JSON.stringify(e.members)})`).join(",")}});\n`,
  );
  fs.writeFileSync(
    path.join(out, "enums.d.ts"),
    `/** Every enum of the edition as run-time values: its members in declaration order (the types of the same names list them as unions). */\nexport declare const ENUMS: {\n${enums.map((e) => `  readonly ${JSON.stringify(e.name)}: readonly [${e.members.map((m) => JSON.stringify(m)).join(", ")}];`).join("\n")}\n};\n`,
  );
  // START_STATE and EDITION_HASH
  const startFile = [edition, ir.parent].filter(Boolean).map((e) => path.join("test/fixtures", e, "base-state.json")).find((f) => fs.existsSync(f));
  if (!startFile) throw new Error(`no start state for ${edition} (test/fixtures/${edition}/base-state.json)`);
  const start = JSON.parse(fs.readFileSync(startFile, "utf8"));
  fs.writeFileSync(path.join(out, "start-state.js"), `export const START_STATE=/* @__PURE__ */Object.freeze(${JSON.stringify(start)});\n`);
  fs.writeFileSync(
    path.join(out, "start-state.d.ts"),
    `import type { State } from "./state.js";\n/** The edition's start state (frozen at the top level only: copy it, e.g. structuredClone(START_STATE), before changing it). */\nexport declare const START_STATE: Readonly<State>;\n`,
  );
  fs.writeFileSync(path.join(out, "edition.js"), `export const EDITION=${JSON.stringify(edition)};export const EDITION_TITLE=${JSON.stringify(ir.title)};export const EDITION_HASH=${JSON.stringify(ir.inputHash)};\n`);
  fs.writeFileSync(
    path.join(out, "edition.d.ts"),
    `/** The edition's folder name. */\nexport declare const EDITION: ${JSON.stringify(edition)};\n/** The edition's title. */\nexport declare const EDITION_TITLE: ${JSON.stringify(ir.title)};\n/** The sha256 of the rule files, schema and board the validators were generated from (the corpus's manifest.version). */\nexport declare const EDITION_HASH: ${JSON.stringify(ir.inputHash)};\n`,
  );
  const index = `export * from "./validators-index.js";\nexport { ENUMS } from "./enums.js";\nexport { START_STATE } from "./start-state.js";\nexport { EDITION, EDITION_TITLE, EDITION_HASH } from "./edition.js";\n`;
  fs.writeFileSync(path.join(out, "index.js"), index);
  fs.writeFileSync(path.join(out, "index.d.ts"), index);

  // the conformance corpus (the files conformance/runner.mjs reads), JSON without indentation
  const corpusDir = path.join("conformance", edition);
  const manifest = JSON.parse(fs.readFileSync(path.join(corpusDir, "manifest.json"), "utf8"));
  if (manifest.version !== ir.inputHash) throw new Error(`conformance/${edition} is stale (run npx rulewright conformance write ${edition})`);
  // (the cases gzip'd: 552 KB of JSON for his are 40 KB, and they are most of the install size)
  for (const f of ["manifest.json", "cases.json", ...manifest.bases]) {
    const json = JSON.stringify(JSON.parse(fs.readFileSync(path.join(corpusDir, f), "utf8"))) + "\n";
    if (f === "cases.json") fs.writeFileSync(path.join(out, "corpus", "cases.json.gz"), zlib.gzipSync(json, { level: 9 }));
    else fs.writeFileSync(path.join(out, "corpus", f), json);
  }
  fs.copyFileSync("packages/validators/corpus.js", path.join(out, "corpus.js"));
  fs.copyFileSync("packages/validators/corpus.d.ts", path.join(out, "corpus.d.ts"));
  fs.writeFileSync(path.join(out, "README.md"), fs.readFileSync("packages/validators/README.md", "utf8").replaceAll("<edition>", edition).replaceAll("<title>", ir.title));
  const pkg = {
    name: `@rulewright/${edition}`,
    version: rootPkg.version,
    description: `${ir.title}: the rules as generated validators (rulewright), with the start state, enums and the conformance corpus; no dependencies`,
    type: "module",
    license: rootPkg.license,
    sideEffects: false,
    main: "./index.js",
    types: "./index.d.ts",
    exports: {
      ".": { types: "./index.d.ts", default: "./index.js" },
      "./corpus": { types: "./corpus.d.ts", default: "./corpus.js" },
      "./corpus/*": "./corpus/*",
      "./package.json": "./package.json",
    },
    engines: { node: ">=20.19" },
  };
  fs.writeFileSync(path.join(out, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  let bytes = 0;
  for (const f of fs.readdirSync(out, { recursive: true })) {
    const p = path.join(out, String(f));
    if (fs.statSync(p).isFile()) bytes += fs.statSync(p).size;
  }
  console.log(`${out}: @rulewright/${edition} ${(bytes / 1024).toFixed(0)} KiB unpacked`);
}
console.log(`validators packages built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
