// The thread of parse-deep.ts: parses rule files with a large stack, one message at a time,
// and posts each result (then wakes the waiting caller). Loads the TypeScript sources through
// tsx, as bin/rulewright.mjs does.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

const { flag, port } = workerData;
let parseRules;
let loadError;
try {
  register();
  ({ parseRules } = await import("./index.ts"));
} catch (e) {
  loadError = String((e && e.message) || e);
}
port.on("message", ({ text, file }) => {
  let msg;
  try {
    if (loadError) throw new Error(loadError);
    msg = { result: parseRules(text, file, { largeStack: true }) };
  } catch (e) {
    msg = { error: String((e && e.message) || e) };
  }
  port.postMessage(msg);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
