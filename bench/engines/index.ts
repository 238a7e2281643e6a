/**
 * The engines the benchmark compares, behind one shape, and the agreement check that must pass
 * before anything is timed.
 *
 * Every engine answers "is this action allowed in this state, and which rules say no" for the
 * actions it models; verdicts are compared as `allowed | sorted violated rule ids | sorted
 * obliged rule ids` (the generated validators' Violation objects reduced to their rule ids).
 */
import { checkTrusted as generatedCheck, type Action, type State } from "../../generated/his/index.js";
import { loadEdition } from "../../compiler/check/index.js";
import { createInterpreter } from "../../compiler/interpret/index.js";
import { handCheck } from "./hand.js";
import { createJre } from "./jre.js";
import { authorize, cedarDeclareWar, prepareCedar, toRequest } from "./cedar.js";
import type { ActionKind, Sample } from "../states.js";

export interface VerdictLike {
  allowed: boolean;
  violations: readonly (string | { rule: string })[];
  obliged: readonly string[];
}

export interface Engine {
  /** short id used in results.json */
  id: string;
  /** label in the table */
  label: string;
  /** the actions it models */
  kinds: ActionKind[];
  /** what one timed check includes */
  timed: string;
  /** a synchronous check, or an asynchronous one (json-rules-engine) */
  check(state: State, action: Action): VerdictLike | Promise<VerdictLike>;
  async: boolean;
}

/** `allowed|rule,rule|obliged,…` — the comparable form of a verdict. */
export function verdictKey(v: VerdictLike): string {
  const ids = v.violations.map((x) => (typeof x === "string" ? x : x.rule)).sort();
  return `${v.allowed ? "allowed" : "forbidden"}|${ids.join(",")}|${[...v.obliged].sort().join(",")}`;
}

/** Builds every engine (parses the rules, the Cedar policies, …). */
export function createEngines(): { engines: Engine[]; cedarVersion: string } {
  const res = loadEdition("dsl/his");
  if (!res.edition) throw new Error(`dsl/his does not compile: ${res.diagnostics.map((d) => `${d.file}:${d.span.line}:${d.span.column} ${d.message}`).join("; ")}`);
  const interp = createInterpreter(res.edition);
  const jre = createJre();
  const { version } = prepareCedar();
  const all: ActionKind[] = ["declare_war", "pass", "spring_deploy"];
  const engines: Engine[] = [
    { id: "generated", label: "rulewright generated validators", kinds: all, async: false, timed: "`checkTrusted(state, action)` from generated/his (the fast path; `check` first checks its input)", check: (s, a) => generatedCheck(s, a) },
    { id: "interpreter", label: "IR interpreter (compiler/interpret)", kinds: all, async: false, timed: "`interp.check(state, action)` (rules read from the IR at run time)", check: (s, a) => interp.check(s, a) },
    {
      id: "jre",
      label: "json-rules-engine",
      kinds: all,
      async: true,
      timed: "`await engine.run({ state, action })` of the action's engine; dynamic facts (pairs, keyed lookups, board facts, the route search) computed in JS",
      check: (s, a) => jre.check(s, a as unknown as Record<string, unknown>),
    },
    {
      id: "cedar",
      label: "Cedar (cedar-wasm, stateful)",
      kinds: ["declare_war"],
      async: false,
      timed: "state → 11 entities + context → `statefulIsAuthorized` (policies and schema pre-parsed)",
      check: (s, a) => {
        const d = a as { by: string; target: string };
        return cedarDeclareWar(s, d.by, d.target);
      },
    },
    { id: "hand", label: "hand-written TypeScript (floor)", kinds: all, async: false, timed: "`handCheck(state, action)` (bench/engines/hand.ts)", check: (s, a) => handCheck(s, a as unknown as { action: string } & Record<string, unknown>) },
  ];
  return { engines, cedarVersion: version };
}

/** Cedar with the requests built beforehand: only `statefulIsAuthorized` is inside the timing. */
export function prebuiltCedar(samples: Sample[]): { calls: ReturnType<typeof toRequest>[]; run: (c: ReturnType<typeof toRequest>) => VerdictLike } {
  return {
    calls: samples.map((s) => {
      const a = s.action as { by: string; target: string };
      return toRequest(s.state, a.by, a.target);
    }),
    run: authorize,
  };
}

export interface Disagreement {
  engine: string;
  kind: ActionKind;
  index: number;
  action: Action;
  expected: string;
  got: string;
  /** rebuild the sample with `makeState(stateSeed, kind)`, `makeAction(actionSeed, kind, state)` (bench/states.ts) */
  stateSeed: number;
  actionSeed: number;
}

/**
 * Runs every engine on every sample of its kinds and compares with the generated validators.
 * An engine that throws on a sample counts as a disagreement (its message is `got`).
 */
export async function checkAgreement(engines: Engine[], sets: Record<ActionKind, Sample[]>): Promise<{ checks: number; disagreements: Disagreement[]; verdicts: Record<string, { allowed: number; forbidden: number }> }> {
  const disagreements: Disagreement[] = [];
  const verdicts: Record<string, { allowed: number; forbidden: number }> = {};
  let checks = 0;
  const ref = engines.find((e) => e.id === "generated")!;
  for (const kind of Object.keys(sets) as ActionKind[]) {
    const tally = (verdicts[kind] = { allowed: 0, forbidden: 0 });
    for (const [index, s] of sets[kind].entries()) {
      const expected = verdictKey(ref.check(s.state, s.action) as VerdictLike);
      tally[expected.startsWith("allowed") ? "allowed" : "forbidden"]++;
      for (const e of engines) {
        if (e === ref || !e.kinds.includes(kind)) continue;
        let got: string;
        try {
          got = verdictKey(await e.check(s.state, s.action));
        } catch (err) {
          got = `threw: ${(err as Error).message}`;
        }
        checks++;
        if (got !== expected) {
          disagreements.push({ engine: e.id, kind, index, action: s.action, expected, got, stateSeed: s.stateSeed, actionSeed: s.actionSeed });
        }
      }
    }
  }
  return { checks, disagreements, verdicts };
}
