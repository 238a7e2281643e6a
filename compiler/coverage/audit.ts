/**
 * Verifying audit marks by mutation (`rulewright coverage --verify-audit`, issue 27): an audit
 * mark names the scenarios that pin its paragraph; this checks that they do. For every audited
 * paragraph and every id it claims (a rule, an exemption or a result table), the id is removed
 * from a scratch copy of the edition, and at least one of the mark's scenarios must then fail —
 * its verdict (or table value) no longer the one it expects. A mark whose scenarios all survive
 * the removal of one of its ids does not pin that id: it is reported (RW5014) at the id's place in
 * the manifest, with a hint.
 *
 * Pure: the caller (compiler/cli/coverage.ts) runs the scenarios. It passes a `ScenarioProbe`,
 * which judges one scenario against the edition with one id removed (the CLI uses the reference
 * interpreter, compiler/interpret, on an in-memory copy of the IR: never the user's files). This
 * module knows no interpreter and reads no file.
 */
import type { Diagnostic } from "../diagnostics/types.js";
import { Reporter } from "../check/util.js";
import type { AuditMark, Manifest, RuleRef, ScenarioRef } from "./manifest.js";

/** One mutant: an audited paragraph of a manifest, with one of the ids it claims removed. */
export interface AuditMutant {
  /** the manifest's path (as given) */
  manifest: string;
  /** the manifest's edition (its ids are that edition's) */
  edition: string;
  /** paragraph number */
  paragraph: number;
  /** the id removed, with its place in the manifest */
  id: RuleRef;
  mark: AuditMark;
}

/**
 * How one named scenario fares against the edition with one id removed:
 * - `fails`: it runs and no longer gives the verdict (or table value) it expects — the mutant is killed;
 * - `passes`: it still gives its expected verdict — it does not pin the id;
 * - `baseline_fails`: it fails against the unmutated edition already (it pins nothing; the
 *   `rulewright test` step reports it);
 * - `missing`: the scenario cannot be found or run (RW5013 reports unknown names).
 */
export type ProbeOutcome = "fails" | "passes" | "baseline_fails" | "missing";

/**
 * Runs one scenario of an audit mark against the manifest's edition with `removedId` removed
 * (the scenario's own edition may be a variant of it: the id is removed there too). Must not
 * change any file.
 */
export type ScenarioProbe = (scenario: ScenarioRef, removedId: string, manifestEdition: string) => ProbeOutcome;

/** A mark whose scenarios survive the removal of one id it claims. */
export interface AuditSurvivor {
  manifest: string;
  paragraph: number;
  id: string;
  /** 1-based line and column of the id in the manifest */
  line: number;
  column: number;
  /** the mark's scenarios, each with its outcome against the mutant */
  scenarios: { ref: string; outcome: ProbeOutcome }[];
}

export interface AuditVerification {
  /** audited paragraphs with at least one id (the marks verified) */
  marks: number;
  /** (paragraph, id) mutants run */
  mutants: number;
  /** mutants some scenario of the mark killed */
  killed: number;
  survivors: AuditSurvivor[];
  /** one RW5014 error per survivor, at the id in the manifest */
  diagnostics: Diagnostic[];
}

/** Every (audited paragraph, claimed id) pair of the manifests, in manifest and paragraph order. */
export function auditMutants(manifests: readonly Manifest[]): AuditMutant[] {
  const out: AuditMutant[] = [];
  for (const m of manifests) {
    for (const p of [...m.paragraphs].sort((a, b) => a.n - b.n)) {
      if (!p.audited || p.rules.length === 0) continue;
      const seen = new Set<string>();
      for (const id of p.rules) {
        if (seen.has(id.id)) continue;
        seen.add(id.id);
        out.push({ manifest: m.file, edition: m.edition, paragraph: p.n, id, mark: p.audited });
      }
    }
  }
  return out;
}

/**
 * Runs every mutant of `auditMutants(manifests)` through `probe` and reports the survivors.
 * `editions` (optional) limits the check to manifests of those editions. A mark without scenarios
 * (allowed only where its paragraph has no ids) has no mutant.
 */
export function verifyAuditMarks(manifests: readonly Manifest[], probe: ScenarioProbe, editions?: readonly string[]): AuditVerification {
  const rep = new Reporter();
  const selected = editions ? manifests.filter((m) => editions.includes(m.edition)) : manifests;
  const mutants = auditMutants(selected);
  const marks = new Set(mutants.map((x) => `${x.manifest}#${x.paragraph}`)).size;
  const survivors: AuditSurvivor[] = [];
  let killed = 0;
  for (const mu of mutants) {
    const outcomes: { ref: string; outcome: ProbeOutcome }[] = [];
    let dead = false;
    for (const s of mu.mark.scenarios) {
      const outcome = probe(s, mu.id.id, mu.edition);
      outcomes.push({ ref: `${s.file}#${s.name}`, outcome });
      if (outcome === "fails") {
        dead = true;
        break; // one failing scenario kills the mutant
      }
    }
    if (dead) {
      killed++;
      continue;
    }
    survivors.push({ manifest: mu.manifest, paragraph: mu.paragraph, id: mu.id.id, line: mu.id.span.line, column: mu.id.span.column, scenarios: outcomes });
    const counts = (o: ProbeOutcome) => outcomes.filter((x) => x.outcome === o).length;
    const detail = [
      counts("passes") ? `${counts("passes")} still pass${counts("passes") === 1 ? "es" : ""}` : "",
      counts("baseline_fails") ? `${counts("baseline_fails")} fail${counts("baseline_fails") === 1 ? "s" : ""} without the mutation already` : "",
      counts("missing") ? `${counts("missing")} cannot be run` : "",
    ].filter(Boolean).join(", ");
    rep.report(
      "RW5014",
      `paragraph ${mu.paragraph}: with \`${mu.id.id}\` removed, no scenario of the audit mark fails (${detail || "none named"}): the mark does not pin it`,
      mu.manifest,
      mu.id.span,
      `name a scenario whose verdict needs \`${mu.id.id}\` — one where it fires (\`expect: { forbidden: [${mu.id.id}, …] }\`), or, for an exemption, one it lifts a rule in, for a table one that looks it up — or drop the id from this paragraph's rules if the paragraph does not state it`,
    );
  }
  return { marks, mutants: mutants.length, killed, survivors, diagnostics: rep.diagnostics };
}
