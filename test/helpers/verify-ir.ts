/**
 * Tiny hand-built IREditions for the prover tests (no dependency on compiler/check).
 *
 * Schema: enum Power (+ subset MajorPower), Phase, Segment; a board of four spaces; state
 * { phase, segment, turn 1..9, hands: MajorPower → list<Card> (maxItems 12), admin:
 *   MajorPower → 1..3, at_war: list<{a, b}> (maxItems 4), x/y/z unbounded ints, name string }.
 * Actions: pass(actor power: MajorPower), declare_war(actor by: MajorPower, target: Power).
 */
import type {
  Board,
  EnumType,
  Expr,
  IREdition,
  IRExemption,
  IRInvariant,
  IRRoute,
  IRRule,
  Type,
} from "../../compiler/ir/types.js";

const pos = { file: "test.rules", line: 1, column: 1 };

export const Power: EnumType = {
  k: "enum",
  name: "Power",
  base: "Power",
  members: ["ottoman", "hapsburg", "england", "france", "scotland"],
};
export const MajorPower: EnumType = { k: "enum", name: "MajorPower", base: "Power", members: ["ottoman", "hapsburg", "england", "france"] };
export const Phase: EnumType = { k: "enum", name: "Phase", base: "Phase", members: ["diplomacy", "action"] };
export const Segment: EnumType = { k: "enum", name: "Segment", base: "Segment", members: ["declarations_of_war", "other"] };
export const Space: EnumType = { k: "enum", name: "Space", base: "Space", members: ["london", "paris", "channel", "edinburgh"] };

const Bool: Type = { k: "bool" };
const Int = (min?: number, max?: number): Type => ({ k: "int", ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) });
export const Card: Type = { k: "record", name: "Card", fields: [{ name: "home", type: Bool }, { name: "mandatory", type: Bool }, { name: "cp", type: Int(1, 5) }] };
export const War: Type = { k: "record", name: "War", fields: [{ name: "a", type: Power }, { name: "b", type: Power }] };

export const StateType: Extract<Type, { k: "record" }> = {
  k: "record",
  fields: [
    { name: "phase", type: Phase },
    { name: "segment", type: Segment },
    { name: "turn", type: Int(1, 9) },
    { name: "hands", type: { k: "map", key: MajorPower, value: { k: "list", elem: Card, bound: 12 } } },
    { name: "admin", type: { k: "map", key: MajorPower, value: Int(1, 3) } },
    { name: "at_war", type: { k: "list", elem: War, bound: 4 } },
    { name: "x", type: Int() },
    { name: "y", type: Int() },
    { name: "z", type: Int() },
    { name: "name", type: { k: "string" } },
  ],
};

/** JSON Schema (2020-12) of a Type, enums as $defs refs. */
export function schemaOf(root: Extract<Type, { k: "record" }>): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const conv = (t: Type): Record<string, unknown> => {
    switch (t.k) {
      case "bool":
        return { type: "boolean" };
      case "int":
        return { type: "integer", ...(t.min !== undefined ? { minimum: t.min } : {}), ...(t.max !== undefined ? { maximum: t.max } : {}) };
      case "string":
        return { type: "string" };
      case "enum":
        defs[t.name] = { type: "string", enum: t.members };
        return { $ref: `#/$defs/${t.name}` };
      case "list":
        return { type: "array", items: conv(t.elem), maxItems: t.bound };
      case "map":
        conv(t.key);
        return { type: "object", propertyNames: { $ref: `#/$defs/${t.key.name}` }, additionalProperties: conv(t.value), required: t.key.members };
      case "record":
        return {
          type: "object",
          properties: Object.fromEntries(t.fields.map((f) => [f.name, conv(f.type)])),
          required: t.fields.map((f) => f.name),
          additionalProperties: false,
        };
    }
  };
  const body = conv(root);
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...body, $defs: defs };
}

export const board: Board = {
  spaces: [
    { id: "london", name: "London", type: "capital", home: ["england"] },
    { id: "paris", name: "Paris", type: "capital", home: ["france"] },
    { id: "channel", name: "English Channel", type: "sea", home: [] },
    { id: "edinburgh", name: "Edinburgh", type: "key", home: ["scotland"] },
  ],
  connections: [
    { from: "london", to: "channel", type: "port" },
    { from: "channel", to: "paris", type: "port" },
    { from: "london", to: "edinburgh", type: "pass" },
  ],
};

// ---------------------------------------------------------------------------------------------
// expression builders (types computed from StateType)

const BOOL: Type = { k: "bool" };
const INT: Type = { k: "int" };
export const lit = (value: boolean | number | string, type?: Type): Expr => ({
  k: "lit",
  value,
  type: type ?? (typeof value === "boolean" ? BOOL : typeof value === "number" ? INT : { k: "string" }),
});
export const member = (t: EnumType, m: string): Expr => lit(m, t);
export const v = (name: string, type: Type): Expr => ({ k: "var", name, type });
export const state: Expr = { k: "state", type: StateType };
export function field(obj: Expr, name: string): Expr {
  if (obj.type.k !== "record") throw new Error("field of non-record");
  const f = obj.type.fields.find((x) => x.name === name);
  if (!f) throw new Error(`no field ${name}`);
  return { k: "field", obj, field: name, type: f.type };
}
export const st = (name: string) => field(state, name);
export function index(obj: Expr, key: Expr): Expr {
  if (obj.type.k !== "map") throw new Error("index of non-map");
  return { k: "index", obj, key, type: obj.type.value };
}
export const not = (arg: Expr): Expr => ({ k: "not", arg, type: BOOL });
export const and = (...args: Expr[]): Expr => ({ k: "and", args, type: BOOL });
export const or = (...args: Expr[]): Expr => ({ k: "or", args, type: BOOL });
export const cmp = (op: "=" | "!=" | "<" | "<=" | ">" | ">=", left: Expr, right: Expr): Expr => ({ k: "cmp", op, left, right, type: BOOL });
export const arith = (op: "+" | "-" | "*", left: Expr, right: Expr): Expr => ({ k: "arith", op, left, right, type: INT });
export const len = (arg: Expr): Expr => ({ k: "len", arg, type: INT });
export const inSet = (elem: Expr, items: Expr[]): Expr => ({ k: "in", elem, set: { k: "setlit", items, type: BOOL }, type: BOOL });
export function someIn(varName: string, list: Expr, body: (x: Expr) => Expr, q: "some" | "every" = "some"): Expr {
  if (list.type.k !== "list") throw new Error("not a list");
  const x = v(varName, list.type.elem);
  return { k: "quant", q, var: varName, varType: list.type.elem, domain: { k: "list", expr: list }, body: body(x), type: BOOL };
}
export function sumHighest(n: number, varName: string, dom: EnumType, body: (x: Expr) => Expr): Expr {
  const x = v(varName, dom);
  return { k: "agg", op: "sum_highest", n, var: varName, varType: dom, domain: { k: "enum", type: dom }, body: body(x), type: INT };
}
export const boardFn = (fn: Extract<Expr, { k: "board" }>["fn"], ...args: Expr[]): Expr => ({ k: "board", fn, args, type: BOOL });
export const reach = (route: string, args: Expr[], from: Expr, to: Expr): Expr => ({ k: "reach", route, args, from, to, type: BOOL });

export const power = v("power", MajorPower);
export const by = v("by", MajorPower);
export const target = v("target", Power);
export const handOf = (p: Expr) => index(st("hands"), p);

export function rule(
  id: string,
  kind: "forbid" | "oblige",
  action: string,
  when: Expr,
  extra: { scope?: IRRule["scope"]; groups?: string[] } = {},
): IRRule {
  return {
    id,
    kind,
    action,
    title: id,
    citation: { source: "t", section: "1", text: "t §1" },
    scope: extra.scope ?? null,
    groups: extra.groups ?? [],
    when,
    pos,
  };
}
export function exemption(id: string, lifts: { groups?: string[]; rules?: string[] }, when: Expr): IRExemption {
  return { id, title: id, citation: { source: "t", section: "2", text: "t §2" }, groups: lifts.groups ?? [], rules: lifts.rules ?? [], when, pos };
}
export const invariant = (id: string, expr: Expr): IRInvariant => ({ id, title: id, expr, pos });

export const route: IRRoute = {
  name: "path",
  params: [{ name: "p", type: MajorPower, actor: false }],
  landVar: "s",
  land: lit(true),
  seaVar: "z",
  sea: lit(true),
  portVar: "q",
  port: lit(true),
  maxSeas: null,
  passes: lit(true),
  pos,
};

/** An edition over the tiny schema with the given rules/exemptions/invariants. */
export function edition(parts: { name?: string; rules: IRRule[]; exemptions?: IRExemption[]; invariants?: IRInvariant[]; state?: Extract<Type, { k: "record" }> }): IREdition {
  const stateType = parts.state ?? StateType;
  return {
    name: parts.name ?? "t",
    title: "Test",
    cites: "t",
    enums: [Power, MajorPower, Phase, Segment, Space].map((e) => ({ name: e.name, base: e.base, members: e.members, pos })),
    actions: [
      { name: "pass", params: [{ name: "power", type: MajorPower, actor: true }], pos },
      {
        name: "declare_war",
        params: [
          { name: "by", type: MajorPower, actor: true },
          { name: "target", type: Power, actor: false },
        ],
        pos,
      },
    ],
    rules: parts.rules,
    exemptions: parts.exemptions ?? [],
    invariants: parts.invariants ?? [],
    routes: [route],
    state: stateType,
    schema: schemaOf(stateType),
    board,
    inputs: [],
    inputHash: "0".repeat(64),
  };
}

// ---------------------------------------------------------------------------------------------
// a consistent rulebook

const actionScope = { phase: "action" };
const dowScope = { phase: "diplomacy", segment: "declarations_of_war" };

export const consistentRules: IRRule[] = [
  rule("pass.empty_hand", "oblige", "pass", cmp("=", len(handOf(power)), lit(0)), { scope: actionScope }),
  rule("pass.home_card", "forbid", "pass", someIn("c", handOf(power), (c) => field(c, "mandatory")), { scope: actionScope }),
  rule("dow.scotland", "forbid", "declare_war", and(cmp("=", target, member(Power, "scotland")), inSet(by, [member(Power, "ottoman"), member(Power, "france")])), {
    scope: dowScope,
  }),
  rule("dow.self", "forbid", "declare_war", cmp("=", target, by), { scope: dowScope }),
  rule(
    "dow.already",
    "forbid",
    "declare_war",
    someIn("w", st("at_war"), (w) => or(and(cmp("=", field(w, "a"), by), cmp("=", field(w, "b"), target)), and(cmp("=", field(w, "a"), target), cmp("=", field(w, "b"), by)))),
    { scope: dowScope },
  ),
  rule("dow.admin", "forbid", "declare_war", cmp("<", index(st("admin"), by), lit(2)), { scope: dowScope, groups: ["*"] }),
  rule("dow.strength", "forbid", "declare_war", cmp(">", sumHighest(2, "p", MajorPower, (p) => index(st("admin"), p)), lit(5)), { scope: dowScope }),
  rule("dow.capital", "forbid", "declare_war", not(boardFn("is_capital", member(Space, "london"), target)), { scope: dowScope, groups: ["*"] }),
];
export const consistentExemptions: IRExemption[] = [exemption("dow.emergency", { groups: ["*"] }, cmp("=", st("turn"), lit(9)))];
export const consistentInvariants: IRInvariant[] = [
  invariant("inv.no_self_war", someIn("w", st("at_war"), (w) => cmp("!=", field(w, "a"), field(w, "b")), "every")),
];
