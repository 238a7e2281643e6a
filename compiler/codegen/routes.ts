/**
 * The route searches of generated/<edition>/validators.ts: per route, a breadth-first search over
 * (space, sea zones used) with memoised clause tests (`search_<route>`), and its entry point
 * (`route_<route>`) with the per-call memo of answers that lets an earlier search decide a new one
 * (monotone.ts). See README.md "Routes".
 */
import type { Expr, IRRoute } from "../ir/types.js";
import { docText } from "./escape.js";
import { dslType, fn, type Statement } from "./emit.js";
import { tsType, type Ctx, type ExprCompiler } from "./expr.js";
import { routeDirections } from "./monotone.js";
import { identPart, varName, type Names } from "./names.js";

/**
 * A route: its search (`search_<route>`) and its entry point `name` with the per-call memo of
 * answers. `epoch` is the module variable numbering the calls of exported functions; the board
 * names the search reads are added to `ec.boardUsed`.
 */
export function routeFunction(r: IRRoute, name: string, ec: ExprCompiler, names: Names, epoch: string): Statement[] {
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
 * A clause split for its memo: `atom`s compare the searched space with a route parameter (`s =
 * target`, `s != start`) and are tested inline; each `part` between them (a subexpression with no
 * such comparison in its and/or/not/implies structure) is memoized on its own, on the route
 * parameters it reads. `part` alone: no comparison, one memo for the whole clause.
 */
export type ClauseSplit =
  | { k: "and" | "or"; args: ClauseSplit[] }
  | { k: "not"; arg: ClauseSplit }
  | { k: "implies"; left: ClauseSplit; right: ClauseSplit }
  | { k: "atom"; e: Expr }
  | { k: "part"; e: Expr };

/** `v = x` or `v != x` (either order) with `v` the clause variable and `x` a route parameter. */
function isAtom(e: Expr, v: string, params: ReadonlySet<string>): boolean {
  if (e.k !== "cmp" || (e.op !== "=" && e.op !== "!=") || e.left.k !== "var" || e.right.k !== "var") return false;
  return (e.left.name === v && params.has(e.right.name)) || (e.right.name === v && params.has(e.left.name));
}

/** The split of clause `e` over variable `v` (route parameters `params`); see ClauseSplit. */
export function splitClause(e: Expr, v: string, params: ReadonlySet<string>): ClauseSplit {
  if (isAtom(e, v, params)) return { k: "atom", e };
  switch (e.k) {
    case "and":
    case "or": {
      const args = e.args.map((a) => splitClause(a, v, params));
      if (args.every((a) => a.k === "part")) return { k: "part", e };
      // adjacent parts make one part (one memo), in their order
      const merged: ClauseSplit[] = [];
      let run: Expr[] = [];
      const flush = (): void => {
        if (run.length) merged.push({ k: "part", e: run.length === 1 ? run[0]! : { k: e.k, args: run, type: e.type } });
        run = [];
      };
      for (const a of args) {
        if (a.k === "part") run.push(a.e);
        else {
          flush();
          merged.push(a);
        }
      }
      flush();
      return { k: e.k, args: merged };
    }
    case "not": {
      const arg = splitClause(e.arg, v, params);
      return arg.k === "part" ? { k: "part", e } : { k: "not", arg };
    }
    case "implies": {
      const [left, right] = [splitClause(e.left, v, params), splitClause(e.right, v, params)];
      return left.k === "part" && right.k === "part" ? { k: "part", e } : { k: "implies", left, right };
    }
    default:
      return { k: "part", e };
  }
}

const isTrue = (e: { k: string; value?: unknown }): boolean => e.k === "lit" && e.value === true;

/**
 * The memoized clause tests of one route's search: `clause(kind, e, v)` gives the test of a clause
 * over space number `i` (its helpers pushed to `extra`), `resets` the memo checks the search makes
 * first, `parts()` how many part memos (`RouteScratch.part`) the split clauses use.
 */
function clauseTests(r: IRRoute, ec: ExprCompiler, names: Names, epoch: string, ctx: Ctx, params: { name: string; type: string }[], base: string, extra: Statement[]) {
  // memoized clause tests: `<clause>Ok(i)` as an expression over space number `i`
  const resets: string[] = [];
  const routeParams = new Set(r.params.map((p) => p.name));
  let parts = 0;
  /**
   * A memoized test of `e` over space number `i`: its helper's name and the arguments it takes
   * after `sc, i`. `slot` names the memo (`sc.<slot>`, `<slot>Stamp`, `<slot>Call`, `<slot>Args`).
   */
  const memoTest = (e: Expr, v: string, slot: (f: "" | "Stamp" | "Call" | "Args") => string, fname: string, doc: string): { name: string; args: string[] } => {
    const pred = ec.predicate(e, v, "Space", ctx, fname);
    // the memo is kept across the searches of one validator call when the arguments are the same
    // scalars (a list or record argument: refilled every search)
    const scalarArgs = params.filter((p) => pred.args.includes(p.name) && p.name !== "state");
    // a slot indexed by part (`sc.part[j]`) is possibly undefined under noUncheckedIndexedAccess:
    // read through `!` (generated/ compiles under the strictest options, tsconfig.generated.json)
    const rd = (f: "" | "Stamp" | "Call" | "Args"): string => (slot(f).endsWith("]") ? `${slot(f)}!` : slot(f));
    const shareable = scalarArgs.every((p) => { const t = r.params.find((q) => varName(q.name) === p.name)?.type; return t !== undefined && (t.k === "enum" || t.k === "bool" || t.k === "int"); });
    if (shareable) {
      const same = [`${slot("Call")} === ${epoch}`, ...scalarArgs.map((p, i) => `${rd("Args")}[${i}] === ${p.name}`)].join(" && ");
      resets.push(`if (!(${same})) {`, `  ${slot("Stamp")} = newStamp(${rd("Stamp")}, ${rd("")});`, `  ${slot("Call")} = ${epoch};`, ...scalarArgs.map((p, i) => `  ${rd("Args")}[${i}] = ${p.name};`), `}`);
    } else resets.push(`${slot("Stamp")} = newStamp(${rd("Stamp")}, ${rd("")});`, `${slot("Call")} = -1;`);
    const name = names.take(`${fname}Ok`);
    const args = params.filter((p) => pred.args.includes(p.name));
    extra.push(
      fn(
        name,
        [{ name: "sc", type: "RouteScratch" }, { name: "i", type: "number" }, ...args],
        "boolean",
        [
          `const m = ${rd("")}[i]!;`,
          `if ((m & -4) === ${slot("Stamp")}) return (m & 3) === 1;`,
          `const ok = ${pred.name}(${[...pred.args, "SPACES[i]!"].join(", ")});`,
          `${rd("")}[i] = ${rd("Stamp")} | (ok ? 1 : 2);`,
          `return ok;`,
        ].join("\n"),
        { docs: [docText(doc)] },
      ),
    );
    return { name, args: args.map((p) => p.name) };
  };
  const clause = (kind: "land" | "sea" | "port", e: IRRoute["land"], v: string): ((i: string) => string) => {
    if (isTrue(e)) return () => "true";
    const split = splitClause(e, v, routeParams);
    if (split.k === "part") {
      const t = memoTest(e, v, (f) => `sc.${kind}${f}`, `${base}_${kind}`, `route ${r.name}: the \`${kind} ${v}\` clause for space number i (memoized in sc).`);
      return (i) => `${t.name}(${["sc", i, ...t.args].join(", ")})`;
    }
    // the comparisons of the space with a parameter inline, each part between them memoized alone
    const local = varName(v);
    const inner = new Map(ctx).set(v, local);
    const used = new Set<string>();
    const code = (x: ClauseSplit): string => {
      switch (x.k) {
        case "and":
        case "or":
          return `(${x.args.map(code).join(x.k === "and" ? " && " : " || ")})`;
        case "not":
          return `!${code(x.arg)}`;
        case "implies":
          return `(!${code(x.left)} || ${code(x.right)})`;
        case "atom": {
          if (x.e.k === "cmp") for (const side of [x.e.left, x.e.right]) if (side.k === "var" && routeParams.has(side.name)) used.add(varName(side.name));
          return `(${ec.expr(x.e, inner, base).code})`;
        }
        case "part": {
          const j = parts++;
          const t = memoTest(x.e, v, (f) => `sc.part${f}[${j}]`, `${base}_${kind}_part`, `route ${r.name}: a part of the \`${kind} ${v}\` clause for space number i (memoized in sc.part[${j}], on the parameters it reads).`);
          for (const a of t.args) used.add(a);
          return `${t.name}(${["sc", "i", ...t.args].join(", ")})`;
        }
      }
    };
    const body = code(split);
    const okName = names.take(`${base}_${kind}Ok`);
    const okParams = params.filter((p) => used.has(p.name) || p.name === "state");
    extra.push(
      fn(okName, [{ name: "sc", type: "RouteScratch" }, { name: "i", type: "number" }, ...okParams], "boolean", [`const ${local} = SPACES[i]!;`, `return ${body};`].join("\n"), {
        docs: [docText(`route ${r.name}: the \`${kind} ${v}\` clause for space number i: its comparisons of the space with a parameter inline, its other parts memoized in sc.part.`)],
      }),
    );
    return (i) => `${okName}(${["sc", i, ...okParams.map((p) => p.name)].join(", ")})`;
  };
  return { clause, resets, parts: () => parts };
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
  const { clause, resets, parts } = clauseTests(r, ec, names, epoch, ctx, params, base, extra);
  const landOk = clause("land", r.land, r.landVar);
  const seaOk = clause("sea", r.sea, r.seaVar);
  const portOk = clause("port", r.port, r.portVar);
  const maxSeas = r.maxSeas ? ec.expr(r.maxSeas, ctx, base).code : "SEA_COUNT";
  const passes = isTrue(r.passes) ? "true" : ec.expr(r.passes, ctx, base).code;
  // `max_steps`: the queue is first in, first out, one connection per entry, so its entries come
  // in layers of equal steps; nothing is expanded from the layer at the limit (only then emitted)
  const maxSteps = r.maxSteps ? ec.expr(r.maxSteps, ctx, base).code : undefined;
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
    ...(maxSteps !== undefined ? [`const maxSteps: number = ${maxSteps};`, `if (maxSteps < 0) return false;`] : []),
    `let sc = ${scratch};`,
    `if (sc === null) sc = ${scratch} = newRouteScratch(${parts() || ""});`,
    `else if (sc.busy) sc = newRouteScratch(${parts() || ""});`,
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
    ...(maxSteps !== undefined ? [`  let steps = 0;`, `  let layerEnd = tail;`] : []),
    `  while (head < tail) {`,
    ...(maxSteps !== undefined ? [`    if (head === layerEnd) {`, `      steps++;`, `      layerEnd = tail;`, `    }`, `    if (steps >= maxSteps) return false;`] : []),
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
