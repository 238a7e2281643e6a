/**
 * Exact routes for queries whose models must replay through the generated validators (the
 * edition diff): `reachable(route(args), from, to)` by lazy refinement against the validator's
 * breadth-first search.
 *
 * The proof obligations of `index.ts` keep routes uninterpreted (`encode/encoder.ts`). This encoder
 * extends that `Encoder` and replaces only the `reach` case: each route call instance (a route,
 * its argument terms, its `from` and `to` terms) becomes a fresh Bool `reach!<n>.<route>`, free at
 * first. `refine(model, …)` then runs the search of the generated validator (codegen
 * `routeFunction`) on the model's state — nodes (space, sea zones used k), steps
 * - land → land over `normal` connections (and `pass` ones when `passes` holds): `land` at the target;
 * - land → sea over `port` connections: `port` at the land space, `sea` at the zone, k < max_seas;
 * - sea → sea over `sea` connections: `sea` at the target, k < max_seas;
 * - sea → land over `port` connections: `land` and `port` at the land space;
 * - start (from, 0) when `from` is land satisfying `land`, (from, 1) when it is a sea zone
 *   satisfying `sea` and max_seas ≥ 1 —
 * with every clause encoded at a concrete space (`state.spaces[paris].…` are direct leaves).
 * Where the model's Bool disagrees with the search it returns a lemma, valid in every state:
 * - the model says "no path" but the search finds one: a **path lemma**
 *   `from = s₀ ∧ to = t ∧ start(s₀) ∧ ⋀ step conditions of the path ⇒ reach`;
 * - the model says "path" but the search's reachable set R misses `to`: a **cut lemma**
 *   `from = s₀ ∧ to ∉ spaces(R) ∧ ⋀_{m ∈ R, m → n ∉ R} ¬step(m, n) ⇒ ¬reach` (with those exits
 *   closed, nothing outside R is reachable), or `from = s₀ ∧ ¬start(s₀) ⇒ ¬reach`.
 * - with either, a **tree lemma**: `from = s₀ ∧ to ∈ spaces(R) ∧ start ∧ ⋀ conditions of the search
 *   tree's steps ⇒ reach` (the solver may then move `to` within R without another round).
 * A model for which `refine` returns no lemma is exact: every route Bool equals the validator's
 * search on that state. Unsat is exact too, because every lemma holds in every state.
 *
 * (A one-shot least-fixpoint encoding — a Bool and an Int rank per node, r_n ⇔ start ∨ a ranked
 * predecessor — is exact as well, but on the 148-space Here I Stand board Z3 did not decide even
 * single-route queries in minutes; the lemmas keep the solver's formula the size of the
 * uninterpreted one.)
 *
 * Lemmas read leaves no unit touched before; `refine` adds them to the caller's leaf set (whose
 * domain facts must then be asserted), and evaluates a clause whose leaves are not yet asserted
 * at the decoder's defaults (those are the values `decode` writes for them, unless it is given a
 * seed's state: then `solveExact` decodes with it only after `refineByPaths` judged the model on
 * that same decoded state).
 */
import type { Arith, Bool, Model, Expr as ZExpr } from "z3-solver";
import type { Expr, IRRoute } from "../../ir/types.js";
import { routeGraph, type RouteGraph } from "../../ir/board.js";
import { pathParts, routeKey, upperBound, varsIn, type Node, type Search, type Term } from "./route-parts.js";
import { Encoder, EncodeError, type Env, type Sym, type Unit } from "../encode/encoder.js";
import { duringCheck } from "../run/z3.js";

type B = Bool<"main">;
type I = Arith<"main">;
type EV = ZExpr<"main">;

/** A unit plus the route call instances it uses (ids for `refine`). */
export interface ExactUnit extends Unit {
  reach: Set<number>;
}

interface Instance {
  id: number;
  route: IRRoute;
  /** the abstraction: true iff a path exists */
  b: B;
  from: Extract<Sym, { k: "e" }>;
  to: Extract<Sym, { k: "e" }>;
  land: (i: number) => Term;
  sea: (i: number) => Term;
  port: (i: number) => Term;
  passes: Term;
  /** the max_seas term (null: unlimited) */
  maxSeas: { e: I; leaves: Set<string> } | null;
  /** layers that can exist in any state: min(static bound of max_seas, number of sea zones) */
  K: number;
  /** the route's parameters bound to the call's argument terms */
  env: Env;
  /** keeps the argument terms alive so their ids stay unique */
  keep: unknown[];
}

/** What `refine` found: lemmas to assert (empty: the model is exact) and how many instances it found wrong (those it checked). */
export interface Refinement {
  lemmas: B[];
  wrong: number;
}

/** A route's path in a concrete state, as the interpreter finds it: nodes (space id, sea zones used on arriving), undefined when none (`ExactRouteEncoder.seedPaths`). */
export type RoutePathOf = (route: IRRoute, args: unknown[], from: string, to: string) => { space: string; k: number }[] | undefined;

/**
 * `Encoder` with exact routes (see the file comment). Routes are looked up in the table set by
 * `withRoutes`, so two editions with different routes of one name share an encoder and its leaves.
 */
export class ExactRouteEncoder extends Encoder {
  private routeTable = new Map<string, IRRoute>();
  private readonly instances = new Map<string, Instance>();
  private readonly byId: Instance[] = [];
  private used = new Set<number>();
  private graph?: RouteGraph;
  /** clause terms at a space, shared by instances whose arguments the clause reads agree */
  private readonly clauses = new Map<string, Term>();

  /** Runs `f` with `routes` as the routes that `reachable(…)` refers to. */
  withRoutes<T>(routes: IRRoute[], f: () => T): T {
    const save = this.routeTable;
    this.routeTable = new Map(routes.map((r) => [r.name, r]));
    try {
      return f();
    } finally {
      this.routeTable = save;
    }
  }

  /** `Encoder.unit`, also recording the route instances used. */
  override unit(f: () => B): ExactUnit {
    const save = this.used;
    this.used = new Set();
    try {
      const u = super.unit(f);
      return { ...u, reach: this.used };
    } finally {
      for (const id of this.used) save.add(id);
      this.used = save;
    }
  }

  /** Number of route call instances encoded so far. */
  get instanceCount(): number {
    return this.byId.length;
  }

  override expr(e: Expr, env: Env): Sym {
    if (e.k !== "reach") return super.expr(e, env);
    const route = this.routeTable.get(e.route);
    if (!route) throw new EncodeError(`unknown route \`${e.route}\``);
    if (route.params.length !== e.args.length) throw new EncodeError(`route \`${route.name}\` takes ${route.params.length} arguments`);
    const args = e.args.map((a) => this.expr(a, env));
    const from = this.expr(e.from, env);
    const to = this.expr(e.to, env);
    if (from.k !== "e" || to.k !== "e") throw new EncodeError("a route's ends must be spaces");
    const inst = this.instance(route, args, from, to);
    this.used.add(inst.id);
    return { k: "b", e: inst.b };
  }

  private termKey(s: Sym): string {
    if (s.k === "b" || s.k === "i" || s.k === "e") return String(s.e.id());
    throw new EncodeError("a route argument is not a scalar");
  }

  private instance(route: IRRoute, args: Sym[], from: Extract<Sym, { k: "e" }>, to: Extract<Sym, { k: "e" }>): Instance {
    const rk = routeKey(route);
    const argKeys = args.map((a) => this.termKey(a));
    const key = `${rk}|${argKeys.join(",")}|${this.termKey(from)}|${this.termKey(to)}`;
    const old = this.instances.get(key);
    if (old) return old;
    const { ctx } = this;
    const g = (this.graph ??= routeGraph(this.ir.board));
    const id = this.byId.length;
    const env: Env = new Map(route.params.map((p, i) => [p.name, args[i]]));
    /** encodes `f` as a Term, keeping the touched leaves out of the current unit */
    const term = <T extends B | I>(f: () => T): { e: T; leaves: Set<string> } => {
      let e!: T;
      const u = super.unit(() => {
        e = f();
        return ctx.Bool.val(true);
      });
      return { e, leaves: u.leaves };
    };
    const clause = (kind: string, expr: Expr, v: string) => {
      const read = varsIn(expr);
      const argKey = route.params.map((p, i) => (read.has(p.name) && p.name !== v ? argKeys[i] : "-")).join(",");
      const base = `${rk}|${kind}|${argKey}|`;
      return (i: number): Term => {
        let t = this.clauses.get(base + i);
        if (!t) {
          const c = this.terms.enumCode(this.space, g.ids[i]);
          const at: Sym = { k: "e", e: this.terms.enumVal("Space", c), base: "Space", c };
          t = term(() => this.bool(expr, new Map(env).set(v, at)));
          this.clauses.set(base + i, t);
        }
        return t;
      };
    };
    // the refinement below searches by sea zones used, not by steps: a route with `max_steps` is
    // not refined exactly (the diff reports it as not encodable rather than give a wrong path)
    if (route.maxSteps) throw new EncodeError(`route \`${route.name}\` has \`max_steps\`: the exact routes of \`diff\` do not bound a path's length`);
    let K = g.seaCount;
    let maxSeas: Instance["maxSeas"] = null;
    if (route.maxSeas) {
      const m = term(() => {
        const s = this.expr(route.maxSeas!, env);
        if (s.k !== "i") throw new EncodeError(`max_seas of route \`${route.name}\` is not an int`);
        return s.e;
      });
      maxSeas = m;
      K = Math.max(0, Math.min(K, upperBound(route.maxSeas)));
    }
    const inst: Instance = {
      id,
      route,
      b: ctx.Bool.const(`reach!${id}.${route.name}`),
      from,
      to,
      land: clause("land", route.land, route.landVar),
      sea: clause("sea", route.sea, route.seaVar),
      port: clause("port", route.port, route.portVar),
      passes: term(() => this.bool(route.passes, env)),
      maxSeas,
      K,
      env,
      keep: [...args, from, to],
    };
    this.instances.set(key, inst);
    this.byId.push(inst);
    return inst;
  }

  /**
   * Checks the route Bools of the given instances against the validator's search on the model's
   * state and returns a lemma for each that disagrees — none when correcting them all would change
   * none of the `observed` formulas (if given). The instances the model claims true are checked
   * first; when one of them is wrong, their lemmas are returned at once (the rest, whose searches
   * cost most, wait for a later round): no lemma is returned only after every instance was checked. `asserted` is the set of leaves the
   * solver constrains (decoded from the model); leaves outside it are read at their defaults, and
   * the leaves of the returned lemmas are added to it (their domain facts must be asserted too).
   */
  refine(model: Model<"main">, ids: Iterable<number>, asserted: Set<string>, observed?: B[]): Refinement {
    const { ctx } = this;
    const g = this.graph;
    const lemmas: B[] = [];
    let wrong = 0;
    const corrections: [B, B][] = [];
    if (!g) return { lemmas, wrong };
    const evalB = this.evaluator(model, asserted);
    // the instances the model claims true first: a wrong one among them is answered at once, before
    // the searches of the (many) instances claimed false (has_loc: one per fortified space), which
    // a later round checks; only a round that checked every instance may call the model exact
    const sorted = [...ids].sort((a, b) => a - b);
    const claims = new Map(sorted.map((id) => [id, ctx.isTrue(model.eval(this.byId[id].b, true))]));
    for (const id of [...sorted.filter((i) => claims.get(i)), ...sorted.filter((i) => !claims.get(i))]) {
      const inst = this.byId[id];
      const claimed = claims.get(id)!;
      if (!claimed && lemmas.length) return { lemmas, wrong };
      const sr = this.searchIn(inst, model, evalB, asserted);
      const { s0, t, order, parent, key, startOk, startTerms, stepTerms, succ } = sr;
      const actual = sr.found !== undefined;
      if (actual === claimed) continue;
      wrong++;
      corrections.push([inst.b, ctx.Bool.val(actual)]);
      const fromIs = this.spaceIs(inst.from, s0);
      const parts: (Term | null)[] = [];
      let lemma: B;
      if (actual) {
        // path lemma
        parts.push(...pathParts(sr));
        const hyp = this.terms.and([fromIs, this.spaceIs(inst.to, t), ...parts.filter((p): p is Term => p !== null).map((p) => p.e)]);
        lemma = ctx.Implies(hyp, inst.b);
      } else if (!startOk) {
        const hyp = this.terms.and([fromIs, this.terms.not(this.terms.and(startTerms.filter((p): p is Term => p !== null).map((p) => p.e)))]);
        parts.push(...startTerms);
        lemma = ctx.Implies(hyp, this.terms.not(inst.b));
      } else {
        // cut lemma: every exit of the reached set is closed
        const inR = new Set(order.map(key));
        const closed: B[] = [];
        for (const m of order)
          for (const n of succ(m)) {
            if (inR.has(key(n))) continue;
            const ts = stepTerms(m, n);
            parts.push(...ts);
            closed.push(this.terms.not(this.terms.and(ts.filter((p): p is Term => p !== null).map((p) => p.e))));
          }
        const spaces = [...new Set(order.map((n) => n.i))].sort((x, y) => x - y);
        const toOutside = this.terms.and(spaces.map((i) => this.terms.not(this.spaceIs(inst.to, i))));
        lemma = ctx.Implies(this.terms.and([fromIs, toOutside, ...closed]), this.terms.not(inst.b));
      }
      // tree lemma: under the conditions of the search tree, every space it reached is reachable —
      // so the solver may move `to` to a reachable space without another round
      if (order.length > 1) {
        const tree: (Term | null)[] = [...startTerms];
        for (const n of order.slice(1)) tree.push(...stepTerms(parent.get(key(n))!, n));
        const spaces = [...new Set(order.map((n) => n.i))].sort((x, y) => x - y);
        const toInside = this.terms.or(spaces.map((i) => this.spaceIs(inst.to, i)));
        lemmas.push(ctx.Implies(this.terms.and([fromIs, toInside, ...tree.filter((p): p is Term => p !== null).map((p) => p.e)]), inst.b));
        parts.push(...tree);
      }
      for (const p of parts) if (p) for (const l of p.leaves) asserted.add(l);
      if (process.env.RW_VERIFY_DEBUG) process.stderr.write(`    route ${inst.route.name}#${id}: model says ${claimed}, search ${actual} (${actual ? "path" : startOk ? `cut of ${order.length} nodes` : "no start"}; from ${g.ids[s0]} to ${g.ids[t]}; ${parts.length} conditions)\n`);
      lemmas.push(lemma);
    }
    // wrong route Bools that change none of the observed formulas (e.g. routes of rules an
    // exemption lifts) need no lemma: the model is exact for what is asked
    if (observed && lemmas.length && this.unchanged(model, observed, corrections)) return { lemmas: [], wrong };
    return { lemmas, wrong };
  }

  /**
   * The routes of the given instances fixed to the paths of one state (a corpus case near which a
   * mutant is searched, `variants.ts`): for an instance whose route holds in that state, `b ⇔
   * (from = s₀ ∧ to = t ∧ start ∧ ⋀ step conditions of its path)`; for one whose route does not,
   * `¬b`. The instances' arguments and ends are read from `model` (a model of that state), the
   * paths from `pathOf` (the interpreter's search on the state). This is an under-approximation,
   * not a lemma: a state it allows has exactly these routes only while no other path opens, which
   * `refine` (path lemmas, small) and the caller's replay settle; an unsat answer under it says
   * nothing. What it saves is the cut and tree lemmas of hundreds of leaves that a free route
   * needs near a state whose routes stay.
   * @returns the constraints and the leaves they read
   */
  seedPaths(model: Model<"main">, ids: Iterable<number>, pathOf: RoutePathOf): { constraints: B[]; leaves: Set<string> } {
    const constraints: B[] = [];
    const leaves = new Set<string>();
    for (const id of [...ids].sort((a, b) => a - b)) {
      const inst = this.byId[id];
      const nodes = this.pathNodes(model, inst, pathOf);
      if (!nodes) {
        constraints.push(this.terms.not(inst.b));
        continue;
      }
      const path = this.pathHyp(inst, nodes);
      for (const l of path.leaves) leaves.add(l);
      constraints.push(inst.b.eq(path.hyp) as B);
    }
    return { constraints, leaves };
  }

  /**
   * `refine` with the paths of the model's decoded state given (`pathOf`, the interpreter's
   * search on it) instead of searched clause by clause: a path lemma for each instance the model
   * claims false that has a path. Undefined when the model claims a route that has no path (that
   * needs a cut lemma: the caller runs `refine`). Same contract as `refine` otherwise.
   */
  refineByPaths(model: Model<"main">, ids: Iterable<number>, asserted: Set<string>, observed: B[], pathOf: RoutePathOf): Refinement | undefined {
    const { ctx } = this;
    const lemmas: B[] = [];
    const corrections: [B, B][] = [];
    const read = new Set<string>();
    for (const id of [...ids].sort((a, b) => a - b)) {
      const inst = this.byId[id];
      const claimed = ctx.isTrue(model.eval(inst.b, true));
      const nodes = this.pathNodes(model, inst, pathOf);
      if (!!nodes === claimed) continue;
      if (!nodes) {
        if (process.env.RW_VERIFY_DEBUG) process.stderr.write(`    route ${this.describeInstance(id)}: claimed, no path in the decoded state\n`);
        return undefined;
      }
      corrections.push([inst.b, ctx.Bool.val(true)]);
      const path = this.pathHyp(inst, nodes);
      for (const l of path.leaves) read.add(l);
      lemmas.push(ctx.Implies(path.hyp, inst.b));
    }
    if (lemmas.length && this.unchanged(model, observed, corrections)) return { lemmas: [], wrong: lemmas.length };
    // the lemmas' leaves join the solver's only with the lemmas (not on a fallback to `refine`, nor when none is needed)
    for (const l of read) asserted.add(l);
    return { lemmas, wrong: lemmas.length };
  }

  /** The path `pathOf` gives for an instance at the model's arguments and ends, as nodes; undefined when there is none. */
  private pathNodes(model: Model<"main">, inst: Instance, pathOf: RoutePathOf): Node[] | undefined {
    const g = (this.graph ??= routeGraph(this.ir.board));
    const value = (v: Sym | undefined): unknown => {
      if (!v) return undefined;
      if (v.k === "e") {
        const code = v.c ?? this.terms.enumIndexOf(v.base, model.eval(v.e, true));
        return code === undefined ? undefined : this.terms.baseMembers({ k: "enum", name: v.base, base: v.base, members: [] })[code];
      }
      if (v.k === "i") return v.c ?? Number((model.eval(v.e, true) as unknown as { value(): bigint }).value());
      if (v.k === "b") return v.c ?? this.ctx.isTrue(model.eval(v.e, true));
      return undefined;
    };
    const from = value(inst.from);
    const to = value(inst.to);
    const path = typeof from === "string" && typeof to === "string" ? pathOf(inst.route, inst.route.params.map((p) => value(inst.env.get(p.name))), from, to) : undefined;
    if (!path) return undefined;
    const nodes: Node[] = path.map((n) => ({ i: g.ids.indexOf(n.space), k: n.k }));
    if (nodes.some((n) => n.i < 0)) throw new EncodeError(`route \`${inst.route.name}\`: a path through a space not on the board`);
    return nodes;
  }

  /** A path of an instance as the hypothesis of its path lemma (`from = s₀ ∧ to = t ∧ start ∧ steps`), with the leaves it reads. */
  private pathHyp(inst: Instance, nodes: Node[]): { hyp: B; leaves: Set<string> } {
    const parts: (Term | null)[] = [...this.startTerms(inst, nodes[0].i)];
    for (let h = 1; h < nodes.length; h++) parts.push(...this.stepTerms(inst, nodes[h - 1], nodes[h]));
    const terms = parts.filter((p): p is Term => p !== null);
    const leaves = new Set(terms.flatMap((p) => [...p.leaves]));
    return { hyp: this.terms.and([this.spaceIs(inst.from, nodes[0].i), this.spaceIs(inst.to, nodes[nodes.length - 1].i), ...terms.map((p) => p.e)]), leaves };
  }

  /** Whether correcting the route Bools (`corrections`) changes none of the `observed` formulas' values in the model. */
  private unchanged(model: Model<"main">, observed: B[], corrections: [B, B][]): boolean {
    const { ctx } = this;
    return observed.every((f) => ctx.isTrue(model.eval(f.eq(ctx.substitute(f, ...corrections) as B) as B, true)));
  }

  /** `max_seas > k` of an instance as a term (null: unlimited). */
  private below(inst: Instance, k: number): Term | null {
    return inst.maxSeas ? { e: inst.maxSeas.e.gt(k), leaves: inst.maxSeas.leaves } : null;
  }

  /** The conditions of starting a path of `inst` at board space `s0` (null = always). */
  private startTerms(inst: Instance, s0: number): (Term | null)[] {
    return this.graph!.isSea[s0] ? [this.below(inst, 0), inst.sea(s0)] : [inst.land(s0)];
  }

  /** The conditions of the step m → n of a path of `inst` (null = always). */
  private stepTerms(inst: Instance, m: Node, n: Node): (Term | null)[] {
    const g = this.graph!;
    if (!g.isSea[m.i] && !g.isSea[n.i]) {
      const viaPass = g.pass[m.i].includes(n.i) && !g.land[m.i].includes(n.i);
      return viaPass ? [inst.passes, inst.land(n.i)] : [inst.land(n.i)];
    }
    if (!g.isSea[m.i]) return [this.below(inst, m.k), inst.port(m.i), inst.sea(n.i)];
    if (!g.isSea[n.i]) return [inst.land(n.i), inst.port(n.i)];
    return [this.below(inst, m.k), inst.sea(n.i)];
  }

  /** A clause evaluator on the model's state: each clause term evaluated once per model (a search asks for the same space's clause from every neighbour, and instances share their clause terms). */
  private evaluator(model: Model<"main">, asserted: Set<string>): (t: Term) => boolean {
    const evaluated = new Map<B, boolean>();
    return (t) => {
      let v = evaluated.get(t.e);
      if (v === undefined) evaluated.set(t.e, (v = this.ctx.isTrue(model.eval(this.atDefaults(t.e, t.leaves, asserted), true))));
      return v;
    };
  }

  /** The validator's breadth-first search of one instance on the model's state (file comment), with the terms of its steps. */
  private searchIn(inst: Instance, model: Model<"main">, evalB: (t: Term) => boolean, asserted: Set<string>): Search {
    const g = this.graph!;
    const evalSpace = (s: Extract<Sym, { k: "e" }>): number => {
      if (s.c !== undefined) return g.ids.indexOf(this.terms.baseMembers(this.space)[s.c]);
      const code = this.terms.enumIndexOf("Space", model.eval(s.e, true));
      if (code === undefined) throw new EncodeError("no space in the model");
      return g.ids.indexOf(this.terms.baseMembers(this.space)[code]);
    };
    const s0 = evalSpace(inst.from);
    const t = evalSpace(inst.to);
    // concrete max_seas (capped like the validator) and passes
    let maxSeas = g.seaCount;
    if (inst.maxSeas) {
      const v = model.eval(this.atDefaults(inst.maxSeas.e, inst.maxSeas.leaves, asserted) as never, true) as unknown as I;
      maxSeas = Math.min(g.seaCount, Number((v as unknown as { value(): bigint }).value()));
    }
    const passes = evalB(inst.passes);
    // the step conditions as terms, and concretely
    const stepTerms = (m: Node, n: Node): (Term | null)[] => this.stepTerms(inst, m, n);
    const succ = (m: Node): Node[] => {
      const out: Node[] = [];
      if (!g.isSea[m.i]) {
        for (const j of g.land[m.i]) out.push({ i: j, k: m.k });
        for (const j of g.pass[m.i]) if (!g.land[m.i].includes(j)) out.push({ i: j, k: m.k });
        if (m.k + 1 <= inst.K) for (const j of g.port[m.i]) out.push({ i: j, k: m.k + 1 });
      } else {
        for (const j of g.port[m.i]) out.push({ i: j, k: m.k });
        if (m.k + 1 <= inst.K) for (const j of g.sea[m.i]) out.push({ i: j, k: m.k + 1 });
      }
      return out;
    };
    const stepOk = (m: Node, n: Node): boolean => {
      if (!g.isSea[m.i] && !g.isSea[n.i]) {
        const viaLand = g.land[m.i].includes(n.i);
        return (viaLand || passes) && evalB(inst.land(n.i));
      }
      if (!g.isSea[m.i]) return m.k < maxSeas && evalB(inst.port(m.i)) && evalB(inst.sea(n.i));
      if (!g.isSea[n.i]) return evalB(inst.land(n.i)) && evalB(inst.port(n.i));
      return m.k < maxSeas && evalB(inst.sea(n.i));
    };
    const startTerms = this.startTerms(inst, s0);
    const startOk = g.isSea[s0] ? maxSeas >= 1 && evalB(inst.sea(s0)) : evalB(inst.land(s0));
    // breadth-first search over nodes, with parents for the path
    const key = (n: Node) => n.k * g.ids.length + n.i;
    const parent = new Map<number, Node | null>();
    const order: Node[] = [];
    let found: Node | undefined;
    if (startOk) {
      const st: Node = { i: s0, k: g.isSea[s0] ? 1 : 0 };
      parent.set(key(st), null);
      order.push(st);
      for (let h = 0; h < order.length; h++) {
        const m = order[h];
        if (m.i === t && !found) found = m;
        for (const n of succ(m)) {
          if (parent.has(key(n)) || !stepOk(m, n)) continue;
          parent.set(key(n), m);
          order.push(n);
        }
      }
    }
    return { s0, t, found, parent, order, key, startOk, startTerms, stepTerms, succ };
  }

  /**
   * Whether every path of route call instance `a` is a path of instance `b` in every state
   * (then `subsumption(a, b)` is a lemma). Reachability is monotone in the steps, so it suffices
   * that at a symbolic space `s`, `a`'s land, sea and port clauses each imply `b`'s, that `a`
   * crosses mountain passes only when `b` does, and that `a`'s max_seas is at most `b`'s. The
   * implications are decided syntactically on Z3-simplified terms (true, false, or every conjunct
   * of the consequent among the antecedent's), which is sound and fast, and incomplete: a
   * subsumption it misses only costs the solver refinement rounds. (A solver check of the same
   * gap took minutes on Here I Stand: a symbolic space over 148 datatype constructors.)
   */
  async subsumes(a: number, b: number): Promise<boolean> {
    const { ctx } = this;
    const [x, y] = [this.byId[a], this.byId[b]];
    const s: Sym = { k: "e", e: ctx.Const(`subsumes!${a}.${b}`, this.terms.enumSort("Space")) as EV, base: "Space" };
    const at = (i: Instance, clause: Expr, v: string): B => {
      let e!: B;
      super.unit(() => (e = this.bool(clause, new Map(i.env).set(v, s))));
      return e;
    };
    const implies = async (p: B, q: B): Promise<boolean> => {
      if (p.eqIdentity(q)) return true;
      // simplify runs on Z3's worker thread like a check: frees are deferred meanwhile (z3.ts)
      const sp = (await duringCheck(() => ctx.simplify(p))) as B;
      const sq = (await duringCheck(() => ctx.simplify(q))) as B;
      if (ctx.isTrue(sq) || ctx.isFalse(sp)) return true;
      const conj = (e: B): B[] => (ctx.isAnd(e) ? e.children().flatMap((c) => conj(c as B)) : [e]);
      const have = new Set(conj(sp).map((e) => e.id()));
      return conj(sq).every((e) => have.has(e.id()));
    };
    const clauses = ["land", "sea", "port"] as const;
    const vars = { land: "landVar", sea: "seaVar", port: "portVar" } as const;
    for (const c of clauses) if (!(await implies(at(x, x.route[c], x.route[vars[c]]), at(y, y.route[c], y.route[vars[c]])))) return false;
    if (!(await implies(x.passes.e, y.passes.e))) return false;
    if (!y.maxSeas || (x.maxSeas && x.maxSeas.e.eqIdentity(y.maxSeas.e))) return true;
    if (!x.maxSeas) return false;
    const le = x.maxSeas.e.le(y.maxSeas.e);
    return ctx.isTrue(await duringCheck(() => ctx.simplify(le)));
  }

  /** The ends of a route call instance, as a key: instances with equal keys start and end at the same terms. */
  endsKey(id: number): string {
    const x = this.byId[id];
    return `${x.from.e.id()}>${x.to.e.id()}`;
  }

  /** A route call instance as text, for debugging: `route(args) from → to`. */
  describeInstance(id: number): string {
    const x = this.byId[id];
    const show = (v: Sym | undefined) => (v && "e" in v ? String(v.e) : "?");
    return `${x.route.name}(${x.route.params.map((p) => show(x.env.get(p.name))).join(", ")}) ${show(x.from)} → ${show(x.to)}`;
  }

  /** `from_a = from_b ∧ to_a = to_b ⇒ (reach_a ⇒ reach_b)`: valid in every state when `subsumes(a, b)`. */
  subsumption(a: number, b: number): B {
    const [x, y] = [this.byId[a], this.byId[b]];
    const same = (p: Extract<Sym, { k: "e" }>, q: Extract<Sym, { k: "e" }>): B => (p.e.eqIdentity(q.e) ? this.ctx.Bool.val(true) : (p.e.eq(q.e) as B));
    return this.ctx.Implies(this.terms.and([same(x.from, y.from), same(x.to, y.to)]), this.ctx.Implies(x.b, y.b));
  }

  /** `sym = <space i>` */
  private spaceIs(s: Extract<Sym, { k: "e" }>, i: number): B {
    const c = this.terms.enumCode(this.space, this.graph!.ids[i]);
    if (s.c !== undefined) return this.ctx.Bool.val(s.c === c);
    return s.e.eq(this.terms.enumVal("Space", c)) as B;
  }

  /** `e` with the leaves that the solver does not constrain replaced by their defaults. */
  private atDefaults<T extends B | I>(e: T, leaves: Set<string>, asserted: Set<string>): T {
    const subs: [EV, EV][] = [];
    for (const l of leaves) {
      if (asserted.has(l)) continue;
      const leaf = this.terms.leaves.get(l);
      const d = leaf && this.terms.defaultOf(leaf);
      if (leaf && d) subs.push([leaf.e as EV, d as EV]);
    }
    return subs.length ? (this.ctx.substitute(e, ...subs) as T) : e;
  }
}
