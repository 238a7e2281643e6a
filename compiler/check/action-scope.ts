/**
 * Pass "action scopes": an action declaration's `during <phase>[.<segment>][, …] [actor active]
 * <citation>` (dsl/README.md, "Action scopes") — the phase and segment members of each (RW2018, as
 * a rule's `during`), no phase named twice or both whole and with a segment (RW2018), `actor
 * active` on an action with an actor and a state field `active_power` of the actor's type
 * (RW2018), the citation (RW2105/RW2109) — lowered to `IRActionScope`.
 */
import type { Span } from "../diagnostics/types.js";
import type { ActionScope } from "../syntax/ast.js";
import type { IRActionScope, IRScope } from "../ir/types.js";
import type { Ids } from "./cite.js";
import type { Checking } from "./context.js";
import { typeName } from "./env.js";
import { scopeOf } from "./rules.js";

/** The scope of every action that declares one, by action name (an action with an error in its scope is left out). */
export function checkActionScopes(c: Checking, ids: Ids): Map<string, IRActionScope> {
  const { env, rep } = c;
  const out = new Map<string, IRActionScope>();
  for (const a of env.actions.values()) {
    const sc = a.decl.scope;
    if (!sc) continue;
    const during = phasesOf(c, sc.during, a.file);
    let ok = during !== undefined;
    if (sc.who) {
      const actor = a.params?.find((p) => p.actor);
      const f = env.state?.fields.find((x) => x.name === "active_power");
      if (sc.who.name !== "active") {
        rep("RW2018", `unknown actor clause \`actor ${sc.who.name}\``, { file: a.file, span: sc.who.span }, "the one actor clause is `actor active`: only the power whose turn it is (`state.active_power`) takes the action");
        ok = false;
      } else if (!actor) {
        rep("RW2018", `\`actor active\` on \`${a.decl.name.name}\`, which has no \`actor\` parameter`, { file: a.file, span: sc.who.span }, "mark the parameter naming who acts with `actor`, e.g. `action pass(actor power: MajorPower)`");
        ok = false;
      } else if (env.state && (!f || typeName(f.type) !== typeName(actor.type))) {
        rep("RW2018", `\`actor active\` needs a state field \`active_power\` of type \`${typeName(actor.type)}\`${f ? `, found \`${typeName(f.type)}\`` : ""}`, { file: a.file, span: sc.who.span },
          "add `active_power` (the power whose turn it is) to the schema's properties, or drop `actor active`");
        ok = false;
      }
    }
    const citation = ids.citation(sc.citations, a.decl.name, a.file, a.origin, "action");
    if (!ok || !citation) continue;
    out.set(a.decl.name.name, { ...(during ? { during } : {}), activeOnly: sc.who !== undefined, citation });
  }
  return out;
}

/**
 * The phases of a scope's `during a[.s], b[.t], …` (null: no `during`), each checked as a rule's
 * `during` (scopeOf, RW2018), then against the others: a phase named twice, or a phase named both
 * whole and with a segment, is an RW2018 error at the later one (the scope would list it twice).
 * Undefined when any is in error.
 */
function phasesOf(c: Checking, during: ActionScope["during"], file: string): IRScope[] | null | undefined {
  if (!during) return null;
  const out: IRScope[] = [];
  let ok = true;
  during.forEach((d, i) => {
    const sc = scopeOf(c, { during: d }, file);
    if (!sc) {
      ok = false;
      return;
    }
    const text = (s: IRScope) => `${s.phase}${s.segment !== undefined ? `.${s.segment}` : ""}`;
    const earlier = during.slice(0, i).find((e) => e.phase.name === d.phase.name && (e.segment === undefined || d.segment === undefined || e.segment.name === d.segment.name));
    if (earlier) {
      const prev: IRScope = { phase: earlier.phase.name, ...(earlier.segment ? { segment: earlier.segment.name } : {}) };
      const same = text(prev) === text(sc);
      rep(c, file, d.span, same ? `\`${text(sc)}\` is named twice in the scope` : `\`${text(sc)}\` overlaps \`${text(prev)}\`, named before it in the scope`,
        same ? `name each phase once: \`during ${[...new Set(during.map((e) => `${e.phase.name}${e.segment ? `.${e.segment.name}` : ""}`))].join(", ")}\`` : `a phase without a segment already covers each of its segments: keep \`${earlier.segment === undefined ? text(prev) : text(sc)}\` alone`);
      ok = false;
      return;
    }
    out.push(sc);
  });
  return ok ? out : undefined;
}

function rep(c: Checking, file: string, span: Span, message: string, hint: string): void {
  c.rep("RW2018", message, { file, span }, hint);
}
