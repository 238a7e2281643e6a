/**
 * `--watch` on `check` and `test` (compiler/cli/watch.ts, chokidar): a run at start, another after
 * each save, printing only the output lines that changed. The commands run in process with an
 * AbortSignal ending the watch; each test waits for the runs it expects (bounded by a timeout).
 */
import { afterAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkCommand } from "../compiler/cli/check.js";
import { testCommand } from "../compiler/cli/test.js";
import { lineChanges, type WatchRun } from "../compiler/cli/watch.js";

const tmp = fs.mkdtempSync(path.join(process.cwd(), ".tmp-watch-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs a watching command; `steps[i]` is called after run i + 1 (to save a file); resolves with every run. */
async function watching(start: (signal: AbortSignal, onRun: (r: WatchRun) => void) => Promise<number>, steps: (() => void)[]): Promise<{ runs: WatchRun[]; code: number }> {
  const ac = new AbortController();
  const runs: WatchRun[] = [];
  let fail: (e: Error) => void = () => {};
  const timedOut = new Promise<never>((_, reject) => (fail = reject));
  const timer = setTimeout(() => {
    ac.abort();
    fail(new Error(`watch: ${runs.length} run(s) after 60 s, expected ${steps.length + 1}`));
  }, 60_000);
  const onRun = (r: WatchRun) => {
    runs.push(r);
    const step = steps[r.n - 1];
    // the save comes a moment after the run, as a designer's would
    if (step) setTimeout(step, 300);
    else ac.abort();
  };
  try {
    const code = await Promise.race([start(ac.signal, onRun), timedOut]);
    return { runs, code };
  } finally {
    clearTimeout(timer);
  }
}

describe("--watch", () => {
  it("lineChanges: lines gone and come, as multisets in order", () => {
    expect(lineChanges(["a", "b", "b", "c"], ["b", "c", "d", "c"])).toEqual({ removed: ["a", "b"], added: ["d", "c"] });
    expect(lineChanges(["x"], ["x"])).toEqual({ removed: [], added: [] });
  });

  it("check --watch: a rule edited on disk changes the verdict on the next run (validators generated for it)", async () => {
    const dir = path.join(tmp, "mini");
    fs.cpSync("test/fixtures/frontend/mini", dir, { recursive: true });
    const spaces = Object.fromEntries(["red_home", "blue_home", "genoa", "pass_town", "sea_a"].map((s) => [s, { controller: "genoa", unrest: false }]));
    const state = path.join(tmp, "s.json");
    const action = path.join(tmp, "a.json");
    fs.writeFileSync(state, JSON.stringify({ phase: "movement", segment: "peace", turn: 1, wars: [], hands: { red: ["march"], blue: [] }, spaces }));
    fs.writeFileSync(action, JSON.stringify({ action: "declare_war", by: "red", target: "genoa" }));
    const rules = path.join(dir, "war.rules");
    const { runs, code } = await watching(
      (signal, onRun) => checkCommand({ edition: path.relative(process.cwd(), dir), state, action, format: "text", watch: true, signal, onRun }),
      [() => fs.writeFileSync(rules, fs.readFileSync(rules, "utf8").replace("forbid declare_war when target = Power.genoa", "forbid declare_war when target = Power.green"))],
    );
    expect(runs.map((r) => r.code)).toEqual([1, 0]);
    expect(code).toBe(0);
    expect(runs[0].added.join("\n")).toContain("dow.genoa");
    expect(runs[1].changed).toEqual([path.relative(process.cwd(), rules)]);
    // only what changed: the verdict line and the violation went, the new verdict came
    expect(runs[1].removed.join("\n")).toMatch(/forbidden[\s\S]*dow\.genoa/);
    expect(runs[1].added).toEqual([expect.stringContaining("allowed")]);
  }, 90_000);

  it("test --watch: a scenario file saved with a wrong expectation fails on the next run, and passes again when fixed", async () => {
    const file = path.join(tmp, "cost.yaml");
    const yaml = (cp: number) => `edition: his\nscenarios:\n  - name: "move_formation costs the ottoman ${cp} CP"\n    table: action_cost\n    inputs: { on: move_formation, power: ottoman }\n    expect: { result: { available: true, cp: ${cp} } }\n`;
    fs.writeFileSync(file, yaml(1));
    const { runs } = await watching(
      (signal, onRun) => testCommand([file], { format: "text", watch: true, signal, onRun }),
      [() => fs.writeFileSync(file, yaml(2)), () => fs.writeFileSync(file, yaml(1))],
    );
    expect(runs.map((r) => r.code)).toEqual([0, 1, 0]);
    expect(runs[0].added).toContain("scenarios: 1 passed, 0 failed");
    expect(runs[1].added.join("\n")).toMatch(/FAIL .*cost\.yaml:\d+ move_formation costs the ottoman 2 CP/);
    expect(runs[1].added).toContain("scenarios: 0 passed, 1 failed");
    expect(runs[1].removed).toEqual(["scenarios: 1 passed, 0 failed"]);
    expect(runs[2].added).toEqual(["scenarios: 1 passed, 0 failed"]);
  }, 90_000);
});
