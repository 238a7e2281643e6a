/**
 * Hover never waits on hashing a new IR's proof-cache keys (compiler/lsp/proof-verdicts.ts
 * `Caches.lookup`): right after a check, before background proving or the warm-up has made the
 * new IR's key function, an obligation whose rules (and the exemptions lifting them) are as they
 * were in the IR keyed last takes that IR's key, and an obligation the edit changed says it is
 * being looked up; once the warm-up has made the key function, the answer is the exact one.
 * In process on the mini fixture edition, with a proof cache and key function given through
 * keys.ts `useProver` (a key made of the obligation and its rules' fingerprints): deterministic,
 * no solver, no timing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeatureContext } from "../../compiler/lsp/context.js";
import { hover } from "../../compiler/lsp/hover.js";
import { keyedFor, useProver } from "../../compiler/lsp/keys.js";
import { Project } from "../../compiler/lsp/project.js";
import { ruleFingerprint } from "../../compiler/ir/fingerprint.js";
import type { IREdition } from "../../compiler/ir/types.js";
import type { SolvedObligation } from "../../compiler/ir/proof-report.js";

const MINI = path.resolve(import.meta.dirname, "../fixtures/frontend/mini");

describe("hover answers from the last keyed model until the new IR is keyed", () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-lsp-hover-"));
    fs.cpSync(MINI, path.join(root, "dsl/mini"), { recursive: true });
    fs.mkdirSync(path.join(root, "proofs/.cache"), { recursive: true });
  });
  afterAll(() => {
    useProver(undefined);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("unchanged obligations from the last keyed IR, changed ones 'being looked up', then exact after the warm-up", () => {
    const cacheFile = path.join(root, "proofs/.cache/dsl_mini.json.gz");
    fs.writeFileSync(cacheFile, "");
    const stored = new Map<string, SolvedObligation>();
    let keyed = 0;
    useProver({
      cacheFile: () => cacheFile,
      openCache: () => ({ file: cacheFile, get: (k) => stored.get(k), save: () => undefined }),
      obligationKeyer: (ir: IREdition) => {
        const rules = new Map(ir.rules.map((r) => [r.id, r]));
        return (ob) => {
          keyed++;
          return `${ob.id}|${ob.rules.map((id) => ruleFingerprint(rules.get(id)!)).join("|")}`;
        };
      },
      load: () => Promise.reject(new Error("no solver here")),
    });
    const project = new Project(root);
    const ctx = new FeatureContext(project);
    const dir = path.join(root, "dsl/mini");
    const war = path.join(dir, "war.rules");
    const text = fs.readFileSync(war, "utf8");
    const first = project.check(dir).edition!;
    ctx.warm(dir);
    // every obligation of the first IR proved, in the cache
    const k1 = keyedFor(first);
    for (const ob of k1.obligations) stored.set(k1.key(ob), { verdict: "proved" } as SolvedObligation);
    const at = (t: string, needle: string) => {
      const lines = t.split("\n");
      const line = lines.findIndex((l) => l.includes(needle));
      return hover(ctx, war, line + 1, lines[line]!.indexOf(needle) + 2)!.markdown;
    };
    // the condition of dow.genoa edited; pass.card untouched
    const edited = text.replace("forbid declare_war when target = Power.genoa", "forbid declare_war when target = Power.green");
    project.open.set(war, { text: edited, version: 2 });
    project.invalidate();
    ctx.generation++;
    const second = project.check(dir).edition!;
    const before = keyed;
    const card = at(edited, "pass.card");
    expect(card).toContain("from the proof cache");
    expect(card).toContain("dead_rule: proved — it can fire");
    const genoa = at(edited, "dow.genoa");
    expect(genoa).toMatch(/dead_rule: changed by the edit, being looked up/);
    // nothing of the new IR was keyed by the hovers
    expect(keyedFor(second).ready).toBe(false);
    expect(keyed).toBe(before);
    // the warm-up makes the key function: the exact answer (the edited rule's obligations are not in the cache)
    ctx.warm(dir);
    expect(keyedFor(second).ready).toBe(true);
    const exact = at(edited, "dow.genoa");
    expect(exact).not.toContain("being looked up");
    expect(exact).not.toContain("dead_rule: proved");
  });
});
