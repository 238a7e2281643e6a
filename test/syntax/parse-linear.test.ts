/**
 * Parsing is linear in the input (issue 29, item 5): unclosed brackets and `if … then … else`
 * chains at any depth below the nesting limit. Before, chevrotain's error recovery walked the
 * whole rule stack at every level an error unwound through: 400 unclosed `{` took 2.3 s and each
 * doubling of the depth four times as long (1.3 KB of `{`: 25.7 s of CPU).
 *
 * No clock: the work of a parse is counted (every method call on the chevrotain parser, in
 * test/helpers/parse-work-worker.mjs, a thread with a large stack) and the property compares the
 * work at depth d with the work at depth 2d, for d in 50–500 — about ×2 when linear, ×4 when
 * quadratic (it was ×3.9–4.0 for `{` and `(`).
 */
import fc from "fast-check";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_NESTING } from "../../compiler/syntax/depth.js";

type Work = { work: number; diagnostics: { code: string; message: string; line: number; column: number }[] };

const worker = new Worker(new URL("../helpers/parse-work-worker.mjs", import.meta.url), { resourceLimits: { stackSizeMb: 256 } });
afterAll(() => worker.terminate());

function parseWork(texts: string[]): Promise<Work[]> {
  return new Promise((resolve, reject) => {
    const failed = (e: Error) => reject(e);
    worker.once("error", failed);
    worker.once("message", (m: { results?: Work[]; error?: string }) => {
      worker.off("error", failed);
      if (m.results) resolve(m.results);
      else reject(new Error(m.error));
    });
    worker.postMessage({ texts });
  });
}

const HEAD = 'rule deep.nesting §1 "unclosed nesting"\n  forbid pass when ';
/** One level of nesting left open (each adds one level of depth.ts's `tokenNesting`). */
const OPENERS = ["{", "(", "f(", "state.a[", "{x, ", "if x then ", "if x then y else ", "some c in state.l: ", "not (", "count(", "-("];

/** Largest ratio of work allowed per doubling of depth: linear is ≤ 2, quadratic ≈ 4. */
const MAX_RATIO = 2.3;

describe("parsing time is linear in the nesting depth (work counted, not timed)", () => {
  it("unclosed `{` from 50 to 1,000 levels: ×2 work per doubling, one diagnostic", async () => {
    const depths = [62, 125, 250, 500, 1000];
    const rs = await parseWork(depths.map((d) => HEAD + "{".repeat(d)));
    for (const r of rs) expect(r.diagnostics.map((x) => [x.code, x.message])).toEqual([["RW1004", "expected an expression after `{`, found end of file"]]);
    const ratios = rs.slice(1).map((r, i) => r.work / rs[i]!.work);
    for (const q of ratios) expect(q).toBeLessThan(MAX_RATIO);
    // the deepest is below the limit, so it is parsed (above it, RW1007 without parsing)
    expect(Math.max(...depths)).toBeLessThan(MAX_NESTING);
  });

  it("property: any mix of unclosed brackets, calls, quantifiers and `if` chains at depth d and 2d (d in 50–500)", async () => {
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...OPENERS), { minLength: 1, maxLength: 6 }), fc.integer({ min: 50, max: 500 }), fc.boolean(), async (pattern, d, closeSome) => {
        tried++;
        const level = (i: number) => pattern[i % pattern.length]!;
        const text = (depth: number) => HEAD + Array.from({ length: depth }, (_, i) => level(i)).join("") + (closeSome ? "x ) ] }" : "");
        const [a, b] = await parseWork([text(d), text(2 * d)]);
        // a syntax error, reported once, and nothing of the declaration kept
        expect(a!.diagnostics.length).toBe(1);
        expect(b!.diagnostics.length).toBe(1);
        expect(b!.diagnostics[0]!.code).toMatch(/^RW100[345]$/);
        expect(b!.work / a!.work).toBeLessThan(MAX_RATIO);
      }),
      { seed: 29, numRuns: 40 },
    );
    expect(tried).toBe(40);
  });

  it("a long declaration with an error every few tokens (an enum, call arguments, table rows): ×2 work per doubling of its length", async () => {
    const shapes = [
      (n: number) => "enum X { a" + ", b c".repeat(n) + " }",
      (n: number) => HEAD + "f(" + "a b, ".repeat(n) + ")",
      (n: number) => 'table t §1 "t" (r: int): int { ' + "1: 2 3 ".repeat(n) + "}",
      (n: number) => "route r(p: P) { " + "land x: y z ".repeat(n) + "}",
    ];
    for (const shape of shapes) {
      const [a, b] = await parseWork([shape(1000), shape(2000)]);
      expect(b!.diagnostics.length).toBe(1);
      expect(b!.work / a!.work).toBeLessThan(MAX_RATIO);
    }
  });
});
