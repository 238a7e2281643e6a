/**
 * `legalMovesTrusted(state, actor, options)` of generated/<edition>/validators.ts, its per-action
 * enumerators (`moves_<action>`) and `LEGAL_MOVE_ACTIONS`: the moves an actor may make now. An
 * action is listed only within its declared scope (`during`, `actor active`: IRAction.scope), only
 * when some rule restricts it (`encoded`) unless asked, and over finite domains: enums and
 * booleans, and the parameters whose domain its rules bound (domains.ts). README.md "Semantics it
 * implements".
 */
import type { Expr, IRAction, IRRule, IRScope } from "../ir/types.js";
import { actorParam, bindsActor } from "../ir/derived.js";
import { children, routesIn } from "../ir/walk.js";
import { actorCall, boundMismatch, type ValidatorsPass } from "./checks.js";
import type { EditionContext } from "./context.js";
import { enumerationPlan, type ParamDomain } from "./domains.js";
import { fn, type Statement } from "./emit.js";
import { docText, jsString, lineComment } from "./escape.js";
import { tsType } from "./expr.js";
import { identPart, propAccess, propKey, varName } from "./names.js";

/** Why an action's moves cannot be enumerated (a parameter over a domain no rule bounds), or undefined. */
export function legalMovesSkip(cx: EditionContext, a: IRAction): string | undefined {
  const plan = enumerationPlan(cx, a);
  return "skip" in plan ? plan.skip : undefined;
}

/** Whether some rule of the edition restricts the action (a forbid rule of it, or an oblige rule of it). */
export function isEncoded(cx: EditionContext, a: IRAction): boolean {
  return cx.rules.some((r) => r.action === a.name);
}

/** The names of the action parameters an expression reads (over-approximated: any variable of that name). */
export function paramsRead(e: Expr, params: ReadonlySet<string>, out: Set<string>): void {
  if (e.k === "var" && params.has(e.name)) out.add(e.name);
  for (const c of children(e)) paramsRead(c, params, out);
}

/** `phase` or `phase.segment`, as the scope writes it. */
function phaseText(d: IRScope): string {
  return d.segment !== undefined ? `${d.phase}.${d.segment}` : d.phase;
}

/** The test that `state` is in one of a scope's phases (its segment too, where named): one comparison per phase, or-ed, parenthesised when more than one. */
export function phasesTest(during: readonly IRScope[]): string {
  const one = (d: IRScope): string =>
    `(state.phase as string) === ${jsString(d.phase)}${d.segment !== undefined ? ` && (state.segment as string) === ${jsString(d.segment)}` : ""}`;
  if (during.length === 1) return one(during[0]!);
  return `(${during.map((d) => (d.segment !== undefined ? `(${one(d)})` : one(d))).join(" || ")})`;
}

/** The loop that binds one parameter over its domain (`ind`: the indentation). */
function loopOver(pass: ValidatorsPass, a: IRAction, d: ParamDomain, ind: string, ctx: Map<string, string>): string[] {
  const { ec } = pass;
  const v = varName(d.param.name);
  const base = `lm_${identPart(a.name)}_${identPart(d.param.name)}`;
  switch (d.k) {
    case "enum":
      return [`${ind}for (const ${v} of ${ec.enumArray(d.name)}) {`];
    case "bool":
      return [`${ind}for (const ${v} of [false, true] as const) {`];
    case "neighbors":
      // the spaces connected to an earlier space parameter, in space order (domains.ts)
      ec.boardUsed.add("neighbors");
      return [`${ind}for (const ${v} of neighbors(${ctx.get(d.of)!})) {`];
    case "int": {
      const hi = ec.expr(d.hi, ctx, base).code;
      return [`${ind}for (let ${v} = ${d.lo}, hi_${v} = ${hi}; ${v} <= hi_${v}; ${v}++) {`];
    }
    case "member":
    case "subset": {
      // the distinct values of `elem.field` over the list, filtered by the other conjuncts
      const inner = new Map(ctx);
      const ev = `e_${v}`;
      inner.set(d.elemVar, ev);
      const list = ec.expr(d.list, ctx, base).code;
      const filter = d.filter ? ec.expr(d.filter, inner, base).code : "true";
      const lines = [
        `${ind}const dom_${v}: string[] = [];`,
        `${ind}for (const ${ev} of ${list}) if (${filter} && !dom_${v}.includes(${propAccess(ev, d.field)})) dom_${v}.push(${propAccess(ev, d.field)});`,
      ];
      lines.push(d.k === "member" ? `${ind}for (const ${v} of dom_${v}) {` : `${ind}for (const ${v} of subsetsOf(dom_${v}, ${d.max})) {`);
      return lines;
    }
  }
}

/**
 * The enumerators: for each action with a finite plan (domains.ts), the parameters are bound one
 * after another in declaration order (the actor fixed), and each forbid rule of the action is
 * tested at the first depth where every parameter it reads (its condition and its exemptions') is
 * bound: a rule that fires prunes the whole branch. The obligations of the actor's other actions,
 * and the rules that read no parameter but the actor, are tested once before any loop. Within the
 * action's scope a move is listed exactly when `checkTrusted` allows it (a list parameter: its
 * subsets without repeats, in domain order).
 */
export function legalMovesStatements(pass: ValidatorsPass): Statement[] {
  const { cx, ec, names, firesFn } = pass;
  const { actions, rules, actionByName, actorType } = cx;
  const out: Statement[] = [];
  const calls: string[] = [];
  const info: string[] = [];
  const actorTs = actorType ? tsType(actorType) : "string";
  let subsets = false;
  for (const a of actions) {
    const plan = enumerationPlan(cx, a);
    const encoded = isEncoded(cx, a);
    const skip = "skip" in plan ? plan.skip : undefined;
    const sc = a.scope;
    const scopeText = sc ? [...(sc.during ? [`during ${sc.during.map(phaseText).join(", ")}`] : []), ...(sc.activeOnly ? ["actor active"] : [])].join(" ") : undefined;
    info.push(`{ action: ${jsString(a.name)}, enumerated: ${skip === undefined}, encoded: ${encoded}${scopeText ? `, scope: ${jsString(scopeText)}` : ""}${skip === undefined ? "" : `, reason: ${jsString(skip)}`} }`);
    if ("skip" in plan) continue;
    const me = actorParam(a)!;
    const pnames = new Set(a.params.map((p) => p.name));
    const depthOf = new Map(plan.domains.map((d, i) => [d.param.name, i]));
    // rules by the depth at which they can be tested (-1: before any loop)
    const byDepth = new Map<number, IRRule[]>();
    for (const r of rules.filter((r) => r.action === a.name && r.kind === "forbid")) {
      const read = new Set<string>();
      paramsRead(r.when, pnames, read);
      for (const ex of cx.lifts(r)) paramsRead(ex.when, pnames, read);
      const d = Math.max(-1, ...[...read].map((n) => depthOf.get(n) ?? -1));
      byDepth.set(d, [...(byDepth.get(d) ?? []), r]);
    }
    // cheap rules first: at each depth the rules that search no route before those that do
    const searches = (r: IRRule): boolean => {
      const found = new Set<string>();
      routesIn(r.when, found);
      return found.size > 0;
    };
    for (const [d, rs] of byDepth) byDepth.set(d, [...rs.filter((r) => !searches(r)), ...rs.filter(searches)]);
    const bound = new Set<string>([me.name]);
    const ctx = new Map<string, string>([[me.name, varName(me.name)]]);
    const callOf = (r: IRRule): string => `${firesFn.get(r.id)}(${["state", ...a.params.map((p) => (bound.has(p.name) ? varName(p.name) : "undefined as never"))].join(", ")})`;
    const fname = names.take(`moves_${identPart(a.name)}`);
    const lines: string[] = [];
    for (const r of rules.filter((r) => r.kind === "oblige" && r.action !== a.name)) {
      const other = actionByName.get(r.action)!;
      if (!bindsActor(other, r)) continue;
      lines.push(`if (${actorCall(ec, firesFn.get(r.id)!, varName(me.name), me.type, actorParam(other)!.type)}) return; // ${lineComment(`${r.id}: \`${r.action}\` is the only legal move`)}`);
    }
    for (const r of byDepth.get(-1) ?? []) lines.push(`if (${callOf(r)}) return;`);
    let ind = "";
    ec.inFunction(() => {
      plan.domains.forEach((d, i) => {
        if (d.k === "subset") subsets = true;
        lines.push(...loopOver(pass, a, d, ind, ctx));
        ind += "  ";
        bound.add(d.param.name);
        ctx.set(d.param.name, varName(d.param.name));
        for (const r of byDepth.get(i) ?? []) lines.push(`${ind}if (${callOf(r)}) continue;`);
      });
    });
    // an obligation with parameters of this action: while it binds the actor, only its move
    ec.inFunction(() => {
      for (const r of rules.filter((r) => r.action === a.name && r.bind)) lines.push(`${ind}if (${boundMismatch(pass, r, me, ctx)}) continue; // ${lineComment(`${r.id}: the obliged move only`)}`);
    });
    const obj = `{ action: ${jsString(a.name)}, ${a.params.map((p) => `${propKey(p.name)}: ${varName(p.name)}`).join(", ")} }`;
    lines.push(`${ind}out.push(${obj});`);
    for (let i = plan.domains.length; i > 0; i--) lines.push(`${" ".repeat(2 * (i - 1))}}`);
    out.push(
      fn(fname, [{ name: "state", type: "State" }, { name: varName(me.name), type: tsType(me.type) }, { name: "out", type: "Action[]" }], "void", lines.join("\n"), {
        docs: [docText(`The legal \`${a.name}\` moves of an actor, appended to out (see legalMovesTrusted).`)],
      }),
    );
    // the actor of legalMoves may be wider than this action's actor type
    const call = actorCall(ec, fname, "actor", actorType, me.type).replace(/\)$/, ", out)");
    const and = call.indexOf(" && ");
    const guards: string[] = [];
    if (!encoded) guards.push("unencoded");
    if (sc?.during) guards.push(phasesTest(sc.during));
    if (sc?.activeOnly) guards.push(`(state.active_power as string) === (actor as string)`);
    if (and >= 0) guards.push(call.slice(0, and));
    const body = and < 0 ? call : call.slice(and + 4);
    calls.push(guards.length ? `if (${guards.join(" && ")}) ${body};` : `${body};`);
  }
  if (subsets) {
    out.push(
      [
        `/** Every subset of \`xs\` with at most \`max\` elements, each in the order of \`xs\` (the empty one first). */`,
        `function subsetsOf<T>(xs: readonly T[], max: number): T[][] {`,
        `  const out: T[][] = [[]];`,
        `  for (const x of xs) {`,
        `    const n = out.length;`,
        `    for (let i = 0; i < n; i++) if (out[i]!.length < max) out.push([...out[i]!, x]);`,
        `  }`,
        `  return out;`,
        `}`,
      ].join("\n"),
    );
  }
  const usesUnencoded = calls.some((c) => c.includes("unencoded"));
  out.push(
    fn(
      "legalMovesTrusted",
      [{ name: "state", type: "State" }, { name: "actor", type: actorTs }, { name: "options", type: "{ readonly unencoded?: boolean } = {}" }],
      "Action[]",
      [`const out: Action[] = [];`, ...(usesUnencoded ? [`const unencoded = options.unencoded === true;`] : []), ...calls, `return out;`].join("\n"),
      {
        exported: true,
        docs: [
          "Every move `actor` may make in `state` now, for a state and actor already known to be valid (no input checks: `legalMoves` checks them). An action is listed only in its declared scope (`during`, `actor active`: `LEGAL_MOVE_ACTIONS[i].scope`), only when some rule restricts it (`encoded`; `options.unencoded` lists the others too), and only when its parameters range over finite domains: enums, booleans, and the parameters whose values its rules bound (an int between a lower bound and a state value, a string from a list in the state, a list as the subsets of such a list, without repeats, in the list's order). Within that, a move is listed exactly when `checkTrusted` allows it. Order: by action name, then parameters in declaration order and domain order.",
        ],
      },
    ),
  );
  out.push(
    `/** Which actions \`legalMoves\` enumerates (and why the others are left out), which ones some rule restricts (\`encoded\`), and their declared scope. */\nexport const LEGAL_MOVE_ACTIONS: readonly { readonly action: string; readonly enumerated: boolean; readonly encoded: boolean; readonly scope?: string; readonly reason?: string }[] = Object.freeze([${info.join(", ")}]);`,
  );
  return out;
}
