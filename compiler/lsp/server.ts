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
  createConnection, TextDocuments, TextDocumentSyncKind, StreamMessageReader, StreamMessageWriter, DidChangeWatchedFilesNotification, DiagnosticSeverity, ResponseError, LSPErrorCodes,
  type Connection, type InitializeResult, type Diagnostic as LspDiagnostic, type FileSystemWatcher,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { Checked } from "./project.js";
import { Project, projectRootOf } from "./project.js";
import { parseRules } from "../syntax/index.js";
import { Features, TOKEN_MODIFIERS, TOKEN_TYPES, toLspDiagnostic, uriOf } from "./protocol.js";
import { formatRules } from "../fmt/format.js";
import { Proving, type Progress, type ProvingOptions } from "./proving.js";

/** A project root's project, its features and (after initialize) its background proving. */
interface ProjectEntry {
  project: Project;
  features: Features;
  proving?: Proving;
}

/** Quiet time after the last edit before the editions are checked again (ms). */
export const DEBOUNCE_MS = 75;

/**
 * Delay of the check of the other editions that include an edited file (variants, importers),
 * after its own edition's diagnostics are published (ms): the requests those diagnostics prompt
 * (a hover, code actions) are answered first.
 */
export const DEFERRED_MS = 150;

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
  /** one project per project root (the workspace's own, and those found from the files) */
  /** the settings of background proving, from initialize (proving.ts; none before it) */
  let provingSettings: Omit<ProvingOptions, "root"> | undefined;
  /** a project's background proving, once the settings are known */
  const attachProving = (e: ProjectEntry) => {
    if (!provingSettings || e.proving) return;
    const pv = (e.proving = new Proving({ ...provingSettings, root: e.project.root }));
    if (provingSettings.prove && provingSettings.findings) e.features.useProofCaches((rel) => pv.loadedCache(rel));
  };
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
  const results = new Map<string, Checked & { project: Project }>();
  /** edition folders to check, with the project they belong to */
  const pending = new Map<string, Project>();
  /** open `.rules` files that no edition includes, as last published (to clear when one joins an edition) */
  const loose = new Set<string>();
  let canWatch = false;
  /** rule files changed since the last check: their editions are found when the check runs */
  const pendingFiles = new Set<string>();
  let timer: NodeJS.Timeout | undefined;

  const fileOf = (uri: string): string | undefined => {
    try {
      return uri.startsWith("file:") ? fileURLToPath(uri) : undefined;
    } catch {
      return undefined;
    }
  };
  const safe = <T>(what: string, fallback: T, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      connection.console.error(`rulewright: ${what} failed: ${(e as Error).message}`);
      return fallback;
    }
  };

  const run = () => {
    timer = undefined;
    const looseNow: string[] = [];
    /** the edited files' own editions (the folder the file is in, else the first that includes it) */
    const own = new Set<string>();
    for (const f of pendingFiles) {
      const p = forFile(f).project;
      const eds = safe("finding editions", [] as string[], () => p.editionsOf(f));
      for (const d of eds) pending.set(d, p);
      if (eds.length) own.add(eds.find((d) => d === path.dirname(f)) ?? eds[0]!);
      // an edition the file was part of at the last check (a new file closed unsaved, a file deleted)
      for (const [d, r] of results) if (r.files.includes(f)) pending.set(d, r.project);
      if (!eds.length && f.endsWith(".rules") && project.open.has(f)) looseNow.push(f);
      else if (loose.delete(f) || (!eds.length && f.endsWith(".rules"))) void connection.sendDiagnostics({ uri: uriOf(f), diagnostics: [] });
    }
    pendingFiles.clear();
    // the edited files' own editions now; the others that include them (variants, importers)
    // right after, once the requests the first diagnostics prompt (a hover) are answered
    const all = [...pending];
    const dirs = all.some(([d]) => own.has(d)) ? all.filter(([d]) => own.has(d)) : all;
    pending.clear();
    for (const [d, p] of all) if (!dirs.some(([x]) => x === d)) pending.set(d, p);
    const deferred = new Set(pending.keys());
    const touched = new Set<string>();
    const checked: (Checked & { project: Project })[] = [];
    for (const [d, p] of dirs) {
      const c = safe("check", undefined as Checked | undefined, () => p.check(d));
      if (!c) continue;
      results.set(d, { ...c, project: p });
      checked.push({ ...c, project: p });
      c.files.forEach((f) => touched.add(f));
      c.diagnostics.forEach((x) => touched.add(p.abs(x.file)));
    }
    // the proof findings follow the edit; their proofs start after a quiet time of their own (never waited for here)
    for (const c of checked) {
      const e = [...projects.values()].find((x) => x.project === c.project);
      for (const f of safe("proving", new Set<string>() as ReadonlySet<string>, () => e?.proving?.checked(c.dir, c.edition) ?? new Set<string>())) touched.add(f);
    }
    // an edition still to check after this edit is left out (its diagnostics of the edited file
    // would have the old positions): its second publish gives the union again
    publish(touched, deferred);
    // a rule file no edition includes: its syntax errors, and why nothing else is checked
    for (const f of looseNow) {
      loose.add(f);
      const p = forFile(f).project;
      const diags = safe("syntax check", [] as LspDiagnostic[], () => [
        ...p.parse(f).diagnostics.map((d) => toLspDiagnostic(d, p.root)),
        {
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: DiagnosticSeverity.Information, source: "rulewright",
          message: `${p.rel(f)} is not part of any edition: only its syntax is checked\nhelp: put it in an edition folder (dsl/<edition>/, beside a file with an \`edition\` declaration) or a module folder (dsl/modules/<module>/) an edition imports`,
        },
      ]);
      void connection.sendDiagnostics({ uri: uriOf(f), diagnostics: diags, ...(project.open.has(f) ? { version: project.open.get(f)!.version } : {}) });
    }
    if (pendingFiles.size) schedule([]);
    else if (pending.size) {
      clearTimeout(timer);
      timer = setTimeout(run, DEFERRED_MS);
    }
    // idle after the check: what a hover needs (index, proof cache) is built now, not on the hover
    else
      setImmediate(() => {
        if (timer) return;
        for (const [d, p] of dirs) safe("warming", undefined, () => [...projects.values()].find((x) => x.project === p)?.features.warm(d));
      });
  };
  /** Publishes the diagnostics of `files`: the compiler's (the union over the editions checked) and the proof findings. */
  const publish = (files: ReadonlySet<string>, skip: ReadonlySet<string> = new Set()) => {
    const versions = new Map([...project.open].map(([f, o]) => [f, o.version]));
    for (const f of files) {
      const seen = new Set<string>();
      const diags: LspDiagnostic[] = [];
      for (const [d, r] of results) {
        if (skip.has(d)) continue;
        for (const d of r.diagnostics) {
          if (r.project.abs(d.file) !== f) continue;
          const k = `${d.code}:${d.span.line}:${d.span.column}:${d.message}`;
          if (seen.has(k)) continue;
          seen.add(k);
          diags.push(toLspDiagnostic(d, r.project.root));
        }
      }
      const pr = forFile(f).proving;
      if (pr) diags.push(...safe("proof diagnostics", [] as LspDiagnostic[], () => pr.diagnostics(f)));
      void connection.sendDiagnostics({ uri: uriOf(f), diagnostics: diags, ...(versions.has(f) ? { version: versions.get(f) } : {}) });
    }
  };
  const schedule = (dirs: [string, Project][]) => {
    dirs.forEach(([d, p]) => pending.set(d, p));
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, DEBOUNCE_MS);
  };
  /** after any change: what was derived from the files is forgotten in every project */
  const invalidate = () => {
    for (const p of projects.values()) {
      p.features.generation++;
      p.project.invalidate();
    }
  };
  const changed = (file: string) => {
    invalidate();
    pendingFiles.add(file);
    schedule([]);
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
    // initializationOptions: { prove: false } turns background proving off (the last report's
    // findings still show); { findings: false } shows no proof findings at all
    const init = (params.initializationOptions ?? {}) as { prove?: unknown; findings?: unknown; solverNice?: unknown };
    const progressSupported = params.capabilities.window?.workDoneProgress === true;
    provingSettings = {
      prove: init.prove !== false,
      findings: init.findings !== false,
      solverNice: typeof init.solverNice === "number" && Number.isInteger(init.solverNice) && init.solverNice > 0 ? Math.min(19, init.solverNice) : undefined,
      onChange: (files: ReadonlySet<string>) => publish(files),
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
    for (const e of projects.values()) attachProving(e);
    return {
      capabilities: {
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
      },
      serverInfo: { name: "rulewright" },
    };
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
    for (const c of p.changes) {
      const f = fileOf(c.uri);
      if (f && f.endsWith(".rules")) pendingFiles.add(f);
    }
    schedule([...results].map(([d, r]) => [d, r.project] as [string, Project]));
  });

  answerRequests(connection, { fileOf, safe, forFile, features, project });

  // the solver processes end with the server (the cache's last verdicts written first)

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
