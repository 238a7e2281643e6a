// The VS Code client of the rulewright language server: starts `rulewright lsp --stdio` (the
// setting rulewright.server.command) in the first workspace folder for `.rules` files.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const [command, ...args] = vscode.workspace.getConfiguration("rulewright").get("server.command");
  const run = { command, args, options: { cwd: folder, shell: process.platform === "win32" }, transport: TransportKind.stdio };
  client = new LanguageClient("rulewright", "rulewright", { run, debug: run }, {
    documentSelector: [{ scheme: "file", language: "rulewright" }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{rules,json}") },
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
