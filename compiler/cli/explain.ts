/**
 * `rulewright explain <id> [--edition e]`: one rule (or exemption, or invariant) as a designer
 * asks about it — its citation, file position and source text; what it is related to (the other
 * rules of its action, the exemptions that lift it, the defs and routes it uses); and the
 * verdicts of every proof obligation it takes part in, with their explanations. Verdicts come
 * from the last `prove` report when it matches the rule files; else, for a bundled edition, from
 * the committed verdicts (`proofs/verdicts.tsv`, shipped in the package: no solver runs) when they
 * cover every obligation of the id; else they are proved on demand (through the proof cache, so
 * usually without solving; not with `--no-prove`). Exit 0 shown, 2 unknown id / bad usage.
 */
import { closest, didYouMeanText } from "../diagnostics/suggest.js";
import fs from "node:fs";
import path from "node:path";
import type { IREdition } from "../ir/types.js";
import { parseRules } from "../syntax/index.js";
import { proveEdition, safeName, type ObligationResult, type ProofReport } from "../verify/index.js";
import type { Obligation } from "../ir/obligations.js";
import { liftedBy, liftedRules } from "../ir/derived.js";
import { routesIn } from "../ir/walk.js";
import { idInfo, posText } from "../ir/verdict-words.js";
import { compile, parseMillis, UsageError, color } from "./common.js";
import { bundledEditions, PACKAGE_ROOT, resolveEdition, type EditionRef } from "../engine/editions.js";
import { obligationsFor } from "../ir/obligations.js";
import { DEFAULT_CACHE_DIR, explainLines, parseRlimit, proofsDirFor, type ProveResult } from "./prove.js";
import { Progress } from "./progress.js";

export interface ExplainOptions {
  edition?: string;
  format: "text" | "json";
  /** prove the obligations when the last report does not match (default true) */
  prove?: boolean;
  timeout?: string;
  /** resource budget of one obligation when proving on demand (prove.ts parseRlimit) */
  rlimit?: string;
}

interface Found {
  ref: EditionRef;
  ir: IREdition;
}

/** The source text of a declaration: from its line to the line before the next blank or unindented line. */
export function sourceOf(file: string, line: number): string {
  let lines: string[];
  try {
    lines = fs.readFileSync(file, "utf8").split(/\r\n|\r|\n/);
  } catch {
    return "";
  }
  const out = [lines[line - 1] ?? ""];
  for (let i = line; i < lines.length; i++) {
    const l = lines[i];
    if (!l.trim() || /^\S/.test(l)) break;
    out.push(l);
  }
  return out.join("\n");
}

/** Names of the defs a declaration's condition calls (directly or through other defs), from the AST. */
function defsUsed(ir: IREdition, file: string, id: string): string[] {
  const asts = new Map<string, ReturnType<typeof parseRules>["ast"]>();
  const files = [...new Set(ir.inputs.map((i) => i.file).filter((f) => f.endsWith(".rules")))];
  for (const f of files) {
    try {
      asts.set(f, parseRules(fs.readFileSync(f, "utf8"), f).ast);
    } catch {
      // unreadable: no defs from it
    }
  }
  const defs = new Map<string, unknown>();
  for (const ast of asts.values()) for (const d of ast.decls) if (d.k === "def") defs.set(d.name.name, d.body);
  const decl = asts.get(file)?.decls.find((d) => (d.k === "rule" || d.k === "exempt" || d.k === "invariant") && d.id.name === id);
  if (!decl || (decl.k !== "rule" && decl.k !== "exempt" && decl.k !== "invariant")) return [];
  const found = new Set<string>();
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === "object") {
      const o = x as { k?: string; callee?: { name: string } };
      if (o.k === "call" && o.callee && defs.has(o.callee.name) && !found.has(o.callee.name)) {
        found.add(o.callee.name);
        walk(defs.get(o.callee.name));
      }
      for (const v of Object.values(o)) walk(v);
    }
  };
  walk(decl.k === "invariant" ? decl.expr : decl.when);
  return [...found].sort();
}

function find(id: string, edition?: string): Found {
  // the working folder's bundled editions, else (an engine's project) those shipped in the package
  const names = bundledEditions().length ? bundledEditions() : bundledEditions(PACKAGE_ROOT);
  const refs = edition ? [resolveEdition(edition)] : names.map((e) => resolveEdition(e));
  const hits: Found[] = [];
  const all: string[] = [];
  for (const ref of refs) {
    const res = compile(ref, "json");
    if (!res.edition) {
      if (edition) throw new UsageError(`the rules of \`${ref.dir}\` do not compile`, 2, `run \`npx rulewright build ${ref.dir}\` to see the errors`);
      continue;
    }
    const ir = res.edition;
    all.push(...ir.rules.map((r) => r.id), ...ir.exemptions.map((e) => e.id), ...ir.invariants.map((i) => i.id));
    if (idInfo(ir, id)) hits.push({ ref, ir });
  }
  if (!hits.length) {
    // ids are long (`pass.home_card`): within max(2, length/3) edits, not capped at 3
    const near = closest(id, all, Math.max(2, Math.floor(id.length / 3)));
    throw new UsageError(`no rule, exemption or invariant \`${id}\`${edition ? ` in \`${edition}\`` : " in the bundled editions"}`, 2, near ? didYouMeanText(near) : "rule ids look like `pass.home_card`");
  }
  if (hits.length > 1) throw new UsageError(`\`${id}\` is in several editions: ${hits.map((h) => h.ref.dir).join(", ")}`, 2, "choose one with --edition");
  return hits[0];
}

/** The obligations an id takes part in (as a rule, a subject, an exemption, or in a core). */
function takesPart(o: { rules: string[]; subjects: string[]; exemptions?: string[]; core?: string[] }, id: string): boolean {
  return o.rules.includes(id) || o.subjects.includes(id) || !!o.exemptions?.includes(id) || !!o.core?.includes(id);
}

export async function explainCommand(id: string, opts: ExplainOptions): Promise<number> {
  const { ref, ir } = find(id, opts.edition);
  const info = idInfo(ir, id)!;
  const rule = ir.rules.find((r) => r.id === id);
  const exemption = ir.exemptions.find((e) => e.id === id);
  const outDir = proofsDirFor(ref, ref.bundled ? ir.name : path.basename(ref.dir));

  // verdicts: the last report when it was made from these rule files, else prove on demand
  let report: ProofReport | undefined;
  let source = "";
  try {
    const last = JSON.parse(fs.readFileSync(path.join(outDir, "report.json"), "utf8")) as ProofReport;
    if (last.inputHash === ir.inputHash) {
      report = last;
      source = `from ${path.join(outDir, "report.json")}`;
    }
  } catch {
    // no report
  }
  if (!report && ref.bundled) {
    const committed = committedVerdicts(ref, ir, id);
    if (committed) {
      report = committed.report;
      source = committed.source;
    }
  }
  if (!report && opts.prove !== false) {
    const progress = new Progress(`prove ${ref.dir}`, true);
    const only = (o: Obligation) => takesPart(o, id);
    report = await proveEdition(ir, {
      cacheDir: DEFAULT_CACHE_DIR,
      cacheName: ref.dir,
      isolate: true,
      timeoutMs: opts.timeout !== undefined ? parseMillis(opts.timeout, "--timeout") : undefined,
      rlimit: opts.rlimit !== undefined ? parseRlimit(opts.rlimit) : undefined,
      only,
      onProgress: (e) => progress.event(e),
    });
    progress.end(report.obligations.length);
    source = `proved now (${report.summary.solved} solved, ${report.summary.cached} from the proof cache)`;
  }
  const obligations = (report?.obligations ?? []).filter((o) => takesPart(o, id));
  const r: ProveResult = { edition: ir.name, dir: ref.dir, outDir, report, ir, errors: 0, failed: false, ms: 0, files: filesOf(outDir, obligations) };

  const related = {
    sameAction: rule ? ir.rules.filter((x) => x.action === rule.action && x.id !== id).map((x) => ({ id: x.id, kind: x.kind, pos: posText(x.pos), title: x.title })) : [],
    liftedBy: rule ? liftedBy(ir, rule).map((e) => ({ id: e.id, pos: posText(e.pos), title: e.title })) : [],
    lifts: exemption ? liftedRules(ir, exemption).map((x) => ({ id: x.id, pos: posText(x.pos), title: x.title })) : [],
    defs: defsUsed(ir, info.pos.file, id),
    routes: (() => {
      const s = new Set<string>();
      const e = rule?.when ?? exemption?.when ?? ir.invariants.find((i) => i.id === id)?.expr;
      if (e) routesIn(e, s);
      return [...s].sort();
    })(),
  };
  const text = sourceOf(info.pos.file, info.pos.line);

  if (opts.format === "json") {
    process.stdout.write(
      JSON.stringify(
        {
          id,
          what: info.what,
          edition: ir.name,
          dir: ref.dir,
          kind: rule?.kind,
          action: rule?.action,
          citation: info.citation,
          title: info.title,
          file: info.pos.file,
          line: info.pos.line,
          column: info.pos.column,
          source: text,
          severities: (rule ?? exemption)?.severities ?? [],
          related,
          verdicts: { source: source || "none (run `rulewright prove`)", obligations: obligations.map((o) => ({ id: o.id, kind: o.kind, severity: o.severity, verdict: o.verdict, core: o.core, reason: o.reason, counterexample: o.counterexample && { action: o.counterexample.action, facts: o.counterexample.facts } })) },
        },
        null,
        2,
      ) + "\n",
    );
    return 0;
  }
  const out = (s: string) => process.stdout.write(s + "\n");
  out(`${color.bold(id)} — ${info.what}${rule ? ` (${rule.kind} \`${rule.action}\`)` : ""}${info.citation ? `, ${info.citation}` : ""}`);
  out(`  ${info.title}`);
  out(`  at ${posText(info.pos)}`);
  if (text) out(text.split("\n").map((l) => `  │ ${l}`).join("\n"));
  for (const s of (rule ?? exemption)?.severities ?? []) out(`  @severity ${s.kind} ${s.level}${s.note ? `: ${s.note}` : ""}`);
  const list = (title: string, xs: { id: string; pos: string; title: string; kind?: string }[]) => {
    if (!xs.length) return;
    out(`  ${title}:`);
    const w = Math.max(...xs.map((x) => x.id.length));
    for (const x of xs) out(`    ${x.id.padEnd(w)}  ${x.kind ? `${x.kind.padEnd(6)} ` : ""}${x.pos}  ${color.dim(x.title)}`);
  };
  list(`other rules of \`${rule?.action}\``, related.sameAction);
  list("lifted by", related.liftedBy);
  list("lifts", related.lifts);
  if (related.defs.length) out(`  uses defs: ${related.defs.join(", ")}`);
  if (related.routes.length) out(`  uses routes: ${related.routes.join(", ")}`);
  out(`  proof obligations (${source || "none: run `npx rulewright prove`"}):`);
  for (const o of obligations) {
    const v = o.verdict === "proved" ? color.green("proved") : o.verdict === "refuted" ? color.red("refuted") : color.yellow("unknown");
    out(`    ${v} ${o.severity} ${o.id}`);
    for (const l of explainLines(r, o, "      ")) out(l);
  }
  if (!obligations.length && report) out("    (none)");
  return 0;
}

/**
 * The committed verdicts of the obligations `id` takes part in (`proofs/verdicts.tsv` of the
 * checkout, or of the installed package for an edition shipped with it), as a report holding
 * just those obligations; undefined when the file is missing or lacks one of them (rules changed
 * since it was written).
 */
export function committedVerdicts(ref: EditionRef, ir: IREdition, id: string): { report: ProofReport; source: string } | undefined {
  const file = path.join(ref.root ?? ".", "proofs", "verdicts.tsv");
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const verdicts = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [oid, verdict] = line.split("\t");
    if (oid && verdict) verdicts.set(oid, verdict);
  }
  const mine = obligationsFor(ir).filter((o) => takesPart(o, id));
  if (!mine.length || mine.some((o) => !verdicts.has(o.id))) return undefined;
  const obligations = mine.map((o) => ({ ...o, verdict: verdicts.get(o.id) })) as unknown as ObligationResult[];
  const report = { edition: ir.name, inputHash: ir.inputHash, obligations } as unknown as ProofReport;
  return { report, source: `committed verdicts, ${ref.root ? "shipped in the package" : file} (run \`rulewright prove\` for cores and counterexamples)` };
}

/** The counterexample files the last prove wrote, for replay commands. */
function filesOf(outDir: string, obs: ObligationResult[]): Map<string, { state: string; action: string }> {
  const m = new Map<string, { state: string; action: string }>();
  for (const o of obs) {
    const base = path.join(outDir, "counterexamples", safeName(o.id));
    if (fs.existsSync(base + ".state.json")) m.set(o.id, { state: base + ".state.json", action: base + ".action.json" });
  }
  return m;
}
