/**
 * Trust boundaries of the caches (issue 29, points 1 and 4), each from its smallest reproducer:
 * - a forged proof-cache entry (`{"verdict":"proved"}`, or one sealed with another key) is not
 *   reused: the obligation is solved again and its refutation reported;
 * - `prove --ci` reads no cache from the checkout, fails on a committed `proofs/.cache`, refuses a
 *   --cache-dir inside the checkout, and fails when a verdict differs from the verdict table;
 * - the per-user cache folder and key are refused when group/other-writable, readable by others
 *   or owned by another uid (the owner through a stubbed stat);
 * - a compiled validator folder whose index.js was changed after it was written is not imported.
 *
 * The CLI runs prove on a copy of the tiny `mini` edition (test/fixtures/frontend/mini, 22
 * obligations with the contradicting rule below; one solver process), in a temporary git
 * repository, with XDG_CACHE_HOME pointing at a temporary folder (the user's key lives there).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProofCache } from "../../compiler/verify/cache/store.js";
import { DEFAULT_RLIMIT } from "../../compiler/verify/run/limits.js";
import { cacheSecret, ensurePrivateDir, seal, untrustedReason, UntrustedCacheError, type TrustProbe } from "../../compiler/verify/cache/user-cache.js";
import { UsageError } from "../../compiler/cli/common.js";
import { codeFolderProblem, transpiledValidators } from "../../compiler/engine/loader.js";
import { compareVerdicts, readVerdictTable } from "../../compiler/cli/ci.js";

/** proving takes long on a busy machine: speed is measured in benchmarks, not by test timeouts */
const LONG = 600_000;
const REPO = process.cwd();
const BIN = path.join(REPO, "bin/rulewright.mjs");
const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));

const secretA = Buffer.alloc(32, 1);
const secretB = Buffer.alloc(32, 2);
const posix = typeof process.getuid === "function";

/** the resource budget of the stored verdicts (the default) and a count used within it */
const RL = { budget: DEFAULT_RLIMIT, used: 1000 };
/** a forged "proved" entry as the store holds it (keys in the stable order the seal is computed over) */
const FORGED = { rlimit: { budget: DEFAULT_RLIMIT, used: 1 }, verdict: "proved" };
/** the seal of FORGED stored under `k`, computed with `key` */
const forgedSeal = (key: Buffer, k: string) => seal(key, `entry\0${k}\0${JSON.stringify(FORGED)}`);

describe("the proof cache's seals", () => {
  const example = { state: { phase: "diplomacy", hands: {} }, action: { action: "pass", power: "red" }, replayable: true };
  /** a store of two verdicts and one fact, written with secret A */
  function store(): string {
    const dir = tmp("rw-seal-");
    const c = new ProofCache(dir, "ed", { secret: secretA });
    c.set("k-refuted", { verdict: "refuted", counterexample: example, rlimit: RL });
    c.set("k-proved", { verdict: "proved", core: ["r1"], rlimit: RL });
    c.setFact("f", true);
    c.save(false);
    return dir;
  }
  const read = (dir: string) => JSON.parse(zlib.gunzipSync(fs.readFileSync(ProofCache.fileFor(dir, "ed"))).toString("utf8"));
  const write = (dir: string, data: unknown) => fs.writeFileSync(ProofCache.fileFor(dir, "ed"), zlib.gzipSync(JSON.stringify(data)));

  it("reuses what the same key sealed, with its counterexample state", () => {
    const dir = store();
    const c = new ProofCache(dir, "ed", { secret: secretA });
    expect(c.get("k-refuted")?.verdict).toBe("refuted");
    expect(c.get("k-refuted")?.counterexample?.state).toEqual(example.state);
    expect(c.get("k-proved")).toEqual({ verdict: "proved", core: ["r1"], rlimit: RL });
    expect(c.fact("f")).toBe(true);
  });

  it("ignores every entry and fact under another key (a store copied from another user or committed)", () => {
    const c = new ProofCache(store(), "ed", { secret: secretB });
    expect(c.get("k-refuted")).toBeUndefined();
    expect(c.get("k-proved")).toBeUndefined();
    expect(c.fact("f")).toBeUndefined();
  });

  it("drops an entry edited to {verdict: proved} and keeps the untouched one (the issue's forgery)", () => {
    const dir = store();
    const data = read(dir);
    data.entries["k-refuted"] = FORGED;
    write(dir, data);
    const c = new ProofCache(dir, "ed", { secret: secretA });
    expect(c.get("k-refuted")).toBeUndefined();
    expect(c.get("k-proved")?.verdict).toBe("proved");
  });

  it("drops an entry whose seal was forged with another key, a forged fact, and a verdict whose state was swapped", () => {
    const dir = store();
    const data = read(dir);
    data.entries["k-forged"] = FORGED;
    data.seals.entries["k-forged"] = forgedSeal(secretB, "k-forged");
    data.facts.f = false;
    // the counterexample's state replaced under the same content hash
    const h = data.entries["k-refuted"].counterexample.state.$state;
    data.states[h] = { phase: "movement" };
    write(dir, data);
    const c = new ProofCache(dir, "ed", { secret: secretA });
    expect(c.get("k-forged")).toBeUndefined();
    expect(c.fact("f")).toBeUndefined();
    expect(c.get("k-refuted")).toBeUndefined();
    expect(c.get("k-proved")?.verdict).toBe("proved");
  });

  it("the same forgery sealed with the right key is reused (the seal, not the content, is what is checked)", () => {
    const dir = store();
    const data = read(dir);
    data.entries["k-refuted"] = FORGED;
    data.seals.entries["k-refuted"] = forgedSeal(secretA, "k-refuted");
    write(dir, data);
    expect(new ProofCache(dir, "ed", { secret: secretA }).get("k-refuted")?.verdict).toBe("proved");
  });
});

describe.skipIf(!posix)("the per-user cache folder and key", () => {
  it("creates the folder with mode 0700 and the key with mode 0600", () => {
    const dir = path.join(tmp("rw-xdg-"), "rulewright");
    const key = cacheSecret(dir);
    expect(key).toHaveLength(32);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, "secret.key")).mode & 0o777).toBe(0o600);
    expect(cacheSecret(dir)).toEqual(key);
  });

  it("refuses a folder that group or others may write", () => {
    const dir = tmp("rw-open-");
    fs.chmodSync(dir, 0o777);
    expect(() => ensurePrivateDir(dir)).toThrow(UntrustedCacheError);
    expect(() => ensurePrivateDir(dir)).toThrow(/mode 777 \(group or others may write it\)/);
    expect(() => cacheSecret(dir)).toThrow(UntrustedCacheError);
    expect(fs.existsSync(path.join(dir, "secret.key"))).toBe(false);
    fs.chmodSync(dir, 0o755);
    expect(ensurePrivateDir(dir)).toBe(dir);
  });

  it("refuses a folder owned by another uid (stat stubbed) and a symbolic link", () => {
    const dir = tmp("rw-owner-");
    const other: TrustProbe = { lstat: (p) => Object.assign(fs.lstatSync(p), { uid: 4242 }), uid: () => 1000 };
    expect(untrustedReason(dir, "dir", { probe: other })).toBe("is owned by uid 4242, not by you (uid 1000)");
    expect(() => ensurePrivateDir(dir, other)).toThrow(/owned by uid 4242/);
    const link = path.join(tmp("rw-link-"), "rulewright");
    fs.symlinkSync(dir, link);
    expect(() => ensurePrivateDir(link)).toThrow(/is a symbolic link/);
  });

  it("refuses a key that group or others may read", () => {
    const fresh = path.join(tmp("rw-key2-"), "rulewright");
    fs.mkdirSync(fresh, { mode: 0o700 });
    fs.writeFileSync(path.join(fresh, "secret.key"), "ab".repeat(32), { mode: 0o644 });
    fs.chmodSync(path.join(fresh, "secret.key"), 0o644);
    expect(() => cacheSecret(fresh)).toThrow(/mode 644 \(group or others may read or write it\)/);
  });
});

describe.skipIf(!posix)("the compiled-validator cache", () => {
  let xdg: string;
  const before = process.env.XDG_CACHE_HOME;
  beforeAll(() => {
    xdg = tmp("rw-code-");
    process.env.XDG_CACHE_HOME = xdg;
  });
  afterAll(() => {
    if (before === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = before;
  });
  /** a folder of TypeScript validators: index.ts re-exports a value from a second file */
  function sources(value: number): string {
    const dir = tmp("rw-ts-");
    fs.writeFileSync(path.join(dir, "index.ts"), 'export { value } from "./v.js";\n');
    fs.writeFileSync(path.join(dir, "v.ts"), `export const value: number = ${value};\n`);
    return dir;
  }

  it("lives in the user's folder (0700) and re-writes a folder whose index.js was changed instead of importing it", async () => {
    const src = sources(7);
    const out = await transpiledValidators(src, "tamper");
    expect(path.dirname(out)).toBe(path.join(xdg, "rulewright", "code"));
    expect(fs.statSync(path.dirname(out)).mode & 0o777).toBe(0o700);
    expect(codeFolderProblem(out, path.basename(out))).toBeUndefined();
    const index = path.join(out, "index.js");
    const original = fs.readFileSync(index, "utf8");
    // another user's (or a stray) write: code appended to index.js
    fs.appendFileSync(index, "globalThis.__rulewright_pwned = 1;\n");
    expect(codeFolderProblem(out, path.basename(out))).toBe("index.js does not have the content it was written with");
    const again = await transpiledValidators(src, "tamper");
    expect(again).toBe(out);
    expect(fs.readFileSync(index, "utf8")).toBe(original);
    const mod = (await import(pathToFileURL(index).href + "?t=1")) as { value: number };
    expect(mod.value).toBe(7);
    expect((globalThis as { __rulewright_pwned?: number }).__rulewright_pwned).toBeUndefined();
  });

  it("re-writes a folder planted with the predictable name but no manifest sealed with the user's key", async () => {
    const src = sources(8);
    const out = await transpiledValidators(src, "planted");
    fs.rmSync(out, { recursive: true });
    // what another local user could plant: the right name, their own code
    fs.mkdirSync(out, { mode: 0o700 });
    fs.writeFileSync(path.join(out, "package.json"), '{ "type": "module" }\n');
    fs.writeFileSync(path.join(out, "index.js"), "globalThis.__rulewright_pwned = 2; export const value = 0;\n");
    fs.writeFileSync(path.join(out, "rulewright-manifest.json"), JSON.stringify({ files: {}, seal: seal(secretB, "x") }));
    expect(codeFolderProblem(out, path.basename(out))).toBe("its manifest is not sealed with your key");
    await transpiledValidators(src, "planted");
    const mod = (await import(pathToFileURL(path.join(out, "index.js")).href + "?t=2")) as { value: number };
    expect(mod.value).toBe(8);
    expect((globalThis as { __rulewright_pwned?: number }).__rulewright_pwned).toBeUndefined();
  });

  it("refuses a code cache folder that others may write (exit 2, no import)", async () => {
    const src = sources(9);
    const code = path.join(xdg, "rulewright", "code");
    await transpiledValidators(src, "open");
    fs.chmodSync(code, 0o777);
    try {
      await expect(transpiledValidators(src, "open")).rejects.toThrow(UsageError);
      await expect(transpiledValidators(src, "open")).rejects.toThrow(/group or others may write it/);
    } finally {
      fs.chmodSync(code, 0o700);
    }
  });
});

describe("the verdict table", () => {
  it("reports a differing verdict, a missing and an extra obligation, only for the editions proved", () => {
    const dir = tmp("rw-vt-");
    const file = path.join(dir, "verdicts.tsv");
    fs.writeFileSync(file, "ed.a\tproved\ned.b\tproved\nED_GONE\n");
    expect(() => readVerdictTable(file)).toThrow(/verdicts.tsv:3:1: not a verdict row/);
    fs.writeFileSync(file, "ed.a\tproved\ned.b\tproved\ned.gone\tproved\tvacuous\nother.c\trefuted\n");
    const table = readVerdictTable(file);
    const m = compareVerdicts(table, [{ edition: "ed", obligations: [{ id: "ed.a", verdict: "proved" }, { id: "ed.b", verdict: "refuted" }, { id: "ed.new", verdict: "proved", vacuous: true }] }]);
    expect(m).toEqual([{ id: "ed.b", expected: "proved", actual: "refuted" }, { id: "ed.gone", expected: "proved\tvacuous" }, { id: "ed.new", actual: "proved\tvacuous" }]);
  });
});

describe.skipIf(!posix || !spawnSync("git", ["--version"]).stdout)("prove with a forged proof cache in the checkout (the issue's reproducer, on mini)", () => {
  let work: string;
  let xdg: string;
  const run = (args: string[]) => {
    const r = spawnSync(process.execPath, [BIN, ...args, "--workers", "1", "--no-witnesses"], { cwd: work, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", XDG_CACHE_HOME: xdg }, timeout: LONG });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const git = (...args: string[]) => {
    const r = spawnSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: work, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };
  const store = () => path.join(work, "proofs", ".cache", "ed.json.gz");
  /** every entry of the store edited to `{"verdict":"proved"}`; resealed with `key` when given */
  const forge = (key?: Buffer) => {
    const data = JSON.parse(zlib.gunzipSync(fs.readFileSync(store())).toString("utf8"));
    for (const k of Object.keys(data.entries)) {
      data.entries[k] = FORGED;
      if (key) data.seals.entries[k] = forgedSeal(key, k);
    }
    fs.writeFileSync(store(), zlib.gzipSync(JSON.stringify(data)));
  };
  const CONTRADICTION = "mini.contradiction.pass.empty~pass.broken";

  beforeAll(() => {
    work = tmp("rw-ci-");
    xdg = tmp("rw-ci-xdg-");
    fs.cpSync(path.join(REPO, "test/fixtures/frontend/mini"), path.join(work, "ed"), { recursive: true });
    // contradicts pass.empty (oblige pass when the hand is empty)
    fs.writeFileSync(path.join(work, "ed", "broken.rules"), 'rule pass.broken §11 "(broken) a power with no cards may not pass"\n  forbid pass when count(state.hands[power]) = 0\n');
    git("init", "-q", ".");
    fs.writeFileSync(path.join(work, ".gitignore"), "proofs/\n");
    git("add", ".");
    git("commit", "-qm", "mini with a contradiction");
  });

  it("a forged {verdict: proved} store is re-solved and the contradiction reported; resealed with the user's key it would be reused, but not under --ci", () => {
    const first = run(["prove", "ed", "--format", "json", "--quiet"]);
    expect(first.code).toBe(1);
    expect(fs.existsSync(store())).toBe(true);
    forge();
    const r = run(["prove", "ed", "--format", "json", "--quiet"]);
    expect(r.code, r.err).toBe(1);
    const report = JSON.parse(r.out)[0].report;
    const ob = report.obligations.find((o: { id: string }) => o.id === CONTRADICTION);
    expect(ob.verdict).toBe("refuted");
    expect(ob.cached).toBeFalsy();
    expect(report.summary.cached).toBe(0);
    // control: a store sealed with this user's key is trusted (this is what the key protects)
    forge(cacheSecret(path.join(xdg, "rulewright")));
    expect(run(["prove", "ed", "--quiet"]).code).toBe(0);
    // --ci reads no cache from the checkout (untracked here): the contradiction is found again
    const ci = run(["prove", "ed", "--ci", "--format", "json", "--quiet"]);
    expect(ci.code, ci.err).toBe(1);
    const ciReport = JSON.parse(ci.out)[0].report;
    expect(ciReport.summary.cached).toBe(0);
    expect(ciReport.obligations.find((o: { id: string }) => o.id === CONTRADICTION).verdict).toBe("refuted");
  }, LONG);

  it("--ci fails on a committed proofs/.cache, and refuses a --cache-dir inside the checkout", () => {
    if (!fs.existsSync(store())) run(["prove", "ed", "--quiet"]);
    git("add", "-f", "proofs/.cache");
    git("commit", "-qm", "commit the proof cache");
    try {
      const r = run(["prove", "ed", "--ci"]);
      expect(r.code).toBe(2);
      expect(r.err).toContain("the checkout commits a proof cache (1 file under proofs/.cache, e.g. proofs/.cache/ed.json.gz)");
      expect(r.err).toContain("git rm -r --cached proofs/.cache");
      expect(r.out).not.toContain("obligations");
    } finally {
      git("rm", "-rq", "--cached", "proofs/.cache");
      git("commit", "-qm", "uncommit the proof cache");
    }
    const inside = run(["prove", "ed", "--ci", "--cache-dir", "ed/.proofs"]);
    expect(inside.code).toBe(2);
    expect(inside.err).toMatch(/--cache-dir ed\/\.proofs is inside the checkout/);
  }, LONG);

  it("--expect-verdicts: exit 1 naming each verdict that differs from the table; the run's own code when none does", () => {
    const table = path.join(work, "verdicts.tsv");
    const r = run(["prove", "ed", "--ci", "--format", "json", "--quiet"]);
    const rows = JSON.parse(r.out)[0].report.obligations.map((o: { id: string; verdict: string; vacuous?: boolean }) => [o.id, o.verdict, ...(o.vacuous ? ["vacuous"] : [])].join("\t"));
    fs.writeFileSync(table, rows.join("\n") + "\n");
    // equal: the run's own code (1: the contradiction is an error), and no complaint
    const same = run(["prove", "ed", "--ci", "--expect-verdicts", table, "--quiet", "--fail-on", "error"]);
    expect(same.code).toBe(1);
    expect(same.err).not.toContain("verdicts differ");
    expect(same.out).toContain(`verdicts: every obligation as in ${table}`);
    // a table that says the contradiction is proved (what a forged cache would have produced)
    fs.writeFileSync(table, rows.map((x: string) => (x.startsWith(`${CONTRADICTION}\t`) ? `${CONTRADICTION}\tproved` : x)).join("\n") + "\n");
    const differs = run(["prove", "ed", "--ci", "--expect-verdicts", table, "--quiet"]);
    expect(differs.code).toBe(1);
    expect(differs.err).toContain(`verdicts differ from ${table} (1):`);
    expect(differs.err).toContain(`  ${CONTRADICTION}: proved in ${table}, refuted now`);
  }, LONG);

  it("refuses to prove through a cache when the user's cache folder or a --cache-dir outside the project is group/other-writable (exit 2, with the fix)", () => {
    const dir = path.join(xdg, "rulewright");
    fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(dir, 0o777);
    try {
      const r = run(["prove", "ed"]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`the cache folder ${dir} has mode 777 (group or others may write it)`);
      expect(r.err).toContain("or prove with --no-cache");
    } finally {
      fs.chmodSync(dir, 0o700);
    }
    // a --cache-dir outside the project is held to the same rules
    const shared = tmp("rw-shared-cache-");
    fs.chmodSync(shared, 0o777);
    const r = run(["prove", "ed", "--cache-dir", shared]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`the cache folder ${shared} has mode 777`);
  }, LONG);
});
