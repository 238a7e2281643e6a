/**
 * Pass "exemptions": every exemption — its id, citation, targets (rule ids and groups that exist,
 * RW2008; lifting none is RW2021), the parameters common to every lifted rule's action (the only
 * ones its `when` may read, RW2012), `@severity` annotations — typed and lowered to `IRExemption`.
 */
import type { IRExemption } from "../ir/types.js";
import type { Ids } from "./cite.js";
import { severitiesOf } from "./cite.js";
import { BOOL, paramCtx, provenanceOf, type Checking } from "./context.js";
import { enumType, type Ctx, type ParamInfo } from "./env.js";
import type { ExprChecker } from "./expr.js";
import type { RuleInfo } from "./rules.js";
import { didYouMean, posOf } from "./util.js";

/** Checks and lowers the exemptions, in declaration order. */
export function checkExemptions(c: Checking, ex: ExprChecker, ids: Ids, ruleInfo: RuleInfo): IRExemption[] {
  const { asm, env, leaf, of, rep, res } = c;
  const irExemptions: IRExemption[] = [];
  for (const { decl: d, file, origin } of of("exempt")) {
    const fresh = ids.claimId(d.id, file, "an exemption");
    if (fresh) res.declare({ key: `exempt:${d.id.name}`, kind: "exempt", name: d.id.name, file, span: d.id.span });
    const cite = ids.citation(d.citations, d.id, file, origin, "exemption");
    const groups: string[] = [];
    const ruleIds: string[] = [];
    let ok = true;
    // an inherited exemption keeps working when a variant removes rules it lifts
    const inherited = origin !== undefined && origin.edition !== leaf.folder;
    for (const t of d.targets) {
      if (t.k === "group") {
        if (res.declaration(`group:${t.group.name}`)) res.use({ file, span: t.group.span, key: `group:${t.group.name}` });
        if (![...ruleInfo.values()].some((ri) => ri.groups.includes(t.group.name)) && !(inherited && asm.removed.length)) {
          rep("RW2008", `no rule is in group \`(${t.group.name})\``, { file, span: t.group.span },
            didYouMean(t.group.name, [...new Set([...ruleInfo.values()].flatMap((ri) => ri.groups))], "put rules in the group by writing it after their title"));
          ok = false;
        }
        if (!groups.includes(t.group.name)) groups.push(t.group.name);
      } else {
        if (ruleInfo.has(t.id.name)) res.use({ file, span: t.id.span, key: `rule:${t.id.name}` });
        if (asm.removed.some((x) => x.id === t.id.name) && !ruleInfo.has(t.id.name)) continue;
        if (!ruleInfo.has(t.id.name)) {
          rep("RW2008", `unknown rule id \`${t.id.name}\``, { file, span: t.id.span }, didYouMean(t.id.name, ruleInfo.keys(), "name the id of a `rule`"));
          ok = false;
        }
        if (!ruleIds.includes(t.id.name)) ruleIds.push(t.id.name);
      }
    }
    const lifted = [...ruleInfo.entries()].filter(([id, ri]) => ruleIds.includes(id) || ri.groups.some((g) => groups.includes(g)));
    if (ok && !lifted.length) rep("RW2021", `exemption \`${d.id.name}\` lifts no rule`, { file, span: d.id.span }, "name a rule id or a group that has rules");
    // parameters common to every lifted rule's action (same name, same kind, same enum base)
    const liftedParams = lifted.map(([id, ri]) => ({ id, action: ri.action, params: ri.params ?? (ri.action ? env.actions.get(ri.action)?.params : undefined) }));
    if (liftedParams.some((l) => !l.params)) ok = false;
    const common: ParamInfo[] = [];
    const missing = new Map<string, string>();
    for (const p of liftedParams.flatMap((l) => l.params ?? [])) {
      if (common.some((c) => c.name === p.name) || missing.has(p.name)) continue;
      const same = (q: ParamInfo | undefined) => !!q && q.type.k === p.type.k && (q.type.k !== "enum" || (p.type.k === "enum" && q.type.base === p.type.base));
      const lacking = liftedParams.find((l) => l.params && !same(l.params.find((q) => q.name === p.name)));
      if (lacking) {
        missing.set(p.name, `${lacking.action}\` of rule \`${lacking.id}`);
        continue;
      }
      // a lifted rule whose action is unknown (already reported) has no parameters to compare
      const all = liftedParams.flatMap((l) => (l.params ? [l.params.find((q) => q.name === p.name)!.type] : []));
      const identical = all.every((t) => JSON.stringify(t) === JSON.stringify(p.type));
      common.push({ name: p.name, type: identical || p.type.k !== "enum" ? p.type : enumType(env, p.type.base)!, actor: false });
    }
    const ctx: Ctx = { ...paramCtx(c, file, common, d.span), missingParam: missing };
    const when = ex.expect(d.when, ctx, BOOL, "an exemption's `when` condition");
    const severities = severitiesOf(c, d.annotations ?? [], file, "exemption");
    if (!when || !ok || !fresh || !cite) continue;
    irExemptions.push({ id: d.id.name, title: d.title, citation: cite, groups, rules: ruleIds, when, pos: posOf(file, d.id.span), provenance: provenanceOf(origin), ...(severities ? { severities } : {}) });
  }
  return irExemptions;
}
