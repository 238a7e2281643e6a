/**
 * The report page's data with every repeated subtree stored once (hash-consing), and back.
 *
 * The data repeats itself: his-500 inherits most of his's rules and examples, and a fact's list of
 * the rules that read it is usually its neighbours' list. `shareSubtrees` keeps each object or array
 * whose JSON is at least `SHARE_MIN` characters long and occurs more than once in `$shared[i]`,
 * and puts `{ "$s": i }` wherever it occurs (inside `$shared` too: an entry refers to earlier ones
 * only). The page (client.js `unshare`) expands it back before reading anything; `unshareSubtrees`
 * is the same expansion for Node (tests). Each reference expands to a fresh copy, so nothing is
 * aliased. For the three bundled editions with their prove reports the page's data went from
 * 6.35 MB to about 2.8 MB (2026-12-04).
 *
 * Shape: `{ "$shared": unknown[], "$root": <data> }`. An object of the data whose only key is
 * `$s` would be read as a reference: the report's data has none (its keys are field names and
 * enum members).
 */

/** The shortest JSON text (characters) of a subtree worth sharing: a reference is 8–12 characters. */
export const SHARE_MIN = 40;

/** The data in shared form (file comment). Values JSON cannot hold (undefined, functions) are left out as JSON.stringify leaves them. */
export function shareSubtrees(data: unknown): { $shared: unknown[]; $root: unknown } {
  const text = new Map<object, string>();
  const count = new Map<string, number>();
  const json = (v: unknown): string | undefined => {
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    const known = text.get(v);
    if (known !== undefined) return known;
    let s: string;
    if (Array.isArray(v)) s = `[${v.map((x) => json(x) ?? "null").join(",")}]`;
    else {
      const parts: string[] = [];
      for (const [k, x] of Object.entries(v)) {
        const j = json(x);
        if (j !== undefined) parts.push(`${JSON.stringify(k)}:${j}`);
      }
      s = `{${parts.join(",")}}`;
    }
    text.set(v, s);
    if (s.length >= SHARE_MIN) count.set(s, (count.get(s) ?? 0) + 1);
    return s;
  };
  json(data);
  const shared: unknown[] = [];
  const index = new Map<string, number>();
  const build = (v: unknown): unknown => {
    if (v === null || typeof v !== "object") return v;
    const s = text.get(v)!;
    const at = index.get(s);
    if (at !== undefined) return { $s: at };
    const out = Array.isArray(v) ? v.map((x) => (x === undefined || typeof x === "function" ? null : build(x))) : Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined && typeof x !== "function").map(([k, x]) => [k, build(x)]));
    if ((count.get(s) ?? 0) < 2) return out;
    index.set(s, shared.length);
    shared.push(out);
    return { $s: shared.length - 1 };
  };
  const root = build(data);
  return { $shared: shared, $root: root };
}

/** The data back from its shared form (a value without `$shared` is returned as it is). */
export function unshareSubtrees(v: unknown): unknown {
  if (v === null || typeof v !== "object" || !Array.isArray((v as { $shared?: unknown }).$shared)) return v;
  const { $shared: shared, $root: root } = v as { $shared: unknown[]; $root: unknown };
  const fix = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(fix);
    if (x === null || typeof x !== "object") return x;
    const keys = Object.keys(x);
    if (keys.length === 1 && keys[0] === "$s") return fix(shared[(x as { $s: number }).$s]);
    return Object.fromEntries(keys.map((k) => [k, fix((x as Record<string, unknown>)[k])]));
  };
  return fix(root);
}
