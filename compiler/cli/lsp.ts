/**
 * `rulewright lsp`: the language server over stdio (compiler/lsp/README.md). stdout carries the
 * protocol only; logs go to the client's output (window/logMessage). Resolves with the exit code
 * when the connection ends: 0 after the client's `shutdown` (then `exit` or the end of stdin),
 * 1 when stdin ends without it or a message has no numeric `Content-Length` (said on stderr).
 */
export async function lspCommand(o: { stdio?: boolean }): Promise<number> {
  void o; // `--stdio` is accepted because editor clients pass it; stdio is the only transport
  const { startServer } = await import("../lsp/server.js");
  return startServer();
}
