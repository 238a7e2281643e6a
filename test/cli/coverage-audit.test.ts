/**
 * `rulewright coverage --verify-audit` (issue 27): every audit mark must pin the ids its paragraph
 * claims — removing one id from a scratch copy of the edition must make one of the mark's
 * scenarios fail. Unit level: `verifyAuditMarks` with a probe whose answers are given. Command
 * level: the project's own manifests pass, and a copy of them with one mark weakened (its
 * firing scenarios dropped, only an allowed companion left) is reported at that mark's line, with
 * exit code 1, while the user's files are left untouched.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { auditMutants, readManifest, verifyAuditMarks, type Manifest, type ProbeOutcome, type ScenarioRef } from "../../compiler/coverage/index.js";

const REPO = process.cwd();
const BIN = path.join(REPO, "bin/rulewright.mjs");

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const MANIFEST = [
  "source: s.txt",
  `sha256: "${"a".repeat(64)}"`,
  "edition: e",
  "paragraphs:",
  '  1: { rules: [a.one, a.two], audited: { compared: "text vs rules", scenarios: ["t.yaml#a.one fires", "t.yaml#allowed companion"] } }',
  '  2: { rules: [b.one], audited: { compared: "text vs rules", scenarios: ["t.yaml#allowed companion"] } }',
  '  3: { procedure: "sequence", audited: { compared: "nothing to choose" } }',
  "",
].join("\n");

function manifest(): Manifest {
  const r = readManifest("m.yaml", MANIFEST);
  expect(r.diagnostics).toEqual([]);
  return r.manifest!;
}

describe("verifyAuditMarks", () => {
  it("lists one mutant per (audited paragraph, claimed id); paragraphs without ids have none", () => {
    expect(auditMutants([manifest()]).map((m) => `${m.paragraph}:${m.id.id}`)).toEqual(["1:a.one", "1:a.two", "2:b.one"]);
  });

  it("reports a mark whose scenarios survive the removal of an id, at the id's line, and not a mark that pins its ids", () => {
    // the probe: `a.one fires` fails without a.one or a.two (both are needed for its verdict);
    // the allowed companion passes whatever is removed
    const calls: string[] = [];
    const probe = (s: ScenarioRef, removed: string): ProbeOutcome => {
      calls.push(`${s.name}|${removed}`);
      return s.name === "a.one fires" && (removed === "a.one" || removed === "a.two") ? "fails" : "passes";
    };
    const v = verifyAuditMarks([manifest()], probe);
    expect(v).toMatchObject({ marks: 2, mutants: 3, killed: 2 });
    expect(v.survivors).toEqual([{ manifest: "m.yaml", paragraph: 2, id: "b.one", line: 6, column: 16, scenarios: [{ ref: "t.yaml#allowed companion", outcome: "passes" }] }]);
    expect(v.diagnostics).toHaveLength(1);
    expect(v.diagnostics[0]).toMatchObject({ code: "RW5014", severity: "error", file: "m.yaml", span: { line: 6, column: 16 } });
    expect(v.diagnostics[0]!.message).toContain("`b.one`");
    expect(v.diagnostics[0]!.help).toContain("forbidden: [b.one");
    // a failing scenario kills the mutant: the rest of the mark is not run for it
    expect(calls.filter((c) => c.endsWith("|a.one"))).toEqual(["a.one fires|a.one"]);
  });

  it("does not count a scenario that fails without the mutation, or one it cannot run", () => {
    const v = verifyAuditMarks([manifest()], (s) => (s.name === "a.one fires" ? "baseline_fails" : "missing"));
    expect(v.killed).toBe(0);
    expect(v.survivors.map((s) => s.id)).toEqual(["a.one", "a.two", "b.one"]);
    expect(v.diagnostics[0]!.message).toContain("fails without the mutation already");
    expect(v.diagnostics[0]!.message).toContain("cannot be run");
  });

  it("checks only the manifests of the editions asked for", () => {
    expect(verifyAuditMarks([manifest()], () => "passes", ["other"]).mutants).toBe(0);
  });
});

describe("rulewright coverage --verify-audit", () => {
  it("passes on the project's manifests: every mark pins every id it claims", () => {
    const r = run(["coverage", "--verify-audit", "--format", "json"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.auditVerification.survivors).toEqual([]);
    expect(j.auditVerification.mutants).toBeGreaterThan(400);
    expect(j.auditVerification.killed).toBe(j.auditVerification.mutants);
  });

  it("reports a weakened mark (only an allowed companion left) with file:line and exit 1, in a copy", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rw-verify-audit-"));
    try {
      for (const n of fs.readdirSync("dsl/coverage")) fs.copyFileSync(path.join("dsl/coverage", n), path.join(dir, n));
      const name = fs.readdirSync(dir).find((n) => n.startsWith("003_"))!;
      const file = path.join(dir, name);
      const lines = fs.readFileSync(file, "utf8").split("\n");
      const i = lines.findIndex((l) => l.startsWith("  3: "));
      // ¶3 claims event.mercators_map_once; keep only a scenario where it does not fire
      lines[i] = lines[i]!.replace(/scenarios: \[[^\]]*\]/, 'scenarios: ["test/scenarios/his/actions.yaml#england has not explored this turn: it plays Mercator\'s Map as an event"]');
      fs.writeFileSync(file, lines.join("\n"));
      const before = crypto.createHash("sha256").update(fs.readFileSync("dsl/coverage/" + name)).digest("hex");
      const r = run(["coverage", "--verify-audit", "--manifests", dir]);
      expect(r.code).toBe(1);
      // every id ¶3 claims survives: nothing that scenario checks needs any of them
      for (const id of ["action_cost", "cp.explore_once", "cp.no_explorer", "event.mercators_map_once"]) {
        expect(r.err).toMatch(new RegExp(`${name.replace(".", "\\.")}:${i + 1}:\\d+: error\\[RW5014\\]: paragraph 3: with \`${id.replace(".", "\\.")}\` removed`));
      }
      expect(r.out).toContain("4 NOT caught");
      // a good mark elsewhere in the same file is not reported (¶21 pins its rules)
      expect(r.err).not.toContain("paragraph 21:");
      expect(crypto.createHash("sha256").update(fs.readFileSync("dsl/coverage/" + name)).digest("hex")).toBe(before);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
