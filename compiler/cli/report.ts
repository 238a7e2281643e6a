/**
 * `rulewright report [editions…] [--out dir] [--tests file] [--coverage file]` and
 * `rulewright serve [--port n] [--watch]`: the rulebook report (compiler/report/README.md).
 *
 * `report` compiles the editions (default: every bundled one), reads their last prove reports
 * (`proofs/<edition>/report.json`; never proves), the diff reports under `proofs/diff/` (the
 * rule-level diff of editions that share actions is computed from their IR, always), the
 * coverage (computed as `rulewright coverage --format json` does, or read from `--coverage`) and
 * the scenario results (run as `rulewright test --format json` does, or read from `--tests`), and
 * writes `<out>/index.html` (default `proofs/report/`). Exit 0 written, 2 a compile error or bad
 * usage. `serve` writes the same and serves it on 127.0.0.1 (exit 2 also for a port in use);
 * `--watch` rebuilds when a rule file, a schema, a board, a scenario or a prove report changes,
 * and the open page reloads itself (it polls `/__version`, the only other path served).
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { buildSiteData, reportInputProblems, type DiffReport, type EditionInput, type TestResults } from "../report/data.js";
import { readLayout, writeSite } from "../report/site.js";
import { PhrasesError } from "../report/phrases.js";
import { findScenarioFiles, readScenarioFile } from "../scenarios/index.js";
import type { CoverageReport } from "../coverage/index.js";
import type { ProofReport } from "../ir/proof-report.js";
import { compile, readJson, UsageError, color } from "./common.js";
import { bundledEditions, PROOFS_DIR, resolveEdition } from "../engine/editions.js";

export const DEFAULT_REPORT_DIR = path.join(PROOFS_DIR, "report");

export interface ReportOptions {
  out?: string;
  /** a file saved from `rulewright test --format json` */
  tests?: string;
  /** a file saved from `rulewright coverage --format json` */
  coverage?: string;
  /** results the caller already has (`rulewright all`): used instead of running or reading them */
  testResults?: TestResults;
  coverageReport?: CoverageReport;
  quiet?: boolean;
}

export interface ReportResult {
  file: string;
  bytes: number;
  ms: number;
  /** the folders of the editions in the report (what `serve --watch` watches besides dsl/) */
  dirs: string[];
}

/** Builds and writes the report. @throws UsageError (exit 2) for an edition that does not compile or an unreadable --tests/--coverage file. */
export async function buildReport(editionArgs: string[], opts: ReportOptions): Promise<ReportResult> {
  const t0 = performance.now();
  const names = editionArgs.length ? editionArgs : bundledEditions();
  if (!names.length) throw new UsageError("no editions found under dsl/", 2);
  const scenarioFiles = fs.existsSync("test/scenarios") ? findScenarioFiles(["test/scenarios"]) : [];
  const scenarios = scenarioFiles.flatMap((f) => readScenarioFile(f, (e) => path.join("test", "fixtures", path.basename(e))).scenarios);
  const editions: EditionInput[] = [];
  const dirs: string[] = [];
  for (const n of names) {
    const ref = resolveEdition(n);
    dirs.push(path.join(ref.root ?? "", ref.dir));
    const res = compile(ref, "text");
    if (!res.edition) throw new UsageError(`edition \`${n}\` does not compile`, 2, `run \`rulewright build ${n}\` for the errors`);
    const folder = res.edition.folder ?? res.edition.name;
    // where `rulewright prove` writes it (compiler/cli/prove.ts proofsDirFor; not imported: it loads the prover)
    const file = path.join(PROOFS_DIR, ...(ref.bundled ? [] : [".fixtures"]), path.basename(ref.dir), "report.json");
    const proof = fs.existsSync(file) ? { report: readJson(file, "prove report") as ProofReport, file } : undefined;
    editions.push({ ir: res.edition, proof, scenarios: scenarios.filter((s) => s.edition === folder || s.edition.endsWith(`/${folder}`)) });
  }
  let tests: TestResults | undefined;
  if (opts.testResults) tests = opts.testResults;
  else if (opts.tests) tests = checkedInput("tests", opts.tests, readJson(opts.tests, "scenario results (rulewright test --format json)")) as TestResults;
  // a project with no test/scenarios/ (an edition made by `rulewright init`) has no results to show
  else if (fs.existsSync("test/scenarios")) tests = await (await import("./test.js")).runScenarios(["test/scenarios"], "json");
  let coverage: CoverageReport | undefined;
  if (opts.coverageReport) coverage = opts.coverageReport;
  else if (opts.coverage) coverage = checkedInput("coverage", opts.coverage, readJson(opts.coverage, "coverage report (rulewright coverage --format json)")) as CoverageReport;
  else {
    try {
      coverage = (await import("./coverage.js")).runCoverage({ format: "json" }).report;
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      if (!opts.quiet) process.stderr.write(`report: coverage not shown (${e.message})\n`);
    }
  }
  const diffs: DiffReport[] = [];
  const diffDir = path.join(PROOFS_DIR, "diff");
  if (fs.existsSync(diffDir)) {
    for (const d of fs.readdirSync(diffDir).sort()) {
      const f = path.join(diffDir, d, "report.json");
      if (fs.existsSync(f)) diffs.push(readJson(f, "diff report") as DiffReport);
    }
  }
  const layout = readLayout();
  let data: ReturnType<typeof buildSiteData>;
  try {
    data = buildSiteData({ root: process.cwd(), editions, coverage, tests, diffs }, layout);
  } catch (e) {
    // a malformed phrases.json beside the rules (compiler/report/phrases.ts) is bad input, not a bug
    if (e instanceof PhrasesError) throw new UsageError(e.message, 2, e.hint);
    throw e;
  }
  const out = writeSite(opts.out ?? DEFAULT_REPORT_DIR, data, layout);
  return { ...out, ms: Math.round(performance.now() - t0), dirs };
}

export async function reportCommand(editions: string[], opts: ReportOptions): Promise<number> {
  const r = await buildReport(editions, opts);
  process.stdout.write(`report: ${r.file} (${(r.bytes / 1e6).toFixed(2)} MB, ${(r.ms / 1000).toFixed(1)} s) — open it in a browser, no server needed\n`);
  return 0;
}

/** A `--tests` or `--coverage` file's JSON, once `reportInputProblems` finds nothing wrong. @throws UsageError (exit 2) naming what is wrong. */
function checkedInput(kind: "coverage" | "tests", file: string, json: unknown): unknown {
  const problems = reportInputProblems(kind, json);
  if (problems.length)
    throw new UsageError(`${file} is not a ${kind === "tests" ? "scenario results file" : "coverage report"}: ${problems.join("; ")}`, 2, `write it with \`npx rulewright ${kind === "tests" ? "test" : "coverage"} --format json > ${file}\``);
  return json;
}

/** The port `serve` listens on without --port. */
export const DEFAULT_PORT = 8377;

/** The port of `serve --port`: a whole number 0–65535 (0 = any free port). @throws UsageError (exit 2) otherwise. */
export function parsePort(arg: string | undefined): number {
  if (arg === undefined) return DEFAULT_PORT;
  const port = /^\d{1,5}$/.test(arg.trim()) ? Number(arg.trim()) : NaN;
  if (!(port <= 65535)) throw new UsageError(`--port must be a port number from 0 to 65535, got \`${arg}\``, 2, "0 picks a free port");
  return port;
}

/**
 * Whether a request's `Host` header names this server as a local page does: `127.0.0.1`,
 * `localhost` or `[::1]` (any case) with `port` (the port may be left out only when it is 80).
 * Anything else is refused (403): a page of another site whose name an attacker points at
 * 127.0.0.1 (DNS rebinding) sends its own name, and must not read the report.
 */
export function isLocalHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const m = /^(127\.0\.0\.1|localhost|\[::1\])(?::(\d{1,5}))?$/i.exec(host.trim());
  if (!m) return false;
  return m[2] === undefined ? port === 80 : Number(m[2]) === port;
}

/** Listens on 127.0.0.1:port. @throws UsageError (exit 2) when the port is taken or not allowed. */
function listen(server: http.Server, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EADDRINUSE") reject(new UsageError(`port ${port} on 127.0.0.1 is in use`, 2, "stop what uses it, or choose another port with --port <n> (0 picks a free one)"));
      else if (e.code === "EACCES") reject(new UsageError(`not allowed to listen on port ${port}`, 2, "ports below 1024 need privileges: choose another with --port <n> (0 picks a free one)"));
      else reject(new UsageError(`cannot listen on 127.0.0.1:${port}: ${e.message}`, 2));
    });
    server.listen(port, "127.0.0.1", () => {
      const addr = server.address();
      resolve(typeof addr === "object" && addr ? addr.port : port);
    });
  });
}

/**
 * Serves the report on 127.0.0.1 until SIGINT/SIGTERM; with --watch rebuilds it on change. A
 * request whose `Host` is not this server's local address is refused (403, `isLocalHost`). The
 * port is taken first (a port in use is a usage error before anything is built); until the first
 * build is written, the page answers 503. Prints `serving <file> at http://127.0.0.1:<port>/` once
 * the report is written (and, with --watch, the watcher is ready; the port is the one chosen
 * when --port is 0). Exit 0 when interrupted; 2 bad usage, a port in use or not allowed, an
 * edition that does not compile.
 */
export async function serveCommand(editions: string[], opts: ReportOptions & { port?: string; watch?: boolean }): Promise<number> {
  const port = parsePort(opts.port);
  const out = opts.out ?? DEFAULT_REPORT_DIR;
  let last: ReportResult | undefined;
  let version = 1;
  let actual = port;
  const server = http.createServer((req, res) => {
    if (!isLocalHost(req.headers.host, actual)) {
      res.writeHead(403, { "content-type": "text/plain" }).end(`forbidden: the report is served to http://127.0.0.1:${actual}/ only`);
      return;
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/__version") {
      res.writeHead(200, { "content-type": "text/plain", "cache-control": "no-store" }).end(String(version));
      return;
    }
    if (url.pathname !== "/" && url.pathname !== "/index.html") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    if (!last) {
      res.writeHead(503, { "content-type": "text/plain", "retry-after": "5" }).end("the report is being built");
      return;
    }
    // served, the page may ask for /__version (connect-src 'self') and reloads when a rebuild bumps it
    const html = fs
      .readFileSync(last.file, "utf8")
      .replace("default-src 'none';", "default-src 'none'; connect-src 'self';")
      .replace("</body>", `<script>(()=>{let v=${version};setInterval(async()=>{try{const n=Number(await (await fetch("/__version")).text());if(n!==v)location.reload();}catch{}},1000);})();</script></body>`);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
  });
  actual = await listen(server, port);
  try {
    last = await buildReport(editions, { ...opts, out });
  } catch (e) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw e;
  }
  let watcher: { close(): Promise<void> } | undefined;
  if (opts.watch) {
    const { watch } = await import("chokidar");
    let timer: NodeJS.Timeout | undefined;
    const outAbs = path.resolve(out);
    const cacheAbs = path.resolve(PROOFS_DIR, ".cache");
    const w = watch([...new Set(["dsl", "test/scenarios", PROOFS_DIR, ...last.dirs])], {
      ignoreInitial: true,
      ignored: (p: string) => path.resolve(p).startsWith(outAbs) || path.resolve(p).startsWith(cacheAbs) || p.includes(`${path.sep}.cache`),
    });
    let building = false;
    let again = false;
    const rebuild = async () => {
      if (building) {
        again = true;
        return;
      }
      building = true;
      try {
        last = await buildReport(editions, { ...opts, out, quiet: true });
        version++;
        process.stdout.write(`rebuilt ${last.file} (${(last.ms / 1000).toFixed(1)} s)\n`);
      } catch (e) {
        process.stderr.write(`${color.red("report not rebuilt")}: ${(e as Error).message}\n`);
      } finally {
        building = false;
        if (again) {
          again = false;
          void rebuild();
        }
      }
    };
    w.on("all", () => {
      clearTimeout(timer);
      timer = setTimeout(() => void rebuild(), 200);
    });
    await new Promise<void>((resolve) => w.once("ready", () => resolve()));
    watcher = w;
  }
  // printed once the watcher is ready: a save after this line is seen
  process.stdout.write(`serving ${last.file} at http://127.0.0.1:${actual}/${opts.watch ? " (rebuilt on save)" : ""} — Ctrl-C to stop\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await watcher?.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return 0;
}
