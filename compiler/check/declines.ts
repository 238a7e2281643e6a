/**
 * Pass "invariants and declines": invariants (an id and a `bool` over the state) lowered to
 * `IRInvariant`; `decline <action> during <phase>` declarations (RW2022) lowered to `IRDecline`,
 * and a phase whose rules scope a power's move without a decline move (RW2023, a warning).
 */
import type { Span } from "../diagnostics/types.js";
import type { IRDecline, IRInvariant, IRRule } from "../ir/types.js";
import type { Ids } from "./cite.js";
import { BOOL, type Checking } from "./context.js";
import { enumType } from "./env.js";
import type { ExprChecker } from "./expr.js";
import { didYouMean, posOf } from "./util.js";

/** Checks and lowers the invariants, in declaration order. */
export function checkInvariants(c: Checking, ex: ExprChecker, ids: Ids): IRInvariant[] {
  const { of, res } = c;
  const irInvariants: IRInvariant[] = [];
  for (const { decl: d, file } of of("invariant")) {
    const fresh = ids.claimId(d.id, file, "an invariant");
    if (fresh) res.declare({ key: `invariant:${d.id.name}`, kind: "invariant", name: d.id.name, file, span: d.id.span });
    const e = ex.expect(d.expr, { file, scope: new Map(), inUse: new Set() }, BOOL, "an invariant");
    if (e && fresh) irInvariants.push({ id: d.id.name, title: d.title, expr: e, pos: posOf(file, d.id.span) });
  }
  return irInvariants;
}

/** Checks and lowers the decline declarations (sorted by phase); then, when nothing failed so far, warns of phases with moves and no decline (RW2023). */
export function checkDeclines(c: Checking, irRules: IRRule[]): IRDecline[] {
  const { env, of, r, rep, res } = c;
  const irDeclines: IRDecline[] = [];
  const phaseEnum = env.enums.get("Phase");
  const declineOf = new Map<string, { file: string; span: Span }>();
  for (const { decl: d, file } of of("decline")) {
    let ok = true;
    const act = env.actions.get(d.action.name);
    if (act) res.use({ file, span: d.action.span, key: `action:${d.action.name}` });
    if (phaseEnum?.members.includes(d.phase.name)) res.use({ file, span: d.phase.span, key: `member:${phaseEnum.base}.${d.phase.name}`, type: enumType(env, "Phase")! });
    if (!act) {
      rep("RW2022", `unknown action \`${d.action.name}\``, { file, span: d.action.span }, didYouMean(d.action.name, env.actions.keys(), "declare it with `action`"));
      ok = false;
    } else if (act.params && (act.params.length !== 1 || !act.params[0]!.actor)) {
      rep("RW2022", `\`${d.action.name}\` cannot be a decline move: it has parameters other than its actor`, { file, span: d.action.span },
        "declining is one choice-free move: declare an action whose only parameter is its actor, e.g. `action end_deployments(actor power: MajorPower)`");
      ok = false;
    }
    if (!phaseEnum) {
      rep("RW2022", "`decline … during` needs `enum Phase`", { file, span: d.phase.span }, "declare `enum Phase { … }` and a state field `phase` of that type");
      ok = false;
    } else if (!phaseEnum.members.includes(d.phase.name)) {
      rep("RW2022", `\`${d.phase.name}\` is not a member of \`Phase\``, { file, span: d.phase.span }, didYouMean(d.phase.name, phaseEnum.members, `members: ${phaseEnum.members.join(", ")}`));
      ok = false;
    }
    const prev = declineOf.get(d.phase.name);
    if (prev) {
      rep("RW2022", `phase \`${d.phase.name}\` already has a decline move`, { file, span: d.phase.span }, "a phase has one decline move: remove one of the two declarations",
        [{ message: "the first one", pos: posOf(prev.file, prev.span) }]);
      ok = false;
    }
    if (!ok) continue;
    declineOf.set(d.phase.name, { file, span: d.phase.span });
    irDeclines.push({ phase: d.phase.name, action: d.action.name, title: d.title, pos: posOf(file, d.action.span) });
  }
  irDeclines.sort((a, b) => (a.phase < b.phase ? -1 : a.phase > b.phase ? 1 : 0));
  // a phase whose rules scope a move of a power (an action with an actor) names its decline move
  if (phaseEnum && !r.errorCount) {
    const firstScoped = new Map<string, IRRule>();
    for (const rule of irRules) {
      const ph = rule.scope?.phase;
      const a = env.actions.get(rule.action);
      if (ph && a?.params?.some((x) => x.actor) && !firstScoped.has(ph)) firstScoped.set(ph, rule);
    }
    for (const [ph, rule] of firstScoped) {
      if (declineOf.has(ph)) continue;
      const at = rule.pos;
      rep("RW2023", `phase \`${ph}\` has moves but no decline move`, { file: at.file, span: { line: at.line, column: at.column, endLine: at.line, endColumn: at.column + rule.id.length } },
        `say how a power declines to act in it, e.g. \`decline pass during ${ph} "…"\` (an action whose only parameter is its actor); without one the stuck-power analysis takes declining as always possible unless an obligation binds the power`);
    }
  }
  return irDeclines;
}
