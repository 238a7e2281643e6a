/**
 * `rulewright prove` as CI runs it: SARIF validated against the official SARIF 2.1.0 schema,
 * JUnit, --fail-on and the documented exit codes, a forced timeout, a crashed or hung solver
 * process, incremental proving on an edited copy of dsl/his, and `rulewright explain`.
 *
 * The tests of the reports' formats and of --fail-on prove the fixtures through the default
 * proof cache (proofs/.cache), which the shared setup (test/setup/proofs.ts) fills for them:
 * what they check is what the CLI prints and exits with, not the solving (the proofs themselves
 * are checked by crosscheck and verdicts); a run of this file alone solves them here instead.
 * The tests about solving (timeouts, crashes, hangs, incremental proving) never read a cache.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { loadEdition } from "../../compiler/check/index.js";
import { proveEdition } from "../../compiler/verify/index.js";

/** proving takes minutes on a busy machine: speed is measured in benchmarks, not by test timeouts */
const LONG = 1_800_000;

const REPO = process.cwd();
const BIN = path.join(REPO, "bin/rulewright.mjs");

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env }, timeout: 600_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "rw-prove-"));

/** The official SARIF 2.1.0 schema (OASIS, rtm.5), as shipped in @microsoft/jest-sarif. */
function sarifValidator() {
  const req = createRequire(import.meta.url);
  const schemaPath = path.join(path.dirname(req.resolve("@microsoft/jest-sarif/package.json")), "lib/schemas/sarif-2.1.0-rtm.5.json");
  const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
  // the schema is draft-04: Ajv's draft-04 class (ajv-draft-04, a devDependency)
  const Ajv04 = req("ajv-draft-04") as new (o: object) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown[] } };
  // the schema's patterns are not all valid as Unicode regular expressions (`u` flag)
  const ajv = new Ajv04({ strict: false, allErrors: true, validateFormats: false, unicodeRegExp: false });
  return ajv.compile(schema);
}

describe("prove --format sarif", () => {
  it("is one SARIF 2.1.0 document on stdout, valid against the official schema, locating the refuted rules", () => {
    const r = run(["prove", "test/broken/pass-contradiction", "--format", "sarif"]);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.out); // the whole of stdout is the document
    const validate = sarifValidator();
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    expect(log.version).toBe("2.1.0");
    const run0 = log.runs[0];
    expect(run0.tool.driver.name).toBe("rulewright");
    expect(run0.tool.driver.rules.map((x: { id: string }) => x.id)).toContain("contradiction");
    const res = run0.results.find((x: { properties: { obligation: string } }) => x.properties.obligation === "his.contradiction.pass.empty_hand~pass.broken_empty_hand");
    expect(res.level).toBe("error");
    expect(res.ruleId).toBe("contradiction");
    expect(res.locations[0].physicalLocation.artifactLocation.uri).toBe("test/broken/modules/pass/pass.rules");
    expect(res.relatedLocations.map((l: { physicalLocation: { artifactLocation: { uri: string } } }) => l.physicalLocation.artifactLocation.uri)).toContain(
      "test/broken/pass-contradiction/broken.rules",
    );
    expect(res.message.text).toContain("npx rulewright check --edition test/broken/pass-contradiction");
    expect(res.partialFingerprints["rulewright/obligation"]).toBe(res.properties.obligation);
    // one result per refuted or unknown obligation, none for proofs
    const notProved = JSON.parse(fs.readFileSync("proofs/.fixtures/pass-contradiction/report.json", "utf8")).obligations.filter((o: { verdict: string }) => o.verdict !== "proved");
    expect(run0.results).toHaveLength(notProved.length);
    // the stuck power of this fixture is a warning
    expect(run0.results.find((x: { ruleId: string }) => x.ruleId === "stuck_power").level).toBe("warning");
  }, LONG);

  it("reports an annotated redundancy as a suppressed result that no --fail-on level counts", () => {
    const r = run(["prove", "test/fixed/redundant-rule", "--format", "sarif", "--fail-on", "info", "--timeout", "120000"]);
    const log = JSON.parse(r.out);
    expect(sarifValidator()(log)).toBe(true);
    const res = log.runs[0].results.find((x: { properties: { obligation: string } }) => x.properties.obligation === "his.redundant_rule.dow.ottoman_hungary");
    expect(res.level).toBe("none");
    expect(res.suppressions).toEqual([{ kind: "inSource", justification: "restated for the Ottoman on purpose, like the rulebook's own example" }]);
    // the other findings of war.rules (dow.alliance_this_phase is redundant too, an info) still fail --fail-on info
    expect(r.code).toBe(1);
    expect(run(["prove", "test/fixed/redundant-rule", "--format", "json", "--timeout", "120000"]).code).toBe(0);
  }, LONG);
});

describe("prove --fail-on and exit codes", () => {
  it("an info finding passes by default and fails with --fail-on info (text explains it)", () => {
    const r = run(["prove", "test/broken/redundant-rule", "--timeout", "120000"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("refuted info redundant_rule his.redundant_rule.dow.broken_ottoman_hungary (does not fail the run)");
    expect(r.out).toMatch(/already covered by `dow.hungary_bohemia`/);
    expect(r.out).toMatch(/dow\.hungary_bohemia\s+rule\s+test\/broken\/redundant-rule\/war\.rules:\d+:\d+\s+his §9\.6/);
    // the second run takes every verdict from the cache
    const again = run(["prove", "test/broken/redundant-rule", "--fail-on", "info", "--timeout", "120000"]);
    expect(again.code).toBe(1);
    expect(again.out).toMatch(/\(\d+\.\d s; 0 solved, \d+ from the proof cache\)/);
  }, LONG);

  it("JUnit: one testcase per obligation, the refuted error as a failure", () => {
    const r = run(["prove", "test/broken/pass-contradiction", "--format", "junit"]);
    expect(r.code).toBe(1);
    expect(r.out.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')).toBe(true);
    const report = JSON.parse(fs.readFileSync("proofs/.fixtures/pass-contradiction/report.json", "utf8"));
    expect(r.out.match(/<testcase /g)).toHaveLength(report.obligations.length);
    expect(r.out.match(/<failure /g)).toHaveLength(1);
    expect(r.out).toContain('<testcase classname="his.contradiction" name="pass.empty_hand~pass.broken_empty_hand"');
    expect(r.out).toMatch(/<failure type="contradiction" message="a state obliges `pass` \(`pass.empty_hand`\) and forbids it/);
    // balanced elements, escaped text
    expect(r.out.match(/<testcase /g)!.length).toBe(r.out.match(/<\/testcase>/g)!.length);
    expect(r.out).not.toMatch(/message="[^"]*<[^"]*"/);
  }, LONG);

  it("a forced tiny timeout gives unknown and exit 3, without hanging", () => {
    const r = run(["prove", "test/broken/always-forbidden", "--timeout", "1", "--no-cache", "--format", "json", "--quiet"]);
    const [res] = JSON.parse(r.out);
    const unknown = res.report.obligations.filter((o: { verdict: string }) => o.verdict === "unknown");
    expect(unknown.length).toBeGreaterThan(0);
    // the CPU-time safety net, or the process killed 30 s (of CPU time) past it
    for (const o of unknown) expect(o.reason).toMatch(/timeout|canceled|interrupted|without a model|the solver process was killed/);
    // nothing unknown is ever reported as proved, and no error obligation was refuted under 1 ms
    if (!res.report.obligations.some((o: { verdict: string; severity: string }) => o.verdict === "refuted" && o.severity === "error")) expect(r.code).toBe(3);
    else expect(r.code).toBe(1);
    expect(r.err).toBe("");
  }, LONG);

  it("a crashed solver process makes its obligation unknown (with the reason); the others are solved", () => {
    const r = run(["prove", "test/broken/always-forbidden", "--no-cache", "--format", "json"], { RW_WORKER_CRASH_ON: "contradiction.pass.empty_hand~pass.home_card" });
    const [res] = JSON.parse(r.out);
    const crashed = res.report.obligations.find((o: { id: string }) => o.id === "his.contradiction.pass.empty_hand~pass.home_card");
    expect(crashed.verdict).toBe("unknown");
    expect(crashed.reason).toMatch(/the solver process exited/);
    expect(res.report.obligations.filter((o: { verdict: string }) => o.verdict === "unknown")).toHaveLength(1);
    // always_forbidden.pass is still refuted: exit 1 (a refuted error beats an unknown)
    expect(res.report.obligations.find((o: { id: string }) => o.id === "his.always_forbidden.pass").verdict).toBe("refuted");
    expect(r.code).toBe(1);
    // progress went to stderr, one plain line per obligation (not a terminal)
    expect(r.err).toMatch(/\[\d+\/\d+\] unknown his\.contradiction\.pass\.empty_hand~pass\.home_card/);
  }, LONG);
});

describe("solver process containment (library)", () => {
  it("kills a hung solver process, reports its obligation unknown and carries on", async () => {
    const ir = loadEdition("test/broken/always-forbidden", { repoRoot: REPO }).edition!;
    process.env.RW_WORKER_HANG_ON = "dead_rule.pass.phase";
    try {
      const r = await proveEdition(ir, { isolate: true, killAfterMs: 20_000, timeoutMs: 10_000, only: (o) => o.kind === "dead_rule" && o.action === "pass" });
      const hung = r.obligations.find((o) => o.id === "his.dead_rule.pass.phase")!;
      expect(hung.verdict).toBe("unknown");
      expect(hung.reason).toMatch(/no answer and no sign of life for 20000 ms: the solver process was killed/);
      expect(r.obligations.filter((o) => o.verdict === "proved").length).toBe(r.obligations.length - 1);
    } finally {
      delete process.env.RW_WORKER_HANG_ON;
    }
  }, LONG);

  it("a whole-run deadline ends a hung run: the rest is unknown", async () => {
    const ir = loadEdition("test/broken/always-forbidden", { repoRoot: REPO }).edition!;
    process.env.RW_WORKER_HANG_ON = "dead_rule.pass";
    try {
      // no wall-clock assertion (issue 28): the run returning at all (within the test's timeout)
      // and every verdict naming the deadline show that the deadline ended it
      const r = await proveEdition(ir, { isolate: true, deadlineMs: 5000, only: (o) => o.kind === "dead_rule" });
      expect(r.obligations.every((o) => o.verdict === "unknown")).toBe(true);
      expect(r.obligations[0].reason).toMatch(/deadline reached/);
    } finally {
      delete process.env.RW_WORKER_HANG_ON;
    }
  }, LONG);
});

describe("incremental proving", () => {
  it("re-solves nothing on an unchanged rulebook and only the edited rule's obligations after an edit", () => {
    const dir = tmp();
    const ed = path.join(dir, "his");
    fs.mkdirSync(ed);
    // dsl/his without the §10 rules (the spring deployment obligations are the slow ones), with the
    // pass module beside it as dsl/modules is beside dsl/his
    for (const f of ["edition.rules", "war.rules", "state.schema.json", "board.json"]) fs.copyFileSync(path.join("dsl/his", f), path.join(ed, f));
    fs.writeFileSync(path.join(ed, "modules.rules"), "import pass\n");
    fs.mkdirSync(path.join(dir, "modules", "pass"), { recursive: true });
    fs.copyFileSync("dsl/modules/pass/pass.rules", path.join(dir, "modules", "pass", "pass.rules"));
    const cache = path.join(dir, "cache");
    const prove = () => {
      const r = run(["prove", ed, "--format", "json", "--cache-dir", cache, "--out", path.join(dir, "out"), "--quiet", "--timeout", "120000"]);
      expect(r.code).toBe(0);
      return JSON.parse(r.out)[0].report as { summary: { solved: number; cached: number }; obligations: { id: string; rules: string[]; subjects: string[]; exemptions?: string[]; cached?: boolean; verdict: string }[] };
    };
    const first = prove();
    expect(first.summary.cached).toBe(0);
    const second = prove();
    expect(second.summary).toMatchObject({ solved: 0, cached: first.obligations.length });
    expect(second.obligations.map((o) => o.verdict)).toEqual(first.obligations.map((o) => o.verdict));
    // edit one rule: England may not declare war on Venice → neither may France (and move lines below it)
    const war = path.join(ed, "war.rules");
    const text = fs.readFileSync(war, "utf8");
    const edited = text.replace('rule dow.venice_england §9.6 "England may not declare war on Venice"\n  forbid declare_war when target = Power.venice and by = england', '// an extra comment line shifts every rule below\nrule dow.venice_england §9.6 "England may not declare war on Venice"\n  forbid declare_war when target = Power.venice and by = france');
    expect(edited).not.toBe(text);
    fs.writeFileSync(war, edited);
    const third = prove();
    const solved = third.obligations.filter((o) => !o.cached).map((o) => o.id).sort();
    const involving = third.obligations.filter((o) => o.rules.includes("dow.venice_england") || o.subjects.includes("dow.venice_england")).map((o) => o.id).sort();
    // an obligation the edited rule takes part in is solved again, unless its verdict is unsat and
    // its unsat core leaves the edited rule out (reuse by unsat core): dow.alliance_this_phase is
    // covered by dow.own_ally and an invariant, whatever England or France may do to Venice, and
    // the Diplomacy Phase never leaves a power stuck whatever declare_war's rules say
    const byCore = third.obligations.filter((o) => involving.includes(o.id) && o.cached);
    expect(byCore.map((o) => o.id)).toEqual(["his.redundant_rule.dow.alliance_this_phase", "his.stuck_power.diplomacy"]);
    expect(byCore[0]).toMatchObject({ verdict: "refuted", core: ["dow.alliance_this_phase", "dow.own_ally", "state.formed_alliances_hold"] });
    expect(byCore[1]).toMatchObject({ verdict: "proved" });
    expect((byCore[1] as { core?: string[] }).core).not.toContain("move:declare_war");
    expect(solved).toEqual(involving.filter((id) => !byCore.some((o) => o.id === id)));
    expect(solved).toContain("his.dead_rule.dow.venice_england");
    expect(solved).toContain("his.always_forbidden.declare_war");
    expect(solved.length).toBeLessThan(third.obligations.length / 2);
    expect(third.summary).toMatchObject({ solved: solved.length, cached: third.obligations.length - solved.length });
    expect(third.obligations.map((o) => [o.id, o.verdict])).toEqual(first.obligations.map((o) => [o.id, o.verdict]));
    // an edit inside the core: the verdict is solved again, and is what the edit makes it (no
    // longer covered once dow.own_ally only bans war on one's own ally when that ally is England)
    const own = fs.readFileSync(war, "utf8").replace(/(rule dow\.own_ally[^\n]*\n\s*forbid declare_war when )/, "$1target = Power.england and ");
    expect(own).not.toBe(fs.readFileSync(war, "utf8"));
    fs.writeFileSync(war, own);
    const fourth = prove();
    const again = fourth.obligations.find((o) => o.id === "his.redundant_rule.dow.alliance_this_phase")!;
    expect(again.cached).toBeFalsy();
    expect(again.verdict).toBe("proved");
  }, LONG);
});

describe("rulewright explain", () => {
  it("shows a rule's citation, position, source, related rules and its verdicts", () => {
    const r = run(["explain", "pass.home_card", "--edition", "test/broken/swallowing-exemption"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("pass.home_card — rule (forbid `pass`), his §11");
    expect(r.out).toMatch(/at test\/broken\/modules\/pass\/pass\.rules:\d+:6/);
    expect(r.out).toContain("│   forbid pass when some c in state.hands[power]: c.home");
    expect(r.out).toMatch(/lifted by:\n\s+pass\.broken_home_card_waiver/);
    expect(r.out).toMatch(/other rules of `pass`:[\s\S]*pass\.empty_hand\s+oblige/);
    expect(r.out).toMatch(/refuted warning his\.swallowing_exemption\.pass\.broken_home_card_waiver~pass\.home_card/);
    expect(r.out).toMatch(/refuted warning his\.dead_rule\.pass\.home_card/);
    expect(r.out).toMatch(/proved error his\.contradiction\.pass\.empty_hand~pass\.home_card/);
  }, LONG);

  it("names the defs and routes a rule uses, and rejects an unknown id with a suggestion", () => {
    // a rule of a shared module is in every edition that imports it: the edition must be chosen
    const ambiguous = run(["explain", "deploy.no_pass", "--no-prove"]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.err).toContain("is in several editions");
    expect(ambiguous.err).toContain("--edition");
    const r = run(["explain", "deploy.no_pass", "--edition", "his", "--format", "json", "--no-prove"]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.related.routes).toEqual(["deploy_path"]);
    expect(j.citation).toBe("his §10");
    expect(j.related.liftedBy.map((x: { id: string }) => x.id)).toEqual(["deploy.spring_preparations"]);
    const bad = run(["explain", "pass.home_crad"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("did you mean `pass.home_card`?");
    const defs = JSON.parse(run(["explain", "dow.scotland", "--edition", "his", "--format", "json", "--no-prove"]).out);
    expect(defs.related.defs).toEqual(["allied"]);
  }, LONG);
});

describe("prove's bad input", () => {
  it("a --cache-dir that is a file is a usage error before anything is proved", () => {
    const dir = tmp();
    const file = path.join(dir, "afile");
    fs.writeFileSync(file, "x");
    const r = run(["prove", "test/broken/always-forbidden", "--cache-dir", file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("is a file, not a folder");
    expect(r.err).not.toMatch(/internal error|EEXIST/);
  }, LONG);
});
