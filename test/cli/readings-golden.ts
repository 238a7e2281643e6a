/**
 * The golden readings (test/fixtures/report/readings.txt): every rule and exemption of the
 * bundled editions, one line each, as the report reads them with each edition's phrases.
 * Shared by test/cli/readings.test.ts and scripts/readings.ts (which writes the file).
 */
import { loadEdition } from "../../compiler/check/index.js";
import type { IREdition } from "../../compiler/ir/types.js";
import { editionReadings, goldenLines } from "../../compiler/report/readings.js";
import { readPhrases } from "../../compiler/report/phrases.js";

/** The bundled editions the golden file covers, in its order. */
export const GOLDEN_EDITIONS = ["his", "his-500", "vq"] as const;

/** An edition's IR, or an Error naming its first diagnostic. */
export function loadBundled(root: string, folder: string): IREdition {
  const { edition, diagnostics } = loadEdition(`${root}/dsl/${folder}`, { repoRoot: root });
  if (!edition) throw new Error(`${folder}: ${diagnostics[0]?.message ?? "no edition"}`);
  return edition;
}

/** The golden file's text: a header line, then `<edition> <id>: <reading>` per rule and exemption. */
export function goldenText(root: string): string {
  const out = ["# The readings of every bundled rule and exemption (compiler/report/english.ts). Regenerate: npm run readings"];
  for (const folder of GOLDEN_EDITIONS) {
    const ir = loadBundled(root, folder);
    out.push(...goldenLines(folder, editionReadings(ir, readPhrases(ir, root)).lines));
  }
  return out.join("\n") + "\n";
}
