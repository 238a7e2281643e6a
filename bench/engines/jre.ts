/**
 * The same Here I Stand rules for json-rules-engine (7.x), written as its users write rules:
 * one engine per action, one JSON rule per rulebook rule (event type = the rule id), conditions
 * over the runtime facts `state` and `action` read with JSONPath (`path: "$.phase"`), and
 * comparisons between facts (`value: { fact: "action", path: "$.by" }`).
 *
 * What json-rules-engine cannot express is written as dynamic facts with parameters, the
 * documented way to extend it (computed in JavaScript, cached per run by the almanac):
 * - `pair`: is there an entry {a, b} (either order) in one of the state's pair lists
 *   (alliances, wars, peace made, alliances formed) — JSONPath cannot match a pair of fields
 *   against two values taken from another fact;
 * - lookups keyed by an action parameter (`handSize`, `adminRating`, `handHas`, `eventPlayed`,
 *   `unitsInCapital`) — a path cannot contain another fact's value;
 * - board facts (`isCapital`, `isLand`), the §5.1 formation size limit (`formationCap`: the sum of
 *   the two best command ratings), `leadersPresent`;
 * - `pathExists`: the §10 route search, done by the hand-written search (bench/engines/hand.ts):
 *   a rules engine has no graph search; its users precompute such a fact in code.
 * The exemption (Spring Preparations lifts the (*) rules) is a `not` condition on each (*) rule.
 */
import { Engine, type RuleProperties, type TopLevelCondition, type NestedCondition, type Almanac } from "json-rules-engine";
import type { State } from "../../generated/his/index.js";
import { CAPITAL_OF, handDeployPath } from "./hand.js";
import { hisData, MAJORS, MINORS } from "../states.js";

export interface JreVerdict {
  allowed: boolean;
  violations: string[];
  obliged: string[];
}

type Act = Record<string, unknown>;
const st = (path: string, operator: string, value: unknown): NestedCondition => ({ fact: "state", path, operator, value }) as NestedCondition;
const act = (path: string, operator: string, value: unknown): NestedCondition => ({ fact: "action", path, operator, value }) as NestedCondition;
const fact = (name: string, params: Record<string, unknown>, operator = "equal", value: unknown = true): NestedCondition => ({ fact: name, params, operator, value }) as NestedCondition;
const actRef = (param: string) => ({ fact: "action", path: `$.${param}` });
const inDow = (): NestedCondition[] => [st("$.phase", "equal", "diplomacy"), st("$.segment", "equal", "declarations_of_war")];
const rule = (id: string, conditions: TopLevelCondition, kind: "forbid" | "obliged" = "forbid"): RuleProperties => ({ name: id, conditions, event: { type: id, params: { kind } } });

/** `pass.empty_hand` (§11) for an action whose actor parameter is `actor`. */
const emptyHand = (actor: string, kind: "forbid" | "obliged"): RuleProperties =>
  rule("pass.empty_hand", { all: [st("$.phase", "equal", "action_phase"), st("$.active_power", "equal", actRef(actor)), fact("handSize", { power: `@${actor}` }, "equal", 0)] }, kind);

// §9.6
const DECLARE_WAR: RuleProperties[] = [
  rule("dow.hungary_bohemia", { all: [act("$.target", "equal", "hungary_bohemia")] }),
  rule("dow.scotland", { all: [act("$.target", "equal", "scotland"), { any: [act("$.by", "in", ["ottoman", "papacy", "protestant"]), fact("pair", { list: "alliances", a: "@by", b: "france" })] }] }),
  rule("dow.venice_england", { all: [act("$.target", "equal", "venice"), act("$.by", "equal", "england")] }),
  rule("dow.minor_ally", { all: [act("$.target", "in", [...MINORS]), { any: MAJORS.map((m) => fact("pair", { list: "alliances", a: "@target", b: m })) }] }),
  rule("dow.own_ally", { all: [fact("pair", { list: "alliances", a: "@by", b: "@target" })] }),
  rule("dow.protestant_before_league", { all: [act("$.target", "equal", "protestant"), st("$.schmalkaldic_league_played", "equal", false)] }),
  rule("dow.protestant_declarer_before_league", { all: [act("$.by", "equal", "protestant"), st("$.schmalkaldic_league_played", "equal", false)] }),
  rule("dow.independent", { all: [act("$.target", "equal", "independent")] }),
  rule("dow.self", { all: [act("$.target", "equal", actRef("by"))] }),
  rule("dow.already_at_war", { all: [fact("pair", { list: "wars", a: "@by", b: "@target" })] }),
  // outside the declarations of war segment: only in the Action Phase, by the player of a war-opening event
  rule("dow.segment", {
    all: [
      { not: { all: inDow() } } as NestedCondition,
      { not: { all: [st("$.phase", "equal", "action_phase"), { any: ["schmalkaldic_league", "machiavelli_the_prince", "six_wives_of_henry_viii"].map((ev) => fact("eventPlayed", { power: "@by", event: ev })) }] } } as NestedCondition,
    ],
  }),
  rule("dow.peace_this_phase", { all: [...inDow(), fact("pair", { list: "peace_made_this_phase", a: "@by", b: "@target" })] }),
  rule("dow.alliance_this_phase", { all: [...inDow(), fact("pair", { list: "alliances_formed_this_phase", a: "@by", b: "@target" })] }),
  rule("dow.venice_papal", { all: [...inDow(), act("$.target", "equal", "venice"), { any: [fact("pair", { list: "alliances", a: "@by", b: "papacy" }), fact("pair", { list: "peace_made_this_phase", a: "@by", b: "papacy" })] }] }),
  rule("dow.scotland_french_peace", { all: [...inDow(), act("$.target", "equal", "scotland"), fact("pair", { list: "peace_made_this_phase", a: "@by", b: "france" })] }),
  emptyHand("by", "forbid"),
];

// §11
const inAction = (): NestedCondition => st("$.phase", "equal", "action_phase");
const PASS: RuleProperties[] = [
  rule("pass.phase", { all: [st("$.phase", "notEqual", "action_phase")] }),
  rule("pass.not_active", { all: [inAction(), st("$.active_power", "notEqual", actRef("power"))] }),
  rule("pass.home_card", { all: [inAction(), fact("handHas", { power: "@power", flag: "home" })] }),
  rule("pass.mandatory_event", { all: [inAction(), fact("handHas", { power: "@power", flag: "mandatory" })] }),
  rule("pass.admin_rating", { all: [inAction(), fact("handSize", { power: "@power" }, "greaterThan", { fact: "adminRating", params: { power: "@power" } })] }),
  emptyHand("power", "obliged"),
];

// §10, §5.1
const inSpring = (): NestedCondition => st("$.phase", "equal", "spring_deployment");
const unprepared = (): NestedCondition => ({ not: fact("eventPlayed", { power: "@power", event: "spring_preparations" }) }) as NestedCondition;
const noPath = (noPasses: boolean, noBlocked: boolean, noSeas: boolean | "over5"): NestedCondition => fact("pathExists", { noPasses, noBlocked, noSeas }, "equal", false);
const SPRING_DEPLOY: RuleProperties[] = [
  rule("deploy.phase", { all: [st("$.phase", "notEqual", "spring_deployment")] }),
  rule("deploy.not_active", { all: [inSpring(), st("$.active_power", "notEqual", actRef("power"))] }),
  rule("deploy.once_per_phase", { all: [inSpring(), st("$.spring_deployments_done", "contains", actRef("power"))] }),
  rule("deploy.protestant", { all: [inSpring(), act("$.power", "equal", "protestant")] }),
  rule("deploy.capital_only", { all: [inSpring(), fact("isCapital", {}, "equal", false)] }),
  rule("deploy.something_moves", { all: [inSpring(), { any: [act("$.land_units", "lessThan", 0), { all: [act("$.land_units", "equal", 0), act("$.leaders.length", "equal", 0)] }] }] }),
  rule("deploy.units_in_capital", { all: [inSpring(), act("$.land_units", "greaterThan", { fact: "unitsInCapital" })] }),
  rule("deploy.leaders_in_capital", { all: [inSpring(), fact("leadersPresent", {}, "equal", false)] }),
  rule("deploy.formation_size", { all: [inSpring(), act("$.land_units", "greaterThan", { fact: "formationCap" })] }),
  rule("deploy.to_land", { all: [inSpring(), fact("isLand", {}, "equal", false)] }),
  rule("deploy.path", { all: [inSpring(), noPath(false, false, false)] }),
  rule("deploy.no_pass", { all: [inSpring(), unprepared(), noPath(true, false, false)] }),
  rule("deploy.blocked_sea", { all: [inSpring(), unprepared(), noPath(false, true, false)] }),
  rule("deploy.sea_cap", { all: [inSpring(), unprepared(), noPath(false, false, "over5")] }),
  rule("deploy.star_all", { all: [inSpring(), unprepared(), noPath(true, true, "over5")] }),
  emptyHand("power", "forbid"),
];

/** Resolves a fact parameter: `@name` is the action's parameter `name`, anything else a literal. */
async function arg(almanac: Almanac, p: unknown): Promise<unknown> {
  if (typeof p === "string" && p.startsWith("@")) return ((await almanac.factValue("action")) as Act)[p.slice(1)];
  return p;
}
const stateOf = async (a: Almanac) => (await a.factValue("state")) as State;
const actionOf = async (a: Almanac) => (await a.factValue("action")) as Act;

/** A dynamic fact with typed parameters (json-rules-engine types them as `Record<string, any>`). */
type FactFn<P> = (params: P, almanac: Almanac) => Promise<unknown>;

function engine(rules: RuleProperties[]): Engine {
  const eng = new Engine(rules, { allowUndefinedFacts: false });
  const e = { addFact: <P>(id: string, f: FactFn<P>) => eng.addFact(id, f as unknown as (p: Record<string, unknown>, a: Almanac) => Promise<unknown>) };
  e.addFact("pair", async (params: { list: keyof State; a: unknown; b: unknown }, almanac: Almanac) => {
    const s = await stateOf(almanac);
    const a = await arg(almanac, params.a);
    const b = await arg(almanac, params.b);
    return (s[params.list] as { a: string; b: string }[]).some((x) => (x.a === a && x.b === b) || (x.a === b && x.b === a));
  });
  e.addFact("handSize", async (params: { power: string }, almanac: Almanac) => (await stateOf(almanac)).hands[(await arg(almanac, params.power)) as keyof State["hands"]].length);
  e.addFact("adminRating", async (params: { power: string }, almanac: Almanac) => (await stateOf(almanac)).rulers[(await arg(almanac, params.power)) as keyof State["rulers"]].admin_rating);
  e.addFact("handHas", async (params: { power: string; flag: "home" | "mandatory" }, almanac: Almanac) =>
    (await stateOf(almanac)).hands[(await arg(almanac, params.power)) as keyof State["hands"]].some((c) => c[params.flag]),
  );
  e.addFact("eventPlayed", async (params: { power: string; event: string }, almanac: Almanac) => {
    const p = await arg(almanac, params.power);
    return (await stateOf(almanac)).events_played_this_phase.some((x) => x.power === p && x.event === params.event);
  });
  e.addFact("isCapital", async (_: unknown, almanac: Almanac) => {
    const a = await actionOf(almanac);
    return CAPITAL_OF.get(a.power as string)!.includes(a.origin as string);
  });
  const sea = new Set(hisData().board.spaces.filter((s) => s.type === "sea").map((s) => s.id));
  e.addFact("isLand", async (_: unknown, almanac: Almanac) => !sea.has((await actionOf(almanac)).destination as string));
  e.addFact("unitsInCapital", async (_: unknown, almanac: Almanac) => {
    const a = await actionOf(almanac);
    return (await stateOf(almanac)).spaces[a.origin as keyof State["spaces"]].land_units[a.power as keyof State["rulers"]];
  });
  const named = async (almanac: Almanac) => {
    const a = await actionOf(almanac);
    const leaders = a.leaders as string[];
    const here = (await stateOf(almanac)).spaces[a.origin as keyof State["spaces"]].leaders;
    return { a, leaders, here };
  };
  e.addFact("leadersPresent", async (_: unknown, almanac: Almanac) => {
    const { a, leaders, here } = await named(almanac);
    return leaders.every((n) => here.some((l) => l.name === n && l.power === a.power));
  });
  e.addFact("formationCap", async (_: unknown, almanac: Almanac) => {
    const { a, leaders, here } = await named(almanac);
    const ratings = here.filter((l) => l.power === a.power && leaders.includes(l.name)).map((l) => l.command).sort((x, y) => y - x);
    return ratings.length === 0 ? 4 : ratings.slice(0, 2).reduce((x, y) => x + y, 0);
  });
  e.addFact("pathExists", async (params: { noPasses: boolean; noBlocked: boolean; noSeas: boolean | "over5" }, almanac: Almanac) => {
    const s = await stateOf(almanac);
    const a = await actionOf(almanac);
    const noSeas = params.noSeas === "over5" ? (a.land_units as number) > 5 : params.noSeas;
    return handDeployPath(s, a.power as string, a.origin as string, a.destination as string, params.noPasses, params.noBlocked, noSeas);
  });
  return eng;
}

/** One engine per action; `check` runs the one for the action and collects the events. */
export function createJre(): { check(state: State, action: Act): Promise<JreVerdict>; ruleCount: number } {
  const engines: Record<string, Engine> = { declare_war: engine(DECLARE_WAR), pass: engine(PASS), spring_deploy: engine(SPRING_DEPLOY) };
  return {
    ruleCount: DECLARE_WAR.length + PASS.length + SPRING_DEPLOY.length,
    async check(state, action) {
      const { events } = await engines[action.action as string]!.run({ state, action });
      const violations: string[] = [];
      const obliged: string[] = [];
      for (const ev of events) (ev.params?.kind === "obliged" ? obliged : violations).push(ev.type);
      return { allowed: violations.length === 0, violations, obliged };
    },
  };
}
