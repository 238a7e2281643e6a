/**
 * `npm run bench:legal-moves`: the time of `legalMovesTrusted(state, state.active_power)` of the
 * generated Here I Stand validators per state (issues 17, 26), on the benchmark's seeded states
 * (bench/states.ts: 256 states weighted toward each of the three action kinds' phases), median and
 * p99 per state, with the number of moves listed; the same for the checked `legalMoves` (the state
 * checked against the schema first); and, for scale, the time of one `checkTrusted` and one checked
 * `check` per listed move. Prints one Markdown row and writes bench/results/legal-moves.json (or
 * `--out <dir>`).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { check, checkTrusted, legalMoves, legalMovesTrusted, type Action, type State } from "../generated/his/index.js";
import { makeState, type ActionKind } from "./states.js";
import { measure } from "./timing.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const KINDS: ActionKind[] = ["declare_war", "pass", "spring_deploy"];
const states: State[] = [];
for (let i = 0; i < 256; i++) states.push(makeState(20240611 + i, KINDS[i % 3]!));

let moves = 0;
for (const s of states) moves += legalMovesTrusted(s, s.active_power).length;
const timing = await measure("legalMovesTrusted", states, (s) => ({ allowed: legalMovesTrusted(s, s.active_power).length > 0 }), false, { batch: 4, timeMs: 1500, warmupMs: 300, allocChecks: 200 });
const checked = await measure("legalMoves", states, (s) => ({ allowed: !("errors" in legalMoves(s, s.active_power)) }), false, { batch: 4, timeMs: 1500, warmupMs: 300, allocChecks: 200 });
// for scale: a check of every move legalMoves lists (the verdicts a caller would otherwise ask for)
const listed: [State, Action][] = states.flatMap((s) => legalMovesTrusted(s, s.active_power).map((m): [State, Action] => [s, m]));
const perCheck = await measure("checkTrusted", listed, ([s, a]) => checkTrusted(s, a), false, { batch: 64, timeMs: 1000, warmupMs: 200, allocChecks: 200 });
const perChecked = await measure("check", listed, ([s, a]) => ({ allowed: check(s, a).ok }), false, { batch: 64, timeMs: 1000, warmupMs: 200, allocChecks: 200 });
const row = {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  states: states.length,
  movesPerState: moves / states.length,
  medianUsPerState: timing.medianNs / 1000,
  p99UsPerState: timing.p99Ns / 1000,
  checkedMedianUsPerState: checked.medianNs / 1000,
  checkMedianNs: perCheck.medianNs,
  checkedCheckMedianNs: perChecked.medianNs,
};
const out = process.argv.includes("--out") ? process.argv[process.argv.indexOf("--out") + 1]! : path.join(ROOT, "bench/results");
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, "legal-moves.json"), JSON.stringify(row, null, 2) + "\n");
process.stdout.write(
  `| legalMovesTrusted(state, active power), his | ${row.medianUsPerState.toFixed(1)} µs per state (median; p99 ${row.p99UsPerState.toFixed(1)} µs; checked legalMoves ${row.checkedMedianUsPerState.toFixed(1)} µs) | ${row.movesPerState.toFixed(1)} moves per state | one checkTrusted of a listed move: ${row.checkMedianNs.toFixed(0)} ns (checked check: ${row.checkedCheckMedianNs.toFixed(0)} ns) |\n`,
);
process.exit(0);
