/**
 * `prove` of a variant (issue 28, "proofs reused from the parent"): before the prover runs, the
 * parent's verdicts that hold in the variant — same slice, unsat under fewer constraints, or a
 * witness (counterexample) checked to be a state of the variant — are taken over from the
 * parent's proof cache into the variant's (compiler/verify/cache/reuse.ts; the argument is
 * compiler/verify/README.md "Proofs reused from the parent").
 */
import fs from "node:fs";
import path from "node:path";
import { loadEdition } from "../check/index.js";
import type { IREdition } from "../ir/types.js";
import { DEFAULT_LIST_BOUND, DEFAULT_RLIMIT, ProofCache } from "../verify/index.js";
import { reuseFromParent, type ParentReuse } from "../verify/cache/reuse.js";
import { deriveFixture, exampleCompleter } from "../engine/fixture.js";
import { withStateDefaults } from "../engine/validate.js";
import { createInterpreter } from "../interpret/index.js";
import { DSL_DIR } from "../engine/editions.js";

/**
 * Takes over the parent's verdicts that hold in the variant (compiler/verify/cache/reuse.ts) into
 * the variant's `cache`, reading the parent's proof cache (as `prove <parent>` from this folder
 * names it). Undefined when the parent does not compile.
 */
export function reuseParentProofs(ir: IREdition, parentDir: string, cache: ProofCache, cacheDir: string, rlimit: number | undefined): (ParentReuse & { parent: string }) | undefined {
  const parentRes = loadEdition(parentDir, { repoRoot: process.cwd() });
  if (!parentRes.edition) return undefined;
  const rel = path.relative(process.cwd(), parentDir);
  // the parent's cache file: by the folder as `prove` names it from here, or as the bundled edition of an installed package
  const names = [rel, path.join(DSL_DIR, path.basename(parentDir))];
  const parentCache = names.map((n) => new ProofCache(cacheDir, n)).find((c) => fs.existsSync(c.file)) ?? new ProofCache(cacheDir, rel);
  const r = reuseFromParent(ir, parentRes.edition, cache, parentCache, { listBound: DEFAULT_LIST_BOUND, rlimit: rlimit ?? DEFAULT_RLIMIT, complete: stateCarrier(ir), candidate: repairedCandidate(ir), fires: rulesFire(ir), parentName: rel || parentDir });
  return { ...r, parent: rel || parentDir };
}


type Json = Record<string, unknown>;

/**
 * The `complete` of `reuseFromParent` for variant `ir`: a parent's example state made a state of
 * `ir` and checked, never assumed, to be one. First with the parent's values kept (new fields at
 * their schema defaults; `deriveFixture` validates it against `ir`'s schema, evaluates every
 * invariant of `ir` with the interpreter and, when one breaks, searches the fields it reads for
 * values that satisfy all); then with the fields outside `keep` at the prover's defaults
 * (`exampleCompleter`). Either way the fields in `keep` (those the obligation's formula reads)
 * must come out unchanged. Returns the state, or a sentence saying why there is none.
 */
export function stateCarrier(ir: IREdition): (state: Json, keep: Set<string> | undefined) => Json | string {
  const reset = exampleCompleter(ir);
  const names = ir.state.fields.map((f) => f.name);
  return (state, keep) => {
    const base: Json = {};
    for (const n of names) if (n in state) base[n] = state[n];
    const d = deriveFixture(ir, base);
    const changed = d.ok ? (keep ? [...keep] : names).filter((n) => JSON.stringify(d.state[n]) !== JSON.stringify(base[n] ?? d.state[n])) : [];
    if (d.ok && !changed.length) return d.state;
    const r = reset(state, keep);
    if (r) return r;
    if (!d.ok) return d.problems.length ? d.problems.slice(0, 2).join("; ") : `it breaks ${d.broken.map((b) => `\`${b.id}\``).join(", ")}`;
    return `it satisfies the variant's invariants only with ${changed.map((n) => `state.${n}`).join(", ")} changed, which the obligation reads`;
  };
}

/**
 * The `candidate` of `reuseFromParent` for variant `ir`: a parent's witness that breaks an
 * invariant of `ir`, repaired by `deriveFixture` (any field the broken invariants read), with the
 * action's actor moved along when it was the state's active power. Only a candidate: the prover
 * judges it and checks the obligation's formula on it before it counts (compiler/verify/README.md
 * "Concrete witnesses first"). Undefined when no repair satisfies every invariant.
 */
export function repairedCandidate(ir: IREdition): (state: Json, action: Json) => { state: Json; action: Json } | undefined {
  const names = ir.state.fields.map((f) => f.name);
  return (state, action) => {
    const base: Json = {};
    for (const n of names) if (n in state) base[n] = state[n];
    const d = deriveFixture(ir, base);
    if (!d.ok) return undefined;
    const a = ir.actions.find((x) => x.name === action.action);
    const actor = a?.params.find((p) => p.actor)?.name;
    const moved = actor !== undefined && "active_power" in state && action[actor] === state.active_power && d.state.active_power !== state.active_power;
    return { state: d.state, action: moved ? { ...action, [actor]: d.state.active_power } : action };
  };
}

/** The `fires` of `reuseFromParent` for variant `ir`: the interpreter's (false when it cannot read the state). */
export function rulesFire(ir: IREdition): (ruleId: string, state: Json, action: Json) => boolean {
  const interp = createInterpreter(ir);
  return (ruleId, state, action) => {
    try {
      return interp.fires(ruleId, withStateDefaults(ir, state), action);
    } catch {
      return true; // unreadable: counted as firing, so the witness is not carried
    }
  };
}

/** The line `prove` prints on stderr for a variant: how many verdicts came from the parent, per reason, and how many could not. */
export function describeParentReuse(r: ParentReuse & { parent: string }): string {
  const whys = Object.entries(r.why).filter(([, n]) => n > 0).map(([why, n]) => `${n} ${why}`);
  const not = r.rejected.length ? `; ${r.rejected.length} solved again (the parent's state is no state of the variant, or no proof its rule still fires${r.seeded ? `; ${r.seeded} of those states repaired into witness candidates` : ""})` : "";
  return `${r.reused.length} verdicts from the parent's proofs (${r.parent})${whys.length ? `: ${whys.join(", ")}` : ""}${not}`;
}
