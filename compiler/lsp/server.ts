/**
 * The rulewright language server (LSP 3.17 over stdio, built on vscode-languageserver): wires the
 * editor's requests to `Features` and publishes diagnostics.
 *
 * Diagnostics: after an edit (debounced by `DEBOUNCE_MS`), every edition the file belongs to is
 * checked by the compiler's own front end (`loadEdition`, with the unsaved buffers), and every
 * rule file of those editions gets its diagnostics (the union over every edition that includes
 * it, so a module shows what each importing edition finds), tagged with the document version
 * that was checked. A request never throws to the client: a failure is logged and answered with
 * an empty result, so a half-typed file cannot bring the server down.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  createConnection, TextDocuments, TextDocumentSyncKind, StreamMessageReader, StreamMessageWriter,
  type Connection, type InitializeResult, type Diagnostic as LspDiagnostic,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { Checked } from "./project.js";
import { Project } from "./project.js";
import { Features, TOKEN_MODIFIERS, TOKEN_TYPES, toLspDiagnostic, uriOf } from "./features.js";
import { formatRules } from "../fmt/format.js";
import { Proving, type Progress } from "./proving.js";

/** Quiet time after the last edit before the editions are checked again (ms). */
export const DEBOUNCE_MS = 75;

export interface ServerOptions {
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** project root when the client sends none (default: the working directory) */
  root?: string;
}

/** Starts the server; resolves when the connection closes. */
export function startServer(opts: ServerOptions = {}): Promise<void> {
  const connection: Connection = createConnection(new StreamMessageReader(opts.input ?? process.stdin), new StreamMessageWriter(opts.output ?? process.stdout));
  const documents = new TextDocuments(TextDocument);
  let project = new Project(path.resolve(opts.root ?? process.cwd()));
  let features = new Features(project);
  const results = new Map<string, Checked>();
  const pending = new Set<string>();
  /** rule files changed since the last check: their editions are found when the check runs */
  const pendingFiles = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  /** proof findings as diagnostics, proved in the background (proving.ts); made at initialize */
  let proving: Proving | undefined;

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
    for (const f of pendingFiles) for (const d of safe("finding editions", [] as string[], () => project.editionsOf(f))) pending.add(d);
    pendingFiles.clear();
    const dirs = [...pending];
    pending.clear();
    const touched = new Set<string>();
    const checked: Checked[] = [];
    for (const d of dirs) {
      const c = safe("check", undefined as Checked | undefined, () => project.check(d));
      if (!c) continue;
      results.set(d, c);
      checked.push(c);
      c.files.forEach((f) => touched.add(f));
      c.diagnostics.forEach((x) => touched.add(project.abs(x.file)));
    }
    // the proof findings follow the edit; their proofs start after a quiet time of their own (never waited for here)
    for (const c of checked) for (const f of safe("proving", new Set<string>() as ReadonlySet<string>, () => proving?.checked(c.dir, c.edition) ?? new Set<string>())) touched.add(f);
    publish(touched);
    if (pending.size || pendingFiles.size) schedule([]);
    // idle after the check: what a hover needs (index, proof cache) is built now, not on the hover
    else
      setImmediate(() => {
        if (timer) return;
        for (const d of dirs) safe("warming", undefined, () => features.warm(d));
      });
  };
  /** Publishes the diagnostics of `files`: the compiler's (the union over the editions checked) and the proof findings. */
  const publish = (files: ReadonlySet<string>) => {
    const versions = new Map([...project.open].map(([f, o]) => [f, o.version]));
    for (const f of files) {
      const seen = new Set<string>();
      const diags: LspDiagnostic[] = [];
      for (const r of results.values()) {
        for (const d of r.diagnostics) {
          if (project.abs(d.file) !== f) continue;
          const k = `${d.code}:${d.span.line}:${d.span.column}:${d.message}`;
          if (seen.has(k)) continue;
          seen.add(k);
          diags.push(toLspDiagnostic(d, project.root));
        }
      }
      if (proving) diags.push(...safe("proof diagnostics", [] as LspDiagnostic[], () => proving!.diagnostics(f)));
      void connection.sendDiagnostics({ uri: uriOf(f), diagnostics: diags, ...(versions.has(f) ? { version: versions.get(f) } : {}) });
    }
  };
  const schedule = (dirs: string[]) => {
    dirs.forEach((d) => pending.add(d));
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, DEBOUNCE_MS);
  };
  const changed = (file: string) => {
    features.generation++;
    project.invalidate();
    pendingFiles.add(file);
    schedule([]);
  };

  connection.onInitialize((params): InitializeResult => {
    const rootUri = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
    const root = rootUri ? fileOf(rootUri) : undefined;
    if (root) {
      project = new Project(root);
      features = new Features(project);
    }
    // initializationOptions: { prove: false } turns background proving off (the last report's
    // findings still show); { findings: false } shows no proof findings at all
    const init = (params.initializationOptions ?? {}) as { prove?: unknown; findings?: unknown; solverNice?: unknown };
    const progressSupported = params.capabilities.window?.workDoneProgress === true;
    proving = new Proving({
      root: project.root,
      prove: init.prove !== false,
      findings: init.findings !== false,
      solverNice: typeof init.solverNice === "number" && Number.isInteger(init.solverNice) && init.solverNice > 0 ? Math.min(19, init.solverNice) : undefined,
      onChange: (files) => publish(files),
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
      log: (m) => connection.console.error(m),
    });
    if (init.prove !== false && init.findings !== false) {
      const p = proving;
      features.useProofCaches((rel) => p.loadedCache(rel));
    }
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

  documents.onDidChangeContent((e) => {
    const f = fileOf(e.document.uri);
    if (!f) return;
    project.open.set(f, { text: e.document.getText(), version: e.document.version });
    changed(f);
  });
  documents.onDidClose((e) => {
    const f = fileOf(e.document.uri);
    if (!f) return;
    project.open.delete(f);
    changed(f);
  });
  connection.onDidChangeWatchedFiles((p) => {
    for (const c of p.changes) {
      const f = fileOf(c.uri);
      if (f && f.endsWith(".rules")) changed(f);
      else {
        features.generation++;
        project.invalidate();
      }
    }
  });

  const withFile = <T>(uri: string, fallback: T, what: string, f: (file: string) => T): T => {
    const file = fileOf(uri);
    return file ? safe(what, fallback, () => f(file)) : fallback;
  };
  connection.onHover((p) => withFile(p.textDocument.uri, null, "hover", (f) => features.hover(f, p.position)));
  connection.onDefinition((p) => withFile(p.textDocument.uri, [], "definition", (f) => features.definition(f, p.position)));
  connection.onReferences((p) => withFile(p.textDocument.uri, [], "references", (f) => features.references(f, p.position, p.context.includeDeclaration)));
  connection.onDocumentSymbol((p) => withFile(p.textDocument.uri, [], "document symbols", (f) => features.documentSymbols(f)));
  connection.onWorkspaceSymbol((p) => safe("workspace symbols", [], () => features.workspaceSymbols(p.query, [path.join(project.root, "dsl"), ...new Set([...project.open.keys()].map((f) => project.dslRootOf(f)).filter((x): x is string => !!x))])));
  connection.onCompletion((p) => withFile(p.textDocument.uri, [], "completion", (f) => features.completion(f, p.position)));
  connection.onPrepareRename((p) => withFile(p.textDocument.uri, null, "prepare rename", (f) => features.prepareRename(f, p.position)));
  connection.onRenameRequest((p) => {
    const f = fileOf(p.textDocument.uri);
    if (!f) return null;
    return features.rename(f, p.position, p.newName); // a bad new name is an error answer with its message
  });
  connection.onCodeAction((p) =>
    withFile(p.textDocument.uri, [], "code actions", (f) => [...features.codeActions(f, p.textDocument.uri, p.context.diagnostics), ...(proving?.codeActions(p.context.diagnostics) ?? [])]),
  );
  connection.onFoldingRanges((p) => withFile(p.textDocument.uri, [], "folding", (f) => features.foldingRanges(f)));
  connection.onDocumentFormatting((p) => withFile(p.textDocument.uri, [], "formatting", (f) => {
    const text = project.read(f) ?? "";
    const res = formatRules(text, project.rel(f));
    if (!res.ok || res.text === text) return [];
    const lines = text.split("\n");
    return [{ range: { start: { line: 0, character: 0 }, end: { line: lines.length, character: 0 } }, newText: res.text }];
  }));
  connection.languages.semanticTokens.on((p) => withFile(p.textDocument.uri, { data: [] }, "semantic tokens", (f) => {
    const data: number[] = [];
    let pl = 0;
    let pc = 0;
    for (const [l, c, len, t, m] of features.semanticTokens(f)) {
      data.push(l - pl, l === pl ? c - pc : c, len, t, m);
      pl = l;
      pc = c;
    }
    return { data };
  }));

  // the solver processes end with the server (the cache's last verdicts written first)
  connection.onShutdown(async () => {
    await proving?.close();
  });

  documents.listen(connection);
  return new Promise((resolve) => {
    connection.onExit(() => {
      void proving?.close();
      resolve();
    });
    connection.listen();
  });
}
