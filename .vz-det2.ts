import { proveEdition } from "./compiler/verify/index.js";
import * as H from "./test/helpers/verify-ir.js";
const { rule, cmp, len, handOf, power, lit } = H;
const ir = H.edition({
      rules: [...H.consistentRules, rule("pass.no_empty", "forbid", "pass", cmp("=", len(handOf(power)), lit(0)), { scope: {phase:"action"} })],
      exemptions: [...H.consistentExemptions], invariants: [...H.consistentInvariants] });
const a = await proveEdition(ir, {}); const b = await proveEdition(ir, {});
for (let i = 0; i < a.obligations.length; i++) { const x = JSON.stringify(a.obligations[i], (k,v)=>k==="ms"?undefined:v), y = JSON.stringify(b.obligations[i], (k,v)=>k==="ms"?undefined:v); console.log(a.obligations[i].id, x === y); if (x!==y) { console.log(JSON.stringify(a.obligations[i].witness?.state)); console.log(JSON.stringify(b.obligations[i].witness?.state)); } }
process.exit(0);
