/**
 * The board builtin `distance(a, b)` through every backend: the shortest-path matrix
 * (compiler/ir/board.ts), the generated DISTANCE table (codegen), the interpreter's own
 * breadth-first search, and the prover's encoding (exact: folded for known spaces, an
 * if-then-else over the matrix for symbolic ones). The board is the tiny edition's
 * (test/helpers/tiny-ir.ts); the checker's side is in test/check/check.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateEdition } from "../../compiler/codegen/index.js";
import { createInterpreter } from "../../compiler/interpret/index.js";
import { boardDistances } from "../../compiler/ir/board.js";
import type { Board, Expr, IREdition, IRRule } from "../../compiler/ir/types.js";
import { Encoder, type Sym } from "../../compiler/verify/encode/encoder.js";
import { duringCheck, getZ3, runExclusive } from "../../compiler/verify/run/z3.js";
import { and, board as tinyBoard, board_, cmp, en, eq, int, Space, tinyIR, tinyState, v } from "../helpers/tiny-ir.js";
import { writeGenerated } from "../helpers/generated-files.js";

const ids = tinyBoard.spaces.map((s) => s.id);
const N = ids.length;
const dist = (from: Expr, to: Expr): Expr => ({ k: "distance", from, to, type: { k: "int", min: 0, max: N } });
const origin = v("origin", Space);
const destination = v("destination", Space);
const units = v("units", { k: "int" });
const s = v("s", Space);

const rule = (id: string, when: Expr): IRRule => ({
  id, kind: "forbid", action: "deploy", title: id, citation: { source: "tiny", section: "1", text: "tiny §1" }, scope: null, groups: [], when,
  pos: { file: "dsl/tiny/tiny.rules", line: 90, column: 1 },
});

/** tinyIR plus two rules on `deploy`: the distance is exactly `units`; a fortified space is strictly nearer to the origin than the destination. */
function distanceIR(): IREdition {
  const ir = tinyIR();
  const nearer: Expr = {
    k: "quant", q: "some", var: "s", varType: Space, domain: { k: "enum", type: Space },
    body: and(board_("is_fortified", s), cmp("<", dist(origin, s), dist(origin, destination))), type: { k: "bool" },
  };
  return { ...ir, rules: [...ir.rules, rule("dist.exact", eq(dist(origin, destination), units)), rule("dist.nearer", nearer)] };
}

// the tiny board, by hand: alpha–beta, beta═gamma (pass), alpha–delta, gamma–zeta, delta┄north_sea,
// epsilon┄north_sea, north_sea–south_sea, zeta┄south_sea
const EXPECTED: Record<string, Record<string, number>> = {
  alpha: { alpha: 0, beta: 1, gamma: 2, delta: 1, epsilon: 3, zeta: 3, north_sea: 2, south_sea: 3 },
  epsilon: { alpha: 3, beta: 4, gamma: 4, delta: 2, epsilon: 0, zeta: 3, north_sea: 1, south_sea: 2 },
  gamma: { alpha: 2, beta: 1, gamma: 0, delta: 3, epsilon: 4, zeta: 1, north_sea: 3, south_sea: 2 },
};

describe("boardDistances", () => {
  const d = boardDistances(tinyBoard);

  it("counts every connection type as one step (a mountain pass, a port, a sea connection; a sea zone is a space)", () => {
    for (const [a, row] of Object.entries(EXPECTED)) for (const [b, n] of Object.entries(row)) expect(d[ids.indexOf(a)]![ids.indexOf(b)], `${a}→${b}`).toBe(n);
  });

  it("is symmetric, 0 on the diagonal, 1 exactly between adjacent spaces", () => {
    const adj = new Set(tinyBoard.connections.flatMap((c) => [`${c.from}|${c.to}`, `${c.to}|${c.from}`]));
    for (let i = 0; i < N; i++) {
      for (let j = 0; j < N; j++) {
        expect(d[i]![j]).toBe(d[j]![i]);
        expect(d[i]![j] === 0).toBe(i === j);
        expect(d[i]![j] === 1).toBe(adj.has(`${ids[i]}|${ids[j]}`));
      }
    }
  });

  it("gives the space count for a pair no path joins, and follows the given order", () => {
    const island: Board = { spaces: [...tinyBoard.spaces, { id: "island", name: "Island", type: "normal", home: [] }], connections: tinyBoard.connections };
    const di = boardDistances(island);
    expect(di[0]![N]).toBe(N + 1);
    expect(di[N]![N]).toBe(0);
    const rev = [...ids].reverse();
    const dr = boardDistances(tinyBoard, rev);
    expect(dr[rev.indexOf("epsilon")]![rev.indexOf("gamma")]).toBe(4);
    expect(() => boardDistances(tinyBoard, ["alpha"])).toThrow(/unknown space/);
  });
});

describe("generated DISTANCE table and the interpreter", () => {
  let dir: string;
  let files: { path: string; content: string }[];
  let gen: { checkTrusted(state: unknown, action: unknown): { violations: readonly { rule: string }[] }; board: Record<string, unknown> };
  let board: { distance(a: string, b: string): number; DISTANCE: readonly (readonly number[])[] };

  beforeAll(async () => {
    files = await generateEdition(distanceIR());
    dir = writeGenerated(files, "rulewright-distance-");
    gen = await import(pathToFileURL(path.join(dir, "generated/tiny/index.ts")).href);
    board = await import(pathToFileURL(path.join(dir, "generated/tiny/board.ts")).href);
  });
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("board.ts carries the matrix only for an edition that calls distance, deterministically", async () => {
    const text = files.find((f) => f.path.endsWith("board.ts"))!.content;
    expect(text).toContain("export const DISTANCE: readonly (readonly number[])[] = [");
    expect(text).toContain("  /* 4 epsilon */ [3, 4, 4, 2, 0, 3, 1, 2],");
    expect(text).toContain("export function distance(a: Space, b: Space): number {");
    const again = (await generateEdition(distanceIR())).find((f) => f.path.endsWith("board.ts"))!.content;
    expect(again).toBe(text);
    const plain = (await generateEdition(tinyIR())).find((f) => f.path.endsWith("board.ts"))!.content;
    expect(plain).not.toContain("DISTANCE");
    // the validators import it from board.ts
    expect(files.find((f) => f.path.endsWith("validators.ts"))!.content).toMatch(/import \{[^}]*\bdistance\b[^}]*\} from "\.\/board\.js";/);
  });

  it("typechecks (noUncheckedIndexedAccess)", () => {
    const program = ts.createProgram(files.map((f) => path.join(dir, f.path)), {
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true,
      skipLibCheck: true, isolatedModules: true, noUncheckedIndexedAccess: true, types: [],
    });
    expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
  });

  it("generated distance, the interpreter's search and boardDistances agree on every pair; verdicts agree", () => {
    const d = boardDistances(tinyBoard);
    const interp = createInterpreter(distanceIR());
    const state = tinyState();
    for (const a of ids) {
      for (const b of ids) {
        const want = d[ids.indexOf(a)]![ids.indexOf(b)]!;
        expect(board.distance(a, b), `${a}→${b}`).toBe(want);
        for (const u of [want - 1, want, want + 1]) {
          const action = { action: "deploy", power: "red", origin: a, destination: b, units: u, avoid_passes: false, seas: 1 };
          expect(interp.fires("dist.exact", state, action), `${a}→${b} units ${u}`).toBe(u === want);
          expect(interp.check(state, action)).toEqual(gen.checkTrusted(state, action));
        }
        // a fortified space (alpha, gamma, delta, zeta) strictly nearer to a than b
        const nearer = ["alpha", "gamma", "delta", "zeta"].some((f) => d[ids.indexOf(a)]![ids.indexOf(f)]! < want);
        expect(interp.fires("dist.nearer", state, { action: "deploy", power: "red", origin: a, destination: b, units: 0, avoid_passes: false, seas: 1 }), `nearer ${a}→${b}`).toBe(nearer);
      }
    }
  });

  it("the interpreter gives the space count for a pair no path joins", () => {
    const ir = distanceIR();
    const island: IREdition = { ...ir, board: { ...ir.board, connections: ir.board.connections.filter((c) => c.to !== "epsilon" && c.from !== "epsilon") } };
    const interp = createInterpreter(island);
    const action = { action: "deploy", power: "red", origin: "alpha", destination: "epsilon", units: N, avoid_passes: false, seas: 1 };
    expect(interp.fires("dist.exact", tinyState(), action)).toBe(true);
  });
});

describe("prover encoding of distance", () => {
  it("is exact: folded when both spaces are known, equal to the matrix for every pinned pair when symbolic (one or both)", async () => {
    const ctx = await getZ3();
    const ir = distanceIR();
    const enc = new Encoder(ctx, ir, 4);
    const d = boardDistances(ir.board);
    const env = enc.actionEnv(ir.actions.find((a) => a.name === "deploy")!);
    const sp = (m: string) => en(Space, m);
    // both known: a constant
    for (const a of ids) for (const b of ids) {
      const x = enc.expr(dist(sp(a), sp(b)), env);
      expect(x).toMatchObject({ k: "i", c: d[ids.indexOf(a)]![ids.indexOf(b)] });
    }
    const both = enc.expr(dist(origin, destination), env);
    const oneL = enc.expr(dist(sp("epsilon"), destination), env);
    const oneR = enc.expr(dist(origin, sp("epsilon")), env);
    const o = env.get("origin")!;
    const t = env.get("destination")!;
    if (both.k !== "i" || oneL.k !== "i" || oneR.k !== "i" || o.k !== "e" || t.k !== "e") throw new Error("unexpected encoding");
    const val = (m: string) => enc.constSym(Space, m);
    const code = (m: string) => (val(m) as { e: typeof o.e }).e;
    await runExclusive(async () => {
      const solver = new ctx.Solver();
      try {
        for (const a of ids) {
          for (const b of ids) {
            const want = d[ids.indexOf(a)]![ids.indexOf(b)]!;
            solver.push();
            solver.add(o.e.eq(code(a)), t.e.eq(code(b)));
            // some other value is impossible: unsat
            solver.add(ctx.Or(ctx.Not(both.e.eq(want)), ctx.Not(oneL.e.eq(d[ids.indexOf("epsilon")]![ids.indexOf(b)]!)), ctx.Not(oneR.e.eq(d[ids.indexOf(a)]![ids.indexOf("epsilon")]!))));
            expect(await duringCheck(() => solver.check()), `${a}→${b}`).toBe("unsat");
            solver.pop();
          }
        }
      } finally {
        solver.release();
      }
    });
  });

  it("the rule `a fortified space is strictly nearer` means what the interpreter says, pair by pair", async () => {
    const ctx = await getZ3();
    const ir = distanceIR();
    const enc = new Encoder(ctx, ir, 4);
    const env = enc.actionEnv(ir.actions.find((a) => a.name === "deploy")!);
    const cond = enc.bool(ir.rules.find((r) => r.id === "dist.nearer")!.when, env);
    const interp = createInterpreter(ir);
    const enumTerm = (x: Sym) => {
      if (x.k !== "e") throw new Error("not an enum value");
      return x.e;
    };
    const o = enumTerm(env.get("origin")!);
    const t = enumTerm(env.get("destination")!);
    const code = (m: string) => enumTerm(enc.constSym(Space, m));
    await runExclusive(async () => {
      const solver = new ctx.Solver();
      try {
        for (const a of ids) {
          for (const b of ids) {
            const fires = interp.fires("dist.nearer", tinyState(), { action: "deploy", power: "red", origin: a, destination: b, units: 0, avoid_passes: false, seas: 1 });
            solver.push();
            solver.add(o.eq(code(a)), t.eq(code(b)), fires ? ctx.Not(cond) : cond);
            expect(await duringCheck(() => solver.check()), `${a}→${b}`).toBe("unsat");
            solver.pop();
          }
        }
      } finally {
        solver.release();
      }
    });
  });
});
