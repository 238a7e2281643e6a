/** The verdict table's rows (proofs/verdicts.tsv): `<id> TAB <verdict> [TAB vacuous]`. */
export function verdictTable(obligations: { id: string; verdict: string; vacuous?: boolean }[]): string[] {
  return obligations.map((o) => [o.id, o.verdict, ...(o.vacuous ? ["vacuous"] : [])].join("\t"));
}
