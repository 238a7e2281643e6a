/**
 * The readings of every bundled rule (issue 25): the golden file, the words they may not contain,
 * their grouping against the IR, the phrase files, and the def marks the checker leaves on the IR.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import type { Expr, IREdition } from "../../compiler/ir/types.js";
import { children } from "../../compiler/ir/walk.js";
import { defCallOf, defSpansOf } from "../../compiler/ir/def-calls.js";
import { liftedBy } from "../../compiler/ir/derived.js";
import { editionReadings } from "../../compiler/report/readings.js";
import { fillPhrase, parsePhrases, PhrasesError, readPhrases, type Phrases } from "../../compiler/report/phrases.js";
import { GOLDEN_EDITIONS, goldenText, loadBundled } from "./readings-golden.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GOLDEN = path.join(ROOT, "test/fixtures/report/readings.txt");

const editions = new Map<string, { ir: IREdition; phrases: Phrases }>();
beforeAll(() => {
  for (const f of GOLDEN_EDITIONS) {
    const ir = loadBundled(ROOT, f);
    editions.set(f, { ir, phrases: readPhrases(ir, ROOT) });
  }
});

describe("the golden readings", () => {
  it("test/fixtures/report/readings.txt holds the readings of every bundled rule as they are now", () => {
    const now = goldenText(ROOT);
    if (process.env.UPDATE_GOLDEN) fs.writeFileSync(GOLDEN, now);
    const was = fs.existsSync(GOLDEN) ? fs.readFileSync(GOLDEN, "utf8") : "";
    const a = was.split("\n");
    const b = now.split("\n");
    const changed: string[] = [];
    const old = new Set(a);
    const neu = new Set(b);
    for (const l of a) if (!neu.has(l)) changed.push(`- ${l}`);
    for (const l of b) if (!old.has(l)) changed.push(`+ ${l}`);
    expect(changed, `readings changed: review them, then regenerate with \`npm run readings\` (or UPDATE_GOLDEN=1 npx vitest run test/cli/readings.test.ts)\n${changed.slice(0, 40).join("\n")}`).toEqual([]);
    // one line per rule and exemption of every bundled edition, plus the header
    const count = [...editions.values()].reduce((n, { ir }) => n + ir.rules.length + ir.exemptions.length, 0);
    expect(b.filter((l) => l !== "").length).toBe(count + 1);
  });

  it("every def, state field, route and table a bundled rule reads has a phrase", () => {
    for (const [f, { ir, phrases }] of editions) expect([...editionReadings(ir, phrases).misses], f).toEqual([]);
  });

  it("no reading holds an identifier with _ or ., a bound variable or a record field read raw", () => {
    const bad: string[] = [];
    for (const [f, { ir, phrases }] of editions) {
      const fieldNames = new Set<string>();
      const collect = (t: IREdition["state"]) => {
        for (const x of t.fields) {
          fieldNames.add(x.name);
          const inner = x.type.k === "list" ? x.type.elem : x.type.k === "map" ? x.type.value : x.type;
          if (inner.k === "record") collect(inner);
        }
      };
      collect(ir.state);
      for (const line of editionReadings(ir, phrases).lines) {
        const text = line.text.replace(/“[^”]*”/g, "").replace(/§\S+/g, "");
        const vars = new Set<string>();
        const r = ir.rules.find((x) => x.id === line.id);
        const roots = r ? [r.when, ...liftedBy(ir, r).map((x) => x.when)] : [ir.exemptions.find((x) => x.id === line.id)!.when];
        const walk = (e: Expr) => {
          if (e.k === "quant" || e.k === "agg") vars.add(e.var);
          children(e).forEach(walk);
        };
        roots.forEach(walk);
        const why: string[] = [];
        const ident = text.match(/\b\w+_\w+\b|\b[a-z]\w*\.[a-z]\w*\b/);
        if (ident) why.push(`identifier ${ident[0]}`);
        for (const v of vars) if (v !== "a" && new RegExp(`(^|[\\s(])${v}([\\s,.)]|$)`).test(text)) why.push(`variable ${v}`);
        for (const n of fieldNames) if (new RegExp(`'s ${n.replace(/_/g, " ")}\\b`).test(text)) why.push(`field ${n}`);
        if (why.length) bad.push(`${f} ${line.id}: ${why.join(", ")} — ${line.text}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

/** The nesting of and/or/if-then in an expression as the reading shows it: "(…)" per connective, siblings sorted. */
function irShape(e: Expr, phrases: Phrases): string {
  const call = defCallOf(e);
  if (call && phrases.defs[call.def] !== undefined) return call.args.map((a) => irShape(a, phrases)).sort().join("");
  if (e.k === "and" || e.k === "or") {
    // a def spread into this connective with a phrase is one clause: only its arguments' connectives show
    const parts: string[] = [];
    for (let i = 0; i < e.args.length; ) {
      const sp = defSpansOf(e).find((x) => x.start === i && phrases.defs[x.call.def] !== undefined);
      if (sp) {
        parts.push(...sp.call.args.map((a) => irShape(a, phrases)));
        i += sp.count;
      } else parts.push(irShape(e.args[i++]!, phrases));
    }
    return `(${parts.sort().join("")})`;
  }
  const inner = children(e).map((x) => irShape(x, phrases)).sort().join("");
  return e.k === "implies" ? `(${inner})` : inner;
}

/** The nesting of the brackets of a reading in bracket mode, in the same form. */
function textShape(s: string): string {
  const stack: string[][] = [[]];
  for (const ch of s) {
    if (ch === "[") stack.push([]);
    else if (ch === "]") {
      const kids = stack.pop()!;
      stack[stack.length - 1]!.push(`(${kids.sort().join("")})`);
    }
  }
  return stack[0]!.sort().join("");
}

describe("grouping", () => {
  it("a reading in bracket mode nests its connectives exactly as the IR does, for every bundled rule", () => {
    let compared = 0;
    const wrong: string[] = [];
    for (const [f, { ir, phrases }] of editions) {
      const { lines } = editionReadings(ir, phrases, { brackets: true });
      for (const r of ir.rules) {
        const text = lines.find((l) => l.kind === "rule" && l.id === r.id)!.text;
        const want = [r.when, ...liftedBy(ir, r).map((x) => x.when)].map((x) => irShape(x, phrases)).sort().join("");
        if (textShape(text) !== want) wrong.push(`${f} ${r.id}: ${text}`);
        compared += want.length > 0 ? 1 : 0;
      }
    }
    expect(wrong).toEqual([]);
    expect(compared).toBeGreaterThan(50);
  });

  it("his dow.scotland keeps `target = scotland and (… or …)` grouped", () => {
    const { ir, phrases } = editions.get("his")!;
    const line = editionReadings(ir, phrases).lines.find((l) => l.id === "dow.scotland")!.text;
    expect(line).toContain("the target is Scotland and (the acting power is one of the Ottoman, the Papacy or the Protestant or the acting power is allied with France)");
  });
});

describe("phrases", () => {
  it("a malformed phrases file is an error naming the file and the entry", () => {
    expect(() => parsePhrases("{", "dsl/x/phrases.json")).toThrow(/^dsl\/x\/phrases.json:1:2: not JSON/);
    expect(() => parsePhrases('{\n  "defs": {\n    "allied": 3}}', "dsl/x/phrases.json")).toThrow(/^dsl\/x\/phrases.json:3:5: defs.allied must be a string/);
    expect(() => parsePhrases('{"defs": {"allied": 3}}', "f.json")).toThrow(PhrasesError);
    expect(() => parsePhrases('{"verbs": {}}', "f.json")).toThrow(/unknown section "verbs"/);
  });

  it("`rulewright report` with a malformed phrases.json: exit 2, the file, line and column named, no stack trace", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "rw-phrases-cli-"));
    fs.mkdirSync(path.join(root, "dsl"), { recursive: true });
    fs.cpSync(path.join(ROOT, "test/fixtures/frontend/mini"), path.join(root, "dsl", "mini"), { recursive: true });
    fs.writeFileSync(path.join(root, "dsl", "mini", "phrases.json"), '{\n  "defs": {\n    "x": 3\n  }\n}\n');
    const r = spawnSync(process.execPath, [path.join(ROOT, "bin/rulewright.mjs"), "report", "mini", "--out", path.join(root, "out")], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain("dsl/mini/phrases.json:3:5: defs.x must be a string");
    expect(r.stderr).toContain("help: a phrases.json holds sections");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a variant's phrases override its parent's, a module's come first", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rw-phrases-"));
    for (const [d, text] of [["dsl/modules/m", '{"defs": {"x": "module"}}'], ["dsl/base", '{"defs": {"x": "base", "y": "base"}}'], ["dsl/variant", '{"defs": {"x": "variant"}}']] as const) {
      fs.mkdirSync(path.join(dir, d), { recursive: true });
      fs.writeFileSync(path.join(dir, d, "phrases.json"), text);
    }
    const inputs = ["dsl/base/a.rules", "dsl/modules/m/m.rules", "dsl/variant/v.rules"].map((file) => ({ file, sha256: "" }));
    const p = readPhrases({ inputs, name: "variant", folder: "variant", parent: "base" }, dir);
    expect(p.defs).toEqual({ x: "variant", y: "base" });
  });

  it("a route phrase's {?flag:yes|no} reads the literal, or says when", () => {
    const tpl = "a path{?sea: over land only| over at most one sea zone}";
    expect(fillPhrase(tpl, {}, { sea: true })).toBe("a path over land only");
    expect(fillPhrase(tpl, {}, { sea: false })).toBe("a path over at most one sea zone");
    expect(fillPhrase(tpl, {}, {}, { sea: "it rains" })).toBe("a path over land only if it rains (otherwise over at most one sea zone)");
  });
});

describe("def marks (compiler/ir/def-calls.ts)", () => {
  it("an inlined def call is marked with its name and arguments, invisibly to JSON", () => {
    const { ir } = editions.get("his")!;
    const r = ir.rules.find((x) => x.id === "dow.own_ally")!;
    expect(defCallOf(r.when)).toMatchObject({ def: "allied", params: ["a", "b"] });
    expect(defCallOf(r.when)!.args.map((a) => (a.k === "var" ? a.name : a.k))).toEqual(["by", "target"]);
    expect(JSON.stringify(r.when)).not.toContain("defCall");
    expect(Object.keys(r.when)).not.toContain("__defCall");
  });

  it("a def whose body is spread into an enclosing and/or keeps its place and reads as its phrase", () => {
    const { ir, phrases } = editions.get("his")!;
    // `(power = protestant and faith_neighbors_all_in_unrest(space, protestant)) or …`: the def's `and` is spread into the rule's
    const r = ir.rules.find((x) => x.id === "unrest.reformation_adjacent")!;
    const first = (r.when as Extract<Expr, { k: "or" }>).args[0]! as Extract<Expr, { k: "and" }>;
    expect(first.k).toBe("and");
    expect(first.args.length).toBe(3); // flattened: the IR (and so codegen and the prover) is as before
    expect(defSpansOf(first).map((sp) => [sp.start, sp.count, sp.call.def])).toEqual([[1, 2, "faith_neighbors_all_in_unrest"]]);
    const line = editionReadings(ir, phrases).lines.find((l) => l.id === r.id)!.text;
    expect(line).toContain("(the acting power is the Protestant and the space is next to a land space of Protestant faith and every such space next to it is in unrest)");
  });

  it("a def called inside another def keeps its mark, with its arguments substituted", () => {
    const { ir } = editions.get("his")!;
    // units_in_or_adjacent(power, space) calls own_land_units_in(p, s)
    const r = ir.rules.find((x) => x.id === "unrest.remove_units")!;
    const found: string[] = [];
    const walk = (e: Expr) => {
      const c = defCallOf(e);
      if (c?.def === "own_land_units_in") found.push(c.args.map((a) => (a.k === "var" ? a.name : a.k)).join(","));
      children(e).forEach(walk);
    };
    walk(r.when);
    expect(found).toContain("power,space");
  });
});
