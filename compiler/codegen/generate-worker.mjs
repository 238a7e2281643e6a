// The thread of generateEdition for deeply nested rules (index.ts): generates with a large
// stack and posts the files. Loads the TypeScript sources through tsx, as bin/rulewright.mjs does,
// or, compiled (dist/, the installed package, where index.js stands beside this file), the JavaScript.
import { existsSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";

let msg;
try {
  const compiled = existsSync(new URL("./index.js", import.meta.url));
  if (!compiled) (await import("tsx/esm/api")).register();
  const { generateEdition } = await import(compiled ? "./index.js" : "./index.ts");
  msg = { files: await generateEdition(workerData.ir, { largeStack: true }) };
} catch (e) {
  msg = { error: String((e && e.message) || e) };
}
parentPort.postMessage(msg);
