/**
 * `npm run bench:legal-moves`: the time of `legalMoves(state, state.active_power)` of the generated
 * Here I Stand validators per state (issue 17), on the benchmark's seeded states (bench/states.ts:
 * 256 states weighted toward each of the three action kinds' phases), median and p99 per state,
 * with the number of moves listed and, for scale, the time of one `check` per enumerated move.
 * Prints one Markdown row and writes bench/results/legal-moves.json (or `--out <dir>`).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { check, legalMoves, type Action, type State } from "../generated/his/index.js";
import { makeState, type ActionKind } from "./states.js";
import { measure } from "./timing.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const KINDS: ActionKind[] = ["declare_war", "pass", "spring_deploy"];
const states: State[] = [];
for (let i = 0; i < 256; i++) states.push(makeState(20240611 + i, KINDS[i % 3]!));

let moves = 0;
for (const s of states) moves += legalMoves(s, s.active_power).length;
const timing = await measure("legalMoves", states, (s) => ({ allowed: legalMoves(s, s.active_power).length > 0 }), false, { batch: 4, timeMs: 1500, warmupMs: 300, allocChecks: 200 });
// for scale: check() of every move legalMoves lists (the verdicts a caller would otherwise ask for)
const listed: [State, Action][] = states.flatMap((s) => legalMoves(s, s.active_power).map((m): [State, Action] => [s, m]));
const perCheck = await measure("check", listed, ([s, a]) => check(s, a), false, { batch: 64, timeMs: 1000, warmupMs: 200, allocChecks: 200 });
const row = {
  date: new Date().toISOString().slice(0, 10),
  node: process.version,
  states: states.length,
  movesPerState: moves / states.length,
  medianUsPerState: timing.medianNs / 1000,
  p99UsPerState: timing.p99Ns / 1000,
  checkMedianNs: perCheck.medianNs,
};
const out = process.argv.includes("--out") ? process.argv[process.argv.indexOf("--out") + 1]! : path.join(ROOT, "bench/results");
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, "legal-moves.json"), JSON.stringify(row, null, 2) + "\n");
process.stdout.write(
  `| legalMoves(state, active power), his | ${row.medianUsPerState.toFixed(1)} µs per state (median; p99 ${row.p99UsPerState.toFixed(1)} µs) | ${row.movesPerState.toFixed(1)} moves per state | one check of a listed move: ${row.checkMedianNs.toFixed(0)} ns |\n`,
);
process.exit(0);
