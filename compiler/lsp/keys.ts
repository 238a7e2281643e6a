/**
 * The proof obligations of an IR and their proof-cache keys, shared by hover (proof-verdicts.ts) and
 * background proving (proving.ts): listed once per IR, each key hashed once, when first asked for
 * (hashing every obligation's inputs is the costly part of a cache lookup on a large edition).
 */
import type { IREdition } from "../ir/types.js";
import { obligationsFor, type Obligation } from "../verify/obligations.js";
import { obligationKeyer } from "../verify/cache.js";

/** The list bound of `rulewright prove` (compiler/verify/index.ts DEFAULT_LIST_BOUND; importing it would load the solver): part of every cache key. */
export const PROVE_LIST_BOUND = 4;

const keyed = new WeakMap<IREdition, { obligations: Obligation[]; key: (ob: Obligation) => string }>();

/**
 * The obligations of `ir` (in `obligationsFor` order) and their key function (`obligationKeyer`
 * with prove's list bound, memoized per obligation object: pass objects of `obligations`).
 */
export function keyedFor(ir: IREdition): { obligations: Obligation[]; key: (ob: Obligation) => string } {
  let k = keyed.get(ir);
  if (!k) {
    const keyer = obligationKeyer(ir, { listBound: PROVE_LIST_BOUND });
    const memo = new Map<Obligation, string>();
    k = {
      obligations: obligationsFor(ir),
      key: (ob) => {
        let v = memo.get(ob);
        if (v === undefined) memo.set(ob, (v = keyer(ob)));
        return v;
      },
    };
    keyed.set(ir, k);
  }
  return k;
}
