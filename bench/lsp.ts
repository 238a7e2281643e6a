/**
 * `npm run bench:lsp`: the language server's latency as an editor sees it, on a file of the
 * largest bundled edition (Virgin Queen, dsl/vq/control.rules) and of Here I Stand
 * (dsl/his/war.rules, checked in his and his-500). A real LSP client (test/helpers/lsp-client.ts)
 * starts `rulewright lsp --stdio`, opens the file and, per round, sends one edit (a comment line
 * added: a new version) and times the diagnostics of that version (debounce included), then a
 * hover on a rule id right after the diagnostics (the symbol index rebuilt) and once more (warm).
 * Prints a Markdown table (median and worst of the rounds, in ms) and writes it to
 * bench/results/lsp.md. Options: `--rounds <n>` (default 15).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { HoverRequest, type Position } from "vscode-languageserver-protocol/node";
import { LspClient } from "../test/helpers/lsp-client.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const rounds = args.includes("--rounds") ? Number(args[args.indexOf("--rounds") + 1]) : 15;
if (!Number.isInteger(rounds) || rounds < 1) {
  process.stderr.write("--rounds takes a whole number ≥ 1\n");
  process.exit(2);
}

/** The position of the first occurrence of `needle` in `text` (0-based line and character). */
function positionOf(text: string, needle: string): Position {
  const i = text.indexOf(needle);
  if (i < 0) throw new Error(`\`${needle}\` is not in the file`);
  const before = text.slice(0, i).split("\n");
  return { line: before.length - 1, character: before[before.length - 1]!.length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const worst = (xs: number[]) => Math.max(...xs);

interface Row {
  file: string;
  editions: string;
  diagnostics: number[];
  hoverCold: number[];
  hoverWarm: number[];
}

async function measure(file: string, editions: string, ruleId: string): Promise<Row> {
  const c = await LspClient.start();
  try {
    const abs = path.join(ROOT, file);
    const text = fs.readFileSync(abs, "utf8");
    const u = await c.open(abs, text, 1);
    await c.waitForDiagnostics(u, 1);
    const row: Row = { file, editions, diagnostics: [], hoverCold: [], hoverWarm: [] };
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
      const edited = `// edit ${i}\n${text}`;
      hoverAt.line = at.line + 1;
      const sent = performance.now();
      await c.change(u, edited, i);
      const d = await c.waitForDiagnostics(u, i);
      row.diagnostics.push(d.at - sent);
      row.hoverCold.push(await hover());
      row.hoverWarm.push(await hover());
    }
    return row;
  } finally {
    await c.stop();
  }
}

const rows = [await measure("dsl/vq/control.rules", "vq", "control.phase"), await measure("dsl/his/war.rules", "his, his-500", "dow.scotland")];
const fmt = (xs: number[]) => `${median(xs).toFixed(0)} / ${worst(xs).toFixed(0)}`;
const cpu = os.cpus()[0]?.model.trim() ?? "?";
const lines = [
  `# Language server latency (npm run bench:lsp)`,
  ``,
  `${new Date().toISOString().slice(0, 10)}, ${cpu} (${os.availableParallelism()} cores), Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)} at the end; ${rounds} rounds per file, median / worst in ms.`,
  ``,
  `| file (editions checked) | diagnostics after an edit (debounce included) | hover on a rule, first after the edit | hover again | target |`,
  `|---|---:|---:|---:|---|`,
  ...rows.map((r) => `| ${r.file} (${r.editions}) | ${fmt(r.diagnostics)} | ${fmt(r.hoverCold)} | ${fmt(r.hoverWarm)} | diagnostics ≤ 300 ms, hover ≤ 100 ms |`),
  ``,
];
fs.mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
fs.writeFileSync(path.join(ROOT, "bench", "results", "lsp.md"), lines.join("\n"));
process.stdout.write(lines.join("\n"));
