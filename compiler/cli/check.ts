/**
 * `rulewright check --edition E --state S.json --action A.json`: the verdict of one action in
 * one state, with every violated rule (id, citation, title, rule file position).
 * Exit 0 allowed, 1 forbidden, 2 bad input (missing/invalid file, state not matching the schema
 * or breaking an invariant, unknown action or parameter, compile error).
 * `--watch` (compiler/cli/watch.ts): the same check again on every save of the state or action
 * file or of a rule, schema or board file under the edition folder or dsl/; a stale generated/
 * is then replaced by validators generated for the run. Resolves when the watch ends (Ctrl-C).
 */
import { compile, readJson, UsageError, color, type Format } from "./common.js";
import { actionProblems, stateProblems, withStateDefaults } from "../engine/validate.js";
import { DSL_DIR, resolveEdition } from "../engine/editions.js";
import { loadValidators } from "../engine/loader.js";
import { terminalSafe } from "../diagnostics/terminal.js";

export interface CheckOptions {
  edition?: string;
  state?: string;
  action?: string;
  format: Format;
  watch?: boolean;
  /** --watch: ends the watch (tests); the CLI ends it on Ctrl-C */
  signal?: AbortSignal;
  onRun?: (r: import("./watch.js").WatchRun) => void;
}

export async function checkCommand(opts: CheckOptions): Promise<number> {
  const missing = (["edition", "state", "action"] as const).filter((k) => !opts[k]);
  if (missing.length) {
    throw new UsageError(`check needs ${missing.map((m) => `--${m}`).join(", ")}`, 2, "usage: rulewright check --edition his --state state.json --action action.json");
  }
  if (opts.watch) {
    const ref = resolveEdition(opts.edition!);
    const { watch } = await import("./watch.js");
    return watch({ label: "check", paths: [ref.dir, DSL_DIR, opts.state!, opts.action!], format: opts.format, signal: opts.signal, onRun: opts.onRun, run: () => checkOnce(opts, true) });
  }
  return checkOnce(opts, false);
}

async function checkOnce(opts: CheckOptions, watching: boolean): Promise<number> {
  const ref = resolveEdition(opts.edition!);
  const given = readJson(opts.state!, "state");
  const action = readJson(opts.action!, "action");
  const res = compile(ref, opts.format);
  if (!res.edition) throw new UsageError(`the rules of \`${ref.dir}\` do not compile`, 2);
  const edition = res.edition;
  const mod = await loadValidators(ref, edition, { generateWhenStale: watching });
  // fields the state lacks take their schema defaults (a variant's new fields, issue 28)
  const state = withStateDefaults(edition, given);
  // the action is checked by the validators' own validateAction (the one an engine calls)
  const aProblems = actionProblems(edition, action, mod);
  const schemaProblems = stateProblems(edition, undefined, state);
  if (aProblems.length || schemaProblems.length) return badInput(opts.format, [...schemaProblems.map((p) => `${opts.state}: ${p}`), ...aProblems.map((p) => `${opts.action}: ${p}`)]);
  const inv = stateProblems(edition, mod, state);
  if (inv.length) return badInput(opts.format, inv.map((p) => `${opts.state}: ${p}`));
  const verdict = mod.check(state, action);
  if (opts.format === "json") {
    process.stdout.write(JSON.stringify({ edition: edition.name, action, allowed: verdict.allowed, violations: verdict.violations, obliged: verdict.obliged }, null, 2) + "\n");
  } else {
    const a = action as Record<string, unknown>;
    const args = Object.entries(a).filter(([k]) => k !== "action").map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ");
    process.stdout.write(`${a.action}(${args}): ${verdict.allowed ? color.green("allowed") : color.red("forbidden")}\n`);
    for (const v of verdict.violations) {
      process.stdout.write(`  ${color.red("✗")} ${v.rule} (${v.citation})${v.kind === "obligation" ? " [another action is obliged]" : ""}: ${terminalSafe(v.title)}\n      at ${terminalSafe(v.file)}:${v.line}:${v.column}\n`);
    }
    for (const o of verdict.obliged) process.stdout.write(`  ${color.cyan("!")} obliged by ${o}: this is the only legal move\n`);
  }
  return verdict.allowed ? 0 : 1;
}

function badInput(format: Format, problems: string[]): number {
  if (format === "json") process.stdout.write(JSON.stringify({ error: "bad input", problems }, null, 2) + "\n");
  else for (const p of problems) process.stderr.write(`${color.red("error")}: ${p}\n`);
  return 2;
}
