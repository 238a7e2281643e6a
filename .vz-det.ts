import { proveEdition } from "./compiler/verify/index.js";
import * as H from "./test/helpers/verify-ir.js";
const { rule, cmp, len, handOf, power, lit } = H;
const ir = H.edition({
      rules: [...H.consistentRules, rule("pass.no_empty", "forbid", "pass", cmp("=", len(handOf(power)), lit(0)), { scope: {phase:"action"} })],
      exemptions: [...H.consistentExemptions], invariants: [...H.consistentInvariants] });
const n = Number(process.argv[2] ?? 1);
let out = "";
for (let i = 0; i < n; i++) { const r = await proveEdition(ir, {}); out = JSON.stringify(r, (k, v) => (k === "ms" ? undefined : v)); if (process.argv[3]) (globalThis as any).gc?.(); }
console.log(out.length, (await import("node:crypto")).createHash("sha1").update(out).digest("hex"));
process.exit(0);
