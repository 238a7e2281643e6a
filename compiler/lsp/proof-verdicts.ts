/**
 * The proof verdicts hover shows for a rule, exemption or table: read from the last prove report
 * (`proofs/<edition folder>/report.json`) and from the proof cache
 * (`proofs/.cache/<edition dir>.json.gz`, or the one background proving keeps loaded), each
 * re-read only when its file changed. Never proves and never loads the solver (the obligations and
 * their cache keys come from keys.ts).
 */
import fs from "node:fs";
import path from "node:path";
import type { IREdition, IRRule } from "../ir/types.js";
import { contentFingerprint, ruleFingerprint } from "../ir/fingerprint.js";
import type { ObligationResult, ProofReport } from "../ir/proof-report.js";
import { liftsOf, type Obligation } from "../ir/obligations.js";
import type { Project } from "./project.js";
import { keyedFor, openProofCache, proofCacheFile, type ProofCache } from "./keys.js";
import type { EditionIndex } from "./symbols.js";
import { verdictMeaning } from "../ir/explanations.js";

/**
 * Files read from disk and kept, each re-read only when its mtime changed: `get(file, read)` gives
 * the value `read(file)` made at the last read (undefined when the file cannot be stat'ed; `read`
 * may give undefined for an unreadable or malformed file, kept until the file changes).
 */
class ByMtime<T> {
  private seen = new Map<string, { mtime: number; value: T | undefined }>();
  get(file: string, read: (file: string) => T | undefined): T | undefined {
    let mtime: number;
    try {
      mtime = fs.statSync(file).mtimeMs;
    } catch {
      return undefined;
    }
    let hit = this.seen.get(file);
    if (!hit || hit.mtime !== mtime) this.seen.set(file, (hit = { mtime, value: read(file) }));
    return hit.value;
  }
}

/** A proof report file parsed; undefined when unreadable, not JSON, or without an obligation list. */
function readReport(file: string): ProofReport | undefined {
  try {
    const report = JSON.parse(fs.readFileSync(file, "utf8")) as ProofReport;
    return Array.isArray(report.obligations) ? report : undefined;
  } catch {
    return undefined;
  }
}

/** Proof reports read from disk, re-read when the file changes (by mtime). */
export class Reports {
  private files = new ByMtime<ProofReport>();
  constructor(private root: string) {}
  /** The report of an edition folder (`his`: proofs/his/report.json), or undefined without a readable one. */
  get(folder: string): { file: string; report: ProofReport } | undefined {
    const file = path.join(this.root, "proofs", folder, "report.json");
    const report = this.files.get(file, readReport);
    return report ? { file, report } : undefined;
  }
}


/**
 * Proof caches read from disk (`proofs/.cache/`, as `rulewright prove` writes them), re-read when
 * the file changes (by mtime), and the cache keys of an IR's obligations (memoized per IR).
 */
export class Caches {
  /** the proof cache files read so far, by file (each opened again when its mtime changed) */
  private stores = new ByMtime<ProofCache>();
  /** the proof caches the server's background proving keeps loaded (proving.ts), read instead of the files */
  loaded?: (editionRel: string) => ProofCache | undefined;
  constructor(private root: string) {}
  /** The store of an edition folder, read (gunzip, parse) only when its file changed since the last read; undefined without a file. */
  store(editionRel: string): { file: string; cache: ProofCache } | undefined {
    const mine = this.loaded?.(editionRel);
    if (mine) return { file: mine.file, cache: mine };
    const dir = path.join(this.root, "proofs", ".cache");
    const file = proofCacheFile(dir, editionRel);
    if (!file) return undefined;
    const cache = this.stores.get(file, () => openProofCache(dir, editionRel));
    return cache && { file, cache };
  }

  /** per edition folder, the last IRs asked about here (`lookup`, `prepare`), oldest first */
  private recent = new Map<string, IREdition[]>();

  /** Remembers `ir` as the newest IR of the edition folder asked about (the last 3 are kept). */
  private remember(editionRel: string, ir: IREdition): void {
    const list = (this.recent.get(editionRel) ?? []).filter((x) => x !== ir);
    list.push(ir);
    this.recent.set(editionRel, list.slice(-3));
  }

  /**
   * The verdicts the cache holds for `ir`'s obligations about `id` (in obligation order;
   * undefined: not in the cache), or undefined without a cache file. Never waits on hashing the
   * edition's shared parts for a new IR (tens of ms on HIS, done by background proving or the
   * warm-up right after the check): until `ir`'s key function is made, an obligation whose rules
   * and the exemptions lifting them are as they were in the last IR keyed here (`sameKey`) takes
   * that IR's key (the newest IR asked about here whose key function is made: background
   * proving makes it for every IR it proves) — the verdict of the last checked model, which differs only when the edit
   * changed a part every key shares (the state, enums, board, invariants, tables, routes,
   * actions) — and the others are `pending` (looked up once the key function is made).
   */
  lookup(editionRel: string, ir: IREdition, about: (o: Obligation) => boolean): { file: string; hits: { ob: Obligation; hit?: ObligationResult; pending?: boolean }[] } | undefined {
    const got = this.store(editionRel);
    if (!got) return undefined;
    const { file, cache } = got;
    const k = keyedFor(ir);
    // the newest earlier IR whose key function is made (by background proving, the warm-up or a hover)
    const last = k.ready ? undefined : [...(this.recent.get(editionRel) ?? [])].reverse().find((x) => x !== ir && keyedFor(x).ready);
    const before = last ? sameKey(last, ir) : undefined;
    const hits: { ob: Obligation; hit?: ObligationResult; pending?: boolean }[] = [];
    k.obligations.forEach((ob) => {
      if (!about(ob)) return;
      const key = before ? before(ob) : k.key(ob);
      if (key === undefined) return hits.push({ ob, pending: true });
      const r = cache.get(key);
      hits.push({ ob, hit: r ? ({ ...ob, ...r, cached: true, ms: 0 } as ObligationResult) : undefined });
    });
    this.remember(editionRel, ir);
    return { file, hits };
  }

  /** Makes the key function of `ir` (the edition folder's newest IR): the warm-up after a check, so that hover finds it made. */
  prepare(editionRel: string, ir: IREdition): void {
    const k = keyedFor(ir);
    if (k.obligations[0]) k.key(k.obligations[0]);
    this.remember(editionRel, ir);
  }
}

/**
 * The key, in `before`'s key function, of an obligation of `ir` whose key differs from the one it
 * had in `before` only if a part every key shares changed: the same obligation (id, kind, rules,
 * exemptions) with its rules and the exemptions lifting them unchanged (their fingerprints);
 * undefined otherwise. The rules of `ir` are fingerprinted on demand (each once per rule object).
 */
function sameKey(before: IREdition, ir: IREdition): (ob: Obligation) => string | undefined {
  const k = keyedFor(before);
  const old = new Map(k.obligations.map((ob) => [ob.id, ob]));
  const rulesBefore = new Map(before.rules.map((r) => [r.id, r]));
  const rulesNow = new Map(ir.rules.map((r) => [r.id, r]));
  const liftMemo = new Map<IRRule, string>();
  const lifts = (e: IREdition, r: IRRule) => {
    let v = liftMemo.get(r);
    if (v === undefined) liftMemo.set(r, (v = liftsOf(e, r).map((x) => contentFingerprint(x)).join("\n")));
    return v;
  };
  return (ob) => {
    const b = old.get(ob.id);
    if (!b || b.kind !== ob.kind || b.action !== ob.action || b.rules.join() !== ob.rules.join() || (b.exemptions ?? []).join() !== (ob.exemptions ?? []).join()) return undefined;
    for (const id of ob.rules) {
      const rb = rulesBefore.get(id);
      const rn = rulesNow.get(id);
      if (!rb || !rn || ruleFingerprint(rb) !== ruleFingerprint(rn) || lifts(before, rb) !== lifts(ir, rn)) return undefined;
    }
    for (const id of ob.exemptions ?? []) {
      const eb = before.exemptions.find((e) => e.id === id);
      const en = ir.exemptions.find((e) => e.id === id);
      if (!eb || !en || contentFingerprint(eb) !== contentFingerprint(en)) return undefined;
    }
    return k.key(b);
  };
}

/** What one obligation's verdict means for the rule under the cursor, in a few words. */
export function verdictWords(o: ObligationResult, id: string): string {
  const others = o.rules.filter((r) => r !== id);
  const core = o.core?.filter((c) => c !== id) ?? [];
  const unknown = `unknown${o.reason ? ` (${o.reason})` : ""}`;
  if (o.verdict === "unknown") return `${o.kind}: ${unknown}`;
  const ok = o.verdict === "proved";
  switch (o.kind) {
    case "dead_rule":
      return ok ? "dead_rule: proved — it can fire" : `dead_rule: **refuted — it never fires**${core.length ? ` (because of ${core.map((c) => `\`${c}\``).join(", ")})` : ""}`;
    case "redundant_rule":
      return ok ? `redundant_rule: proved — some state only it decides${o.vacuous ? " (vacuous: it never fires)" : ""}` : `redundant_rule: **refuted — other rules already decide every state it decides**${core.length ? ` (${core.map((c) => `\`${c}\``).join(", ")})` : ""}`;
    case "contradiction":
      return ok ? `contradiction with ${others.map((r) => `\`${r}\``).join(", ")}: proved — never both` : `contradiction with ${others.map((r) => `\`${r}\``).join(", ")}: **refuted — a state both obliges and forbids \`${o.action}\`**`;
    case "obligation_clash":
      return ok ? `obligation_clash with ${others.map((r) => `\`${r}\``).join(", ")}: proved` : `obligation_clash with ${others.map((r) => `\`${r}\``).join(", ")}: **refuted — one power obliged to make two moves**`;
    case "swallowing_exemption":
      return ok ? `swallowing_exemption (${(o.exemptions ?? []).map((e) => `\`${e}\``).join(", ")}): proved` : `swallowing_exemption: **refuted — ${(o.exemptions ?? []).map((e) => `\`${e}\``).join(", ")} lifts it wherever it applies**`;
    case "always_forbidden":
      return ok ? `always_forbidden \`${o.action}\`: proved — some state allows it` : `always_forbidden \`${o.action}\`: **refuted — no legal state allows it**`;
    default:
      return `${o.kind}: ${o.verdict}`;
  }
}

/** Where the verdicts are read from (a `FeatureContext` is one). */
export interface VerdictSources {
  project: Project;
  reports: Reports;
  caches: Caches;
}

/**
 * The verdicts of the obligations a rule, exemption or table takes part in, per edition: from
 * the last prove report when it was made from the rule files as they are; else from the proof
 * cache (keyed by what each obligation depends on, so right for the edited rules too), an
 * obligation the cache does not hold being "not proved since the edit"; else from the last
 * report, flagged as older than the rule files.
 */
export function verdictLines(ctx: VerdictSources, all: readonly { dir: string }[], id: string): string[] {
  const out: string[] = [];
  const about = (o: Obligation) => o.subjects?.includes(id) || o.table === id || ((o.kind === "contradiction" || o.kind === "obligation_clash") && o.rules.includes(id));
  for (const idx of all) {
    const folder = path.basename(idx.dir);
    const got = ctx.reports.get(folder);
    const ir: IREdition | undefined = ctx.project.lastGood.get(idx.dir);
    if (ir && (!got || got.report.inputHash !== ir.inputHash)) {
      const cached = ctx.caches.lookup(ctx.project.rel(idx.dir), ir, about);
      if (cached && cached.hits.some((h) => h.hit || h.pending)) {
        out.push(`**Proofs (${folder}, from the proof cache ${ctx.project.rel(cached.file)}, for the rules as they are now):**`);
        for (const { ob, hit, pending } of cached.hits) {
          const what = `${ob.kind}${ob.kind === "contradiction" || ob.kind === "obligation_clash" ? ` with \`${ob.rules.find((r) => r !== id) ?? id}\`` : ""}`;
          out.push(hit ? `- ${verdictWords(hit, id)}${hit.severity === "off" ? " (severity off)" : ""} — ${verdictMeaning(hit)}` : pending ? `- ${what}: changed by the edit, being looked up — hover again in a moment` : `- ${what}: not proved since the last change — run \`npx rulewright prove ${ctx.project.rel(idx.dir)}\``);
        }
        continue;
      }
    }
    if (!got) {
      out.push(`**Proofs (${folder}):** no prove report yet — run \`npx rulewright prove ${ctx.project.rel(idx.dir)}\``);
      continue;
    }
    const obs = got.report.obligations.filter(about);
    const stale = ir && ir.inputHash !== got.report.inputHash ? " — the rule files changed since (verdicts may be out of date)" : "";
    out.push(`**Proofs (${folder}, ${ctx.project.rel(got.file)}${stale}):**`);
    if (!obs.length) out.push("- none of the report's obligations is about it");
    for (const o of obs) out.push(`- ${verdictWords(o, id)}${o.severity === "off" ? " (severity off)" : ""} — ${verdictMeaning(o)}`);
  }
  return out;
}

