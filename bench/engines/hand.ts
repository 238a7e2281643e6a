/**
 * The floor: the Here I Stand rules written by hand, directly in TypeScript, the way an engine
 * author who knows the rules and the state would write them (one pass over each list, bit masks
 * for sets of powers, one reusable search buffer). Not generated, not derived from the IR.
 *
 * Rules: §9.6 (declare_war), §11 (pass), §10 with §5.1 (spring_deploy), and the §11 obligation
 * to pass with an empty hand. Same rule ids as dsl/his so verdicts can be compared; the verdict
 * lists rule ids (the engine has no positions to report).
 *
 * Domain shortcuts a person would take (and the generated code does not): each (*) path
 * restriction only narrows the base path, so when the most restrictive search (all of them at
 * once) finds a path no other search is needed, and when the base search fails every path rule
 * fires.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { State } from "../../generated/his/index.js";

/** A verdict with rule ids only; allowed checks share one frozen object. */
export interface HandVerdict {
  allowed: boolean;
  violations: readonly string[];
  obliged: readonly string[];
}

const NONE: readonly string[] = Object.freeze([]);
const ALLOWED: HandVerdict = Object.freeze({ allowed: true, violations: NONE, obliged: NONE });
const OBLIGED_TO_PASS: HandVerdict = Object.freeze({ allowed: true, violations: NONE, obliged: Object.freeze(["pass.empty_hand"]) });
const done = (v: string[] | undefined): HandVerdict => (v === undefined ? ALLOWED : { allowed: false, violations: v, obliged: NONE });

// powers as bits: the six major powers first
const POWER_BIT: Record<string, number> = { ottoman: 1, hapsburg: 2, england: 4, france: 8, papacy: 16, protestant: 32, genoa: 64, hungary_bohemia: 128, scotland: 256, venice: 512, independent: 1024 };
const MAJORS_MASK = 63;
const MINORS_MASK = 64 | 128 | 256 | 512;
/** The events that let their player declare war in the Action Phase (dow.segment). */
const WAR_EVENTS: ReadonlySet<string> = new Set(["schmalkaldic_league", "machiavelli_the_prince", "six_wives_of_henry_viii"]);
const MAJORS = ["ottoman", "hapsburg", "england", "france", "papacy", "protestant"] as const;

/** `pass.empty_hand` (§11): in the Action Phase the active power with an empty hand must pass. */
function mustPass(s: State, power: string): boolean {
  return s.phase === "action_phase" && s.active_power === power && s.hands[power as keyof State["hands"]].length === 0;
}

/** §9.6: may `by` declare war on `target`? */
export function handDeclareWar(s: State, by: string, target: string): HandVerdict {
  const byBit = POWER_BIT[by]!;
  const tBit = POWER_BIT[target]!;
  // one pass over the alliances: who is allied with the declarer, and with the target
  let byAllies = 0;
  let targetAllies = 0;
  for (const x of s.alliances) {
    if (x.a === by) byAllies |= POWER_BIT[x.b]!;
    else if (x.b === by) byAllies |= POWER_BIT[x.a]!;
    if (x.a === target) targetAllies |= POWER_BIT[x.b]!;
    else if (x.b === target) targetAllies |= POWER_BIT[x.a]!;
  }
  let v: string[] | undefined;
  const league = s.schmalkaldic_league_played;
  if (target === "hungary_bohemia") (v ??= []).push("dow.hungary_bohemia");
  if (target === "scotland" && (by === "ottoman" || by === "papacy" || by === "protestant" || (byAllies & POWER_BIT.france!) !== 0)) (v ??= []).push("dow.scotland");
  if (target === "venice" && by === "england") (v ??= []).push("dow.venice_england");
  if ((tBit & MINORS_MASK) !== 0 && (targetAllies & MAJORS_MASK) !== 0) (v ??= []).push("dow.minor_ally");
  if ((byAllies & tBit) !== 0) (v ??= []).push("dow.own_ally");
  if (target === "protestant" && !league) (v ??= []).push("dow.protestant_before_league");
  if (by === "protestant" && !league) (v ??= []).push("dow.protestant_declarer_before_league");
  if (target === "independent") (v ??= []).push("dow.independent");
  if (target === by) (v ??= []).push("dow.self");
  for (const x of s.wars) {
    if ((x.a === by && x.b === target) || (x.a === target && x.b === by)) {
      (v ??= []).push("dow.already_at_war");
      break;
    }
  }
  if (!(s.phase === "diplomacy" && s.segment === "declarations_of_war") && !(s.phase === "action_phase" && s.events_played_this_phase.some((x) => x.power === by && WAR_EVENTS.has(x.event)))) (v ??= []).push("dow.segment");
  if (s.phase === "diplomacy" && s.segment === "declarations_of_war") {
    let peace = 0;
    for (const x of s.peace_made_this_phase) {
      if (x.a === by) peace |= POWER_BIT[x.b]!;
      else if (x.b === by) peace |= POWER_BIT[x.a]!;
    }
    if ((peace & tBit) !== 0) (v ??= []).push("dow.peace_this_phase");
    for (const x of s.alliances_formed_this_phase) {
      if ((x.a === by && x.b === target) || (x.a === target && x.b === by)) {
        (v ??= []).push("dow.alliance_this_phase");
        break;
      }
    }
    if (target === "venice" && ((byAllies | peace) & POWER_BIT.papacy!) !== 0) (v ??= []).push("dow.venice_papal");
    if (target === "scotland" && (peace & POWER_BIT.france!) !== 0) (v ??= []).push("dow.scotland_french_peace");
  }
  if (mustPass(s, by)) (v ??= []).push("pass.empty_hand");
  return done(v);
}

/** §11: may `power` pass? */
export function handPass(s: State, power: string): HandVerdict {
  if (s.phase !== "action_phase") return { allowed: false, violations: ["pass.phase"], obliged: NONE };
  const hand = s.hands[power as keyof State["hands"]];
  let v: string[] | undefined;
  if (s.active_power !== power) (v ??= []).push("pass.not_active");
  let home = false;
  let mandatory = false;
  for (const c of hand) {
    if (c.home) home = true;
    if (c.mandatory) mandatory = true;
  }
  if (home) (v ??= []).push("pass.home_card");
  if (mandatory) (v ??= []).push("pass.mandatory_event");
  if (hand.length > s.rulers[power as keyof State["rulers"]].admin_rating) (v ??= []).push("pass.admin_rating");
  if (v !== undefined) return { allowed: false, violations: v, obliged: s.active_power === power && hand.length === 0 ? ["pass.empty_hand"] : NONE };
  return s.active_power === power && hand.length === 0 ? OBLIGED_TO_PASS : ALLOWED;
}

// ---- the board, read once from dsl/his/board.json ---------------------------------------------

interface BoardJson {
  spaces: { id: string; type: string; home: string[] }[];
  connections: { from: string; to: string; type: string }[];
}
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const B = JSON.parse(fs.readFileSync(path.join(ROOT, "dsl/his/board.json"), "utf8")) as BoardJson;
const N = B.spaces.length;
const IDS = B.spaces.map((s) => s.id);
const INDEX = new Map(IDS.map((id, i) => [id, i]));
const SEA = B.spaces.map((s) => s.type === "sea");
const CAPITAL_OF = new Map<string, string[]>(MAJORS.map((m) => [m, B.spaces.filter((s) => s.type === "capital" && s.home.includes(m)).map((s) => s.id)]));
const adj = () => Array.from({ length: N }, () => [] as number[]);
const LAND = adj(), PASS = adj(), PORT = adj(), SEAS = adj();
for (const c of B.connections) {
  const a = INDEX.get(c.from)!, b = INDEX.get(c.to)!;
  const list = c.type === "normal" && !SEA[a] && !SEA[b] ? LAND : c.type === "pass" && !SEA[a] && !SEA[b] ? PASS : c.type === "port" && SEA[a] !== SEA[b] ? PORT : c.type === "sea" && SEA[a] && SEA[b] ? SEAS : undefined;
  if (list) list[a]!.push(b), list[b]!.push(a);
}

// search buffers, reused by every search (the checks are not reentrant)
const friendly = new Int8Array(N); // 0 unknown, 1 yes, 2 no (controller friendly and no unrest)
const port = new Int8Array(N); // 0 unknown, 1 friendly port, 2 not
const blocked = new Int8Array(N); // sea zones: 0 unknown, 1 blocked, 2 free
const seen0 = new Uint8Array(N);
const seen1 = new Uint8Array(N);
const queue = new Int32Array(2 * N + 2);

let curState: State;
let curFriends = 0; // bit mask: the power and its allies
let curOthers = 0; // majors other than the power whose ships are not loaned to it

function isFriendly(i: number): boolean {
  let m = friendly[i]!;
  if (m === 0) {
    const sp = curState.spaces[IDS[i] as keyof State["spaces"]];
    friendly[i] = m = (POWER_BIT[sp.controller]! & curFriends) !== 0 && !sp.unrest ? 1 : 2;
  }
  return m === 1;
}
function isPort(i: number): boolean {
  let m = port[i]!;
  if (m === 0) port[i] = m = (POWER_BIT[curState.spaces[IDS[i] as keyof State["spaces"]].controller]! & curFriends) !== 0 ? 1 : 2;
  return m === 1;
}
function isBlocked(z: number): boolean {
  let m = blocked[z]!;
  if (m === 0) {
    m = 2;
    for (const q of PORT[z]!) {
      const ships = curState.spaces[IDS[q] as keyof State["spaces"]].naval_units;
      for (let k = 0; k < 6; k++) if ((curOthers & (1 << k)) !== 0 && ships[MAJORS[k]!] > 0) m = 1;
    }
    blocked[z] = m;
  }
  return m === 1;
}

/** Is there a path from `from` to `to` (friendly, unrest-free land; at most `maxSeas` ≤ 1 sea zone entered and left at friendly ports)? */
function path_(from: number, to: number, noPasses: boolean, noBlocked: boolean, maxSeas: number): boolean {
  let k0 = 0;
  if (SEA[from]) {
    // starting at sea uses up the one sea zone
    if (maxSeas < 1 || (noBlocked && isBlocked(from))) return false;
    k0 = 1;
  } else if (!isFriendly(from)) return false;
  if (from === to) return true;
  seen0.fill(0);
  seen1.fill(0);
  let head = 0, tail = 0;
  queue[tail++] = from * 2 + k0; // entries: space * 2 + sea zones used
  (k0 === 0 ? seen0 : seen1)[from] = 1;
  while (head < tail) {
    const e = queue[head++]!;
    const u = e >> 1, k = e & 1;
    const seen = k === 0 ? seen0 : seen1;
    if (SEA[u]) {
      for (const v of PORT[u]!) {
        if (seen[v] === 0 && isFriendly(v) && isPort(v)) {
          if (v === to) return true;
          seen[v] = 1;
          queue[tail++] = v * 2 + k;
        }
      }
      continue;
    }
    for (const v of LAND[u]!) {
      if (seen[v] === 0 && isFriendly(v)) {
        if (v === to) return true;
        seen[v] = 1;
        queue[tail++] = v * 2 + k;
      }
    }
    if (!noPasses) {
      for (const v of PASS[u]!) {
        if (seen[v] === 0 && isFriendly(v)) {
          if (v === to) return true;
          seen[v] = 1;
          queue[tail++] = v * 2 + k;
        }
      }
    }
    if (k < maxSeas && isPort(u)) {
      for (const z of PORT[u]!) {
        if (seen1[z] === 0 && !(noBlocked && isBlocked(z))) {
          if (z === to) return true;
          seen1[z] = 1;
          queue[tail++] = z * 2 + 1;
        }
      }
    }
  }
  return false;
}

/** §10 (with §5.1): may `power` deploy `units` land units and `leaders` from `origin` to `destination`? */
export function handSpringDeploy(s: State, power: string, origin: string, destination: string, units: number, leaders: readonly string[]): HandVerdict {
  if (s.phase !== "spring_deployment") return { allowed: false, violations: mustPass(s, power) ? ["deploy.phase", "pass.empty_hand"] : ["deploy.phase"], obliged: NONE };
  let v: string[] | undefined;
  if (s.active_power !== power) (v ??= []).push("deploy.not_active");
  if ((s.spring_deployments_done as readonly string[]).includes(power)) (v ??= []).push("deploy.once_per_phase");
  if (power === "protestant") (v ??= []).push("deploy.protestant");
  if (!CAPITAL_OF.get(power)!.includes(origin)) (v ??= []).push("deploy.capital_only");
  if (units < 0 || (units === 0 && leaders.length === 0)) (v ??= []).push("deploy.something_moves");
  const from = s.spaces[origin as keyof State["spaces"]];
  if (units > from.land_units[power as keyof typeof from.land_units]) (v ??= []).push("deploy.units_in_capital");
  // the named leaders: each must be the power's and stand in the capital; the formation's size limit
  let named = 0, best = -1, second = -1, missing = false;
  for (const n of leaders) {
    let found = false;
    for (const l of from.leaders) if (l.name === n && l.power === power) found = true;
    if (!found) missing = true;
  }
  for (const l of from.leaders) {
    if (l.power !== power || !leaders.includes(l.name)) continue;
    named++;
    if (l.command > best) (second = best), (best = l.command);
    else if (l.command > second) second = l.command;
  }
  if (missing) (v ??= []).push("deploy.leaders_in_capital");
  const cap = named === 0 ? 4 : best + (second < 0 ? 0 : second);
  if (units > cap) (v ??= []).push("deploy.formation_size");
  const to = INDEX.get(destination)!;
  if (SEA[to]) (v ??= []).push("deploy.to_land");

  // the path rules
  preparePath(s, power);
  const src = INDEX.get(origin)!;
  const over5 = units > 5;
  let prepared = false;
  for (const e of s.events_played_this_phase) if (e.power === power && e.event === "spring_preparations") prepared = true;
  if (prepared || path_(src, to, true, true, over5 ? 0 : 1)) {
    // the most restrictive path exists (or the (*) rules are lifted): only the base path matters
    if (!prepared || path_(src, to, false, false, 1)) return mustPass(s, power) ? done([...(v ?? []), "pass.empty_hand"]) : done(v);
    (v ??= []).push("deploy.path");
  } else if (!path_(src, to, false, false, 1)) {
    (v ??= []).push("deploy.path", "deploy.no_pass", "deploy.blocked_sea", "deploy.sea_cap", "deploy.star_all");
  } else {
    if (!path_(src, to, true, false, 1)) (v ??= []).push("deploy.no_pass");
    if (!path_(src, to, false, true, 1)) (v ??= []).push("deploy.blocked_sea");
    if (over5 && !path_(src, to, false, false, 0)) (v ??= []).push("deploy.sea_cap");
    (v ??= []).push("deploy.star_all");
  }
  if (mustPass(s, power)) (v ??= []).push("pass.empty_hand");
  return done(v);
}

/** The same three checks behind one entry point (flat action JSON). */
export function handCheck(s: State, a: { action: string } & Record<string, unknown>): HandVerdict {
  switch (a.action) {
    case "declare_war":
      return handDeclareWar(s, a.by as string, a.target as string);
    case "pass":
      return handPass(s, a.power as string);
    case "spring_deploy":
      return handSpringDeploy(s, a.power as string, a.origin as string, a.destination as string, a.land_units as number, a.leaders as readonly string[]);
    default:
      throw new Error(`unknown action ${a.action}`);
  }
}

/** Sets the path search's per-call state: the deploying power's friends and the other powers whose ships block, with empty memo tables. */
function preparePath(s: State, power: string): void {
  curState = s;
  curFriends = POWER_BIT[power]!;
  for (const x of s.alliances) {
    if (x.a === power) curFriends |= POWER_BIT[x.b]!;
    else if (x.b === power) curFriends |= POWER_BIT[x.a]!;
  }
  curOthers = MAJORS_MASK & ~POWER_BIT[power]!;
  for (const l of s.loans) if (l.borrower === power) curOthers &= ~POWER_BIT[l.owner]!;
  friendly.fill(0);
  port.fill(0);
  blocked.fill(0);
}

/** Exposed for the json-rules-engine translation, which needs the path as a precomputed fact. */
export function handDeployPath(s: State, power: string, origin: string, destination: string, noPasses: boolean, noBlocked: boolean, noSeas: boolean): boolean {
  preparePath(s, power);
  return path_(INDEX.get(origin)!, INDEX.get(destination)!, noPasses, noBlocked, noSeas ? 0 : 1);
}

export { CAPITAL_OF };
