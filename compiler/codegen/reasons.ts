/**
 * The reasons of the checked `check` (generated/<edition>/validators.ts, issue 26 item 3): per
 * rule `why_<rule>`, the values that made it fire — the action parameters its condition and its
 * exemptions read, the two sides of each comparison at the top of its condition (`and`/`or`
 * operands: a count against its limit, the phase), and the first element that satisfies each
 * `some` at the top (the card, the leader) — and `lifted_<rule>`, the exemptions that lift it
 * where its scope and condition hold; `explainVerdict(state, action, verdict)` puts them on a
 * verdict of `checkTrusted` (only the checked `check` calls it: the fast path pays nothing).
 */
import type { Expr, IRAction, IRRule } from "../ir/types.js";
import { actorParam } from "../ir/derived.js";
import type { ValidatorsPass } from "./checks.js";
import { fn, type Statement } from "./emit.js";
import { jsString } from "./escape.js";
import { tsType } from "./expr.js";
import { identPart, propAccess, varName } from "./names.js";
import { paramsRead } from "./legal-moves.js";

/** The rules language's spelling of an expression, for the keys of `values` (a few forms; others `…`). */
export function exprText(e: Expr): string {
  switch (e.k) {
    case "lit":
      return String(e.value);
    case "var":
      return e.name;
    case "state":
      return "state";
    case "field":
      return `${exprText(e.obj)}.${e.field}`;
    case "index":
      return `${exprText(e.obj)}[${exprText(e.key)}]`;
    case "len":
      return `count(${exprText(e.arg)})`;
    case "arith":
      return `${exprText(e.left)} ${e.op} ${exprText(e.right)}`;
    case "neg":
      return `-${exprText(e.arg)}`;
    case "table":
      return `${e.table}(${e.args.map(exprText).join(", ")})${e.field ? `.${e.field}` : ""}`;
    case "board":
      return `${e.fn}(${e.args.map(exprText).join(", ")})`;
    case "distance":
      return `distance(${exprText(e.from)}, ${exprText(e.to)})`;
    case "agg":
      return `${e.op}(${e.var} in …)`;
    default:
      return "…";
  }
}

const top = (e: Expr): Expr[] => (e.k === "and" || e.k === "or" ? e.args.flatMap(top) : [e]);

/** `why_<rule>`: the values that made the rule fire, as a record keyed by their spelling. */
function whyFunction(pass: ValidatorsPass, rule: IRRule, action: IRAction, name: string): Statement {
  const { cx, ec } = pass;
  const ctx = new Map(action.params.map((p) => [p.name, varName(p.name)]));
  const base = `why_${identPart(rule.id)}`;
  const lines: string[] = [`const out: { [k: string]: unknown } = {};`];
  const read = new Set<string>();
  paramsRead(rule.when, new Set(action.params.map((p) => p.name)), read);
  for (const ex of cx.lifts(rule)) paramsRead(ex.when, new Set(action.params.map((p) => p.name)), read);
  for (const p of action.params) if (read.has(p.name)) lines.push(`out[${jsString(p.name)}] = ${varName(p.name)};`);
  lines.push(`try {`);
  ec.inFunction(() => {
    let w = 0;
    for (const c of top(rule.when)) {
      if (c.k === "cmp" && c.left.type.k !== "bool") {
        for (const side of [c.left, c.right]) {
          if (side.k === "lit" || (side.k === "var" && ctx.has(side.name))) continue;
          lines.push(`  out[${jsString(exprText(side))}] = ${ec.expr(side, ctx, base).code};`);
        }
      } else if (c.k === "quant" && c.q === "some" && c.domain.k !== "board") {
        const v = `w_${w++}`;
        const inner = new Map(ctx).set(c.var, v);
        const dom = c.domain.k === "enum" ? ec.enumArray(c.domain.type.name) : ec.expr(c.domain.expr, ctx, base).code;
        lines.push(`  for (const ${v} of ${dom}) if (${ec.expr(c.body, inner, base).code}) { out[${jsString(c.var)}] = ${v}; break; }`);
      }
    }
  });
  lines.push(`} catch {`, `  // a part of the condition that its evaluation skipped (a table lookup outside its domain)`, `}`, `return out;`);
  return fn(name, [{ name: "state", type: "State" }, ...action.params.map((p) => ({ name: varName(p.name), type: tsType(p.type) }))], "{ [k: string]: unknown }", lines.join("\n"), {
    docs: [`The values that made ${rule.id} fire (see explainVerdict).`],
  });
}

/** `lifted_<rule>`: the ids of the exemptions that lift the rule where its scope and condition hold (empty otherwise). */
function liftedFunction(pass: ValidatorsPass, rule: IRRule, action: IRAction, name: string): Statement {
  const { cx, ec } = pass;
  const ctx = new Map(action.params.map((p) => [p.name, varName(p.name)]));
  const base = `lifted_${identPart(rule.id)}`;
  const lines: string[] = [`const out: string[] = [];`];
  if (rule.scope) {
    lines.push(`if ((state.phase as string) !== ${jsString(rule.scope.phase)}) return out;`);
    if (rule.scope.segment !== undefined) lines.push(`if ((state.segment as string) !== ${jsString(rule.scope.segment)}) return out;`);
  }
  ec.inFunction(() => {
    lines.push(`try {`);
    lines.push(`  if (${ec.negated(rule.when, ctx, base).code}) return out;`);
    for (const ex of cx.lifts(rule)) lines.push(`  if (${ec.expr(ex.when, ctx, `ex_${identPart(ex.id)}`).code}) out.push(${jsString(ex.id)});`);
    lines.push(`} catch {`, `  return out;`, `}`);
  });
  lines.push(`return out;`);
  return fn(name, [{ name: "state", type: "State" }, ...action.params.map((p) => ({ name: varName(p.name), type: tsType(p.type) }))], "string[]", lines.join("\n"), {
    docs: [`The exemptions that lift ${rule.id} in this state (see explainVerdict).`],
  });
}

/** The `why_`/`lifted_` functions and `explainVerdict`, the dispatcher the checked `check` calls. */
export function reasonStatements(pass: ValidatorsPass): Statement[] {
  const { cx, names } = pass;
  const out: Statement[] = [];
  const why = new Map<string, string>();
  const cases: string[] = [];
  const obligations: string[] = [];
  for (const r of cx.rules) {
    const a = cx.actionByName.get(r.action)!;
    const w = names.take(`why_${identPart(r.id)}`);
    why.set(r.id, w);
    out.push(whyFunction(pass, r, a, w));
    if (r.kind === "oblige") {
      const me = actorParam(a);
      if (me && a.params.length === 1 && !obligations.some((o) => o.includes(jsString(r.id)))) obligations.push(`    case ${jsString(r.id)}: return ${w}(state, actor as never);`);
    }
  }
  for (const a of cx.actions) {
    const args = a.params.map((p) => propAccess("action", p.name));
    const own = cx.rules.filter((r) => r.action === a.name && r.kind === "forbid");
    const lines: string[] = [];
    for (const r of own) lines.push(`      case ${jsString(r.id)}: return ${why.get(r.id)}(state, ${args.join(", ")});`);
    const liftLines: string[] = [];
    for (const r of own.filter((r) => cx.lifts(r).length)) {
      const l = names.take(`lifted_${identPart(r.id)}`);
      out.push(liftedFunction(pass, r, a, l));
      liftLines.push(`    { const ids = ${l}(state, ${args.join(", ")}); if (ids.length) lifted.push({ rule: ${jsString(r.id)}, exemptions: ids as LiftedRule["exemptions"] }); }`);
    }
    const me = actorParam(a);
    cases.push(
      [
        `  case ${jsString(a.name)}: {`,
        ...(me && obligations.length ? [`    actor = ${propAccess("action", me.name)};`] : []),
        `    valuesOf = (rule) => {`,
        `      switch (rule) {`,
        ...lines,
        `        default: return obligation(rule);`,
        `      }`,
        `    };`,
        ...liftLines,
        `    break;`,
        `  }`,
      ].join("\n"),
    );
  }
  out.push(
    [
      `/** A value of \`values\` in a message: a string as it is, a record by its \`id\` or \`name\`, anything else as JSON. */`,
      `function shownValue(x: unknown): string {`,
      `  if (typeof x === "string") return x;`,
      `  if (typeof x === "object" && x !== null) {`,
      `    const o = x as { readonly id?: unknown; readonly name?: unknown };`,
      `    if (typeof o.id === "string") return o.id;`,
      `    if (typeof o.name === "string") return o.name;`,
      `  }`,
      `  return JSON.stringify(x);`,
      `}`,
    ].join("\n"),
  );
  out.push(
    fn(
      "explainVerdict",
      [{ name: "state", type: "State" }, { name: "action", type: "Action" }, { name: "verdict", type: "Verdict" }],
      "{ violations: ExplainedViolation[]; lifted: LiftedRule[] }",
      [
        `const lifted: LiftedRule[] = [];`,
        ...(obligations.length ? [`let actor: unknown = undefined;`] : []),
        `const obligation = (rule: string): { [k: string]: unknown } => {`,
        `  switch (rule) {`,
        ...obligations,
        `    default: return {};`,
        `  }`,
        `};`,
        `let valuesOf: (rule: string) => { [k: string]: unknown } = obligation;`,
        `switch (action.action) {`,
        ...cases,
        `}`,
        `const violations = verdict.violations.map((v): ExplainedViolation => {`,
        `  const values = valuesOf(v.rule);`,
        `  const shown = Object.entries(values).map(([k, x]) => \`\${k} = \${shownValue(x)}\`).join(", ");`,
        `  return { ...v, values, message: shown ? \`\${v.title} (\${shown})\` : v.title };`,
        `});`,
        `return { violations, lifted };`,
      ].join("\n"),
      {
        exported: true,
        docs: [
          "The reasons of a verdict of `checkTrusted` on this state and action: each violation with the values that made its rule fire (`values`: the action parameters it reads, both sides of the comparisons at the top of its condition, the first element of each `some` there) and a `message` (its title and those values); and the forbid rules of the action whose scope and condition hold but that an exemption lifts (`lifted`, with the exemptions' ids). For a valid state and action (the checked `check` calls it).",
        ],
      },
    ),
  );
  return out;
}
