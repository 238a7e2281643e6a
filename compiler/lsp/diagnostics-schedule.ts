/**
 * When the language server checks editions and publishes diagnostics (server.ts wires it to the
 * connection): an edit marks its file; after `DEBOUNCE_MS` of quiet the edited file's own edition
 * is checked and published first, the other editions that include it (variants, importers)
 * `DEFERRED_MS` later, so that the requests the first diagnostics prompt (a hover) are answered in
 * between. Every rule file of a checked edition gets its diagnostics: the union over every edition
 * that includes it (the compiler's), and the proof findings of background proving (proving.ts);
 * a publish replaces the whole set of a file, so both go in each one, tagged with the document
 * version that was checked. A `.rules` file that no edition includes gets its syntax diagnostics
 * and one information diagnostic saying so.
 *
 * Nothing here throws: a failing check, syntax check or proving step is logged (the host's `safe`)
 * and gives nothing.
 */
import path from "node:path";
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic } from "vscode-languageserver/node";
import type { Checked, Project } from "./project.js";
import type { Features } from "./protocol.js";
import { toLspDiagnostic, uriOf } from "./protocol.js";
import type { Proving } from "./proving.js";

/** Quiet time after the last edit before the editions are checked again (ms). */
export const DEBOUNCE_MS = 75;

/**
 * Delay of the check of the other editions that include an edited file (variants, importers),
 * after its own edition's diagnostics are published (ms): the requests those diagnostics prompt
 * (a hover, code actions) are answered first.
 */
export const DEFERRED_MS = 150;

/** A project root's project, its features and (after initialize) its background proving. */
export interface ProjectEntry {
  project: Project;
  features: Features;
  proving?: Proving;
}

/** What the scheduler needs from the server: the projects, the connection's publishing, the error log. */
export interface ScheduleHost {
  /** the project a file belongs to (created on first sight) */
  forFile(file: string): ProjectEntry;
  /** every project known so far */
  entries(): Iterable<ProjectEntry>;
  /** the workspace's project: its `open` map holds the editor's buffers (shared by every project) */
  workspace(): Project;
  /** publishes one file's whole set of diagnostics (`textDocument/publishDiagnostics`) */
  send(file: string, diagnostics: LspDiagnostic[], version?: number): void;
  /** runs `f`, logging a failure and giving `fallback` instead */
  safe<T>(what: string, fallback: T, f: () => T): T;
}

/** A checked edition with the project it belongs to. */
type Result = Checked & { project: Project };

/**
 * The debounced checking and publishing of diagnostics. `changed(file)` after an edit (buffer
 * opened, changed, closed); `recheck(files)` after files changed on disk; `publish(files)` when
 * the proof findings of some files changed (proving.ts `onChange`).
 */
export class DiagnosticsSchedule {
  /** the last check of each edition folder */
  private results = new Map<string, Result>();
  /** edition folders to check, with the project they belong to */
  private pending = new Map<string, Project>();
  /** rule files changed since the last check: their editions are found when the check runs */
  private pendingFiles = new Set<string>();
  /** open `.rules` files that no edition includes, as last published (to clear when one joins an edition) */
  private loose = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private host: ScheduleHost) {}

  /** A rule file changed (in the editor): its editions are checked after the quiet time. */
  changed(file: string): void {
    this.pendingFiles.add(file);
    // the proofs of the editions the file was part of at their last check are stale at once (not
    // after the quiet time and the check): nothing more is spent on them
    for (const [d, r] of this.results) if (r.files.includes(file)) this.host.safe("proving", undefined, () => this.entryOf(r.project)?.proving?.edited(d));
    this.schedule([]);
  }

  /** Files changed on disk: every edition checked so far is checked again, and the editions of the changed rule files. */
  recheck(ruleFiles: readonly string[]): void {
    for (const f of ruleFiles) this.pendingFiles.add(f);
    this.schedule([...this.results].map(([d, r]) => [d, r.project] as [string, Project]));
  }

  private schedule(dirs: [string, Project][]): void {
    dirs.forEach(([d, p]) => this.pending.set(d, p));
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), DEBOUNCE_MS);
  }

  /**
   * Publishes the diagnostics of `files` (absolute): the compiler's (the union over the editions
   * checked, without those of the folders in `skip`) and the proof findings.
   */
  publish(files: ReadonlySet<string>, skip: ReadonlySet<string> = new Set()): void {
    const { host } = this;
    const versions = new Map([...host.workspace().open].map(([f, o]) => [f, o.version]));
    // the editor's open files first: the one being typed in is what the designer waits for, and
    // each notification goes out in a turn of the event loop of its own (a check of HIS publishes
    // about 40 files, behind which background proving's steps interleave)
    for (const f of [...files].sort((a, b) => Number(versions.has(b)) - Number(versions.has(a)))) {
      const seen = new Set<string>();
      const diags: LspDiagnostic[] = [];
      for (const [d, r] of this.results) {
        if (skip.has(d)) continue;
        for (const d of r.diagnostics) {
          if (r.project.abs(d.file) !== f) continue;
          const k = `${d.code}:${d.span.line}:${d.span.column}:${d.message}`;
          if (seen.has(k)) continue;
          seen.add(k);
          diags.push(toLspDiagnostic(d, r.project.root));
        }
      }
      const pr = host.forFile(f).proving;
      if (pr) diags.push(...host.safe("proof diagnostics", [] as LspDiagnostic[], () => pr.diagnostics(f)));
      host.send(f, diags, versions.get(f));
    }
  }

  /** The check after the quiet time: the edited files' own editions now, the others `DEFERRED_MS` later. */
  private run(): void {
    this.timer = undefined;
    // after a keystroke the proofs of its editions are stale (`changed`): the solver processes
    // stop while the diagnostics the designer waits for are made, so that the check has the
    // cores (a proof then waits for the check, one or a few tens of ms; verdicts do not change)
    const resume = this.pendingFiles.size ? this.pauseProofs() : undefined;
    let dirs: [string, Project][];
    try {
      dirs = this.checkAndPublish();
    } finally {
      resume?.();
    }
    if (this.pendingFiles.size) this.schedule([]);
    else if (this.pending.size) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.run(), DEFERRED_MS);
    }
    // idle after the check: what a hover needs (index, proof cache) is built now, not on the hover
    else
      setImmediate(() => {
        if (this.timer) return;
        for (const [d, p] of this.ownOfOpen(dirs)) this.host.safe("warming", undefined, () => this.entryOf(p)?.features.warm(d));
      });
  }

  /** The edited files' own editions checked and published (the others left pending); returns the editions checked. */
  private checkAndPublish(): [string, Project][] {
    const { own, looseNow } = this.takeEditedFiles();
    // the edited files' own editions now; the others that include them (variants, importers)
    // right after, once the requests the first diagnostics prompt (a hover) are answered
    const all = [...this.pending];
    const dirs = all.some(([d]) => own.has(d)) ? all.filter(([d]) => own.has(d)) : all;
    this.pending.clear();
    for (const [d, p] of all) if (!dirs.some(([x]) => x === d)) this.pending.set(d, p);
    const deferred = new Set(this.pending.keys());
    const touched = this.check(dirs);
    // an edition still to check after this edit is left out (its diagnostics of the edited file
    // would have the old positions): its second publish gives the union again
    this.publish(touched, deferred);
    for (const f of looseNow) this.publishLoose(f);
    return dirs;
  }

  /**
   * The editions of `dirs` that are an open file's own edition (its folder): hover answers from
   * the symbol index of the file's own edition only, so warming another (a variant checked
   * `DEFERRED_MS` after an edit of its parent's file) built an index no hover reads, in one piece
   * of 75–115 ms on his-500 that the next keystroke waited behind.
   */
  private ownOfOpen(dirs: [string, Project][]): [string, Project][] {
    const open = new Set([...this.host.workspace().open.keys()].map((f) => path.dirname(f)));
    return dirs.filter(([d]) => open.has(d));
  }

  /** Stops the solver processes of every project's background proving; returns what resumes them. */
  private pauseProofs(): () => void {
    const resumes: (() => void)[] = [];
    for (const e of this.host.entries()) if (e.proving) resumes.push(this.host.safe("pausing the proofs", () => undefined, () => e.proving!.pauseSolvers()));
    return () => resumes.forEach((r) => this.host.safe("resuming the proofs", undefined, r));
  }

  /**
   * Moves the edited files to the editions to check: returns the files' own editions (the folder
   * the file is in, else the first that includes it) and the open rule files that no edition
   * includes; a file that left every edition has its diagnostics cleared.
   */
  private takeEditedFiles(): { own: Set<string>; looseNow: string[] } {
    const { host } = this;
    const looseNow: string[] = [];
    const own = new Set<string>();
    for (const f of this.pendingFiles) {
      const p = host.forFile(f).project;
      const eds = host.safe("finding editions", [] as string[], () => p.editionsOf(f));
      for (const d of eds) this.pending.set(d, p);
      if (eds.length) own.add(eds.find((d) => d === path.dirname(f)) ?? eds[0]!);
      // an edition the file was part of at the last check (a new file closed unsaved, a file deleted)
      for (const [d, r] of this.results) if (r.files.includes(f)) this.pending.set(d, r.project);
      if (!eds.length && f.endsWith(".rules") && host.workspace().open.has(f)) looseNow.push(f);
      else if (this.loose.delete(f) || (!eds.length && f.endsWith(".rules"))) host.send(f, []);
    }
    this.pendingFiles.clear();
    return { own, looseNow };
  }

  /**
   * Checks the editions `dirs` and tells background proving of each IR; returns the files whose
   * diagnostics may have changed (the editions' rule files, the files their diagnostics name, the
   * files whose proof findings proving dropped). Proofs are never waited for here.
   */
  private check(dirs: [string, Project][]): Set<string> {
    const { host } = this;
    const touched = new Set<string>();
    const checked: Result[] = [];
    for (const [d, p] of dirs) {
      const c = host.safe("check", undefined as Checked | undefined, () => p.check(d));
      if (!c) continue;
      this.results.set(d, { ...c, project: p });
      checked.push({ ...c, project: p });
      c.files.forEach((f) => touched.add(f));
      c.diagnostics.forEach((x) => touched.add(p.abs(x.file)));
    }
    for (const c of checked) {
      const proving = this.entryOf(c.project)?.proving;
      for (const f of host.safe("proving", new Set<string>() as ReadonlySet<string>, () => proving?.checked(c.dir, c.edition) ?? new Set<string>())) touched.add(f);
    }
    return touched;
  }

  /** A rule file no edition includes: its syntax errors, and why nothing else is checked. */
  private publishLoose(f: string): void {
    const { host } = this;
    this.loose.add(f);
    const p = host.forFile(f).project;
    const diags = host.safe("syntax check", [] as LspDiagnostic[], () => [
      ...p.parse(f).diagnostics.map((d) => toLspDiagnostic(d, p.root)),
      {
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: DiagnosticSeverity.Information, source: "rulewright",
        message: `${p.rel(f)} is not part of any edition: only its syntax is checked\nhelp: put it in an edition folder (dsl/<edition>/, beside a file with an \`edition\` declaration) or a module folder (dsl/modules/<module>/) an edition imports`,
      },
    ]);
    host.send(f, diags, host.workspace().open.get(f)?.version);
  }

  private entryOf(p: Project): ProjectEntry | undefined {
    for (const e of this.host.entries()) if (e.project === p) return e;
    return undefined;
  }
}
