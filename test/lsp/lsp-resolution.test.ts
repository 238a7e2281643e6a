/**
 * The language server's names are the checker's (issue 24): go-to-definition, references, rename
 * and the symbol index read the checker's resolution table (compiler/check/resolution.ts) instead
 * of resolving names again. Checked on the mini edition with an unsaved rule file whose bound
 * variables shadow a def's parameter (`a`) and an action's parameter (`target`): every use and
 * declaration the checker recorded is found at its place by the language server with the same
 * declaration, the shadowed parameters have no uses, and a rename of the bound variable leaves
 * the parameter alone. A file with a syntax error elsewhere still has its names (the checker's,
 * on the declarations that parse).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeatureContext } from "../../compiler/lsp/context.js";
import { definition, occurrencesOf } from "../../compiler/lsp/navigation.js";
import { Project } from "../../compiler/lsp/project.js";
import { rename } from "../../compiler/lsp/rename.js";

const MINI = path.resolve(import.meta.dirname, "../fixtures/frontend/mini");
const SHADOW = [
  "def hostile(a: Power): bool = some a in MajorPower: at_war(a, a)",
  "",
  'rule shadow.q §9.6 "a bound variable named like the action\'s parameter"',
  "  forbid declare_war when some target in MajorPower: target = by and at_war(by, target)",
  "",
].join("\n");

let root: string;
let dir: string;
let file: string;
let project: Project;
let ctx: FeatureContext;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "rw-lsp-resolution-"));
  dir = path.join(root, "dsl", "mini");
  fs.cpSync(MINI, dir, { recursive: true });
  file = path.join(dir, "shadow.rules"); // an unsaved buffer: not on disk
  project = new Project(root);
  project.open.set(file, { text: SHADOW, version: 1 });
  ctx = new FeatureContext(project);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** The 1-based column of the `n`-th (0-based) whole-word `word` on line `line` of SHADOW. */
function col(line: number, word: string, n = 0): number {
  const re = new RegExp(`\\b${word}\\b`, "g");
  const m = [...SHADOW.split("\n")[line - 1]!.matchAll(re)][n];
  if (!m) throw new Error(`no ${word} #${n} on line ${line}`);
  return m.index! + 1;
}

describe("the language server resolves names as the checker does", () => {
  it("every use and declaration of the checker's table is found at its place with the same declaration", () => {
    expect(project.check(dir).diagnostics).toEqual([]);
    const res = project.resolutionOf(dir);
    const rel = project.rel(file);
    const uses = res.uses.filter((u) => u.file === rel);
    const decls = [...res.decls.values()].filter((d) => d.file === rel);
    expect(uses.length).toBeGreaterThan(8);
    for (const u of uses) {
      const hits = ctx.at(file, u.span.line, u.span.column);
      expect(hits.map((h) => h.occ.key), `${u.span.line}:${u.span.column}`).toEqual([u.key]);
      const d = res.declaration(u.key)!;
      expect(definition(ctx, file, u.span.line, u.span.column)).toEqual([{ file: project.abs(d.file), span: d.span }]);
    }
    for (const d of decls) expect(ctx.at(file, d.span.line, d.span.column).map((h) => h.occ.key)).toEqual([d.key]);
  });

  it("a bound variable shadows a def's and an action's parameter: uses go to the variable, the parameters have none", () => {
    // `a` in `at_war(a, a)` is the quantifier's, not the def's parameter
    const [def] = definition(ctx, file, 1, col(1, "a", 2));
    expect(def).toEqual({ file, span: { line: 1, column: col(1, "a", 1), endLine: 1, endColumn: col(1, "a", 1) + 1 } });
    expect(occurrencesOf(ctx, file, 1, col(1, "a", 0), false)).toEqual([]);
    // `target` after `some target in`: the bound variable, three places; the action's parameter is not among them
    const places = occurrencesOf(ctx, file, 4, col(4, "target", 2), true).map((o) => `${o.span.line}:${o.span.column}`);
    expect(places).toEqual([4, 4, 4].map((l, i) => `${l}:${col(4, "target", i)}`));
    const param = definition(ctx, file, 4, col(4, "by"))[0]!;
    expect(path.basename(param.file)).not.toBe("shadow.rules");
  });

  it("renaming the bound variable edits its three places only", () => {
    const edits = rename(ctx, file, 4, col(4, "target", 1), "rival")!;
    expect([...edits.keys()]).toEqual([file]);
    expect(edits.get(file)!.map((e) => e.span.column)).toEqual([0, 1, 2].map((i) => col(4, "target", i)));
  });

  it("with a syntax error in another declaration of the file, its names still resolve (the checker's, on what parses)", () => {
    project.open.set(file, { text: SHADOW + 'rule broken §1 "half typed"\n  forbid declare_war when (\n', version: 2 });
    project.invalidate();
    ctx.generation++;
    expect(project.check(dir).diagnostics.map((d) => d.code)).toContain("RW1004");
    expect(ctx.at(file, 4, col(4, "target", 2)).map((h) => h.occ.key)).toEqual([`local:dsl/mini/shadow.rules:4:${col(4, "target")}`]);
    project.open.set(file, { text: SHADOW, version: 3 });
    project.invalidate();
    ctx.generation++;
  });
});
