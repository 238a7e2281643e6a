/**
 * Position-free fingerprints of IR parts: the JSON text of a value without its source positions
 * (`pos` keys: they move when a declaration above is edited), array holes marked. Two parts with
 * the same fingerprint have the same content (same keys in the same order, same values), so a
 * fingerprint can key a memo of anything computed from the content (verify/cache/keys.ts memoises
 * its content hashes by it) or tell which declarations an edit changed (the language server's
 * `editedRules`). It is not stable across key orders: hash `stable(...)` text for a stored key.
 */
import type { IRRule } from "./types.js";

/** A hole in an array, marked (JSON.stringify would write `null` for it). */
const HOLE = "\u0000undefined";

/**
 * The JSON text of `x` without its `pos` keys (with them when `positions`), holes in arrays
 * marked. Pure; throws only where JSON.stringify does (a cycle, a BigInt), which an IR never has.
 */
export function contentFingerprint(x: unknown, positions = false): string {
  return JSON.stringify(x, function (this: unknown, k: string, v: unknown) {
    if (Array.isArray(this)) return v === undefined ? HOLE : v;
    return !positions && k === "pos" ? undefined : v;
  });
}

const ruleFingerprints = new WeakMap<IRRule, string>();

/**
 * The fingerprint of what a rule's meaning is made of — id, kind, action, scope, groups and
 * condition, without positions (not its title, citation or severity annotations) — the parts the
 * proof cache keys a rule by. Made once per rule object (the IR is never changed once lowered).
 */
export function ruleFingerprint(r: IRRule): string {
  let f = ruleFingerprints.get(r);
  if (f === undefined) ruleFingerprints.set(r, (f = contentFingerprint({ id: r.id, kind: r.kind, action: r.action, scope: r.scope, groups: r.groups, when: r.when })));
  return f;
}
