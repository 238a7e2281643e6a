/**
 * Scaling: build and prove time and peak memory for the bundled editions (through the CLI, as a
 * user runs them) and for synthetic k× rulebooks (bench/scaling/synth.ts), each measurement in
 * its own process.
 *
 * - bundled, build: `rulewright build --check` over every edition in dsl/ (compile, generate,
 *   compare with generated/; nothing written). One process.
 * - bundled, prove: `rulewright prove <edition> --out <temp> --format json` per edition (a fresh
 *   output folder, default prover settings); the times are added up, the verdicts counted.
 * - synthetic: bench/scaling/child.ts `build` (front end + codegen + write to a temp folder) and
 *   `prove` (front end + every obligation) per k. Wall time includes process start-up (Node, tsx,
 *   loading the compiler); the phase times measured inside the process are reported too.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { writeSynthetic } from "./synth.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const HOOK = path.join(ROOT, "bench/scaling/rss-hook.cjs");

export interface RunResult {
  wallMs: number;
  maxRssKb: number | null;
  exitCode: number | null;
  /** the JSON line a child.ts process printed */
  detail?: Record<string, unknown>;
  error?: string;
}

export interface SyntheticPoint {
  copies: number;
  rules: number;
  actions: number;
  build?: RunResult;
  prove?: RunResult;
}

export interface ScalingResult {
  bundled: { editions: string[]; build: RunResult; prove: ({ edition: string } & RunResult)[]; proveTotalMs: number; proveMaxRssKb: number | null };
  synthetic: { from: string; files: string[]; maxItems: number; dropInvariants: boolean; proveTimeoutMs: number; points: SyntheticPoint[] };
}

export interface ScalingOptions {
  buildFactors: number[];
  proveFactors: number[];
  /** per-obligation Z3 timeout for synthetic rulebooks (ms) */
  proveTimeoutMs: number;
  /** kill a measurement after this long (ms) */
  killAfterMs: number;
  log: (s: string) => void;
}

/** Runs `node <args>` in the repo root with the peak-RSS hook; never throws. */
function run(args: string[], killAfterMs: number): RunResult {
  const rssFile = path.join(os.tmpdir(), `rulewright-bench-rss-${process.pid}-${Date.now()}.json`);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--require", HOOK, ...args], {
    cwd: ROOT,
    env: { ...process.env, BENCH_RSS_FILE: rssFile, FORCE_COLOR: "0" },
    encoding: "utf8",
    timeout: killAfterMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallMs = performance.now() - t0;
  let maxRssKb: number | null = null;
  try {
    maxRssKb = (JSON.parse(fs.readFileSync(rssFile, "utf8")) as { maxRssKb: number }).maxRssKb;
    fs.rmSync(rssFile);
  } catch {
    /* killed before exit */
  }
  const out: RunResult = { wallMs, maxRssKb, exitCode: r.status };
  const text = r.stdout?.trim() ?? "";
  const last = text.split("\n").pop();
  if (text.startsWith("[")) {
    // `rulewright prove --format json`: keep the verdict tallies, not the whole report
    try {
      const reports = JSON.parse(text) as { edition: string; report?: { obligations: { verdict: string; severity: string }[] } }[];
      const obs = reports.flatMap((x) => x.report?.obligations ?? []);
      out.detail = {
        obligations: obs.length,
        summary: { proved: obs.filter((o) => o.verdict === "proved").length, refuted: obs.filter((o) => o.verdict === "refuted").length, unknown: obs.filter((o) => o.verdict === "unknown").length },
      };
    } catch {
      /* not JSON after all */
    }
  } else if (last?.startsWith("{")) {
    try {
      out.detail = JSON.parse(last) as Record<string, unknown>;
    } catch {
      /* not a child.ts line */
    }
  }
  if (r.error) out.error = r.error.message;
  else if (r.status !== 0 && r.status !== 1) out.error = (r.stderr || r.stdout || "").trim().split("\n").slice(-3).join(" ").slice(0, 400);
  return out;
}

/** The editions `rulewright` treats as bundled: folders of dsl/ with a .rules file. */
export function bundledEditions(): string[] {
  const dsl = path.join(ROOT, "dsl");
  return fs
    .readdirSync(dsl, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.readdirSync(path.join(dsl, d.name)).some((f) => f.endsWith(".rules")))
    .map((d) => d.name)
    .sort();
}

export function runScaling(o: ScalingOptions): ScalingResult {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-bench-"));
  try {
    const editions = bundledEditions();
    o.log(`bundled editions (${editions.join(", ")}): build --check`);
    const build = run(["bin/rulewright.mjs", "build", "--check"], o.killAfterMs);
    const prove: ({ edition: string } & RunResult)[] = [];
    for (const e of editions) {
      o.log(`bundled edition ${e}: prove`);
      prove.push({ edition: e, ...run(["bin/rulewright.mjs", "prove", e, "--out", path.join(tmp, "proofs", e), "--format", "json"], o.killAfterMs) });
    }
    const rss = prove.map((p) => p.maxRssKb).filter((x): x is number => x !== null);

    const from = "dsl/his";
    const files = ["war.rules", "pass.rules"];
    const maxItems = 4;
    const dropInvariants = true;
    const points: SyntheticPoint[] = [];
    for (const k of [...new Set([...o.buildFactors, ...o.proveFactors])].sort((a, b) => a - b)) {
      const dir = path.join(tmp, `synth_${k}x`);
      const w = writeSynthetic({ from: path.join(ROOT, from), files, copies: k, out: dir, maxItems, dropInvariants });
      const p: SyntheticPoint = { copies: k, rules: w.rules, actions: w.actions };
      if (o.buildFactors.includes(k)) {
        o.log(`synthetic ${k}x (${w.rules} rules): build`);
        p.build = run(["--import", "tsx", "bench/scaling/child.ts", "build", dir, path.join(tmp, `out_${k}x`)], o.killAfterMs);
      }
      if (o.proveFactors.includes(k)) {
        o.log(`synthetic ${k}x (${w.rules} rules): prove`);
        p.prove = run(["--import", "tsx", "bench/scaling/child.ts", "prove", dir, path.join(tmp, `proofs_${k}x`), String(o.proveTimeoutMs)], o.killAfterMs);
      }
      points.push(p);
    }
    return {
      bundled: { editions, build, prove, proveTotalMs: prove.reduce((n, p) => n + p.wallMs, 0), proveMaxRssKb: rss.length ? Math.max(...rss) : null },
      synthetic: { from, files, maxItems, dropInvariants, proveTimeoutMs: o.proveTimeoutMs, points },
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The exponent b between consecutive points (log Δtime / log Δrules), in rule-count order: the
 * last one is the growth at the largest sizes, where fixed costs no longer hide it.
 */
export function segmentExponents(points: { rules: number; ms: number }[]): number[] {
  const ps = points.filter((p) => p.rules > 0 && p.ms > 0).sort((a, b) => a.rules - b.rules);
  const out: number[] = [];
  for (let i = 1; i < ps.length; i++) out.push(Math.log(ps[i]!.ms / ps[i - 1]!.ms) / Math.log(ps[i]!.rules / ps[i - 1]!.rules));
  return out;
}

/**
 * The exponent b of time ≈ a·rules^b fitted by least squares on log–log points (b ≤ 1: no worse
 * than linear). Null with fewer than two points.
 */
export function growthExponent(points: { rules: number; ms: number }[]): number | null {
  const ps = points.filter((p) => p.rules > 0 && p.ms > 0);
  if (ps.length < 2) return null;
  const xs = ps.map((p) => Math.log(p.rules));
  const ys = ps.map((p) => Math.log(p.ms));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? null : num / den;
}
