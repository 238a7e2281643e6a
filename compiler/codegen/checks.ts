/**
 * The rule tests of generated/<edition>/validators.ts: the body of each `check<Action>` (every
 * rule of the action tested inline, the obligations of the actor's other actions, the route rules
 * whose searches answer the others' first), and `fires_<rule>` (scope → condition → exemptions)
 * for the rules that legalMoves and the obligations call. See README.md "Semantics it implements".
 */
import type { Expr, IRAction, IRRule, Type } from "../ir/types.js";
import { actorParam, bindsActor } from "../ir/derived.js";
import { someExpr, freeVars, routesIn, tablesIn } from "../ir/walk.js";
import type { FunctionDeclarationStructure } from "ts-morph";
import type { EditionContext } from "./context.js";
import { andOperand, fn } from "./emit.js";
import { jsString, docText, lineComment } from "./escape.js";
import { AND_PREC, exprKey, tsType, type Code, type Ctx, type ExprCompiler } from "./expr.js";
import { routeDirections } from "./monotone.js";
import { identPart, propAccess, varName, type Names } from "./names.js";

/** What the parts of validators.ts share while one edition's file is built. */
export interface ValidatorsPass {
  readonly cx: EditionContext;
  /** the file's top-level names (every function, constant and local taken from it) */
  readonly names: Names;
  readonly ec: ExprCompiler;
  /** rule id → its `fires_<rule>` function (the forbid rules legalMoves tests, the oblige rules of actor-only actions) */
  readonly firesFn: ReadonlyMap<string, string>;
  /** rule id → the frozen `Violation` constant (`V_<rule>`, `O_<rule>`) */
  readonly violationConst: ReadonlyMap<string, string>;
}

/**
 * A call `fires(state, <actor>)` where the actor value has type `have` and the rule's action wants
 * `want`: direct when every value of `have` is a `want`, else guarded by a membership test.
 */
export function actorCall(ec: ExprCompiler, fires: string, value: string, have: Type | undefined, want: Type): string {
  if (have && have.k === "enum" && want.k === "enum") {
    const wantMembers = new Set(want.members);
    const haveMembers = have.members.length ? have.members : null;
    if (have.name === want.name || (haveMembers && haveMembers.every((m) => wantMembers.has(m)))) return `${fires}(state, ${value})`;
    const arr = ec.enumArray(want.name);
    return `(${arr} as readonly string[]).includes(${value}) && ${fires}(state, ${value} as string as ${want.name})`;
  }
  if (have && JSON.stringify(have) === JSON.stringify(want)) return `${fires}(state, ${value})`;
  return `${fires}(state, ${value} as unknown as ${tsType(want)})`;
}

/**
 * `fires_<O>(state, actor) && !(p1 === v1 && …)`: an obligation with parameters (`IRRule.bind`)
 * binds the actor and the move's parameters (locals of `ctx`) differ from its values, each value
 * compiled over the state and the actor.
 */
export function boundMismatch(pass: ValidatorsPass, r: IRRule, me: { name: string }, ctx: Ctx): string {
  const eqs = r.bind!.map((b) => `(${ctx.get(b.param)!} as unknown) === ${andOperand(pass.ec.expr(b.value, ctx, `${identPart(r.id)}_${identPart(b.param)}`))}`);
  return `${pass.firesFn.get(r.id)!}(state, ${ctx.get(me.name)!}) && !(${eqs.join(" && ")})`;
}

/** `fires_<rule>` of one rule (named `name`): its scope, then its condition and the exemptions that lift it. */
export function ruleFunction(pass: ValidatorsPass, rule: IRRule, action: IRAction, name: string): FunctionDeclarationStructure {
  const { cx, ec } = pass;
  // an obligation with parameters is decided by the state and the actor alone
  if (rule.bind) action = { ...action, params: action.params.filter((p) => p.actor) };
  const ctx: Ctx = new Map(action.params.map((p) => [p.name, varName(p.name)]));
  const params = [{ name: "state", type: "State" }, ...action.params.map((p) => ({ name: varName(p.name), type: tsType(p.type) }))];
  const base = identPart(rule.id);
  const lines: string[] = [];
  if (rule.scope) {
    lines.push(`if ((state.phase as string) !== ${jsString(rule.scope.phase)}) return false;`);
    if (rule.scope.segment !== undefined) lines.push(`if ((state.segment as string) !== ${jsString(rule.scope.segment)}) return false;`);
  }
  const when = rule.when;
  const exemptions = cx.lifts(rule);
  ec.inFunction(() => {
    // the map lookups the condition and the exemptions repeat are read once, after the scope test
    lines.push(...ec.hoist([when, ...exemptions.map((ex) => ex.when)], [], undefined, ctx, base));
    const cond: string[] = [];
    if (!(when.k === "lit" && when.value === true)) {
      cond.push(`if (${ec.negated(when, ctx, base).code}) return false;`);
    }
    const lifts: string[] = [];
    for (const ex of exemptions) {
      lifts.push(`// ${lineComment(`lifted by exempt ${ex.id} (${ex.citation.text})`)}`);
      lifts.push(`if (${ec.expr(ex.when, ctx, `ex_${identPart(ex.id)}`).code}) return false;`);
    }
    lines.push(...(exemptionsFirst(cx, rule) ? [...lifts, ...cond] : [...cond, ...lifts]));
  });
  lines.push(`return true;`);
  const groups = rule.groups.length ? ` (${rule.groups.join(", ")})` : "";
  return fn(name, params, "boolean", lines.join("\n"), {
    docs: [[`${rule.kind} ${rule.action}: ${rule.id} ${rule.citation.text}${groups}`, rule.title, `${rule.pos.file}:${rule.pos.line}:${rule.pos.column}`].map(docText).join("\n")],
  });
}

/**
 * Whether a rule's exemptions are tested before its condition: a condition that searches the
 * board goes after exemptions that do not (the answer is the same: neither can throw, nor has an
 * effect).
 */
function exemptionsFirst(cx: EditionContext, rule: IRRule): boolean {
  const { ir } = cx;
  const exemptions = cx.lifts(rule);
  const searches = (e: Expr): boolean => someExpr(e, (x) => x.k === "reach");
  return searches(rule.when) && exemptions.every((ex) => !searches(ex.when)) && !mayThrow(cx, rule.when) && exemptions.every((ex) => !mayThrow(cx, ex.when));
}

/**
 * The body of `check<Action>` (without the declarations of `violations` and `obliged`): the
 * action's parameters and each scope test read once into locals, the map lookups the rules repeat
 * read once (`hoist`), then every rule of the action tested inline in rule order — scope, then
 * condition and exemptions as in `fires_<rule>` — except the route rules whose searches answer
 * the others' (`earlySearches`), tested first into locals; then the obligations of the actor's
 * other actions (their `fires_<rule>`) and the action's own oblige rules.
 */
export function checkerLines(pass: ValidatorsPass, a: IRAction): string[] {
  const { cx, ec, firesFn, violationConst } = pass;
  const { rules, actionByName } = cx;
  const own = rules.filter((r) => r.action === a.name);
  const me = actorParam(a);
  const ctx: Ctx = new Map(a.params.map((p) => [p.name, varName(p.name)]));
  const forbids = own.filter((r) => r.kind === "forbid");
  const obliges = own.filter((r) => r.kind === "oblige" && !r.bind);
  const bound = own.filter((r) => r.bind);
  const others = me ? rules.filter((r) => r.kind === "oblige" && r.action !== a.name && bindsActor(actionByName.get(r.action)!, r)) : [];
  return ec.inFunction(() => {
    const head: string[] = [];
    const body: string[] = [];
    // one local per scope the rules test
    const scopes = new Map<string, string>();
    const scopeKey = (sc: NonNullable<IRRule["scope"]>): string => JSON.stringify([sc.phase, sc.segment ?? null]);
    for (const r of own) {
      if (!r.scope || scopes.has(scopeKey(r.scope))) continue;
      const local = ec.local("scope", scopes.size);
      scopes.set(scopeKey(r.scope), local);
      const seg = r.scope.segment !== undefined ? ` && (state.segment as string) === ${jsString(r.scope.segment)}` : "";
      head.push(`const ${local} = (state.phase as string) === ${jsString(r.scope.phase)}${seg};`);
    }
    // exemption id → the local holding its value (filled below)
    const shared = new Map<string, string>();
    // with one scope for every scoped rule, a state out of it is answered by the other rules
    // alone, first; after that the scope holds and is not tested again
    const only = scopes.size === 1 ? [...scopes.values()][0]! : undefined;
    if (only !== undefined) {
      const unscoped = own.filter((r) => !r.scope);
      const outside = ec.inFunction(() => [
        ...unscoped.filter((r) => r.kind === "forbid").map((r) => `  if (${test(r, false)}) (violations ??= []).push(${violationConst.get(r.id)});`),
        ...others.map((r) => `  if (${otherCall(r)}) (violations ??= []).push(${violationConst.get(r.id)});`),
        ...unscoped.filter((r) => r.bind).flatMap((r) => boundLines(r).map((l) => `  ${l}`)),
        ...unscoped.filter((r) => r.kind === "oblige" && !r.bind).map((r) => `  if (${test(r, false)}) (obliged ??= []).push(${jsString(r.id)});`),
      ]);
      head.push(`if (!${only}) {`, ...outside, `  ${RETURN_VERDICT}`, `}`);
    }
    const hoisted = ec.hoist(own.flatMap((r) => [r.when, ...cx.lifts(r).map((ex) => ex.when)]), [], undefined, ctx, "check");
    // an exemption that lifts several of the rules, one of which tests it before its condition
    // (so it is evaluated whenever that rule's scope holds), is evaluated once
    for (const ex of cx.exemptions) {
      const users = own.filter((r) => cx.lifts(r).includes(ex));
      if (users.length < 2 || !users.some((r) => exemptionsFirst(cx, r)) || someExpr(ex.when, (x) => x.k === "reach") || mayThrow(cx, ex.when)) continue;
      const local = ec.local("lifted", shared.size);
      const scoped = only === undefined && users.every((r) => r.scope && users[0]!.scope && scopeKey(r.scope) === scopeKey(users[0]!.scope)) ? `${scopes.get(scopeKey(users[0]!.scope!))} && ` : "";
      hoisted.push(`const ${local} = ${scoped}${andOperand(ec.expr(ex.when, ctx, `ex_${identPart(ex.id)}`))};`);
      shared.set(ex.id, local);
    }
    /** an obligation with parameters of this action: the move with its values is obliged, any other violates it */
    function boundLines(r: IRRule): string[] {
      const eqs = r.bind!.map((b) => `(${varName(b.param)} as unknown) === ${andOperand(ec.expr(b.value, ctx, `${identPart(r.id)}_${identPart(b.param)}`))}`);
      return [
        `if (${firesFn.get(r.id)!}(state, ${varName(me!.name)})) {`,
        `  if (${eqs.join(" && ")}) (obliged ??= []).push(${jsString(r.id)});`,
        `  else (violations ??= []).push(${violationConst.get(r.id)});`,
        `}`,
      ];
    }
    function otherCall(r: IRRule): string {
      return actorCall(ec, firesFn.get(r.id)!, varName(me!.name), me!.type, actorParam(actionByName.get(r.action)!)!.type);
    }
    function test(r: IRRule, inside = true): string {
      const base = identPart(r.id);
      const parts: Code[] = r.scope && only === undefined ? [{ code: scopes.get(scopeKey(r.scope))!, prec: AND_PREC + 1 }] : [];
      const cond = r.when.k === "lit" && r.when.value === true ? [] : [ec.expr(r.when, ctx, base)];
      const lifts = cx.lifts(r).map((ex) => (inside && shared.has(ex.id) ? { code: `!${shared.get(ex.id)!}`, prec: AND_PREC + 1 } : ec.negated(ex.when, ctx, `ex_${identPart(ex.id)}`)));
      parts.push(...(exemptionsFirst(cx, r) ? [...lifts, ...cond] : [...cond, ...lifts]));
      return parts.length === 0 ? "true" : parts.length === 1 ? parts[0]!.code : parts.map(andOperand).join(" && ");
    }
    const about = (r: IRRule): string =>
      [
        `// ${lineComment(`${r.id} ${r.citation.text}${r.groups.length ? ` (${r.groups.join(", ")})` : ""}: ${r.title}`)}`,
        ...cx.lifts(r).map((ex) => `//   ${lineComment(`lifted by exempt ${ex.id} (${ex.citation.text})`)}`),
      ].join("\n");
    // route rules whose searches answer the others' (the tightest, then the loosest) are tested
    // first; the violations keep the rule order
    const early = new Map<string, string>();
    const first = earlySearches(cx, forbids);
    if (first.length) body.push(`// ${lineComment(`the searches that can answer the other route rules' first: ${first.map((r) => r.id).join(", ")}`)}`);
    for (const r of first) {
      const local = ec.local("first", early.size);
      early.set(r.id, local);
      body.push(`const ${local} = ${test(r)};`);
    }
    for (const r of forbids) {
      body.push(about(r));
      body.push(`if (${early.get(r.id) ?? test(r)}) (violations ??= []).push(${violationConst.get(r.id)});`);
    }
    for (const r of others) {
      body.push(`// ${lineComment(`${r.id}: \`${r.action}\` is the only legal move`)}`);
      body.push(`if (${otherCall(r)}) (violations ??= []).push(${violationConst.get(r.id)});`);
    }
    for (const r of bound) {
      body.push(about(r));
      body.push(...boundLines(r));
    }
    for (const r of obliges) {
      body.push(about(r));
      body.push(`if (${test(r)}) (obliged ??= []).push(${jsString(r.id)});`);
    }
    // the parameters the tests read, as locals
    const read = new Set<string>();
    for (const r of own) for (const e of [r.when, ...cx.lifts(r).map((ex) => ex.when)]) for (const n of freeVars(e).keys()) read.add(n);
    if (others.length || bound.length) read.add(me!.name);
    for (const r of bound) for (const b of r.bind!) read.add(b.param);
    const params = a.params.filter((p) => read.has(p.name)).map((p) => `const ${varName(p.name)} = ${propAccess("action", p.name)};`);
    return [...params, ...head, ...hoisted, ...body];
  });
}

/** Where `checkerLines` returns the verdict early (the checker puts its `return verdict(…)` there). */
export const RETURN_VERDICT = "return /* verdict */;";

/**
 * Whether evaluating `e` can throw on a valid state: a table lookup (a `RangeError` outside its
 * domain), also inside the clauses of a route it searches. Everything else reads the state.
 */
function mayThrow(cx: EditionContext, e: Expr): boolean {
  const { ir } = cx;
  const tables = new Set<string>();
  const routes = new Set<string>();
  tablesIn(e, tables);
  routesIn(e, routes);
  // the routes searched, and those their clauses search in turn
  const todo = [...routes];
  for (let name = todo.pop(); name !== undefined && tables.size === 0; name = todo.pop()) {
    const r = ir.routes.find((x) => x.name === name);
    if (!r) continue;
    const inner = new Set<string>();
    for (const c of [r.land, r.sea, r.port, r.passes, ...(r.maxSeas ? [r.maxSeas] : []), ...(r.maxSteps ? [r.maxSteps] : [])]) {
      tablesIn(c, tables);
      routesIn(c, inner);
    }
    for (const n of inner) if (!routes.has(n)) routes.add(n), todo.push(n);
  }
  return tables.size > 0;
}

/**
 * The forbid rules of one action whose route search to make first, in that order: among rules
 * whose condition makes one search, of the same route between the same ends with the same
 * unordered arguments, the tightest calls (no other call of the group is surely tighter), then the
 * loosest. With the route memo a path found under the tightest arguments answers every call of
 * the group, and no path under the loosest answers them too. Only rules that cannot throw move
 * (their order is then invisible); a group of one is left alone.
 */
function earlySearches(cx: EditionContext, forbids: readonly IRRule[]): IRRule[] {
  const { ir } = cx;
  type Call = { rule: IRRule; reach: Extract<Expr, { k: "reach" }>; dirs: ReturnType<typeof routeDirections> };
  const groups = new Map<string, Call[]>();
  for (const rule of forbids) {
    const calls: Extract<Expr, { k: "reach" }>[] = [];
    someExpr(rule.when, (x) => (x.k === "reach" && calls.push(x), false));
    if (calls.length !== 1 || mayThrow(cx, rule.when) || cx.lifts(rule).some((ex) => mayThrow(cx, ex.when))) continue;
    const reach = calls[0]!;
    const route = ir.routes.find((r) => r.name === reach.route);
    if (!route) continue;
    const dirs = routeDirections(route);
    const key = JSON.stringify([reach.route, exprKey(reach.from), exprKey(reach.to), ...reach.args.map((x, i) => (dirs[i] === "eq" ? exprKey(x) : dirs[i] === "none" ? "" : "*"))]);
    groups.set(key, [...(groups.get(key) ?? []), { rule, reach, dirs }]);
  }
  // the least and greatest value of an argument expression (false < true), when known: a
  // literal, or an if-then-else between known ones; a surely ≤ b for two of them
  const bounds = (e: Expr): [number, number] | undefined => {
    if (e.k === "lit") return typeof e.value === "boolean" ? [Number(e.value), Number(e.value)] : typeof e.value === "number" ? [e.value, e.value] : undefined;
    if (e.k !== "ite") return e.type.k === "bool" ? [0, 1] : undefined;
    const t = bounds(e.then);
    const f = bounds(e.else);
    return t && f ? [Math.min(t[0], f[0]), Math.max(t[1], f[1])] : undefined;
  };
  const le = (a: Expr, b: Expr): boolean => {
    if (exprKey(a) === exprKey(b)) return true;
    const x = bounds(a);
    const y = bounds(b);
    return x !== undefined && y !== undefined && x[1] <= y[0];
  };
  // every path of call a is a path of call b
  const tighter = (a: Call, b: Call): boolean =>
    a.reach.args.every((x, i) => {
      const y = b.reach.args[i]!;
      const d = a.dirs[i];
      return d === "up" ? le(x, y) : d === "down" ? le(y, x) : true;
    });
  const out: IRRule[] = [];
  for (const calls of groups.values()) {
    if (calls.length < 2) continue;
    const strictly = (a: Call, b: Call): boolean => tighter(a, b) && !tighter(b, a);
    const tightest = calls.filter((c) => !calls.some((o) => strictly(o, c)));
    const loosest = calls.filter((c) => !tightest.includes(c) && !calls.some((o) => strictly(c, o)));
    // nothing to gain when no call is surely tighter than another
    if (!calls.some((a) => calls.some((b) => strictly(a, b)))) continue;
    out.push(...tightest.map((c) => c.rule), ...loosest.map((c) => c.rule));
  }
  return out;
}
