/**
 * `npm run bench:legal-moves`: the time of `legalMovesTrusted(state, state.active_power)` of the
 * generated validators per state (issues 17, 26), for each bundled edition:
 * - his and his-500: the benchmark's seeded Here I Stand states (bench/states.ts: 256 states
 *   weighted toward each of the three action kinds' phases; his-500 keeps those its schema and
 *   invariants accept);
 * - vq: the distinct valid states of the Virgin Queen scenarios (test/scenarios/vq), each redrawn
 *   into the phases its actions are scoped to (Spring Deployment, Action Phase, the diplomatic
 *   announcements, winter) with the active power cycled through the major powers; the ones
 *   `validateState` accepts, 256 at most.
 * Median and p99 per state (tinybench over batches of 4 consecutive states), the number of moves
 * listed; the same for the checked `legalMoves` (the state checked against the schema first); and
 * for his, for scale, the time of one `checkTrusted` and one checked `check` per listed move.
 * Prints one Markdown row per edition and writes bench/results/legal-moves.json (or `--out <dir>`):
 * the his row at the top level, as before, and every edition under `editions`.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { findScenarioFiles, readScenarioFile } from "../compiler/scenarios/index.js";
import { makeState, type ActionKind } from "./states.js";
import { measure } from "./timing.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The part of a generated edition module the bench calls. */
interface Generated {
  legalMovesTrusted(state: unknown, actor: string): unknown[];
  legalMoves(state: unknown, actor: string): unknown;
  checkTrusted(state: unknown, action: unknown): { allowed: boolean };
  check(state: unknown, action: unknown): { ok: boolean };
  validateState(state: unknown): unknown[];
}
type AnyState = { active_power: string; [k: string]: unknown };

const load = async (edition: string): Promise<Generated> => (await import(pathToFileURL(path.join(ROOT, "generated", edition, "index.ts")).href)) as Generated;

/** The 256 seeded Here I Stand states (bench/states.ts). */
function hisStates(): AnyState[] {
  const kinds: ActionKind[] = ["declare_war", "pass", "spring_deploy"];
  return Array.from({ length: 256 }, (_, i) => makeState(20240611 + i, kinds[i % 3]!) as unknown as AnyState);
}

/** The Virgin Queen scenario states redrawn into the phases of its scoped actions (see above). */
function vqStates(gen: Generated): AnyState[] {
  const bases: AnyState[] = [];
  const seen = new Set<string>();
  for (const file of findScenarioFiles([fs.realpathSync(path.join(ROOT, "test/scenarios/vq"))])) {
    for (const s of readScenarioFile(file, (e) => path.join(ROOT, "test", "fixtures", path.basename(e))).scenarios) {
      const key = JSON.stringify(s.state);
      if (seen.has(key)) continue;
      seen.add(key);
      bases.push(s.state as AnyState);
    }
  }
  const phases: [string, string][] = [["action_phase", "none"], ["spring_deployment", "none"], ["action_phase", "none"], ["diplomacy", "announcements"], ["winter", "none"]];
  const majors = ["ottoman", "spain", "england", "france", "hre", "papacy", "protestant"];
  const out: AnyState[] = [];
  for (let n = 0; out.length < 256 && n < bases.length * phases.length * 2; n++) {
    const s = structuredClone(bases[n % bases.length]!);
    const [phase, segment] = phases[n % phases.length]!;
    s.phase = phase;
    s.segment = segment;
    if (n % 3 === 0) s.active_power = majors[n % majors.length]!;
    if (gen.validateState(s).length === 0) out.push(s);
  }
  return out;
}

const opts = { batch: 4, timeMs: 1500, warmupMs: 300, allocChecks: 200 };
const rows: Record<string, Record<string, number | string>> = {};
const lines: string[] = [];
const only = process.argv.includes("--edition") ? process.argv[process.argv.indexOf("--edition") + 1] : undefined;
for (const edition of ["his", "his-500", "vq"].filter((e) => !only || e === only)) {
  const gen = await load(edition);
  const states = edition === "vq" ? vqStates(gen) : hisStates().filter((s) => gen.validateState(s).length === 0);
  if (states.length === 0) throw new Error(`no valid ${edition} states to time`);
  let moves = 0;
  for (const s of states) moves += gen.legalMovesTrusted(s, s.active_power).length;
  const timing = await measure(`legalMovesTrusted ${edition}`, states, (s) => ({ allowed: gen.legalMovesTrusted(s, s.active_power).length > 0 }), false, opts);
  const checked = await measure(`legalMoves ${edition}`, states, (s) => ({ allowed: Array.isArray(gen.legalMoves(s, s.active_power)) }), false, opts);
  const row: Record<string, number | string> = {
    states: states.length,
    movesPerState: moves / states.length,
    medianUsPerState: timing.medianNs / 1000,
    p99UsPerState: timing.p99Ns / 1000,
    checkedMedianUsPerState: checked.medianNs / 1000,
  };
  let scale = "";
  if (edition === "his") {
    // for scale: a check of every move legalMoves lists (the verdicts a caller would otherwise ask for)
    const listed: [AnyState, unknown][] = states.flatMap((s) => gen.legalMovesTrusted(s, s.active_power).map((m): [AnyState, unknown] => [s, m]));
    const perCheck = await measure("checkTrusted", listed, ([s, a]) => gen.checkTrusted(s, a), false, { ...opts, batch: 64, timeMs: 1000, warmupMs: 200 });
    const perChecked = await measure("check", listed, ([s, a]) => ({ allowed: gen.check(s, a).ok }), false, { ...opts, batch: 64, timeMs: 1000, warmupMs: 200 });
    row.checkMedianNs = perCheck.medianNs;
    row.checkedCheckMedianNs = perChecked.medianNs;
    scale = ` | one checkTrusted of a listed move: ${perCheck.medianNs.toFixed(0)} ns (checked check: ${perChecked.medianNs.toFixed(0)} ns)`;
  }
  rows[edition] = row;
  lines.push(
    `| legalMovesTrusted(state, active power), ${edition} | ${(timing.medianNs / 1000).toFixed(1)} µs per state (median; p99 ${(timing.p99Ns / 1000).toFixed(1)} µs; checked legalMoves ${(checked.medianNs / 1000).toFixed(1)} µs) | ${(moves / states.length).toFixed(1)} moves per state, ${states.length} states${scale} |`,
  );
}
const out = process.argv.includes("--out") ? process.argv[process.argv.indexOf("--out") + 1]! : path.join(ROOT, "bench/results");
fs.mkdirSync(out, { recursive: true });
const top = { date: new Date().toISOString().slice(0, 10), node: process.version, ...(rows.his ?? {}), editions: rows };
fs.writeFileSync(path.join(out, "legal-moves.json"), JSON.stringify(top, null, 2) + "\n");
process.stdout.write(lines.join("\n") + "\n");
process.exit(0);
