import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadEdition } from "./compiler/check/index.ts";
import { generateEdition } from "./compiler/codegen/index.ts";
import { readScenarioFile, judge } from "./compiler/scenarios/index.ts";
const r = loadEdition("dsl/his");
if (!r.edition) { console.log(r.diagnostics); process.exit(1); }
const files = await generateEdition(r.edition);
const dir = "/tmp/hisgen";
fs.rmSync(dir, { recursive: true, force: true });
for (const f of files) { const t = path.join(dir, path.basename(f.path)); fs.mkdirSync(path.dirname(t), { recursive: true }); fs.writeFileSync(t, f.content); }
const mod: any = await import(pathToFileURL(path.join(dir, "index.ts")).href);
let pass = 0, fail = 0;
for (const f of fs.readdirSync("test/scenarios/his").sort()) {
  const { scenarios, problems } = readScenarioFile(path.join("test/scenarios/his", f), () => "test/fixtures/his");
  if (problems.length) console.log(problems);
  for (const s of scenarios) {
    const broken = mod.brokenInvariants(s.state);
    const v = mod.check(s.state, s.action);
    const o = judge(s.expect, v);
    if (o.pass && broken.length === 0) pass++; else { fail++; console.log("FAIL", f, s.name, o.detail, broken); }
  }
}
console.log({ pass, fail, files: files.map((f) => f.path) });
