/**
 * Proofs reused from the parent (issue 28): before a variant is proved, every obligation the
 * variant's own cache does not answer and whose slice (keys.ts `sliceKeyer`: its rules,
 * exemptions, actions, routes, tables, the invariants in its cone of influence and the state
 * fields they read) is the same as that of an obligation of the parent gets the parent's verdict
 * from the parent's proof cache, stored in the variant's cache under the variant's own key. The
 * prover then finds it there like any cached verdict. Nothing of the prover's code changes, so
 * no existing cache key changes.
 *
 * Which verdicts hold in the variant: an unsat verdict (no example state) always — the variant's
 * query assumes every invariant of the slice and more. A verdict found on a state (a witness, a
 * counterexample) only when that state, completed for the variant (`complete`: the fields the
 * slice does not read set as the variant's own decoding sets them, and every variant invariant
 * satisfied), is a state of the variant: the slice's fields are the same, so the obligation's
 * formula holds on it as it did in the parent. An `unknown` is never taken over.
 */
import type { IREdition } from "../../ir/types.js";
import type { Example, SolvedObligation } from "../run/results.js";
import { obligationsFor, type Obligation } from "../../ir/obligations.js";
import { obligationKeyer, sliceFields, sliceKeyer } from "./keys.js";
import type { ProofCache } from "./store.js";

type Json = Record<string, unknown>;

/** What `reuseFromParent` needs besides the two editions and caches. */
export interface ParentReuseOptions {
  listBound: number;
  /** the resource budget of this run (a cached verdict holds under it or not: store.ts `get`) */
  rlimit: number;
  /**
   * The example state of a parent's verdict made a state of the variant, or undefined when it
   * cannot be: `readFields` are the top-level fields the obligation's slice reads (undefined: all),
   * which must stay as they are; every other field may take the variant's value.
   */
  complete: (state: Json, readFields: Set<string> | undefined) => Json | undefined;
  /** only these obligations of the variant (default all) */
  only?: (ob: Obligation) => boolean;
}

/** What `reuseFromParent` did: obligations answered from the parent's cache, and those whose example state could not be completed. */
export interface ParentReuse {
  reused: string[];
  /** same slice, but an example state of the parent's verdict is no state of the variant: solved again */
  rejected: string[];
}

/**
 * Fills `cache` (the variant's) with the parent's verdicts of the obligations whose slice did not
 * change (see the file comment). Returns the ids taken over; nothing is saved (the caller saves).
 */
export function reuseFromParent(ir: IREdition, parentIr: IREdition, cache: ProofCache, parentCache: ProofCache, opts: ParentReuseOptions): ParentReuse {
  const out: ParentReuse = { reused: [], rejected: [] };
  const parentKey = obligationKeyer(parentIr, { listBound: opts.listBound });
  const parentSlice = sliceKeyer(parentIr, { listBound: opts.listBound });
  const bySlice = new Map<string, string>();
  for (const ob of obligationsFor(parentIr)) bySlice.set(parentSlice(ob), parentKey(ob));
  const key = obligationKeyer(ir, { listBound: opts.listBound });
  const slice = sliceKeyer(ir, { listBound: opts.listBound });
  for (const ob of obligationsFor(ir)) {
    if (opts.only && !opts.only(ob)) continue;
    const own = key(ob);
    if (cache.get(own, opts.rlimit)) continue;
    const pk = bySlice.get(slice(ob));
    const r = pk === undefined ? undefined : parentCache.get(pk, opts.rlimit);
    if (!r || r.verdict === "unknown") continue;
    const taken = carried(ir, ob, r, opts);
    if (!taken) {
      out.rejected.push(ob.id);
      continue;
    }
    cache.set(own, taken);
    out.reused.push(ob.id);
  }
  return out;
}

/** The parent's verdict as the variant's (its example states completed), or undefined when one cannot be. */
function carried(ir: IREdition, ob: Obligation, r: SolvedObligation, opts: ParentReuseOptions): SolvedObligation | undefined {
  // a stuck power or a table example without a state: only an unsat verdict has neither
  if ((r.stuck || r.example) && !r.counterexample && !r.witness && ob.kind !== "table_gap" && ob.kind !== "table_overlap") return undefined;
  const read = r.counterexample || r.witness ? sliceFields(ir, ob) : undefined;
  const fix = (ex: Example | undefined): Example | undefined | null => {
    if (!ex) return undefined;
    const state = opts.complete(ex.state as Json, read);
    return state ? { ...ex, state } : null;
  };
  const counterexample = fix(r.counterexample);
  const witness = fix(r.witness);
  if (counterexample === null || witness === null) return undefined;
  const { profile: _p, ...rest } = r;
  return { ...rest, ...(counterexample ? { counterexample } : {}), ...(witness ? { witness } : {}) };
}
