/**
 * Proof reports as JUnit XML (what most CI systems show as a test report): one `<testsuite>` per
 * edition, one `<testcase>` per obligation (`classname` = `<edition>.<analysis>`, `name` = the
 * rest of the obligation id).
 *
 * - refuted, severity at or above `failOn` → `<failure>` (the message, the counterexample facts
 *   or the unsat core, the replay command);
 * - unknown, severity at or above `failOn` → `<error>` (the test could not be decided: timeout,
 *   deadline, solver crash);
 * - unknown below `failOn` → `<skipped>`;
 * - everything else passes; proofs carry their unsat core, and findings below `failOn` their
 *   message, in `<system-out>`.
 * Written by hand (a few elements; every text is escaped).
 */
import type { Severity, SeverityLevel } from "../../ir/analyses.js";
import type { ObligationResult } from "../run/results.js";
import { describeTableExample, factText, verdictMessage } from "../../ir/verdict-words.js";
import type { FormatInput } from "./sarif.js";

const RANK: Record<SeverityLevel, number> = { off: 0, info: 1, warning: 2, error: 3 };

/** Whether an obligation's verdict counts against `failOn` (off never does). */
export function counts(o: Pick<ObligationResult, "severity">, failOn: Severity): boolean {
  return o.severity !== "off" && RANK[o.severity] >= RANK[failOn];
}

function esc(s: string): string {
  // XML 1.0: escape markup, drop characters that are not allowed at all
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function details(input: FormatInput, o: ObligationResult): string {
  const lines = [verdictMessage(o, input.ir), `severity: ${o.severity}${o.severityNote ? ` (${o.severityNote})` : ""}`, o.table !== undefined ? `table: ${o.table}` : `rules: ${o.rules.join(", ") || "(none)"}`];
  if (o.example) lines.push(`table example: ${describeTableExample(o.kind, o.example)}`);
  const ex = o.counterexample;
  if (ex) {
    lines.push(`counterexample${ex.minimal ? " (the facts that matter)" : ""}:`);
    for (const f of ex.facts ?? []) lines.push(`  ${factText(f)}`);
    lines.push(`  action: ${JSON.stringify(ex.action)}`);
  }
  if (o.core?.length) lines.push(`unsat core: ${o.core.join(", ")}`);
  const replay = input.replay?.(o);
  if (replay) lines.push(`replay: ${replay}`);
  return lines.join("\n");
}

/** JUnit XML of one or more proof reports. */
export function toJunit(inputs: FormatInput[], failOn: Severity): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  const suites: string[] = [];
  for (const input of inputs) {
    const { report } = input;
    const cases: string[] = [];
    let f = 0;
    let e = 0;
    let s = 0;
    for (const o of report.obligations) {
      const prefix = `${o.edition}.${o.kind}.`;
      const name = o.id.startsWith(prefix) ? o.id.slice(prefix.length) : o.id;
      const open = `    <testcase classname="${esc(`${o.edition}.${o.kind}`)}" name="${esc(name)}" time="${(o.ms / 1000).toFixed(3)}">`;
      const text = details(input, o);
      let body: string;
      if (o.verdict === "refuted" && counts(o, failOn)) {
        f++;
        body = `      <failure type="${o.kind}" message="${esc(verdictMessage(o, input.ir))}">${esc(text)}</failure>`;
      } else if (o.verdict === "unknown" && counts(o, failOn)) {
        e++;
        body = `      <error type="unknown" message="${esc(o.reason ?? "unknown")}">${esc(text)}</error>`;
      } else if (o.verdict === "unknown") {
        s++;
        body = `      <skipped message="${esc(`not proved (${o.severity}): ${o.reason ?? "unknown"}`)}"/>`;
      } else {
        body = `      <system-out>${esc(text)}</system-out>`;
      }
      cases.push(`${open}\n${body}\n    </testcase>`);
    }
    tests += report.obligations.length;
    failures += f;
    errors += e;
    skipped += s;
    suites.push(
      `  <testsuite name="${esc(`rulewright prove ${report.edition}`)}" tests="${report.obligations.length}" failures="${f}" errors="${e}" skipped="${s}" time="${(report.ms / 1000).toFixed(3)}">\n` +
        `    <properties>\n      <property name="inputHash" value="${esc(report.inputHash)}"/>\n      <property name="solved" value="${report.summary.solved}"/>\n      <property name="cached" value="${report.summary.cached}"/>\n    </properties>\n` +
        (cases.length ? cases.join("\n") + "\n" : "") +
        `  </testsuite>`,
    );
  }
  out.push(`<testsuites name="rulewright prove" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}">`);
  out.push(...suites);
  out.push("</testsuites>");
  return out.join("\n") + "\n";
}
