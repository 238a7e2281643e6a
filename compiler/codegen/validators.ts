/**
 * generated/<edition>/validators.ts: one `fires_<rule>` function per rule (scope, condition,
 * exemptions), one breadth-first search per route, one `check<Action>` per action, the `check`
 * dispatcher, `obligedActions` and `brokenInvariants`.
 */
import { docText, jsString, lineComment } from "./escape.js";
import { StructureKind, type FunctionDeclarationStructure, type InterfaceDeclarationStructure } from "ts-morph";
import type { Expr, IRAction, IREdition, IRExemption, IRParam, IRRoute, IRRule, Type } from "../ir/types.js";
import { children, freeVars, routesIn, someExpr, tablesIn } from "../ir/walk.js";
import { actorParam, isActorOnly, liftedBy } from "../ir/derived.js";
import { AND_PREC, CodegenError, ExprCompiler, exprKey, type Code, type Ctx, type Helper, tsType } from "./expr.js";
import { routeDirections } from "./monotone.js";
import { header } from "./header.js";
import { Names, identPart, pascal, propAccess, propKey, varName } from "./names.js";
import { enumMembers, enumTypeNames } from "./state.js";
import { lookupName, sortedTables } from "./tables.js";

type Statement = string | FunctionDeclarationStructure | InterfaceDeclarationStructure;

const byId = <T extends { id: string }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => cmpStr(a.id, b.id));
const byName = <T extends { name: string }>(xs: readonly T[]): T[] => [...xs].sort((a, b) => cmpStr(a.name, b.name));
function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The type as the rules language spells it (for ACTIONS and docs). */
export function dslType(t: Type): string {
  switch (t.k) {
    case "bool":
    case "int":
    case "string":
      return t.k;
    case "enum":
      return t.name;
    case "list":
      return `list<${dslType(t.elem)}>`;
    case "map":
      return `map<${t.key.name}, ${dslType(t.value)}>`;
    case "record":
      return t.name ?? "record";
  }
}

export function actionTypeName(a: IRAction): string {
  return `${pascal(a.name)}Action`;
}
export function checkerName(a: IRAction): string {
  return `check${pascal(a.name)}`;
}

function fn(name: string, params: { name: string; type: string }[], returnType: string, body: string, opts: { exported?: boolean; docs?: string[] } = {}): FunctionDeclarationStructure {
  return {
    kind: StructureKind.Function,
    name,
    isExported: opts.exported ?? false,
    parameters: params.map((p) => ({ name: p.name, type: p.type })),
    returnType,
    statements: body,
    docs: opts.docs,
  };
}

function helperStructure(h: Helper): FunctionDeclarationStructure {
  return fn(h.name, h.params, h.returnType, h.body, { docs: h.doc ? [h.doc] : undefined });
}

export function validatorStatements(ir: IREdition): Statement[] {
  const members = enumMembers(ir);
  const names = new Names(["check", "obligedActions", "brokenInvariants", "legalMoves", "LEGAL_MOVE_ACTIONS", "ALLOWED", "NONE", "State", "Violation", "Verdict", "Action", ...enumTypeNames(ir)]);
  const actions = byName(ir.actions);
  const actionByName = new Map(actions.map((a) => [a.name, a]));
  for (const a of actions) {
    names.take(actionTypeName(a));
    names.take(checkerName(a));
    if (a.params.some((p) => p.name === "action")) throw new CodegenError(`action \`${a.name}\`: a parameter may not be named \`action\` (the action JSON's discriminant)`);
  }
  const routes = byName(ir.routes);
  const routeFns = new Map(routes.map((r) => [r.name, names.take(`route_${identPart(r.name)}`)]));
  // table lookups are imported from tables.ts under their exported names
  const tableFns = new Map(sortedTables(ir).map((t) => [t.name, names.take(lookupName(t))]));
  const ec = new ExprCompiler(ir, names, members, routeFns, tableFns);
  const out: Statement[] = [];
  const later: Statement[] = [];

  // ---- routes ----------------------------------------------------------------------------
  const routeStructs: Statement[] = [];
  // the number of the current call of an exported function: route clause memos live as long as it
  const epoch = names.take("call_epoch");
  for (const r of routes) routeStructs.push(...routeFunction(r, routeFns.get(r.name)!, ec, names, epoch));

  // ---- rules -----------------------------------------------------------------------------
  const rules = byId(ir.rules);
  const firesFn = new Map<string, string>();
  const violationConst = new Map<string, string>();
  const ruleStructs: Statement[] = [];
  const consts: string[] = [];
  for (const rule of rules) {
    const action = actionByName.get(rule.action);
    if (!action) throw new CodegenError(`rule \`${rule.id}\` names an unknown action \`${rule.action}\``);
    const name = names.take(`fires_${identPart(rule.id)}`);
    // a rule's own checker tests it inline; `fires_<rule>` serves legalMoves (forbid rules of an
    // enumerated action) and the obligations (oblige rules of an action of the actor alone)
    if (rule.kind === "forbid" ? legalMovesSkip(action) === undefined : isActorOnly(action)) {
      firesFn.set(rule.id, name);
      ruleStructs.push(ruleFunction(ir, rule, action, name, ec));
    }
    const vname = names.take(`${rule.kind === "forbid" ? "V" : "O"}_${identPart(rule.id)}`);
    violationConst.set(rule.id, vname);
    const v = objectLiteral({
      rule: rule.id,
      kind: rule.kind === "forbid" ? "forbid" : "obligation",
      citation: rule.citation.text,
      title: rule.title,
      file: rule.pos.file,
      line: rule.pos.line,
      column: rule.pos.column,
    });
    consts.push(`const ${vname}: Violation = Object.freeze(${v});`);
  }

  // ---- invariants ------------------------------------------------------------------------
  const invariants = byId(ir.invariants);
  const invFns: { id: string; fn: string }[] = [];
  for (const inv of invariants) {
    const name = names.take(`holds_${identPart(inv.id)}`);
    const base = `inv_${identPart(inv.id)}`;
    const body = `return ${ec.expr(inv.expr, new Map(), base).code};`;
    later.push(fn(name, [{ name: "state", type: "State" }], "boolean", body, { docs: [docText(`invariant ${inv.id}: ${inv.title} (${inv.pos.file}:${inv.pos.line})`)] }));
    invFns.push({ id: inv.id, fn: name });
  }

  // ---- actions: params interfaces and checkers -------------------------------------------
  const ifaces: Statement[] = [];
  const checkers: Statement[] = [];
  for (const a of actions) {
    ifaces.push({
      kind: StructureKind.Interface,
      name: actionTypeName(a),
      isExported: true,
      docs: [docText(`\`${a.name}(${a.params.map((p) => `${p.actor ? "actor " : ""}${p.name}: ${dslType(p.type)}`).join(", ")})\` (${a.pos.file}:${a.pos.line})`)],
      properties: [{ name: "action", type: jsString(a.name) }, ...a.params.map((p) => ({ name: propKey(p.name), type: tsType(p.type) }))],
    } satisfies InterfaceDeclarationStructure);
    const own = rules.filter((r) => r.action === a.name);
    const me = actorParam(a);
    const lines = checkerLines(ir, a, own, rules, actionByName, firesFn, violationConst, ec, me);
    let body: string;
    if (lines.length === 0) body = "return ALLOWED;";
    else {
      const decl: string[] = [];
      if (lines.some((l) => l.includes("violations ??="))) decl.push("let violations: Violation[] | undefined;");
      if (lines.some((l) => l.includes("obliged ??="))) decl.push("let obliged: string[] | undefined;");
      const v = decl.some((d) => d.includes("violations")) ? "violations" : "undefined";
      const o = decl.some((d) => d.includes("obliged")) ? "obliged" : "undefined";
      const ret = `return verdict(${v}, ${o});`;
      body = [...decl, ...lines.map((l) => l.replace(RETURN_VERDICT, ret)), ret].join("\n");
    }
    checkers.push(
      fn(checkerName(a), [{ name: "state", type: "State" }, { name: "action", type: actionTypeName(a) }], "Verdict", body, {
        exported: true,
        docs: [docText(`The verdict on \`${a.name}\`: ${own.length} rule(s) of its own${me ? `, plus the obligations of \`${me.name}\`'s other actions` : ""}.`)],
      }),
    );
  }

  // dispatcher
  const cases = actions.map((a) => `  case ${jsString(a.name)}:\n    return ${checkerName(a)}(state, action);`);
  checkers.push(
    fn(
      "check",
      [{ name: "state", type: "State" }, { name: "action", type: "Action" }],
      "Verdict",
      [`switch (action.action) {`, ...cases, `  default:`, `    throw new Error(\`unknown action \${JSON.stringify((action as { action: unknown }).action)}\`);`, `}`].join("\n"),
      { exported: true, docs: ["The verdict on any action (dispatches on `action.action`)."] },
    ),
  );

  // obligedActions
  const actorTypes = [...new Set(actions.map((a) => actorParam(a)).filter((p): p is IRParam => !!p).map((p) => p.type))];
  const actorType = commonActorType(actorTypes);
  const obl: string[] = [`const out: { action: string; rules: string[] }[] = [];`];
  for (const a of actions) {
    const obliges = rules.filter((r) => r.action === a.name && r.kind === "oblige");
    if (!obliges.length || !isActorOnly(a)) continue;
    obl.push(`{`, `  let rules: string[] | undefined;`);
    for (const r of obliges) {
      const call = actorCall(ec, firesFn.get(r.id)!, "actor", actorType, actorParam(a)!.type);
      obl.push(`  if (${call}) (rules ??= []).push(${jsString(r.id)});`);
    }
    obl.push(`  if (rules !== undefined) out.push({ action: ${jsString(a.name)}, rules });`, `}`);
  }
  obl.push(`return out;`);
  checkers.push(
    fn("obligedActions", [{ name: "state", type: "State" }, { name: "actor", type: actorType ? tsType(actorType) : "string" }], "{ action: string; rules: string[] }[]", obl.join("\n"), {
      exported: true,
      docs: ["For every action with an oblige rule that fires for `actor`: the action and the ids of those rules."],
    }),
  );

  // brokenInvariants
  checkers.push(
    fn(
      "brokenInvariants",
      [{ name: "state", type: "State" }],
      "string[]",
      [`const out: string[] = [];`, ...invFns.map((i) => `if (!${i.fn}(state)) out.push(${jsString(i.id)});`), `return out;`].join("\n"),
      { exported: true, docs: ["The ids of the invariants the state breaks (a state that breaks one is bad input)."] },
    ),
  );

  // legalMoves
  checkers.push(...legalMovesStatements(ir, actions, rules, actionByName, firesFn, ec, actorType, names));

  // every exported entry starts a new call: route clause memos of an earlier call are not reused
  if (routes.length) {
    for (const c of checkers) {
      if (typeof c !== "string" && c.kind === StructureKind.Function && c.isExported) c.statements = `${epoch}++;\n${c.statements as string}`;
    }
  }

  // ---- assemble --------------------------------------------------------------------------
  const boardImports = [...ec.boardUsed].sort();
  out.push(header(ir, `Validators of ${ir.title}: one checker per action.`));
  const typeImports = ["State", ...enumTypeNames(ir)].sort();
  out.push(
    [
      `import type { ${typeImports.join(", ")} } from "./state.js";`,
      `import type { Verdict, Violation } from "./index.js";`,
      ...(boardImports.length ? [`import { ${boardImports.map((b) => (b === "RouteScratch" ? "type RouteScratch" : b)).join(", ")} } from "./board.js";`] : []),
      ...(ec.tablesUsed.size ? [`import { ${[...ec.tablesUsed].sort().join(", ")} } from "./tables.js";`] : []),
    ].join("\n"),
  );
  out.push(...ifaces);
  out.push(`/** Any action, as flat JSON: \`{ "action": <name>, …params }\`. */\nexport type Action = ${actions.length ? actions.map(actionTypeName).join(" | ") : "never"};`);
  out.push(
    [
      `const NONE: readonly never[] = Object.freeze([]);`,
      `/** The verdict of every allowed action with nothing to report (shared, frozen). */`,
      `const ALLOWED: Verdict = Object.freeze({ allowed: true, violations: NONE, obliged: NONE });`,
      ``,
      `function verdict(violations: Violation[] | undefined, obliged: string[] | undefined): Verdict {`,
      `  if (violations === undefined && obliged === undefined) return ALLOWED;`,
      `  return { allowed: violations === undefined, violations: violations ?? NONE, obliged: obliged ?? NONE };`,
      `}`,
    ].join("\n"),
  );
  if (routes.length) out.push(`/** The number of the current call of an exported function (route clause memos are valid within one). */\nlet ${epoch} = 0;`);
  if (consts.length) out.push(consts.join("\n"));
  const enumConsts = [...ec.enumArrays.entries()]
    .sort(([a], [b]) => cmpStr(a, b))
    .map(([en, a]) => `const ${a.name}: readonly ${en}[] = [${a.members.map((m) => jsString(m)).join(", ")}];`);
  if (enumConsts.length) out.push(enumConsts.join("\n"));
  out.push(...checkers);
  out.push(...ruleStructs);
  out.push(...later);
  out.push(...routeStructs);
  out.push(...ec.helpers.map(helperStructure));
  return out;
}

/** Why an action's moves cannot be enumerated (a parameter over an unbounded domain), or undefined. */
export function legalMovesSkip(a: IRAction): string | undefined {
  if (!actorParam(a)) return "no actor parameter";
  const bad = a.params.filter((p) => p.type.k !== "enum" && p.type.k !== "bool");
  if (bad.length) return `parameter ${bad.map((p) => `\`${p.name}: ${dslType(p.type)}\``).join(", ")} ranges over no finite domain`;
  return undefined;
}

/** The names of the action parameters an expression reads (over-approximated: any variable of that name). */
function paramsRead(e: Expr, params: ReadonlySet<string>, out: Set<string>): void {
  if (e.k === "var" && params.has(e.name)) out.add(e.name);
  for (const c of children(e)) paramsRead(c, params, out);
}

/**
 * `legalMoves(state, actor)` and its per-action enumerators: for each action whose parameters all
 * range over finite domains (enums, booleans), the parameters are bound one after another in
 * declaration order (the actor fixed), and each forbid rule of the action is tested at the first
 * depth where every parameter it reads (its condition and its exemptions') is bound: a rule that
 * fires there prunes the whole branch. The obligations of the actor's other actions, and the rules
 * that read no parameter but the actor, are tested once before any loop. A move is listed exactly
 * when `check` allows it.
 */
function legalMovesStatements(
  ir: IREdition,
  actions: IRAction[],
  rules: IRRule[],
  actionByName: Map<string, IRAction>,
  firesFn: Map<string, string>,
  ec: ExprCompiler,
  actorType: Type | undefined,
  names: Names,
): Statement[] {
  const out: Statement[] = [];
  const calls: string[] = [];
  const info: string[] = [];
  const actorTs = actorType ? tsType(actorType) : "string";
  for (const a of actions) {
    const skip = legalMovesSkip(a);
    info.push(`{ action: ${jsString(a.name)}, enumerated: ${skip === undefined}${skip === undefined ? "" : `, reason: ${jsString(skip)}`} }`);
    if (skip !== undefined) continue;
    const me = actorParam(a)!;
    const free = a.params.filter((p) => !p.actor);
    const pnames = new Set(a.params.map((p) => p.name));
    const depthOf = new Map(free.map((p, i) => [p.name, i]));
    // rules by the depth at which they can be tested (-1: before any loop)
    const byDepth = new Map<number, IRRule[]>();
    for (const r of rules.filter((r) => r.action === a.name && r.kind === "forbid")) {
      const read = new Set<string>();
      paramsRead(r.when, pnames, read);
      for (const ex of liftedBy(ir, r)) paramsRead(ex.when, pnames, read);
      const d = Math.max(-1, ...[...read].map((n) => depthOf.get(n) ?? -1));
      byDepth.set(d, [...(byDepth.get(d) ?? []), r]);
    }
    const bound = new Set<string>([me.name]);
    const callOf = (r: IRRule): string => `${firesFn.get(r.id)}(${["state", ...a.params.map((p) => (bound.has(p.name) ? varName(p.name) : "undefined as never"))].join(", ")})`;
    const fname = names.take(`moves_${identPart(a.name)}`);
    const lines: string[] = [];
    for (const r of rules.filter((r) => r.kind === "oblige" && r.action !== a.name)) {
      const other = actionByName.get(r.action)!;
      if (!isActorOnly(other)) continue;
      lines.push(`if (${actorCall(ec, firesFn.get(r.id)!, varName(me.name), me.type, actorParam(other)!.type)}) return; // ${lineComment(`${r.id}: \`${r.action}\` is the only legal move`)}`);
    }
    for (const r of byDepth.get(-1) ?? []) lines.push(`if (${callOf(r)}) return;`);
    let ind = "";
    free.forEach((p, i) => {
      const dom = p.type.k === "bool" ? "[false, true] as const" : ec.enumArray((p.type as { name: string }).name);
      lines.push(`${ind}for (const ${varName(p.name)} of ${dom}) {`);
      ind += "  ";
      bound.add(p.name);
      for (const r of byDepth.get(i) ?? []) lines.push(`${ind}if (${callOf(r)}) continue;`);
    });
    const obj = `{ action: ${jsString(a.name)}, ${a.params.map((p) => `${propKey(p.name)}: ${varName(p.name)}`).join(", ")} }`;
    lines.push(`${ind}out.push(${obj});`);
    for (let i = free.length; i > 0; i--) lines.push(`${" ".repeat(2 * (i - 1))}}`);
    out.push(
      fn(fname, [{ name: "state", type: "State" }, { name: varName(me.name), type: tsType(me.type) }, { name: "out", type: "Action[]" }], "void", lines.join("\n"), {
        docs: [docText(`The legal \`${a.name}\` moves of an actor, appended to out (see legalMoves).`)],
      }),
    );
    // the actor of legalMoves may be wider than this action's actor type
    const call = actorCall(ec, fname, "actor", actorType, me.type).replace(/\)$/, ", out)");
    const and = call.indexOf(" && ");
    calls.push(and < 0 ? `${call};` : `if (${call.slice(0, and)}) ${call.slice(and + 4)};`);
  }
  out.push(
    fn("legalMoves", [{ name: "state", type: "State" }, { name: "actor", type: actorTs }], "Action[]", [`const out: Action[] = [];`, ...calls, `return out;`].join("\n"), {
      exported: true,
      docs: [
        "Every move `actor` may make in `state`: each action whose parameters all range over finite domains (enums, booleans) with every combination of its parameters that `check` allows. The actions left out (a parameter that is a number, a string or a list) are listed in `LEGAL_MOVE_ACTIONS` with the reason. Order: by action name, then parameters in declaration order and domain order.",
      ],
    }),
  );
  out.push(
    `/** Which actions \`legalMoves\` enumerates, and why the others are left out. */\nexport const LEGAL_MOVE_ACTIONS: readonly { readonly action: string; readonly enumerated: boolean; readonly reason?: string }[] = Object.freeze([${info.join(", ")}]);`,
  );
  return out;
}

/** The type of `obligedActions`' actor: the one actor type, or the base enum of all of them. */
function commonActorType(types: Type[]): Type | undefined {
  if (types.length === 0) return undefined;
  const first = types[0]!;
  if (types.every((t) => JSON.stringify(t) === JSON.stringify(first))) return first;
  if (types.every((t) => t.k === "enum") && first.k === "enum") {
    const base = first.base;
    if (types.every((t) => t.k === "enum" && t.base === base)) {
      // INVARIANT: the base enum is an enum of the edition (the checker resolved it)
      return { k: "enum", name: base, base, members: [] };
    }
  }
  return { k: "string" };
}

/**
 * A call `fires(state, <actor>)` where the actor value has type `have` and the rule's action wants
 * `want`: direct when every value of `have` is a `want`, else guarded by a membership test.
 */
function actorCall(ec: ExprCompiler, fires: string, value: string, have: Type | undefined, want: Type): string {
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

function ruleFunction(ir: IREdition, rule: IRRule, action: IRAction, name: string, ec: ExprCompiler): FunctionDeclarationStructure {
  const ctx: Ctx = new Map(action.params.map((p) => [p.name, varName(p.name)]));
  const params = [{ name: "state", type: "State" }, ...action.params.map((p) => ({ name: varName(p.name), type: tsType(p.type) }))];
  const base = identPart(rule.id);
  const lines: string[] = [];
  if (rule.scope) {
    lines.push(`if ((state.phase as string) !== ${jsString(rule.scope.phase)}) return false;`);
    if (rule.scope.segment !== undefined) lines.push(`if ((state.segment as string) !== ${jsString(rule.scope.segment)}) return false;`);
  }
  const when = rule.when;
  const exemptions = exemptionsOf(ir, rule);
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
    lines.push(...(exemptionsFirst(ir, rule) ? [...lifts, ...cond] : [...cond, ...lifts]));
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
function exemptionsFirst(ir: IREdition, rule: IRRule): boolean {
  const exemptions = exemptionsOf(ir, rule);
  const searches = (e: Expr): boolean => someExpr(e, (x) => x.k === "reach");
  return searches(rule.when) && exemptions.every((ex) => !searches(ex.when)) && !mayThrow(ir, rule.when) && exemptions.every((ex) => !mayThrow(ir, ex.when));
}

/**
 * The body of `check<Action>` (without the declarations of `violations` and `obliged`): the
 * action's parameters and each scope test read once into locals, the map lookups the rules repeat
 * read once (`hoist`), then every rule of the action tested inline in rule order — scope, then
 * condition and exemptions as in `fires_<rule>` — except the route rules whose searches answer
 * the others' (`earlySearches`), tested first into locals; then the obligations of the actor's
 * other actions (their `fires_<rule>`) and the action's own oblige rules.
 */
function checkerLines(
  ir: IREdition,
  a: IRAction,
  own: readonly IRRule[],
  rules: readonly IRRule[],
  actionByName: ReadonlyMap<string, IRAction>,
  firesFn: ReadonlyMap<string, string>,
  violationConst: ReadonlyMap<string, string>,
  ec: ExprCompiler,
  me: IRParam | undefined,
): string[] {
  const ctx: Ctx = new Map(a.params.map((p) => [p.name, varName(p.name)]));
  const forbids = own.filter((r) => r.kind === "forbid");
  const obliges = own.filter((r) => r.kind === "oblige");
  const others = me ? rules.filter((r) => r.kind === "oblige" && r.action !== a.name && isActorOnly(actionByName.get(r.action)!)) : [];
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
        ...unscoped.filter((r) => r.kind === "oblige").map((r) => `  if (${test(r, false)}) (obliged ??= []).push(${jsString(r.id)});`),
      ]);
      head.push(`if (!${only}) {`, ...outside, `  ${RETURN_VERDICT}`, `}`);
    }
    const hoisted = ec.hoist(own.flatMap((r) => [r.when, ...exemptionsOf(ir, r).map((ex) => ex.when)]), [], undefined, ctx, "check");
    // an exemption that lifts several of the rules, one of which tests it before its condition
    // (so it is evaluated whenever that rule's scope holds), is evaluated once
    for (const ex of byId(ir.exemptions)) {
      const users = own.filter((r) => exemptionsOf(ir, r).includes(ex));
      if (users.length < 2 || !users.some((r) => exemptionsFirst(ir, r)) || someExpr(ex.when, (x) => x.k === "reach") || mayThrow(ir, ex.when)) continue;
      const local = ec.local("lifted", shared.size);
      const scoped = only === undefined && users.every((r) => r.scope && users[0]!.scope && scopeKey(r.scope) === scopeKey(users[0]!.scope)) ? `${scopes.get(scopeKey(users[0]!.scope!))} && ` : "";
      hoisted.push(`const ${local} = ${scoped}${andOperand(ec.expr(ex.when, ctx, `ex_${identPart(ex.id)}`))};`);
      shared.set(ex.id, local);
    }
    function otherCall(r: IRRule): string {
      return actorCall(ec, firesFn.get(r.id)!, varName(me!.name), me!.type, actorParam(actionByName.get(r.action)!)!.type);
    }
    function test(r: IRRule, inside = true): string {
      const base = identPart(r.id);
      const parts: Code[] = r.scope && only === undefined ? [{ code: scopes.get(scopeKey(r.scope))!, prec: AND_PREC + 1 }] : [];
      const cond = r.when.k === "lit" && r.when.value === true ? [] : [ec.expr(r.when, ctx, base)];
      const lifts = exemptionsOf(ir, r).map((ex) => (inside && shared.has(ex.id) ? { code: `!${shared.get(ex.id)!}`, prec: AND_PREC + 1 } : ec.negated(ex.when, ctx, `ex_${identPart(ex.id)}`)));
      parts.push(...(exemptionsFirst(ir, r) ? [...lifts, ...cond] : [...cond, ...lifts]));
      return parts.length === 0 ? "true" : parts.length === 1 ? parts[0]!.code : parts.map(andOperand).join(" && ");
    }
    const about = (r: IRRule): string =>
      [
        `// ${lineComment(`${r.id} ${r.citation.text}${r.groups.length ? ` (${r.groups.join(", ")})` : ""}: ${r.title}`)}`,
        ...exemptionsOf(ir, r).map((ex) => `//   ${lineComment(`lifted by exempt ${ex.id} (${ex.citation.text})`)}`),
      ].join("\n");
    // route rules whose searches answer the others' (the tightest, then the loosest) are tested
    // first; the violations keep the rule order
    const early = new Map<string, string>();
    const first = earlySearches(ir, forbids);
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
    for (const r of obliges) {
      body.push(about(r));
      body.push(`if (${test(r)}) (obliged ??= []).push(${jsString(r.id)});`);
    }
    // the parameters the tests read, as locals
    const read = new Set<string>();
    for (const r of own) for (const e of [r.when, ...exemptionsOf(ir, r).map((ex) => ex.when)]) for (const n of freeVars(e).keys()) read.add(n);
    if (others.length) read.add(me!.name);
    const params = a.params.filter((p) => read.has(p.name)).map((p) => `const ${varName(p.name)} = ${propAccess("action", p.name)};`);
    return [...params, ...head, ...hoisted, ...body];
  });
}

/** Where `checkerLines` returns the verdict early (the checker puts its `return verdict(…)` there). */
const RETURN_VERDICT = "return /* verdict */;";

/** A compiled operand of `&&`, parenthesized when it binds more loosely. */
function andOperand(c: Code): string {
  return c.prec < AND_PREC ? `(${c.code})` : c.code;
}

/** A route: its search (`search_<route>`) and its entry point `name` with the per-call memo of answers. */
function routeFunction(r: IRRoute, name: string, ec: ExprCompiler, names: Names, epoch: string): Statement[] {
  const search = names.take(`search_${identPart(r.name)}`);
  return [...searchFunction(r, search, ec, names, epoch), ...routeMemo(r, name, search, names, epoch)];
}

/** Searches remembered per route and call (the oldest is replaced when a call makes more). */
const ROUTE_MEMO = 8;

/**
 * The route's entry point: the answers of the searches made earlier in the same call of an
 * exported function are kept (arguments, endpoints, answer), and a search is made only when none
 * of them decides it. An earlier search decides one with the same endpoints and the same value of
 * every parameter the analysis cannot order (monotone.ts) when it found a path under arguments at
 * least as tight, or found none under arguments at least as loose.
 */
function routeMemo(r: IRRoute, name: string, search: string, names: Names, epoch: string): Statement[] {
  const memo = names.take(`memo_${identPart(r.name)}`);
  const dirs = routeDirections(r);
  const arr = (field: string, type: string): string => `${field}: [] as ${/^[\w$]+$/.test(type) ? type : `(${type})`}[]`;
  const fields = [`call: -1`, `n: 0`, `next: 0`, ...r.params.map((p, i) => arr(`a${i}`, tsType(p.type))), arr("from", "Space"), arr("to", "Space"), arr("found", "boolean")];
  const same = [`m.from[i] !== from`, `m.to[i] !== to`];
  const looser: string[] = []; // the query is at least as loose as the entry (a found path carries over)
  const tighter: string[] = []; // the query is at least as tight as the entry (no path carries over)
  r.params.forEach((p, k) => {
    const q = varName(p.name);
    const e = `m.a${k}[i]!`;
    const d = dirs[k]!;
    if (d === "eq") same.push(`m.a${k}[i] !== ${q}`);
    else if (d === "up" || d === "down") {
      // `up`: a larger value never loses a path, so a larger value is looser
      const ge = p.type.k === "bool" ? `(${q} || !${e})` : `${q} >= ${e}`;
      const le = p.type.k === "bool" ? `(!${q} || ${e})` : `${q} <= ${e}`;
      looser.push(d === "up" ? ge : le);
      tighter.push(d === "up" ? le : ge);
    }
  });
  const decide = looser.length
    ? [`  if (m.found[i]) {`, `    if (${looser.join(" && ")}) return true;`, `  } else if (${tighter.join(" && ")}) return false;`]
    : [`  return m.found[i]!;`];
  const args = ["state", ...r.params.map((p) => varName(p.name)), "from", "to"];
  const body = [
    `const m = ${memo};`,
    `if (m.call !== ${epoch}) {`,
    `  m.call = ${epoch};`,
    `  m.n = 0;`,
    `}`,
    `for (let i = 0; i < m.n; i++) {`,
    `  if (${same.join(" || ")}) continue;`,
    ...decide,
    `}`,
    `const found = ${search}(${args.join(", ")});`,
    `let i = m.n;`,
    `if (i < ${ROUTE_MEMO}) m.n++;`,
    `else {`,
    `  i = m.next;`,
    `  m.next = (i + 1) % ${ROUTE_MEMO};`,
    `}`,
    ...r.params.map((p, k) => `m.a${k}[i] = ${varName(p.name)};`),
    `m.from[i] = from;`,
    `m.to[i] = to;`,
    `m.found[i] = found;`,
    `return found;`,
  ];
  const params = [{ name: "state", type: "State" }, ...r.params.map((p) => ({ name: varName(p.name), type: tsType(p.type) })), { name: "from", type: "Space" }, { name: "to", type: "Space" }];
  const how = r.params.map((p, k) => `${p.name} ${dirs[k] === "up" ? "(larger is looser)" : dirs[k] === "down" ? "(larger is tighter)" : dirs[k] === "none" ? "(no effect)" : "(same value)"}`).join(", ");
  return [
    `/** route ${docText(r.name)}: the searches of the current call, for ${name}. */\nconst ${memo} = { ${fields.join(", ")} };`,
    fn(name, params, "boolean", body.join("\n"), {
      docs: [
        docText(
          `route ${r.name}(${r.params.map((p) => `${p.name}: ${dslType(p.type)}`).join(", ")}): is there a path from \`from\` to \`to\`? (${r.pos.file}:${r.pos.line}) An earlier search of the same call answers when it decides this one${r.params.length ? `: ${how}` : ""}.`,
        ),
      ],
    }),
  ];
}

/**
 * The breadth-first search of one route over (space, sea zones used). A space is queued again only
 * when reached with fewer sea zones (clauses depend on the space alone, so fewer is never worse);
 * the sea count is capped at SEA_COUNT (a shortest path never repeats a sea zone).
 */
function searchFunction(r: IRRoute, name: string, ec: ExprCompiler, names: Names, epoch: string): Statement[] {
  const ctx: Ctx = new Map(r.params.map((p) => [p.name, varName(p.name)]));
  const params = [{ name: "state", type: "State" }, ...r.params.map((p) => ({ name: varName(p.name), type: tsType(p.type) })), { name: "from", type: "Space" }, { name: "to", type: "Space" }];
  for (const b of ["spaceNo", "SPACES", "FLAGS", "F_SEA", "SEA_COUNT", "LAND_ADJ", "PASS_ADJ", "PORT_ADJ", "SEA_ADJ", "newRouteScratch", "newStamp", "RouteScratch"]) ec.boardUsed.add(b);
  const base = identPart(r.name);
  const scratch = names.take(`scratch_${base}`);
  const extra: Statement[] = [`let ${scratch}: RouteScratch | null = null;`];
  const isTrue = (e: { k: string; value?: unknown }): boolean => e.k === "lit" && e.value === true;
  // memoized clause tests: `<clause>Ok(i)` as an expression over space number `i`
  const resets: string[] = [];
  const clause = (kind: "land" | "sea" | "port", e: IRRoute["land"], v: string): ((i: string) => string) => {
    if (isTrue(e)) return () => "true";
    const pred = ec.predicate(e, v, "Space", ctx, `${base}_${kind}`);
    // the memo is kept across the searches of one validator call when the clause's arguments are
    // the same scalars (a list or record argument: refilled every search)
    const scalarArgs = params.filter((p) => pred.args.includes(p.name) && p.name !== "state");
    const shareable = scalarArgs.every((p) => { const t = r.params.find((q) => varName(q.name) === p.name)?.type; return t !== undefined && (t.k === "enum" || t.k === "bool" || t.k === "int"); });
    if (shareable) {
      const same = [`sc.${kind}Call === ${epoch}`, ...scalarArgs.map((p, i) => `sc.${kind}Args[${i}] === ${p.name}`)].join(" && ");
      resets.push(`if (!(${same})) {`, `  sc.${kind}Stamp = newStamp(sc.${kind}Stamp, sc.${kind});`, `  sc.${kind}Call = ${epoch};`, ...scalarArgs.map((p, i) => `  sc.${kind}Args[${i}] = ${p.name};`), `}`);
    } else resets.push(`sc.${kind}Stamp = newStamp(sc.${kind}Stamp, sc.${kind});`, `sc.${kind}Call = -1;`);
    const okName = names.take(`${base}_${kind}Ok`);
    const okParams = [{ name: "sc", type: "RouteScratch" }, { name: "i", type: "number" }, ...params.filter((p) => pred.args.includes(p.name))];
    extra.push(
      fn(
        okName,
        okParams,
        "boolean",
        [
          `const m = sc.${kind}[i]!;`,
          `if ((m & -4) === sc.${kind}Stamp) return (m & 3) === 1;`,
          `const ok = ${pred.name}(${[...pred.args, "SPACES[i]!"].join(", ")});`,
          `sc.${kind}[i] = sc.${kind}Stamp | (ok ? 1 : 2);`,
          `return ok;`,
        ].join("\n"),
        {
        docs: [docText(`route ${r.name}: the \`${kind} ${v}\` clause for space number i (memoized in sc).`)],
      }),
    );
    return (i) => `${okName}(${["sc", i, ...params.filter((p) => pred.args.includes(p.name)).map((p) => p.name)].join(", ")})`;
  };
  const landOk = clause("land", r.land, r.landVar);
  const seaOk = clause("sea", r.sea, r.seaVar);
  const portOk = clause("port", r.port, r.portVar);
  const maxSeas = r.maxSeas ? ec.expr(r.maxSeas, ctx, base).code : "SEA_COUNT";
  const passes = isTrue(r.passes) ? "true" : ec.expr(r.passes, ctx, base).code;
  const push = (v: string, k: string): string[] => [`if (${v} === dst) return true;`, `best[${v}] = ${k};`, `qs[tail] = ${v};`, `qk[tail++] = ${k};`];
  const loop = (table: string, cond: (v: string) => string, k: string, ind: string): string[] => [
    `${ind}for (const v of ${table}[u]!) {`,
    `${ind}  if (${cond("v")}) {`,
    ...push("v", k).map((l) => `${ind}    ${l}`),
    `${ind}  }`,
    `${ind}}`,
  ];
  const body = [
    `const src = spaceNo(from);`,
    `const dst = spaceNo(to);`,
    `let maxSeas: number = ${maxSeas};`,
    `if (maxSeas > SEA_COUNT) maxSeas = SEA_COUNT;`,
    `const passes: boolean = ${passes};`,
    `let sc = ${scratch};`,
    `if (sc === null) sc = ${scratch} = newRouteScratch();`,
    `else if (sc.busy) sc = newRouteScratch();`,
    `sc.busy = true;`,
    `const best = sc.best;`,
    `const qs = sc.queueSpace;`,
    `const qk = sc.queueSeas;`,
    `// every space queued is reset to unreached when the search ends (best is unreached everywhere between searches)`,
    `let tail = 0;`,
    `try {`,
    ...resets.map((l) => `  ${l}`),
    `  let k0 = 0;`,
    `  if ((FLAGS[src]! & F_SEA) !== 0) {`,
    `    if (maxSeas < 1 || !${seaOk("src")}) return false;`,
    `    k0 = 1;`,
    `  } else if (!${landOk("src")}) return false;`,
    `  if (src === dst) return true;`,
    `  qs[0] = src;`,
    `  qk[0] = k0;`,
    `  tail = 1;`,
    `  best[src] = k0;`,
    `  let head = 0;`,
    `  while (head < tail) {`,
    `    const u = qs[head]!;`,
    `    const k = qk[head]!;`,
    `    head++;`,
    `    if (k > best[u]!) continue;`,
    `    if ((FLAGS[u]! & F_SEA) !== 0) {`,
    `      // sea → sea`,
    `      if (k < maxSeas) {`,
    ...loop("SEA_ADJ", (v) => `k + 1 < best[${v}]! && ${seaOk(v)}`, "k + 1", "        "),
    `      }`,
    `      // sea → land: the path leaves the sea onto a port`,
    ...loop("PORT_ADJ", (v) => `k < best[${v}]! && ${landOk(v)} && ${portOk(v)}`, "k", "      "),
    `    } else {`,
    `      // land → land`,
    ...loop("LAND_ADJ", (v) => `k < best[${v}]! && ${landOk(v)}`, "k", "      "),
    `      if (passes) {`,
    ...loop("PASS_ADJ", (v) => `k < best[${v}]! && ${landOk(v)}`, "k", "        "),
    `      }`,
    `      // land → sea: the path enters a sea zone from a port`,
    `      if (k < maxSeas && ${portOk("u")}) {`,
    ...loop("PORT_ADJ", (v) => `k + 1 < best[${v}]! && ${seaOk(v)}`, "k + 1", "        "),
    `      }`,
    `    }`,
    `  }`,
    `  return false;`,
    `} finally {`,
    `  for (let j = 0; j < tail; j++) best[qs[j]!] = 0x7fffffff;`,
    `  sc.busy = false;`,
    `}`,
  ];
  const doc = docText(`route ${r.name}: the search itself (breadth-first over space and sea zones used).`);
  return [...extra, fn(name, params, "boolean", body.join("\n"), { docs: [doc] })];
}

/**
 * Whether evaluating `e` can throw on a valid state: a table lookup (a `RangeError` outside its
 * domain), also inside the clauses of a route it searches. Everything else reads the state.
 */
function mayThrow(ir: IREdition, e: Expr): boolean {
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
    for (const c of [r.land, r.sea, r.port, r.passes, ...(r.maxSeas ? [r.maxSeas] : [])]) {
      tablesIn(c, tables);
      routesIn(c, inner);
    }
    for (const n of inner) if (!routes.has(n)) routes.add(n), todo.push(n);
  }
  return tables.size > 0;
}

/** The exemptions that lift a rule (`liftedBy`), by id: the order the generated code tests them in. */
function exemptionsOf(ir: IREdition, rule: IRRule): IRExemption[] {
  return byId(liftedBy(ir, rule));
}

/**
 * The forbid rules of one action whose route search to make first, in that order: among rules
 * whose condition makes one search, of the same route between the same ends with the same
 * unordered arguments, the tightest calls (no other call of the group is surely tighter), then the
 * loosest. With the route memo a path found under the tightest arguments answers every call of
 * the group, and no path under the loosest answers them too. Only rules that cannot throw move
 * (their order is then invisible); a group of one is left alone.
 */
function earlySearches(ir: IREdition, forbids: readonly IRRule[]): IRRule[] {
  type Call = { rule: IRRule; reach: Extract<Expr, { k: "reach" }>; dirs: ReturnType<typeof routeDirections> };
  const groups = new Map<string, Call[]>();
  for (const rule of forbids) {
    const calls: Extract<Expr, { k: "reach" }>[] = [];
    someExpr(rule.when, (x) => (x.k === "reach" && calls.push(x), false));
    if (calls.length !== 1 || mayThrow(ir, rule.when) || exemptionsOf(ir, rule).some((ex) => mayThrow(ir, ex.when))) continue;
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

/** `{ a: 1, b: "x" }` for a flat object of JSON scalars (keys in insertion order). */
export function objectLiteral(o: Record<string, unknown>): string {
  return `{ ${Object.entries(o).map(([k, v]) => `${propKey(k)}: ${typeof v === "string" ? jsString(v) : JSON.stringify(v)}`).join(", ")} }`;
}
