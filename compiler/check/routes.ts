/**
 * Pass "routes": the bodies of every route (`land`/`sea`/`port` clauses over their space
 * variable, `max_seas`, `passes`; a second clause of a kind is RW2009), typed and lowered to
 * `IRRoute` (an absent clause is `true`).
 */
import type { Span } from "../diagnostics/types.js";
import type { Expr, IRRoute } from "../ir/types.js";
import { BOOL, irParam, paramCtx, type Checking } from "./context.js";
import { enumType } from "./env.js";
import type { ExprChecker } from "./expr.js";
import { localKey } from "./resolution.js";
import { posOf } from "./util.js";

/** Checks and lowers the routes (those whose signature resolved), in declaration order. */
export function checkRoutes(c: Checking, ex: ExprChecker): IRRoute[] {
  const { env, rep, res } = c;
  const irRoutes: IRRoute[] = [];
  const space = enumType(env, "Space");
  for (const [n, rt] of env.routes) {
    if (!rt.params || !space) continue;
    const base = paramCtx(c, rt.file, rt.params, rt.decl.span);
    const seen = new Map<string, Span>();
    const got: Partial<Record<"land" | "sea" | "port" | "max_seas" | "max_steps" | "passes", { v?: string; e?: Expr }>> = {};
    let ok = true;
    for (const c of rt.decl.clauses) {
      if (seen.has(c.k)) {
        rep("RW2009", `second \`${c.k}\` clause in route \`${n}\``, { file: rt.file, span: c.span }, "combine the conditions with `and`",
          [{ message: "the first one", pos: posOf(rt.file, seen.get(c.k)!) }]);
        ok = false;
        continue;
      }
      seen.set(c.k, c.span);
      if (c.k === "land" || c.k === "sea" || c.k === "port") {
        const scope = new Map(base.scope);
        const key = localKey(rt.file, c.var.span);
        res.declare({ key, kind: "local", name: c.var.name, file: rt.file, span: c.var.span, type: space });
        res.scope({ file: rt.file, span: c.span, name: c.var.name, key });
        scope.set(c.var.name, { type: space, irName: c.var.name, key });
        const e = ex.expect(c.expr, { ...base, scope, inUse: new Set([...base.inUse, c.var.name]) }, BOOL, `the \`${c.k}\` clause`);
        if (!e) ok = false;
        got[c.k] = { v: c.var.name, ...(e ? { e } : {}) };
      } else {
        const e = ex.expect(c.expr, base, c.k === "max_seas" || c.k === "max_steps" ? { k: "int" } : BOOL, `the \`${c.k}\` clause`);
        if (!e) ok = false;
        got[c.k] = e ? { e } : {};
      }
    }
    if (!ok) continue;
    const T = (pos: Span): Expr => ({ k: "lit", value: true, type: BOOL, pos: posOf(rt.file, pos) });
    irRoutes.push({
      name: n,
      params: rt.params.map(irParam),
      landVar: got.land?.v ?? "s", land: got.land?.e ?? T(rt.decl.name.span),
      seaVar: got.sea?.v ?? "z", sea: got.sea?.e ?? T(rt.decl.name.span),
      portVar: got.port?.v ?? "q", port: got.port?.e ?? T(rt.decl.name.span),
      maxSeas: got.max_seas?.e ?? null,
      ...(got.max_steps?.e ? { maxSteps: got.max_steps.e } : {}),
      passes: got.passes?.e ?? T(rt.decl.name.span),
      pos: posOf(rt.file, rt.decl.name.span),
    });
  }
  return irRoutes;
}
