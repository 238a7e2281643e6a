/**
 * Position-free fingerprints (compiler/ir/fingerprint.ts): the proof cache memoises its content
 * hashes by them and the language server finds the rules an edit changed with them, so a rule
 * moved down a file (positions only) or retitled keeps its fingerprint, and a change of its meaning
 * does not.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { contentFingerprint, ruleFingerprint } from "../../compiler/ir/fingerprint.js";
import type { IRRule } from "../../compiler/ir/types.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const ir = loadEdition("test/fixtures/frontend/mini", { repoRoot: REPO }).edition!;

/** A deep copy of `x` with every `pos.line` moved down by `by`. */
function moved<T>(x: T, by: number): T {
  return JSON.parse(JSON.stringify(x), (k, v) => (k === "pos" && v && typeof v === "object" ? { ...v, line: v.line + by } : v)) as T;
}

describe("position-free fingerprints", () => {
  it("a rule moved (positions only) or retitled keeps its fingerprint; its condition, kind or action changed does not", () => {
    const r = ir.rules.find((x) => x.id === "dow.twice")!;
    expect(JSON.stringify(r)).toContain('"pos"');
    const m = moved(r, 7);
    expect(JSON.stringify(m)).not.toBe(JSON.stringify(r));
    expect(ruleFingerprint(m)).toBe(ruleFingerprint(r));
    expect(ruleFingerprint({ ...m, title: "another title" } as IRRule)).toBe(ruleFingerprint(r));
    expect(ruleFingerprint({ ...r, kind: r.kind === "forbid" ? "oblige" : "forbid" })).not.toBe(ruleFingerprint(r));
    expect(ruleFingerprint({ ...r, action: "pass" })).not.toBe(ruleFingerprint(r));
    const other = ir.rules.find((x) => x.id === "dow.genoa")!;
    expect(ruleFingerprint({ ...r, when: other.when })).not.toBe(ruleFingerprint(r));
  });

  it("keeps positions when asked, and tells an array hole from null", () => {
    const r = ir.rules[0]!;
    expect(contentFingerprint(moved(r, 1), true)).not.toBe(contentFingerprint(r, true));
    // eslint-disable-next-line no-sparse-arrays
    expect(contentFingerprint([1, , 3])).not.toBe(contentFingerprint([1, null, 3]));
  });
});
