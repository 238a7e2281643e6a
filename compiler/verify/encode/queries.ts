/**
 * The query of each analysis: which parts are asserted (tracked, so unsat cores name them), what
 * a satisfiable query means (a counterexample refutes, a witness proves), and when an unsat
 * verdict is vacuous. README.md "Analyses" states every query in logic; keep the two in step.
 */
import type { Bool, Expr as ZExpr, Model } from "z3-solver";
import type { EnumType, Expr, IRAction, IRRule, Type } from "../../ir/types.js";
import { EncodeError, type Env, type Sym, type Unit } from "./encoder.js";
import { declineMove, liftsOf, phaseMoves, type Obligation } from "../../ir/obligations.js";
import { bindEquals } from "../../ir/derived.js";
import type { QueryParts } from "./parts.js";
import type { Example, StuckInfo, Tracked } from "../run/results.js";
import { leafJson } from "../run/canon.js";
import { children, routesIn } from "../../ir/walk.js";

type B = Bool<"main">;

export interface Query {
  /** tracked parts (`inv:…`, `rule:…`, `exempt:…`): the names an unsat core is made of */
  parts: Tracked[];
  /** further units whose leaves belong to the query (the action's parameters) */
  units: Unit[];
  /** untracked assertions */
  facts?: B[];
  /** leaves bound by a quantifier (no domain facts, not decoded, not canonicalized) */
  bound?: Set<string>;
  /** the action of the decoded example */
  exampleAction: IRAction;
  /** what a satisfiable query means */
  satMeans: "refuted" | "proved";
  /** on unsat: refuted only when the core names one of these ids; otherwise proved and vacuous */
  vacuousUnless?: string[];
  vacuousReason?: string;
  adjustExample?: (ex: Example, model: Model<"main">) => void;
  /** stuck_power: what blocks each move in the counterexample (and whether it replays without routes) */
  stuckInfo?: (model: Model<"main">, ex: Example) => StuckInfo;
  /**
   * The `goal:` part split into parts of its own (stuck_power: the phase, and `move:<action>`
   * per move): on unsat they name the core (solve.ts asks once more with them tracked apart),
   * while the search itself runs on the one goal part (faster on a satisfiable query).
   */
  coreParts?: Tracked[];
}

/** The query of an obligation. Throws (EncodeError, Error) on constructs the prover cannot encode. */
export function queryFor(p: QueryParts, ob: Obligation): Query {
  const parts = new Map<string, Tracked>();
  for (const t of p.inv()) parts.set(t.name, t);
  const own = (action: string) => ({ units: [p.envOf(action).params], exampleAction: p.action(action) });
  switch (ob.kind) {
    case "contradiction": {
      // inv ∧ fires(O) ∧ fires(F): sat = a state that obliges and forbids the action
      for (const id of ob.rules) p.firesParts(p.rule(id), parts);
      // an obligation with parameters: the move is the one it names (a `goal:` part: asserted,
      // canonicalized with the rest, left out of unsat cores)
      const o = p.rule(ob.rules[0]);
      if (o.bind) parts.set("goal:obliged_move", { name: "goal:obliged_move", unit: p.boundMatch(o) });
      return { parts: [...parts.values()], ...own(ob.action), satMeans: "refuted" };
    }
    case "obligation_clash": {
      // inv ∧ fires(O1) ∧ fires(O2) with O2 read for O1's actor: sat = one power obliged to do both
      const [o1, o2] = ob.rules.map((id) => p.rule(id));
      addParts(parts, p, o1, o1.action);
      addParts(parts, p, o2, o1.action);
      // two obligations with parameters of one action: they name different moves
      if (o1.action === o2.action) {
        const BOOL: Type = { k: "bool" };
        const values2 = new Map(o2.bind!.map((b) => [b.param, b.value]));
        const ne: Expr[] = o1.bind!.map((b) => ({ k: "cmp", op: "!=", left: b.value, right: values2.get(b.param)!, type: BOOL }));
        const differ = p.enc.unit(() => p.enc.bool(ne.length === 1 ? ne[0]! : { k: "or", args: ne, type: BOOL }, p.envOf(o1.action).env));
        parts.set("goal:values_differ", { name: "goal:values_differ", unit: differ });
      }
      return { parts: [...parts.values()], ...own(o1.action), satMeans: "refuted" };
    }
    case "dead_rule": {
      // inv ∧ fires(R): sat = a state where R fires (witness)
      p.firesParts(p.rule(ob.rules[0]), parts);
      return { parts: [...parts.values()], ...own(ob.action), satMeans: "proved" };
    }
    case "always_forbidden": {
      // inv ∧ ⋀ ¬fires(R): sat = an allowed move (witness)
      for (const id of ob.rules) {
        const r = p.rule(id);
        parts.set(`rule:${r.id}`, { name: `rule:${r.id}`, unit: p.blocks(r, ob.action), negate: true });
      }
      return { parts: [...parts.values()], ...own(ob.action), satMeans: "proved" };
    }
    case "table_gap":
    case "table_overlap":
      // solved by tables.ts (Prover.solve dispatches them before asking for a query)
      throw new Error(`\`${ob.id}\`: a table obligation has no rule query (see tables.ts)`);
    case "redundant_rule": {
      // inv ∧ fires(R) ∧ ⋀_{C ≠ R} ¬fires(C): sat = a state only R forbids (obliges): R is needed
      const [rid, ...coverers] = ob.rules;
      const r = p.rule(rid);
      p.firesParts(r, parts);
      for (const id of coverers) {
        const c = p.rule(id);
        parts.set(`rule:${c.id}`, { name: `rule:${c.id}`, unit: p.blocks(c, r.action), negate: true });
      }
      return {
        parts: [...parts.values()],
        ...own(ob.action),
        satMeans: "proved",
        vacuousUnless: coverers,
        vacuousReason: `vacuous: \`${rid}\` never fires, so no other rule is needed to cover it (see dead_rule)`,
      };
    }
    case "swallowing_exemption": {
      // inv ∧ scope∧when(R) ∧ ¬E: sat = R applies and E does not lift it
      const r = p.rule(ob.rules[0]);
      const e = ob.exemptions![0];
      parts.set(`rule:${r.id}`, { name: `rule:${r.id}`, unit: p.ruleCore(r, r.action) });
      parts.set(`exempt:${e}`, { name: `exempt:${e}`, unit: p.exemptHolds(e, r, r.action), negate: true });
      return {
        parts: [...parts.values()],
        ...own(ob.action),
        satMeans: "proved",
        vacuousUnless: [e],
        vacuousReason: `vacuous: \`${r.id}\` never applies even without exemptions (see dead_rule)`,
      };
    }
    case "stuck_power":
      return stuckQuery(p, ob, [...parts.values()]);
  }
}

/** firesParts for a rule read in another action's context; parts of the same name are conjoined. */
function addParts(parts: Map<string, Tracked>, p: QueryParts, r: IRRule, ctxAction: string) {
  const mine = new Map<string, Tracked>();
  p.firesParts(r, mine, ctxAction);
  for (const [k, t] of mine) {
    const old = parts.get(k);
    if (!old) parts.set(k, t);
    else {
      // two readings of one exemption (both negated): ¬a ∧ ¬b = ¬(a ∨ b)
      const e = p.enc.terms.or([old.unit.e, t.unit.e]);
      parts.set(k, { name: k, negate: true, unit: { e, leaves: new Set([...old.unit.leaves, ...t.unit.leaves]), routes: new Set([...old.unit.routes, ...t.unit.routes]) } });
    }
  }
}

/** Up to this many parameter choices an action's parameters are enumerated; past it, quantified. */
const MAX_ENUMERATED = 64;

/**
 * stuck_power(P): a state with phase P (under the invariants) where the active power may not
 * decline and every move of the phase (`phaseMoves`: an action with an actor and a rule scoped
 * to P, and P's decline move) is forbidden to it for every choice of its other parameters. "May
 * not decline": when the edition declares P's decline move (`decline pass during action_phase`),
 * declining is that action and its being forbidden is part of "every action is forbidden";
 * otherwise (no declaration: warning RW2023) declining is taken as possible unless an obligation
 * binds the power. Parameters are enumerated when
 * they are few enum/bool choices, else universally quantified (Z3 `forall`).
 */
function stuckQuery(p: QueryParts, ob: Obligation, invParts: Tracked[]): Query {
  const { ir, enc, ctx } = p;
  const phase = ob.phase!;
  const withActor = phaseMoves(ir, phase);
  if (!withActor.length) throw new EncodeError(`no action with an actor has a rule scoped to phase \`${phase}\``);
  const phaseField = ir.state.fields.find((f) => f.name === "phase");
  if (!phaseField || phaseField.type.k !== "enum") throw new EncodeError("stuck_power needs an enum field `state.phase`");
  const actorParam = (a: IRAction) => a.params.find((x) => x.actor)!;
  const actorType = actorParam(withActor[0]).type as EnumType;
  const apField = ir.state.fields.find((f) => f.name === "active_power" && f.type.k === "enum" && f.type.base === actorType.base);
  const decline = declineMove(ir, phase) ?? null;
  const actorActions = new Set(ir.actions.filter((a) => a.params.some((x) => x.actor)).map((a) => a.name));
  const obliges = ir.rules.filter((r) => r.kind === "oblige" && actorActions.has(r.action));
  const exampleAction = p.action(decline ?? obliges[0]?.action ?? withActor[0].name);

  const stateE: Expr = { k: "state", type: ir.state };
  const BOOL: Type = { k: "bool" };
  const records: { action: string; rule: string; e: B; oblige: boolean }[] = [];
  const everyChoice = new Set<string>();
  let actorSym!: Sym;

  const firesIn = (r: IRRule, env: Env): B => enc.terms.and([enc.ruleCore(r, env), ...liftsOf(ir, r).map((e) => enc.terms.not(enc.bool(e.when, env)))]);
  /** the acting power: state.active_power, or the actor parameter of the example action (touched in every part) */
  const actorOf = (): Sym =>
    apField
      ? enc.expr({ k: "field", obj: stateE, field: "active_power", type: apField.type }, new Map())
      : enc.actionEnv(exampleAction).get(actorParam(exampleAction).name)!;
  /** an oblige rule read for the actor */
  const obligeFires = (o: IRRule): B => firesIn(o, new Map([[actorParam(p.action(o.action)).name, actorSym]]));
  // the phase, and (no decline move) an obligation binding the power
  const goal = enc.unit(() => {
    const conj: B[] = [];
    conj.push(enc.bool({ k: "cmp", op: "=", left: { k: "field", obj: stateE, field: "phase", type: phaseField.type }, right: { k: "lit", value: phase, type: phaseField.type }, type: BOOL }, new Map()));
    actorSym = actorOf();
    if (!decline) {
      const bind = obliges.map((o) => {
        const e = obligeFires(o);
        records.push({ action: o.action, rule: o.id, e, oblige: true });
        return e;
      });
      conj.push(enc.terms.or(bind)); // an obligation binds the power: declining is not possible
    }
    return enc.terms.and(conj);
  });
  // one part per move: it is forbidden for every choice of its other parameters. Tracked apart
  // when a proof's core is named, so that it names the moves that are never all forbidden together
  // (obligations/core.ts coreObligation: an edit of another move's rules leaves the proof standing)
  const moveParts: Tracked[] = withActor.map((a) => ({
    name: `move:${a.name}`,
    unit: enc.unit(() => {
      actorOf();
      const others = a.params.filter((x) => !x.actor);
      const forbids = ir.rules.filter((r) => r.action === a.name && r.kind === "forbid");
      const otherObliges = obliges.filter((o) => o.action !== a.name);
      // an obligation with parameters of this action forbids its moves with other values
      const ownBound = obliges.filter((o) => o.action === a.name && o.bind);
      const forbiddenIn = (env: Env, record: boolean): B => {
        const blocks = [...forbids.map((r) => [r, firesIn(r, env)] as const), ...otherObliges.map((o) => [o, obligeFires(o)] as const),
          ...ownBound.map((o) => [o, enc.terms.and([obligeFires(o), enc.terms.not(enc.bool(bindEquals(o, a), env))])] as const)];
        if (record) for (const [r, e] of blocks) records.push({ action: a.name, rule: r.id, e, oblige: false });
        return enc.terms.or(blocks.map(([, e]) => e));
      };
      const choices = enumerate(enc, others);
      const base = new Map<string, Sym>([[actorParam(a).name, actorSym]]);
      if (choices) {
        if (choices.length > 1) everyChoice.add(a.name);
        return enc.terms.and(choices.map((c) => forbiddenIn(enc.actionEnvWith(a, `stuck.${a.name}`, new Map([...base, ...c])), true)));
      }
      everyChoice.add(a.name);
      let envQ!: Env;
      const envU = enc.unit(() => {
        envQ = enc.actionEnvWith(a, `stuck.${a.name}`, base);
        return ctx.Bool.val(true);
      });
      const inner = enc.unit(() => forbiddenIn(envQ, false));
      // the scalar parameters (leaves of the env) and the slots of list parameters the rules read
      const boundNames = [...new Set([...envU.leaves, ...inner.leaves])].filter((l) => l.startsWith(`stuck.${a.name}.`)).sort();
      const consts = boundNames.map((n) => enc.terms.leaves.get(n)!.e as ZExpr<"main">);
      const dom = enc.terms.and(boundNames.flatMap((n) => enc.terms.leaves.get(n)!.facts));
      enc.terms.absorb(inner);
      // rules that forbid whatever the parameters (they mention none): recorded for the explanation
      const names = new Set(others.map((x) => x.name));
      for (const r of forbids) {
        if (readsAny([r.when, ...liftsOf(ir, r).map((e) => e.when)], names)) continue;
        records.push({ action: a.name, rule: r.id, e: firesIn(r, envQ), oblige: false });
      }
      for (const o of otherObliges) records.push({ action: a.name, rule: o.id, e: obligeFires(o), oblige: false });
      return consts.length ? (ctx.ForAll(consts as never, ctx.Implies(dom, inner.e)) as unknown as B) : inner.e;
    }),
  }));
  const bound = new Set(moveParts.flatMap((m) => [...m.unit.leaves]).filter((l) => l.startsWith("stuck.")));
  const units = [goal, ...moveParts.map((m) => m.unit)];
  const whole = { e: enc.terms.and(units.map((u) => u.e)), leaves: new Set(units.flatMap((u) => [...u.leaves])), routes: new Set(units.flatMap((u) => [...u.routes])) };
  return {
    // tracked (not a plain assertion) so a counterexample's facts can be minimized against it;
    // `goal:` parts are left out of unsat cores
    parts: [...invParts, { name: `goal:stuck_power`, unit: whole }],
    // on unsat, the moves the proof needs (obligations/core.ts stuckCoreObligation)
    coreParts: [{ name: `goal:stuck_power`, unit: goal }, ...moveParts],
    units: [],
    bound,
    exampleAction,
    satMeans: "refuted",
    adjustExample: (ex) => {
      const actor = actorParam(exampleAction).name;
      if (apField) ex.action[actor] = ex.state.active_power;
    },
    stuckInfo: (model, ex) => {
      const holds = (e: B) => ctx.isTrue(model.eval(e, true));
      const actor = apField ? leafJson(enc, model, "state.active_power") : leafJson(enc, model, `action.${actorParam(exampleAction).name}`);
      const blocked = withActor.map((a) => ({
        action: a.name,
        rules: [...new Set(records.filter((r) => r.action === a.name && !r.oblige && holds(r.e)).map((r) => r.rule))].sort(),
        everyChoice: everyChoice.has(a.name),
      }));
      // replayable when no rule that blocks a move (or binds the power) reads a route; an action
      // quantified over its parameters with no parameter-free blocker depends on all its rules
      const routesOf = (id: string) => {
        const r = p.rule(id);
        const s = new Set<string>();
        routesIn(r.when, s);
        for (const e of liftsOf(ir, r)) routesIn(e.when, s);
        return [...s];
      };
      const deps = new Set<string>();
      for (const b of blocked) {
        const ids = b.rules.length ? b.rules : ir.rules.filter((r) => r.action === b.action).map((r) => r.id);
        for (const id of ids) for (const rt of routesOf(id)) deps.add(rt);
      }
      const obligedNow = [...new Set(records.filter((r) => r.oblige && holds(r.e)).map((r) => r.rule))].sort();
      for (const id of obligedNow) for (const rt of routesOf(id)) deps.add(rt);
      ex.replayable = deps.size === 0;
      if (deps.size) ex.reason = `depends on route ${[...deps].sort().join(", ")}`;
      else delete ex.reason;
      return {
        actor: String(actor ?? actorType.members[0]),
        decline,
        obliged: obligedNow,
        blocked,
      };
    },
  };
}

/** Whether an expression reads a variable of one of these names (syntactically; shadowing counts as reading). */
function readsAny(es: Expr[], names: Set<string>): boolean {
  const walk = (e: Expr): boolean => (e.k === "var" && names.has(e.name)) || children(e).some(walk);
  return es.some(walk);
}

/** Every choice of the parameters (enum members, booleans) when there are at most MAX_ENUMERATED; else undefined. */
function enumerate(enc: QueryParts["enc"], params: IRAction["params"]): Map<string, Sym>[] | undefined {
  let out: Map<string, Sym>[] = [new Map()];
  for (const prm of params) {
    const t = prm.type;
    const values: (boolean | string)[] | undefined = t.k === "bool" ? [false, true] : t.k === "enum" ? t.members : undefined;
    if (!values || out.length * values.length > MAX_ENUMERATED) return undefined;
    out = out.flatMap((m) => values.map((v) => new Map(m).set(prm.name, enc.constSym(t, v))));
  }
  return out;
}
