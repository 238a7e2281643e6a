/**
 * `rulewright build [editions…] [--check]`: compiles editions and writes generated/<edition>/.
 * With --check nothing is written: exit 1 when a committed file differs from what the rules
 * generate (stale), 0 when up to date. Exit 2 on compile errors or an unknown edition.
 */
import fs from "node:fs";
import path from "node:path";
import { generateEdition } from "../codegen/index.js";
import { editionFolder } from "../ir/types.js";
import { bundledEditions, compile, errorCount, resolveEdition, staleFiles, UsageError, color, type Format } from "./common.js";

export interface BuildResult {
  edition: string;
  status: "written" | "up-to-date" | "stale" | "error";
  files: string[];
  stale: string[];
  errors: number;
  /** compile diagnostics (all severities) */
  diagnostics: import("../diagnostics/types.js").Diagnostic[];
  ms: number;
}

/**
 * Builds (or checks) one edition folder. Generated output goes to `opts.out` when given (any
 * edition, a folder path), else to generated/<name> (bundled editions only: another folder needs `--out`).
 */
export async function buildOne(arg: string, opts: { check: boolean; format: Format; out?: string }): Promise<BuildResult> {
  const t0 = performance.now();
  const ref = resolveEdition(arg);
  const res = compile(ref, opts.format);
  // the folder name as printed: an unsafe one (RW4011) shows its line breaks as `\n`
  const name = JSON.stringify(path.basename(ref.dir)).slice(1, -1);
  if (!res.edition) return { edition: name, status: "error", files: [], stale: [], errors: errorCount(res.diagnostics), diagnostics: res.diagnostics, ms: performance.now() - t0 };
  if (!ref.bundled && opts.out === undefined) throw new UsageError(`\`${ref.dir}\` is not a bundled edition (dsl/<name>); without --out build writes only generated/<name>`, 2, `give the folder to write to: \`rulewright build ${ref.dir} --out <dir>\``);
  const generatedDir = path.join("generated", editionFolder(res.edition));
  // --out: the same files, in that folder instead of generated/<name>
  const files = (await generateEdition(res.edition)).map((f) => (opts.out === undefined ? f : { ...f, path: path.join(opts.out, path.relative(generatedDir, f.path)) }));
  const stale = staleFiles(files);
  if (opts.check) {
    return { edition: editionFolder(res.edition), status: stale.length ? "stale" : "up-to-date", files: files.map((f) => f.path), stale, errors: 0, diagnostics: res.diagnostics, ms: performance.now() - t0 };
  }
  const dir = opts.out ?? generatedDir;
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) throw new UsageError(`--out \`${dir}\` is a file, not a folder`, 2, "give a folder (it is created when missing)");
  fs.mkdirSync(dir, { recursive: true });
  const keep = new Set(files.map((f) => path.normalize(f.path)));
  for (const n of fs.readdirSync(dir)) {
    const p = path.normalize(path.join(dir, n));
    if (fs.statSync(p).isFile() && !keep.has(p)) fs.rmSync(p);
  }
  for (const f of files) {
    fs.mkdirSync(path.dirname(f.path), { recursive: true });
    if (!fs.existsSync(f.path) || fs.readFileSync(f.path, "utf8") !== f.content) fs.writeFileSync(f.path, f.content);
  }
  return { edition: editionFolder(res.edition), status: stale.length ? "written" : "up-to-date", files: files.map((f) => f.path), stale, errors: 0, diagnostics: res.diagnostics, ms: performance.now() - t0 };
}

export async function buildCommand(editions: string[], opts: { check?: boolean; format: Format; out?: string }): Promise<number> {
  const names = editions.length ? editions : bundledEditions();
  if (!names.length) throw new UsageError("no editions found under dsl/", 2, "name an edition folder: `rulewright build <folder> --out <dir>` (`rulewright init` makes one)");
  if (opts.out !== undefined && names.length !== 1) throw new UsageError("--out takes one edition: the folder receives that edition's files", 2, "e.g. `rulewright build his --out src/rules/his`");
  const results: BuildResult[] = [];
  for (const n of names) results.push(await buildOne(n, { check: !!opts.check, format: opts.format, ...(opts.out !== undefined ? { out: opts.out } : {}) }));
  if (opts.format === "json") {
    process.stdout.write(JSON.stringify({ results: results.map(({ ms: _ms, ...r }) => r) }, null, 2) + "\n");
  } else {
    for (const r of results) {
      const tag =
        r.status === "error" ? color.red(`error: ${r.errors} compile error(s)`)
        : r.status === "stale" ? color.red("stale")
        : r.status === "written" ? color.green("written")
        : color.green("up to date");
      process.stdout.write(`${r.edition}: ${tag} (${r.files.length} files, ${r.ms.toFixed(0)} ms)\n`);
      for (const s of r.stale) process.stdout.write(`  ${r.status === "stale" ? "stale" : "updated"}: ${s}\n`);
      if (r.status === "stale") process.stdout.write(opts.out !== undefined ? `  run \`npx rulewright build ${names[0]} --out ${opts.out}\`\n` : `  run \`npx rulewright build ${r.edition}\` and commit generated/${r.edition}\n`);
    }
  }
  if (results.some((r) => r.status === "error")) return 2;
  if (results.some((r) => r.status === "stale")) return 1;
  return 0;
}
