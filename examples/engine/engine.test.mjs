// The example engine's test (node --test): random legal games of the Here I Stand Action Phase,
// every move checked by the generated validators of the installed rulewright package.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { check, legalMoves, RULES, validateState } from "rulewright/editions/his";
import { candidateMoves, legalCandidates, playGame } from "./engine.mjs";

const start = JSON.parse(readFileSync(new URL("./start-state.json", import.meta.url), "utf8"));

test("50 random games of 60 impulses each play without a rule error", () => {
  let moves = 0;
  const kinds = new Set();
  for (let seed = 1; seed <= 50; seed++) {
    const g = playGame(start, { impulses: 60, seed });
    moves += g.moves;
    for (const line of g.log) kinds.add(line.split(" ")[1]);
  }
  assert.ok(moves > 500, `only ${moves} moves in 50 games`);
  // the games used every kind of move the engine has
  assert.deepEqual([...kinds].sort(), ["end_impulse", "pass", "play_card", "spend_cp"]);
});

test("the same seed plays the same game", () => {
  assert.deepEqual(playGame(start, { impulses: 30, seed: 7 }).log, playGame(start, { impulses: 30, seed: 7 }).log);
});

test("the validators, not the engine, decide: a power with its home card in hand may not pass", () => {
  // the fixture's Ottoman holds Janissaries, its home card (§11)
  assert.ok(start.hands.ottoman.some((c) => c.home));
  const verdict = check(start, { action: "pass", power: "ottoman" });
  assert.equal(verdict.allowed, false);
  assert.ok(verdict.violations.some((v) => v.rule === "pass.home_card"));
  assert.ok(!legalCandidates(start, "ottoman").some((m) => m.action === "pass"));
  assert.ok(RULES.some((r) => r.id === "pass.home_card"));
});

test("a power that is not active has no legal move", () => {
  assert.equal(start.active_power, "ottoman");
  assert.deepEqual(legalCandidates(start, "france"), []);
  assert.ok(candidateMoves(start, "france").length > 0);
});

test("legalMoves agrees with check on the start state, and validateState points at a bad field", () => {
  for (const power of ["ottoman", "france"]) for (const m of legalMoves(start, power)) assert.equal(check(start, m).allowed, true, JSON.stringify(m));
  assert.deepEqual(validateState(start), []);
  const errors = validateState({ ...start, phase: "nowhere" });
  assert.ok(errors.some((e) => e.pointer === "/phase"), JSON.stringify(errors));
});
