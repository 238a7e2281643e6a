/**
 * `rulewright explain RWxxxx`: the page of a diagnostic code (compiler/diagnostics/explain.ts) —
 * what it means, a wrong and a right example, how to fix it. Text, or `--format json`
 * `{ code, severity, summary, meaning, wrong, right, fix }`. Exit 0 shown; an unknown code is a
 * UsageError (exit 2) with the nearest code. Kept apart from explain.ts so it loads no prover.
 */
import { CATALOG, isKnownCode } from "../diagnostics/catalog.js";
import { EXPLANATIONS, explainCode } from "../diagnostics/explain.js";
import { UsageError, type Format } from "./common.js";

/** The hint for an unknown code: the catalog's first and last codes (derived, so a new code needs no edit here) and the nearest one. */
export function unknownCodeHint(code: string): string {
  const codes = Object.keys(CATALOG).sort();
  const near = codes.find((c) => c.slice(0, 4) === code.slice(0, 4)) ?? codes[0];
  return `codes are ${codes[0]}–${codes[codes.length - 1]} (e.g. \`${near}\`); every code the compiler reports is listed in compiler/diagnostics/catalog.ts`;
}

export function explainCodeCommand(id: string, opts: { format: Format }): number {
  const code = id.toUpperCase();
  if (!isKnownCode(code)) {
    throw new UsageError(`no diagnostic code \`${id}\``, 2, unknownCodeHint(code));
  }
  if (opts.format === "json") {
    process.stdout.write(JSON.stringify({ code, severity: CATALOG[code].severity, summary: CATALOG[code].summary, ...EXPLANATIONS[code] }, null, 2) + "\n");
  } else {
    process.stdout.write(explainCode(code)!.join("\n") + "\n");
  }
  return 0;
}
