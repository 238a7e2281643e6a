/**
 * generated/<edition>/validators.ts: one `fires_<rule>` function per rule (scope, condition,
 * exemptions), one breadth-first search per route, one `check<Action>` per action, the `check`
 * dispatcher, `obligedActions` and `brokenInvariants`. One pass over the edition's context
 * (context.ts); the rule tests are built by checks.ts, the route searches by routes.ts and
 * `legalMoves` by legal-moves.ts.
 */
import { StructureKind, type InterfaceDeclarationStructure } from "ts-morph";
import type { IRAction } from "../ir/types.js";
import { actorParam, bindsActor, isActorOnly } from "../ir/derived.js";
import { actorCall, checkerLines, RETURN_VERDICT, ruleFunction, type ValidatorsPass } from "./checks.js";
import { actionTypeName, checkerName, type EditionContext } from "./context.js";
import { dslType, fn, helperStructure, objectLiteral, type Statement } from "./emit.js";
import { docText, jsString } from "./escape.js";
import { CodegenError, ExprCompiler, tsType } from "./expr.js";
import { header } from "./header.js";
import { legalMovesSkip, legalMovesStatements } from "./legal-moves.js";
import { Names, identPart, propKey } from "./names.js";
import { routeFunction } from "./routes.js";
import { reasonStatements } from "./reasons.js";

export { legalMovesSkip };

/** The statements of generated/<edition>/validators.ts. @throws CodegenError for IR it cannot express. */
export function validatorStatements(cx: EditionContext): Statement[] {
  const { ir, actions, routes } = cx;
  const names = new Names(["check", "checkTrusted", "obligedActions", "brokenInvariants", "legalMoves", "legalMovesTrusted", "subsetsOf", "explainVerdict", "shownValue", "ExplainedViolation", "LiftedRule", "LEGAL_MOVE_ACTIONS", "ALLOWED", "NONE", "State", "Violation", "Verdict", "Action", ...cx.enumTypes]);
  for (const a of actions) {
    names.take(actionTypeName(a));
    names.take(checkerName(a));
    if (a.params.some((p) => p.name === "action")) throw new CodegenError(`action \`${a.name}\`: a parameter may not be named \`action\` (the action JSON's discriminant)`);
  }
  const routeFns = new Map(routes.map((r) => [r.name, names.take(`route_${identPart(r.name)}`)]));
  // table lookups are imported from tables.ts under their exported names
  const tableFns = new Map(cx.tables.map((t) => [t.name, names.take(cx.lookupNames.get(t.name)!)]));
  const ec = new ExprCompiler(ir, names, cx.members, routeFns, tableFns);
  const pass: ValidatorsPass = { cx, names, ec, firesFn: new Map(), violationConst: new Map() };

  // the number of the current call of an exported function: route clause memos live as long as it
  const epoch = names.take("call_epoch");
  const routeStructs = routes.flatMap((r) => routeFunction(r, routeFns.get(r.name)!, ec, names, epoch));
  const { ruleStructs, consts } = ruleStatements(pass);
  const { invariantStructs, invFns } = invariantStatements(pass);
  const { ifaces, checkers } = checkerStatements(pass);
  checkers.push(obligedActionsFunction(pass));
  checkers.push(
    fn(
      "brokenInvariants",
      [{ name: "state", type: "State" }],
      "string[]",
      [`const out: string[] = [];`, ...invFns.map((i) => `if (!${i.fn}(state)) out.push(${jsString(i.id)});`), `return out;`].join("\n"),
      { exported: true, docs: ["The ids of the invariants the state breaks (a state that breaks one is bad input)."] },
    ),
  );
  checkers.push(...legalMovesStatements(pass));
  checkers.push(...reasonStatements(pass));
  // every exported entry starts a new call: route clause memos of an earlier call are not reused
  if (routes.length) {
    for (const c of checkers) {
      if (typeof c !== "string" && c.kind === StructureKind.Function && c.isExported) c.statements = `${epoch}++;\n${c.statements as string}`;
    }
  }
  return [
    ...preamble(pass, ifaces, routes.length ? epoch : undefined, consts),
    ...checkers,
    ...ruleStructs,
    ...invariantStructs,
    ...routeStructs,
    ...ec.helpers.map(helperStructure),
  ];
}

/**
 * Per rule (by id): its frozen `Violation` constant, and its `fires_<rule>` for the rules that
 * need one — a forbid rule of an action legalMoves enumerates, an oblige rule of an actor-only
 * action (a rule's own checker tests it inline).
 */
function ruleStatements(pass: ValidatorsPass): { ruleStructs: Statement[]; consts: string[] } {
  const { cx, names } = pass;
  const firesFn = pass.firesFn as Map<string, string>;
  const violationConst = pass.violationConst as Map<string, string>;
  const ruleStructs: Statement[] = [];
  const consts: string[] = [];
  for (const rule of cx.rules) {
    const action = cx.actionByName.get(rule.action);
    if (!action) throw new CodegenError(`rule \`${rule.id}\` names an unknown action \`${rule.action}\``);
    const name = names.take(`fires_${identPart(rule.id)}`);
    if (rule.kind === "forbid" ? legalMovesSkip(cx, action) === undefined : bindsActor(action, rule)) {
      firesFn.set(rule.id, name);
      ruleStructs.push(ruleFunction(pass, rule, action, name));
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
  return { ruleStructs, consts };
}

/** `holds_<invariant>` per invariant (by id), and the id → function list `brokenInvariants` calls. */
function invariantStatements(pass: ValidatorsPass): { invariantStructs: Statement[]; invFns: { id: string; fn: string }[] } {
  const { cx, names, ec } = pass;
  const invariantStructs: Statement[] = [];
  const invFns: { id: string; fn: string }[] = [];
  for (const inv of cx.invariants) {
    const name = names.take(`holds_${identPart(inv.id)}`);
    const base = `inv_${identPart(inv.id)}`;
    const body = `return ${ec.expr(inv.expr, new Map(), base).code};`;
    invariantStructs.push(fn(name, [{ name: "state", type: "State" }], "boolean", body, { docs: [docText(`invariant ${inv.id}: ${inv.title} (${inv.pos.file}:${inv.pos.line})`)] }));
    invFns.push({ id: inv.id, fn: name });
  }
  return { invariantStructs, invFns };
}

/** Per action (by name): the interface of its JSON and `check<Action>`; then the `check` dispatcher. */
function checkerStatements(pass: ValidatorsPass): { ifaces: Statement[]; checkers: Statement[] } {
  const { cx } = pass;
  const ifaces: Statement[] = [];
  const checkers: Statement[] = [];
  for (const a of cx.actions) {
    ifaces.push({
      kind: StructureKind.Interface,
      name: actionTypeName(a),
      isExported: true,
      docs: [docText(`\`${a.name}(${a.params.map((p) => `${p.actor ? "actor " : ""}${p.name}: ${dslType(p.type)}`).join(", ")})\` (${a.pos.file}:${a.pos.line})`)],
      properties: [{ name: "action", type: jsString(a.name) }, ...a.params.map((p) => ({ name: propKey(p.name), type: tsType(p.type) }))],
    } satisfies InterfaceDeclarationStructure);
    checkers.push(checkerFunction(pass, a));
  }
  const cases = cx.actions.map((a) => `  case ${jsString(a.name)}:\n    return ${checkerName(a)}(state, action);`);
  checkers.push(
    fn(
      "checkTrusted",
      [{ name: "state", type: "State" }, { name: "action", type: "Action" }],
      "Verdict",
      [`switch (action.action) {`, ...cases, `  default:`, `    throw new Error(\`unknown action \${JSON.stringify((action as { action: unknown }).action)}\`);`, `}`].join("\n"),
      {
        exported: true,
        docs: [
          "The verdict on any action (dispatches on `action.action`), for a state and an action already known to be valid: the fast path of an engine's loop. It checks no input (a malformed one may give a wrong verdict or throw); `check` checks them first.",
        ],
      },
    ),
  );
  return { ifaces, checkers };
}

/** `check<Action>`: the rule tests of checks.ts between the declarations of its results and the verdict. */
function checkerFunction(pass: ValidatorsPass, a: IRAction): Statement {
  const own = pass.cx.rules.filter((r) => r.action === a.name);
  const me = actorParam(a);
  const lines = checkerLines(pass, a);
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
  return fn(checkerName(a), [{ name: "state", type: "State" }, { name: "action", type: actionTypeName(a) }], "Verdict", body, {
    exported: true,
    docs: [docText(`The verdict on \`${a.name}\`: ${own.length} rule(s) of its own${me ? `, plus the obligations of \`${me.name}\`'s other actions` : ""}.`)],
  });
}

/** `obligedActions(state, actor)`: the oblige rules of every actor-only action that fire for the actor. */
function obligedActionsFunction(pass: ValidatorsPass): Statement {
  const { cx, ec, firesFn } = pass;
  const actorType = cx.actorType;
  const withValues = cx.rules.some((r) => r.bind);
  // an obligation with parameters is an entry of its own, with the obliged move's values
  const entry = `{ action: string; rules: string[]${withValues ? "; params?: { readonly [param: string]: string | number | boolean }" : ""} }`;
  const obl: string[] = [`const out: ${entry}[] = [];`];
  for (const a of cx.actions) {
    for (const r of cx.rules.filter((r) => r.action === a.name && r.bind)) {
      const call = actorCall(ec, firesFn.get(r.id)!, "actor", actorType, actorParam(a)!.type);
      const me = actorParam(a)!;
      const ctx = new Map([[me.name, "actor"]]);
      const values = ec.inFunction(() => r.bind!.map((b) => `${jsString(b.param)}: ${ec.expr(b.value, ctx, `obl_${identPart(b.param)}`).code}`));
      obl.push(`if (${call}) out.push({ action: ${jsString(a.name)}, rules: [${jsString(r.id)}], params: { ${values.join(", ")} } });`);
    }
    const obliges = cx.rules.filter((r) => r.action === a.name && r.kind === "oblige");
    if (!obliges.length || !isActorOnly(a)) continue;
    obl.push(`{`, `  let rules: string[] | undefined;`);
    for (const r of obliges) {
      const call = actorCall(ec, firesFn.get(r.id)!, "actor", actorType, actorParam(a)!.type);
      obl.push(`  if (${call}) (rules ??= []).push(${jsString(r.id)});`);
    }
    obl.push(`  if (rules !== undefined) out.push({ action: ${jsString(a.name)}, rules });`, `}`);
  }
  obl.push(`return out;`);
  return fn("obligedActions", [{ name: "state", type: "State" }, { name: "actor", type: actorType ? tsType(actorType) : "string" }], `${entry}[]`, obl.join("\n"), {
    exported: true,
    docs: ["For every action with an oblige rule that fires for `actor`: the action and the ids of those rules."],
  });
}

/** The file's head: header, imports, action interfaces, `Action`, the verdict helpers, the call epoch and the constants. */
function preamble(pass: ValidatorsPass, ifaces: Statement[], epoch: string | undefined, consts: string[]): Statement[] {
  const { cx, ec } = pass;
  const { ir, actions } = cx;
  const out: Statement[] = [];
  const boardImports = [...ec.boardUsed].sort();
  out.push(header(ir, `Validators of ${ir.title}: one checker per action.`));
  const typeImports = ["State", ...cx.enumTypes].sort();
  out.push(
    [
      `import type { ${typeImports.join(", ")} } from "./state.js";`,
      `import type { ExplainedViolation, LiftedRule, Verdict, Violation } from "./index.js";`,
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
  if (epoch !== undefined) out.push(`/** The number of the current call of an exported function (route clause memos are valid within one). */\nlet ${epoch} = 0;`);
  if (consts.length) out.push(consts.join("\n"));
  const enumConsts = [...ec.enumArrays.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([en, a]) => `const ${a.name}: readonly ${en}[] = [${a.members.map((m) => jsString(m)).join(", ")}];`);
  if (enumConsts.length) out.push(enumConsts.join("\n"));
  return out;
}
