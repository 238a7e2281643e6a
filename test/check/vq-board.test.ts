/**
 * The Virgin Queen edition's data files against what its sources state (dsl/vq/README.md,
 * "The board"): the schematic board carries the facts the rules read — every major power has a
 * capital, Spain and the Protestant two each — and names no real place; the fixtures validate
 * against the schema and break no invariant.
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { loadValidators } from "../../compiler/engine/loader.js";
import { stateProblems } from "../../compiler/engine/validate.js";

interface Space { id: string; name: string; type: string; home: string[] }
const board: { spaces: Space[]; connections: { from: string; to: string; type: string }[] } = JSON.parse(fs.readFileSync("dsl/vq/board.json", "utf8"));
const MAJOR = ["ottoman", "spain", "england", "france", "hre", "protestant"];

describe("vq board.json (schematic)", () => {
  it("gives Spain and the Protestant two capitals each and every other major power one", () => {
    const capitals = (p: string) => board.spaces.filter((s) => s.type === "capital" && s.home.includes(p)).length;
    for (const p of MAJOR) expect(capitals(p), p).toBe(p === "spain" || p === "protestant" ? 2 : 1);
  });

  it("marks every space as schematic (no real place names)", () => {
    for (const s of board.spaces) expect(s.name, s.id).toMatch(/\(schematic\)$/);
  });

  it("lists every connection in both directions", () => {
    const key = (c: { from: string; to: string; type: string }) => `${c.from}>${c.to}:${c.type}`;
    const all = new Set(board.connections.map(key));
    for (const c of board.connections) expect(all.has(key({ from: c.to, to: c.from, type: c.type })), key(c)).toBe(true);
  });
});

describe("vq fixtures", () => {
  it("validate against the schema and break no invariant", async () => {
    const edition = loadEdition("dsl/vq").edition!;
    expect(edition).toBeDefined();
    const mod = await loadValidators({ dir: "dsl/vq", bundled: true }, edition);
    for (const f of ["base-state.json", "spring-state.json"]) {
      const state = JSON.parse(fs.readFileSync(`test/fixtures/vq/${f}`, "utf8"));
      expect(stateProblems(edition, mod, state), f).toEqual([]);
    }
  });
});
