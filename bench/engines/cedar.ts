/**
 * The §9.6 war-declaration bans (and the §11 obligation to pass, which also forbids a declaration)
 * as Cedar policies (bench/engines/his-dow.cedar, schema his-dow.cedarschema), evaluated with
 * @cedar-policy/cedar-wasm's Node build through its stateful API: the policy set and the schema
 * are parsed once (`preparsePolicySet`, `preparseSchema`) and every check calls
 * `statefulIsAuthorized` with the request, the context and the entities.
 *
 * The game state becomes entities the way a Cedar user models it: one `Power` entity per power
 * with its allies, wars, peace made and alliances formed this phase as sets of entity references,
 * and its hand size; the phase, segment, League and active power go into the request context.
 * `toRequest` does that mapping; the benchmark times it both inside the check (a real engine's
 * state changes between checks) and outside it (authorization alone).
 *
 * The verdict: `deny` lists the satisfied forbid policies (`diagnostics.reason`), whose ids are
 * the dsl/his rule ids.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as cedar from "@cedar-policy/cedar-wasm/nodejs";
import type { State } from "../../generated/his/index.js";
import { MAJORS, MINORS, POWERS } from "../states.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const POLICY_SET_ID = "his-dow";
const SCHEMA_ID = "his-dow-schema";

export interface CedarVerdict {
  allowed: boolean;
  violations: string[];
  obliged: string[];
}

type Call = cedar.StatefulAuthorizationCall;

let ready = false;

/** Parses and caches the policies and the schema (once per process); throws with Cedar's errors on bad input. */
export function prepareCedar(): { version: string; policies: number } {
  const text = fs.readFileSync(path.join(HERE, "his-dow.cedar"), "utf8");
  const parts = cedar.policySetTextToParts(text);
  if (parts.type !== "success") throw new Error(`his-dow.cedar: ${parts.errors.map((e) => e.message).join("; ")}`);
  const policies: Record<string, string> = {};
  for (const p of parts.policies) {
    const id = /@id\("([^"]+)"\)/.exec(p)?.[1];
    if (!id) throw new Error(`his-dow.cedar: a policy without @id: ${p.slice(0, 80)}`);
    policies[id] = p;
  }
  const schema = fs.readFileSync(path.join(HERE, "his-dow.cedarschema"), "utf8");
  // the policies must typecheck against the schema (strict validation), once
  const v = cedar.validate({ schema, policies: { staticPolicies: policies }, validationSettings: { mode: "strict" } });
  if (v.type !== "success" || v.validationErrors.length) {
    throw new Error(`his-dow.cedar does not validate: ${JSON.stringify(v.type === "success" ? v.validationErrors : v.errors).slice(0, 500)}`);
  }
  const a = cedar.preparsePolicySet(POLICY_SET_ID, { staticPolicies: policies });
  if (a.type !== "success") throw new Error(`preparsePolicySet: ${a.errors.map((e) => e.message).join("; ")}`);
  const b = cedar.preparseSchema(SCHEMA_ID, schema);
  if (b.type !== "success") throw new Error(`preparseSchema: ${b.errors.map((e) => e.message).join("; ")}`);
  ready = true;
  return { version: cedar.getCedarVersion(), policies: Object.keys(policies).length };
}

const ref = (id: string) => ({ type: "Power", id });

/** The entities of one state (the part of a request that depends on the state alone). */
export function entitiesOf(s: State): cedar.EntityJson[] {
  const rel = (list: readonly { a: string; b: string }[], p: string) => {
    const out: { __entity: { type: string; id: string } }[] = [];
    for (const x of list) {
      if (x.a === p) out.push({ __entity: ref(x.b) });
      else if (x.b === p) out.push({ __entity: ref(x.a) });
    }
    return out;
  };
  return POWERS.map((p) => ({
    uid: ref(p),
    attrs: {
      major: (MAJORS as readonly string[]).includes(p),
      minor: (MINORS as readonly string[]).includes(p),
      allies: rel(s.alliances, p),
      at_war_with: rel(s.wars, p),
      peace_this_phase: rel(s.peace_made_this_phase, p),
      allied_this_phase: rel(s.alliances_formed_this_phase, p),
      hand_size: (MAJORS as readonly string[]).includes(p) ? s.hands[p as keyof State["hands"]].length : 0,
    },
    parents: [],
  }));
}

const WAR_EVENTS: ReadonlySet<string> = new Set(["schmalkaldic_league", "machiavelli_the_prince", "six_wives_of_henry_viii"]);

/** The full authorization request for `by` declaring war on `target` in state `s`. */
export function toRequest(s: State, by: string, target: string, entities: cedar.EntityJson[] = entitiesOf(s)): Call {
  return {
    principal: ref(by),
    action: { type: "Action", id: "declare_war" },
    resource: ref(target),
    context: {
      phase: s.phase,
      segment: s.segment,
      league_played: s.schmalkaldic_league_played,
      active_power: { __entity: ref(s.active_power) },
      // the declarer played Schmalkaldic League, Machiavelli: The Prince or Six Wives of Henry VIII this phase (dow.segment)
      war_event_played: s.events_played_this_phase.some((x) => x.power === by && WAR_EVENTS.has(x.event)),
    },
    preparsedPolicySetId: POLICY_SET_ID,
    preparsedSchemaName: SCHEMA_ID,
    validateRequest: false,
    entities,
  };
}

/** Authorizes one prepared request. Cedar failures (bad entities, …) throw. */
export function authorize(call: Call): CedarVerdict {
  if (!ready) throw new Error("call prepareCedar() first");
  const r = cedar.statefulIsAuthorized(call);
  if (r.type !== "success") throw new Error(`cedar: ${r.errors.map((e) => e.message).join("; ")}`);
  if (r.response.diagnostics.errors.length) throw new Error(`cedar policy errors: ${JSON.stringify(r.response.diagnostics.errors).slice(0, 300)}`);
  const allowed = r.response.decision === "allow";
  return { allowed, violations: allowed ? [] : r.response.diagnostics.reason, obliged: [] };
}

/** The whole check: state → entities → request → decision. */
export function cedarDeclareWar(s: State, by: string, target: string): CedarVerdict {
  return authorize(toRequest(s, by, target));
}

/**
 * The cost of one `statefulIsAuthorized` call with nothing to decide: a permit-all policy set,
 * no entities, an empty context. A reference row: how much of Cedar's time is the call itself.
 */
export function cedarCallFloor(): () => CedarVerdict {
  const r = cedar.preparsePolicySet("floor", { staticPolicies: { "floor.permit": "permit (principal, action, resource);" } });
  if (r.type !== "success") throw new Error("preparsePolicySet(floor) failed");
  const call: Call = { principal: ref("france"), action: { type: "Action", id: "declare_war" }, resource: ref("scotland"), context: {}, preparsedPolicySetId: "floor", entities: [] };
  return () => {
    const a = cedar.statefulIsAuthorized(call);
    if (a.type !== "success") throw new Error("cedar floor call failed");
    return { allowed: a.response.decision === "allow", violations: [], obliged: [] };
  };
}
