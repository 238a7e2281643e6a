// npm run vsix: build the VS Code extension's .vsix (editors/vscode, @vscode/vsce) and check what it
// holds: the manifest, the TextMate grammar and language configuration it names, the client and the
// vscode-languageclient it loads, and the server command (`rulewright lsp --stdio`).
// Usage: node scripts/vsix.mjs [--out file.vsix] [--no-install]. Needs `unzip` on PATH (.ci/run installs it).
// Exit 0 built and checked, 1 a check failed, 2 the install or the packaging failed.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

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
  const cmd = pkg.contributes?.configuration?.properties?.["rulewright.server.command"]?.default ?? [];
  check(cmd.join(" ").endsWith("rulewright lsp --stdio"), `server start: ${cmd.join(" ")}`);
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
if (failures.length) {
  console.error(`vsix: ${failures.length} check(s) failed`);
  process.exit(1);
}
