/**
 * legalMoves(state, actor) of every bundled edition (issue 17, item 3), a fast-check property with
 * a fixed seed: on random valid states (a scenario's state with some of its enum fields — phase,
 * segment, active power, … — redrawn, kept when `validateState` finds nothing), for every actor,
 * `legalMoves` lists exactly the moves `check` allows among every combination of the finite
 * parameters of every enumerated action (exhaustive), in the documented order, with no duplicate.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import type { IREdition, Type } from "../../compiler/ir/types.js";
import { findScenarioFiles, readScenarioFile } from "../../compiler/scenarios/index.js";

interface Generated {
  legalMoves(state: unknown, actor: string): Record<string, unknown>[];
  check(state: unknown, action: unknown): { allowed: boolean };
  validateState(state: unknown): unknown[];
  LEGAL_MOVE_ACTIONS: readonly { action: string; enumerated: boolean; reason?: string }[];
}

const EDITIONS = ["his", "his-500", "vq"] as const;
const RUNS = 6;

function domain(t: Type): readonly unknown[] {
  if (t.k === "bool") return [false, true];
  if (t.k === "enum") return t.members;
  throw new Error(`no finite domain: ${t.k}`);
}

/** Every move of `actor` over the finite domains that `check` allows (the oracle: no pruning). */
function bruteForce(ir: IREdition, gen: Generated, state: unknown, actor: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const a of [...ir.actions].sort((x, y) => (x.name < y.name ? -1 : 1))) {
    if (!gen.LEGAL_MOVE_ACTIONS.find((x) => x.action === a.name)?.enumerated) continue;
    const me = a.params.find((p) => p.actor)!;
    if (!domain(me.type).includes(actor)) continue;
    const rec = (i: number, move: Record<string, unknown>): void => {
      if (i === a.params.length) {
        if (gen.check(state, move).allowed) out.push({ ...move });
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
            const got = gen.legalMoves(state, actor);
            expect(got, `actor ${actor}`).toEqual(bruteForce(ir, gen, state, actor));
            listed += got.length;
          }
        }),
        { seed: 17, numRuns: RUNS },
      );
      expect(checked).toBeGreaterThan(RUNS / 2);
      expect(listed, "some state has a legal move").toBeGreaterThan(0);
    });

    it("names every action it leaves out with the reason (a parameter with no finite domain)", () => {
      expect(gen.LEGAL_MOVE_ACTIONS.map((x) => x.action)).toEqual([...ir.actions].map((a) => a.name).sort());
      for (const x of gen.LEGAL_MOVE_ACTIONS) {
        const a = ir.actions.find((y) => y.name === x.action)!;
        const finite = a.params.every((p) => p.type.k === "enum" || p.type.k === "bool") && a.params.some((p) => p.actor);
        expect(x.enumerated, x.action).toBe(finite);
        if (!finite) expect(x.reason, x.action).toMatch(/finite domain|actor/);
      }
    });
  });
}
