/**
 * What keeps the compiler's diagnostics quick while a proof runs (issue 23, item 2):
 *
 * - the IR's JSON for the solver processes is made in steps (compiler/lsp/ir-file.ts
 *   `jsonInSteps`) and is exactly `JSON.stringify`'s text; background proving hands the file to
 *   the pool (`adoptIrFile`) before the first obligation of that IR starts;
 * - the check after a keystroke runs with the solver processes stopped
 *   (compiler/lsp/diagnostics-schedule.ts → `Proving.pauseSolvers` → verify's `SolverPool.pause`),
 *   and they go on once the diagnostics are published;
 * - verify's `SolverPool.pause` stops a real solver process and resumes it (Linux: read from
 *   /proc; skipped elsewhere).
 *
 * Deterministic: fake provers and pools where the order of calls is the point, no timed
 * assertion.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Project } from "../../compiler/lsp/project.js";
import { Proving } from "../../compiler/lsp/proving.js";
import { DiagnosticsSchedule, type ProjectEntry } from "../../compiler/lsp/diagnostics-schedule.js";
import { jsonInSteps } from "../../compiler/lsp/ir-file.js";
import { useProver, type ProverModule } from "../../compiler/lsp/keys.js";
import { Features } from "../../compiler/lsp/protocol.js";
import { obligationsFor, type Obligation } from "../../compiler/ir/obligations.js";
import type { IREdition } from "../../compiler/ir/types.js";
import type { ProofReport } from "../../compiler/ir/proof-report.js";
import { SolverPool } from "../../compiler/verify/run/runner.js";

const MINI = path.resolve(import.meta.dirname, "../fixtures/frontend/mini");

describe("the IR's JSON in steps", () => {
  it("is JSON.stringify's text, fields and array elements left out or nulled as it does", async () => {
    const { edition } = new Project(path.resolve(MINI, "../../../..")).check(MINI);
    expect(edition).toBeDefined();
    let steps = 0;
    const step = async () => (steps++, true);
    expect(await jsonInSteps(edition, step)).toBe(JSON.stringify(edition));
    const odd = { a: undefined, b: () => 1, c: [undefined, () => 2, 1, { d: undefined }], e: "x\"y", f: null, g: [], h: { toJSON: () => "h" }, i: new Date(0) };
    expect(await jsonInSteps(odd, step)).toBe(JSON.stringify(odd));
    expect(await jsonInSteps([1, { a: 2 }], step)).toBe(JSON.stringify([1, { a: 2 }]));
    expect(await jsonInSteps({ toJSON: () => ({ z: 1 }) }, step)).toBe(JSON.stringify({ toJSON: () => ({ z: 1 }) }));
  });

  it("stops when a step says so", async () => {
    const big = { rules: Array.from({ length: 20_000 }, (_, i) => ({ id: `r${i}`, when: { op: "and", args: [i, i + 1, "x".repeat(40)] } })) };
    expect(await jsonInSteps(big, async () => false)).toBeUndefined();
  });
});

/** A prover whose pool records what the server asks of it, and whose solves wait for the test. */
function recordingProver(log: string[]) {
  const pending: (() => void)[] = [];
  const adopted: { ir: IREdition; file: string }[] = [];
  const mod: ProverModule = {
    SolverPool: class {
      readonly workers = 1;
      start() {
        return () => undefined;
      }
      boot() {}
      adoptIrFile(ir: IREdition, file: string) {
        adopted.push({ ir, file });
        log.push("adopt");
        return true;
      }
      pause() {
        log.push("pause");
        return () => log.push("resume");
      }
      async close() {}
    },
    defaultWorkers: () => 2,
    proveEdition: (ir: IREdition, opts: { only: (o: Obligation) => boolean }) => {
      const ob = obligationsFor(ir).find(opts.only)!;
      log.push(`prove ${ob.id}`);
      return new Promise<ProofReport>((resolve) => pending.push(() => resolve({ obligations: [{ ...ob, verdict: "proved", ms: 0 }] } as unknown as ProofReport)));
    },
  };
  return { mod, adopted, answerAll: () => pending.splice(0).forEach((f) => f()) };
}

describe("background proving leaves the cores to the diagnostics", () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-lsp-pause-"));
    fs.cpSync(MINI, path.join(root, "dsl/mini"), { recursive: true });
  });
  afterAll(() => {
    useProver(undefined);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("the IR file is handed to the pool before the first obligation; the check after a keystroke runs with the solvers stopped", async () => {
    const log: string[] = [];
    const prover = recordingProver(log);
    useProver({ cacheFile: () => path.join(root, "none.json.gz"), openCache: () => ({ file: "", get: () => undefined, save: () => undefined }), obligationKeyer: () => (ob) => ob.id, load: async () => prover.mod });
    const project = new Project(root);
    const dir = path.join(root, "dsl/mini");
    const file = project.ruleFilesIn(dir)[0]!;
    const published: string[] = [];
    const proving = new Proving({
      root, prove: true, findings: true, workers: 1,
      onChange: (files) => schedule.publish(files),
      progress: async () => ({ begin: () => undefined, report: () => undefined, done: () => undefined }),
      log: (m) => log.push(`log ${m}`),
    });
    // the project's check logged, to see where it falls between the pause and the resume
    const check = project.check.bind(project);
    project.check = (d: string) => {
      log.push("check");
      return check(d);
    };
    const entry: ProjectEntry = { project, features: new Features(project), proving };
    const schedule: DiagnosticsSchedule = new DiagnosticsSchedule({
      forFile: () => entry,
      entries: () => [entry],
      workspace: () => project,
      send: (f) => {
        if (f === file) published.push(f);
        log.push("send");
      },
      safe: (_what, fallback, f) => {
        try {
          return f();
        } catch {
          return fallback;
        }
      },
    });
    // opening: the check, then a run that proves the mini edition's obligations (the cache is empty)
    schedule.changed(file);
    await vi.waitFor(() => expect(log.some((l) => l.startsWith("prove "))).toBe(true), { timeout: 10_000, interval: 5 });
    const ir = project.lastGood.get(dir)!;
    expect(prover.adopted).toHaveLength(1);
    expect(prover.adopted[0]!.ir).toBe(ir);
    expect(JSON.parse(fs.readFileSync(prover.adopted[0]!.file, "utf8"))).toEqual(JSON.parse(JSON.stringify(ir)));
    expect(log.indexOf("adopt")).toBeLessThan(log.findIndex((l) => l.startsWith("prove ")));
    // no solver process existed at the opening's check: nothing was paused
    expect(log.slice(0, log.indexOf("adopt")).filter((l) => l === "pause")).toEqual([]);

    // a keystroke while the obligation is in its solver process
    const from = log.length;
    project.open.set(file, { text: fs.readFileSync(file, "utf8") + "\n// typed\n", version: 2 });
    project.invalidate();
    schedule.changed(file);
    await vi.waitFor(() => expect(log.slice(from)).toContain("resume"), { timeout: 10_000, interval: 5 });
    expect(published.length).toBeGreaterThan(1);
    const after = log.slice(from);
    const pause = after.indexOf("pause");
    const resume = after.indexOf("resume");
    expect(pause).toBeGreaterThanOrEqual(0);
    // stopped before the check, resumed after the diagnostics of the edit went out
    expect(after.indexOf("check")).toBeGreaterThan(pause);
    expect(after.lastIndexOf("send", resume)).toBeGreaterThan(after.indexOf("check"));
    expect(resume).toBeGreaterThan(after.indexOf("check"));
    expect(after.filter((l) => l === "pause")).toHaveLength(after.filter((l) => l === "resume").length);
    prover.answerAll();
    await proving.close();
  });
});

describe("verify's SolverPool.pause", () => {
  it.skipIf(process.platform !== "linux")("stops the solver processes and resumes them", async () => {
    const pool = new SolverPool(1);
    try {
      pool.boot();
      const pid = await vi.waitFor(() => {
        const p = pool.pool.threads[0]?.threadId;
        expect(p).toBeGreaterThan(0);
        return p!;
      }, { timeout: 10_000, interval: 5 });
      /** the process's state letter (/proc/<pid>/stat: after the command in parentheses) */
      const state = () => fs.readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
      const resume = pool.pause();
      await vi.waitFor(() => expect(state()).toBe("T"), { timeout: 10_000, interval: 5 });
      resume();
      await vi.waitFor(() => expect(state()).not.toBe("T"), { timeout: 10_000, interval: 5 });
    } finally {
      await pool.close();
    }
  });
});
