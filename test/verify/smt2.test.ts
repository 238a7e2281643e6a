/**
 * The canonical SMT-LIB re-printer (compiler/verify/run/smt2.ts) on `let` nesting as Z3 prints it
 * for large assertions: thousands of nested lets must neither overflow the stack nor change the
 * meaning (parallel bindings, shadowing).
 */
import { describe, expect, it } from "vitest";
import { canonicalSmt2 } from "../../compiler/verify/run/smt2.js";

describe("canonicalSmt2", () => {
  it("expands parallel and shadowing lets", () => {
    // x is rebound in parallel: the inner y reads the outer x
    const out = canonicalSmt2("(assert (let ((x a) (y b)) (let ((x (f y)) (y x)) (g x y))))");
    expect(out).toBe("(assert\n (g (f b) a))\n");
  });

  it("keeps a binding local to its body", () => {
    expect(canonicalSmt2("(assert (and (let ((x p)) (not x)) x))")).toBe("(assert\n (and (not p) x))\n");
  });

  it("handles 20 000 nested lets without overflowing the stack", () => {
    const n = 20_000;
    let text = "(assert ";
    for (let i = 1; i <= n; i++) text += `(let ((a!${i} (f ${i === 1 ? "z" : `a!${i - 1}`} ${i === 1 ? "z" : `a!${i - 1}`}))) `;
    text += `(p a!${n})` + ")".repeat(n) + ")";
    const out = canonicalSmt2(text);
    // every f-term is used twice by the next one, so each is bound once: ?t1 … ?t(n-1)
    expect(out.startsWith("(assert\n (let ((?t1 (f z z)))\n (let ((?t2 (f ?t1 ?t1)))")).toBe(true);
    expect(out).toContain(`(p (f ?t${n - 1} ?t${n - 1}))`);
  });
});
