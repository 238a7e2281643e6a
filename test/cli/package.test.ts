/**
 * The package as an engine author meets it (issue 17): `rulewright init` scaffolds an edition
 * that builds and tests as it is, `build --out` writes the validators anywhere, the validators
 * load inside a CommonJS project (no "require() … in a cycle"), and package.json describes an
 * installable package. The packed tarball itself is installed and run by scripts/pack-check.sh
 * (`npm run pack:check`, a .ci/run step), which needs dist/ and an npm install: not a unit test.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const REPO = process.cwd();
const BIN = path.join(REPO, "bin/rulewright.mjs");

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A fresh project folder; `type` "commonjs" writes no `"type"` (Node's default). */
function project(type: "commonjs" | "module"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-pkg-"));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, ...(type === "module" ? { type } : {}) }));
  return dir;
}

describe("rulewright init, build --out, in a CommonJS project", () => {
  it("scaffolds an edition under dsl/ that builds and loads in a CommonJS project (no require cycle)", () => {
    const dir = project("commonjs");
    const init = run(["init", "dsl/my-game"], dir);
    expect(init.code).toBe(0);
    expect(fs.readdirSync(path.join(dir, "dsl/my-game")).sort()).toEqual(["README.md", "board.json", "edition.rules", "scenarios", "state.schema.json", "turn.rules"]);
    expect(run(["build", "my-game"], dir).code).toBe(0);
    expect(fs.readdirSync(path.join(dir, "generated/my-game"))).toContain("validators.ts");
    fs.writeFileSync(path.join(dir, "s.json"), '{ "active_player": "red", "round": 1 }');
    fs.writeFileSync(path.join(dir, "a.json"), '{ "action": "pass", "player": "blue" }');
    // before: "the generated validators in `generated/my-game` do not load: Cannot require() ES Module … in a cycle"
    const check = run(["check", "--edition", "my-game", "--state", "s.json", "--action", "a.json"], dir);
    expect(check.err).not.toContain("cycle");
    expect(check.code).toBe(1);
    expect(check.out).toContain("turn.active_only (my_game §1)");
  }, 600_000);

  it("builds a folder edition only with --out, and writes exactly the generated files there", async () => {
    const dir = project("module");
    const { scaffoldFiles, editionName } = await import("../../compiler/cli/init.js");
    expect(editionName(path.join(dir, "My Rules-2"))).toBe("my_rules_2");
    for (const [rel, content] of Object.entries(scaffoldFiles("rules", "rules"))) {
      fs.mkdirSync(path.dirname(path.join(dir, "rules", rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, "rules", rel), content);
    }
    const without = run(["build", "rules"], dir);
    expect(without.code).toBe(2);
    expect(without.err).toContain("--out <dir>");
    const withOut = run(["build", "rules", "--out", "src/validators", "--format", "json"], dir);
    expect(withOut.code).toBe(0);
    // the files of a bundled edition's generated/<edition>/, here in --out
    const names = fs.readdirSync(path.join(REPO, "generated/his")).sort();
    expect(names).toEqual(expect.arrayContaining(["index.ts", "validators.ts"]));
    expect(JSON.parse(withOut.out).results[0].files.map((f: string) => path.relative("src/validators", f)).sort()).toEqual(names);
    expect(fs.readdirSync(path.join(dir, "src/validators")).sort()).toEqual(names);
    expect(fs.readFileSync(path.join(dir, "src/validators/validators.ts"), "utf8")).toContain("turn.active_only");
  }, 600_000);

  it("refuses to scaffold into a folder that is not empty, and --out with two editions", async () => {
    const dir = project("module");
    fs.mkdirSync(path.join(dir, "taken"));
    fs.writeFileSync(path.join(dir, "taken/x.txt"), "");
    const { initCommand } = await import("../../compiler/cli/init.js");
    const { buildCommand } = await import("../../compiler/cli/build.js");
    await expect(initCommand(path.join(dir, "taken"), { format: "json" })).rejects.toThrow("already exists and is not an empty folder");
    await expect(buildCommand(["his", "vq"], { format: "json", out: path.join(dir, "x") })).rejects.toThrow("--out takes one edition");
    expect(fs.existsSync(path.join(dir, "x"))).toBe(false);
  });
});

describe("package.json: an installable package", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8"));
  it("is public, runs compiled code when installed and needs no TypeScript runner at run time", () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.dependencies.tsx).toBeUndefined();
    expect(pkg.dependencies.typescript).toBeUndefined();
    expect(pkg.devDependencies.tsx).toBeDefined();
    // the bin runs dist/ when the sources are not beside it (the installed package ships no compiler/)
    expect(fs.readFileSync(path.join(REPO, pkg.bin.rulewright), "utf8")).toContain("../dist/cli/main.js");
    expect(pkg.files).toEqual(expect.arrayContaining(["dist", "bin", "dsl"]));
    expect(pkg.files.some((f: string) => /^(compiler|test|generated)/.test(f))).toBe(false);
    expect(pkg.scripts.prepack).toContain("build-dist");
  });
  it("exports the library from dist/ with declarations, for import and require", () => {
    for (const [sub, target] of Object.entries(pkg.exports as Record<string, string | { types: string; default: string }>)) {
      if (typeof target === "string") continue;
      expect(target.default, sub).toMatch(/^\.\/dist\/.*\.js$/);
      expect(target.types, sub).toBe(target.default.replace(/\.js$/, ".d.ts"));
      // a condition `import` alone would leave require() without a target
      expect(Object.keys(target), sub).toEqual(["types", "default"]);
      if (!sub.includes("*")) expect(fs.existsSync(path.join(REPO, "compiler", target.default.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"))), sub).toBe(true);
    }
    expect(Object.keys(pkg.exports)).toEqual(expect.arrayContaining([".", "./verify", "./editions/*"]));
  });
});
