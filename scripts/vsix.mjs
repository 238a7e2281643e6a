// npm run vsix: build the VS Code extension's .vsix (editors/vscode, @vscode/vsce) and check what it
// holds: the manifest, the TextMate grammar and language configuration it names, the client and the
// vscode-languageclient it loads, the server resolution (server-command.js: the project's own
// rulewright, else the shipped one) and the shipped server: the language server bundled with esbuild
// into one file, server/rulewright-lsp.mjs (compiler/lsp/server.ts and what it imports; z3-solver left
// out: the language server never loads the solver), which must answer `initialize` when run by node
// from a folder outside any checkout.
// Usage: node scripts/vsix.mjs [--out file.vsix] [--no-install]. Needs `unzip` on PATH (.ci/run installs it).
// Exit 0 built and checked, 1 a check failed, 2 the install or the packaging failed.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ext = path.join(root, "editors", "vscode");
const args = process.argv.slice(2);
const outIdx = args.indexOf("--out");
const out = path.resolve(outIdx >= 0 ? args[outIdx + 1] : path.join(root, ".ci", "out", "rulewright.vsix"));
fs.mkdirSync(path.dirname(out), { recursive: true });

function run(cmd, argv, cwd, hint) {
  try {
    execFileSync(cmd, argv, { cwd, stdio: ["ignore", "pipe", "inherit"] });
  } catch {
    console.error(`vsix: \`${path.basename(cmd)} ${argv.join(" ")}\` failed in ${path.relative(root, cwd) || "."}${hint ? `\n  hint: ${hint}` : ""}`);
    process.exit(2);
  }
}

const t0 = Date.now();
// the extension's own dependency (vscode-languageclient) from its lockfile, --offline: the project's
// `npm ci` has put the same tarballs in the npm cache (it is a dev dependency of the project at the
// same versions), so this reads no registry
if (!args.includes("--no-install")) run("npm", ["ci", "--offline", "--no-audit", "--no-fund", "--omit=dev"], ext, "run `npm ci` in the project root first (it fills the npm cache)");
// the shipped server: one ES module file, its dependencies inside (a `require` for the CommonJS ones)
const serverOut = path.join(ext, "server", "rulewright-lsp.mjs");
try {
  const esbuild = createRequire(import.meta.url)("esbuild");
  await esbuild.build({
    // through the CLI's command, which gives the server the proof cache and the prover's loader (compiler/cli/lsp.ts)
    stdin: { contents: 'import { lspCommand } from "./compiler/cli/lsp.ts";\nawait lspCommand({ stdio: true });\nprocess.exit(0);\n', resolveDir: root, sourcefile: "rulewright-lsp.ts", loader: "ts" },
    bundle: true, platform: "node", format: "esm", target: "node20", outfile: serverOut, mainFields: ["module", "main"], external: ["z3-solver"], logLevel: "warning",
    // the prover (compiler/verify/index.ts, which loads z3-solver, 35 MB) is not shipped: the
    // lazy import of it that compiler/cli/lsp.ts gives the server stays a dynamic import of a file that
    // is not there, so the shipped server starts without it and says once that background proving is
    // off (compiler/lsp/proving.ts)
    plugins: [{ name: "no-prover", setup(b) { b.onResolve({ filter: /verify[\\/]index\.js$/ }, (a) => (a.kind === "dynamic-import" ? { path: "./rulewright-prover-not-shipped.mjs", external: true } : undefined)); } }],
    banner: { js: '// the rulewright language server (rulewright lsp --stdio), bundled by scripts/vsix.mjs\nimport { createRequire as __rwCreateRequire } from "node:module";\nconst require = __rwCreateRequire(import.meta.url);' },
  });
} catch (e) {
  console.error(`vsix: bundling the language server failed: ${e.message}`);
  process.exit(2);
}
run(path.join(root, "node_modules", ".bin", "vsce"), ["package", "--allow-missing-repository", "--skip-license", "-o", out], ext);
const built = Date.now() - t0;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-vsix-"));
const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
};
try {
  execFileSync("unzip", ["-q", out, "-d", dir]);
  const x = path.join(dir, "extension");
  const has = (p) => fs.existsSync(path.join(x, p));
  check(has("package.json") && fs.existsSync(path.join(dir, "extension.vsixmanifest")), "manifest (extension/package.json, extension.vsixmanifest)");
  const pkg = JSON.parse(fs.readFileSync(path.join(x, "package.json"), "utf8"));
  check(has(pkg.main ?? "?"), `client entry ${pkg.main}`);
  const lang = pkg.contributes?.languages?.find((l) => l.id === "rulewright");
  check(!!lang && lang.extensions?.includes(".rules") && has(lang.configuration ?? "?"), `language rulewright (.rules) and its configuration ${lang?.configuration}`);
  const grammar = pkg.contributes?.grammars?.find((g) => g.language === "rulewright");
  let scope = "";
  try {
    scope = JSON.parse(fs.readFileSync(path.join(x, grammar.path), "utf8")).scopeName;
  } catch {}
  check(!!grammar && scope === "source.rulewright" && grammar.scopeName === scope, `TextMate grammar ${grammar?.path} (scope ${scope || "?"})`);
  const cmd = pkg.contributes?.configuration?.properties?.["rulewright.server.command"]?.default;
  check(Array.isArray(cmd) && !cmd.includes("npx"), `server command setting: default ${JSON.stringify(cmd)} (empty: found by server-command.js; never npx)`);
  let resolved0;
  try {
    const { resolveServer, SHIPPED_SERVER } = createRequire(path.join(x, pkg.main))("./server-command.js");
    resolved0 = resolveServer({ folder: dir, extensionPath: x, configured: [], exists: (p) => fs.existsSync(p) });
    check(resolved0.kind === "module" && resolved0.module === path.join(x, SHIPPED_SERVER), `outside a project the client starts the shipped server (${resolved0.module ?? resolved0.error})`);
  } catch (e) {
    check(false, `server-command.js loads from the .vsix (${e.message})`);
  }
  check(has("server/rulewright-lsp.mjs") && (await answersInitialize(path.join(x, "server/rulewright-lsp.mjs"), dir)), "the shipped server (server/rulewright-lsp.mjs) answers initialize, run by node outside the checkout");
  const client = fs.readFileSync(path.join(x, pkg.main), "utf8");
  let resolved = "";
  try {
    resolved = createRequire(path.join(x, pkg.main)).resolve("vscode-languageclient/node");
  } catch {}
  check(client.includes('require("vscode-languageclient/node")') && resolved.startsWith(x), "vscode-languageclient/node inside the .vsix");
  check(!has("test"), "no grammar tests in the .vsix");
  const files = execFileSync("unzip", ["-Z1", out], { encoding: "utf8" }).split("\n").filter(Boolean).length;
  console.log(`vsix: ${out}, ${files} files, ${(fs.statSync(out).size / 1024).toFixed(0)} KB; install + package ${(built / 1000).toFixed(1)} s, checks ${((Date.now() - t0 - built) / 1000).toFixed(1)} s`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
/** Whether the server at `file`, run by node in `cwd` with --stdio, answers an `initialize` request with its capabilities (within 20 s). */
function answersInitialize(file, cwd) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file, "--stdio"], { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    const done = (ok) => {
      clearTimeout(timer);
      child.kill();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), 20_000);
    child.stdout.on("data", (b) => {
      out += String(b);
      if (/"capabilities"\s*:/.test(out) && /"hoverProvider"\s*:\s*true/.test(out)) done(true);
    });
    child.on("error", () => done(false));
    child.on("exit", () => done(/"capabilities"/.test(out)));
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: null, rootUri: null, capabilities: {} } });
    child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

if (failures.length) {
  console.error(`vsix: ${failures.length} check(s) failed`);
  process.exit(1);
}
