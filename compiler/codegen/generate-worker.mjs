// The thread of generateEdition for deeply nested rules (index.ts): generates with a large
// stack (generate.ts, which never starts this thread) and posts the files. Loads the TypeScript
// sources through tsx, as bin/rulewright.mjs does, or, compiled (dist/, the installed package,
// where generate.js stands beside this file), the JavaScript.
import { existsSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";

let msg;
try {
  const compiled = existsSync(new URL("./generate.js", import.meta.url));
  if (!compiled) (await import("tsx/esm/api")).register();
  const { generateFiles } = compiled ? await import("./generate.js") : await import("./generate.ts");
  msg = { files: await generateFiles(workerData.ir, { only: workerData.only }) };
} catch (e) {
  msg = { error: String((e && e.message) || e) };
}
parentPort.postMessage(msg);
