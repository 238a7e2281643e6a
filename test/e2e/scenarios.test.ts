/**
 * The designer's scenarios (test/scenarios/**) through the generated validators, plus the
 * coverage demanded of a rulebook encoding: every rule of every bundled edition is shown both
 * firing and not firing by at least one scenario about its action (a variant's inherited,
 * unchanged rules by its parent's scenarios), and every row of every result table gives the
 * value of at least one table scenario (a variant's inherited, unchanged tables by its parent's).
 */
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { findScenarioFiles, readScenarioFile, judge } from "../../compiler/scenarios/index.js";
import { bundledEditions } from "../../compiler/engine/editions.js";
import { loadValidators } from "../../compiler/engine/loader.js";
import { stateProblems, actionProblems } from "../../compiler/engine/validate.js";
import { runTable } from "../../compiler/cli/test.js";

const files = findScenarioFiles(["test/scenarios"]);

describe("scenarios", () => {
  it("finds scenario files", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(`${file}: every scenario passes`, async () => {
      const { scenarios, tableScenarios, problems } = readScenarioFile(file, (e) => `test/fixtures/${e}`);
      expect(problems).toEqual([]);
      expect(scenarios.length + tableScenarios.length).toBeGreaterThan(0);
      const folder = (scenarios[0] ?? tableScenarios[0]).edition;
      const res = loadEdition(`dsl/${folder}`);
      expect(res.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const edition = res.edition!;
      const mod = await loadValidators({ dir: `dsl/${folder}`, bundled: true }, edition);
      const failures: string[] = [];
      for (const s of scenarios) {
        const bad = [...stateProblems(edition, mod, s.state), ...actionProblems(edition, s.action)];
        if (bad.length) {
          failures.push(`${s.name}: bad input ${bad.join("; ")}`);
          continue;
        }
        const r = judge(s.expect, mod.check(s.state, s.action));
        if (!r.pass) failures.push(`${s.name}: ${r.detail}`);
      }
      for (const s of tableScenarios) {
        const r = runTable(s, edition, mod);
        if (!r.pass) failures.push(`${s.name}: ${r.detail}`);
      }
      expect(failures).toEqual([]);
    });
  }
});

describe("rule coverage by scenarios", () => {
  /**
   * Every bundled edition (dsl/<folder> with an `edition` declaration): each rule it defines,
   * adds or overrides fires in one of its scenarios and stays quiet in another. A variant's
   * inherited, unchanged rules are the parent's to show (same IR, same verdicts); its scenarios
   * need not repeat them.
   */
  it("shows every rule of every bundled edition firing and not firing", async () => {
    const byEdition = new Map<string, { state: unknown; action: unknown }[]>();
    for (const file of files) {
      for (const s of readScenarioFile(file, (e) => `test/fixtures/${e}`).scenarios) {
        byEdition.set(s.edition, [...(byEdition.get(s.edition) ?? []), { state: s.state, action: s.action }]);
      }
    }
    const editions = bundledEditions();
    expect(editions).toContain("his");
    expect(editions).toContain("vq");
    const missing: string[] = [];
    for (const name of editions) {
      const edition = loadEdition(`dsl/${name}`).edition!;
      expect(edition, `${name} compiles`).toBeDefined();
      const own = edition.rules.filter((r) => (r.provenance?.edition ?? name) === name);
      const list = byEdition.get(name) ?? [];
      if (own.length && !list.length) {
        missing.push(`${name}: no scenarios (test/scenarios/${name}/)`);
        continue;
      }
      const mod = await loadValidators({ dir: `dsl/${name}`, bundled: true }, edition);
      for (const rule of own) {
        let fired = false;
        let quiet = false;
        for (const { state, action } of list) {
          if ((action as { action: string }).action !== rule.action) continue;
          const v = mod.check(state, action);
          const hit = rule.kind === "forbid" ? v.violations.some((x) => x.rule === rule.id) : v.obliged.includes(rule.id);
          if (hit) fired = true;
          else quiet = true;
        }
        if (!fired) missing.push(`${name}: ${rule.id} never fires`);
        if (!quiet) missing.push(`${name}: ${rule.id} never stays quiet`);
      }
      for (const ex of edition.exemptions) {
        const lifted = edition.rules.filter((r) => r.groups.some((g) => ex.groups.includes(g)) || ex.rules.includes(r.id));
        expect(lifted.length, `${ex.id} lifts something`).toBeGreaterThan(0);
      }
    }
    expect(missing).toEqual([]);
  });

  it("shows every row of every result table giving a scenario's value", async () => {
    const byEdition = new Map<string, { table: string; inputs: Record<string, unknown> }[]>();
    for (const file of files) {
      for (const s of readScenarioFile(file, (e) => `test/fixtures/${e}`).tableScenarios) {
        byEdition.set(s.edition, [...(byEdition.get(s.edition) ?? []), { table: s.table, inputs: s.inputs }]);
      }
    }
    const missing: string[] = [];
    let tables = 0;
    for (const name of bundledEditions()) {
      const edition = loadEdition(`dsl/${name}`).edition!;
      expect(edition, `${name} compiles`).toBeDefined();
      // a variant's tables equal to its parent's are the parent's to show
      const parent = edition.parent ? loadEdition(`dsl/${edition.parent}`).edition : undefined;
      const inherited = (t: { name: string }) => {
        const p = parent?.tables?.find((x) => x.name === t.name);
        return !!p && JSON.stringify(p) === JSON.stringify(t);
      };
      const own = (edition.tables ?? []).filter((t) => !inherited(t));
      tables += own.length;
      if (!own.length) continue;
      const mod = await loadValidators({ dir: `dsl/${name}`, bundled: true }, edition);
      for (const t of own) {
        const hit = new Set((byEdition.get(name) ?? []).filter((s) => s.table === t.name).map((s) => mod.lookupRow(t.name, s.inputs)));
        t.rows.forEach((r, i) => {
          if (!hit.has(i)) missing.push(`${name}: table ${t.name}, row at ${r.pos.file}:${r.pos.line} gives no scenario's value`);
        });
      }
    }
    expect(tables).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });
});
