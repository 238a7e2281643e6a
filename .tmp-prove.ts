import { loadEdition } from "./compiler/check/index.ts";
import { proveEdition } from "./compiler/verify/index.ts";
const r = loadEdition("dsl/his");
const rep: any = await proveEdition(r.edition!, { timeoutMs: 20000, outDir: "/tmp/hisproofs" });
const obs = rep.obligations ?? rep;
for (const o of obs) if (o.verdict !== "proved") console.log(o.id, o.kind, o.severity, o.verdict, o.rules, JSON.stringify(o.core ?? ""));
console.log(Object.keys(rep), obs.length);
process.exit(0);
