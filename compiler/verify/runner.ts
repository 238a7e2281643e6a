/**
 * Running obligations: in a solver child process (worker.ts) with a watchdog and a whole-run
 * deadline, or in this process. Either way every obligation gets a result — a crash, a hang, a
 * kill or the deadline give `unknown` with the reason — and the run never hangs.
 */
import { fork, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { IREdition } from "../ir/types.js";
import type { Obligation } from "./obligations.js";
import { proverFor, type SolvedObligation } from "./solve.js";
import type { ProveRequest, WorkerMessage } from "./worker.js";
import { getZ3, runExclusive } from "./z3.js";

export interface RunOptions {
  timeoutMs: number;
  listBound: number;
  /** absolute time (performance.now()) past which nothing more is solved */
  deadline?: number;
  /** isolated mode: kill the solver process when one obligation takes longer than this (ms) */
  killAfterMs: number;
  onStart?: (id: string) => void;
  onResult: (id: string, r: SolvedObligation, ms: number) => void;
}

const unknown = (reason: string, ob: Obligation): SolvedObligation => ({ verdict: "unknown", reason, smt2: `; ${ob.id}: not solved (${reason})\n` });

/** Solves in this process (one Z3 context per process; runs are serialized). */
export async function runInProcess(ir: IREdition, obs: Obligation[], o: RunOptions): Promise<void> {
  const ctx = await getZ3();
  const prover = proverFor(ctx, ir, o.listBound);
  await runExclusive(async () => {
    for (const ob of obs) {
      const left = o.deadline === undefined ? Infinity : o.deadline - performance.now();
      if (left <= 0) {
        o.onResult(ob.id, unknown("deadline reached before this obligation was solved", ob), 0);
        continue;
      }
      o.onStart?.(ob.id);
      const t0 = performance.now();
      const r = await prover.solve(ob, Math.max(1, Math.min(o.timeoutMs, Math.floor(left))));
      o.onResult(ob.id, r, Math.round(performance.now() - t0));
    }
  });
}

/** How many times in a row a solver process may die before answering anything. */
const MAX_SILENT_DEATHS = 2;
const STDERR_TAIL = 2000;

/**
 * Solves in child processes: one process for all obligations while it behaves; when it exits,
 * crashes or is killed (watchdog, deadline), the obligation it was on becomes `unknown` with the
 * reason and a fresh process takes the rest.
 */
export async function runIsolated(ir: IREdition, obs: Obligation[], o: RunOptions): Promise<void> {
  let queue = [...obs];
  let silentDeaths = 0;
  while (queue.length) {
    if (o.deadline !== undefined && performance.now() >= o.deadline) break;
    const answered = await runChild(ir, queue, o);
    queue = queue.filter((ob) => !answered.done.has(ob.id));
    if (answered.done.size === 0) {
      if (++silentDeaths >= MAX_SILENT_DEATHS) {
        for (const ob of queue) o.onResult(ob.id, unknown(`the solver process could not run: ${answered.why}`, ob), 0);
        return;
      }
    } else silentDeaths = 0;
  }
  for (const ob of queue) o.onResult(ob.id, unknown("deadline reached before this obligation was solved", ob), 0);
}

function workerCommand(): { script: string; execArgv: string[] } {
  const req = createRequire(import.meta.url);
  const tsx = pathToFileURL(req.resolve("tsx")).href;
  return { script: fileURLToPath(new URL("./worker.ts", import.meta.url)), execArgv: ["--import", tsx] };
}

/** One solver process over `obs`; resolves with the ids it settled (answered or marked unknown). */
function runChild(ir: IREdition, obs: Obligation[], o: RunOptions): Promise<{ done: Set<string>; why: string }> {
  const done = new Set<string>();
  const byId = new Map(obs.map((ob) => [ob.id, ob]));
  const { script, execArgv } = workerCommand();
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = fork(script, [], { execArgv, stdio: ["ignore", "pipe", "pipe", "ipc"], serialization: "advanced", env: process.env });
    } catch (e) {
      resolve({ done, why: (e as Error).message });
      return;
    }
    let stderr = "";
    const keep = (b: Buffer) => {
      stderr = (stderr + b.toString("utf8")).slice(-STDERR_TAIL);
      if (process.env.RW_VERIFY_DEBUG) process.stderr.write(b);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    let current: string | undefined;
    let killedFor: string | undefined;
    let watchdog: NodeJS.Timeout | undefined;
    const kill = (why: string) => {
      if (killedFor) return;
      killedFor = why;
      child.kill("SIGKILL");
    };
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => kill(`no answer within ${o.killAfterMs} ms: the solver process was killed`), o.killAfterMs);
    };
    const deadlineTimer = o.deadline === undefined ? undefined : setTimeout(() => kill("deadline reached: the solver process was killed"), Math.max(0, o.deadline - performance.now()));
    child.on("message", (m: WorkerMessage) => {
      if (m.type === "start") {
        current = m.id;
        arm();
        o.onStart?.(m.id);
      } else if (m.type === "result") {
        clearTimeout(watchdog);
        current = undefined;
        done.add(m.id);
        o.onResult(m.id, m.result, m.ms);
      } else if (m.type === "done") {
        clearTimeout(watchdog);
      }
    });
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(watchdog);
      clearTimeout(deadlineTimer);
      const tail = stderr.trim().split("\n").slice(-3).join(" | ");
      const why = killedFor ?? `the solver process exited (${signal ? `signal ${signal}` : `code ${code}`})${tail ? `: ${tail}` : ""}`;
      if (current && !done.has(current)) {
        done.add(current);
        o.onResult(current, unknown(why, byId.get(current)!), 0);
      }
      resolve({ done, why });
    };
    child.on("exit", finish);
    child.on("error", (e) => {
      stderr += String(e.message);
      child.kill("SIGKILL");
    });
    const req: ProveRequest = { type: "prove", ir, obligations: obs, timeoutMs: o.timeoutMs, listBound: o.listBound };
    child.send(req, (err) => {
      if (err) kill(`could not send the obligations to the solver process: ${err.message}`);
    });
  });
}
