// A worker thread for test/syntax/parse-linear.test.ts: parses rule files on the calling thread's
// parser (`parseFile` without the large-stack thread — this thread has the large stack) and
// counts the parser's work deterministically: every call of a method of the chevrotain parser
// instance (its own grammar rules are invoked through `ruleInvocationStateUpdate`, lookahead
// through `LA`, consumption through `consumeToken`, error recovery through its follow-set and
// re-sync methods). A parse that does quadratic work makes quadratically many such calls.
//
// Message in: { texts: string[] }. Message out: { results: { work, diagnostics }[] } or { error }.
import { parentPort } from "node:worker_threads";

(await import("tsx/esm/api")).register();
const { parseFile } = await import("../../compiler/syntax/parse-file.ts");
const { parser } = await import("../../compiler/syntax/parser.ts");

let work = 0;
// wrap every method found on the parser's prototype chain with a counting one on the instance
// (the grammar rules are instance properties that chevrotain reads fields of: left as they are)
const seen = new Set();
for (let proto = Object.getPrototypeOf(parser); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (name === "constructor" || seen.has(name) || Object.prototype.hasOwnProperty.call(parser, name)) continue;
    seen.add(name);
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (!d || typeof d.value !== "function") continue;
    const f = d.value;
    parser[name] = function counted(...args) {
      work++;
      return f.apply(this, args);
    };
  }
}
if (seen.size < 50) throw new Error(`only ${seen.size} parser methods found to count: has chevrotain changed shape?`);

parentPort.on("message", ({ texts }) => {
  try {
    const results = texts.map((text) => {
      work = 0;
      const r = parseFile(text, "deep.rules");
      return { work, diagnostics: r.diagnostics.map((d) => ({ code: d.code, message: d.message, line: d.span.line, column: d.span.column })) };
    });
    parentPort.postMessage({ results });
  } catch (e) {
    parentPort.postMessage({ error: String(e?.stack ?? e) });
  }
});
