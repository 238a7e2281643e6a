/**
 * Every obligation of the bundled editions keeps its committed verdict (proofs/verdicts.tsv):
 * the fast paths (concrete witnesses, slicing, shared verdicts, the solver pool) must reproduce
 * exactly what the solver alone decided. The editions are proved once, in the shared setup.
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { proofReport } from "../helpers/proof-reports.js";
import { verdictTable } from "../helpers/verdicts.js";
import { bundledEditions } from "../../compiler/engine/editions.js";

describe("the verdict table (proofs/verdicts.tsv)", () => {
  const committed = fs.readFileSync("proofs/verdicts.tsv", "utf8").trim().split("\n");
  it("lists every obligation of every bundled edition with the verdict the prover gives now", () => {
    const now = bundledEditions().flatMap((e) => verdictTable(proofReport(`dsl/${e}`).obligations));
    expect(now.sort()).toEqual([...committed].sort());
  });
  it("has no unknown verdict", () => {
    expect(committed.filter((r) => r.split("\t")[1] === "unknown")).toEqual([]);
  });
});
