/**
 * Modules and variant editions (dsl/README.md, "Modules and variant editions"): the syntax of
 * `module`, `import`, `extends`, `override rule`, `remove rule` and citations; the checker's
 * resolution, provenance and diagnostics; the catalogue the code generator writes.
 *
 * Each checker test builds a small tree in a temp folder: `dsl/mini/` (a copy of the mini
 * fixture), `dsl/modules/<name>/` and variants beside it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { generateEdition } from "../../compiler/codegen/index.js";
import { CATALOG } from "../../compiler/diagnostics/catalog.js";
import type { Diagnostic } from "../../compiler/diagnostics/types.js";
import { parseRules } from "../../compiler/syntax/index.js";
import { bundledEditions } from "../../compiler/engine/editions.js";

const MINI = decodeURIComponent(new URL("../fixtures/frontend/mini", import.meta.url).pathname);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rw-modules-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** The module every tree has unless replaced: one shared rule with citations for two games. */
const PASSING = `module passing "Passing, shared by mini and other"

rule pass.hand_limit mini §11, other §"Action Phase: Pass" "a power holding more than 2 cards may not pass"
  forbid pass when count(state.hands[power]) > 2
`;

/**
 * A temp tree: dsl/mini (the fixture, importing `passing` unless `noImport`), dsl/modules/passing
 * and the given files (path under dsl/ → text; null deletes). Returns its root.
 */
function tree(files: Record<string, string | null> = {}, opts: { noImport?: boolean } = {}): string {
  const root = path.join(tmp, `t${n++}`);
  fs.cpSync(MINI, path.join(root, "dsl/mini"), { recursive: true });
  if (!opts.noImport) fs.appendFileSync(path.join(root, "dsl/mini/edition.rules"), "\nimport passing\n");
  const all: Record<string, string | null> = { "modules/passing/pass.rules": PASSING, ...files };
  for (const [f, text] of Object.entries(all)) {
    const p = path.join(root, "dsl", f);
    if (text === null) fs.rmSync(p, { force: true });
    else {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, text);
    }
  }
  return root;
}
const load = (root: string, edition: string) => loadEdition(`dsl/${edition}`, { repoRoot: root });

function errors(ds: Diagnostic[]): Diagnostic[] {
  return ds.filter((d) => d.severity === "error");
}
/** The one error (fails listing all of them otherwise). */
function only(ds: Diagnostic[], code: string): Diagnostic {
  const es = errors(ds);
  expect(es.map((d) => `${d.code} ${d.message} @${d.file}:${d.span.line}:${d.span.column}`)).toEqual([expect.stringContaining(code)]);
  return es[0]!;
}
const at = (d: Diagnostic) => `${d.file}:${d.span.line}:${d.span.column}`;

const VARIANT = `edition mini_v "Mini, variant" cites "mini" extends "mini"

override rule dow.genoa §9.6 "only red may not declare war on Genoa"
  forbid declare_war when target = Power.genoa and by = red

remove rule move.cap "the variant has no crossing limit"

rule dow.green §9.6 "no war on green"
  forbid declare_war when target = green
`;

// ---------------------------------------------------------------------------------------------

describe("syntax", () => {
  it("parses module, import, extends, override, remove and every citation form", () => {
    const src = [
      'edition mini_v "Variant" cites "mini" extends "mini"', //                       1
      "import passing", //                                                              2
      'module passing "Passing"', //                                                    3
      'rule pass.x mini §11, vq §"Action Phase: Pass" "t" forbid pass when true', //    4
      'override rule dow.a §"Declarations of War" "t" (*) forbid declare_war when x', // 5
      'remove rule deploy.protestant "the variant lets the Protestant deploy"', //      6
      'exempt e.x his §10, vq §"Spring" "t" lifts (*) when true', //                   7
    ].join("\n");
    const { ast, diagnostics } = parseRules(src, "v.rules");
    expect(diagnostics).toEqual([]);
    expect(ast.decls.map((d) => d.k)).toEqual(["edition", "import", "module", "rule", "override", "remove", "exempt"]);
    expect(ast.decls[0]).toMatchObject({ k: "edition", name: { name: "mini_v" }, cites: "mini", parent: { path: "mini", span: { line: 1, column: 47, endColumn: 53 } } });
    expect(ast.decls[1]).toMatchObject({ k: "import", name: { name: "passing", span: { line: 2, column: 8 } } });
    expect(ast.decls[2]).toMatchObject({ k: "module", name: { name: "passing" }, title: "Passing" });
    const r = ast.decls[3]!;
    expect(r.k === "rule" && r.citations).toEqual([
      { key: { name: "mini", span: { line: 4, column: 13, endLine: 4, endColumn: 17 } }, value: "11", named: false, span: { line: 4, column: 13, endLine: 4, endColumn: 21 } },
      { key: { name: "vq", span: { line: 4, column: 23, endLine: 4, endColumn: 25 } }, value: "Action Phase: Pass", named: true, span: { line: 4, column: 23, endLine: 4, endColumn: 47 } },
    ]);
    const o = ast.decls[4]!;
    expect(o).toMatchObject({ k: "override", rule: { k: "rule", id: { name: "dow.a" }, citations: [{ value: "Declarations of War", named: true }], groups: [{ name: "*" }], action: { name: "declare_war" } } });
    expect(o.span).toMatchObject({ line: 5, column: 1 });
    expect(ast.decls[5]).toMatchObject({ k: "remove", id: { name: "deploy.protestant", span: { line: 6, column: 13 } }, reason: "the variant lets the Protestant deploy" });
    const e = ast.decls[6]!;
    expect(e.k === "exempt" && e.citations.map((c) => [c.key?.name, c.value, c.named])).toEqual([["his", "10", false], ["vq", "Spring", true]]);
  });

  it("a citation string keeps escaped quotes", () => {
    const { ast, diagnostics } = parseRules('rule a.b §"the \\"Pass\\" paragraph" "t" forbid pass when true', "q.rules");
    expect(diagnostics).toEqual([]);
    expect(ast.decls[0]).toMatchObject({ citations: [{ value: 'the "Pass" paragraph', named: true }] });
  });

  it("reports a bare `§` once (RW1101), with its position", () => {
    const { ast, diagnostics } = parseRules('rule a.b § "t" forbid pass when true\nrule a.c §1 "t" forbid pass when true', "s.rules");
    expect(diagnostics.map((d) => [d.code, d.message, d.span.line, d.span.column])).toEqual([
      ["RW1101", "`§` must be followed by a section number or a quoted section name", 1, 10],
    ]);
    expect(diagnostics[0]!.help).toContain('§"Spring Deployment Procedure"');
    expect(ast.decls.map((d) => d.k === "rule" && d.id.name)).toEqual(["a.c"]);
  });

  it("reports a game key cited twice (RW1102) and two unkeyed citations", () => {
    const { diagnostics } = parseRules('rule a.b his §1, his §2 "t" forbid pass when true\nrule a.c §1, §2 "t" forbid pass when true', "k.rules");
    expect(diagnostics.map((d) => [d.code, d.message, d.span.line, d.span.column])).toEqual([
      ["RW1102", "two citations for `his`", 1, 18],
      ["RW1102", "two citations without a game key", 2, 14],
    ]);
  });

  it("reports a missing citation, a `remove` without its id and an `override` of a non-rule with the declaration's shape", () => {
    const src = ['rule a.b "t" forbid pass when true', 'remove rule "why"', "override exempt e.x §1 \"t\" lifts (*) when true", 'import "pass"'].join("\n");
    const { diagnostics } = parseRules(src, "e.rules");
    expect(diagnostics.map((d) => [d.code, d.span.line, d.span.column, d.message])).toEqual([
      ["RW1004", 1, 10, 'expected a section like `§9.6` or a named section like `§"Action Phase"` after `a.b`, found `"t"`'.replace("a.b", "b")],
      ["RW1003", 2, 13, 'expected a name after `rule`, found `"why"`'],
      // `exempt` starts a declaration of its own: the override ends before it
      ["RW1003", 3, 9, "expected `rule` after `override` in the rule, found `exempt` (the start of the next declaration, line 3)"],
      ["RW1003", 4, 8, 'expected identifier after `import` in the import, found `"pass"`'],
    ]);
    expect(diagnostics[1]!.help).toMatch(/^a removal reads `remove rule <id>/);
    expect(diagnostics[2]!.help).toMatch(/^an override reads `override rule/);
  });

  it("`rule` after `override`/`remove` does not start a declaration of its own", () => {
    const { ast, diagnostics } = parseRules('override rule a.b §1 "t" forbid pass when true remove rule a.c "r"', "o.rules");
    expect(diagnostics).toEqual([]);
    expect(ast.decls.map((d) => d.k)).toEqual(["override", "remove"]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("modules", () => {
  it("a module's rules join the importing edition, cited by its key, with provenance", () => {
    const root = tree();
    const { edition, diagnostics } = load(root, "mini");
    expect(diagnostics).toEqual([]);
    const r = edition!.rules.find((x) => x.id === "pass.hand_limit")!;
    expect(r.citation).toEqual({ source: "mini", section: "11", text: "mini §11" });
    expect(r.pos).toEqual({ file: "dsl/modules/passing/pass.rules", line: 3, column: 6 });
    expect(r.provenance).toEqual({ module: "passing", edition: "mini", change: "defined" });
    expect(edition!.rules.find((x) => x.id === "dow.genoa")!.provenance).toEqual({ edition: "mini", change: "defined" });
    expect(edition!.modules).toEqual(["passing"]);
    expect(edition!.folder).toBe("mini");
    expect(edition!.inputs.map((i) => i.file)).toContain("dsl/modules/passing/pass.rules");
  });

  it("is type-checked in the importing edition's vocabulary: a name it lacks is reported at the module, naming the edition", () => {
    const root = tree({
      "modules/passing/pass.rules": PASSING + '\nrule pass.admin mini §11, other §"x" "t"\n  forbid pass when count(state.hands[power]) > state.rulers[power].admin\n',
    });
    const d = only(load(root, "mini").diagnostics, "RW2001");
    expect(d.message).toBe("unknown state field `rulers` (in module `passing`, checked for edition `mini`)");
    expect(at(d)).toBe("dsl/modules/passing/pass.rules:7:54");
  });

  it("picks the citation of the importing edition's key; a named section reads `key §\"…\"`", () => {
    const root = tree({ "mini/edition.rules": null });
    // a second edition of another game (key `other`) importing the same module
    fs.cpSync(path.join(MINI), path.join(root, "dsl/other"), { recursive: true });
    const ed = fs.readFileSync(path.join(root, "dsl/other/edition.rules"), "utf8").replace('edition mini "Mini Test Edition" cites "mini"', 'edition other "Other Game" cites "other"');
    fs.writeFileSync(path.join(root, "dsl/other/edition.rules"), ed + "\nimport passing\n");
    // the other game's own rules cite without a key: its own key
    const { edition, diagnostics } = load(root, "other");
    expect(diagnostics).toEqual([]);
    expect(edition!.rules.find((x) => x.id === "pass.hand_limit")!.citation).toEqual({ source: "other", section: "Action Phase: Pass", text: 'other §"Action Phase: Pass"', named: true });
    expect(edition!.rules.find((x) => x.id === "dow.genoa")!.citation.text).toBe("other §9.6");
  });

  it("RW2105: a module rule without a citation for the importing edition's key", () => {
    const root = tree({ "modules/passing/pass.rules": PASSING.replace("mini §11, ", "") });
    const d = only(load(root, "mini").diagnostics, "RW2105");
    expect(d.message).toBe("rule `pass.hand_limit` of module `passing` has no citation for `mini`, the `cites` key of this edition that imports it");
    expect(at(d)).toBe("dsl/modules/passing/pass.rules:3:22");
    expect(d.help).toBe("add `mini §<section>` to its citations (it cites `other`)");
  });

  it("RW2105: an edition rule whose keyed citations miss the edition's key", () => {
    const root = tree({ "mini/extra.rules": 'rule pass.extra vq §"Pass" "t"\n  forbid pass when false\n' });
    const d = only(load(root, "mini").diagnostics, "RW2105");
    expect(d.message).toBe("rule `pass.extra` has no citation for `mini`, the edition's `cites` key");
    expect(at(d)).toBe("dsl/mini/extra.rules:1:17");
  });

  it("RW2109: a citation without a game key in a module", () => {
    const root = tree({ "modules/passing/pass.rules": PASSING.replace("mini §11, ", "§11, ") });
    const d = only(load(root, "mini").diagnostics, "RW2109");
    expect(d.message).toBe("a citation in module `passing` needs a game key");
    expect(at(d)).toBe("dsl/modules/passing/pass.rules:3:22");
    expect(d.help).toContain("`mini §11`");
  });

  it("RW2101: an unknown module, with did-you-mean", () => {
    const root = tree({ "mini/more.rules": "import pasing\n" });
    const d = only(load(root, "mini").diagnostics, "RW2101");
    expect(d.message).toBe("unknown module `pasing`: no rule files in `dsl/modules/pasing`");
    expect(at(d)).toBe("dsl/mini/more.rules:1:8");
    expect(d.help).toBe("did you mean `passing`?");
  });

  it("RW2101 with no modules folder beside the edition (an edition copied out of its project): the hint says to copy the modules beside it", () => {
    const root = tree({ "modules/passing/pass.rules": null });
    fs.rmSync(path.join(root, "dsl/modules"), { recursive: true, force: true });
    const d = only(load(root, "mini").diagnostics, "RW2101");
    expect(d.message).toBe("unknown module `passing`: no rule files in `dsl/modules/passing`");
    expect(d.help).toBe("modules are found in `dsl/modules/<name>/`, a `modules` folder beside the edition's folder, and it holds none: an edition copied out of its project needs the modules it imports copied beside it (a bundled edition's are in rulewright's `dsl/modules`: `cp -r <rulewright>/dsl/modules dsl/`)");
  });

  it("RW2110: a module imported twice is a warning; its rules come once", () => {
    const root = tree({ "mini/more.rules": "import passing\n" });
    const { edition, diagnostics } = load(root, "mini");
    expect(diagnostics.map((d) => [d.code, d.severity, d.message, at(d)])).toEqual([["RW2110", "warning", "module `passing` is already imported", "dsl/mini/more.rules:1:1"]]);
    expect(edition!.rules.filter((r) => r.id === "pass.hand_limit")).toHaveLength(1);
  });

  it("RW2106: two modules defining one rule id", () => {
    const root = tree({
      "modules/other/o.rules": 'module other "Other"\nrule pass.hand_limit mini §11 "t"\n  forbid pass when false\n',
      "mini/more.rules": "import other\n",
    });
    const d = only(load(root, "mini").diagnostics, "RW2106");
    expect(d.message).toBe("rule `pass.hand_limit` is defined by both module `passing` and module `other`");
    expect(at(d)).toBe("dsl/modules/other/o.rules:2:6");
    expect(d.related?.[0]?.pos).toEqual({ file: "dsl/modules/passing/pass.rules", line: 3, column: 6 });
  });

  it("RW2106: a module rule and an edition rule with one id", () => {
    const root = tree({ "mini/more.rules": 'rule pass.hand_limit §11 "t"\n  forbid pass when false\n' });
    const d = only(load(root, "mini").diagnostics, "RW2106");
    expect(d.message).toBe("rule `pass.hand_limit` is defined by both module `passing` and edition `mini`");
    expect(at(d)).toBe("dsl/mini/more.rules:1:6");
  });

  it("RW2107: declarations a module may not hold", () => {
    const root = tree({
      "modules/passing/more.rules": 'enum Extra { a, b }\nimport passing\nremove rule dow.genoa "x"\nschema "s.json"\n',
    });
    const ds = errors(load(root, "mini").diagnostics);
    expect(ds.map((d) => [d.code, d.message, at(d)])).toEqual([
      ["RW2107", "`enum` is not allowed in a module", "dsl/modules/passing/more.rules:1:1"],
      ["RW2107", "`import` is not allowed in a module", "dsl/modules/passing/more.rules:2:1"],
      ["RW2107", "`remove rule` is not allowed in a module", "dsl/modules/passing/more.rules:3:1"],
      ["RW2107", "`schema` is not allowed in a module", "dsl/modules/passing/more.rules:4:1"],
    ]);
    expect(ds[0]!.help).toBe("enums belong to editions: declare it in the editions that import `passing`; the module uses their names");
  });

  it("RW2108: a module declaration naming another folder, a missing one, a second one", () => {
    let d = only(load(tree({ "modules/passing/pass.rules": PASSING.replace("module passing", "module pasing") }), "mini").diagnostics, "RW2108");
    expect(d.message).toBe("module `pasing` is in folder `passing`");
    expect(at(d)).toBe("dsl/modules/passing/pass.rules:1:8");
    d = only(load(tree({ "modules/passing/pass.rules": PASSING.replace(/^module.*\n/, "") }), "mini").diagnostics, "RW2108");
    expect(d.message).toBe("module folder `dsl/modules/passing` has no `module` declaration");
    expect(d.help).toBe('add `module passing "<title>"` to one of its files');
    d = only(load(tree({ "modules/passing/z.rules": 'module passing "again"\n' }), "mini").diagnostics, "RW2108");
    expect([d.message, at(d)]).toEqual(["second `module` declaration", "dsl/modules/passing/z.rules:1:1"]);
  });

  it("RW2107: a module folder is not an edition, and an edition folder holds no module declaration", () => {
    let d = only(load(tree(), "modules/passing").diagnostics, "RW2107");
    expect(d.message).toBe("`dsl/modules/passing` is a module, not an edition");
    d = only(load(tree({ "mini/m.rules": 'module mini "x"\n' }), "mini").diagnostics, "RW2107");
    expect([d.message, at(d)]).toEqual(["a `module` declaration in an edition folder", "dsl/mini/m.rules:1:1"]);
  });

  it("the input hash covers the module's files", () => {
    const a = load(tree(), "mini").edition!;
    const b = load(tree({ "modules/passing/pass.rules": PASSING.replace("> 2", "> 1") }), "mini").edition!;
    expect(a.inputs.map((i) => i.file)).toEqual(b.inputs.map((i) => i.file));
    expect(a.inputHash).not.toBe(b.inputHash);
  });
});

// ---------------------------------------------------------------------------------------------

describe("variant editions", () => {
  it("inherit, override, remove and add rules, with provenance and the removal recorded", () => {
    const root = tree({ "mini-v/v.rules": VARIANT });
    const { edition: v, diagnostics } = load(root, "mini-v");
    expect(diagnostics).toEqual([]);
    const base = load(root, "mini").edition!;
    expect(v!.name).toBe("mini_v");
    expect(v!.folder).toBe("mini-v");
    expect(v!.parent).toBe("mini");
    expect(v!.modules).toEqual(["passing"]);
    // overrides stand where the parent's rule stood; removed rules are gone; added ones come last
    expect(v!.rules.map((r) => r.id)).toEqual([...base.rules.map((r) => r.id).filter((id) => id !== "move.cap"), "dow.green"]);
    const genoa = v!.rules.find((r) => r.id === "dow.genoa")!;
    expect(genoa.title).toBe("only red may not declare war on Genoa");
    expect(genoa.pos).toEqual({ file: "dsl/mini-v/v.rules", line: 3, column: 15 });
    expect(genoa.provenance).toEqual({ edition: "mini-v", change: "overridden", replaces: { file: "dsl/mini/war.rules", line: 17, column: 6 } });
    expect(v!.rules.find((r) => r.id === "dow.green")!.provenance).toEqual({ edition: "mini-v", change: "added" });
    expect(v!.rules.find((r) => r.id === "dow.twice")!.provenance).toEqual({ edition: "mini", change: "defined" });
    expect(v!.rules.find((r) => r.id === "pass.hand_limit")!.provenance).toEqual({ module: "passing", edition: "mini", change: "defined" });
    expect(v!.removed).toEqual([
      { id: "move.cap", reason: "the variant has no crossing limit", edition: "mini-v", pos: { file: "dsl/mini-v/v.rules", line: 6, column: 1 }, removedPos: { file: "dsl/mini/war.rules", line: 27, column: 6 } },
    ]);
    // the parent's vocabulary, schema and board
    expect(v!.enums.map((e) => e.name)).toEqual(base.enums.map((e) => e.name));
    expect(v!.schema).toEqual(base.schema);
    expect(v!.board).toEqual(base.board);
    expect(v!.exemptions.map((e) => e.id)).toEqual(["move.truce"]);
    // the hash covers the parent's files, the module's and the variant's own
    expect(v!.inputs.map((i) => i.file)).toEqual([
      "dsl/mini-v/v.rules", "dsl/mini/board.json", "dsl/mini/edition.rules", "dsl/mini/state.schema.json", "dsl/mini/war.rules", "dsl/modules/passing/pass.rules",
    ]);
  });

  it("a variant's own schema replaces the parent's (the nearest in the chain), read from its own folder", () => {
    const schema = JSON.parse(fs.readFileSync(path.join(MINI, "state.schema.json"), "utf8"));
    schema.properties.bonus = { type: "integer", minimum: 0, maximum: 5 };
    schema.required.push("bonus");
    const root = tree({
      "mini-v/v.rules": VARIANT + '\nschema "state.schema.json"\nrule pass.bonus §11 "t"\n  forbid pass when state.bonus > 3\n',
      "mini-v/state.schema.json": JSON.stringify(schema, null, 2),
    });
    const { edition, diagnostics } = load(root, "mini-v");
    expect(diagnostics).toEqual([]);
    expect(edition!.state.fields.map((f) => f.name)).toContain("bonus");
    const files = edition!.inputs.map((i) => i.file);
    expect(files).toContain("dsl/mini-v/state.schema.json");
    expect(files).not.toContain("dsl/mini/state.schema.json");
    // the parent without it does not know the field
    const d = only(load(tree({ "mini/more.rules": 'rule pass.bonus §11 "t"\n  forbid pass when state.bonus > 3\n' }), "mini").diagnostics, "RW2001");
    expect(d.message).toContain("`bonus`");
  });

  it("a change in the parent's files changes the variant's input hash", () => {
    const a = load(tree({ "mini-v/v.rules": VARIANT }), "mini-v").edition!;
    const root = tree({ "mini-v/v.rules": VARIANT });
    fs.appendFileSync(path.join(root, "dsl/mini/war.rules"), "\n// a comment\n");
    const b = load(root, "mini-v").edition!;
    expect(a.inputHash).not.toBe(b.inputHash);
  });

  it("a variant of a variant: provenance names the edition that changed each rule", () => {
    const root = tree({
      "mini-v/v.rules": VARIANT,
      "mini-w/w.rules": 'edition mini_w "W" cites "mini" extends "mini-v"\nremove rule dow.green "w drops it"\n',
    });
    const { edition: w, diagnostics } = load(root, "mini-w");
    expect(diagnostics).toEqual([]);
    expect(w!.rules.find((r) => r.id === "dow.genoa")!.provenance?.edition).toBe("mini-v");
    expect(w!.removed!.map((x) => [x.id, x.edition])).toEqual([["move.cap", "mini-v"], ["dow.green", "mini-w"]]);
  });

  it("RW2102: an unknown parent, with did-you-mean and the folders tried", () => {
    const root = tree({ "mini-v/v.rules": VARIANT.replace('extends "mini"', 'extends "mnii"') });
    const d = only(load(root, "mini-v").diagnostics, "RW2102");
    expect(d.message).toMatch(/^unknown parent edition `mnii`: no edition folder at `dsl\/mnii`, /);
    expect(d.message).toContain("dsl/mnii`");
    expect(at(d)).toBe("dsl/mini-v/v.rules:1:53");
    expect(d.help).toBe("did you mean `mini`?");
  });

  it("RW2102: extending the modules folder; a path that holds no edition", () => {
    let d = only(load(tree({ "mini-v/v.rules": VARIANT.replace('extends "mini"', 'extends "modules"') }), "mini-v").diagnostics, "RW2102");
    expect(d.message).toBe("`extends` names no edition: `modules`");
    d = only(load(tree({ "mini-v/v.rules": VARIANT.replace('extends "mini"', 'extends "../nowhere"') }), "mini-v").diagnostics, "RW2102");
    expect(d.message).toBe("unknown parent edition `../nowhere`: no edition folder at `dsl/nowhere`");
  });

  it("extends by path: relative to the variant's folder, or absolute; a variant outside dsl/ (issue 28)", () => {
    const root = tree();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "rw-variant-"));
    try {
      for (const [dir, parent] of [[path.join(outside, "rel"), path.relative(path.join(outside, "rel"), path.join(root, "dsl/mini"))], [path.join(outside, "abs"), path.join(root, "dsl/mini")]] as const) {
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, "v.rules"), VARIANT.replace('extends "mini"', `extends ${JSON.stringify(parent.startsWith(".") || path.isAbsolute(parent) ? parent : "./" + parent)}`));
        const res = loadEdition(dir, { repoRoot: root });
        expect(errors(res.diagnostics)).toEqual([]);
        expect(res.edition!.parent).toBe("mini");
        expect(res.edition!.rules.some((r) => r.id === "pass.hand_limit")).toBe(true);
      }
      // a plain name not beside the variant: the project's dsl/<name>
      const plain = path.join(outside, "plain");
      fs.mkdirSync(plain);
      fs.writeFileSync(path.join(plain, "v.rules"), VARIANT);
      expect(errors(loadEdition(plain, { repoRoot: root }).diagnostics)).toEqual([]);
      // an installed package's edition: node_modules/<package>/dsl/<edition> above the variant
      const pkg = path.join(outside, "node_modules/@acme/rules");
      fs.mkdirSync(path.join(pkg, "dsl"), { recursive: true });
      fs.writeFileSync(path.join(pkg, "package.json"), '{ "name": "@acme/rules" }');
      fs.cpSync(path.join(root, "dsl"), path.join(pkg, "dsl"), { recursive: true });
      const viaPkg = path.join(outside, "pkg");
      fs.mkdirSync(viaPkg);
      fs.writeFileSync(path.join(viaPkg, "v.rules"), VARIANT.replace('extends "mini"', 'extends "@acme/rules/mini"'));
      const res = loadEdition(viaPkg, { repoRoot: root });
      expect(errors(res.diagnostics)).toEqual([]);
      expect(res.parentDir).toBe(path.join(pkg, "dsl/mini"));
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("RW2103: a cycle in extends", () => {
    const root = tree({
      "a/a.rules": 'edition a "A" cites "mini" extends "b"\n',
      "b/b.rules": 'edition b "B" cites "mini" extends "a"\n',
    });
    const d = only(load(root, "a").diagnostics, "RW2103");
    expect(d.message).toBe("cycle in `extends`: `a` → `b` → `a`");
    expect(at(d)).toBe("dsl/b/b.rules:1:36");
    expect(d.related?.map((x) => x.message)).toEqual(["`a` extends `b`"]);
    expect(only(load(tree({ "c/c.rules": 'edition c "C" cites "mini" extends "c"\n' }), "c").diagnostics, "RW2103").message).toBe("cycle in `extends`: `c` → `c`");
  });

  it("RW2104: overriding or removing an id the parent does not have, with did-you-mean", () => {
    const root = tree({ "mini-v/v.rules": VARIANT.replace("override rule dow.genoa", "override rule dow.genao").replace("remove rule move.cap", "remove rule move.cpa") });
    const ds = errors(load(root, "mini-v").diagnostics);
    expect(ds.map((d) => [d.code, d.message, at(d), d.help])).toEqual([
      ["RW2104", "cannot override rule `dow.genao`: the parent edition `mini` has no such rule", "dsl/mini-v/v.rules:3:15", "did you mean `dow.genoa`?"],
      ["RW2104", "cannot remove rule `move.cpa`: the parent edition `mini` has no such rule", "dsl/mini-v/v.rules:6:13", "did you mean `move.cap`?"],
    ]);
  });

  it("RW2104: a rule an ancestor removed cannot be overridden", () => {
    const root = tree({
      "mini-v/v.rules": VARIANT,
      "mini-w/w.rules": 'edition mini_w "W" cites "mini" extends "mini-v"\noverride rule move.cap §10 "t" forbid move when false\n',
    });
    const d = only(load(root, "mini-w").diagnostics, "RW2104");
    expect(d.message).toBe("cannot override rule `move.cap`: edition `mini-v` removed it");
  });

  it("RW2106: a variant redefining an inherited id without `override`", () => {
    const root = tree({ "mini-v/v.rules": VARIANT + '\nrule dow.twice §9.6 "again"\n  forbid declare_war when false\n' });
    const d = only(load(root, "mini-v").diagnostics, "RW2106");
    expect(d.message).toBe("rule `dow.twice` is already defined by edition `mini`");
    expect(at(d)).toBe("dsl/mini-v/v.rules:11:6");
    expect(d.help).toBe('to replace the parent\'s rule write `override rule dow.twice …`; to drop it, `remove rule dow.twice "<reason>"`');
  });

  it("RW2107: override or remove in an edition that extends nothing", () => {
    const d = only(load(tree({ "mini/more.rules": 'remove rule dow.genoa "x"\n' }), "mini").diagnostics, "RW2107");
    expect(d.message).toBe("`remove rule` outside a variant edition");
    expect(at(d)).toBe("dsl/mini/more.rules:1:13");
  });

  it("RW2111: one rule overridden or removed twice", () => {
    const d = only(load(tree({ "mini-v/v.rules": VARIANT + '\nremove rule dow.genoa "again"\n' }), "mini-v").diagnostics, "RW2111");
    expect(d.message).toBe("rule `dow.genoa` is already overridden by this edition");
    expect(at(d)).toBe("dsl/mini-v/v.rules:11:13");
  });

  it("an inherited exemption that names a removed rule keeps working", () => {
    const root = tree({
      "mini/more.rules": 'exempt pass.lift §11 "t" lifts pass.card when false\n',
      "mini-v/v.rules": 'edition mini_v "V" cites "mini" extends "mini"\nremove rule pass.card "gone"\n',
    });
    expect(load(root, "mini").diagnostics).toEqual([]);
    const { diagnostics } = load(root, "mini-v");
    expect(diagnostics.map((d) => d.code)).toEqual(["RW2021"]);
  });

  it("the CLI's bundled editions are the folders with an `edition` declaration (variants yes, modules no)", () => {
    const root = tree({ "mini-v/v.rules": VARIANT, "notes/x.rules": "// edition nothing here: only a comment\n" });
    expect(bundledEditions(root)).toEqual(["mini", "mini-v"]);
  });

  it("every new code is in the catalog with its severity", () => {
    for (const code of ["RW1101", "RW1102", "RW2101", "RW2102", "RW2103", "RW2104", "RW2105", "RW2106", "RW2107", "RW2108", "RW2109", "RW2110", "RW2111"]) {
      expect(CATALOG).toHaveProperty(code);
    }
    expect(CATALOG.RW2110.severity).toBe("warning");
  });
});

// ---------------------------------------------------------------------------------------------

describe("the generated catalogue", () => {
  it("carries each rule's provenance and the removed rules", async () => {
    const v = load(tree({ "mini-v/v.rules": VARIANT }), "mini-v").edition!;
    const files = await generateEdition(v);
    expect(files.map((f) => f.path)).toContain("generated/mini-v/rules.ts");
    const rules = files.find((f) => f.path === "generated/mini-v/rules.ts")!.content;
    expect(rules).toContain("// Regenerate with `npx rulewright build mini-v`.");
    const row = (id: string) => rules.split("\n").find((l) => l.includes(`id: "${id}"`)) ?? "";
    expect(row("dow.genoa")).toContain('file: "dsl/mini-v/v.rules", line: 3, column: 15, module: null, edition: "mini-v", change: "overridden"');
    expect(row("dow.green")).toContain('edition: "mini-v", change: "added"');
    expect(row("dow.twice")).toContain('file: "dsl/mini/war.rules", line: 20, column: 6, module: null, edition: "mini", change: "defined"');
    expect(row("pass.hand_limit")).toContain('citation: "mini §11"');
    expect(row("pass.hand_limit")).toContain('file: "dsl/modules/passing/pass.rules", line: 3, column: 6, module: "passing", edition: "mini", change: "defined"');
    expect(rules).toMatch(/export const REMOVED_RULES: readonly RemovedRuleInfo\[\] = Object\.freeze\(\[\n {2}\{ id: "move\.cap", reason: "the variant has no crossing limit", edition: "mini-v", file: "dsl\/mini-v\/v\.rules", line: 6, removedFile: "dsl\/mini\/war\.rules", removedLine: 27 \},\n\]\);/);
  });
});

describe("tables in modules and variants", () => {
  const DIE = `module dice "A shared die table"

table move_bonus mini §7, other §"Movement" "the bonus one die gives" (die: int in 1..6): int {
  <= 3: 0
  >= 4: 1
}
`;
  it("a module's table is checked in the importing edition, cited by its key, and inherited by a variant", () => {
    const root = tree({ "modules/dice/dice.rules": DIE, "mini/more.rules": "import dice\n", "mini-v/v.rules": 'edition mini_v "Mini, variant" cites "mini" extends "mini"\n' });
    const base = load(root, "mini");
    expect(errors(base.diagnostics)).toEqual([]);
    const t = base.edition!.tables!.find((x) => x.name === "move_bonus")!;
    expect(t.citation).toEqual({ source: "mini", section: "7", text: "mini §7" });
    expect(t.pos.file).toBe("dsl/modules/dice/dice.rules");
    const v = load(root, "mini-v");
    expect(errors(v.diagnostics)).toEqual([]);
    expect(v.edition!.tables!.find((x) => x.name === "move_bonus")).toEqual(t);
  });

  it("a module's table needs keyed citations (RW2109), one for the importing edition's key (RW2105)", () => {
    const unkeyed = only(load(tree({ "modules/dice/dice.rules": DIE.replace("mini §7, other §\"Movement\"", "§7"), "mini/more.rules": "import dice\n" }), "mini").diagnostics, "RW2109");
    expect(unkeyed.file).toBe("dsl/modules/dice/dice.rules");
    const missing = only(load(tree({ "modules/dice/dice.rules": DIE.replace("mini §7, ", ""), "mini/more.rules": "import dice\n" }), "mini").diagnostics, "RW2105");
    expect(missing.message).toContain("table `move_bonus` of module `dice` has no citation for `mini`");
  });
});
