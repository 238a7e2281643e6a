// The VS Code client of the rulewright language server. One client per workspace folder that has
// `.rules` files open (each folder's server is found by server-command.js: the setting, the
// project's own rulewright, else the server shipped in the .vsix), and one per folder holding rule
// files outside every workspace folder (found from that folder). A workspace folder removed from
// the workspace stops its client.
const fs = require("node:fs");
const path = require("node:path");
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");
const { resolveServer } = require("./server-command.js");

/** clients by workspace folder URI, or "dir:<path>" for rule files outside every workspace folder */
const clients = new Map();
let context;

function serverOptions(folder) {
  const found = resolveServer({
    folder,
    extensionPath: context.extensionPath,
    configured: vscode.workspace.getConfiguration("rulewright").get("server.command"),
    exists: (p) => fs.existsSync(p),
    readFile: (p) => {
      try {
        return fs.readFileSync(p, "utf8");
      } catch {
        return undefined;
      }
    },
  });
  if (found.kind === "none") throw new Error(found.error);
  const options = { cwd: found.cwd };
  if (found.kind === "module") {
    const run = { module: found.module, args: found.args, transport: TransportKind.stdio, options };
    return { run, debug: run };
  }
  const run = { command: found.command, args: found.args, transport: TransportKind.stdio, options: { ...options, shell: process.platform === "win32" } };
  return { run, debug: run };
}

function start(key, folder, dir) {
  if (clients.has(key)) return;
  let options;
  try {
    options = serverOptions(folder ? folder.uri.fsPath : dir);
  } catch (e) {
    clients.set(key, undefined);
    void vscode.window.showErrorMessage(e.message);
    return;
  }
  const documentSelector = folder
    ? [{ scheme: "file", language: "rulewright", pattern: `${folder.uri.fsPath.replace(/\\/g, "/")}/**/*` }]
    : [{ scheme: "file", language: "rulewright", pattern: `${dir.replace(/\\/g, "/")}/*` }];
  const client = new LanguageClient("rulewright", folder ? `rulewright (${folder.name})` : `rulewright (${dir})`, options, {
    documentSelector,
    workspaceFolder: folder,
    // the server also registers its own watchers (workspace/didChangeWatchedFiles) when the client can
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder ?? vscode.Uri.file(dir), "**/*.{rules,json,yaml,yml}")) },
  });
  clients.set(key, client);
  void client.start();
}

function opened(doc) {
  if (doc.languageId !== "rulewright" || doc.uri.scheme !== "file") return;
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  if (folder) start(folder.uri.toString(), folder);
  else {
    const dir = path.dirname(doc.uri.fsPath);
    start(`dir:${dir}`, undefined, dir);
  }
}

function activate(ctx) {
  context = ctx;
  vscode.workspace.textDocuments.forEach(opened);
  ctx.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(opened),
    vscode.workspace.onDidChangeWorkspaceFolders((e) => {
      for (const f of e.removed) {
        const c = clients.get(f.uri.toString());
        clients.delete(f.uri.toString());
        if (c) void c.stop();
      }
    }),
    { dispose: () => deactivate() },
  );
}

function deactivate() {
  const all = [...clients.values()].filter(Boolean);
  clients.clear();
  return Promise.all(all.map((c) => c.stop()));
}

module.exports = { activate, deactivate };
