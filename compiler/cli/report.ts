/**
 * `rulewright report [editions…] [--out dir] [--tests file] [--coverage file]` and
 * `rulewright serve [--port n] [--watch]`: the rulebook report (compiler/report/README.md).
 *
 * `report` compiles the editions (default: every bundled one), reads their last prove reports
 * (`proofs/<edition>/report.json`; never proves), the diff reports under `proofs/diff/`, the
 * coverage (computed as `rulewright coverage --format json` does, or read from `--coverage`) and
 * the scenario results (run as `rulewright test --format json` does, or read from `--tests`), and
 * writes `<out>/index.html` (default `proofs/report/`). Exit 0 written, 2 a compile error or bad
 * usage. `serve` writes the same and serves it on 127.0.0.1; `--watch` rebuilds when a rule
 * file, a schema, a board, a scenario or a prove report changes, and the open page reloads
 * itself (it polls `/__version`, the only other path served).
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { buildSiteData, type DiffReport, type EditionInput, type TestResults } from "../report/data.js";
import { readLayout, writeSite } from "../report/site.js";
import { findScenarioFiles, readScenarioFile } from "../scenarios/index.js";
import type { CoverageReport } from "../coverage/index.js";
import type { ProofReport } from "../verify/results.js";
import { bundledEditions, compile, PROOFS_DIR, readJson, resolveEdition, UsageError, color } from "./common.js";

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
}

/** Builds and writes the report. @throws UsageError (exit 2) for an edition that does not compile or an unreadable --tests/--coverage file. */
export async function buildReport(editionArgs: string[], opts: ReportOptions): Promise<ReportResult> {
  const t0 = performance.now();
  const names = editionArgs.length ? editionArgs : bundledEditions();
  if (!names.length) throw new UsageError("no editions found under dsl/", 2);
  const scenarioFiles = fs.existsSync("test/scenarios") ? findScenarioFiles(["test/scenarios"]) : [];
  const scenarios = scenarioFiles.flatMap((f) => readScenarioFile(f, (e) => path.join("test", "fixtures", path.basename(e))).scenarios);
  const editions: EditionInput[] = [];
  for (const n of names) {
    const ref = resolveEdition(n);
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
  else if (opts.tests) tests = readJson(opts.tests, "scenario results (rulewright test --format json)") as TestResults;
  else tests = await (await import("./test.js")).runScenarios(["test/scenarios"], "json");
  let coverage: CoverageReport | undefined;
  if (opts.coverageReport) coverage = opts.coverageReport;
  else if (opts.coverage) coverage = readJson(opts.coverage, "coverage report (rulewright coverage --format json)") as CoverageReport;
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
  const data = buildSiteData({ root: process.cwd(), editions, coverage, tests, diffs }, layout);
  const out = writeSite(opts.out ?? DEFAULT_REPORT_DIR, data, layout);
  return { ...out, ms: Math.round(performance.now() - t0) };
}

export async function reportCommand(editions: string[], opts: ReportOptions): Promise<number> {
  const r = await buildReport(editions, opts);
  process.stdout.write(`report: ${r.file} (${(r.bytes / 1e6).toFixed(2)} MB, ${(r.ms / 1000).toFixed(1)} s) — open it in a browser, no server needed\n`);
  return 0;
}

/** Serves the report folder on 127.0.0.1 until interrupted; rebuilds it on change with --watch. */
export async function serveCommand(editions: string[], opts: ReportOptions & { port?: string; watch?: boolean }): Promise<number> {
  const port = opts.port === undefined ? 8377 : Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, got \`${opts.port}\``, 2);
  const out = opts.out ?? DEFAULT_REPORT_DIR;
  let last = await buildReport(editions, { ...opts, out });
  let version = 1;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/__version") {
      res.writeHead(200, { "content-type": "text/plain" }).end(String(version));
      return;
    }
    if (url.pathname !== "/" && url.pathname !== "/index.html") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    // served, the page may ask for /__version (connect-src 'self') and reloads when a rebuild bumps it
    const html = fs
      .readFileSync(last.file, "utf8")
      .replace("default-src 'none';", "default-src 'none'; connect-src 'self';")
      .replace("</body>", `<script>(()=>{let v=${version};setInterval(async()=>{try{const n=Number(await (await fetch("/__version")).text());if(n!==v)location.reload();}catch{}},1000);})();</script></body>`);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", () => resolve()));
  const addr = server.address();
  const actual = typeof addr === "object" && addr ? addr.port : port;
  process.stdout.write(`serving ${last.file} at http://127.0.0.1:${actual}/${opts.watch ? " (rebuilt on save)" : ""} — Ctrl-C to stop\n`);
  let watcher: { close(): Promise<void> } | undefined;
  if (opts.watch) {
    const { watch } = await import("chokidar");
    let timer: NodeJS.Timeout | undefined;
    const w = watch(["dsl", "test/scenarios", PROOFS_DIR], {
      ignoreInitial: true,
      ignored: (p: string) => p.startsWith(path.resolve(out)) || p.includes(`${path.sep}.cache`) || p.startsWith(path.join(PROOFS_DIR, ".cache")) || p.startsWith(out),
    });
    w.on("all", () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        try {
          last = await buildReport(editions, { ...opts, out, quiet: true });
          version++;
          process.stdout.write(`rebuilt ${last.file} (${(last.ms / 1000).toFixed(1)} s)\n`);
        } catch (e) {
          process.stderr.write(`${color.red("report not rebuilt")}: ${(e as Error).message}\n`);
        }
      }, 200);
    });
    watcher = w;
  }
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await watcher?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return 0;
}
