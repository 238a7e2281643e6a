/**
 * `rulewright diff A B`: for every action both editions declare, Z3 proves the verdicts
 * identical on every legal state of the shared vocabulary, or finds states where they differ
 * (compiler/verify/diff/diff.ts). Each state is replayed through the generated validators of BOTH
 * editions (loaded as `check` loads them); only confirmed differences are reported, shrunk by
 * the validators to the facts that matter, and written under proofs/diff/<A>__<B>/ as files that
 * `rulewright check` accepts for both editions.
 *
 * A diff is a report (DESIGN.md: edition diff = info). Exit codes: 0 (differences or not),
 * 1 with `--fail-on-diff` when an action differs or is unknown, 2 usage / bad input / editions
 * without a shared vocabulary, 70 when a state the prover found does not replay (a rulewright bug).
 */
import fs from "node:fs";
import path from "node:path";
import type { IRAction, IREdition } from "../ir/types.js";
import { DEFAULT_DIFF_RLIMIT, DEFAULT_DIFF_STATES, DEFAULT_DIFF_TIMEOUT_MS, DiffInputError, diffEditions, type DiffCandidate, type EditionDiff } from "../verify/diff/diff.js";
import { actionType, nonDefaultFacts, shrink } from "../verify/encode/state-facts.js";
import { parseRlimit } from "./prove.js";
import { compile, parseCount, parseMillis, UsageError, color, type Format } from "./common.js";
import { actionProblems, stateProblems } from "../engine/validate.js";
import { loadValidators, type ValidatorModule } from "../engine/loader.js";
import { resolveEdition, type EditionRef } from "../engine/editions.js";

/** A rule that fires in one edition and not in the other, as reported. */
export interface ReportedRule {
  id: string;
  kind: string;
  citation: string;
  title: string;
  file: string;
  line: number;
  column: number;
}

export interface ReportedDifference {
  aspect: "allowed" | "obliged";
  stateFile: string;
  actionFile: string;
  action: Record<string, unknown>;
  /** `allowed` | `forbidden`, with `, obliged` when an oblige rule of the action fires */
  verdictA: string;
  verdictB: string;
  /** the rules of the aspect that fire in A and not in B (B and not A) */
  rulesA: ReportedRule[];
  rulesB: ReportedRule[];
  /** the state's facts away from the defaults (after shrinking), e.g. `spaces[paris].controller = france` */
  facts: string[];
}

export interface ReportedAction {
  action: string;
  verdict: "identical" | "differs" | "unknown";
  aspects: { allowed: string; obliged: string };
  reason?: string;
  differences: ReportedDifference[];
  /** states the prover found that the validators do not confirm (an encoding bug; never expected) */
  unconfirmed: { aspect: string; problem: string; stateFile: string; actionFile: string }[];
}

export interface DiffReport {
  /** each edition's label, folder and `IREdition.inputHash` (the rulebook report tells by it whether the diff is of the current rules) */
  editions: { a: { name: string; dir: string; inputHash: string }; b: { name: string; dir: string; inputHash: string } };
  outDir: string;
  actions: ReportedAction[];
  notCompared: { action: string; reason: string }[];
  bounds: EditionDiff["bounds"];
}

type Verdict = ReturnType<ValidatorModule["check"]>;

const verdictText = (v: Verdict) => `${v.allowed ? "allowed" : "forbidden"}${v.obliged.length ? ", obliged" : ""}`;

/** The ids of the rules that decide the aspect in a verdict. */
const firing = (v: Verdict, aspect: string): string[] => (aspect === "allowed" ? v.violations.map((x) => x.rule) : [...v.obliged]).sort();

/** Replays one candidate through both editions; problems = why it does not confirm. */
function replay(
  c: { state: unknown; action: unknown },
  sides: { ir: IREdition; mod: ValidatorModule; label: string }[],
): { problems: string[]; verdicts?: Verdict[] } {
  const problems: string[] = [];
  for (const s of sides) {
    for (const p of stateProblems(s.ir, s.mod, c.state)) problems.push(`${s.label}: ${p}`);
    for (const p of actionProblems(s.ir, c.action)) problems.push(`${s.label}: ${p}`);
  }
  if (problems.length) return { problems };
  return { problems, verdicts: sides.map((s) => s.mod.check(c.state, c.action)) };
}

const sameAspect = (v: Verdict, w: Verdict, aspect: string) => (aspect === "allowed" ? v.allowed === w.allowed : (v.obliged.length > 0) === (w.obliged.length > 0));

/**
 * Runs the diff of two edition folders/names and writes the states. Returns the report and the
 * exit code (without --fail-on-diff handling).
 */
export async function runDiff(
  argA: string,
  argB: string,
  opts: { format: Format; rlimit?: number; timeoutMs?: number; maxStates?: number; out?: string },
): Promise<{ report: DiffReport; unconfirmed: number }> {
  const refs = [resolveEdition(argA), resolveEdition(argB)];
  const eds: IREdition[] = [];
  for (const ref of refs) {
    const res = compile(ref, opts.format);
    if (!res.edition) throw new UsageError(`the rules of \`${ref.dir}\` do not compile`, 2);
    eds.push(res.edition);
  }
  const names = refs.map((r) => path.basename(r.dir));
  const label = { a: names[0], b: names[1] === names[0] ? `${names[1]} (B)` : names[1] };
  let diff: EditionDiff;
  try {
    diff = await diffEditions(eds[0], eds[1], { rlimit: opts.rlimit, timeoutMs: opts.timeoutMs, maxStates: opts.maxStates, names: label });
  } catch (e) {
    if (e instanceof DiffInputError) {
      throw new UsageError(
        `\`${refs[0].dir}\` and \`${refs[1].dir}\` cannot be compared: ${e.problems.length} difference(s) in the state vocabulary:\n  ${e.problems.slice(0, 12).join("\n  ")}${e.problems.length > 12 ? `\n  … and ${e.problems.length - 12} more` : ""}`,
        2,
        "diff compares editions that share the state schema, the enums it uses and the board",
      );
    }
    throw e;
  }
  const mods = await Promise.all(refs.map((r: EditionRef, i) => loadValidators(r, eds[i])));
  const sides = [0, 1].map((i) => ({ ir: eds[i], mod: mods[i], label: i === 0 ? label.a : label.b }));
  const outDir = opts.out ?? path.join("proofs", "diff", `${names[0]}__${names[1]}`);
  fs.rmSync(outDir, { recursive: true, force: true });
  let unconfirmed = 0;
  const ruleInfo = (mod: ValidatorModule, id: string): ReportedRule => {
    const r = mod.RULES.find((x) => x.id === id);
    return r ? { id, kind: r.kind, citation: r.citation, title: r.title, file: r.file, line: r.line, column: r.column } : { id, kind: "?", citation: "", title: "", file: "", line: 0, column: 0 };
  };
  const write = (base: string, c: { state: unknown; action: unknown }) => {
    fs.mkdirSync(outDir, { recursive: true });
    const stateFile = path.join(outDir, `${base}.state.json`);
    const actionFile = path.join(outDir, `${base}.action.json`);
    fs.writeFileSync(stateFile, JSON.stringify(c.state, null, 2) + "\n");
    fs.writeFileSync(actionFile, JSON.stringify(c.action, null, 2) + "\n");
    return { stateFile, actionFile };
  };
  const actions: ReportedAction[] = [];
  for (const a of diff.actions) {
    const ra: ReportedAction = { action: a.action, verdict: a.verdict, aspects: a.aspects, differences: [], unconfirmed: [] };
    if (a.reason) ra.reason = a.reason;
    const act = eds[0].actions.find((x) => x.name === a.action)!;
    let n = 0;
    for (const c of a.candidates) {
      n++;
      const r = replay(c, sides);
      const predicted = [c.a, c.b];
      let problem: string | undefined;
      if (!r.verdicts) problem = r.problems.join("; ");
      else {
        const bad = r.verdicts.flatMap((v, i) =>
          v.allowed !== predicted[i].allowed || (v.obliged.length > 0) !== predicted[i].obliged
            ? [`${sides[i].label} says ${verdictText(v)}, the prover predicted ${predicted[i].allowed ? "allowed" : "forbidden"}${predicted[i].obliged ? ", obliged" : ""}`]
            : [],
        );
        if (bad.length) problem = bad.join("; ");
        else if (sameAspect(r.verdicts[0], r.verdicts[1], c.aspect)) problem = `both editions say ${verdictText(r.verdicts[0])}`;
      }
      if (problem) {
        unconfirmed++;
        const files = write(`${a.action}.${n}.unconfirmed`, c);
        ra.unconfirmed.push({ aspect: c.aspect, problem, ...files });
        continue;
      }
      const shrunk = shrinkCandidate(c, act, sides, r.verdicts!);
      const v = sides.map((s) => s.mod.check(shrunk.state, shrunk.action));
      const [fa, fb] = [firing(v[0], c.aspect), firing(v[1], c.aspect)];
      const files = write(`${a.action}.${n}`, shrunk);
      ra.differences.push({
        aspect: c.aspect,
        ...files,
        action: shrunk.action as Record<string, unknown>,
        verdictA: verdictText(v[0]),
        verdictB: verdictText(v[1]),
        rulesA: fa.filter((id) => !fb.includes(id)).map((id) => ruleInfo(mods[0], id)),
        rulesB: fb.filter((id) => !fa.includes(id)).map((id) => ruleInfo(mods[1], id)),
        facts: nonDefaultFacts(eds[0].state, shrunk.state),
      });
    }
    if (!ra.differences.length && ra.verdict === "differs") {
      ra.verdict = "unknown";
      ra.reason = [ra.reason, "no state the prover found replays"].filter(Boolean).join("; ");
    }
    actions.push(ra);
  }
  const report: DiffReport = {
    editions: { a: { name: label.a, dir: refs[0].dir, inputHash: eds[0].inputHash }, b: { name: label.b, dir: refs[1].dir, inputHash: eds[1].inputHash } },
    outDir,
    actions,
    notCompared: diff.notCompared,
    bounds: diff.bounds,
  };
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, "report.json"), JSON.stringify(report, null, 2) + "\n");
  return { report, unconfirmed };
}

/**
 * Shrinks a confirmed state + action toward the defaults, keeping it valid in both editions and
 * keeping both verdicts and the rules that make the difference (each remaining fact matters).
 */
function shrinkCandidate(
  c: DiffCandidate,
  act: IRAction,
  sides: { ir: IREdition; mod: ValidatorModule; label: string }[],
  verdicts: Verdict[],
): { state: unknown; action: unknown } {
  const params = actionType(act);
  const t = { k: "record" as const, fields: [{ name: "state", type: sides[0].ir.state }, { name: "params", type: params }] };
  const signature = (vs: Verdict[]) =>
    JSON.stringify(vs.map((v, i) => [v.allowed, v.obliged.length > 0, firing(v, c.aspect).filter((id) => !firing(vs[1 - i], c.aspect).includes(id))]));
  const want = signature(verdicts);
  const { action: name, ...rest } = c.action;
  const keep = (x: unknown) => {
    const o = x as { state: unknown; params: Record<string, unknown> };
    const cand = { state: o.state, action: { action: name, ...o.params } };
    const r = replay(cand, sides);
    return !!r.verdicts && signature(r.verdicts) === want;
  };
  const out = shrink(t, { state: c.state, params: rest }, keep) as { state: unknown; params: Record<string, unknown> };
  return { state: out.state, action: { action: name, ...out.params } };
}

/** Prints the human report. */
function printReport(r: DiffReport): void {
  const out = (s: string) => process.stdout.write(s + "\n");
  const { a, b } = r.editions;
  out(`${color.bold(`diff ${a.name} → ${b.name}`)}  (A = ${a.dir}, B = ${b.dir})`);
  const w = Math.max(...r.actions.map((x) => x.action.length), 8);
  for (const x of r.actions) {
    const v = x.verdict === "identical" ? color.green("identical") : x.verdict === "differs" ? color.yellow(`differs (${x.differences.length} state${x.differences.length === 1 ? "" : "s"})`) : color.yellow("unknown");
    out(`  ${x.action.padEnd(w)}  ${v}${x.reason ? `  — ${x.reason}` : ""}`);
    x.differences.forEach((d, i) => {
      const params = Object.entries(d.action).filter(([k]) => k !== "action").map(([k, val]) => `${k}=${JSON.stringify(val)}`).join(", ");
      out(`    #${i + 1} ${d.aspect === "allowed" ? "" : "obligation: "}A ${d.verdictA}, B ${d.verdictB}: ${x.action}(${params})`);
      out(`       state: ${d.facts.length ? d.facts.join("; ") : "(all defaults)"}`);
      for (const [side, rules] of [["A", d.rulesA], ["B", d.rulesB]] as const)
        for (const rule of rules) out(`       ${side}: ${color.red("✗")} ${rule.id} (${rule.citation}) ${rule.file}:${rule.line}: ${rule.title}`);
      out(`       files: ${d.stateFile}, ${d.actionFile}`);
      out(`       replay: npx rulewright check --edition ${a.dir} --state ${d.stateFile} --action ${d.actionFile}   (and --edition ${b.dir})`);
    });
    for (const u of x.unconfirmed) {
      process.stderr.write(
        `${color.red("error")}: the prover's ${x.action} state ${u.stateFile} does not replay (${u.problem}); this is a rulewright bug in the diff encoding\n`,
      );
    }
  }
  for (const n of r.notCompared) out(`  ${n.action.padEnd(w)}  not compared: ${n.reason}`);
  out(`  report: ${path.join(r.outDir, "report.json")}`);
}

/** The most states `--max-states` may ask for per action, aspect and direction. */
const MAX_DIFF_STATES = 1000;

export async function diffCommand(
  editions: string[],
  opts: { format: Format; rlimit?: string; timeout?: string; maxStates?: string; out?: string; failOnDiff?: boolean },
): Promise<number> {
  if (editions.length !== 2) throw new UsageError(`diff takes two editions, got ${editions.length}`, 2, "usage: rulewright diff his his-500 [--format json] [--fail-on-diff]");
  const timeoutMs = opts.timeout !== undefined ? parseMillis(opts.timeout, "--timeout") : DEFAULT_DIFF_TIMEOUT_MS;
  const rlimit = opts.rlimit !== undefined ? parseRlimit(opts.rlimit) : DEFAULT_DIFF_RLIMIT;
  const maxStates = opts.maxStates !== undefined ? parseCount(opts.maxStates, "--max-states", MAX_DIFF_STATES) : DEFAULT_DIFF_STATES;
  const { report, unconfirmed } = await runDiff(editions[0], editions[1], { format: opts.format, rlimit, timeoutMs, maxStates, out: opts.out });
  if (opts.format === "json") process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  else printReport(report);
  if (unconfirmed) {
    process.stderr.write(`${color.red("error")}: ${unconfirmed} state(s) found by the prover do not replay through the validators: a rulewright bug (please report it)\n`);
    return 70;
  }
  if (opts.failOnDiff && report.actions.some((x) => x.verdict !== "identical")) return 1;
  return 0;
}
