/**
 * What `rulewright prove --ci` checks besides proving (issue 29): that nothing in the checkout
 * can speak for the prover. A proof cache committed to the repository fails the run; a cache
 * folder inside the checkout is refused; the fresh verdicts are compared with a committed verdict
 * table (`proofs/verdicts.tsv`, `--expect-verdicts`), and any difference fails the run.
 *
 * The verdict table's rows are `<obligation id> TAB <verdict> [TAB vacuous]`, sorted by id
 * (scripts/verdicts.ts writes it; test/verify/verdicts.test.ts compares it too).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { UsageError } from "./common.js";

/** The verdict table's rows of some obligations: `<id> TAB <verdict> [TAB vacuous]`. */
export function verdictRows(obligations: readonly { id: string; verdict: string; vacuous?: boolean }[]): string[] {
  return obligations.map((o) => [o.id, o.verdict, ...(o.vacuous ? ["vacuous"] : [])].join("\t"));
}

/**
 * Reads a verdict table: obligation id → the rest of its row (`proved`, `refuted\tvacuous`, …).
 * @throws UsageError (exit 2) when the file is missing, or a line is not `<id> TAB <verdict> [TAB vacuous]` (with its line number), or an id repeats
 */
export function readVerdictTable(file: string): Map<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read the verdict table ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 2, "give the file `npm run verdicts` writes (proofs/verdicts.tsv)");
  }
  const table = new Map<string, string>();
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const m = /^([^\t\s]+)\t(proved|refuted|unknown)(\tvacuous)?$/.exec(line.replace(/\r$/, ""));
    if (!m) throw new UsageError(`${file}:${i + 1}:1: not a verdict row (\`<obligation id> TAB proved|refuted|unknown [TAB vacuous]\`)`, 2, "regenerate it with `npx rulewright prove && npm run verdicts`");
    if (table.has(m[1]!)) throw new UsageError(`${file}:${i + 1}:1: obligation ${m[1]} is listed twice`, 2);
    table.set(m[1]!, m[2]! + (m[3] ?? ""));
  });
  return table;
}

/** One difference between a verdict table and a run: `expected`/`actual` undefined when the row is missing on that side. */
export interface VerdictMismatch {
  id: string;
  expected?: string;
  actual?: string;
}

/**
 * The differences between a verdict table and the verdicts of a run, restricted to the table's
 * rows of the editions proved (ids starting with `<edition name>.`), sorted by id: a verdict
 * (or its `vacuous` mark) that differs, an obligation the table lists and the run did not prove,
 * and one the run proved that the table does not list.
 */
export function compareVerdicts(table: ReadonlyMap<string, string>, runs: readonly { edition: string; obligations: readonly { id: string; verdict: string; vacuous?: boolean }[] }[]): VerdictMismatch[] {
  const now = new Map<string, string>();
  for (const r of runs) for (const row of verdictRows(r.obligations)) {
    const [id, ...rest] = row.split("\t");
    now.set(id!, rest.join("\t"));
  }
  const prefixes = runs.map((r) => `${r.edition}.`);
  const out: VerdictMismatch[] = [];
  for (const [id, expected] of table) {
    if (!prefixes.some((p) => id.startsWith(p))) continue;
    const actual = now.get(id);
    if (actual !== expected) out.push({ id, expected, ...(actual !== undefined ? { actual } : {}) });
  }
  for (const [id, actual] of now) if (!table.has(id)) out.push({ id, actual });
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** One line per mismatch, for the terminal. */
export function mismatchLines(file: string, mismatches: readonly VerdictMismatch[]): string[] {
  const v = (x?: string) => (x ?? "").replace("\t", " ");
  return mismatches.map((m) =>
    m.expected === undefined ? `  ${m.id}: ${v(m.actual)} now, not in ${file}` : m.actual === undefined ? `  ${m.id}: ${v(m.expected)} in ${file}, not proved now` : `  ${m.id}: ${v(m.expected)} in ${file}, ${v(m.actual)} now`,
  );
}

/** Whether `p` is `root` or inside it, comparing both as written and with symbolic links resolved. */
export function isInsideDir(p: string, root: string): boolean {
  const inside = (a: string, b: string) => {
    const rel = path.relative(b, a);
    return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
  };
  const real = (x: string) => {
    // the nearest existing ancestor, resolved, with the rest appended
    let cur = path.resolve(x);
    const rest: string[] = [];
    while (!fs.existsSync(cur) && path.dirname(cur) !== cur) {
      rest.unshift(path.basename(cur));
      cur = path.dirname(cur);
    }
    return path.join(fs.realpathSync(cur), ...rest);
  };
  return inside(path.resolve(p), path.resolve(root)) || inside(real(p), real(root));
}

/** The checkout `cwd` is in: git's top-level folder, or `cwd` itself outside a git work tree (`git: false`). */
export function checkoutRoot(cwd = process.cwd()): { root: string; git: boolean } {
  const r = spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd, encoding: "utf8" });
  if (r.status === 0 && r.stdout.trim()) return { root: r.stdout.trim(), git: true };
  return { root: path.resolve(cwd), git: false };
}

/**
 * The CI-mode checks made before anything is proved:
 * - a proof cache in the checkout (`<cwd>/proofs/.cache`) that git tracks — committed, so anyone
 *   with a pull request wrote it — fails the run; outside a git work tree, where who wrote it
 *   cannot be told, one that is present fails it too. An untracked one (a local `prove` or
 *   `npm test` left it) is simply not read.
 * - `cacheDir` (given with `--cache-dir`) must be outside the checkout.
 * @throws UsageError (exit 2) with what was found and the fix
 */
export function ciPreflight(cacheDir: string | undefined, cwd = process.cwd()): void {
  const { root, git } = checkoutRoot(cwd);
  const local = path.join(cwd, "proofs", ".cache");
  if (git) {
    const r = spawnSync("git", ["ls-files", "-z", "--", local], { cwd, encoding: "utf8" });
    const tracked = r.status === 0 ? r.stdout.split("\0").filter(Boolean) : [];
    if (tracked.length)
      throw new UsageError(
        `the checkout commits a proof cache (${tracked.length} file${tracked.length > 1 ? "s" : ""} under proofs/.cache, e.g. ${tracked[0]}): a cache is never evidence in CI, and a committed one may hold forged verdicts`,
        2,
        "remove it from the repository (`git rm -r --cached proofs/.cache`); CI proves without it",
      );
  } else if (fs.existsSync(local)) {
    throw new UsageError(`${path.relative(cwd, local) || local} is present and this is not a git work tree (it may have come with the checkout): prove --ci reads no cache from the checkout`, 2, "delete proofs/.cache before the CI run");
  }
  if (cacheDir !== undefined && isInsideDir(cacheDir, root))
    throw new UsageError(`--cache-dir ${cacheDir} is inside the checkout (${root}): prove --ci reads no cache that the checkout could hold`, 2, "give a folder outside the checkout that the CI job itself writes (e.g. $RUNNER_TEMP/rulewright-proofs), or no --cache-dir (CI then solves every obligation)");
}
