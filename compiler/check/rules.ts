/**
 * Pass "rules": every rule in force (after a variant's overrides and removals): its id (unique),
 * citation, action (RW2007; an `oblige` only on an action whose one parameter is its actor,
 * RW2017), `during` scope (RW2018), `@severity` annotations and `when` condition (with its
 * `unless` exception: `when A unless B` is lowered to `A and not B`), typed and lowered to `IRRule`.
 */
import type { Span } from "../diagnostics/types.js";
import type { Expr as IRExpr, IRBinding, IRRule, IRScope } from "../ir/types.js";
import { freeVars } from "../ir/walk.js";
import type { Ids } from "./cite.js";
import { severitiesOf } from "./cite.js";
import { BOOL, paramCtx, type Checking } from "./context.js";
import { enumType, typeName, type Ctx, type DeclOf, type ParamInfo } from "./env.js";
import type { ExprChecker } from "./expr.js";
import { didYouMean, posOf } from "./util.js";

/** What exemptions need to know of each rule id claimed (also of rules that failed to check). */
export type RuleInfo = Map<string, { action?: string; groups: string[]; file: string; span: Span; params?: ParamInfo[] }>;

/** Checks and lowers the rules in force; `ruleInfo` has every rule whose id was fresh. */
export function checkRules(c: Checking, ex: ExprChecker, ids: Ids): { irRules: IRRule[]; ruleInfo: RuleInfo } {
  const { asm, env, rep, res } = c;
  const irRules: IRRule[] = [];
  const ruleInfo: RuleInfo = new Map();
  for (const { loc: { decl: d, file, origin }, provenance } of asm.rules) {
    const fresh = ids.claimId(d.id, file, "a rule");
    const cite = ids.citation(d.citations, d.id, file, origin, "rule");
    const groups = [...new Set(d.groups.map((g) => g.name))];
    const act = env.actions.get(d.action.name);
    if (fresh) res.declare({ key: `rule:${d.id.name}`, kind: "rule", name: d.id.name, file, span: d.id.span });
    if (act) res.use({ file, span: d.action.span, key: `action:${d.action.name}` });
    for (const g of d.groups) {
      const key = `group:${g.name}`;
      if (res.declaration(key)) res.use({ file, span: g.span, key });
      else res.declare({ key, kind: "group", name: g.name, file, span: g.span });
    }
    if (fresh) ruleInfo.set(d.id.name, { ...(act ? { action: d.action.name } : {}), groups, file, span: d.id.span });
    if (!act) {
      rep("RW2007", `unknown action \`${d.action.name}\``, { file, span: d.action.span }, didYouMean(d.action.name, env.actions.keys(), "declare it with `action`"));
      continue;
    }
    if (!act.params) continue;
    const scope = scopeOf(c, d, file);
    const ctx = paramCtx(c, file, act.params, d.span);
    const shape = obligationShape(c, ex, d, act, file, ctx);
    if (shape.actorOnly && fresh) ruleInfo.get(d.id.name)!.params = act.params.filter((p) => p.actor);
    const cond = ex.expect(d.when, ctx, BOOL, "a rule's `when` condition");
    // `when A unless B` is `A and not B` (an exemption written inline, read on the rule itself)
    const unless = d.unless ? ex.expect(d.unless, ctx, BOOL, "a rule's `unless` condition") : undefined;
    const when = cond && (!d.unless ? cond : unless && withUnless(ex, cond, unless, file, d.unless.span));
    if (when && shape.bind) readsOnlyActor(c, when, act, d.action.name, "its `when` condition", file, d.when.span);
    const severities = severitiesOf(c, d.annotations ?? [], file, "rule");
    if (!when || !shape.ok || scope === undefined || !fresh || !cite) continue;
    irRules.push({
      id: d.id.name, kind: d.kind, action: d.action.name, title: d.title, citation: cite, scope, groups, when,
      ...(shape.bind ? { bind: shape.bind } : {}),
      pos: posOf(file, d.id.span), provenance,
      ...(severities ? { severities } : {}),
    });
  }
  return { irRules, ruleInfo };
}

/**
 * The shape of a rule's move (RW2017): a `forbid` names no parameter values; an `oblige` is on an
 * action with an actor, and either the action has no other parameter or the rule gives each of
 * them a value (`oblige play_card(card: c, as: event)`): every parameter but the actor, once each,
 * none a list, each value of the parameter's type over the state and the actor. `actorOnly`: the
 * rule binds its actor, so exemptions lifting it read only the actor (exemptions.ts).
 */
function obligationShape(c: Checking, ex: ExprChecker, d: DeclOf<"rule">, act: NonNullable<ReturnType<Checking["env"]["actions"]["get"]>>, file: string, ctx: Ctx): { ok: boolean; bind?: IRBinding[]; actorOnly: boolean } {
  const { rep } = c;
  const params = act.params!;
  const name = d.action.name;
  const related = [{ message: `\`${name}\` is declared here`, pos: posOf(act.file, act.decl.name.span) }];
  const others = params.filter((p) => !p.actor);
  const actor = params.find((p) => p.actor);
  const shapeHint = (ps: typeof params) => `\`oblige ${name}(${ps.map((p) => `${p.name}: …`).join(", ")}) when …\``;
  if (d.kind === "forbid") {
    if (!d.bind) return { ok: true, actorOnly: false };
    rep("RW2017", `\`forbid ${name}(…)\` names parameter values; only an obligation names the move it obliges`, { file, span: d.bind[0]!.span },
      `a ban reads the move's parameters in its condition: \`forbid ${name} when ${d.bind.map((b) => `${b.param.name} = …`).join(" and ")}\``, related);
    return { ok: false, actorOnly: false };
  }
  if (!actor) {
    rep("RW2017", `\`oblige\` on \`${name}\`, which has no \`actor\` parameter`, { file, span: d.action.span },
      "an obligation binds the power that must act: give the action an `actor` parameter (`action pass(actor power: MajorPower)`)", related);
    return { ok: false, actorOnly: false };
  }
  if (!d.bind) {
    if (!others.length) return { ok: true, actorOnly: true };
    rep("RW2017", `\`oblige ${name}\` does not say which move is obliged: \`${name}\` has parameters other than its actor (${others.map((p) => "`" + p.name + "`").join(", ")})`,
      { file, span: d.action.span }, `name the value of each: ${shapeHint(others)}, each value over the state and \`${actor.name}\``, related);
    return { ok: false, actorOnly: false };
  }
  let ok = true;
  const seen = new Set<string>();
  const values = new Map<string, IRExpr>();
  for (const b of d.bind) {
    const p = params.find((x) => x.name === b.param.name);
    const at = { file, span: b.param.span };
    if (!p || p.actor || seen.has(b.param.name) || p.type.k === "list") {
      rep("RW2017", !p ? `\`${name}\` has no parameter \`${b.param.name}\``
        : p.actor ? `\`${b.param.name}\` is the actor of \`${name}\`: the obligation binds whichever power its condition names`
        : seen.has(b.param.name) ? `a second value of \`${b.param.name}\``
        : `\`${b.param.name}\` is a list: an obliged move names single values`,
        at, !p ? didYouMean(b.param.name, others.map((x) => x.name), `its parameters: ${others.map((x) => x.name).join(", ")}`)
        : p.actor ? `write the condition over \`${b.param.name}\` instead (\`when ${b.param.name} = …\`), and name the other parameters: ${shapeHint(others)}`
        : p.type.k === "list" ? `oblige an action whose parameters are single values (an enum, \`int\`, \`string\`, \`bool\`), or forbid the other moves with \`forbid ${name} when …\``
        : "name each parameter once", related);
      ok = false;
      continue;
    }
    seen.add(b.param.name);
    if (p.key) c.res.use({ file, span: b.param.span, key: p.key, type: p.type });
    const v = ex.expect(b.value, ctx, p.type, `the value of \`${b.param.name}\` in an obligation`);
    if (!v) { ok = false; continue; }
    if (!readsOnlyActor(c, v, act, name, `the value of \`${b.param.name}\``, file, b.value.span)) ok = false;
    values.set(p.name, v);
  }
  const missing = others.filter((p) => !seen.has(p.name) && p.type.k !== "list");
  const lists = others.filter((p) => p.type.k === "list");
  if (lists.length && ok) {
    rep("RW2017", `\`oblige ${name}(…)\`: \`${name}\` has a list parameter (${lists.map((p) => "`" + p.name + "`").join(", ")}), so no one move can be named`,
      { file, span: d.action.span }, `oblige an action whose parameters are single values, or forbid the other moves with \`forbid ${name} when …\``, related);
    ok = false;
  }
  if (missing.length) {
    rep("RW2017", `\`oblige ${name}(…)\` names no value of ${missing.map((p) => "`" + p.name + "`").join(", ")}: an obligation names one move`,
      { file, span: d.action.span }, `name every parameter but the actor: ${shapeHint(others)}`, related);
    ok = false;
  }
  if (!ok) return { ok: false, actorOnly: true };
  return { ok: true, actorOnly: true, bind: others.map((p) => ({ param: p.name, value: values.get(p.name)! })) };
}

/** RW2017 when `e` reads a parameter of `act` other than its actor (an obligation with values is decided by the state and the actor alone). */
function readsOnlyActor(c: Checking, e: IRExpr, act: { params?: { name: string; actor: boolean }[] }, name: string, what: string, file: string, span: Span): boolean {
  const read = [...freeVars(e).keys()].filter((v) => act.params!.some((p) => p.name === v && !p.actor));
  if (!read.length) return true;
  c.rep("RW2017", `${what} reads ${read.map((v) => "`" + v + "`").join(", ")}, a parameter of the move \`oblige ${name}(…)\` names`,
    { file, span }, "an obligation's condition and values read the state and the actor only: whether a power is bound, and to which move, does not depend on the move it makes");
  return false;
}

/** `when` ∧ ¬`unless` as one `and` (the conjuncts of `when` flattened), positioned at the `unless` condition. */
function withUnless(ex: ExprChecker, when: IRExpr, unless: IRExpr, file: string, span: Span): IRExpr {
  const not = ex.mk({ k: "not", arg: unless, type: BOOL }, { file, scope: new Map(), inUse: new Set() }, span);
  return { k: "and", args: [...(when.k === "and" ? when.args : [when]), not], type: BOOL, ...(when.pos ? { pos: when.pos } : {}) };
}

/** A rule's (or an action's) `during`: the Phase (and Segment) members it names, each a member of its enum and a state field of that type (RW2018); null without `during`, undefined on error. */
export function scopeOf(c: Checking, d: Pick<DeclOf<"rule">, "during">, file: string): IRScope | null | undefined {
  const { env, rep, res } = c;
  if (!d.during) return null;
  let ok = true;
  const check = (which: "Phase" | "Segment", field: "phase" | "segment", m: { name: string; span: Span }) => {
    const en = env.enums.get(which);
    if (en?.members.includes(m.name)) res.use({ file, span: m.span, key: `member:${en.base}.${m.name}`, type: enumType(env, en.name)! });
    if (!en) {
      rep("RW2018", `\`during\` needs \`enum ${which}\``, { file, span: m.span }, `declare \`enum ${which} { … }\` and a state field \`${field}\` of that type`);
      ok = false;
      return;
    }
    if (!en.members.includes(m.name)) {
      rep("RW2018", `\`${m.name}\` is not a member of \`${which}\``, { file, span: m.span }, didYouMean(m.name, en.members, `members: ${en.members.join(", ")}`));
      ok = false;
    }
    const f = env.state?.fields.find((x) => x.name === field);
    if (env.state && (!f || f.type.k !== "enum" || f.type.base !== en.base)) {
      rep("RW2018", `\`during\` needs a state field \`${field}\` of type \`${which}\`${f ? `, found \`${typeName(f.type)}\`` : ""}`, { file, span: d.during!.span },
        `add \`"${field}": { "$ref": "#/$defs/${which}" }\` to the schema's properties`);
      ok = false;
    }
  };
  check("Phase", "phase", d.during.phase);
  if (d.during.segment) check("Segment", "segment", d.during.segment);
  if (!ok) return undefined;
  return { phase: d.during.phase.name, ...(d.during.segment ? { segment: d.during.segment.name } : {}) };
}
