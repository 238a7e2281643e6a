// Which rulewright language server the VS Code client starts for a workspace folder: a pure
// function of the folder, the setting and what exists on disk (no `vscode` import, so it is
// tested in node by test/lsp/vscode-server-command.test.ts).
//
// In order:
// 1. the setting `rulewright.server.command`, when the user set one (non-empty): run as given,
//    in the folder;
// 2. the project's own rulewright, from the folder or the nearest folder above it (a workspace
//    opened at `dsl/his` is still in the project): `node_modules/.bin/rulewright`
//    (`rulewright.cmd` on Windows), else `node_modules/rulewright/bin/rulewright.mjs`, else —
//    in a checkout of rulewright itself (a package.json named `rulewright`) — `bin/rulewright.mjs`;
// 3. the server shipped inside the extension (`server/rulewright-lsp.mjs`, built into the
//    .vsix by scripts/vsix.mjs);
// 4. none: an error message saying what was looked for. Never `npx`, which would install from
//    the registry outside a checkout.
const path = require("node:path");

/** The file the .vsix ships the bundled server in, relative to the extension's folder. */
const SHIPPED_SERVER = path.join("server", "rulewright-lsp.mjs");

/**
 * @param {object} o
 * @param {string | undefined} o.folder the workspace folder (absolute); undefined for files outside any folder
 * @param {string} o.extensionPath the extension's install folder (absolute)
 * @param {string[] | undefined} o.configured the setting `rulewright.server.command` (empty or undefined: not set)
 * @param {(p: string) => boolean} o.exists whether a file exists
 * @param {(p: string) => string | undefined} [o.readFile] a file's text (to read package.json); undefined when unreadable
 * @param {string} [o.platform] process.platform
 * @returns {{ kind: "command", command: string, args: string[], cwd?: string, source: string }
 *   | { kind: "module", module: string, args: string[], cwd?: string, source: string }
 *   | { kind: "none", error: string }}
 *   `command`: run the command (stdio); `module`: run the script with the editor's own node
 *   (vscode-languageclient's NodeModule; its stdio transport adds `--stdio`); `source` says which
 *   rule of the order above chose it.
 */
function resolveServer(o) {
  const platform = o.platform ?? process.platform;
  const p = platform === "win32" ? path.win32 : path.posix;
  const cwd = o.folder;
  if (o.configured && o.configured.length) {
    const [command, ...args] = o.configured;
    return { kind: "command", command, args, cwd, source: "the setting rulewright.server.command" };
  }
  const looked = [];
  if (o.folder) {
    for (let dir = o.folder; ; ) {
      const bin = p.join(dir, "node_modules", ".bin", platform === "win32" ? "rulewright.cmd" : "rulewright");
      const mod = p.join(dir, "node_modules", "rulewright", "bin", "rulewright.mjs");
      looked.push(bin, mod);
      if (o.exists(bin)) return { kind: "command", command: bin, args: ["lsp", "--stdio"], cwd, source: `the project's ${p.relative(o.folder, bin) || bin}` };
      if (o.exists(mod)) return { kind: "module", module: mod, args: ["lsp"], cwd, source: `the project's ${p.relative(o.folder, mod) || mod}` };
      const own = p.join(dir, "bin", "rulewright.mjs");
      if (o.exists(own) && isRulewrightPackage(o.readFile?.(p.join(dir, "package.json")))) return { kind: "module", module: own, args: ["lsp"], cwd, source: "the rulewright checkout" };
      const up = p.dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  const shipped = p.join(o.extensionPath, SHIPPED_SERVER);
  looked.push(shipped);
  if (o.exists(shipped)) return { kind: "module", module: shipped, args: [], cwd, source: "the server shipped with the extension" };
  return {
    kind: "none",
    error: `rulewright: no language server found (looked for ${looked.join(", ")}); install rulewright in the project (npm install --save-dev rulewright) or set rulewright.server.command`,
  };
}

function isRulewrightPackage(text) {
  try {
    return JSON.parse(text ?? "").name === "rulewright";
  } catch {
    return false;
  }
}

module.exports = { resolveServer, SHIPPED_SERVER };
