/**
 * `rulewright explain RWxxxx`: every diagnostic code the compiler can emit has a page (what it
 * means, a wrong and a right example, the fix), and the command shows it.
 */
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadEdition } from "../../compiler/check/index.js";
import { CATALOG } from "../../compiler/diagnostics/catalog.js";
import { EXPLANATIONS, explainCode } from "../../compiler/diagnostics/explain.js";

const REPO = process.cwd();

/** Every `"RWdddd"` string literal in the compiler's sources but the catalog and the pages. */
function codesInSources(): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|mjs)$/.test(e.name) && !p.endsWith(path.join("diagnostics", "catalog.ts")) && !p.endsWith(path.join("diagnostics", "explain.ts"))) {
        for (const m of fs.readFileSync(p, "utf8").matchAll(/["'`](RW\d{4})["'`]/g)) if (!found.has(m[1])) found.set(m[1], path.relative(REPO, p));
      }
    }
  };
  walk(path.join(REPO, "compiler"));
  return found;
}

describe("diagnostic code pages", () => {
  it("every code named in the compiler's sources is in the catalog and has a page", () => {
    const codes = codesInSources();
    expect(codes.size).toBeGreaterThan(70);
    const missing = [...codes].filter(([c]) => !(c in EXPLANATIONS) || !(c in CATALOG)).map(([c, f]) => `${c} (${f})`);
    expect(missing).toEqual([]);
  });

  it("every catalog code has a complete page: meaning, a wrong and a different right example, a fix", () => {
    for (const code of Object.keys(CATALOG) as (keyof typeof CATALOG)[]) {
      const e = EXPLANATIONS[code];
      expect(e, code).toBeDefined();
      for (const k of ["meaning", "wrong", "right", "fix"] as const) expect(e[k].trim().length, `${code}.${k}`).toBeGreaterThan(5);
      expect(e.wrong, code).not.toBe(e.right);
    }
    expect(Object.keys(EXPLANATIONS).sort()).toEqual(Object.keys(CATALOG).sort());
  });

  it("explainCode renders the page, case-insensitively; an unknown code has none", () => {
    const lines = explainCode("rw2001")!;
    expect(lines[0]).toBe(`RW2001 (error): ${CATALOG.RW2001.summary}`);
    expect(lines).toContain("Wrong:");
    expect(lines).toContain("Right:");
    expect(lines.at(-1)).toMatch(/^Fix: /);
    expect(explainCode("RW9999")).toBeUndefined();
  });

  it("rulewright explain RW2001 prints the page, --format json its fields; an unknown code exits 2 with a hint", async () => {
    const { main } = await import("../../compiler/cli/main.js");
    const out: string[] = [];
    const err: string[] = [];
    const ow = process.stdout.write.bind(process.stdout);
    const ew = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((s: string) => (out.push(String(s)), true)) as typeof process.stdout.write;
    process.stderr.write = ((s: string) => (err.push(String(s)), true)) as typeof process.stderr.write;
    let codes: number[];
    try {
      codes = [await main(["explain", "RW2001"])];
      const text = out.splice(0).join("");
      expect(text).toContain("RW2001 (error): unknown state or record field");
      expect(text).toContain("state.hands[power]");
      codes.push(await main(["explain", "rw3104", "--format", "json"]), await main(["explain", "RW9999"]));
    } finally {
      process.stdout.write = ow;
      process.stderr.write = ew;
    }
    expect(codes).toEqual([0, 0, 2]);
    expect(JSON.parse(out.join(""))).toMatchObject({ code: "RW3104", severity: "error", fix: expect.stringContaining(".field") });
    expect(err.join("")).toContain("no diagnostic code `RW9999`");
    // the range is the catalog's, not a literal (it once said RW5011 while the catalog went on to RW5013)
    const all = Object.keys(CATALOG).sort();
    expect(err.join("")).toContain(`codes are ${all[0]}–${all[all.length - 1]}`);
    expect(err.join("")).not.toMatch(/at .*\.ts:\d+/);
  });

  // The examples of these pages, added to the tiny fixture edition (test/fixtures/frontend/mini,
  // which has `pass(actor power)`, `declare_war(actor by, target)`, `state.hands`, `at_war`):
  // the wrong one gets the code, the right one does not. A bare `forbid …`/`oblige …` gets a rule head.
  it.each(["RW1001", "RW1002", "RW1003", "RW1006", "RW2001", "RW2002", "RW2005", "RW2006", "RW2007", "RW2010", "RW3001", "RW3003"] as const)("the examples of %s compile as the page says", (code) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rw-explain-"));
    try {
      const codes = (snippet: string): string[] => {
        const ed = path.join(dir, "mini");
        fs.rmSync(ed, { recursive: true, force: true });
        fs.cpSync(path.join(REPO, "test/fixtures/frontend/mini"), ed, { recursive: true });
        const bare = snippet.replace(/…/g, "x");
        const text = /^\s*(forbid|oblige) /.test(bare) ? `rule ex.example §1 "example"\n  ${bare.trim()}` : bare;
        fs.writeFileSync(path.join(ed, "example.rules"), text + "\n");
        return loadEdition("mini", { repoRoot: dir }).diagnostics.filter((d) => d.file.endsWith("example.rules")).map((d) => d.code);
      };
      const e = EXPLANATIONS[code];
      expect(codes(e.wrong), `wrong: ${e.wrong}`).toContain(code);
      expect(codes(e.right), `right: ${e.right}`).not.toContain(code);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
