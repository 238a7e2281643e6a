// A small game engine for the Action Phase of Here I Stand, written as an engine author would:
// the engine owns the game state and its changes; rulewright's generated validators
// (`rulewright/editions/his`, compiled JavaScript from the installed package) say which moves
// are legal (`legalMoves`; `check` for the moves of an action that `legalMoves` does not
// enumerate, should an edition have one), and whether a state is valid (`validateState`: the
// schema and the invariants). The engine never decides a rule itself. What it models: impulses in
// turn order; each impulse the active power passes, or plays a card (for its CP, then spends
// them, or as an event) and ends the impulse.
import { ACTIONS, LEGAL_MOVE_ACTIONS, check, legalMoves, lookupActionCost, validateState } from "rulewright/editions/his";

/** The impulse order of the Action Phase (§11). */
export const IMPULSE_ORDER = ["ottoman", "hapsburg", "england", "france", "papacy", "protestant"];

/**
 * The CP actions the engine offers (its own choice: it does not track the New World, so it
 * offers no explore/colonize/conquer; the validators decide which of these a power may take).
 */
export const CP_ACTIONS = ["move_formation", "move_over_pass", "naval_move", "buy_mercenary", "raise_regular", "raise_cavalry", "build_squadron", "build_corsair", "assault_or_foreign_war", "control_unfortified_space", "initiate_piracy", "translate_scripture", "publish_treatise", "call_theological_debate", "build_st_peters", "burn_books", "found_jesuit_university"];

/** A seeded random number generator (mulberry32): the same seed plays the same game. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A card's CP value in this engine (printed on the real cards; here 1–3 from its id). */
export function cardCp(id) {
  let h = 0;
  for (const ch of id) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return 1 + (h % 3);
}

/**
 * The moves the engine can make for `power` in `state` (candidates: the validators then allow or
 * forbid each; `legalCandidates` asks `legalMoves` for the enumerable ones). Every action it builds must be one the edition declares (ACTIONS), with the
 * parameters it declares.
 */
export function candidateMoves(state, power) {
  const moves = [{ action: "pass", power }, { action: "end_impulse", power }];
  for (const card of state.hands[power]) {
    moves.push({ action: "play_card", power, card: card.id, as: "cp" }, { action: "play_card", power, card: card.id, as: "event" });
  }
  for (const on of CP_ACTIONS) moves.push({ action: "spend_cp", power, on });
  const declared = new Map(ACTIONS.map((a) => [a.name, a.params.map((p) => p.name)]));
  for (const m of moves) {
    const params = declared.get(m.action);
    if (!params) throw new Error(`the edition declares no action \`${m.action}\``);
    const given = Object.keys(m).filter((k) => k !== "action");
    if (given.sort().join() !== [...params].sort().join()) throw new Error(`\`${m.action}\` takes ${params.join(", ")}, the engine gave ${given.join(", ")}`);
  }
  return moves;
}

/** The actions the engine can apply (it models no movement, combat, diplomacy or New World). */
export const MODELED = new Set(["pass", "end_impulse", "play_card", "spend_cp"]);

/**
 * The legal moves of `power` in `state` that the engine can apply: the generated `legalMoves`
 * (every move of an action over finite domains that the rules allow, obligations included),
 * kept to the modeled actions and CP actions (`play_card` included: its cards range over the
 * hand); plus the engine's candidates of any action `LEGAL_MOVE_ACTIONS` marks not enumerated
 * (none in his today), each kept when `check` allows it.
 */
export function legalCandidates(state, power) {
  const cp = new Set(CP_ACTIONS);
  const moves = legalMoves(state, power);
  // { ok: false, errors } for a state or power that is not valid input (the engine's own bug here)
  if (!Array.isArray(moves)) throw new Error(`legalMoves refused its input: ${moves.errors.map((e) => `${e.input}${e.path}: ${e.message}`).join("; ")}`);
  const enumerated = moves.filter((m) => MODELED.has(m.action) && (m.action !== "spend_cp" || cp.has(m.on)));
  const notEnumerated = new Set(LEGAL_MOVE_ACTIONS.filter((a) => !a.enumerated).map((a) => a.action));
  const byCheck = candidateMoves(state, power).filter((m) => notEnumerated.has(m.action) && check(state, m).allowed);
  return [...enumerated, ...byCheck];
}

/** The state after `move` (the engine's own game logic; the validators have allowed the move). */
export function apply(state, move, passed) {
  const s = structuredClone(state);
  const p = move.power;
  switch (move.action) {
    case "pass":
      passed.add(p);
      return nextImpulse(s, passed);
    case "play_card": {
      s.hands[p] = s.hands[p].filter((c) => c.id !== move.card);
      s.impulse = { card_played: true, cp_left: move.as === "cp" ? cardCp(move.card) : 0 };
      if (move.as === "event") s.cards_played_as_event_this_turn.push(move.card);
      return s;
    }
    case "spend_cp":
      s.impulse.cp_left -= lookupActionCost(move.on, p).cp;
      return s;
    case "end_impulse":
      return nextImpulse(s, passed);
    default:
      throw new Error(`the engine cannot apply \`${move.action}\``);
  }
}

function nextImpulse(s, passed) {
  s.impulse = { card_played: false, cp_left: 0 };
  const i = IMPULSE_ORDER.indexOf(s.active_power);
  for (let k = 1; k <= IMPULSE_ORDER.length; k++) {
    const q = IMPULSE_ORDER[(i + k) % IMPULSE_ORDER.length];
    if (!passed.has(q)) {
      s.active_power = q;
      return s;
    }
  }
  return s; // every power has passed: the Action Phase is over
}

/**
 * Plays one random game of the Action Phase from `start` for at most `impulses` impulses (or
 * until every power has passed). Throws when a rule error shows: a state that `validateState`
 * rejects (schema or invariant), a move the validators forbid, or an active power with no legal move.
 * Returns { moves, impulses, passed, log } (log: one line per move).
 */
export function playGame(start, { impulses, seed }) {
  const random = rng(seed);
  const passed = new Set();
  let state = structuredClone(start);
  let done = 0;
  const log = [];
  let moves = 0;
  while (done < impulses && passed.size < IMPULSE_ORDER.length) {
    const errors = validateState(state);
    if (errors.length) throw new Error(`rule error: the state is not valid after ${moves} moves: ${errors.map((e) => `${e.pointer || "/"} ${e.message}`).join("; ")}`);
    const power = state.active_power;
    const legal = legalCandidates(state, power);
    if (!legal.length) throw new Error(`rule error: ${power} has no legal move (after ${moves} moves)`);
    const move = legal[Math.floor(random() * legal.length)];
    const verdict = check(state, move);
    if (!verdict.allowed) throw new Error(`rule error: ${JSON.stringify(move)} is forbidden: ${verdict.violations.map((v) => v.rule).join(", ")}`);
    log.push(`${power}: ${move.action}${move.card ? ` ${move.card} (${move.as})` : ""}${move.on ? ` ${move.on}` : ""}`);
    state = apply(state, move, passed);
    moves++;
    if (move.action === "pass" || move.action === "end_impulse") done++;
  }
  return { moves, impulses: done, passed: [...passed], log, state };
}
