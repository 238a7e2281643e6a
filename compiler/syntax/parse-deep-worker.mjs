// The thread of parse-deep.ts: parses rule files with a large stack (parse-file.ts, which never
// starts this thread), one message at a time, and posts each result with the CPU time this thread
// spent on it (then wakes the waiting caller). Loads the TypeScript sources through tsx from the sources (a checkout), as
// bin/rulewright.mjs does; compiled (dist/, the installed package, where parse-file.js stands
// beside this file) it imports the JavaScript.
import { existsSync } from "node:fs";
import { workerData } from "node:worker_threads";

const { flag, port } = workerData;
let parseFile;
let threadCpuMicros;
let loadError;
try {
  const compiled = existsSync(new URL("./parse-file.js", import.meta.url));
  if (!compiled) (await import("tsx/esm/api")).register();
  ({ parseFile } = compiled ? await import("./parse-file.js") : await import("./parse-file.ts"));
  ({ threadCpuMicros } = compiled ? await import("./thread-cpu.js") : await import("./thread-cpu.ts"));
} catch (e) {
  loadError = String((e && e.message) || e);
}
port.on("message", ({ text, file }) => {
  let msg;
  try {
    if (loadError) throw new Error(loadError);
    const t0 = threadCpuMicros();
    msg = { result: parseFile(text, file) };
    const t1 = threadCpuMicros();
    // this thread's CPU for the parse (parse-deep.ts adds it up: largeStackCpuMicros)
    if (t0 !== undefined && t1 !== undefined) msg.cpuMicros = t1 - t0;
  } catch (e) {
    msg = { error: String((e && e.message) || e) };
  }
  port.postMessage(msg);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
