/**
 * A designer's own variant (issue 28): `init --extends his` in a temporary folder outside the
 * project, a state field added in the schema extension, a rule reading it; then build, scenarios
 * and prove. Proofs reused from the parent: after the shared setup proved `his` (test/setup/
 * proofs.ts, the proof cache in proofs/.cache), the variant's first prove re-solves only the
 * obligations its change touches (counts asserted, never times).
 *
 * The variant's rule uses two constructs of issue 28 point 4: integer division (`/`, rounding
 * down: a truce of one turn is half a turn, 0) and `unless` (an exemption written on the rule).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { obligationsFor, type Obligation } from "../../compiler/ir/obligations.js";
import type { IREdition } from "../../compiler/ir/types.js";
import { obligationKeyer, ProofCache, proveEdition } from "../../compiler/verify/index.js";
import { reuseFromParent } from "../../compiler/verify/cache/reuse.js";
import { exampleCompleter } from "../../compiler/engine/fixture.js";
import { initVariant } from "../../compiler/cli/init-variant.js";
import { buildOne } from "../../compiler/cli/build.js";
import { runScenarios } from "../../compiler/cli/test.js";
import { proofReport } from "../helpers/proof-reports.js";

const LONG = 600_000;
/** The variant's own rules, appended to its scaffolded edition.rules. */
const VARIANT_RULES = `
rule dow.truce §9.6 "a truce of two to seven turns bans declarations of war (a longer one is a treaty)"
  forbid declare_war when state.truce_turns / 2 > 0 unless state.truce_turns > 7
`;
/** Its scenarios, on the fixture the scaffold derived (which has no truce_turns: the default applies). */
const VARIANT_SCENARIOS = `edition: ..
fixture: ../fixtures/base-state.json
scenarios:
  - name: "dow.truce fires while a truce lasts"
    patch: { phase: diplomacy, segment: declarations_of_war, truce_turns: 2 }
    action: { action: declare_war, by: france, target: england }
    expect: { forbidden: [dow.truce] }
  - name: "dow.truce does not fire without a truce (the field's default, 0)"
    patch: { phase: diplomacy, segment: declarations_of_war }
    action: { action: declare_war, by: france, target: england }
    expect: allowed
  - name: "a truce of one turn: 1 / 2 rounds down to 0, dow.truce does not fire"
    patch: { phase: diplomacy, segment: declarations_of_war, truce_turns: 1 }
    action: { action: declare_war, by: france, target: england }
    expect: allowed
  - name: "a truce of eight turns is a treaty: the rule's unless lifts it"
    patch: { phase: diplomacy, segment: declarations_of_war, truce_turns: 8 }
    action: { action: declare_war, by: france, target: england }
    expect: allowed
`;

let root: string;
let dir: string;
let ir: IREdition;
let his: IREdition;

/** The obligations the variant's change touches: those involving its new rule, and stuck_power (it reads every rule). */
const touched = (ob: Obligation) => ob.rules.includes("dow.truce") || ob.kind === "stuck_power";

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "rw-variant-"));
  dir = path.join(root, "his-truce");
  const out = process.stdout.write;
  process.stdout.write = () => true;
  try {
    expect(await initVariant(dir, "his", { format: "json" })).toBe(0);
  } finally {
    process.stdout.write = out;
  }
  fs.appendFileSync(path.join(dir, "edition.rules"), VARIANT_RULES);
  const ext = JSON.parse(fs.readFileSync(path.join(dir, "state.extension.json"), "utf8"));
  ext.properties = { truce_turns: { type: "integer", minimum: 0, maximum: 9, default: 0 } };
  ext.required = ["truce_turns"];
  fs.writeFileSync(path.join(dir, "state.extension.json"), JSON.stringify(ext, null, 2));
  fs.writeFileSync(path.join(dir, "scenarios", "truce.yaml"), VARIANT_SCENARIOS);
  const res = loadEdition(dir);
  expect(res.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  ir = res.edition!;
  his = loadEdition("dsl/his").edition!;
}, LONG);

describe("a variant outside the project (issue 28)", () => {
  it("is scaffolded over his with every file, and its new field extends his's schema", () => {
    for (const f of ["edition.rules", "state.extension.json", "fixtures/base-state.json", "README.md", "coverage/001_42c9e1d76fa4cc82.yaml"]) expect(fs.existsSync(path.join(dir, f))).toBe(true);
    expect(fs.readdirSync(path.join(dir, "scenarios")).sort()).toEqual(["his_truce.yaml", "truce.yaml"]);
    expect(fs.readFileSync(path.join(dir, "edition.rules"), "utf8")).toMatch(/^\/\/ override rule \S+ /m);
    expect(ir.parent).toBe("his");
    expect(Object.keys(ir.schema.properties as object)).toEqual([...Object.keys(his.schema.properties as object), "truce_turns"]);
    expect(ir.rules.length).toBe(his.rules.length + 1);
  });

  it("builds into its own generated/ and runs its scenarios (the parent's fixture lacks the new field: its default applies)", async () => {
    const built = await buildOne(dir, { check: false, format: "json" });
    expect(built.status).not.toBe("error");
    expect(fs.existsSync(path.join(dir, "generated", "validators.ts"))).toBe(true);
    const summary = await runScenarios([path.join(dir, "scenarios")], "json");
    expect(summary.problems).toEqual([]);
    expect(summary.results.map((r) => [r.name, r.pass])).toEqual(expect.arrayContaining([
      ["dow.truce fires while a truce lasts", true],
      ["dow.truce does not fire without a truce (the field's default, 0)", true],
      ["a truce of one turn: 1 / 2 rounds down to 0, dow.truce does not fire", true],
      ["a truce of eight turns is a treaty: the rule's unless lifts it", true],
    ]));
    expect(summary.failed).toBe(0);
  }, LONG);

  it("takes over his's verdicts of every obligation its change does not touch, and only those", () => {
    const cache = new ProofCache(path.join(root, "cache"), "variant");
    const hisCache = new ProofCache(path.join("proofs", ".cache"), path.join("dsl", "his"));
    const r = reuseFromParent(ir, his, cache, hisCache, { listBound: 4, rlimit: 60_000_000, complete: exampleCompleter(ir) });
    const all = obligationsFor(ir);
    const untouched = all.filter((o) => !touched(o)).map((o) => o.id).sort();
    expect(all.length).toBe(225);
    expect(all.filter(touched).length).toBe(22);
    // every untouched obligation is his's; of the touched ones, only unsat proofs that the new ban
    // (one conjunct more) leaves standing, and the others are solved again (no `fires` given here)
    const touchedIds = new Set(all.filter(touched).map((o) => o.id));
    for (const x of r.rejected) expect(touchedIds.has(x.id)).toBe(true);
    expect(r.reused.filter((id) => !touchedIds.has(id)).sort()).toEqual(untouched);
    const extra = r.reused.filter((id) => touchedIds.has(id));
    expect(extra.length).toBe(r.why["unsat under fewer constraints"]);
    for (const id of extra) expect(cache.get(keyOf(ir, id), 60_000_000)?.fromParent?.why).toBe("unsat under fewer constraints");
    // the verdicts are his's
    const hisReport = proofReport("dsl/his");
    const verdictOf = new Map(hisReport.obligations.map((o) => [o.id.slice("his.".length), o.verdict]));
    for (const id of r.reused) expect([id, cache.get(keyOf(ir, id), 60_000_000)?.verdict]).toEqual([id, verdictOf.get(id.slice(`${ir.name}.`.length))]);
  });

  it("its first prove after his's re-solves only the touched obligations (those of declare_war here)", async () => {
    const cache = new ProofCache(path.join(root, "cache2"), "variant");
    const hisCache = new ProofCache(path.join("proofs", ".cache"), path.join("dsl", "his"));
    const only = (o: Obligation) => o.action === "declare_war" && o.kind !== "stuck_power";
    reuseFromParent(ir, his, cache, hisCache, { listBound: 4, rlimit: 60_000_000, complete: exampleCompleter(ir), only });
    const report = await proveEdition(ir, { cache, only, isolate: true, workers: 1 });
    const mine = obligationsFor(ir).filter(only);
    expect(report.obligations.length).toBe(mine.length);
    expect(report.summary.solved).toBe(mine.filter(touched).length);
    expect(report.summary.cached).toBe(mine.filter((o) => !touched(o)).length);
    expect(report.summary.unknown).toBe(0);
    // the new rule is no dead rule: a truce state fires it
    expect(report.obligations.find((o) => o.id === `${ir.name}.dead_rule.dow.truce`)?.verdict).toBe("proved");
  }, LONG);
});

/** The cache key of a variant obligation by id. */
function keyOf(edition: IREdition, id: string): string {
  const ob = obligationsFor(edition).find((o) => o.id === id)!;
  return obligationKeyer(edition, { listBound: 4 })(ob);
}
