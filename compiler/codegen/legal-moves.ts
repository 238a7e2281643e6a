/**
 * `legalMoves(state, actor)` of generated/<edition>/validators.ts, its per-action enumerators
 * (`moves_<action>`) and `LEGAL_MOVE_ACTIONS`: the moves an actor may make, for every action
 * whose parameters all range over finite domains (README.md "Semantics it implements").
 */
import type { Expr, IRAction, IRRule } from "../ir/types.js";
import { actorParam, isActorOnly } from "../ir/derived.js";
import { children } from "../ir/walk.js";
import { actorCall, type ValidatorsPass } from "./checks.js";
import { dslType, fn, type Statement } from "./emit.js";
import { docText, jsString, lineComment } from "./escape.js";
import { tsType } from "./expr.js";
import { identPart, propKey, varName } from "./names.js";

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
export function legalMovesStatements(pass: ValidatorsPass): Statement[] {
  const { cx, ec, names, firesFn } = pass;
  const { actions, rules, actionByName, actorType } = cx;
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
      for (const ex of cx.lifts(r)) paramsRead(ex.when, pnames, read);
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
