/**
 * `rulewright test [paths…]`: runs scenario files (default test/scenarios) against the generated
 * validators. Each scenario's state is validated against the schema and invariants first (a
 * bad state fails the scenario, it is never checked). Exit 1 when any scenario fails, 2 when no
 * scenario was found or a file is malformed.
 */
import fs from "node:fs";
import path from "node:path";
import { findScenarioFiles, judge, judgeTable, readScenarioFile, unknownRuleIds, type Scenario, type TableScenario } from "../scenarios/index.js";
import { compile, UsageError, color, type Format } from "./common.js";
import { actionProblems, stateProblems, tableInputProblems, withStateDefaults } from "../engine/validate.js";
import { DSL_DIR, resolveEdition } from "../engine/editions.js";
import { loadValidators, type ValidatorModule } from "../engine/loader.js";
import type { IREdition } from "../ir/types.js";
import { terminalSafe } from "../diagnostics/terminal.js";

export interface TestSummary {
  passed: number;
  failed: number;
  /** `notRun`: the scenario's edition does not compile (its diagnostics are printed once, by `compile`), so it was not run; it counts as failed */
  results: { file: string; line: number; name: string; edition: string; pass: boolean; detail: string; notRun?: true }[];
  problems: { file: string; line: number; message: string }[];
}

export async function runScenarios(paths: string[], format: Format, opts: { generateWhenStale?: boolean } = {}): Promise<TestSummary> {
  const roots = paths.length ? paths : ["test/scenarios"];
  for (const p of roots) if (!fs.existsSync(p)) throw new UsageError(`no such file or folder \`${p}\``, 2);
  const files = findScenarioFiles(roots);
  const summary: TestSummary = { passed: 0, failed: 0, results: [], problems: [] };
  const editions = new Map<string, { edition: IREdition; mod: ValidatorModule } | null>();
  // why an edition could not be loaded (unknown name, stale generated code), by name
  const loadErrors = new Map<string, string>();
  for (const file of files) {
    try {
      await runFile(file);
    } catch (e) {
      // one bad file is a problem of that file; the other files still run
      summary.problems.push({ file, line: 1, message: e instanceof UsageError ? e.message : `cannot run the file: ${String((e as Error)?.message ?? e).split("\n")[0]}` });
    }
  }
  return summary;

  async function runFile(file: string): Promise<void> {
    const { scenarios, tableScenarios, problems } = readScenarioFile(file, (e) => path.join("test", "fixtures", path.basename(e)));
    summary.problems.push(...problems);
    const load = async (name: string) => {
      let loaded = editions.get(name);
      if (loaded === undefined) {
        if (loadErrors.has(name)) throw new UsageError(loadErrors.get(name)!, 2);
        try {
          const ref = resolveEdition(name);
          const res = compile(ref, format);
          loaded = res.edition ? { edition: res.edition, mod: await loadValidators(ref, res.edition, opts) } : null;
        } catch (e) {
          // the loader's help (`run \`npx rulewright build …\``) goes with the message, as `check` prints it
          const msg = e instanceof UsageError ? `edition \`${name}\`: ${e.message}${e.help ? `; ${e.help}` : ""}` : `edition \`${name}\` could not be loaded: ${String((e as Error)?.message ?? e).split("\n")[0]}`;
          loadErrors.set(name, msg);
          throw new UsageError(msg, 2);
        }
        editions.set(name, loaded);
      }
      return loaded;
    };
    // an edition given as a path (`..`, `./x`, absolute) is relative to the scenario file (a variant's scenarios, issue 28)
    const editionOf = (e: string) => (e === "." || e === ".." || e.startsWith("./") || e.startsWith("../") || path.isAbsolute(e) ? path.resolve(path.dirname(file), e) : e);
    for (const s of scenarios) s.edition = editionOf(s.edition);
    for (const s of tableScenarios) s.edition = editionOf(s.edition);
    for (const s of scenarios) {
      const loaded = await load(s.edition);
      if (loaded) {
        const known = new Set(loaded.edition.rules.map((r) => r.id));
        const ids = s.expect === "allowed" ? [] : "forbidden" in s.expect ? s.expect.forbidden : s.expect.obliged;
        const unknown = ids.filter((id) => !known.has(id));
        if (unknown.length) {
          summary.problems.push({ file: s.file, line: s.line, message: `${s.name}: ${unknownRuleIds(unknown, known)}` });
          continue;
        }
      }
      const r = loaded ? runOne(s, loaded.edition, loaded.mod) : { pass: false, detail: `edition \`${s.edition}\` does not compile`, notRun: true as const };
      summary.results.push({ file: s.file, line: s.line, name: s.name, edition: s.edition, ...r });
      if (r.pass) summary.passed++;
      else summary.failed++;
    }
    for (const s of tableScenarios) {
      const loaded = await load(s.edition);
      if (loaded && !(loaded.edition.tables ?? []).some((t) => t.name === s.table)) {
        summary.problems.push({ file: s.file, line: s.line, message: `${s.name}: ${tableInputProblems(loaded.edition, s.table, s.inputs)[0]}` });
        continue;
      }
      const r = loaded ? runTable(s, loaded.edition, loaded.mod) : { pass: false, detail: `edition \`${s.edition}\` does not compile`, notRun: true as const };
      summary.results.push({ file: s.file, line: s.line, name: s.name, edition: s.edition, ...r });
      if (r.pass) summary.passed++;
      else summary.failed++;
    }
  }
}

/** A table scenario: the inputs are checked against the table's parameters, then looked up. */
export function runTable(s: TableScenario, edition: IREdition, mod: ValidatorModule): { pass: boolean; detail: string } {
  const bad = tableInputProblems(edition, s.table, s.inputs);
  if (bad.length) return { pass: false, detail: `bad input: ${bad.slice(0, 3).join("; ")}` };
  try {
    return judgeTable(s.expect, mod.lookup(s.table, s.inputs));
  } catch (e) {
    return { pass: false, detail: `no value: ${(e as Error).message}` };
  }
}

function runOne(s: Scenario, edition: IREdition, mod: ValidatorModule): { pass: boolean; detail: string } {
  // fields the state lacks take their schema defaults (a variant's new fields, issue 28)
  const state = withStateDefaults(edition, s.state);
  const bad = [...stateProblems(edition, mod, state), ...actionProblems(edition, s.action)];
  if (bad.length) return { pass: false, detail: `bad input: ${bad.slice(0, 3).join("; ")}` };
  return judge(s.expect, mod.check(state, s.action));
}

export interface TestOptions {
  format: Format;
  verbose?: boolean;
  /** re-run on every save of a scenario file under `paths` or of a rule, schema or board file under dsl/ (compiler/cli/watch.ts) */
  watch?: boolean;
  /** --watch: ends the watch (tests); the CLI ends it on Ctrl-C */
  signal?: AbortSignal;
  onRun?: (r: import("./watch.js").WatchRun) => void;
}

export async function testCommand(paths: string[], opts: TestOptions): Promise<number> {
  if (opts.watch) {
    const roots = paths.length ? paths : ["test/scenarios"];
    for (const p of roots) if (!fs.existsSync(p)) throw new UsageError(`no such file or folder \`${p}\``, 2);
    const { watch } = await import("./watch.js");
    // -v in a watch: the passing scenarios are listed too, so a scenario that starts to pass shows as a change
    return watch({ label: "test", paths: [...roots, DSL_DIR], format: opts.format, signal: opts.signal, onRun: opts.onRun, run: () => testOnce(paths, opts, true) });
  }
  return testOnce(paths, opts, false);
}

async function testOnce(paths: string[], opts: TestOptions, watching: boolean): Promise<number> {
  const summary = await runScenarios(paths, opts.format, { generateWhenStale: watching });
  if (opts.format === "json") {
    process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
  } else {
    for (const p of summary.problems) process.stderr.write(`${terminalSafe(p.file)}:${p.line}: ${color.red("error")}: ${terminalSafe(p.message)}\n`);
    // an edition that does not compile: its diagnostics were printed once, and one line stands for all its scenarios (not one FAIL each)
    const notRun = new Map<string, { n: number; files: Set<string> }>();
    for (const r of summary.results) {
      if (!r.notRun) continue;
      const e = notRun.get(r.edition) ?? { n: 0, files: new Set<string>() };
      e.n++;
      e.files.add(r.file);
      notRun.set(r.edition, e);
    }
    for (const [edition, e] of notRun) {
      const files = [...e.files];
      process.stdout.write(`${color.red("FAIL")} edition \`${terminalSafe(edition)}\` does not compile: ${e.n} scenario${e.n === 1 ? "" : "s"} not run (${files.slice(0, 3).map(terminalSafe).join(", ")}${files.length > 3 ? `, and ${files.length - 3} more files` : ""})\n`);
    }
    for (const r of summary.results) {
      if (r.notRun) continue;
      if (!r.pass) process.stdout.write(`${color.red("FAIL")} ${terminalSafe(r.file)}:${r.line} ${terminalSafe(r.name)}\n     ${terminalSafe(r.detail)}\n`);
      else if (opts.verbose) process.stdout.write(`${color.green("pass")} ${terminalSafe(r.file)}:${r.line} ${terminalSafe(r.name)}\n`);
    }
    process.stdout.write(`scenarios: ${summary.passed} passed, ${summary.failed} failed\n`);
  }
  if (summary.problems.length) return 2;
  if (summary.passed + summary.failed === 0) {
    process.stderr.write("no scenarios found\n");
    return 2;
  }
  return summary.failed ? 1 : 0;
}
