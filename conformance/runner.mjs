#!/usr/bin/env node
// The reference conformance runner: plain JavaScript, Node's standard library only, no rulewright
// import. Copy it and adapt `startEngine` to drive your own engine.
//
//   node conformance/runner.mjs conformance/his --module ./my-engine.mjs
//   node conformance/runner.mjs conformance/his --command "python3 my_engine.py"
//   add --verdict-only to compare only allowed/forbidden (rule ids optional: an engine that names
//   its rules differently, or not at all, is judged on its verdicts alone);
//   add --json for a JSON report on stdout; exit 0 when every case agrees, 1 otherwise, 2 bad usage
//
// A corpus folder holds manifest.json ({ edition, version, format, cases, bases }), cases.json
// (an array of cases) and the base states its cases start from. A case is
//   { id, name, source, origin, citation?, base, patch, action, expect: { allowed, violations, obliged }, rules }
// and its state is the JSON of `base` deep-merged with `patch` (objects merge key by key; arrays,
// scalars and null replace). `violations` and `obliged` are sorted rule ids.
//
// An engine is either
//   --module <file>: an ES module exporting check(state, action) (or a default export with it)
//     that returns { allowed, violations, obliged? }, violations as rule ids or as { rule } objects;
//   --command <cmd>: a process reading one JSON line per case on stdin,
//     {"id": …, "state": …, "action": …}, and writing one JSON line per case on stdout in the same
//     order, {"allowed": …, "violations": [rule ids], "obliged": [rule ids]} (obliged optional).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { pathToFileURL } from "node:url";

/** Objects merge key by key; arrays, scalars and null replace. */
export function deepMerge(base, patch) {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  if (base === null || typeof base !== "object" || Array.isArray(base)) base = {};
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = deepMerge(base[k], v);
  return out;
}

/** The manifest and the cases of a corpus folder, each case with its `state`. */
export function loadCorpus(dir) {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
  const cases = JSON.parse(fs.readFileSync(path.join(dir, "cases.json"), "utf8"));
  const bases = new Map();
  for (const c of cases) {
    if (!bases.has(c.base)) bases.set(c.base, JSON.parse(fs.readFileSync(path.join(dir, c.base), "utf8")));
    c.state = deepMerge(bases.get(c.base), c.patch);
  }
  return { manifest, cases };
}

/** The shape of an engine's answer, said once when some answers do not have it. */
export const ANSWER_SHAPE = '{"allowed": true|false, "violations": [rule ids], "obliged": [rule ids]} (violations optional with --verdict-only, obliged always optional; a module\'s check(state, action) returns it, a command writes it as one JSON line per case)';

/** The first problem of an answer that is not a verdict starts with this. */
const NOT_A_VERDICT = "not a verdict: ";

const ids = (xs) => [...new Set((xs ?? []).map((x) => (typeof x === "string" ? x : x.rule)))].sort();

/** What an engine answered, normalized: { allowed, violations?, obliged? } or { error }. */
function normalize(answer) {
  if (!answer || typeof answer !== "object" || typeof answer.allowed !== "boolean") return { error: `${NOT_A_VERDICT}${JSON.stringify(answer)?.slice(0, 200)}` };
  const out = { allowed: answer.allowed };
  if (answer.violations !== undefined) out.violations = ids(answer.violations);
  if (answer.obliged !== undefined) out.obliged = ids(answer.obliged);
  return out;
}

/**
 * The disagreements of one answer with one case's expectation (empty when they agree). With
 * `verdictOnly`, only `allowed` is compared; otherwise the violated rule ids too (an answer
 * without `violations` then disagrees), and `obliged` when the answer has it.
 */
export function compare(c, answer, verdictOnly = false) {
  const a = normalize(answer);
  if (a.error) return [a.error];
  const d = [];
  if (a.allowed !== c.expect.allowed) d.push(`allowed: expected ${c.expect.allowed}, engine ${a.allowed}`);
  if (verdictOnly) return d;
  const v = a.violations ?? [];
  if (v.join(",") !== c.expect.violations.join(",")) d.push(`violations: expected [${c.expect.violations.join(", ")}], engine [${v.join(", ")}]`);
  if (a.obliged && a.obliged.join(",") !== c.expect.obliged.join(",")) d.push(`obliged: expected [${c.expect.obliged.join(", ")}], engine [${a.obliged.join(", ")}]`);
  return d;
}

/** An engine as an async function (state, action, id) → answer, and a close function. */
export async function startEngine(opts) {
  if (opts.module) {
    const mod = await import(pathToFileURL(path.resolve(opts.module)).href);
    const check = mod.check ?? mod.default?.check ?? mod.default;
    if (typeof check !== "function") throw new Error(`${opts.module} exports no check(state, action)`);
    return { ask: async (state, action) => check(state, action), close: async () => {} };
  }
  const child = spawn(opts.command, { shell: true, stdio: ["pipe", "pipe", "inherit"] });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let exited = false;
  child.on("exit", () => (exited = true));
  return {
    ask: async (state, action, id) => {
      if (exited) throw new Error("the engine command exited");
      child.stdin.write(JSON.stringify({ id, state, action }) + "\n");
      const next = await lines.next();
      if (next.done) throw new Error("the engine command closed its output");
      return JSON.parse(next.value);
    },
    close: async () => {
      child.stdin.end();
      if (!exited) await new Promise((r) => child.once("exit", r));
    },
  };
}

/**
 * Runs every case of a corpus folder through an engine: { edition, version, verdictOnly, total,
 * agreed, verdictsAgreed, notVerdicts, disagreements }. `verdictsAgreed` counts the cases whose
 * allowed/forbidden answer agrees, whatever the mode; `notVerdicts` the answers without a boolean
 * `allowed` (their disagreement's problem starts "not a verdict: "). opts.verdictOnly: compare
 * allowed/forbidden only.
 */
export async function runCorpus(dir, engineOpts, opts = {}) {
  const verdictOnly = !!opts.verdictOnly;
  const { manifest, cases } = loadCorpus(dir);
  const engine = await startEngine(engineOpts);
  const disagreements = [];
  let verdictsAgreed = 0;
  try {
    for (const c of cases) {
      let d;
      try {
        const answer = await engine.ask(c.state, c.action, c.id);
        d = compare(c, answer, verdictOnly);
        if (!compare(c, answer, true).length) verdictsAgreed++;
      } catch (e) {
        d = [`the engine failed: ${String(e?.message ?? e).split("\n")[0]}`];
      }
      if (d.length) disagreements.push({ id: c.id, name: c.name, source: c.source, origin: c.origin, citation: c.citation, action: c.action, expect: c.expect, rules: c.rules, problems: d });
    }
  } finally {
    await engine.close();
  }
  const notVerdicts = disagreements.filter((d) => d.problems[0].startsWith(NOT_A_VERDICT)).length;
  return { edition: manifest.edition, version: manifest.version, verdictOnly, total: cases.length, agreed: cases.length - disagreements.length, verdictsAgreed, notVerdicts, disagreements };
}

/**
 * The disagreements worth printing one by one: all but the answers that are not verdicts past the
 * first `keep` of them (an engine answering in another shape would print one line per case), and
 * a note saying how many were left out and what an answer looks like (none when nothing was).
 */
export function printable(r, keep = 3) {
  let seen = 0;
  const shown = r.disagreements.filter((d) => !d.problems[0].startsWith(NOT_A_VERDICT) || ++seen <= keep);
  const left = r.notVerdicts - Math.min(r.notVerdicts, keep);
  const note = r.notVerdicts ? `${r.notVerdicts} answer${r.notVerdicts === 1 ? " was" : "s were"} not a verdict${left ? ` (${left} not listed)` : ""}: an answer is ${ANSWER_SHAPE}` : "";
  return { shown, note };
}

async function cli(argv) {
  const dir = argv[0];
  const opt = (name) => {
    const i = argv.indexOf(name);
    return i > 0 ? argv[i + 1] : undefined;
  };
  const engine = { module: opt("--module"), command: opt("--command") };
  if (!dir || !fs.existsSync(path.join(dir, "manifest.json")) || !!engine.module === !!engine.command) {
    process.stderr.write("usage: node runner.mjs <corpus folder> (--module <file> | --command <cmd>) [--verdict-only] [--json]\n");
    return 2;
  }
  const r = await runCorpus(dir, engine, { verdictOnly: argv.includes("--verdict-only") });
  if (argv.includes("--json")) process.stdout.write(JSON.stringify(r, null, 2) + "\n");
  else {
    const { shown, note } = printable(r);
    for (const d of shown) process.stdout.write(`✗ ${d.id} ${d.name} (${d.source}${d.citation ? `, ${d.citation}` : ""})\n${d.problems.map((p) => `    ${p}\n`).join("")}`);
    if (note) process.stdout.write(`${note}\n`);
    process.stdout.write(`${r.edition} corpus ${r.version}: ${r.agreed}/${r.total} cases agree${r.verdictOnly ? " (verdicts only)" : `; verdicts alone: ${r.verdictsAgreed}/${r.total}`}\n`);
  }
  return r.disagreements.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  cli(process.argv.slice(2)).then((code) => process.exit(code), (e) => {
    process.stderr.write(`error: ${e?.message ?? e}\n`);
    process.exit(2);
  });
}
