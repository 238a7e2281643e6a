/**
 * The rulewright language server (LSP 3.17 over stdio, built on vscode-languageserver): wires the
 * editor's requests to `Features` and publishes diagnostics.
 *
 * Diagnostics: after an edit (debounced by `DEBOUNCE_MS`), the edited file's own edition is checked
 * and published first, the other editions that include it `DEFERRED_MS` later; each edition is
 * checked by the compiler's own front end (`loadEdition`, with the unsaved buffers), and every
 * rule file of those editions gets its diagnostics (the union over every edition that includes
 * it, so a module shows what each importing edition finds), tagged with the document version
 * that was checked. A request never throws to the client: a failure is logged and answered with
 * an empty result, so a half-typed file cannot bring the server down.
 *
 * Project roots: each file is answered by the project it lies in (`projectRootOf`: the nearest
 * folder above it with `dsl/` or a rulewright `package.json`), so a workspace opened at the
 * project's parent, at `dsl/his`, or with several folders finds the proof reports, scenarios and
 * fixtures of the right project; the workspace folder is the fallback. A `.rules` file that no
 * edition includes gets its syntax diagnostics and one information diagnostic saying so.
 *
 * Files changed on disk: when the client can register file watchers dynamically, the server
 * registers `workspace/didChangeWatchedFiles` for rule files, schemas, boards and scenario files;
 * a change re-checks the editions and publishes their diagnostics again.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  createConnection, TextDocuments, TextDocumentSyncKind, StreamMessageReader, StreamMessageWriter, DidChangeWatchedFilesNotification, ResponseError, LSPErrorCodes,
  type Connection, type InitializeParams, type InitializeResult, type FileSystemWatcher, type ServerCapabilities,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { Project, projectRootOf } from "./project.js";
import { Features, TOKEN_MODIFIERS, TOKEN_TYPES, uriOf } from "./protocol.js";
import { formatRules } from "../fmt/format.js";
import { Proving, type Progress, type ProvingOptions } from "./proving.js";
import { DiagnosticsSchedule, type ProjectEntry } from "./diagnostics-schedule.js";

export { DEBOUNCE_MS, DEFERRED_MS } from "./diagnostics-schedule.js";

/** What the server asks the client to watch on disk (when it can register watchers): rule files, schemas, boards, scenario files. */
export const WATCHED_FILES: FileSystemWatcher[] = [
  { globPattern: "**/*.rules" },
  { globPattern: "**/*.schema.json" },
  { globPattern: "**/board.json" },
  { globPattern: "**/dsl/**/*.json" },
  { globPattern: "**/test/scenarios/**/*.{yaml,yml}" },
];

export interface ServerOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** project root when the client sends none (default: the working directory) */
  root?: string;
  /** where a framing error or an unexpected end of the connection is explained (default: stderr) */
  errors?: NodeJS.WritableStream;
}

/**
 * Starts the server; resolves with the exit code when the connection ends: 0 after a `shutdown`
 * request (then the `exit` notification or the end of the input), 1 when the input ends without
 * one or a message cannot be framed (a missing or non-numeric `Content-Length`: the stream cannot
 * be read further), with the reason on `opts.errors` (stderr). A body that is not JSON is
 * answered with a JSON-RPC parse error (-32700) and the server reads on.
 */
export function startServer(opts: ServerOptions = {}): Promise<number> {
  const reader = new StreamMessageReader(opts.input ?? process.stdin);
  const writer = new StreamMessageWriter(opts.output ?? process.stdout);
  const connection: Connection = createConnection(reader, writer);
  let shutdown = false;
  // the solver processes of background proving end with the server (the cache's last verdicts written first)
  connection.onShutdown(async () => {
    shutdown = true;
    await Promise.all([...projects.values()].map((e) => e.proving?.close()));
  });
  const documents = new TextDocuments(TextDocument);
  let project = new Project(path.resolve(opts.root ?? process.cwd()));
  let features = new Features(project);
  /** the settings of background proving, from initialize (proving.ts; none before it) */
  let provingSettings: Omit<ProvingOptions, "root"> | undefined;
  /** a project's background proving, once the settings are known */
  const attachProving = (e: ProjectEntry) => {
    if (!provingSettings || e.proving) return;
    const pv = (e.proving = new Proving({ ...provingSettings, root: e.project.root }));
    if (provingSettings.prove && provingSettings.findings) e.features.useProofCaches((rel) => pv.loadedCache(rel));
  };
  /** one project per project root (the workspace's own, and those found from the files) */
  const projects = new Map<string, ProjectEntry>([[project.root, { project, features }]]);
  /** the project a file belongs to: found from the file, else the workspace's */
  const forFile = (f: string): ProjectEntry => {
    const root = projectRootOf(f) ?? project.root;
    let p = projects.get(root);
    if (!p) {
      const pr = new Project(root);
      // the editor's buffers are shared: every project sees every unsaved file
      for (const [k, v] of project.open) pr.open.set(k, v);
      projects.set(root, (p = { project: pr, features: new Features(pr) }));
      attachProving(p);
    }
    return p;
  };
  const safe = <T>(what: string, fallback: T, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      connection.console.error(`rulewright: ${what} failed: ${(e as Error).message}`);
      return fallback;
    }
  };
  let canWatch = false;
  const diagnostics = new DiagnosticsSchedule({
    forFile,
    entries: () => projects.values(),
    workspace: () => project,
    send: (f, diags, version) => void connection.sendDiagnostics({ uri: uriOf(f), diagnostics: diags, ...(version !== undefined ? { version } : {}) }),
    safe,
  });
  /** after any change: what was derived from the files is forgotten in every project */
  const invalidate = () => {
    for (const p of projects.values()) {
      p.features.generation++;
      p.project.invalidate();
    }
  };
  const changed = (file: string) => {
    invalidate();
    diagnostics.changed(file);
  };

  connection.onInitialize((params): InitializeResult => {
    const rootUri = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
    const root = rootUri ? fileOf(rootUri) : undefined;
    if (root) {
      projects.delete(project.root);
      project = new Project(root);
      features = new Features(project);
      projects.set(root, { project, features });
    }
    canWatch = !!params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration;
    provingSettings = provingSettingsOf(params, connection, (files) => diagnostics.publish(files));
    for (const e of projects.values()) attachProving(e);
    return { capabilities: CAPABILITIES, serverInfo: { name: "rulewright" } };
  });

  connection.onInitialized(() => {
    if (canWatch) void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: WATCHED_FILES }).catch((e: Error) => connection.console.error(`rulewright: registering file watchers failed: ${e.message}`));
  });

  documents.onDidChangeContent((e) => {
    const f = fileOf(e.document.uri);
    if (!f) return;
    const buf = { text: e.document.getText(), version: e.document.version };
    forFile(f);
    for (const p of projects.values()) p.project.open.set(f, buf);
    changed(f);
  });
  documents.onDidClose((e) => {
    const f = fileOf(e.document.uri);
    if (!f) return;
    for (const p of projects.values()) p.project.open.delete(f);
    changed(f);
  });
  connection.onDidChangeWatchedFiles((p) => {
    // a schema, board, scenario or rule file changed on disk: every edition checked so far is checked again, and the editions of a changed rule file
    invalidate();
    diagnostics.recheck(p.changes.map((c) => fileOf(c.uri)).filter((f): f is string => !!f && f.endsWith(".rules")));
  });

  answerRequests(connection, { fileOf, safe, forFile, features, project });

  documents.listen(connection);
  return new Promise((resolve) => {
    const errors = opts.errors ?? process.stderr;
    let stopped = false;
    const stop = (code: number, why?: string) => {
      if (stopped) return; // the first reason ends it (a framing error is followed by the end of the input)
      stopped = true;
      if (why) errors.write(`rulewright lsp: ${why}\n`);
      resolve(code);
    };
    connection.onExit(() => {
      for (const e of projects.values()) void e.proving?.close();
      stop(shutdown ? 0 : 1);
    });
    reader.onError((e) => {
      if (e instanceof SyntaxError) {
        // framed, but not JSON: answer it (JSON-RPC parse error) and read on
        void writer.write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: `parse error: the message is not JSON (${e.message})` } } as never);
        errors.write(`rulewright lsp: a message that is not JSON was answered with a parse error (${e.message})\n`);
        return;
      }
      stop(1, `cannot read the client's messages: ${e.message.split("\n")[0]} — every message needs a \`Content-Length: <bytes>\` header; stopping`);
    });
    reader.onClose(() => stop(shutdown ? 0 : 1, shutdown ? undefined : "the client closed the connection without a shutdown request"));
    connection.listen();
  });
}

/** The path of a `file:` URI; undefined for another scheme or a URI that is not one. */
function fileOf(uri: string): string | undefined {
  try {
    return uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/** What the server offers (initialize's answer). */
const CAPABILITIES: ServerCapabilities = {
  textDocumentSync: TextDocumentSyncKind.Incremental,
  hoverProvider: true,
  definitionProvider: true,
  referencesProvider: true,
  documentSymbolProvider: true,
  workspaceSymbolProvider: true,
  completionProvider: { triggerCharacters: [".", " "] },
  renameProvider: { prepareProvider: true },
  codeActionProvider: { codeActionKinds: ["quickfix"] },
  documentFormattingProvider: true,
  foldingRangeProvider: true,
  semanticTokensProvider: { legend: { tokenTypes: [...TOKEN_TYPES], tokenModifiers: [...TOKEN_MODIFIERS] }, full: true },
};

/**
 * The settings of background proving from initialize's `initializationOptions`: `{ prove: false }`
 * turns background proving off (the last report's findings still show), `{ findings: false }`
 * shows no proof findings at all, `{ solverNice: n }` (an integer, capped at 19) lowers the solver
 * processes' priority; `publish` is called with the files whose findings changed; progress is
 * `$/progress` when the client supports it, else a no-op.
 */
function provingSettingsOf(params: InitializeParams, connection: Connection, publish: (files: ReadonlySet<string>) => void): Omit<ProvingOptions, "root"> {
  const init = (params.initializationOptions ?? {}) as { prove?: unknown; findings?: unknown; solverNice?: unknown };
  const progressSupported = params.capabilities.window?.workDoneProgress === true;
  return {
    prove: init.prove !== false,
    findings: init.findings !== false,
    solverNice: typeof init.solverNice === "number" && Number.isInteger(init.solverNice) && init.solverNice > 0 ? Math.min(19, init.solverNice) : undefined,
    onChange: publish,
    progress: async (): Promise<Progress> => {
      if (progressSupported) {
        try {
          return await connection.window.createWorkDoneProgress();
        } catch {
          // the client refused the token: no progress shown
        }
      }
      return { begin: () => undefined, report: () => undefined, done: () => undefined };
    },
    log: (m: string) => connection.console.error(m),
  };
}

/**
 * Registers the handlers of the editor's requests (hover, navigation, symbols, completion,
 * rename, code actions, folding, formatting, semantic tokens): each answers from the features of
 * the file's project, a failure logged and answered with an empty result (`safe`).
 */
function answerRequests(
  connection: Connection,
  deps: {
    fileOf: (uri: string) => string | undefined;
    safe: <T>(what: string, fallback: T, f: () => T) => T;
    forFile: (file: string) => ProjectEntry;
    features: Features;
    project: Project;
  },
): void {
  const { fileOf, safe, forFile, features, project } = deps;
  const withFile = <T>(uri: string, fallback: T, what: string, f: (file: string) => T): T => {
    const file = fileOf(uri);
    return file ? safe(what, fallback, () => f(file)) : fallback;
  };
  connection.onHover((p) => withFile(p.textDocument.uri, null, "hover", (f) => forFile(f).features.hover(f, p.position)));
  connection.onDefinition((p) => withFile(p.textDocument.uri, [], "definition", (f) => forFile(f).features.definition(f, p.position)));
  connection.onReferences((p) => withFile(p.textDocument.uri, [], "references", (f) => forFile(f).features.references(f, p.position, p.context.includeDeclaration)));
  connection.onDocumentSymbol((p) => withFile(p.textDocument.uri, [], "document symbols", (f) => forFile(f).features.documentSymbols(f)));
  connection.onWorkspaceSymbol((p) => safe("workspace symbols", [], () => features.workspaceSymbols(p.query, [path.join(project.root, "dsl"), ...new Set([...project.open.keys()].map((f) => project.dslRootOf(f)).filter((x): x is string => !!x))])));
  connection.onCompletion((p) => withFile(p.textDocument.uri, [], "completion", (f) => forFile(f).features.completion(f, p.position)));
  // a refused rename (a bad or taken new name, a name that data files use) is an error answer with its reason
  const refusal = <T>(f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw new ResponseError(LSPErrorCodes.RequestFailed, (e as Error).message);
    }
  };
  connection.onPrepareRename((p) => {
    const f = fileOf(p.textDocument.uri);
    return f ? refusal(() => forFile(f).features.prepareRename(f, p.position)) : null;
  });
  connection.onRenameRequest((p) => {
    const f = fileOf(p.textDocument.uri);
    return f ? refusal(() => forFile(f).features.rename(f, p.position, p.newName)) : null;
  });
  connection.onCodeAction((p) =>
    withFile(p.textDocument.uri, [], "code actions", (f) => {
      const e = forFile(f);
      return [...e.features.codeActions(f, p.textDocument.uri, p.context.diagnostics), ...(e.proving?.codeActions(p.context.diagnostics) ?? [])];
    }),
  );
  connection.onFoldingRanges((p) => withFile(p.textDocument.uri, [], "folding", (f) => forFile(f).features.foldingRanges(f)));
  connection.onDocumentFormatting((p) => withFile(p.textDocument.uri, [], "formatting", (f) => {
    const pr = forFile(f).project;
    const text = pr.read(f) ?? "";
    const res = formatRules(text, pr.rel(f));
    if (!res.ok || res.text === text) return [];
    const lines = text.split(/\r\n|\r|\n/); // LSP lines end at any of the three, as the lexer's
    return [{ range: { start: { line: 0, character: 0 }, end: { line: lines.length, character: 0 } }, newText: res.text }];
  }));
  connection.languages.semanticTokens.on((p) => withFile(p.textDocument.uri, { data: [] }, "semantic tokens", (f) => {
    const data: number[] = [];
    let pl = 0;
    let pc = 0;
    for (const [l, c, len, t, m] of forFile(f).features.semanticTokens(f)) {
      data.push(l - pl, l === pl ? c - pc : c, len, t, m);
      pl = l;
      pc = c;
    }
    return { data };
  }));
}
