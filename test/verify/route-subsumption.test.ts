/**
 * Route subsumption (route-exact.ts `subsumes`, asserted by the edition diff): when every path of
 * one route call is a path of another, `reach_a ⇒ reach_b` is a lemma. A wrong lemma would turn a
 * real difference into "identical", so both sides are tested: the cases where one call has
 * strictly fewer steps (a land clause with one more conjunct, no mountain passes, fewer sea zones,
 * a limit against none) are found in that direction only, and on random states of the tiny board
 * every lemma found holds for the exact route answers (refined against the validator's search,
 * which test/verify/diff.test.ts checks against the generated validator).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Bool } from "z3-solver";
import type { Expr, IREdition, IRRoute, Type } from "../../compiler/ir/types.js";
import { ExactRouteEncoder } from "../../compiler/verify/diff/route-exact.js";
import { duringCheck, getZ3, runExclusive } from "../../compiler/verify/run/z3.js";
import * as T from "../helpers/tiny-ir.js";

type B = Bool<"main">;

const Bool: Type = { k: "bool" };
const Int: Type = { k: "int" };
const ir: IREdition = T.tinyIR();
const base = ir.routes.find((r) => r.name === "deploy_path")!;
const spaceField = (v: string, f: string): Expr => T.fld(T.idx(T.st("spaces"), T.v(v, T.Space)), f);
/** deploy_path whose land spaces must also be free of blockades: strictly fewer steps */
const strict: IRRoute = { ...base, name: "deploy_path_strict", land: T.and(base.land, T.not(spaceField(base.landVar, "blockaded"))) };
/** deploy_path with no limit on sea zones: at least as many steps */
const unlimited: IRRoute = { ...base, name: "deploy_path_unlimited", maxSeas: null };
const routes = [base, strict, unlimited];
const deploy = ir.actions.find((a) => a.name === "deploy")!;

const power = T.v("power", T.MajorPower);
const origin = T.v("origin", T.Space);
const destination = T.v("destination", T.Space);
const seas = T.v("seas", Int);
const call = (route: string, avoid: Expr, maxSeas: Expr, from = origin, to = destination): Expr => ({ k: "reach", route, args: [power, avoid, maxSeas], from, to, type: Bool });
const yes = T.lit(true, Bool);
const no = T.lit(false, Bool);
const n = (x: number) => T.int(x);

/** the calls compared, by name */
const CALLS: Record<string, Expr> = {
  plain: call("deploy_path", no, seas),
  no_passes: call("deploy_path", yes, seas),
  seas0: call("deploy_path", no, n(0)),
  seas1: call("deploy_path", no, n(1)),
  seas2: call("deploy_path", no, n(2)),
  strict: call("deploy_path_strict", no, seas),
  unlimited: call("deploy_path_unlimited", no, seas),
  reversed: call("deploy_path", no, seas, destination, origin),
};

/** encodes every call; returns the encoder and each call's route instance id */
function encodeCalls(ctx: Awaited<ReturnType<typeof getZ3>>) {
  const enc = new ExactRouteEncoder(ctx, { ...ir, routes }, 4);
  const env = enc.actionEnv(deploy);
  const ids: Record<string, number> = {};
  const terms: Record<string, B> = {};
  const reach = new Set<number>();
  for (const [name, e] of Object.entries(CALLS)) {
    const u = enc.withRoutes(routes, () => enc.unit(() => enc.bool(e, env)));
    expect(u.reach.size).toBe(1);
    ids[name] = [...u.reach][0];
    terms[name] = u.e;
    reach.add(ids[name]);
  }
  return { enc, ids, terms, reach };
}

describe("route subsumption", () => {
  it("finds each subsumption in its direction only", async () => {
    const ctx = await getZ3();
    await runExclusive(async () => {
      const { enc, ids } = encodeCalls(ctx);
      const sub = (a: string, b: string) => enc.subsumes(ids[a], ids[b]);
      // fewer steps ⊆ more steps, never the reverse
      const strictly: [string, string][] = [
        ["no_passes", "plain"], // mountain passes
        ["seas0", "seas1"], // a start on a sea zone needs max_seas ≥ 1
        ["seas1", "seas2"],
        ["strict", "plain"], // one more conjunct in the land clause
        ["plain", "unlimited"], // a limit against none
      ];
      for (const [a, b] of strictly) {
        expect(await sub(a, b), `${a} ⊆ ${b}`).toBe(true);
        expect(await sub(b, a), `${b} ⊄ ${a}`).toBe(false);
      }
      // unrelated limits: a symbolic max_seas against a literal one
      expect(await sub("plain", "seas1")).toBe(false);
      expect(await sub("seas1", "plain")).toBe(false);
      // the same call twice is the same instance; calls with other ends are not compared (diff.ts groups by ends)
      expect(enc.endsKey(ids.plain)).toBe(enc.endsKey(ids.no_passes));
      expect(enc.endsKey(ids.plain)).not.toBe(enc.endsKey(ids.reversed));
    });
  });

  it("every subsumption found holds for the exact route answers on random states", async () => {
    const ctx = await getZ3();
    const powers = T.Power.members;
    const spaces = T.board.spaces.map((s) => s.id);
    const arbState = fc.record({
      spaces: fc.tuple(...spaces.map(() => fc.record({ mine: fc.integer({ min: 0, max: 3 }), other: fc.constantFrom(...powers), unrest: fc.integer({ min: 0, max: 4 }), blockaded: fc.integer({ min: 0, max: 2 }) }))),
      power: fc.constantFrom("red", "blue"),
      origin: fc.constantFrom(...spaces),
      destination: fc.constantFrom(...spaces),
      seas: fc.integer({ min: -1, max: 3 }),
    });
    await runExclusive(async () => {
      const { enc, ids, terms, reach } = encodeCalls(ctx);
      const names = Object.keys(CALLS);
      const pairs: [string, string][] = [];
      for (const a of names) for (const b of names) if (a !== b && enc.endsKey(ids[a]) === enc.endsKey(ids[b]) && (await enc.subsumes(ids[a], ids[b]))) pairs.push([a, b]);
      expect(pairs.length).toBeGreaterThanOrEqual(5);
      let strictSeen = 0;
      await fc.assert(
        fc.asyncProperty(arbState, async (x) => {
          const pins: B[] = [];
          const asserted = new Set<string>();
          const pin = (name: string, type: Parameters<typeof enc.terms.leaf>[1], value: boolean | number | string) => {
            const e = enc.terms.leaf(name, type);
            asserted.add(name);
            if (type.k === "enum") pins.push((e as never as { eq(x: unknown): B }).eq(enc.terms.enumVal(type.base, enc.terms.enumCode(type, value as string))));
            else if (type.k === "bool") pins.push(value ? (e as B) : enc.terms.not(e as B));
            else pins.push((e as never as { eq(x: number): B }).eq(value as number));
          };
          spaces.forEach((id, i) => {
            const g = x.spaces[i];
            pin(`state.spaces[${id}].controller`, T.Power, g.mine > 0 ? x.power : g.other);
            pin(`state.spaces[${id}].unrest`, { k: "bool" }, g.unrest === 0);
            pin(`state.spaces[${id}].blockaded`, { k: "bool" }, g.blockaded === 0);
          });
          pin("action.power", T.MajorPower, x.power);
          pin("action.origin", T.Space, x.origin);
          pin("action.destination", T.Space, x.destination);
          pin("action.seas", { k: "int" }, x.seas);
          // the exact answers of every call on this state (no lemma asserted: refinement only)
          const s = new ctx.Solver();
          try {
            for (const p of pins) s.add(p);
            for (let round = 0; ; round++) {
              expect(round).toBeLessThan(200);
              expect(await duringCheck(() => s.check())).toBe("sat");
              const m = s.model();
              try {
                const ref = enc.refine(m, reach, asserted);
                if (ref.lemmas.length) {
                  for (const l of ref.lemmas) s.add(l);
                  continue;
                }
                const holds = (name: string) => ctx.isTrue(m.eval(terms[name], true));
                for (const [a, b] of pairs) {
                  if (holds(a)) expect(holds(b), `${a} reaches, so ${b} must`).toBe(true);
                  if (!holds(a) && holds(b)) strictSeen++;
                }
                return;
              } finally {
                m.release();
              }
            }
          } finally {
            s.release();
          }
        }),
        { numRuns: 60, seed: 20261130 },
      );
      // the pairs are not vacuous: the larger call often reaches where the smaller does not
      expect(strictSeen).toBeGreaterThan(5);
    });
  });
});
