/**
 * A semantic fingerprint of an edition's IR: per rule, exemption, invariant, route and action a
 * sha256 of what decides verdicts and proofs (kind, action, scope, groups, citation, condition),
 * without source positions, titles or provenance. Two editions with the same fingerprint give
 * the same verdicts and the same proof obligations. Used to show that moving rules into modules
 * changed nothing (test/check/his-modules.test.ts).
 *
 * Inside a declaration, a record type (the state, a card, a space…) is shown by its name only:
 * what a condition reads is in its `field` nodes (each with the type of the value read), so a
 * schema field that a declaration does not read does not change its hash. The state's own
 * fingerprint (`state`) is the full type.
 */
import { createHash } from "node:crypto";
import type { IREdition } from "../../compiler/ir/types.js";

const DROP = new Set(["pos", "title", "provenance"]);

/**
 * JSON with sorted keys and without positions, titles and provenance. `shallowRecords`: a record
 * type (`{ k: "record", fields }`) is written as `{ k: "record", name }`.
 */
export function canonical(v: unknown, shallowRecords = false): string {
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, shallowRecords)).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (shallowRecords && o.k === "record" && Array.isArray(o.fields)) return canonical({ k: "record", name: o.name ?? "" });
    return `{${Object.keys(o).filter((k) => !DROP.has(k) && o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k], shallowRecords)}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

const digest = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);
const h = (v: unknown) => digest(canonical(v, true));

export interface Fingerprint {
  rules: Record<string, string>;
  exemptions: Record<string, string>;
  invariants: Record<string, string>;
  routes: Record<string, string>;
  actions: Record<string, string>;
  enums: Record<string, string>;
  state: string;
}

export function semanticFingerprint(ir: IREdition): Fingerprint {
  const by = <T>(xs: T[], key: (x: T) => string) => Object.fromEntries([...xs].sort((a, b) => (key(a) < key(b) ? -1 : 1)).map((x) => [key(x), h(x)]));
  return {
    rules: by(ir.rules, (r) => r.id),
    exemptions: by(ir.exemptions, (e) => e.id),
    invariants: by(ir.invariants, (i) => i.id),
    routes: by(ir.routes, (r) => r.name),
    // an action's scope (`during`, `actor`: which moves legalMoves lists) came after the fingerprint was taken; the prover does not read it
    actions: by(ir.actions.map(({ scope: _scope, ...a }) => a), (a) => a.name),
    enums: by(ir.enums, (e) => e.name),
    state: digest(canonical(ir.state)),
  };
}
