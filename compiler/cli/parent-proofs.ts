/**
 * `prove` of a variant (issue 28, "proofs reused from the parent"): before the prover runs, the
 * parent's verdicts of the obligations whose slice the variant's changes leave alone are taken
 * over from the parent's proof cache into the variant's (compiler/verify/cache/reuse.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { loadEdition } from "../check/index.js";
import type { IREdition } from "../ir/types.js";
import { DEFAULT_LIST_BOUND, DEFAULT_RLIMIT, ProofCache } from "../verify/index.js";
import { reuseFromParent, type ParentReuse } from "../verify/cache/reuse.js";
import { exampleCompleter } from "../engine/fixture.js";
import { DSL_DIR } from "../engine/editions.js";

/**
 * Takes over the parent's verdicts for a variant's obligations whose slice did not change
 * (compiler/verify/cache/reuse.ts) into the variant's `cache`, reading the parent's proof cache
 * (as `prove <parent>` from this folder names it). Undefined when the parent does not compile.
 */
export function reuseParentProofs(ir: IREdition, parentDir: string, cache: ProofCache, cacheDir: string, rlimit: number | undefined): (ParentReuse & { parent: string }) | undefined {
  const parentRes = loadEdition(parentDir, { repoRoot: process.cwd() });
  if (!parentRes.edition) return undefined;
  const rel = path.relative(process.cwd(), parentDir);
  // the parent's cache file: by the folder as `prove` names it from here, or as the bundled edition of an installed package
  const names = [rel, path.join(DSL_DIR, path.basename(parentDir))];
  const parentCache = names.map((n) => new ProofCache(cacheDir, n)).find((c) => fs.existsSync(c.file)) ?? new ProofCache(cacheDir, rel);
  const r = reuseFromParent(ir, parentRes.edition, cache, parentCache, { listBound: DEFAULT_LIST_BOUND, rlimit: rlimit ?? DEFAULT_RLIMIT, complete: exampleCompleter(ir) });
  return { ...r, parent: rel || parentDir };
}

