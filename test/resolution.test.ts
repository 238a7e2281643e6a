/**
 * The checker's resolution table (compiler/check/resolution.ts) on the bundled his edition: the
 * uses it records are compared with what the rule files' text says (comments and strings blanked),
 * not with another resolver.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadEdition } from "../compiler/check/index.js";
import type { Resolution } from "../compiler/check/resolution.js";

const ROOT = path.resolve(import.meta.dirname, "..");
let res: Resolution;
/** rule file (repo-relative) → its lines with comments and string literals blanked (columns kept) */
const code = new Map<string, string[]>();

beforeAll(() => {
  const out = loadEdition("dsl/his", { repoRoot: ROOT });
  expect(out.edition).toBeDefined();
  res = out.resolution;
  for (const f of res.files.rules) {
    const lines = fs.readFileSync(path.join(ROOT, f), "utf8").split(/\r?\n/);
    code.set(f, lines.map((l) => l.replace(/"[^"]*"/g, (m) => " ".repeat(m.length)).replace(/\/\/.*$/, "")));
  }
});

/** Every whole-word occurrence of `re` in the code (1-based line and column of group 1, or of the match). */
function occurrences(re: RegExp): { file: string; line: number; column: number; text: string }[] {
  const out: { file: string; line: number; column: number; text: string }[] = [];
  for (const [file, lines] of code) {
    lines.forEach((l, i) => {
      for (const m of l.matchAll(new RegExp(re.source, "g"))) {
        const text = m[1] ?? m[0];
        out.push({ file, line: i + 1, column: m.index! + m[0].indexOf(text) + 1, text });
      }
    });
  }
  return out;
}

/** The source text a span covers (one line). */
function textAt(file: string, s: { line: number; column: number; endColumn: number }): string {
  return fs.readFileSync(path.join(ROOT, file), "utf8").split(/\r?\n/)[s.line - 1]!.slice(s.column - 1, s.endColumn - 1);
}

describe("the resolution table of his", () => {
  it("lists the edition's files: its rule files, its modules', the schema, the board and its data folders", () => {
    const f = res.files;
    expect(f.folder).toBe("dsl/his");
    expect(f.rules).toContain("dsl/his/edition.rules");
    expect(f.rules).toContain("dsl/modules/pass/pass.rules");
    expect(f.rules.every((x) => fs.existsSync(path.join(ROOT, x)))).toBe(true);
    expect(f.schema).toBe("dsl/his/state.schema.json");
    expect(f.board).toBe("dsl/his/board.json");
    expect(f.scenarios).toBe("test/scenarios/his");
    expect(fs.existsSync(path.join(ROOT, f.scenarios))).toBe(true);
    expect(f.fixtures).toBe("test/fixtures/his");
    expect(f.conformance).toBe("conformance/his");
  });

  it("finds every use of a state field (`state.<field>` in the text) and resolves it to its property in the schema", () => {
    // `invariant state.x` is an invariant id, not a field read
    const reads = occurrences(/(?<!invariant\s+)\bstate\.([a-z_]+)/).filter((o) => !/invariant\s+state\.$/.test(code.get(o.file)![o.line - 1]!.slice(0, o.column - 1)));
    expect(reads.length).toBeGreaterThan(100);
    const schemaLines = fs.readFileSync(path.join(ROOT, "dsl/his/state.schema.json"), "utf8").split("\n");
    for (const o of reads) {
      const d = res.declarationAt(o.file, o.line, o.column);
      expect(d, `${o.file}:${o.line}:${o.column} state.${o.text}`).toBeDefined();
      expect(d!.kind).toBe("field");
      expect(d!.key).toBe(`field:/properties/${o.text}`);
      expect(d!.file).toBe("dsl/his/state.schema.json");
      expect(schemaLines[d!.span.line - 1]).toContain(`"${o.text}"`);
      expect(res.usesOf(d!.key).some((u) => u.file === o.file && u.span.line === o.line && u.span.column === o.column)).toBe(true);
    }
    // and no field use is recorded that the text does not show (top-level fields only)
    const recorded = res.uses.filter((u) => /^field:\/properties\/[a-z_]+$/.test(u.key));
    expect(recorded.length).toBe(reads.length);
    // each use carries the field's type
    const hands = res.usesOf("field:/properties/hands");
    expect(hands.length).toBeGreaterThan(0);
    expect(hands.every((u) => u.type?.k === "map")).toBe(true);
  });

  it("finds a def's calls, and the def from its name", () => {
    const calls = occurrences(/\bholds(?=\()/).filter((o) => !/def\s+$/.test(code.get(o.file)![o.line - 1]!.slice(0, o.column - 1)));
    expect(calls.length).toBeGreaterThan(0);
    const d = res.declaration("def:holds")!;
    expect(d.kind).toBe("def");
    expect(d.file).toBe("dsl/his/cards.rules");
    expect(textAt(d.file, d.span)).toBe("holds");
    expect(d.type).toEqual({ k: "bool" });
    const uses = res.usesOf("def:holds");
    expect(uses.map((u) => `${u.file}:${u.span.line}:${u.span.column}`).sort()).toEqual(calls.map((o) => `${o.file}:${o.line}:${o.column}`).sort());
    // on the declared name itself: the def
    expect(res.at(d.file, d.span.line, d.span.column)).toEqual({ key: "def:holds" });
    // its parameters are visible in its body, and their uses resolve to them
    const p = res.ofKind("param").find((x) => x.parent === "def:holds" && x.name === "p")!;
    expect(p.type).toMatchObject({ k: "enum", name: "MajorPower" });
    const pUses = res.usesOf(p.key);
    expect(pUses.length).toBeGreaterThan(0);
    const inBody = pUses[0]!;
    expect(res.visibleAt(inBody.file, inBody.span.line, inBody.span.column).map((x) => x.key)).toContain(p.key);
  });

  it("finds every use of an enum member (`action_phase` of Phase) and none in comments or strings", () => {
    const words = occurrences(/\baction_phase\b/);
    const d = res.declaration("member:Phase.action_phase")!;
    expect(d.kind).toBe("member");
    expect(d.parent).toBe("enum:Phase");
    expect(textAt(d.file, d.span)).toBe("action_phase");
    const uses = res.usesOf(d.key);
    for (const u of uses) expect(textAt(u.file, u.span)).toBe("action_phase");
    // every word in the code is the declaration or a use
    const at = (f: string, l: number, c: number) => `${f}:${l}:${c}`;
    expect(new Set([...uses.map((u) => at(u.file, u.span.line, u.span.column)), at(d.file, d.span.line, d.span.column)]))
      .toEqual(new Set(words.map((o) => at(o.file, o.line, o.column))));
    expect(uses.length).toBe(words.length - 1);
  });

  it("resolves a rule's action, a rule id named by an exemption, and a quantifier's variable to its binder", () => {
    const rule = res.declaration("rule:card.not_in_hand")!;
    expect(rule.kind).toBe("rule");
    const action = res.usesOf("action:play_card");
    expect(action.length).toBeGreaterThan(1);
    expect(action.every((u) => textAt(u.file, u.span) === "play_card")).toBe(true);
    // every exemption target that names a rule is a use of it
    const ruleUses = res.uses.filter((u) => u.key.startsWith("rule:"));
    for (const u of ruleUses) expect(res.declaration(u.key), u.key).toBeDefined();
    // a local: its uses lie inside its scope and name it
    const locals = res.ofKind("local");
    expect(locals.length).toBeGreaterThan(10);
    for (const l of locals.slice(0, 50)) {
      for (const u of res.usesOf(l.key)) {
        expect(textAt(u.file, u.span)).toBe(l.name);
        expect(res.visibleAt(u.file, u.span.line, u.span.column).some((x) => x.key === l.key)).toBe(true);
      }
    }
  });

  it("knows the board's spaces as members of Space, declared in board.json", () => {
    const space = res.ofKind("member").filter((m) => m.parent === "enum:Space");
    expect(space.length).toBe(148);
    const lines = fs.readFileSync(path.join(ROOT, "dsl/his/board.json"), "utf8").split("\n");
    for (const m of space.slice(0, 20)) expect(lines[m.span.line - 1]).toContain(`"${m.name}"`);
  });
});
