// The thread of generateEdition for deeply nested rules (index.ts): generates with a large
// stack and posts the files. Loads the TypeScript sources through tsx, as bin/rulewright.mjs does.
import { parentPort, workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

let msg;
try {
  register();
  const { generateEdition } = await import("./index.ts");
  msg = { files: await generateEdition(workerData.ir, { largeStack: true }) };
} catch (e) {
  msg = { error: String((e && e.message) || e) };
}
parentPort.postMessage(msg);
