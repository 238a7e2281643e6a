/**
 * Deterministic Here I Stand states and actions for the benchmarks and the interpreter tests.
 *
 * Every state starts from test/fixtures/his/base-state.json (the 1517 set-up as the fixture holds
 * it) and varies, from one integer seed: the phase and segment, the active power, alliances, wars,
 * peace made and alliances formed this phase, the Schmalkaldic League, events played, hands
 * (home cards, Mandatory Events, empty hands), rulers' administrative ratings, and for spring
 * deployment the controllers, unrest, naval units and loans across the board, the land units and
 * leaders in the capitals and the deployments already made. Every state respects the schema's
 * bounds and the edition's invariants (dsl/his/edition.rules), so every engine may be given it.
 *
 * Actions are aimed so that each set holds allowed and forbidden checks of every kind: phases
 * are weighted toward the one the action belongs to, deployments mostly start in a capital of the
 * deploying power and often end in a friendly space.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Action, DeclareWarAction, PassAction, SpringDeployAction, State } from "../generated/his/index.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** One check: a state and an action, as the JSON every engine takes. */
export interface Sample<A extends Action = Action> {
  state: State;
  action: A;
  /** `makeState(stateSeed, kind)` and `makeAction(actionSeed, kind, state)` rebuild this sample */
  stateSeed: number;
  actionSeed: number;
}

export type ActionKind = "declare_war" | "pass" | "spring_deploy";

/** mulberry32: a small, well-known 32-bit PRNG; the same seed gives the same sequence everywhere. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: Rand, p: number): boolean => r() < p;

export const MAJORS = ["ottoman", "hapsburg", "england", "france", "papacy", "protestant"] as const;
export const MINORS = ["genoa", "hungary_bohemia", "scotland", "venice"] as const;
export const POWERS = [...MAJORS, ...MINORS, "independent"] as const;
const PARTIES = [...MAJORS, ...MINORS];
const PHASES = ["luthers_95_theses", "card_draw", "diplomacy", "diet_of_worms", "spring_deployment", "action_phase", "winter", "new_world", "victory_determination"] as const;
const SEGMENTS = ["negotiations", "sue_for_peace", "ransom", "remove_excommunication", "declarations_of_war"] as const;
const EVENTS = ["spring_preparations", "schmalkaldic_league", "machiavelli_the_prince", "six_wives_of_henry_viii", "diplomatic_marriage", "papal_bull", "andrea_doria", "venetian_alliance"] as const;
const CARD_IDS = ["janissaries", "holy_roman_emperor", "six_wives_of_henry_viii", "patron_of_the_arts", "papal_bull", "leipzig_debate", "here_i_stand", "landsknechts", "swiss_mercenaries", "spring_preparations", "gout", "andrea_doria", "siege_artillery", "machiavelli_the_prince", "indulgence_vendor", "mercenaries_bribed", "threat_to_power", "plague", "diet_of_worms", "revolt_in_egypt"];

interface BoardJson {
  spaces: { id: string; type: string; home: string[] }[];
  connections: { from: string; to: string; type: string }[];
}

let cache: { base: State; board: BoardJson; land: string[]; ports: string[]; capitals: Map<string, string[]> } | undefined;

/** The fixture and board facts the generator draws from (read once). */
export function hisData() {
  if (!cache) {
    const base = JSON.parse(fs.readFileSync(path.join(ROOT, "test/fixtures/his/base-state.json"), "utf8")) as State;
    const board = JSON.parse(fs.readFileSync(path.join(ROOT, "dsl/his/board.json"), "utf8")) as BoardJson;
    const sea = new Set(board.spaces.filter((s) => s.type === "sea").map((s) => s.id));
    const land = board.spaces.filter((s) => !sea.has(s.id)).map((s) => s.id);
    const ports = [...new Set(board.connections.filter((c) => c.type === "port").map((c) => (sea.has(c.from) ? c.to : c.from)))].sort();
    const capitals = new Map<string, string[]>(MAJORS.map((m) => [m, board.spaces.filter((s) => s.type === "capital" && s.home.includes(m)).map((s) => s.id)]));
    cache = { base, board, land, ports, capitals };
  }
  return cache;
}

type Pair = { a: (typeof POWERS)[number]; b: (typeof POWERS)[number] };
/** Spaces within `steps` connections (any type) of `from`, `from` included, in board order. */
function nearby(from: string, steps: number): string[] {
  const { board } = hisData();
  const adj = new Map<string, string[]>();
  for (const c of board.connections) {
    adj.set(c.from, [...(adj.get(c.from) ?? []), c.to]);
    adj.set(c.to, [...(adj.get(c.to) ?? []), c.from]);
  }
  const seen = new Set([from]);
  let frontier = [from];
  for (let i = 0; i < steps; i++) frontier = frontier.flatMap((s) => (adj.get(s) ?? []).filter((t) => !seen.has(t) && seen.add(t)));
  return board.spaces.map((s) => s.id).filter((id) => seen.has(id));
}

const same = (x: Pair, a: string, b: string) => (x.a === a && x.b === b) || (x.a === b && x.b === a);
const isMinor = (p: string) => (MINORS as readonly string[]).includes(p);

/**
 * One state, fully determined by `seed`. `kind` weights the phase toward that action's phase and
 * decides whether the board is varied (spring deployment) or shared with the fixture.
 */
export function makeState(seed: number, kind: ActionKind): State {
  const r = rng(seed);
  const { base, land, ports, capitals } = hisData();
  const league = chance(r, 0.4);

  // diplomacy: alliances first (a minor allies with at most one power, never two minors together)
  const alliances: Pair[] = [];
  for (let n = int(r, 0, 4), tries = 0; alliances.length < n && tries < 40; tries++) {
    const a = pick(r, PARTIES);
    const b = pick(r, PARTIES);
    if (a === b || (isMinor(a) && isMinor(b)) || alliances.some((x) => same(x, a, b))) continue;
    if ([a, b].some((p) => isMinor(p) && alliances.some((x) => x.a === p || x.b === p))) continue;
    alliances.push({ a, b });
  }
  const wars: Pair[] = [];
  if (chance(r, 0.8) && !alliances.some((x) => same(x, "ottoman", "hungary_bohemia"))) wars.push({ a: "ottoman", b: "hungary_bohemia" });
  for (let n = int(r, 0, 5), tries = 0; wars.length < n && tries < 40; tries++) {
    const a = pick(r, PARTIES);
    const b = pick(r, PARTIES);
    if (a === b || alliances.some((x) => same(x, a, b)) || wars.some((x) => same(x, a, b))) continue;
    if (!league && (a === "protestant" || b === "protestant")) continue;
    wars.push({ a, b });
  }
  const peace: Pair[] = [];
  for (let n = int(r, 0, 2), tries = 0; peace.length < n && tries < 20; tries++) {
    const a = pick(r, PARTIES);
    const b = pick(r, PARTIES);
    if (a !== b && !peace.some((x) => same(x, a, b))) peace.push({ a, b });
  }
  const formed = alliances.filter(() => chance(r, 0.3));

  // the turn
  const home: Record<string, string> = { diplomacy: "diplomacy", pass: "action_phase", declare_war: "diplomacy", spring_deploy: "spring_deployment" };
  const phase = chance(r, kind === "spring_deploy" ? 0.85 : 0.7) ? home[kind]! : pick(r, PHASES);
  const segment = phase === "diplomacy" ? (chance(r, 0.7) ? "declarations_of_war" : pick(r, SEGMENTS)) : "none";
  const active = pick(r, MAJORS);
  const events: { power: (typeof MAJORS)[number]; event: (typeof EVENTS)[number] }[] = [];
  for (let n = int(r, 0, 3), i = 0; i < n; i++) events.push({ power: pick(r, MAJORS), event: chance(r, 0.4) ? "spring_preparations" : pick(r, EVENTS) });

  // hands and rulers
  const hands = {} as State["hands"];
  const rulers = {} as State["rulers"];
  for (const m of MAJORS) {
    const n = chance(r, 0.2) ? 0 : int(r, 1, 6);
    // no combat cards: no benchmarked action reads `combat` (play_card is not benchmarked), and
    // drawing it would change every seed's state
    // a hand holds each card once (invariant state.hand_cards_distinct): a drawn id already in the
    // hand is replaced by the next unused one, so the random draws (and the rest of the state) stay
    // those of every earlier seed
    const used = new Set<string>();
    hands[m] = Array.from({ length: n }, () => {
      let id = pick(r, CARD_IDS);
      for (let k = CARD_IDS.indexOf(id); used.has(id); k = (k + 1) % CARD_IDS.length) id = CARD_IDS[k]!;
      used.add(id);
      // both draws are made whatever they give (the random stream stays that of earlier seeds); a
      // home card is never a Mandatory Event (invariant state.home_cards_not_mandatory, 001 ¶38–¶39)
      const home = chance(r, 0.15);
      const mandatory = chance(r, 0.08);
      return { id, home, mandatory: mandatory && !home, combat: false };
    });
    rulers[m] = { name: base.rulers[m].name, admin_rating: int(r, 0, 4) };
  }

  let spaces = base.spaces;
  let loans: State["loans"] = [];
  let done: State["spring_deployments_done"] = [];
  if (kind === "spring_deploy") {
    // a copy of the board's space records that differ from the fixture; the rest is shared
    const sp: Record<string, State["spaces"][keyof State["spaces"]]> = { ...base.spaces };
    const edit = (id: string) => (sp[id] = structuredClone(sp[id]!));
    for (let n = int(r, 0, 12), i = 0; i < n; i++) edit(pick(r, land)).controller = pick(r, POWERS);
    for (let n = int(r, 0, 6), i = 0; i < n; i++) edit(pick(r, land)).unrest = true;
    for (let n = int(r, 0, 4), i = 0; i < n; i++) edit(pick(r, ports)).naval_units[pick(r, MAJORS)] = int(r, 0, 3);
    for (const m of MAJORS) {
      for (const c of capitals.get(m)!) {
        const s = edit(c);
        s.land_units[m] = int(r, 0, 8);
        if (chance(r, 0.15)) s.unrest = false;
      }
    }
    spaces = sp as State["spaces"];
    for (let n = int(r, 0, 2), i = 0; i < n; i++) {
      const owner = pick(r, MAJORS);
      const borrower = pick(r, MAJORS);
      if (owner !== borrower) loans.push({ owner, borrower });
    }
    done = MAJORS.filter(() => chance(r, 0.15));
  }

  return {
    ...base,
    phase: phase as State["phase"],
    segment: segment as State["segment"],
    active_power: active,
    alliances,
    wars,
    peace_made_this_phase: peace,
    alliances_formed_this_phase: formed,
    schmalkaldic_league_played: league,
    events_played_this_phase: events,
    hands,
    rulers,
    spaces,
    loans,
    spring_deployments_done: done,
  };
}

/** An action of `kind` for `state`, determined by `seed` (often the active power, often legal-looking). */
export function makeAction(seed: number, kind: ActionKind, state: State): Action {
  const r = rng(seed ^ 0x9e3779b9);
  const actor = chance(r, kind === "spring_deploy" ? 0.8 : 0.6) ? state.active_power : pick(r, MAJORS);
  if (kind === "declare_war") return { action: "declare_war", by: actor, target: pick(r, POWERS) } satisfies DeclareWarAction;
  if (kind === "pass") return { action: "pass", power: actor } satisfies PassAction;
  const { land, capitals } = hisData();
  const power = actor;
  const caps = capitals.get(power)!;
  const origin = (caps.length && chance(r, 0.9) ? pick(r, caps) : pick(r, land)) as SpringDeployAction["origin"];
  // friendly spaces within a few steps of the origin: a likely destination of a real deployment
  const near = nearby(origin, 3).filter((s) => {
    const c = state.spaces[s as keyof State["spaces"]].controller;
    return land.includes(s) && (c === power || state.alliances.some((x) => same(x, power, c)));
  });
  const destination = (chance(r, 0.85) && near.length ? pick(r, near) : chance(r, 0.95) ? pick(r, land) : "gulf_of_lyon") as SpringDeployAction["destination"];
  const here = state.spaces[origin].leaders.filter((l) => l.power === power).map((l) => l.name);
  const leaders = here.filter(() => chance(r, 0.5));
  if (chance(r, 0.05)) leaders.push("Nobody in particular");
  const inCapital = state.spaces[origin].land_units[power];
  const units = chance(r, 0.05) ? -1 : chance(r, 0.7) ? int(r, Math.min(inCapital, 1), Math.min(inCapital, 6)) : int(r, 0, 8);
  return { action: "spring_deploy", power, origin, destination, land_units: units, leaders } satisfies SpringDeployAction;
}

/**
 * `n` samples of one action kind. States are made from seeds `seed, seed+1, …`; each state is
 * used for `perState` consecutive actions (engines then see the same state several times, as a
 * game engine checking several candidate moves would).
 */
export function makeSet<K extends ActionKind>(kind: K, n: number, seed = 1, perState = 4): Sample[] {
  const out: Sample[] = [];
  let state: State | undefined;
  let stateSeed = seed;
  for (let i = 0; i < n; i++) {
    if (i % perState === 0) state = makeState((stateSeed = seed + i), kind);
    const actionSeed = seed * 7919 + i;
    out.push({ state: state!, action: makeAction(actionSeed, kind, state!), stateSeed, actionSeed });
  }
  return out;
}
