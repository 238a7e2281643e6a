// The report page's data with repeated subtrees stored once (compiler/report/shared-json.ts): the
// round trip gives the data back exactly, repeated parts are stored once, and the page script's
// own expansion (client.js `unshare`) reads what the page inlines.
import { describe, expect, it } from "vitest";
import { SHARE_MIN, shareSubtrees, unshareSubtrees } from "../../compiler/report/shared-json.js";
import { pageScript } from "../../compiler/report/site.js";

describe("the report's shared-subtree data", () => {
  const rule = { id: "dow.genoa", title: "no war on Genoa while allied with it", scenarios: [{ file: "a.yaml", line: 3 }] };
  const data = {
    editions: [
      { folder: "his", rules: [rule, { id: "x", title: "short" }], facts: [{ text: "Paris is in unrest", rules: ["a.b", "c.d", "e.f", "g.h"] }, { text: "Lyon", rules: ["a.b", "c.d", "e.f", "g.h"] }] },
      { folder: "his-500", rules: [structuredClone(rule), { id: "x", title: "short" }], missing: undefined, list: [1, undefined, "<\/script>"] },
    ],
  };

  it("gives the data back exactly, with each repeated subtree stored once and short ones left in place", () => {
    const s = shareSubtrees(data);
    // the rule (twice) and the reader list (twice) are shared; `{ id: "x", … }` is under SHARE_MIN
    expect(JSON.stringify({ id: "x", title: "short" }).length).toBeLessThan(SHARE_MIN);
    expect(s.$shared).toHaveLength(2);
    expect(JSON.stringify(s).split("dow.genoa")).toHaveLength(2);
    expect(unshareSubtrees(JSON.parse(JSON.stringify(s)))).toEqual(JSON.parse(JSON.stringify(data)));
    // a value that is not in shared form is returned as it is
    expect(unshareSubtrees({ a: 1 })).toEqual({ a: 1 });
  });

  it("each reference expands to its own copy (the page may change what it read)", () => {
    const back = unshareSubtrees(JSON.parse(JSON.stringify(shareSubtrees(data)))) as typeof data;
    expect(back.editions[0]!.rules[0]).toEqual(back.editions[1]!.rules[0]);
    expect(back.editions[0]!.rules[0]).not.toBe(back.editions[1]!.rules[0]);
  });

  it("the page script reads the shared form back (its own `unshare`, run on the inlined text)", () => {
    const src = pageScript();
    const start = src.indexOf("function unshare(raw)");
    expect(start).toBeGreaterThan(0);
    // the function's text, up to the line that uses it
    const fn = src.slice(start, src.indexOf("const data = unshare(", start));
    const unshare = new Function(`${fn}; return unshare;`)() as (raw: unknown) => unknown;
    expect(unshare(JSON.parse(JSON.stringify(shareSubtrees(data))))).toEqual(JSON.parse(JSON.stringify(data)));
  });
});
