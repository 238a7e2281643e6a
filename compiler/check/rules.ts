/**
 * Pass "rules": every rule in force (after a variant's overrides and removals): its id (unique),
 * citation, action (RW2007; an `oblige` only on an action whose one parameter is its actor,
 * RW2017), `during` scope (RW2018), `@severity` annotations and `when` condition (with its
 * `unless` exception: `when A unless B` is lowered to `A and not B`), typed and lowered to `IRRule`.
 */
import type { Span } from "../diagnostics/types.js";
import type { Expr as IRExpr, IRRule, IRScope } from "../ir/types.js";
import type { Ids } from "./cite.js";
import { severitiesOf } from "./cite.js";
import { BOOL, paramCtx, type Checking } from "./context.js";
import { enumType, typeName, type DeclOf } from "./env.js";
import type { ExprChecker } from "./expr.js";
import { didYouMean, posOf } from "./util.js";

/** What exemptions need to know of each rule id claimed (also of rules that failed to check). */
export type RuleInfo = Map<string, { action?: string; groups: string[]; file: string; span: Span }>;

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
    if (d.kind === "oblige") {
      const others = act.params.filter((p) => !p.actor);
      if (others.length || !act.params.some((p) => p.actor)) {
        rep("RW2017", others.length
          ? `\`oblige\` on \`${d.action.name}\`, which has parameters other than its actor (${others.map((p) => "`" + p.name + "`").join(", ")})`
          : `\`oblige\` on \`${d.action.name}\`, which has no \`actor\` parameter`,
          { file, span: d.action.span }, "an obliged action names only who must do it; oblige an action like `pass(actor power: MajorPower)`",
          [{ message: `\`${d.action.name}\` is declared here`, pos: posOf(act.file, act.decl.name.span) }]);
      }
    }
    const scope = scopeOf(c, d, file);
    const ctx = paramCtx(c, file, act.params, d.span);
    const cond = ex.expect(d.when, ctx, BOOL, "a rule's `when` condition");
    // `when A unless B` is `A and not B` (an exemption written inline, read on the rule itself)
    const unless = d.unless ? ex.expect(d.unless, ctx, BOOL, "a rule's `unless` condition") : undefined;
    const when = cond && (!d.unless ? cond : unless && withUnless(ex, cond, unless, file, d.unless.span));
    const severities = severitiesOf(c, d.annotations ?? [], file, "rule");
    if (!when || scope === undefined || !fresh || !cite) continue;
    irRules.push({
      id: d.id.name, kind: d.kind, action: d.action.name, title: d.title, citation: cite, scope, groups, when, pos: posOf(file, d.id.span), provenance,
      ...(severities ? { severities } : {}),
    });
  }
  return { irRules, ruleInfo };
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
