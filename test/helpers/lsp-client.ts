/**
 * A real LSP client for the tests: starts `node bin/rulewright.mjs lsp --stdio` as a child
 * process and talks JSON-RPC over its stdin/stdout (vscode-languageserver-protocol), as an editor
 * does. Collects `textDocument/publishDiagnostics` notifications for `waitForDiagnostics`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection, StreamMessageReader, StreamMessageWriter, InitializeRequest, InitializedNotification,
  DidOpenTextDocumentNotification, DidChangeTextDocumentNotification, PublishDiagnosticsNotification, ShutdownRequest, ExitNotification,
  RegistrationRequest, WorkDoneProgressCreateRequest, WorkDoneProgress,
  type ProtocolConnection, type PublishDiagnosticsParams, type Registration, type ClientCapabilities, type WorkDoneProgressBegin, type WorkDoneProgressReport, type WorkDoneProgressEnd,
} from "vscode-languageserver-protocol/node";

const REPO = path.resolve(import.meta.dirname, "../..");

export class LspClient {
  readonly conn: ProtocolConnection;
  readonly diagnostics: (PublishDiagnosticsParams & { at: number })[] = [];
  /** what the server registered dynamically (client/registerCapability), in order */
  readonly registrations: Registration[] = [];
  /** the server's work done progress: tokens it created (window/workDoneProgress/create) and the $/progress values, in order */
  readonly progress: { token: string | number; value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd; at: number }[] = [];
  readonly progressTokens: (string | number)[] = [];
  private waiters: (() => void)[] = [];
  stderr = "";

  private constructor(readonly child: ChildProcess) {
    this.conn = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    this.conn.onNotification(PublishDiagnosticsNotification.type, (p) => {
      this.diagnostics.push({ ...p, at: performance.now() });
      for (const w of this.waiters.splice(0)) w();
    });
    this.conn.onRequest(RegistrationRequest.type, (p) => {
      this.registrations.push(...p.registrations);
      for (const w of this.waiters.splice(0)) w();
    });
    this.conn.onRequest(WorkDoneProgressCreateRequest.type, (p) => {
      this.progressTokens.push(p.token);
      this.conn.onProgress(WorkDoneProgress.type, p.token, (value) => {
        this.progress.push({ token: p.token, value, at: performance.now() });
        for (const w of this.waiters.splice(0)) w();
      });
    });
    child.stderr!.on("data", (b) => (this.stderr += String(b)));
    this.conn.listen();
  }

  /**
   * Starts the server with `root` as the workspace folder (default: the repository); `opts.folders`
   * several workspace folders instead, `opts.capabilities` more client capabilities (merged over
   * publishDiagnostics with versions and related information, and work done progress),
   * `opts.initializationOptions` the server's settings (compiler/lsp/README.md; default
   * `{ prove: false, findings: false }`: no background proving, no proof findings). The client
   * answers window/workDoneProgress/create.
   */
  static async start(root = REPO, opts: { folders?: string[]; capabilities?: ClientCapabilities; initializationOptions?: Record<string, unknown> } = {}): Promise<LspClient> {
    const child = spawn(process.execPath, [path.join(REPO, "bin/rulewright.mjs"), "lsp", "--stdio"], { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] });
    const c = new LspClient(child);
    const folders = opts.folders ?? [root];
    await c.conn.sendRequest(InitializeRequest.type, {
      processId: process.pid, rootUri: uri(folders[0]!), workspaceFolders: folders.map((f, i) => ({ uri: uri(f), name: `ws${i}` })),
      capabilities: { window: { workDoneProgress: true }, ...opts.capabilities, textDocument: { publishDiagnostics: { versionSupport: true, relatedInformation: true }, ...opts.capabilities?.textDocument } },
      initializationOptions: opts.initializationOptions ?? { prove: false, findings: false },
    });
    await c.conn.sendNotification(InitializedNotification.type, {});
    return c;
  }

  async open(file: string, text: string, version = 1): Promise<string> {
    const u = uri(file);
    await this.conn.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: u, languageId: "rulewright", version, text } });
    return u;
  }

  /** Replaces the whole text (a full-document change). */
  async change(u: string, text: string, version: number): Promise<void> {
    await this.conn.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: u, version }, contentChanges: [{ text }] });
  }

  /** The first diagnostics notification for `u` (at `version`, when given) received after `from` notifications. */
  async waitForDiagnostics(u: string, version?: number, timeoutMs = 60_000): Promise<PublishDiagnosticsParams & { at: number }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.diagnostics.find((d) => d.uri === u && (version === undefined || d.version === version));
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no diagnostics for ${u} v${version} within ${timeoutMs} ms; got ${JSON.stringify(this.diagnostics.map((d) => [d.uri, d.version]))}; stderr: ${this.stderr}`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, 200);
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }

  /** The first registration for `method` the server sent (waits for it). */
  async waitForRegistration(method: string, timeoutMs = 30_000): Promise<Registration> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.registrations.find((r) => r.method === method);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no registration of ${method} within ${timeoutMs} ms; got ${JSON.stringify(this.registrations.map((r) => r.method))}; stderr: ${this.stderr}`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, 200);
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }

  /**
   * Waits until `test` holds of the notifications received so far (checked again on every
   * diagnostics or progress notification); no timing assertion: `timeoutMs` only ends a hung wait.
   */
  async waitFor<T>(what: string, test: () => T | undefined, timeoutMs = 120_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = test();
      if (hit !== undefined) return hit;
      if (Date.now() > deadline) throw new Error(`${what}: not seen within ${timeoutMs} ms; stderr: ${this.stderr}`);
      await new Promise<void>((res) => {
        const t = setTimeout(res, 200);
        this.waiters.push(() => {
          clearTimeout(t);
          res();
        });
      });
    }
  }

  async stop(): Promise<void> {
    try {
      await this.conn.sendRequest(ShutdownRequest.type);
      await this.conn.sendNotification(ExitNotification.type);
    } catch {
      // already gone
    }
    await new Promise<void>((res) => {
      if (this.child.exitCode !== null) return res();
      const t = setTimeout(() => {
        this.child.kill();
        res();
      }, 5000);
      this.child.on("exit", () => {
        clearTimeout(t);
        res();
      });
    });
    this.conn.dispose();
  }
}

export function uri(file: string): string {
  return pathToFileURL(file).href;
}

export { REPO };
