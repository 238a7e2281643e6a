/**
 * Whether two editions can be compared (`rulewright diff`, compiler/verify/diff/diff.ts; the report's
 * rule diff, compiler/report/rule-diff.ts): the state vocabulary they must share — the state
 * type, the enums of the same name, the board — and the actions both declare with the same
 * parameters (`sharedActions`). Plain comparisons of the IR; no Z3.
 */
import type { Board, IRAction, IREdition, Type } from "./types.js";

/** Differences between two types, as `path: …` messages (enum member order and field order do not matter). */
function typeProblems(path: string, x: Type, y: Type, na: string, nb: string, out: string[]): void {
  const desc = (t: Type): string =>
    t.k === "enum" ? `enum ${t.name}` : t.k === "list" ? `list (maxItems ${t.bound})` : t.k === "int" ? `int${t.min !== undefined || t.max !== undefined ? ` [${t.min ?? "-∞"}, ${t.max ?? "∞"}]` : ""}` : t.k;
  if (x.k !== y.k) {
    out.push(`${path}: ${desc(x)} in ${na}, ${desc(y)} in ${nb}`);
    return;
  }
  switch (x.k) {
    case "int": {
      const t = y as typeof x;
      if (x.min !== t.min || x.max !== t.max) out.push(`${path}: ${desc(x)} in ${na}, ${desc(t)} in ${nb}`);
      return;
    }
    case "enum": {
      const t = y as typeof x;
      const onlyA = x.members.filter((m) => !t.members.includes(m));
      const onlyB = t.members.filter((m) => !x.members.includes(m));
      if (x.base !== t.base) out.push(`${path}: values of enum ${x.base} in ${na}, of enum ${t.base} in ${nb}`);
      else if (onlyA.length || onlyB.length) out.push(`${path}: ${x.name} members differ (${[...onlyA.map((m) => `\`${m}\` only in ${na}`), ...onlyB.map((m) => `\`${m}\` only in ${nb}`)].slice(0, 6).join(", ")})`);
      return;
    }
    case "list": {
      const t = y as typeof x;
      if (x.bound !== t.bound) out.push(`${path}: maxItems ${x.bound} in ${na}, ${t.bound} in ${nb}`);
      typeProblems(`${path}[i]`, x.elem, t.elem, na, nb, out);
      return;
    }
    case "map": {
      const t = y as typeof x;
      typeProblems(`${path} keys`, x.key, t.key, na, nb, out);
      typeProblems(`${path}[*]`, x.value, t.value, na, nb, out);
      return;
    }
    case "record": {
      const t = y as typeof x;
      for (const f of x.fields) {
        const g = t.fields.find((h) => h.name === f.name);
        if (!g) out.push(`${path}.${f.name}: only in ${na}`);
        else typeProblems(`${path}.${f.name}`, f.type, g.type, na, nb, out);
      }
      for (const g of t.fields) if (!x.fields.some((f) => f.name === g.name)) out.push(`${path}.${g.name}: only in ${nb}`);
      return;
    }
    default:
      return;
  }
}

function boardProblems(x: Board, y: Board, na: string, nb: string): string[] {
  const out: string[] = [];
  const sp = (b: Board) => new Map(b.spaces.map((s) => [s.id, `${s.type}; home ${[...s.home].sort().join(",") || "-"}`]));
  const [sa, sb] = [sp(x), sp(y)];
  for (const [id, d] of sa) {
    if (!sb.has(id)) out.push(`board space \`${id}\` only in ${na}`);
    else if (sb.get(id) !== d) out.push(`board space \`${id}\`: ${d} in ${na}, ${sb.get(id)} in ${nb}`);
  }
  for (const id of sb.keys()) if (!sa.has(id)) out.push(`board space \`${id}\` only in ${nb}`);
  const cs = (b: Board) => new Set(b.connections.map((c) => `${[c.from, c.to].sort().join("–")} (${c.type})`));
  const [ca, cb] = [cs(x), cs(y)];
  for (const c of ca) if (!cb.has(c)) out.push(`board connection ${c} only in ${na}`);
  for (const c of cb) if (!ca.has(c)) out.push(`board connection ${c} only in ${nb}`);
  return out;
}

/**
 * Why two editions cannot be diffed: differences in the state type (fields, bounds, enum
 * members), in enums of the same name, or in the board (spaces, their types and home powers,
 * connections). Printed names, member order and file layout do not matter. Empty = comparable.
 * `names` label the editions in messages (default: their edition names).
 */
export function vocabularyProblems(a: IREdition, b: IREdition, names: { a: string; b: string } = { a: a.name, b: b.name }): string[] {
  const out: string[] = [];
  typeProblems("state", a.state, b.state, names.a, names.b, out);
  for (const e of a.enums) {
    const f = b.enums.find((x) => x.name === e.name);
    if (!f) continue;
    typeProblems(`enum ${e.name}`, { k: "enum", name: e.name, base: e.base, members: e.members }, { k: "enum", name: f.name, base: f.base, members: f.members }, names.a, names.b, out);
  }
  out.push(...boardProblems(a.board, b.board, names.a, names.b));
  return out;
}

/** Same parameter names, types and actor flag (order does not matter: action JSON is flat). */
function paramProblem(x: IRAction, y: IRAction, na: string, nb: string): string | undefined {
  for (const p of x.params) {
    const q = y.params.find((r) => r.name === p.name);
    if (!q) return `parameter \`${p.name}\` only in ${na}`;
    const probs: string[] = [];
    typeProblems(p.name, p.type, q.type, na, nb, probs);
    if (probs.length) return `parameter ${probs[0]}`;
    if (p.actor !== q.actor) return `parameter \`${p.name}\` is the actor in ${p.actor ? na : nb} only`;
  }
  for (const q of y.params) if (!x.params.some((p) => p.name === q.name)) return `parameter \`${q.name}\` only in ${nb}`;
  return undefined;
}

/** The actions both editions declare with the same parameters, and the others with the reason. */
export function sharedActions(a: IREdition, b: IREdition, names: { a: string; b: string } = { a: a.name, b: b.name }): { shared: string[]; notCompared: { action: string; reason: string }[] } {
  const shared: string[] = [];
  const notCompared: { action: string; reason: string }[] = [];
  for (const x of a.actions) {
    const y = b.actions.find((z) => z.name === x.name);
    if (!y) notCompared.push({ action: x.name, reason: `only in ${names.a}` });
    else {
      const p = paramProblem(x, y, names.a, names.b);
      if (p) notCompared.push({ action: x.name, reason: p });
      else shared.push(x.name);
    }
  }
  for (const y of b.actions) if (!a.actions.some((x) => x.name === y.name)) notCompared.push({ action: y.name, reason: `only in ${names.b}` });
  return { shared: shared.sort(), notCompared: notCompared.sort((p, q) => (p.action < q.action ? -1 : p.action > q.action ? 1 : 0)) };
}
