/**
 * `--watch` on `check`, `test`, `build` and `prove` (compiler/cli/watch.ts, chokidar): a run at
 * start, another after each save, printing only what changed. The commands run in process with an
 * AbortSignal ending the watch; each test waits for the runs it expects (bounded by a timeout).
 */
import { afterAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildCommand } from "../../compiler/cli/build.js";
import { checkCommand } from "../../compiler/cli/check.js";
import { proveCommand, verdictChanges } from "../../compiler/cli/prove.js";
import { testCommand } from "../../compiler/cli/test.js";
import { affects, lineChanges, type WatchRun } from "../../compiler/cli/watch.js";
import type { ProofReport } from "../../compiler/verify/index.js";

const tmp = fs.mkdtempSync(path.join(process.cwd(), ".tmp-watch-"));
// eslint-disable-next-line no-control-regex
const plain = (lines: string[]) => lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ""));
/** A copy of the mini fixture edition under the temporary folder, and its rule file with dow.genoa. */
function miniCopy(name: string): { dir: string; rules: string } {
  const dir = path.join(tmp, name);
  fs.cpSync("test/fixtures/frontend/mini", dir, { recursive: true });
  return { dir: path.relative(process.cwd(), dir), rules: path.join(dir, "war.rules") };
}
const edit = (file: string, from: string, to: string) => () => {
  const text = fs.readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} has no \`${from}\``);
  fs.writeFileSync(file, text.replace(from, to));
};
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
    // colours are on where CI is set (picocolors): compare the text without them
    const [added, removed] = [runs.map((r) => plain(r.added)), runs.map((r) => plain(r.removed))];
    expect(added[0]).toContain("scenarios: 1 passed, 0 failed");
    expect(added[1].join("\n")).toMatch(/FAIL .*cost\.yaml:\d+ move_formation costs the ottoman 2 CP/);
    expect(added[1]).toContain("scenarios: 0 passed, 1 failed");
    expect(removed[1]).toEqual(["scenarios: 1 passed, 0 failed"]);
    expect(added[2]).toEqual(["scenarios: 1 passed, 0 failed"]);
  }, 90_000);

  it("test --watch: a compile error of the edition is printed once, not once per scenario (and one FAIL line stands for them)", async () => {
    const { dir, rules } = miniCopy("mini-test-watch");
    const spaces = Object.fromEntries(["red_home", "blue_home", "genoa", "pass_town", "sea_a"].map((s) => [s, { controller: "genoa", unrest: false }]));
    const state = { phase: "movement", segment: "peace", turn: 1, wars: [], hands: { red: ["march"], blue: [] }, spaces };
    const file = path.join(tmp, "mini-scenarios.yaml");
    const scenario = (i: number) => `  - name: "war on genoa ${i}"\n    state: ${JSON.stringify(state)}\n    action: { action: declare_war, by: red, target: genoa }\n    expect: { forbidden: [dow.genoa] }\n`;
    fs.writeFileSync(file, `edition: ${dir}\nscenarios:\n${[1, 2, 3, 4, 5, 6].map(scenario).join("")}`);
    const { runs } = await watching(
      (signal, onRun) => testCommand([file], { format: "text", watch: true, signal, onRun }),
      // test --watch watches the scenario files and dsl/: the edition here is a copy elsewhere, so the scenario file is saved again after each rule edit
      [edit(rules, "target = Power.genoa", "target = Power.gen"), edit(rules, "target = Power.gen", "target = Power.genoa")].map((step) => () => {
        step();
        fs.writeFileSync(file, fs.readFileSync(file, "utf8"));
      }),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 1, 0]);
    const added = runs.map((r) => plain(r.added));
    expect(added[0]).toContain("scenarios: 6 passed, 0 failed");
    const broken = added[1].join("\n");
    // the diagnostic once (one `error[RW…]` head), one FAIL line for the six scenarios
    expect(broken.match(/error\[RW\d+\]/g)).toHaveLength(1);
    expect(broken).toContain("Power.gen");
    expect(added[1].filter((l) => l.startsWith("FAIL"))).toEqual([`FAIL edition \`${dir}\` does not compile: 6 scenarios not run (${file})`]);
    expect(added[1]).toContain("scenarios: 0 passed, 6 failed");
    expect(added[1].length).toBeLessThan(25);
    expect(added[2]).toEqual(["scenarios: 6 passed, 0 failed"]);
  }, 90_000);

  it("affects: a save counts for an edition when it is in its folder, one of its inputs, or beside one", () => {
    const inputs = [{ file: "dsl/his/war.rules" }, { file: "dsl/modules/pass/pass.rules" }];
    expect(affects(["dsl/his-500/x.rules"], "dsl/his-500", inputs)).toBe(true);
    expect(affects(["dsl/modules/pass/pass.rules"], "dsl/his-500", inputs)).toBe(true);
    expect(affects(["dsl/his/new.rules"], "dsl/his-500", inputs)).toBe(true);
    expect(affects(["dsl/vq/actions.rules", "dsl/modules/other/o.rules"], "dsl/his-500", inputs)).toBe(false);
    expect(affects(["dsl/vq/actions.rules"], "dsl/his-500", undefined)).toBe(true);
  });

  it("verdictChanges: the obligations whose verdict or severity changed, new and gone ones, in id order", () => {
    const ob = (id: string, verdict: string, severity = "warning") => ({ id, kind: "dead_rule", severity, verdict });
    const report = (...obs: ReturnType<typeof ob>[]) => ({ obligations: obs }) as unknown as ProofReport;
    const a = report(ob("e.b", "proved"), ob("e.a", "proved"), ob("e.gone", "proved"), ob("e.sev", "refuted"));
    const b = report(ob("e.a", "proved"), ob("e.b", "refuted"), ob("e.new", "unknown"), ob("e.sev", "refuted", "error"));
    expect(verdictChanges(a, b)).toEqual([
      { id: "e.b", kind: "dead_rule", severity: "warning", before: "proved", after: "refuted" },
      { id: "e.gone", kind: "dead_rule", severity: "warning", before: "proved" },
      { id: "e.new", kind: "dead_rule", severity: "warning", after: "unknown" },
      { id: "e.sev", kind: "dead_rule", severity: "error", before: "refuted", after: "refuted" },
    ]);
    expect(verdictChanges(undefined, a).map((c) => c.id)).toEqual(["e.a", "e.b", "e.gone", "e.sev"]);
  });

  it("build --watch: a rule edit rewrites the generated code; a compile error keeps the watch and the files; a comment is no change of code", async () => {
    const { dir, rules } = miniCopy("build-mini");
    const out = path.join(tmp, "build-out");
    const validators = path.join(out, "validators.ts");
    let generated = "";
    const { runs, code } = await watching(
      (signal, onRun) => buildCommand([dir], { format: "text", out, watch: true, signal, onRun }),
      [
        edit(rules, "forbid declare_war when target = Power.genoa", "forbid declare_war when target = Power.green"),
        () => {
          generated = fs.readFileSync(validators, "utf8");
          edit(rules, "Power.green", "Power.gren")();
        },
        edit(rules, "Power.gren", "Power.green"),
        edit(path.join(path.dirname(rules), "edition.rules"), "// A tiny", "// A very tiny"),
      ],
    );
    const text = runs.map((r) => plain(r.lines).join("\n"));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 2, 0, 0]);
    expect(code).toBe(0);
    expect(text[0]).toMatch(/^build-mini: 9 generated file\(s\) changed/);
    // the edited condition is in the checker of declare_war: validators.ts alone changes its code
    expect(runs[1].changed).toEqual([path.relative(process.cwd(), rules)]);
    expect(text[1]).toMatch(/^build-mini: 1 generated file\(s\) changed, 8 file\(s\) with only a new inputs hash/);
    expect(plain(runs[1].lines).filter((l) => l.startsWith("  changed: "))).toEqual([`  changed: ${validators}`]);
    expect(generated).toContain('(v_target as string) !== "green"');
    expect(generated).not.toContain('(v_target as string) !== "genoa"');
    // the error: its diagnostic (file:line:column, the hint), the files as they were, the watch goes on
    expect(text[2]).toMatch(/war\.rules:\d+:\d+: error\[RW\d+\]: `gren` is not a member of `Power`/);
    expect(text[2]).toContain("did you mean `green`?");
    expect(text[2]).toContain("build-mini: 1 compile error(s); generated files left as they were");
    // fixed: the rule files are again those of run 2, and so are the files, byte for byte
    expect(text[3]).toMatch(/^build-mini: unchanged \(9 files, \d+ ms\)$/);
    expect(fs.readFileSync(validators, "utf8").replace(/inputs sha256: \w+/, "")).toBe(generated.replace(/inputs sha256: \w+/, ""));
    // a comment: the same code, only the inputs hash in each file's header is new
    expect(text[4]).toMatch(/^build-mini: unchanged \(9 files; 9 file\(s\) with only a new inputs hash/);
  }, 60_000);

  it("prove --watch: a save re-solves only the obligations of the edited rule and prints only the verdicts that changed", async () => {
    const { dir, rules } = miniCopy("prove-mini");
    const opts = { format: "text" as const, out: path.join(tmp, "prove-out"), cacheDir: path.join(tmp, "prove-cache"), workers: "1", watch: true };
    const { runs, code } = await watching(
      (signal, onRun) => proveCommand([dir], { ...opts, signal, onRun }),
      // dow.genoa can no longer fire: its dead_rule obligation is refuted
      [edit(rules, "forbid declare_war when target = Power.genoa", "forbid declare_war when target = Power.genoa and target = Power.red"), edit(rules, "Power.genoa and target = Power.red", "Power.genoa")],
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(code).toBe(0);
    const [first, second, third] = runs.map((r) => plain(r.lines));
    expect(first[0]).toMatch(/^prove-mini \(.*prove-mini\): 19 obligations — 18 proved, 1 refuted, 0 unknown .*19 solved, 0 from the proof cache/);
    // the 5 obligations dow.genoa takes part in are solved again, the other 14 come from the cache
    expect(second[0]).toMatch(/^prove-mini: re-solved 5 of 19 obligations, 14 from the proof cache \(/);
    const verdictLines = (lines: string[]) => lines.filter((l) => /^ {2}(\S+ → \S+|new \S+|gone) /.test(l));
    expect(verdictLines(second)).toEqual(["  proved → refuted warning dead_rule mini.dead_rule.dow.genoa"]);
    expect(second.join("\n")).toContain("`dow.genoa` can never fire");
    expect(third[0]).toMatch(/^prove-mini: re-solved 5 of 19 obligations, 14 from the proof cache \(/);
    expect(verdictLines(third)).toEqual(["  refuted → proved warning dead_rule mini.dead_rule.dow.genoa"]);
  }, 60_000);
});
