/**
 * legalMoves(state, actor) of every bundled edition (issues 17 and 26), fast-check properties with
 * fixed seeds, on random valid states (a scenario's state with some of its enum fields — phase,
 * segment, active power, … — redrawn, kept when `validateState` finds nothing), for every actor:
 * - for the actions whose parameters are all enums or booleans, `legalMoves` lists exactly the
 *   moves `check` allows among every combination of them (exhaustive), within the action's
 *   declared scope (`during`, `actor active`) and only for encoded actions (unless
 *   `{ unencoded: true }`), in the documented order, with no duplicate;
 * - every move it lists of any action is one `check` allows;
 * - every move `check` allows of an action with an int, string or list parameter (spring_deploy,
 *   move_formation, play_card), drawn near the state's own values, is listed (a list parameter in
 *   its canonical form: no repeats, in the order of the state's list);
 * - a scope naming two phases (his's reformation_attempt): its moves are listed in those phases
 *   only, there exactly the ones `check` allows.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { editionContext } from "../../compiler/codegen/context.js";
import { enumerationPlan } from "../../compiler/codegen/domains.js";
import type { IREdition, Type } from "../../compiler/ir/types.js";
import { findScenarioFiles, readScenarioFile } from "../../compiler/scenarios/index.js";
import { makeState } from "../../bench/states.js";

interface Generated {
  legalMoves(state: unknown, actor: string, options?: { unencoded?: boolean }): Record<string, unknown>[] | { ok: false; errors: unknown[] };
  checkTrusted(state: unknown, action: unknown): { allowed: boolean };
  validateState(state: unknown): unknown[];
  LEGAL_MOVE_ACTIONS: readonly { action: string; enumerated: boolean; encoded: boolean; scope?: string; reason?: string }[];
}

/** Whether the action's declared scope holds for this state and actor (IRAction.scope). */
function inScope(a: IREdition["actions"][number], state: Record<string, unknown>, actor: string): boolean {
  const sc = a.scope;
  if (!sc) return true;
  if (sc.during && !sc.during.some((d) => state.phase === d.phase && (d.segment === undefined || state.segment === d.segment))) return false;
  return !sc.activeOnly || state.active_power === actor;
}

const moves = (r: ReturnType<Generated["legalMoves"]>): Record<string, unknown>[] => {
  if (!Array.isArray(r)) throw new Error(`an input error: ${JSON.stringify(r)}`);
  return r;
};

const EDITIONS = ["his", "his-500", "vq"] as const;
const RUNS = 6;

function domain(t: Type): readonly unknown[] {
  if (t.k === "bool") return [false, true];
  if (t.k === "enum") return t.members;
  throw new Error(`no finite domain: ${t.k}`);
}

/** Every move of `actor` over the finite domains that `check` allows (the oracle: no pruning). */
function bruteForce(ir: IREdition, gen: Generated, state: Record<string, unknown>, actor: string, unencoded: boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const a of [...ir.actions].sort((x, y) => (x.name < y.name ? -1 : 1))) {
    const info = gen.LEGAL_MOVE_ACTIONS.find((x) => x.action === a.name);
    if (!info?.enumerated || !a.params.every((p) => p.type.k === "enum" || p.type.k === "bool")) continue;
    if ((!info.encoded && !unencoded) || !inScope(a, state, actor)) continue;
    const me = a.params.find((p) => p.actor)!;
    if (!domain(me.type).includes(actor)) continue;
    const rec = (i: number, move: Record<string, unknown>): void => {
      if (i === a.params.length) {
        if (gen.checkTrusted(state, move).allowed) out.push({ ...move });
        return;
      }
      const p = a.params[i]!;
      for (const v of p.actor ? [actor] : domain(p.type)) rec(i + 1, { ...move, [p.name]: v });
    };
    rec(0, { action: a.name });
  }
  return out;
}

/** The top-level enum fields of the schema (`{ $ref: "#/$defs/X" }` to an enum, or an inline enum) and their members. */
function enumFields(schema: Record<string, unknown>): [string, readonly unknown[]][] {
  const defs = (schema.$defs ?? {}) as Record<string, { enum?: unknown[] }>;
  const props = (schema.properties ?? {}) as Record<string, { $ref?: string; enum?: unknown[] }>;
  const out: [string, readonly unknown[]][] = [];
  for (const [k, p] of Object.entries(props)) {
    const e = p.enum ?? (p.$ref?.startsWith("#/$defs/") ? defs[p.$ref.slice(8)]?.enum : undefined);
    if (e) out.push([k, e]);
  }
  return out;
}

for (const edition of EDITIONS) {
  describe(`legalMoves (${edition})`, () => {
    let ir: IREdition;
    let gen: Generated;
    let states: unknown[] = [];
    beforeAll(async () => {
      ir = loadEdition(`dsl/${edition}`).edition!;
      gen = (await import(pathToFileURL(path.resolve("generated", edition, "index.ts")).href)) as Generated;
      const seen = new Set<string>();
      for (const file of findScenarioFiles([path.join("test/scenarios", edition)])) {
        for (const s of readScenarioFile(file, (e) => path.join("test", "fixtures", path.basename(e))).scenarios) {
          const key = JSON.stringify(s.state);
          if (seen.has(key) || gen.validateState(s.state).length) continue;
          seen.add(key);
          states.push(s.state);
        }
      }
      states = states.slice(0, 40);
    }, 600_000);

    it("lists exactly the moves the validator allows, on random valid states", () => {
      expect(states.length).toBeGreaterThan(3);
      const fields = enumFields(ir.schema);
      const actors = [...new Set(ir.actions.flatMap((a) => a.params.filter((p) => p.actor).flatMap((p) => domain(p.type) as string[])))];
      const arbState = fc
        .tuple(
          fc.constantFrom(...states),
          fc.array(fc.tuple(fc.constantFrom(...fields), fc.nat()), { maxLength: 3 }),
        )
        .map(([base, redraws]) => {
          const s = structuredClone(base) as Record<string, unknown>;
          for (const [[k, members], n] of redraws) s[k] = members[n % members.length];
          return s;
        });
      let checked = 0;
      let listed = 0;
      fc.assert(
        fc.property(arbState, (state) => {
          fc.pre(gen.validateState(state).length === 0);
          checked++;
          for (const actor of actors) {
            const all = moves(gen.legalMoves(state, actor));
            for (const m of all) expect(gen.checkTrusted(state, m).allowed, JSON.stringify(m)).toBe(true);
            const finite = (m: Record<string, unknown>) => ir.actions.find((a) => a.name === m.action)!.params.every((p) => p.type.k === "enum" || p.type.k === "bool");
            expect(all.filter(finite), `actor ${actor}`).toEqual(bruteForce(ir, gen, state, actor, false));
            const withUnencoded = moves(gen.legalMoves(state, actor, { unencoded: true })).filter(finite);
            expect(withUnencoded, `actor ${actor}, unencoded`).toEqual(bruteForce(ir, gen, state, actor, true));
            listed += all.length;
          }
        }),
        { seed: 17, numRuns: RUNS },
      );
      expect(checked).toBeGreaterThan(RUNS / 2);
      expect(listed, "some state has a legal move").toBeGreaterThan(0);
    });

    it("names every action it leaves out with the reason, and marks the actions no rule restricts", () => {
      expect(gen.LEGAL_MOVE_ACTIONS.map((x) => x.action)).toEqual([...ir.actions].map((a) => a.name).sort());
      for (const x of gen.LEGAL_MOVE_ACTIONS) {
        expect(x.encoded, x.action).toBe(ir.rules.some((r) => r.action === x.action));
        if (!x.enumerated) expect(x.reason, x.action).toMatch(/finite domain|actor/);
      }
      if (edition !== "vq") {
        const enumerated = new Set(gen.LEGAL_MOVE_ACTIONS.filter((x) => x.enumerated).map((x) => x.action));
        for (const a of ["spring_deploy", "move_formation", "play_card"]) expect(enumerated.has(a), a).toBe(true);
        expect(gen.LEGAL_MOVE_ACTIONS.filter((x) => !x.encoded).map((x) => x.action)).toEqual(["end_diplomacy", "end_new_world", "end_spring_deployment"]);
      }
    });

    // the destination of a formation's move ranges over the origin's neighbours (move.connection
    // forbids every other space): the plan says so, and the listed moves above stay exact
    it.runIf(edition !== "vq")("enumerates move_formation's destinations among the origin's neighbours only", () => {
      const cx = editionContext(ir);
      const plan = enumerationPlan(cx, ir.actions.find((a) => a.name === "move_formation")!);
      expect("domains" in plan && plan.domains.map((d) => [d.param.name, d.k, d.k === "neighbors" ? d.of : undefined])).toEqual([
        ["origin", "enum", undefined],
        ["destination", "neighbors", "origin"],
        ["land_units", "int", undefined],
        ["leaders", "subset", undefined],
      ]);
      // spring_deploy's destination has no such rule (a path of any length): every space
      const deploy = enumerationPlan(cx, ir.actions.find((a) => a.name === "spring_deploy")!);
      expect("domains" in deploy && deploy.domains.find((d) => d.param.name === "destination")!.k).toBe("enum");
    });

    // issue 26: a scope naming two phases (`during luthers_95_theses, action_phase`, dsl/his/control.rules)
    it.runIf(edition !== "vq")("lists reformation_attempt in Luther's 95 Theses and the Action Phase only, there exactly the attempts check allows", () => {
      expect(gen.LEGAL_MOVE_ACTIONS.find((x) => x.action === "reformation_attempt")!.scope).toBe("during luthers_95_theses, action_phase");
      const phases = (ir.enums.find((e) => e.name === "Phase")!.members as string[]);
      const spaces = ir.enums.find((e) => e.name === "Space")!.members as string[];
      const inScope: Record<string, number> = {};
      let outOfScope = 0;
      for (let n = 0; n < 12; n++) {
        for (const phase of phases) {
          const state = structuredClone(makeState(31000 + n, "pass")) as Record<string, any>;
          state.phase = phase;
          state.segment = phase === "diplomacy" ? "negotiations" : "none";
          // no obligation of another action binds the actor (pass.empty_hand: a card in hand)
          if (gen.validateState(state).length) continue;
          for (const actor of ["protestant", "papacy"]) {
            const listed = moves(gen.legalMoves(state, actor)).filter((m) => m.action === "reformation_attempt").map((m) => m.space);
            const allowed = spaces.filter((space) => gen.checkTrusted(state, { action: "reformation_attempt", power: actor, space }).allowed);
            const obliged = moves(gen.legalMoves(state, actor)).length > 0 && moves(gen.legalMoves(state, actor)).every((m) => m.action === "pass");
            if (phase === "luthers_95_theses" || phase === "action_phase") {
              if (obliged) continue;
              expect(listed, `${phase}, ${actor}`).toEqual(allowed);
              inScope[phase] = (inScope[phase] ?? 0) + listed.length;
            } else {
              expect(listed, `${phase}, ${actor}`).toEqual([]);
              outOfScope += allowed.length; // check still allows them: the scope, not a rule, leaves them out
            }
          }
        }
      }
      expect(inScope.luthers_95_theses, "attempts listed in Luther's 95 Theses").toBeGreaterThan(50);
      expect(inScope.action_phase, "attempts listed in the Action Phase").toBeGreaterThan(50);
      expect(outOfScope, "attempts check allows outside the two phases").toBeGreaterThan(100);
    });

    // vq: every enumerated action with an int, string or list parameter (those its scopes made
    // enumerable: play_card, play_treasure, take_action, the spring deployment steps), moves drawn
    // from the state's own strings, small ints and the board's spaces, in the action's scope
    it.runIf(edition === "vq")("lists every move check allows of the actions with int, string and list parameters (values drawn from the state)", () => {
      const targets = ir.actions.filter((a) => a.params.some((p) => p.type.k === "int" || p.type.k === "string" || p.type.k === "list") && gen.LEGAL_MOVE_ACTIONS.find((x) => x.action === a.name)?.enumerated);
      expect(targets.map((a) => a.name).sort()).toEqual(["discard_home_card", "hold_leader", "place_leader", "place_sea_captain", "play_card", "play_treasure", "spring_deploy", "take_action"]);
      const spaces = (ir.enums.find((e) => e.name === "Space")?.members ?? []) as string[];
      /** every string in the state (card ids, leader and captain names, …), in order of first appearance */
      const strings = (v: unknown, out: Set<string>): Set<string> => {
        if (typeof v === "string") out.add(v);
        else if (Array.isArray(v)) for (const x of v) strings(x, out);
        else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
        return out;
      };
      let allowed = 0;
      const perAction = new Map<string, number>();
      fc.assert(
        fc.property(fc.constantFrom(...states), fc.constantFrom(...targets), fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), (base, a, picks) => {
          const state = structuredClone(base) as Record<string, any>;
          const sc = a.scope!;
          const during = sc.during![picks[1]! % sc.during!.length]!;
          state.phase = during.phase;
          state.segment = during.segment ?? "none";
          const me = a.params.find((p) => p.actor)!;
          const actor = sc.activeOnly ? (state.active_power as string) : (domain(me.type)[picks[0]! % domain(me.type).length] as string);
          if (gen.validateState(state).length) return;
          const pool = [...strings(state, new Set())];
          const move: Record<string, unknown> = { action: a.name };
          a.params.forEach((p, n) => {
            const k = picks[(n + 1) % picks.length]!;
            if (p.actor) move[p.name] = actor;
            else if (p.type.k === "enum" && p.type.name === "Space") move[p.name] = spaces[k % spaces.length];
            else if (p.type.k === "enum" || p.type.k === "bool") move[p.name] = domain(p.type)[k % domain(p.type).length];
            else if (p.type.k === "int") move[p.name] = (k % 9) - 1;
            else if (p.type.k === "string") move[p.name] = pool[k % pool.length];
            else move[p.name] = k % 3 === 0 ? [] : [pool[k % pool.length]]; // a list in canonical form: empty or one element
          });
          if (!gen.checkTrusted(state, move).allowed) return;
          allowed++;
          perAction.set(a.name, (perAction.get(a.name) ?? 0) + 1);
          expect(moves(gen.legalMoves(state, actor)), JSON.stringify(move)).toContainEqual(move);
        }),
        { seed: 2026, numRuns: 3000 },
      );
      expect(allowed, "some drawn move is allowed").toBeGreaterThan(10);
      expect(perAction.size, JSON.stringify([...perAction])).toBeGreaterThanOrEqual(3);
    });

    // his (his-500's enumerators come from the same rules; the seeded states are his states)
    it.runIf(edition === "his")("lists every move check allows of the actions with int, string and list parameters (drawn near the state's values)", () => {
      const targets = ir.actions.filter((a) => a.params.some((p) => p.type.k === "int" || p.type.k === "string" || p.type.k === "list") && gen.LEGAL_MOVE_ACTIONS.find((x) => x.action === a.name)?.enumerated);
      expect(targets.map((a) => a.name).sort()).toEqual(["move_formation", "play_card", "spring_deploy"]);
      const spaces = (ir.enums.find((e) => e.name === "Space")?.members ?? []) as string[];
      let allowed = 0;
      const phases: Record<string, string> = { spring_deploy: "spring_deployment", move_formation: "action_phase", play_card: "action_phase" };
      // the scenario states, and the benchmark's seeded Here I Stand states (bench/states.ts), which
      // put formations and leaders in the capitals
      const pool = [...states, ...Array.from({ length: 40 }, (_, n) => makeState(26000 + n, n % 2 ? "spring_deploy" : "pass"))];
      const adj = new Map<string, string[]>();
      for (const c of ir.board?.connections ?? []) {
        adj.set(c.from, [...(adj.get(c.from) ?? []), c.to]);
        adj.set(c.to, [...(adj.get(c.to) ?? []), c.from]);
      }
      fc.assert(
        fc.property(fc.constantFrom(...pool), fc.constantFrom(...targets), fc.nat(), fc.nat(), fc.nat(), fc.integer({ min: -1, max: 7 }), fc.nat(), fc.boolean(), (base, a, i, j, k, units, pick, asEvent) => {
          const state = structuredClone(base) as Record<string, any>;
          state.phase = phases[a.name];
          state.segment = "none";
          if (state.impulse) state.impulse.cp_left = Math.max(state.impulse.cp_left ?? 0, 2);
          if (gen.validateState(state).length) return;
          const actor = state.active_power as string;
          // an origin where the actor has land units or leaders, else any space
          const own = spaces.filter((s) => (state.spaces[s].land_units?.[actor] ?? 0) > 0 || state.spaces[s].leaders?.some((l: any) => l.power === actor));
          const origin = own.length ? own[i % own.length]! : spaces[i % spaces.length]!;
          const names = ((state.spaces[origin].leaders ?? []) as { name: string; power: string }[]).filter((l) => l.power === actor).map((l) => l.name);
          const leaders = names.filter((_, n) => (pick >> n) & 1);
          const hand = ((state.hands?.[actor] ?? []) as { id: string }[]).map((c) => c.id);
          const move: Record<string, unknown> =
            a.name === "play_card"
              ? { action: a.name, power: actor, card: hand.length ? hand[k % hand.length] : "no_such_card", as: asEvent ? "event" : "cp" }
              : { action: a.name, power: actor, origin, destination: j % 2 && adj.get(origin)?.length ? adj.get(origin)![(j >> 1) % adj.get(origin)!.length] : spaces[(j >> 1) % spaces.length], land_units: units, leaders };
          if (!gen.checkTrusted(state, move).allowed) return;
          allowed++;
          expect(moves(gen.legalMoves(state, actor)), JSON.stringify(move)).toContainEqual(move);
        }),
        { seed: 26, numRuns: 1500 },
      );
      expect(allowed, "some drawn move is allowed").toBeGreaterThan(10);
    });
  });
}
