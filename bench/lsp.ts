/**
 * `npm run bench:lsp`: the language server's latency as an editor sees it, on a file of the
 * largest bundled edition (Virgin Queen, dsl/vq/control.rules) and of Here I Stand
 * (dsl/his/war.rules, checked in his and his-500). A real LSP client (test/helpers/lsp-client.ts)
 * starts `rulewright lsp --stdio`, opens the file and, per round, sends one edit (a comment line
 * added: a new version) and times the diagnostics of that version (debounce included), then a
 * hover on a rule id right after the diagnostics (the symbol index rebuilt) and once more (warm).
 * Background proving is off for those rows (`initializationOptions: { prove: false }`); a third
 * row measures the same on dsl/his/war.rules with it on, each edit adding a rule (so that the
 * edit's obligations are proved) made while the previous edit's proofs are still running.
 *
 * Then the proof findings' latency (compiler/lsp/proving.ts): per round, a rule that contradicts
 * `pass.empty_hand` is typed into the unsaved dsl/his/cards.rules (a new rule id each round, so
 * the proof cache never answers it) and the time from that edit to the diagnostic of the
 * contradiction is taken (it shows as soon as the solver finds its model: findings first), then to
 * the same finding with its canonical, minimal counterexample, then from the undo to the
 * diagnostics without it; the next round starts
 * when the proofs have ended. Quiet, then with four busy loops (`node -e 'for(;;){}'`) beside it.
 * Run `rulewright prove his his-500` first: the untouched obligations then come from the proof
 * cache, as for a designer who proved before editing.
 *
 * Prints Markdown tables (median and worst of the rounds, in ms; the median of an even count is
 * the mean of the two middle rounds) with the load average at each row's start and end, and
 * writes them at the top of bench/results/lsp.md, the runs before kept below. Options:
 * `--rounds <n>` (default 15), `--prove-rounds <n>` (the proof findings' rounds, default 10: issue
 * 23 asks the median of 10),
 * `--no-prove` (the first table only), `--only-prove` (the rows with proving only), `--only-findings`
 * (the proof findings' table only).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HoverRequest, type Position } from "vscode-languageserver-protocol/node";
import { LspClient } from "../test/helpers/lsp-client.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const rounds = args.includes("--rounds") ? Number(args[args.indexOf("--rounds") + 1]) : 15;
const proveRounds = args.includes("--prove-rounds") ? Number(args[args.indexOf("--prove-rounds") + 1]) : 10;
const withProofs = !args.includes("--no-prove");
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(proveRounds) || proveRounds < 1) {
  process.stderr.write("--rounds and --prove-rounds take a whole number ≥ 1\n");
  process.exit(2);
}

/** The position of the first occurrence of `needle` in `text` (0-based line and character). */
function positionOf(text: string, needle: string): Position {
  const i = text.indexOf(needle);
  if (i < 0) throw new Error(`\`${needle}\` is not in the file`);
  const before = text.slice(0, i).split("\n");
  return { line: before.length - 1, character: before[before.length - 1]!.length };
}

/** Made part of the rule ids the bench types, so that no run finds them in the proof cache. */
const runStamp = Date.now().toString(36);

/** The median (of an even count: the mean of the two middle values). */
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor((s.length - 1) / 2);
  return s.length % 2 ? s[m]! : (s[m]! + s[m + 1]!) / 2;
};
const worst = (xs: number[]) => Math.max(...xs);

interface Row {
  file: string;
  editions: string;
  /** 1-minute load average (`uptime`) when the row started and ended: other processes share the machine */
  load: [number, number];
  diagnostics: number[];
  hoverCold: number[];
  hoverWarm: number[];
}

/** Whether a proof run has begun and not ended (the server's $/progress). */
function proving(c: LspClient): boolean {
  const ended = new Set(c.progress.filter((p) => p.value.kind === "end").map((p) => p.token));
  return c.progress.some((p) => p.value.kind === "begin" && !ended.has(p.token));
}

/**
 * Compiler diagnostics and hover after an edit. `prove`: background proving on, and each edit
 * adds a rule (its obligations are proved) once the previous edit's proof run is going.
 */
async function measure(file: string, editions: string, ruleId: string, prove = false): Promise<Row> {
  const c = await LspClient.start(undefined, { initializationOptions: prove ? {} : { prove: false, findings: false } });
  try {
    const abs = path.join(ROOT, file);
    const text = fs.readFileSync(abs, "utf8");
    const u = await c.open(abs, text, 1);
    await c.waitForDiagnostics(u, 1);
    const row: Row = { file, editions, load: [os.loadavg()[0]!, 0], diagnostics: [], hoverCold: [], hoverWarm: [] };
    const at = positionOf(text, `rule ${ruleId}`);
    const hoverAt = { line: at.line, character: at.character + "rule ".length + 1 };
    const hover = async () => {
      const t0 = performance.now();
      const h = await c.conn.sendRequest(HoverRequest.type, { textDocument: { uri: u }, position: hoverAt });
      if (!h) throw new Error(`no hover on ${ruleId}`);
      return performance.now() - t0;
    };
    for (let i = 2; i < rounds + 2; i++) {
      // a comment line added at the top: every position below moves, the rules do not change
      // (with proving: and a rule added at the end, whose obligations are proved)
      // (a rule id new to every run: the proof cache, which keeps the verdicts of earlier runs, never answers it)
      const edited = `// edit ${i}\n${text}${prove ? `\nrule bench.r${i}_${runStamp} §9.6 "bench"\n  forbid declare_war when count(state.wars) = ${i}\n` : ""}`;
      hoverAt.line = at.line + 1;
      if (prove && i > 2) await c.waitFor("a proof run", () => (proving(c) ? true : undefined), 60_000).catch(() => undefined);
      const sent = performance.now();
      await c.change(u, edited, i);
      const d = await c.waitForDiagnostics(u, i);
      row.diagnostics.push(d.at - sent);
      row.hoverCold.push(await hover());
      row.hoverWarm.push(await hover());
      process.stderr.write(`${file}${prove ? " (proving)" : ""} round ${i - 1}: diagnostics ${row.diagnostics.at(-1)!.toFixed(0)} ms, hover ${row.hoverCold.at(-1)!.toFixed(0)} / ${row.hoverWarm.at(-1)!.toFixed(0)} ms\n`);
    }
    row.load[1] = os.loadavg()[0]!;
    return row;
  } finally {
    await c.stop();
  }
}

const onlyProofs = args.includes("--only-prove") || args.includes("--only-findings");
const onlyFindings = args.includes("--only-findings");
const rows = onlyProofs ? [] : [await measure("dsl/vq/control.rules", "vq", "control.phase"), await measure("dsl/his/war.rules", "his, his-500", "dow.scotland")];
if (withProofs && !onlyFindings) rows.push({ ...(await measure("dsl/his/war.rules", "his, his-500", "dow.scotland", true)), editions: "his, his-500; background proving on, a proof running" });

/** Four busy loops (one per… more than the cores: the loaded case of issue 23), ended by `stop`. */
function busyLoops(n: number): { stop: () => void } {
  const kids: ChildProcess[] = [];
  for (let i = 0; i < n; i++) kids.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
  const stop = () => kids.forEach((k) => k.kill());
  // never left spinning when the bench ends early
  process.once("exit", stop);
  for (const sig of ["SIGINT", "SIGTERM"] as const)
    process.once(sig, () => {
      stop();
      process.exit(130);
    });
  return { stop };
}

interface ProveRow {
  load: string;
  /** 1-minute load average when the row started (before its busy loops) */
  loadStart: number;
  found: number[];
  /** edit → the finding with its polished (canonical, minimal) counterexample */
  polished: number[];
  cleared: number[];
  loadAvg: number;
}

/** Contradiction-to-diagnostic latency on dsl/his/cards.rules (see the file comment). */
async function measureProofs(load: string, busy: number): Promise<ProveRow> {
  const loadStart = os.loadavg()[0]!;
  const loops = busy ? busyLoops(busy) : undefined;
  const c = await LspClient.start(undefined, { initializationOptions: {} });
  try {
    const file = path.join(ROOT, "dsl/his/cards.rules");
    const text = fs.readFileSync(file, "utf8");
    const u = await c.open(file, text, 1);
    await c.waitForDiagnostics(u, 1);
    const idle = () => c.waitFor("the proofs to end", () => (proving(c) ? undefined : true), 600_000);
    // the opening's run (the cache answers it) and the solver processes started
    await new Promise((r) => setTimeout(r, 2000));
    await idle();
    const row: ProveRow = { load, loadStart, found: [], polished: [], cleared: [], loadAvg: 0 };
    let v = 1;
    for (let i = 0; i < proveRounds; i++) {
      const rule = `pass.never_empty_${Date.now().toString(36)}_${i}`;
      const id = `his.contradiction.pass.empty_hand~${rule}`;
      const typed = `${text}\nrule ${rule} §11 "a power with no cards may not pass"\n  during action_phase\n  forbid pass when count(state.hands[power]) = 0\n`;
      const from = c.diagnostics.length;
      let sent = performance.now();
      await c.change(u, typed, ++v);
      const hit = await c.waitFor("the contradiction", () => c.diagnostics.slice(from).find((p) => p.uri === u && p.diagnostics.some((d) => d.code === id)), 600_000);
      row.found.push(hit.at - sent);
      // findings first: the finding shows with the model's facts, then with the canonical, minimal counterexample
      const polished = await c.waitFor("the polished counterexample", () => c.diagnostics.slice(from).find((p) => p.uri === u && p.diagnostics.some((d) => d.code === id && !String(d.message).includes("being made minimal"))), 600_000);
      row.polished.push(polished.at - sent);
      const from2 = c.diagnostics.length;
      sent = performance.now();
      await c.change(u, text, ++v);
      const gone = await c.waitFor("the contradiction cleared", () => c.diagnostics.slice(from2).find((p) => p.uri === u && p.version === v && !p.diagnostics.some((d) => d.code === id)), 600_000);
      row.cleared.push(gone.at - sent);
      process.stderr.write(`${load} round ${i + 1}: contradiction ${row.found.at(-1)!.toFixed(0)} ms, polished ${row.polished.at(-1)!.toFixed(0)} ms, cleared ${row.cleared.at(-1)!.toFixed(0)} ms\n`);
      await new Promise((r) => setTimeout(r, 500));
      await idle();
    }
    row.loadAvg = os.loadavg()[0]!;
    return row;
  } finally {
    await c.stop();
    loops?.stop();
  }
}
const proofRows = withProofs ? [await measureProofs("quiet (nothing else of this bench running)", 0), await measureProofs("four busy loops", 4)] : [];
const fmt = (xs: number[]) => `${median(xs).toFixed(0)} / ${worst(xs).toFixed(0)}`;
const cpu = os.cpus()[0]?.model.trim() ?? "?";
const TITLE = `# Language server latency (npm run bench:lsp)`;
const lines = [
  `${new Date().toISOString().slice(0, 10)}, ${cpu} (${os.availableParallelism()} cores), Node ${process.version}, commit ${commit()}; ${rounds} rounds per file, median / worst in ms; the 1-minute load average (\`uptime\`) at each row's start → end (other processes share the machine: a row is quiet only when its load starts near 0).`,
  ``,
  `| file (editions checked) | diagnostics after an edit (debounce included) | hover on a rule, first after the edit | hover again | load | target |`,
  `|---|---:|---:|---:|---:|---|`,
  ...rows.map((r) => `| ${r.file} (${r.editions}) | ${fmt(r.diagnostics)} | ${fmt(r.hoverCold)} | ${fmt(r.hoverWarm)} | ${r.load[0].toFixed(2)} → ${r.load[1].toFixed(2)} | diagnostics ≤ 300 ms, hover ≤ 100 ms${r.editions.includes("proving") ? " (with a proof running: ≤ 150 ms, ≤ 50 ms)" : ""} |`),
  ``,
  ...(proofRows.length
    ? [
        `Proof findings (dsl/his/cards.rules, a rule contradicting \`pass.empty_hand\` typed and undone; the median of ${proveRounds} rounds, from the edit, the debounce included):`,
        ``,
        `| machine | edit → contradiction diagnostic | edit → its polished counterexample | undo → cleared | load | target |`,
        `|---|---:|---:|---:|---:|---|`,
        ...proofRows.map((r) => `| ${r.load} | ${fmt(r.found)} | ${fmt(r.polished)} | ${fmt(r.cleared)} | ${r.loadStart.toFixed(2)} → ${r.loadAvg.toFixed(2)} | diagnostic and cleared ≤ 3000 ms each |`),
        ``,
      ]
    : []),
];
/** The commit measured (`git rev-parse --short HEAD`, "+" when the tree has changes), or "?". */
function commit(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: ROOT, encoding: "utf8" }).trim();
    return head + (dirty ? "+" : "");
  } catch {
    return "?";
  }
}
// the new run on top, the runs before kept below it (the file is the benchmark's history)
const out = path.join(ROOT, "bench", "results", "lsp.md");
const before = fs.existsSync(out) ? fs.readFileSync(out, "utf8").replace(/^# Language server latency[^\n]*\n+/, "") : "";
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, [TITLE, ``, `## ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`, ``, ...lines, ...(before ? [`## The runs before`, ``, before] : [])].join("\n"));
process.stdout.write(lines.join("\n"));
