/**
 * A tiny hand-built IREdition for the codegen tests (no dependency on compiler/check).
 *
 * Board (8 spaces):
 *
 *   alpha(capital, red) ── beta ══pass══ gamma(fortress) ── zeta(electorate, blue)
 *     │                                                      ┆ port
 *   delta(key, blue) ┄port┄ north_sea ─sea─ south_sea ┄port┄─┘
 *                              ┆ port
 *                           epsilon          (epsilon has no land connection)
 *
 * Schema: enums Power {red, blue, green, yellow} (+ MajorPower {red, blue}), Phase, Segment; Space from the
 * board. State { phase, segment, spaces: Space → {controller, unrest, blockaded},
 * alliances: list<{a, b}> (≤4), hands: MajorPower → list<string> (≤5), vp: Power → int,
 * played: list<string> (≤5) }.
 *
 * Actions: declare_war(actor by: MajorPower, target: Power), pass(actor power: MajorPower),
 * deploy(actor power: MajorPower, origin: Space, destination: Space, units: int,
 *        avoid_passes: bool, seas: int).
 *
 * Rules: dow.green (forbid, during diplomacy.declarations), dow.strength (forbid, sum_highest,
 * group strength), deploy.path (forbid, route, group *), deploy.units (forbid, count, ite, group *),
 * deploy.coast (forbid, board domain: every sea zone of a port origin is blockaded),
 * pass.empty_hand (oblige pass). Exemptions: ex.spring lifts (*) when "spring" in state.played;
 * ex.blue_strength lifts dow.strength when by = blue. Route deploy_path(p, avoid, seas).
 */
import type { Board, EnumType, Expr, IREdition, Type } from "../../compiler/ir/types.js";

const pos = (line: number, file = "dsl/tiny/tiny.rules") => ({ file, line, column: 1 });

export const Power: EnumType = { k: "enum", name: "Power", base: "Power", members: ["red", "blue", "green", "yellow"] };
export const MajorPower: EnumType = { k: "enum", name: "MajorPower", base: "Power", members: ["red", "blue"] };
export const Phase: EnumType = { k: "enum", name: "Phase", base: "Phase", members: ["diplomacy", "action"] };
export const Segment: EnumType = { k: "enum", name: "Segment", base: "Segment", members: ["declarations", "other"] };

export const board: Board = {
  spaces: [
    { id: "alpha", name: "Alpha", type: "capital", home: ["red"] },
    { id: "beta", name: "Beta", type: "normal", home: ["red"] },
    { id: "gamma", name: "Gamma", type: "fortress", home: [] },
    { id: "delta", name: "Delta", type: "key", home: ["blue"] },
    { id: "epsilon", name: "Epsilon", type: "normal", home: [] },
    { id: "zeta", name: "Zeta", type: "electorate", home: ["blue"] },
    { id: "north_sea", name: "North Sea", type: "sea", home: [] },
    { id: "south_sea", name: "South Sea", type: "sea", home: [] },
  ],
  connections: [
    { from: "alpha", to: "beta", type: "normal" },
    { from: "beta", to: "gamma", type: "pass" },
    { from: "alpha", to: "delta", type: "normal" },
    { from: "gamma", to: "zeta", type: "normal" },
    { from: "delta", to: "north_sea", type: "port" },
    { from: "epsilon", to: "north_sea", type: "port" },
    { from: "north_sea", to: "south_sea", type: "sea" },
    { from: "zeta", to: "south_sea", type: "port" },
  ],
};

export const Space: EnumType = { k: "enum", name: "Space", base: "Space", members: board.spaces.map((s) => s.id) };

const Bool: Type = { k: "bool" };
const Int: Type = { k: "int" };
const Str: Type = { k: "string" };
const SpaceState: Type = {
  k: "record",
  name: "SpaceState",
  fields: [
    { name: "controller", type: Power },
    { name: "unrest", type: Bool },
    { name: "blockaded", type: Bool },
  ],
};
const Alliance: Type = { k: "record", name: "Alliance", fields: [{ name: "a", type: Power }, { name: "b", type: Power }] };
const StrList: Type = { k: "list", elem: Str, bound: 5 };

export const StateType: Extract<Type, { k: "record" }> = {
  k: "record",
  fields: [
    { name: "phase", type: Phase },
    { name: "segment", type: Segment },
    { name: "spaces", type: { k: "map", key: Space, value: SpaceState } },
    { name: "alliances", type: { k: "list", elem: Alliance, bound: 4 } },
    { name: "hands", type: { k: "map", key: MajorPower, value: StrList } },
    { name: "vp", type: { k: "map", key: Power, value: Int } },
    { name: "played", type: StrList },
  ],
};

const ref = (n: string) => ({ $ref: `#/$defs/${n}` });
const enumDef = (e: EnumType) => ({ type: "string", enum: e.members });
const obj = (props: Record<string, unknown>) => ({ type: "object", properties: props, required: Object.keys(props), additionalProperties: false });
const map = (key: EnumType, value: unknown) => ({ type: "object", propertyNames: ref(key.name), additionalProperties: value, required: key.members });

export const schema: Record<string, unknown> = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "Tiny game state",
  $defs: {
    Power: enumDef(Power),
    MajorPower: enumDef(MajorPower),
    Phase: enumDef(Phase),
    Segment: enumDef(Segment),
    Space: enumDef(Space),
    SpaceState: obj({ controller: ref("Power"), unrest: { type: "boolean" }, blockaded: { type: "boolean" } }),
    Alliance: obj({ a: ref("Power"), b: ref("Power") }),
  },
  ...obj({
    phase: ref("Phase"),
    segment: ref("Segment"),
    spaces: map(Space, ref("SpaceState")),
    alliances: { type: "array", items: ref("Alliance"), maxItems: 4 },
    hands: map(MajorPower, { type: "array", items: { type: "string" }, maxItems: 5 }),
    vp: map(Power, { type: "integer" }),
    played: { type: "array", items: { type: "string" }, maxItems: 5 },
  }),
};

// ---- expression builders ----------------------------------------------------------------------

export const lit = (value: boolean | number | string, type: Type): Expr => ({ k: "lit", value, type });
export const en = (e: EnumType, m: string): Expr => lit(m, e);
export const v = (name: string, type: Type): Expr => ({ k: "var", name, type });
export const state: Expr = { k: "state", type: StateType };
export const fld = (obj: Expr, field: string): Expr => {
  const t = obj.type;
  if (t.k !== "record") throw new Error(`field ${field} of ${t.k}`);
  const f = t.fields.find((x) => x.name === field);
  if (!f) throw new Error(`no field ${field}`);
  return { k: "field", obj, field, type: f.type };
};
export const idx = (obj: Expr, key: Expr): Expr => {
  if (obj.type.k !== "map") throw new Error("index of non-map");
  return { k: "index", obj, key, type: obj.type.value };
};
export const st = (...path: string[]): Expr => path.reduce<Expr>((e, f) => fld(e, f), state);
export const and = (...args: Expr[]): Expr => ({ k: "and", args, type: Bool });
export const or = (...args: Expr[]): Expr => ({ k: "or", args, type: Bool });
export const not = (arg: Expr): Expr => ({ k: "not", arg, type: Bool });
export const eq = (left: Expr, right: Expr): Expr => ({ k: "cmp", op: "=", left, right, type: Bool });
export const ne = (left: Expr, right: Expr): Expr => ({ k: "cmp", op: "!=", left, right, type: Bool });
export const cmp = (op: "<" | "<=" | ">" | ">=", left: Expr, right: Expr): Expr => ({ k: "cmp", op, left, right, type: Bool });
export const add = (left: Expr, right: Expr): Expr => ({ k: "arith", op: "+", left, right, type: Int });
export const int = (n: number): Expr => lit(n, Int);
export const T: Expr = lit(true, Bool);
export const ite = (cond: Expr, then: Expr, els: Expr): Expr => ({ k: "ite", cond, then, else: els, type: then.type });
export const board_ = (fn: Extract<Expr, { k: "board" }>["fn"], ...args: Expr[]): Expr => ({ k: "board", fn, args, type: Bool });

// ---- declarations -----------------------------------------------------------------------------

const by = v("by", MajorPower);
const target = v("target", Power);
const power = v("power", MajorPower);
const cite = (section: string) => ({ source: "tiny", section, text: `tiny §${section}` });

/** allied(a, b) inlined: some x in state.alliances: (x.a = a and x.b = b) or (x.a = b and x.b = a) */
const allied = (a: Expr, b: Expr): Expr => {
  const x = v("x", Alliance);
  return {
    k: "quant",
    q: "some",
    var: "x",
    varType: Alliance,
    domain: { k: "list", expr: st("alliances") },
    body: or(and(eq(fld(x, "a"), a), eq(fld(x, "b"), b)), and(eq(fld(x, "a"), b), eq(fld(x, "b"), a))),
    type: Bool,
  };
};

const p = v("p", Power);
/** sum_highest(2, p in Power where p != by: state.vp[p]) */
const strongestTwo: Expr = {
  k: "agg",
  op: "sum_highest",
  n: 2,
  var: "p",
  varType: Power,
  domain: { k: "enum", type: Power },
  where: ne(p, by),
  body: idx(st("vp"), p),
  type: Int,
};

const spaceOf = (s: Expr, f: string): Expr => fld(idx(st("spaces"), s), f);

export function tinyIR(): IREdition {
  const s = v("s", Space);
  const z = v("z", Space);
  const q = v("q", Space);
  const rp = v("p", MajorPower);
  const avoid = v("avoid", Bool);
  const seas = v("seas", Int);
  const ally = v("x", Alliance);
  const pw = v("pw", Power);
  return {
    name: "tiny",
    title: "Tiny Test Game",
    cites: "tiny",
    enums: [
      { name: "Power", base: "Power", members: Power.members, pos: pos(1) },
      { name: "MajorPower", base: "Power", members: MajorPower.members, pos: pos(2) },
      { name: "Phase", base: "Phase", members: Phase.members, pos: pos(3) },
      { name: "Segment", base: "Segment", members: Segment.members, pos: pos(4) },
      { name: "Space", base: "Space", members: Space.members, pos: pos(5) },
    ],
    actions: [
      {
        name: "declare_war",
        params: [
          { name: "by", type: MajorPower, actor: true },
          { name: "target", type: Power, actor: false },
        ],
        pos: pos(10),
      },
      { name: "pass", params: [{ name: "power", type: MajorPower, actor: true }], pos: pos(11) },
      {
        name: "deploy",
        params: [
          { name: "power", type: MajorPower, actor: true },
          { name: "origin", type: Space, actor: false },
          { name: "destination", type: Space, actor: false },
          { name: "units", type: Int, actor: false },
          { name: "avoid_passes", type: Bool, actor: false },
          { name: "seas", type: Int, actor: false },
        ],
        pos: pos(12),
      },
    ],
    routes: [
      {
        name: "deploy_path",
        params: [
          { name: "p", type: MajorPower, actor: false },
          { name: "avoid", type: Bool, actor: false },
          { name: "seas", type: Int, actor: false },
        ],
        landVar: "s",
        land: and(eq(spaceOf(s, "controller"), rp), not(spaceOf(s, "unrest"))),
        seaVar: "z",
        sea: not(spaceOf(z, "blockaded")),
        portVar: "q",
        port: not(spaceOf(q, "blockaded")),
        maxSeas: seas,
        passes: not(avoid),
        pos: pos(20),
      },
    ],
    rules: [
      {
        id: "dow.green",
        kind: "forbid",
        action: "declare_war",
        title: "red and red's allies may not declare war on green",
        citation: cite("9.6"),
        scope: { phase: "diplomacy", segment: "declarations" },
        groups: [],
        when: and(eq(target, en(Power, "green")), or({ k: "in", elem: by, set: { k: "setlit", items: [en(Power, "red")], type: Bool }, type: Bool }, allied(by, en(Power, "red")))),
        pos: pos(30),
      },
      {
        id: "dow.strength",
        kind: "forbid",
        action: "declare_war",
        title: "no war when the two strongest others hold more than 10 VP",
        citation: cite("9.7"),
        scope: null,
        groups: ["strength"],
        when: cmp(">", strongestTwo, int(10)),
        pos: pos(31),
      },
      {
        id: "deploy.path",
        kind: "forbid",
        action: "deploy",
        title: "the deployment needs a path through controlled spaces",
        citation: cite("10"),
        scope: { phase: "action" },
        groups: ["*"],
        when: not({ k: "reach", route: "deploy_path", args: [power, v("avoid_passes", Bool), v("seas", Int)], from: v("origin", Space), to: v("destination", Space), type: Bool }),
        pos: pos(32),
      },
      {
        id: "deploy.units",
        kind: "forbid",
        action: "deploy",
        title: "at most 4 units (6 from a home capital) plus one per alliance",
        citation: cite("10.1"),
        scope: null,
        groups: ["*"],
        when: cmp(">", v("units", Int), add(ite(board_("is_capital", v("origin", Space), power), int(6), int(4)), { k: "agg", op: "count", var: "x", varType: Alliance, domain: { k: "list", expr: st("alliances") }, where: or(eq(fld(ally, "a"), power), eq(fld(ally, "b"), power)), type: Int })),
        pos: pos(33),
      },
      {
        id: "deploy.coast",
        kind: "forbid",
        action: "deploy",
        title: "no deployment from a port whose sea zones are all blockaded",
        citation: cite("10.3"),
        scope: null,
        groups: [],
        when: and(board_("is_port", v("origin", Space)), {
          k: "quant",
          q: "every",
          var: "z",
          varType: Space,
          domain: { k: "board", fn: "sea_zones_of", args: [v("origin", Space)] },
          body: spaceOf(z, "blockaded"),
          type: Bool,
        }),
        pos: pos(35),
      },
      {
        id: "pass.empty_hand",
        kind: "oblige",
        action: "pass",
        title: "a power with an empty hand must pass",
        citation: cite("11"),
        scope: null,
        groups: [],
        when: eq({ k: "len", arg: idx(st("hands"), power), type: Int }, int(0)),
        pos: pos(34),
      },
    ],
    exemptions: [
      {
        id: "ex.spring",
        title: "Spring Preparations lifts the (*) restrictions",
        citation: cite("10.2"),
        groups: ["*"],
        rules: [],
        when: { k: "in", elem: lit("spring", Str), set: st("played"), type: Bool },
        pos: pos(40),
      },
      {
        id: "ex.blue_strength",
        title: "blue ignores the strength limit",
        citation: cite("9.8"),
        groups: [],
        rules: ["dow.strength"],
        when: eq(by, en(Power, "blue")),
        pos: pos(41),
      },
    ],
    invariants: [
      {
        id: "state.no_self_alliance",
        title: "no power is allied with itself",
        expr: { k: "quant", q: "every", var: "x", varType: Alliance, domain: { k: "list", expr: st("alliances") }, body: ne(fld(ally, "a"), fld(ally, "b")), type: Bool },
        pos: pos(50),
      },
      {
        // exercises implies, neg, arith, a lifted `in` (non-trivial element) and a shadowed quantifier variable
        id: "state.misc",
        title: "miscellaneous expression forms (broken exactly when the segment is declarations)",
        expr: and(
          { k: "implies", left: eq(st("phase"), en(Phase, "diplomacy")), right: T, type: Bool },
          cmp(">=", { k: "arith", op: "*", left: { k: "neg", arg: int(2), type: Int }, right: { k: "arith", op: "-", left: int(5), right: int(2), type: Int }, type: Int }, int(-6)),
          { k: "in", elem: ite(eq(st("segment"), en(Segment, "other")), en(Power, "red"), en(Power, "blue")), set: { k: "setlit", items: [en(Power, "red"), en(Power, "green")], type: Bool }, type: Bool },
          {
            k: "quant",
            q: "some",
            var: "pw",
            varType: MajorPower,
            domain: { k: "enum", type: MajorPower },
            body: { k: "quant", q: "some", var: "pw", varType: Power, domain: { k: "enum", type: Power }, body: eq(v("pw", Power), en(Power, "yellow")), type: Bool },
            type: Bool,
          },
        ),
        pos: pos(52),
      },
      {
        id: "state.vp_range",
        title: "vp between 0 and 20",
        expr: and(
          cmp("<=", { k: "agg", op: "max", var: "pw", varType: Power, domain: { k: "enum", type: Power }, body: idx(st("vp"), pw), type: Int }, int(20)),
          cmp(">=", { k: "agg", op: "min", var: "pw", varType: Power, domain: { k: "enum", type: Power }, body: idx(st("vp"), pw), type: Int }, int(0)),
        ),
        pos: pos(51),
      },
    ],
    state: StateType,
    schema,
    board,
    inputs: [
      { file: "dsl/tiny/board.json", sha256: "0".repeat(64) },
      { file: "dsl/tiny/state.schema.json", sha256: "1".repeat(64) },
      { file: "dsl/tiny/tiny.rules", sha256: "2".repeat(64) },
    ],
    inputHash: "c0ffee".padEnd(64, "0"),
  };
}

/** A state where red controls every land space, nothing is blockaded, and nothing fires. */
export function tinyState(): Record<string, unknown> {
  const spaces: Record<string, unknown> = {};
  for (const sp of board.spaces) spaces[sp.id] = { controller: "red", unrest: false, blockaded: false };
  return {
    phase: "action",
    segment: "other",
    spaces,
    alliances: [],
    hands: { red: ["a"], blue: ["b"] },
    vp: { red: 3, blue: 4, green: 2, yellow: 1 },
    played: [],
  };
}
