/**
 * `rulewright lsp`: the language server over stdio (compiler/lsp/README.md). stdout carries the
 * protocol only; logs go to the client's output (window/logMessage). Resolves when the client
 * closes the connection (exit code 0).
 */
export async function lspCommand(o: { stdio?: boolean }): Promise<number> {
  void o; // `--stdio` is accepted because editor clients pass it; stdio is the only transport
  const { startServer } = await import("../lsp/server.js");
  await startServer();
  return 0;
}
