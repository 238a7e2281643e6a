/**
 * `rulewright lsp`: the language server over stdio (compiler/lsp/README.md). stdout carries the
 * protocol only; logs go to the client's output (window/logMessage). Resolves with the exit code
 * when the connection ends: 0 after the client's `shutdown` (then `exit` or the end of stdin),
 * 1 when stdin ends without it or a message has no numeric `Content-Length` (said on stderr).
 *
 * The server never imports the prover (compiler/lsp/keys.ts): this command gives it the proof
 * cache and its keys (no solver) and a loader of compiler/verify/index.ts, imported only when the
 * server first proves (the shipped extension's bundle leaves that import out: scripts/vsix.mjs).
 */
export async function lspCommand(o: { stdio?: boolean }): Promise<number> {
  void o; // `--stdio` is accepted because editor clients pass it; stdio is the only transport
  const [{ startServer }, { useProver }, { ProofCache }, { obligationKeyer }] = await Promise.all([
    import("../lsp/server.js"),
    import("../lsp/keys.js"),
    import("../verify/cache/store.js"),
    import("../verify/cache/keys.js"),
  ]);
  useProver({
    cacheFile: (dir, name) => ProofCache.fileFor(dir, name),
    openCache: (dir, name) => new ProofCache(dir, name),
    obligationKeyer,
    load: async () => {
      const verify = await import("../verify/index.js");
      return {
        SolverPool: verify.SolverPool,
        defaultWorkers: verify.defaultWorkers,
        // the server passes back the caches and pools made above and here (keys.ts's views of them)
        proveEdition: (ir, opts) => verify.proveEdition(ir, { ...opts, cache: opts.cache as InstanceType<typeof ProofCache>, pool: opts.pool as InstanceType<typeof verify.SolverPool> }),
      };
    },
  });
  return startServer();
}
