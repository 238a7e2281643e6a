/**
 * The command line as a user meets it: exit codes, the §10 example from JSON files, bad input
 * (never a stack trace), and `build --check` noticing a rule file edited without a rebuild.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const REPO = process.cwd();
const BIN = path.join(REPO, "bin/rulewright.mjs");
const EX = "test/fixtures/his/examples";

function run(args: string[], cwd = REPO) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function tmpdir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-cli-"));
}

describe("rulewright check", () => {
  it("allows the §10 example: 5 units Paris → Marseille → Gulf of Lyon → Genoa", () => {
    const r = run(["check", "--edition", "his", "--state", `${EX}/deploy-paris-genoa.state.json`, "--action", `${EX}/deploy-5-units.action.json`]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("allowed");
  });

  it("reads --state and --action from pipes (`--state <(…)`, as scripts/pack-check.sh does), but not a device", () => {
    const bash = (cmd: string) => spawnSync("bash", ["-c", cmd], { cwd: REPO, encoding: "utf8" });
    const piped = bash(`node bin/rulewright.mjs check --edition his --state <(cat ${EX}/deploy-paris-genoa.state.json) --action <(cat ${EX}/deploy-5-units.action.json)`);
    expect(piped.stderr).toBe("");
    expect(piped.status).toBe(0);
    expect(piped.stdout).toContain("allowed");
    const device = run(["check", "--edition", "his", "--state", "/dev/zero", "--action", `${EX}/deploy-5-units.action.json`]);
    expect(device.code).toBe(2);
    expect(device.err).toContain("cannot read the state file `/dev/zero`");
  });

  it("forbids 6 units across the Gulf of Lyon, naming the rule, citation and position", () => {
    const r = run(["check", "--edition", "his", "--state", `${EX}/deploy-paris-genoa.state.json`, "--action", `${EX}/deploy-6-units.action.json`, "--format", "json"]);
    expect(r.code).toBe(1);
    const v = JSON.parse(r.out);
    expect(v.allowed).toBe(false);
    const ids = v.violations.map((x: { rule: string }) => x.rule).sort();
    expect(ids).toEqual(["deploy.sea_cap", "deploy.star_all"]);
    const cap = v.violations.find((x: { rule: string }) => x.rule === "deploy.sea_cap");
    expect(cap.citation).toBe("his §10");
    expect(cap.file).toBe("dsl/modules/spring_deployment/deploy.rules");
    expect(cap.line).toBeGreaterThan(0);
  });

  it("forbids the crossing when a Hapsburg squadron is in Barcelona, a Gulf of Lyon port", () => {
    const r = run(["check", "--edition", "his", "--state", `${EX}/deploy-hapsburg-ship-in-barcelona.state.json`, "--action", `${EX}/deploy-5-units.action.json`]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("deploy.blocked_sea");
  });

  it("reports a state that does not match the schema as bad input (exit 2), without a stack trace", () => {
    const dir = tmpdir();
    const state = JSON.parse(fs.readFileSync(`${EX}/deploy-paris-genoa.state.json`, "utf8"));
    state.phase = "springtime";
    delete state.hands;
    fs.writeFileSync(path.join(dir, "s.json"), JSON.stringify(state));
    const r = run(["check", "--edition", "his", "--state", path.join(dir, "s.json"), "--action", `${EX}/deploy-5-units.action.json`]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/state\.phase/);
    expect(r.err).toMatch(/hands/);
    expect(r.err).not.toMatch(/at .*\.ts:\d+/);
  });

  it("reports a state that breaks an invariant as bad input", () => {
    const dir = tmpdir();
    const state = JSON.parse(fs.readFileSync(`${EX}/deploy-paris-genoa.state.json`, "utf8"));
    state.alliances = [{ a: "france", b: "france" }];
    fs.writeFileSync(path.join(dir, "s.json"), JSON.stringify(state));
    const r = run(["check", "--edition", "his", "--state", path.join(dir, "s.json"), "--action", `${EX}/deploy-5-units.action.json`]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("state.no_self_alliance");
  });

  it("holds hands to what a deck allows: no combat card that is a Mandatory Event, no card twice (his invariants)", () => {
    const dir = tmpdir();
    const base = JSON.parse(fs.readFileSync(`${EX}/deploy-paris-genoa.state.json`, "utf8"));
    const check = (hand: unknown[]) => {
      fs.writeFileSync(path.join(dir, "s.json"), JSON.stringify({ ...base, hands: { ...base.hands, france: hand } }));
      return run(["check", "--edition", "his", "--state", path.join(dir, "s.json"), "--action", `${EX}/deploy-5-units.action.json`]);
    };
    const card = (id: string, kind: { combat?: boolean; mandatory?: boolean } = {}) => ({ id, home: false, mandatory: false, combat: false, ...kind });
    const ok = check([card("siege_artillery", { combat: true }), card("plague", { mandatory: true })]);
    expect(ok.err).not.toMatch(/state\.(combat_cards_are_plain|hand_cards_distinct)/);
    expect(ok.code).not.toBe(2);
    const both = check([card("siege_artillery", { combat: true, mandatory: true })]);
    expect(both.code).toBe(2);
    expect(both.err).toContain("state.combat_cards_are_plain");
    const twice = check([card("plague"), card("plague")]);
    expect(twice.code).toBe(2);
    expect(twice.err).toContain("state.hand_cards_distinct");
  });

  it("reports a missing file, an unknown edition, a bad action and missing options with exit 2", () => {
    const missing = run(["check", "--edition", "his", "--state", "nope.json", "--action", `${EX}/deploy-5-units.action.json`]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("nope.json");
    const edition = run(["check", "--edition", "hsi", "--state", `${EX}/deploy-paris-genoa.state.json`, "--action", `${EX}/deploy-5-units.action.json`]);
    expect(edition.code).toBe(2);
    expect(edition.err).toContain("`his`");
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, "a.json"), JSON.stringify({ action: "declare_war", by: "francia", target: "scotland", extra: 1 }));
    const action = run(["check", "--edition", "his", "--state", `${EX}/deploy-paris-genoa.state.json`, "--action", path.join(dir, "a.json")]);
    expect(action.code).toBe(2);
    expect(action.err).toContain("`by`");
    expect(action.err).toContain("`extra`");
    const opts = run(["check", "--edition", "his"]);
    expect(opts.code).toBe(2);
    expect(opts.err).toContain("--state");
  });
});

describe("rulewright build", () => {
  it("--check exits 0 on the committed tree and 1 after a rule file is edited without a rebuild", () => {
    const dir = tmpdir();
    fs.cpSync(path.join(REPO, "dsl/his"), path.join(dir, "dsl/his"), { recursive: true });
    fs.cpSync(path.join(REPO, "dsl/modules"), path.join(dir, "dsl/modules"), { recursive: true });
    fs.cpSync(path.join(REPO, "generated/his"), path.join(dir, "generated/his"), { recursive: true });
    expect(run(["build", "--check"], dir).code).toBe(0);
    // a module's file is an input of every edition that imports it
    const file = path.join(dir, "dsl/modules/pass/pass.rules");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("more cards than its ruler's", "more cards than the ruler's"));
    const stale = run(["build", "--check"], dir);
    expect(stale.code).toBe(1);
    expect(stale.out).toContain("stale");
    expect(stale.out).toContain("npx rulewright build his");
    expect(run(["build"], dir).code).toBe(0);
    expect(run(["build", "--check"], dir).code).toBe(0);
  });

  it("reports every syntax error of a malformed rule file with file:line:column and a caret, exit 2", () => {
    const dir = tmpdir();
    fs.cpSync(path.join(REPO, "dsl/his"), path.join(dir, "dsl/his"), { recursive: true });
    fs.cpSync(path.join(REPO, "dsl/modules"), path.join(dir, "dsl/modules"), { recursive: true });
    const file = path.join(dir, "dsl/modules/pass/pass.rules");
    const text = fs.readFileSync(file, "utf8")
      .replace("forbid pass when some c in state.hands[power]: c.home", "forbid pass some c in state.hands[power]: c.home")
      .replace("forbid pass when count(state.hands[power]) > state.rulers[power].admin_rating", "forbid pass when count(state.hands[power]) > > 1");
    fs.writeFileSync(file, text);
    const r = run(["build", "--check"], dir);
    expect(r.code).toBe(2);
    const locs = r.err.match(/dsl\/modules\/pass\/pass\.rules:\d+:\d+/g) ?? [];
    expect(new Set(locs).size).toBeGreaterThanOrEqual(2);
    expect(r.err).toContain("^");
    expect(r.err).toMatch(/help:/);
  });

  it("reports a misspelled state field with a did-you-mean", () => {
    const dir = tmpdir();
    fs.cpSync(path.join(REPO, "dsl/his"), path.join(dir, "dsl/his"), { recursive: true });
    fs.cpSync(path.join(REPO, "dsl/modules"), path.join(dir, "dsl/modules"), { recursive: true });
    const file = path.join(dir, "dsl/his/war.rules");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("not state.schmalkaldic_league_played", "not state.schmalkaldic_leage_played"));
    const r = run(["build", "--check"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain("schmalkaldic_leage_played");
    expect(r.err).toContain("did you mean `schmalkaldic_league_played`");
  });
});

describe("rulewright test", () => {
  it("runs the bundled scenarios and prints the count", () => {
    const r = run(["test"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/scenarios: \d+ passed, 0 failed/);
  });

  it("fails (exit 1) on a scenario whose expectation is wrong, naming it", () => {
    const dir = tmpdir();
    fs.writeFileSync(
      path.join(dir, "wrong.yaml"),
      [
        "edition: his",
        "fixture: test/fixtures/his/base-state.json",
        "scenarios:",
        "  - name: hungary-bohemia is fair game (wrong on purpose)",
        "    patch: { phase: diplomacy, segment: declarations_of_war }",
        "    action: { action: declare_war, by: france, target: hungary_bohemia }",
        "    expect: allowed",
      ].join("\n"),
    );
    const r = run(["test", path.join(dir, "wrong.yaml")]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("hungary-bohemia is fair game");
    expect(r.out).toContain("dow.hungary_bohemia");
  });

  it("rejects a scenario file that names an unknown rule id or key (exit 2), with its line", () => {
    const dir = tmpdir();
    fs.writeFileSync(
      path.join(dir, "typos.yaml"),
      [
        "edition: his",
        "fixture: test/fixtures/his/base-state.json",
        "scenarios:",
        "  - name: misspelled rule id",
        "    patch: { phase: diplomacy, segment: declarations_of_war }",
        "    action: { action: declare_war, by: france, target: hungary_bohemia }",
        "    expect: { forbidden: [dow.hungary_bohemai] }",
        "  - name: misspelled key",
        "    action: { action: declare_war, by: france, target: hungary_bohemia }",
        "    expectt: allowed",
      ].join("\n"),
    );
    const r = run(["test", path.join(dir, "typos.yaml")]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("typos.yaml:4:");
    expect(r.err).toContain("`dow.hungary_bohemai`");
    expect(r.err).toContain("typos.yaml:8:");
    expect(r.err).toContain("`expectt`");
  });
});

describe("rulewright prove", () => {
  it("refutes a table gap with the exact roll, exit 1 (test/broken/table-gap)", () => {
    const out = tmpdir();
    const r = run(["prove", "test/broken/table-gap", "--out", out]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("refuted error table_gap his.table_gap.conquest");
    expect(r.out).toContain("roll 8, conquistador 0, smallpox false (roll + conquistador + (if smallpox then 2 else 0) = 8): no row matches");
    const report = JSON.parse(fs.readFileSync(path.join(out, "report.json"), "utf8"));
    const o = report.obligations.find((x: { id: string }) => x.id === "his.table_gap.conquest");
    expect(o).toMatchObject({ verdict: "refuted", table: "conquest", example: { inputs: { roll: 8, conquistador: 0, smallpox: false }, rows: [] } });
    expect(fs.existsSync(path.join(out, "his.table_gap.conquest.smt2"))).toBe(true);
  });
});

describe("rulewright conformance write", () => {
  it("--mutants without --prove-mutants is bad usage (exit 2) with the command to run, and writes nothing", () => {
    const r = run(["conformance", "write", "his", "--mutants", "control.units#*"]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--mutants chooses which mutants --prove-mutants solves/);
    expect(r.err).toContain("--prove-mutants --mutants 'control.units#*'");
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});

describe("output to a reader that stops early", () => {
  it("`rulewright prove … | head -1`: the rest is dropped, no EPIPE stack trace, the command's own exit code", () => {
    // a shell pipe into head, as a user types it: head exits after the summary's first line and
    // closes the pipe while prove still writes (before the fix: an unhandled EPIPE, exit 1)
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-epipe-"));
    const cmd = `"${process.execPath}" "${BIN}" prove test/fixtures/frontend/mini --no-cache --out "${out}"`;
    const r = spawnSync("bash", ["-c", `${cmd} | head -1; echo "rc=\${PIPESTATUS[0]}" >&2`], { cwd: REPO, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    expect(r.stdout.split("\n").filter(Boolean)).toHaveLength(1);
    expect(r.stdout).toMatch(/^mini .*obligations/);
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
    expect(r.stderr).toMatch(/rc=0/);
  });
});
