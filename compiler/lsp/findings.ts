/**
 * Proof findings as LSP diagnostics and code actions (background proving, proving.ts, keeps the
 * results; this file only shows them): each finding on every rule it is about, with the other
 * rules and the invariants of its unsat core as related information, the counterexample's facts in
 * the message, and a code action that writes the counterexample or witness for `rulewright check`.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DiagnosticSeverity, type CodeAction, type Diagnostic as LspDiagnostic, type DiagnosticRelatedInformation } from "vscode-languageserver/node";
import { editionFolder, type IREdition, type SourcePos } from "../ir/types.js";
import { safeName } from "../ir/obligations.js";
import type { ObligationResult } from "../ir/proof-report.js";
import { factText, idInfo, involved, verdictMessage } from "../ir/verdict-words.js";

/** `source` of the proof diagnostics. */
export const PROVE_SOURCE = "rulewright prove";

/** What `ProofDiagnostic.data` holds: the obligation, and its counterexample or witness (for the code action). */
export interface FindingData {
  obligation: string;
  edition: string;
  /** the edition folder, relative to the project root (`dsl/his`) */
  dir: string;
  example?: { kind: "counterexample" | "witness"; state: Record<string, unknown>; action: Record<string, unknown> };
}

/**
 * A result as shown: `stale` while its obligation is proved again after an edit; `early` when it
 * is the verdict as soon as it was found (verify's `onEarlyFinding`), its counterexample not yet
 * canonical nor minimal (the polished one replaces it when the same solve ends).
 */
export type ShownResult = ObligationResult & { stale?: boolean; early?: boolean };

/** What the diagnostics of an edition's results depend on. */
export interface ShownEdition {
  /** absolute edition folder */
  dir: string;
  /** the IR the results are shown on (positions, titles) */
  ir?: IREdition;
  /** "report": the results are the last report's (said in the message, linked to the report) */
  from: "report" | "proved";
}

/**
 * The diagnostics of one result of an edition, by file (absolute): one on each rule (or exemption,
 * table) it is about, pointing at the others; none for a proved or `off` obligation, nor without
 * an IR. `root`: the project root (IR positions are relative to it).
 */
export function findingDiagnostics(root: string, st: ShownEdition, o: ShownResult): { file: string; diag: LspDiagnostic }[] {
  const ir = st.ir;
  if (!ir || o.severity === "off" || o.verdict === "proved") return [];
  const severity = o.verdict === "unknown" ? DiagnosticSeverity.Information : o.severity === "error" ? DiagnosticSeverity.Error : o.severity === "warning" ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information;
  const ids = involved(o);
  const infos = ids.map((id) => idInfo(ir, id)).filter((x): x is NonNullable<typeof x> => !!x);
  // on the subjects (the rules the obligation is about); always_forbidden and stuck_power have
  // none: on the rules of the core. Invariants of the core are related information only
  const targets = o.table !== undefined ? infos.filter((x) => x.what === "table") : o.subjects.length ? infos.filter((x) => o.subjects.includes(x.id)) : infos.filter((x) => x.what !== "invariant");
  if (!targets.length) return [];
  const example = o.counterexample ?? o.witness;
  const lines = [o.verdict === "unknown" ? `not proved (unknown): ${verdictMessage(o, ir).replace(/^not proved: /, "")}` : verdictMessage(o, ir)];
  if (o.stale) lines.push("(being proved again after the edit)");
  else if (o.early) lines.push("(counterexample as the solver found it: being made minimal)");
  else if (st.from === "report" && o.verdict !== "unknown") lines.push(`(from the last proof report, proofs/${editionFolder(ir)}/report.json)`);
  if (o.counterexample?.facts?.length) lines.push(`counterexample: ${o.counterexample.facts.map(factText).join(", ")}; action ${JSON.stringify(o.counterexample.action)}`);
  const reportFile = path.join(root, "proofs", editionFolder(ir), "report.json");
  const exFile = o.counterexample ? path.join(root, "proofs", editionFolder(ir), "counterexamples", `${safeName(o.id)}.state.json`) : undefined;
  const href = st.from === "report" ? (exFile && fs.existsSync(exFile) ? exFile : reportFile) : undefined;
  const data: FindingData = { obligation: o.id, edition: ir.name, dir: path.relative(root, st.dir).split(path.sep).join("/") || ".", ...(example ? { example: { kind: o.counterexample ? "counterexample" : "witness", state: example.state, action: example.action } } : {}) };
  const out: { file: string; diag: LspDiagnostic }[] = [];
  for (const t of targets) {
    const related: DiagnosticRelatedInformation[] = infos
      .filter((x) => x.id !== t.id)
      .map((x) => ({ location: { uri: pathToFileURL(path.resolve(root, x.pos.file)).href, range: rangeOf(x.pos, x.id) }, message: `${x.what} \`${x.id}\`: ${x.title}` }));
    out.push({
      file: path.resolve(root, t.pos.file),
      diag: {
        range: rangeOf(t.pos, t.id),
        severity,
        source: PROVE_SOURCE,
        code: o.id,
        ...(href ? { codeDescription: { href: pathToFileURL(href).href } } : {}),
        message: lines.join("\n"),
        ...(related.length ? { relatedInformation: related } : {}),
        data,
      },
    });
  }
  return out;
}

/**
 * Code actions for proof diagnostics: write the counterexample or witness as
 * `proofs/<edition>/lsp/<id>.state.json` and `.action.json` (a WorkspaceEdit the editor
 * applies; the server writes no file), titled with the `rulewright check` command that replays
 * it. `irOf`: the IR shown of an edition folder (relative to `root`), if any.
 */
export function findingCodeActions(root: string, diagnostics: readonly LspDiagnostic[], irOf: (dir: string) => IREdition | undefined): CodeAction[] {
  const out: CodeAction[] = [];
  for (const d of diagnostics) {
    if (d.source !== PROVE_SOURCE) continue;
    const data = d.data as FindingData | undefined;
    const ex = data?.example;
    if (!data || !ex) continue;
    const ir = irOf(data.dir);
    const folder = ir ? editionFolder(ir) : data.edition;
    const base = path.join("proofs", folder, "lsp", safeName(data.obligation));
    const files = { state: `${base}.state.json`, action: `${base}.action.json` };
    const replay = `npx rulewright check --edition ${data.dir} --state ${files.state} --action ${files.action}`;
    const edits = [
      { file: files.state, text: JSON.stringify(ex.state, null, 2) + "\n" },
      { file: files.action, text: JSON.stringify(ex.action, null, 2) + "\n" },
    ];
    out.push({
      title: `Write the ${ex.kind} of ${data.obligation} (replay: ${replay})`,
      kind: "quickfix",
      diagnostics: [d],
      edit: {
        documentChanges: edits.flatMap((e) => {
          const uri = pathToFileURL(path.join(root, e.file)).href;
          return [
            { kind: "create" as const, uri, options: { overwrite: true } },
            { textDocument: { uri, version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: e.text }] },
          ];
        }),
      },
    });
  }
  return out;
}

/** The range of a declaration's id at `pos` (1-based line and column of the id). */
function rangeOf(pos: SourcePos, id: string) {
  const start = { line: Math.max(0, pos.line - 1), character: Math.max(0, pos.column - 1) };
  return { start, end: { line: start.line, character: start.character + id.length } };
}
