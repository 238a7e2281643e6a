/**
 * The hover's reading of a condition (compiler/lsp/reading.ts) keeps the AST's grouping: an
 * operand whose words would be regrouped by the words around it is in parentheses. Checked on
 * `dow.scotland` (it read "… is Scotland and … is one of {…} or …", the `or` no longer under the
 * `and`) and over every rule of the bundled rule files: at every binary operator of a condition,
 * each operand's reading is either bracketed, or has no connective at its top level that binds
 * more loosely than the operator (found by scanning the words, not by the reader's own rules).
 * Before the fix this listed 5 rules whose `or` lost its brackets under an `and` (dow.scotland,
 * dow.scotland_french_peace, dow.segment, dow.venice_papal, defence.step_order) and 12 whose
 * quantifier, read unbracketed after an `and`, ran on into the words that followed.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readExpr, readRule } from "../../compiler/lsp/reading.js";
import { parseRules } from "../../compiler/syntax/index.js";
import type { Expr, RuleDecl } from "../../compiler/syntax/ast.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const ruleFilesUnder = (d: string): string[] =>
  fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? ruleFilesUnder(path.join(d, e.name)) : e.name.endsWith(".rules") ? [path.join(d, e.name)] : []));

function bundledRules(): RuleDecl[] {
  const out: RuleDecl[] = [];
  for (const f of ruleFilesUnder(path.join(REPO, "dsl")).sort()) {
    for (const d of parseRules(fs.readFileSync(f, "utf8"), f).ast.decls) {
      if (d.k === "rule") out.push(d);
      if (d.k === "override") out.push(d.rule);
    }
  }
  return out;
}

/** The words of a reading at its top level: what is inside (), {}, `…` and "…" blanked out. */
function topLevel(s: string): string {
  let out = "";
  let depth = 0;
  let quote: string | undefined;
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = undefined;
      out += " ";
    } else if (ch === "`" || ch === '"') {
      quote = ch;
      out += " ";
    } else if (ch === "(" || ch === "{") {
      depth++;
      out += " ";
    } else if (ch === ")" || ch === "}") {
      depth--;
      out += " ";
    } else out += depth ? " " : ch;
  }
  return out;
}

/** How loosely the loosest connective at the top level of a reading binds (0 loosest; 9: none). */
function loosest(reading: string): number {
  const t = ` ${topLevel(reading)} `;
  const words: [RegExp, number][] = [
    [/ has | where /, 0], [/^ if | then /, 1], [/ or /, 2], [/ and /, 3],
    [/ is (not |less than |at most |more than |at least |one of |none of )?/, 5], [/ plus | \S+ minus /, 6], [/ times /, 7],
  ];
  let min = 9;
  for (const [re, s] of words) if (re.test(t)) min = Math.min(min, s);
  return min;
}

const STRENGTH: Record<string, number> = { implies: 1, or: 2, and: 3, "+": 6, "-": 6, "*": 7 };
const ASSOC = new Set(["and", "or", "+", "*"]);

/** Every binary operator of `e` whose operand reads with a looser connective, unbracketed. */
function regrouped(e: Expr, out: string[] = []): string[] {
  const kids = Object.values(e).flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v): v is Expr => !!v && typeof v === "object" && "k" in v && "span" in v);
  if (e.k === "bin") {
    const whole = readExpr(e);
    const own = STRENGTH[e.op] ?? 5;
    for (const [side, x] of [["left", e.left], ["right", e.right]] as const) {
      const r = readExpr(x);
      const bracketed = side === "left" ? whole.startsWith(`(${r})`) || whole.startsWith(`if (${r})`) : whole.endsWith(`(${r})`);
      if (bracketed) continue;
      const l = loosest(r);
      const bad = l < own || (l === own && (side === "right" ? !ASSOC.has(e.op) : own === 5 || own === 1));
      if (bad) out.push(`${e.op} ${side}: "${r}" in "${whole}"`);
    }
  }
  for (const k of kids) regrouped(k, out);
  return out;
}

describe("hover reading: grouping", () => {
  it("dow.scotland: the `or` in parentheses stays under the `and`", () => {
    const r = bundledRules().find((x) => x.id.name === "dow.scotland")!;
    expect(readRule(r)).toBe(
      "`declare_war` is forbidden when `target` is `scotland` and (`by` is one of {`ottoman`, `papacy`, `protestant`} or `allied`(`by`, `france`))",
    );
  });

  it("operands that would be regrouped are bracketed; ones that would not, are not", () => {
    const cond = (src: string) => (parseRules(`rule a.b §1 "t"\n  forbid pass when ${src}\n`, "x.rules").ast.decls[0] as RuleDecl).when;
    expect(readExpr(cond("a or b and c"))).toBe("`a` or `b` and `c`");
    expect(readExpr(cond("(a or b) and c"))).toBe("(`a` or `b`) and `c`");
    expect(readExpr(cond("(x + 1) * 2 > 3"))).toBe("(`x` plus 1) times 2 is more than 3");
    expect(readExpr(cond("x - (y - 1) = 0"))).toBe("`x` minus (`y` minus 1) is 0");
    expect(readExpr(cond("x - y - 1 = 0"))).toBe("`x` minus `y` minus 1 is 0");
    expect(readExpr(cond("(some c in s: c = 1) and d"))).toBe("(some `c` in `s` has `c` is 1) and `d`");
    expect(readExpr(cond("a and (b implies c)"))).toBe("`a` and (if `b` then `c`)");
    expect(readExpr(cond("-(x + 1) < 0"))).toBe("minus (`x` plus 1) is less than 0");
  });

  it("every bundled rule reads with the grouping of its AST", () => {
    const rules = bundledRules();
    expect(rules.length).toBeGreaterThan(200);
    const wrong = rules.flatMap((r) => regrouped(r.when).map((w) => `${r.id.name}: ${w}`));
    expect(wrong).toEqual([]);
  });
});
