/**
 * `rulewright coverage [--edition e] [--min-percent N] [--min-audited N] [--manifests dir] [--sources dir]`:
 * how much of the rulebook sources the rule files encode, and how much of them was audited
 * against the rules (compiler/coverage/README.md). Prints per edition and per source file the
 * share of restriction paragraphs encoded, the paragraphs audited out of all non-heading ones,
 * and lists the restriction paragraphs that are not encoded. Exit 0 at or over both thresholds,
 * 1 under one, 2 on a malformed manifest (file:line, hint; a bad audit mark or an unknown
 * scenario too), an edition that does not compile, or bad usage.
 *
 * `--verify-audit` also checks that every audit mark pins the ids its paragraph claims
 * (compiler/coverage/audit.ts): each id is removed from an in-memory copy of the edition's IR and
 * the mark's scenarios are run on the reference interpreter (compiler/interpret); at least one
 * must fail. Survivors are RW5014 errors at the id in the manifest, and the exit code is 1.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { analyzeCoverage, inheritManifests, variantChanges, type VariantCoverage, meetsAuditThreshold, meetsThreshold, readManifest, selectEditions, verifyAuditMarks, type AuditVerification, type CoverageReport, type EditionIds, type Manifest, type ProbeOutcome, type ScenarioProbe, type SourceFile } from "../coverage/index.js";
import { judge, judgeTable, readScenarioFile } from "../scenarios/index.js";
import { createInterpreter, type Interpreter } from "../interpret/index.js";
import type { IREdition } from "../ir/types.js";
import type { Diagnostic } from "../diagnostics/types.js";
import { compile, errorCount, printDiagnostics, UsageError, color, type Format } from "./common.js";
import { bundledEditions, resolveEdition } from "../engine/editions.js";

export const DEFAULT_MANIFESTS = path.join("dsl", "coverage");
export const DEFAULT_SOURCES = path.join("..", "shared", "rulebooks");

export interface CoverageOptions {
  edition?: string;
  minPercent?: string;
  /** fail (exit 1) when the audited share (audited / non-heading paragraphs) is under this */
  minAudited?: string;
  manifests?: string;
  sources?: string;
  /** run the mutation check of the audit marks (compiler/coverage/audit.ts) */
  verifyAudit?: boolean;
  format: Format;
}

export interface CoverageResult {
  report?: CoverageReport;
  diagnostics: Diagnostic[];
  threshold: number | null;
  auditThreshold: number | null;
  pass: boolean;
  exitCode: number;
  /** with `verifyAudit`: the marks, mutants, kills and survivors */
  audit?: AuditVerification;
  /** `--edition` a variant no manifest names: what it inherits (compiler/coverage/variants.ts) */
  variant?: VariantCoverage;
}

/** Reads manifests, sources and editions and computes the coverage (no printing but diagnostics). */
export function runCoverage(opts: CoverageOptions): CoverageResult {
  const pctOption = (name: string, raw: string | undefined): number | null => {
    if (raw === undefined) return null;
    const v = Number(raw);
    if (!/^\s*\d+(\.\d+)?\s*$/.test(raw) || v < 0 || v > 100) throw new UsageError(`${name} must be a number from 0 to 100, got \`${raw}\``, 2, `e.g. \`${name} 60\``);
    return v;
  };
  const threshold = pctOption("--min-percent", opts.minPercent);
  const auditThreshold = pctOption("--min-audited", opts.minAudited);
  const mdir = opts.manifests ?? DEFAULT_MANIFESTS;
  const sdir = opts.sources ?? DEFAULT_SOURCES;
  if (!fs.existsSync(mdir) || !fs.statSync(mdir).isDirectory()) throw new UsageError(`no manifest folder \`${mdir}\``, 2, "run from the project root, or pass --manifests <dir>");
  if (!fs.existsSync(sdir) || !fs.statSync(sdir).isDirectory()) throw new UsageError(`no sources folder \`${sdir}\``, 2, "pass --sources <dir> (the folder of the rulebook source files)");

  const diagnostics: Diagnostic[] = [];
  const manifests: Manifest[] = [];
  const names = fs.readdirSync(mdir).filter((n) => /\.ya?ml$/.test(n)).sort();
  if (!names.length) throw new UsageError(`no manifests (*.yaml) in \`${mdir}\``, 2, "see compiler/coverage/README.md for the format");
  let unreadable = false;
  for (const n of names) {
    const file = path.join(mdir, n);
    const r = readManifest(file, fs.readFileSync(file, "utf8"));
    diagnostics.push(...r.diagnostics);
    if (r.manifest) manifests.push(r.manifest);
    else unreadable = true;
  }

  const sources = new Map<string, SourceFile>();
  for (const n of fs.readdirSync(sdir).sort()) {
    const p = path.join(sdir, n);
    if (!n.endsWith(".txt") || !fs.statSync(p).isFile()) continue;
    const bytes = fs.readFileSync(p);
    sources.set(n, { name: n, text: bytes.toString("utf8"), sha256: crypto.createHash("sha256").update(bytes).digest("hex") });
  }

  // build every bundled edition a manifest names (its rule ids are checked, its orphans found)
  const bundled = bundledEditions();
  const editions = new Map<string, EditionIds>();
  // a manifest's edition given as a path (`..`: a variant's inherited manifests, issue 28) is relative to the manifest folder
  const byPath = (n: string) => n === "." || n === ".." || n.startsWith("./") || n.startsWith("../") || path.isAbsolute(n);
  for (const name of [...new Set(manifests.map((m) => m.edition))].sort()) {
    if (!bundled.includes(name) && !byPath(name)) continue;
    const res = compile(resolveEdition(byPath(name) ? path.resolve(mdir, name) : name), opts.format);
    diagnostics.push(...res.diagnostics);
    if (!res.edition) continue;
    const ids = new Map<string, { file: string; line: number; column: number }>();
    for (const r of [...res.edition.rules, ...res.edition.exemptions]) ids.set(r.id, r.pos);
    const tables = new Set<string>();
    for (const t of res.edition.tables ?? []) {
      ids.set(t.name, t.pos);
      tables.add(t.name);
    }
    editions.set(name, { name, ids, tables });
  }
  // an edition that does not compile: its diagnostics, no numbers
  if (manifests.some((m) => (bundled.includes(m.edition) || byPath(m.edition)) && !editions.has(m.edition))) return { diagnostics, threshold, auditThreshold, pass: false, exitCode: 2 };
  // bundled editions no manifest names: only listed as uncovered (no ids, no orphan check)
  for (const name of bundled) if (!editions.has(name)) editions.set(name, { name, ids: new Map() });

  // the scenarios audit marks name: each file read once (its `name`s, table scenarios too)
  const scenarioNames = new Map<string, ReadonlySet<string> | undefined>();
  const scenarios = (file: string): ReadonlySet<string> | undefined => {
    if (!scenarioNames.has(file)) {
      const ok = /\.(ya?ml|json)$/.test(file) && !path.isAbsolute(file) && fs.existsSync(file) && fs.statSync(file).isFile();
      const c = ok ? readScenarioFile(file, (e) => path.join("test", "fixtures", path.basename(e))) : undefined;
      scenarioNames.set(file, c && new Set([...c.scenarios, ...c.tableScenarios].map((s) => s.name)));
    }
    return scenarioNames.get(file);
  };
  const res = analyzeCoverage(manifests, sources, editions, { orphans: !unreadable, scenarios });
  diagnostics.push(...res.diagnostics);
  if (errorCount(diagnostics)) return { diagnostics, threshold, auditThreshold, pass: false, exitCode: 2 };
  let report = res.report;
  // a variant no manifest names: its nearest covered ancestor's manifests, read against its rules
  const inherited = opts.edition !== undefined && !report.editions.some((e) => e.edition === opts.edition) ? variantCoverageOf(opts.edition, manifests, opts.format) : undefined;
  if (inherited) {
    const v = analyzeCoverage(inherited.manifests, sources, new Map([[inherited.variant.edition, inherited.ids]]), { orphans: !unreadable, scenarios });
    diagnostics.push(...v.diagnostics);
    if (errorCount(diagnostics)) return { diagnostics, threshold, auditThreshold, pass: false, exitCode: 2 };
    report = v.report;
  } else if (opts.edition !== undefined) {
    const known = report.editions.map((e) => e.edition);
    if (!known.includes(opts.edition)) throw new UsageError(`no manifest covers edition \`${opts.edition}\``, 2, known.length ? `editions in the manifests: ${known.map((k) => `\`${k}\``).join(", ")}` : undefined);
    report = selectEditions(report, [opts.edition]);
  }
  let pass = (threshold === null || meetsThreshold(report.total, threshold)) && (auditThreshold === null || meetsAuditThreshold(report.total, auditThreshold));
  let audit: AuditVerification | undefined;
  if (opts.verifyAudit) {
    audit = verifyAuditMarks(manifests, scenarioProbe(opts.format), opts.edition === undefined ? undefined : [opts.edition]);
    diagnostics.push(...audit.diagnostics);
    if (audit.survivors.length) pass = false;
  }
  return { report, diagnostics, threshold, auditThreshold, pass, exitCode: pass ? 0 : 1, ...(audit ? { audit } : {}), ...(inherited ? { variant: inherited.variant } : {}) };
}

/**
 * `--edition <variant>`: the manifests of its nearest ancestor that some manifest names, read
 * against the variant's rules (compiler/coverage/variants.ts), with the variant's ids; undefined
 * when the edition does not compile or no ancestor is covered (the caller's error follows).
 */
function variantCoverageOf(name: string, manifests: Manifest[], format: Format): { manifests: Manifest[]; ids: EditionIds; variant: VariantCoverage } | undefined {
  let ir: IREdition | undefined;
  try {
    ir = compile(resolveEdition(name), format).edition;
  } catch {
    return undefined;
  }
  if (!ir) return undefined;
  let ancestor = ir.parent;
  for (let depth = 0; ancestor !== undefined && !manifests.some((m) => m.edition === ancestor) && depth < 16; depth++) {
    try {
      ancestor = compile(resolveEdition(ancestor), format).edition?.parent;
    } catch {
      ancestor = undefined;
    }
  }
  if (ancestor === undefined) return undefined;
  const variant = variantChanges(ir, ancestor);
  const ids = new Map<string, { file: string; line: number; column: number }>();
  for (const r of [...ir.rules, ...ir.exemptions]) ids.set(r.id, r.pos);
  const tables = new Set<string>();
  for (const t of ir.tables ?? []) {
    ids.set(t.name, t.pos);
    tables.add(t.name);
  }
  return { manifests: inheritManifests(manifests.filter((m) => m.edition === ancestor), variant), ids: { name: variant.edition, ids, tables }, variant };
}

/** The lines that say what a variant's coverage inherits and changes. */
export function formatVariant(v: VariantCoverage): string {
  const list = (xs: string[]) => (xs.length ? xs.join(", ") : "none");
  return [
    `${v.edition} inherits the coverage manifests of ${v.inheritsFrom}, read against its own rules:`,
    `  removed (their paragraphs lose them): ${list(v.removed.map((r) => r.id))}`,
    `  overridden (their audit marks no longer hold): ${list(v.overridden)}`,
    `  added (the variant's own rules, listed as implied): ${list(v.added)}`,
  ].join("\n") + "\n";
}

/**
 * The probe `verifyAuditMarks` runs each audit mark's scenarios with: the scenario's edition is
 * built once, and for each removed id an interpreter (compiler/interpret) is made over a copy of
 * its IR without that rule, exemption or table — in memory, no file is written. A scenario is
 * first run on the unmutated edition (one that fails there pins nothing). Scenario files, IR,
 * interpreters and outcomes are cached, so each (scenario, id) pair runs once.
 */
export function scenarioProbe(format: Format): ScenarioProbe {
  const files = new Map<string, ReturnType<typeof readScenarioFile> | null>();
  const irs = new Map<string, IREdition | null>();
  const interpreters = new Map<string, Interpreter>();
  const outcomes = new Map<string, ProbeOutcome>();
  const contents = (file: string) => {
    if (!files.has(file)) {
      const ok = /\.(ya?ml|json)$/.test(file) && !path.isAbsolute(file) && fs.existsSync(file) && fs.statSync(file).isFile();
      files.set(file, ok ? readScenarioFile(file, (e) => path.join("test", "fixtures", path.basename(e))) : null);
    }
    return files.get(file)!;
  };
  const edition = (name: string) => {
    if (!irs.has(name)) {
      let ir: IREdition | null = null;
      try {
        ir = compile(resolveEdition(name), format).edition ?? null;
      } catch {
        ir = null;
      }
      irs.set(name, ir);
    }
    return irs.get(name)!;
  };
  const interpreter = (name: string, removed: string) => {
    const key = `${name}\0${removed}`;
    let it = interpreters.get(key);
    if (!it) {
      const ir = edition(name)!;
      it = createInterpreter(
        removed === ""
          ? ir
          : { ...ir, rules: ir.rules.filter((r) => r.id !== removed), exemptions: ir.exemptions.filter((e) => e.id !== removed), tables: (ir.tables ?? []).filter((t) => t.name !== removed) },
      );
      interpreters.set(key, it);
    }
    return it;
  };
  // passes / fails of one scenario against the edition minus `removed` ("" = none); a throw fails
  const run = (file: string, name: string, removed: string): boolean | null => {
    const c = contents(file);
    if (!c) return null;
    const s = c.scenarios.find((x) => x.name === name);
    const t = s ? undefined : c.tableScenarios.find((x) => x.name === name);
    const ed = s?.edition ?? t?.edition;
    if (ed === undefined || !edition(ed)) return null;
    try {
      if (s) return judge(s.expect, interpreter(ed, removed).check(s.state, s.action)).pass;
      const table = (edition(ed)!.tables ?? []).find((x) => x.name === t!.table);
      if (!table || (removed !== "" && removed === t!.table)) return false;
      return judgeTable(t!.expect, table.rows[interpreter(ed, removed).lookupRow(t!.table, t!.inputs)]!.value).pass;
    } catch {
      return false;
    }
  };
  return (ref, removed) => {
    const key = `${ref.file}#${ref.name}\0${removed}`;
    let o = outcomes.get(key);
    if (o === undefined) {
      const base = run(ref.file, ref.name, "");
      o = base === null ? "missing" : !base ? "baseline_fails" : run(ref.file, ref.name, removed) ? "passes" : "fails";
      outcomes.set(key, o);
    }
    return o;
  };
}

const pct = (p: number | null) => (p === null ? "   n/a" : `${p.toFixed(1).padStart(5)}%`);

/** The human report (no colors in the numbers, so it is stable for tests). */
export function formatReport(r: CoverageReport, threshold: number | null, pass: boolean, auditThreshold: number | null = null): string {
  const out: string[] = ["coverage of the rulebook sources: restriction paragraphs encoded by rules; paragraphs (all but headings) audited", ""];
  const audit = (x: { audited: number; auditable: number; auditedPercent: number | null }) => `audited ${x.audited}/${x.auditable} ${pct(x.auditedPercent).trim()}`;
  const width = Math.max(24, ...r.editions.flatMap((e) => e.files.map((f) => f.source.length)));
  for (const e of r.editions) {
    out.push(`${e.edition}${e.built ? "" : " (no bundled edition yet)"}`);
    for (const f of e.files) {
      const c = f.counts;
      const other = [`out of scope ${c.out_of_scope}${f.partlyOutOfScope ? ` (+${f.partlyOutOfScope} partly)` : ""}`, `procedure ${c.procedure}`, `example ${c.example}`, `heading ${c.heading}`].join(", ");
      out.push(`  ${f.source.padEnd(width)}  ${`${f.encoded}/${f.restriction}`.padStart(7)} ${pct(f.percent)}   (${f.paragraphs} paragraphs; ${other}; ${audit(f)})`);
    }
    out.push(`  ${`${e.edition} total`.padEnd(width)}  ${`${e.encoded}/${e.restriction}`.padStart(7)} ${pct(e.percent)}   (${audit(e)})`);
  }
  out.push("");
  const met = (ok: boolean) => (ok ? "met" : "NOT met");
  const verdict = threshold === null ? "" : ` (threshold ${threshold}%: ${met(meetsThreshold(r.total, threshold))})`;
  const auditVerdict = auditThreshold === null ? "" : ` (audit threshold ${auditThreshold}%: ${met(meetsAuditThreshold(r.total, auditThreshold))})`;
  out.push(`total ${r.total.encoded}/${r.total.restriction} ${pct(r.total.percent).trim()}${verdict}; ${audit(r.total)}${auditVerdict}`);
  if (r.uncoveredEditions.length) out.push(`bundled editions no manifest names: ${r.uncoveredEditions.join(", ")}`);
  if (r.notEncoded.length) {
    out.push("", `not encoded (${r.notEncoded.length}):`);
    for (const p of r.notEncoded) out.push(`  ${p.source} ¶${p.paragraph} (line ${p.line}): ${p.note}${p.rules.length ? ` [partly: ${p.rules.join(", ")}]` : ""}`);
  }
  return out.join("\n") + "\n";
}

/** The closing lines of `--verify-audit` (the survivors themselves are RW5014 diagnostics). */
export function formatAuditVerification(a: AuditVerification): string {
  const head = `audit marks verified by mutation: ${a.marks} marks, ${a.mutants} rule removals, ${a.killed} caught by a named scenario`;
  if (!a.survivors.length) return `${head}; every mark pins its rules\n`;
  const lines = [`${head}; ${a.survivors.length} NOT caught (the mark's scenarios survive):`];
  for (const s of a.survivors) lines.push(`  ${s.manifest}:${s.line}:${s.column} ¶${s.paragraph} \`${s.id}\``);
  return lines.join("\n") + "\n";
}

export async function coverageCommand(opts: CoverageOptions): Promise<number> {
  const r = runCoverage(opts);
  if (opts.format === "json") {
    const { report, diagnostics, threshold, auditThreshold, pass, exitCode, audit } = r;
    const auditJson = audit ? { auditVerification: { marks: audit.marks, mutants: audit.mutants, killed: audit.killed, survivors: audit.survivors } } : {};
    process.stdout.write(JSON.stringify({ ...(report ?? {}), threshold, auditThreshold, ...auditJson, ...(r.variant ? { variant: r.variant } : {}), pass, exitCode, diagnostics }, null, 2) + "\n");
    return r.exitCode;
  }
  printDiagnostics(r.diagnostics, opts.format);
  if (r.variant) process.stdout.write(formatVariant(r.variant));
  if (r.report) process.stdout.write(formatReport(r.report, r.threshold, r.pass, r.auditThreshold));
  if (r.audit) process.stdout.write(formatAuditVerification(r.audit));
  if (r.exitCode === 2) process.stderr.write(`${color.red("error")}: the coverage manifests have ${errorCount(r.diagnostics)} error(s)\n`);
  return r.exitCode;
}
