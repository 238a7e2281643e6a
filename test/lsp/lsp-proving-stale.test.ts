/**
 * A proving run is stale from the keystroke (compiler/lsp/proving.ts `Proving.edited`, called by
 * the diagnostics schedule when a file of the edition changes), not only from the next check: it
 * starts no further obligation, its verdicts are not published, and its progress ends once the
 * obligation already in its solver process has ended. Driven in process with a prover whose
 * `proveEdition` answers only when the test says (keys.ts `useProver`), on the mini fixture
 * edition: deterministic, no solver and no timing (the server-level behaviour is exercised by
 * test/lsp/lsp-prove.test.ts with the real client).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Project } from "../../compiler/lsp/project.js";
import { Proving } from "../../compiler/lsp/proving.js";
import { useProver, type ProverModule } from "../../compiler/lsp/keys.js";
import { obligationsFor, type Obligation } from "../../compiler/ir/obligations.js";
import type { IREdition } from "../../compiler/ir/types.js";
import type { ProofReport } from "../../compiler/ir/proof-report.js";

const MINI = path.resolve(import.meta.dirname, "../fixtures/frontend/mini");

/** A prover whose solves wait for the test: `calls` lists each obligation asked for, `answer()` ends the oldest pending one. */
function heldProver() {
  const calls: string[] = [];
  const pending: (() => void)[] = [];
  const mod: ProverModule = {
    SolverPool: class {
      readonly workers = 1;
      start() {
        return () => undefined;
      }
      boot() {}
      async close() {}
    },
    defaultWorkers: () => 2,
    proveEdition: (ir: IREdition, opts: { only: (o: Obligation) => boolean }) => {
      const ob = obligationsFor(ir).find(opts.only)!;
      calls.push(ob.id);
      return new Promise<ProofReport>((resolve) => pending.push(() => resolve({ obligations: [{ ...ob, verdict: "proved", ms: 0 }] } as unknown as ProofReport)));
    },
  };
  return { mod, calls, answer: () => pending.shift()?.() };
}

describe("background proving: a run is stale from the keystroke", () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-lsp-stale-"));
    fs.cpSync(MINI, path.join(root, "dsl/mini"), { recursive: true });
  });
  afterAll(() => {
    useProver(undefined);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("an edit during a run: the obligation in flight ends, no further one starts, nothing of the run is published, its progress ends", async () => {
    const prover = heldProver();
    useProver({ cacheFile: () => path.join(root, "none.json.gz"), openCache: () => ({ file: "", get: () => undefined, save: () => undefined }), obligationKeyer: () => (ob) => ob.id, load: async () => prover.mod });
    const published: string[][] = [];
    const progress: string[] = [];
    const proving = new Proving({
      root, prove: true, findings: true, workers: 1,
      onChange: (files) => published.push([...files]),
      progress: async () => ({ begin: () => progress.push("begin"), report: () => progress.push("report"), done: () => progress.push("done") }),
      log: () => undefined,
    });
    const project = new Project(root);
    const dir = path.join(root, "dsl/mini");
    const { edition } = project.check(dir);
    expect(edition).toBeDefined();
    const total = obligationsFor(edition!).length;
    expect(total).toBeGreaterThan(2);
    proving.checked(dir, edition);
    await vi.waitFor(() => expect(prover.calls).toHaveLength(1), { timeout: 10_000, interval: 5 });
    const before = published.length;
    // the keystroke: before any check of the edited text
    proving.edited(dir);
    prover.answer();
    await vi.waitFor(() => expect(progress.at(-1)).toBe("done"), { timeout: 10_000, interval: 5 });
    expect(prover.calls).toHaveLength(1);
    // the stale run's verdict is not shown
    expect(published.length).toBe(before);
    expect(proving.diagnostics(path.join(dir, "war.rules")).filter((d) => String(d.message).includes("proved"))).toEqual([]);
    await proving.close();
  });
});
