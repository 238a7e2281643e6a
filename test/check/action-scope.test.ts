/**
 * An action declaration's scope (issue 26): `during <phase>[.<segment>][, …] [actor active]
 * <citation>` after its parameters — parsed, checked (each phase and segment member and the state
 * fields as a rule's `during`, RW2018; no phase named twice or both whole and with a segment;
 * `actor active` needs an actor and a state field `active_power`; the citation) and lowered to
 * `IRAction.scope`. On a copy of the mini fixture edition.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { parseRules } from "../../compiler/syntax/index.js";

const FIXTURE = decodeURIComponent(new URL("../fixtures/frontend/mini", import.meta.url).pathname);
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "rw-scope-"));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));
let n = 0;

/** The mini edition with `action pass(actor power: MajorPower)` followed by `scope`. */
function withPassScope(scope: string): ReturnType<typeof loadEdition> {
  const name = `ed${n++}`;
  const dir = path.join(tmpRoot, name);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const f = path.join(dir, "war.rules");
  fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace("action pass(actor power: MajorPower)\n", `action pass(actor power: MajorPower)\n  ${scope}\n`));
  return loadEdition(name, { repoRoot: tmpRoot });
}
const errs = (r: ReturnType<typeof loadEdition>) => r.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code} ${d.message}`);

describe("action scopes", () => {
  it("lowers `during P.S §x` to IRAction.scope; no clause, no scope; his's `actor active`", () => {
    const r = withPassScope("during diplomacy.declarations §9");
    expect(errs(r)).toEqual([]);
    const pass = r.edition!.actions.find((a) => a.name === "pass")!;
    expect(pass.scope).toEqual({ during: [{ phase: "diplomacy", segment: "declarations" }], activeOnly: false, citation: expect.objectContaining({ section: "9" }) });
    expect(loadEdition("dsl/his").edition!.actions.find((a) => a.name === "pass")!.scope).toEqual({ during: [{ phase: "action_phase" }], activeOnly: true, citation: expect.objectContaining({ text: "his §11" }) });
    expect(r.edition!.actions.find((a) => a.name === "declare_war")!.scope).toBeUndefined();
    expect(withPassScope("during diplomacy §9").edition!.actions.find((a) => a.name === "pass")!.scope).toEqual({ during: [{ phase: "diplomacy" }], activeOnly: false, citation: expect.anything() });
  });

  it("lowers several phases, in source order, each with its segment where named; his's reformation_attempt", () => {
    const r = withPassScope("during movement, diplomacy.peace §9");
    expect(errs(r)).toEqual([]);
    expect(r.edition!.actions.find((a) => a.name === "pass")!.scope).toEqual({ during: [{ phase: "movement" }, { phase: "diplomacy", segment: "peace" }], activeOnly: false, citation: expect.anything() });
    expect(parseRules("action pass(actor power: MajorPower)\n  during movement,diplomacy.peace , diplomacy.declarations §9\n", "x.rules").diagnostics).toEqual([]);
    for (const ed of ["dsl/his", "dsl/his-500"]) {
      expect(loadEdition(ed).edition!.actions.find((a) => a.name === "reformation_attempt")!.scope).toEqual({
        during: [{ phase: "luthers_95_theses" }, { phase: "action_phase" }], activeOnly: false, citation: expect.objectContaining({ text: "his §18" }),
      });
    }
  });

  it("reports, at its file:line:column with a hint, an unknown phase among several, a phase named twice, a phase overlapping its segment, a missing phase after a comma", () => {
    const diag = (scope: string) => withPassScope(scope).diagnostics.filter((d) => d.severity === "error");
    // war.rules line 3 is the scope line (`  during …`): column 10 is the first phase
    const unknown = diag("during movement, diplomasy.peace §9");
    expect(unknown.map((d) => [d.code, d.message, d.file.endsWith("war.rules"), d.span.line, d.span.column])).toEqual([["RW2018", "`diplomasy` is not a member of `Phase`", true, 3, 20]]);
    expect(unknown[0]!.help).toMatch(/did you mean `diplomacy`/);
    const twice = diag("during diplomacy, movement, diplomacy §9");
    expect(twice.map((d) => [d.code, d.message, d.span.line, d.span.column])).toEqual([["RW2018", "`diplomacy` is named twice in the scope", 3, 31]]);
    expect(twice[0]!.help).toBe("name each phase once: `during diplomacy, movement`");
    const overlap = diag("during diplomacy.peace, diplomacy §9");
    expect(overlap.map((d) => [d.code, d.message, d.span.column])).toEqual([["RW2018", "`diplomacy` overlaps `diplomacy.peace`, named before it in the scope", 27]]);
    expect(overlap[0]!.help).toMatch(/keep `diplomacy` alone/);
    expect(diag("during diplomacy.peace, diplomacy.declarations §9")).toEqual([]);
    expect(diag("during diplomacy, diplomacy.peace §9").map((d) => d.message)).toEqual(["`diplomacy.peace` overlaps `diplomacy`, named before it in the scope"]);
    const comma = parseRules("action pass(actor power: MajorPower)\n  during movement, §9\n", "x.rules").diagnostics;
    expect(comma.map((d) => [d.code, d.file, d.span.line, d.span.column])).toEqual([["RW1003", "x.rules", 2, 20]]);
    expect(comma[0]!.message).toMatch(/a phase of the action's scope/);
  });

  it("reports an unknown phase member, an unknown actor clause and a missing citation", () => {
    expect(errs(withPassScope("during diplomasy §9"))).toEqual([expect.stringMatching(/^RW2018 `diplomasy` is not a member of `Phase`/)]);
    expect(errs(withPassScope("during diplomacy actor everyone §9"))).toEqual([expect.stringMatching(/^RW2018 unknown actor clause `actor everyone`/)]);
    // the mini edition's state has no `active_power`
    expect(errs(withPassScope("actor active §9"))).toEqual(["RW2018 `actor active` needs a state field `active_power` of type `MajorPower`"]);
    expect(parseRules("action pass(actor power: MajorPower) during diplomacy\nrule a.b §1 \"t\" forbid pass when true\n", "x.rules").diagnostics.map((d) => d.code)).not.toEqual([]);
  });
});
