/**
 * `rulewright explain <rule id>` without proving (issue 26, item 4): for a bundled edition with no
 * current prove report it reads the committed verdicts (proofs/verdicts.tsv, shipped in the
 * package), and only when they cover every obligation the id takes part in.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { committedVerdicts } from "../../compiler/cli/explain.js";

describe("explain: the committed verdicts", () => {
  const ir = loadEdition("dsl/his").edition!;
  const tsv = fs.readFileSync("proofs/verdicts.tsv", "utf8");
  it("gives the verdict of every obligation pass.home_card takes part in, as proofs/verdicts.tsv has it", () => {
    const r = committedVerdicts({ dir: "dsl/his", bundled: true }, ir, "pass.home_card")!;
    expect(r.source).toContain("committed verdicts");
    const obs = r.report.obligations;
    expect(obs.map((o) => o.id)).toContain("his.dead_rule.pass.home_card");
    for (const o of obs) expect(tsv).toContain(`${o.id}\t${o.verdict}`);
  });
  it("gives nothing when the file lacks one of them (rules changed since) or is missing", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "rw-explain-"));
    expect(committedVerdicts({ dir: "dsl/his", bundled: true, root }, ir, "pass.home_card")).toBeUndefined();
    fs.mkdirSync(path.join(root, "proofs"));
    fs.writeFileSync(path.join(root, "proofs/verdicts.tsv"), tsv.split("\n").filter((l) => !l.startsWith("his.dead_rule.pass.home_card\t")).join("\n"));
    expect(committedVerdicts({ dir: "dsl/his", bundled: true, root }, ir, "pass.home_card")).toBeUndefined();
    fs.writeFileSync(path.join(root, "proofs/verdicts.tsv"), tsv);
    expect(committedVerdicts({ dir: "dsl/his", bundled: true, root }, ir, "pass.home_card")?.source).toContain("shipped in the package");
    fs.rmSync(root, { recursive: true, force: true });
  });
});
