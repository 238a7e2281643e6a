/** The verdict table's rows (proofs/verdicts.tsv): `<id> TAB <verdict> [TAB vacuous]` (the CLI's `verdictRows`, compiler/cli/ci.ts). */
export { verdictRows as verdictTable } from "../../compiler/cli/ci.js";
