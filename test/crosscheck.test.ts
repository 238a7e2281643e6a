/**
 * The differential test (DESIGN.md "Pipeline"): every counterexample and every replayable
 * witness the prover finds — on the shipped Here I Stand rules and on the broken fixtures — is
 * replayed through the generated validator, which must give the verdict the solver predicted.
 */
import { describe, expect, it, beforeAll } from "vitest";
import { loadEdition } from "../compiler/check/index.js";
import { proveEdition } from "../compiler/verify/index.js";
import { loadValidators, stateProblems, type ValidatorModule } from "../compiler/cli/common.js";
import type { IREdition } from "../compiler/ir/types.js";

type Report = Awaited<ReturnType<typeof proveEdition>>;

interface Case {
  dir: string;
  bundled: boolean;
  /** obligations that must be refuted (id suffix match) */
  mustRefute: string[];
}

const CASES: Case[] = [
  { dir: "dsl/his", bundled: true, mustRefute: [] },
  { dir: "test/broken/pass-contradiction", bundled: false, mustRefute: ["contradiction.pass.empty_hand~pass.broken_empty_hand"] },
  { dir: "test/broken/dead-rule", bundled: false, mustRefute: ["dead_rule.dow.broken_never"] },
];

for (const c of CASES) {
  describe(`replay of ${c.dir}`, () => {
    let edition: IREdition;
    let mod: ValidatorModule;
    let report: Report;
    beforeAll(async () => {
      const res = loadEdition(c.dir, { repoRoot: process.cwd() });
      expect(res.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      edition = res.edition!;
      mod = await loadValidators({ dir: c.dir, bundled: c.bundled }, edition);
      report = await proveEdition(edition, { timeoutMs: 20_000 });
    }, 900_000); // Here I Stand with §12: 68 obligations, 3–4 minutes on a loaded 2-core machine

    it("has no unknown verdicts", () => {
      expect(report.obligations.filter((o) => o.verdict === "unknown").map((o) => o.id)).toEqual([]);
    });

    it("refutes what the fixture breaks, and only that among errors", () => {
      for (const suffix of c.mustRefute) {
        const o = report.obligations.find((x) => x.id.endsWith(suffix));
        expect(o, `obligation ${suffix}`).toBeDefined();
        expect(o!.verdict).toBe("refuted");
      }
      const errorsRefuted = report.obligations.filter((o) => o.severity === "error" && o.verdict === "refuted").map((o) => o.id);
      for (const id of errorsRefuted) expect(c.mustRefute.some((s) => id.endsWith(s)), id).toBe(true);
    });

    it("replays every counterexample through the generated validator", () => {
      const refuted = report.obligations.filter((o) => o.counterexample);
      if (c.mustRefute.some((s) => s.startsWith("contradiction"))) expect(refuted.length).toBeGreaterThan(0);
      for (const o of refuted) {
        const { state, action } = o.counterexample!;
        expect(stateProblems(edition, mod, state), `${o.id} state`).toEqual([]);
        const v = mod.check(state, action);
        if (o.kind === "contradiction") {
          const [oblige, forbid] = o.rules;
          expect(v.obliged, o.id).toContain(oblige);
          expect(v.violations.map((x) => x.rule), o.id).toContain(forbid);
        }
      }
    });

    it("replays every replayable witness through the generated validator", () => {
      let replayed = 0;
      for (const o of report.obligations) {
        if (!o.witness || !o.witness.replayable) continue;
        const { state, action } = o.witness;
        expect(stateProblems(edition, mod, state), `${o.id} witness state`).toEqual([]);
        const v = mod.check(state, action);
        if (o.kind === "dead_rule") {
          const rule = edition.rules.find((r) => r.id === o.rules[0])!;
          if (rule.kind === "forbid") expect(v.violations.map((x) => x.rule), o.id).toContain(rule.id);
          else expect(v.obliged, o.id).toContain(rule.id);
        } else if (o.kind === "always_forbidden") {
          // the prover counts other actions' obligations too: the witness must be allowed outright
          expect(v.violations.map((x) => x.rule), o.id).toEqual([]);
          expect(v.allowed, o.id).toBe(true);
        }
        replayed++;
      }
      expect(replayed).toBeGreaterThan(0);
    });
  });
}
