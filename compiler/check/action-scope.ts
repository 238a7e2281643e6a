/**
 * Pass "action scopes": an action declaration's `during <phase>[.<segment>] [actor active]
 * <citation>` (dsl/README.md, "Action scopes") — the phase and segment members (RW2018, as a
 * rule's `during`), `actor active` on an action with an actor and a state field `active_power` of
 * the actor's type (RW2018), the citation (RW2105/RW2109) — lowered to `IRActionScope`.
 */
import type { IRActionScope } from "../ir/types.js";
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
    const during = scopeOf(c, sc, a.file);
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
