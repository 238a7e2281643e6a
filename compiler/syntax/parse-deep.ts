/**
 * Parsing a deeply nested rule file on a thread with a large stack (issue 18). chevrotain's
 * recursive descent costs several kilobytes of stack per nesting level; Node's default stack
 * (about 1 MB) ends near 150 levels. A file whose nesting exceeds `SHALLOW_NESTING` (depth.ts)
 * is parsed by `parseFile` (parse-file.ts) on a worker thread with a 256 MB stack, synchronously (the caller
 * blocks on `Atomics.wait` and takes the result with `receiveMessageOnPort`), so `parseRules`
 * keeps its synchronous signature. The thread is started on first use and kept (unreferenced:
 * it never keeps the process alive). Nesting above `MAX_NESTING` never gets here (RW1007).
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import type { Diagnostic } from "../diagnostics/types.js";
import type { AstFile } from "./ast.js";

/** Stack of the parsing thread, in MB: room for MAX_NESTING levels of the costliest construct. */
const STACK_MB = 256;
/** Longest wait for the parsing thread, in ms (a file at the limits parses in seconds). */
const WAIT_MS = 300_000;

let thread: { worker: Worker; port: MessagePort; flag: Int32Array } | undefined;
/** CPU time the parsing thread has spent on parses, in microseconds (each parse's own measure). */
let largeStackCpu = 0;

/**
 * The CPU time, in microseconds, the large-stack thread has spent parsing since the process
 * started (its own thread's time, `threadCpuMicros`, summed over its parses; 0 where that cannot
 * be measured). Its difference around a piece of work adds the deep parses to the calling
 * thread's own CPU time, which does not include them (the caller waits, using none).
 */
export function largeStackCpuMicros(): number {
  return largeStackCpu;
}

function start(): NonNullable<typeof thread> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./parse-deep-worker.mjs", import.meta.url), {
    workerData: { flag, port: port2 },
    transferList: [port2],
    resourceLimits: { stackSizeMb: STACK_MB },
    stdout: false,
    stderr: false,
  });
  worker.unref();
  port1.unref();
  worker.on("error", () => {
    thread = undefined;
  });
  worker.on("exit", () => {
    thread = undefined;
  });
  return { worker, port: port1, flag };
}

/**
 * `parseFile(text, file)` run on the large-stack thread. Returns its result; on a failure of
 * the thread itself (not of the input), one RW1004 diagnostic at line 1 saying so.
 */
export function parseOnLargeStack(text: string, file: string): { ast: AstFile; diagnostics: Diagnostic[] } {
  thread ??= start();
  const t = thread;
  Atomics.store(t.flag, 0, 0);
  t.port.postMessage({ text, file });
  const waited = Atomics.wait(t.flag, 0, 0, WAIT_MS);
  const msg = receiveMessageOnPort(t.port)?.message as { result?: { ast: AstFile; diagnostics: Diagnostic[] }; error?: string; cpuMicros?: number } | undefined;
  if (typeof msg?.cpuMicros === "number") largeStackCpu += msg.cpuMicros;
  if (msg?.result) return msg.result;
  void t.worker.terminate();
  thread = undefined;
  const why = waited === "timed-out" ? `it took more than ${WAIT_MS / 1000} s` : (msg?.error ?? "the parsing thread stopped");
  return {
    ast: { file, decls: [] },
    diagnostics: [{ code: "RW1004", severity: "error", message: `could not parse this deeply nested file: ${why}`, file, span: { line: 1, column: 1, endLine: 1, endColumn: 2 }, help: "nest expressions less deeply (move inner parts into defs)" }],
  };
}
