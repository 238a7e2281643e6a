/**
 * `rulewright build [editions…] [--check]`: compiles editions and writes generated/<edition>/.
 * With --check nothing is written: exit 1 when a committed file differs from what the rules
 * generate (stale), 0 when up to date. Exit 2 on compile errors or an unknown edition.
 * `--watch` (compiler/cli/watch.ts): builds again on every save of a rule, schema or board file
 * of an edition (its folder, the editions it extends, its modules), printing per rebuilt edition
 * the generated files that changed or `unchanged`; a compile error prints its diagnostics and
 * leaves the files as they were, and the watch goes on.
 */
import fs from "node:fs";
import path from "node:path";
import { generateEdition } from "../codegen/index.js";
import { withoutInputsHash } from "../codegen/header.js";
import { editionFolder, type IREdition } from "../ir/types.js";
import { compile, errorCount, outsideProject, staleFiles, UsageError, color, type Format } from "./common.js";
import { bundledEditions, DSL_DIR, resolveEdition } from "../engine/editions.js";
import type { WatchRun } from "./watch.js";

export interface BuildResult {
  edition: string;
  status: "written" | "up-to-date" | "stale" | "error";
  files: string[];
  stale: string[];
  errors: number;
  /** compile diagnostics (all severities) */
  diagnostics: import("../diagnostics/types.js").Diagnostic[];
  ms: number;
  /** the compiled edition's input files (absent on a compile error; not in the JSON output) */
  inputs?: IREdition["inputs"];
}

/**
 * Builds (or checks) one edition folder. Generated output goes to `opts.out` when given (any
 * edition, a folder path), else to generated/<name> (bundled editions), or `<folder>/generated/` for a
 * folder outside the project (a variant anywhere); another folder of the project needs `--out`.
 */
export async function buildOne(arg: string, opts: { check: boolean; format: Format; out?: string }): Promise<BuildResult> {
  const t0 = performance.now();
  const ref = resolveEdition(arg);
  const res = compile(ref, opts.format);
  // the folder name as printed: an unsafe one (RW4011) shows its line breaks as `\n`
  const name = JSON.stringify(path.basename(ref.dir)).slice(1, -1);
  if (!res.edition) return { edition: name, status: "error", files: [], stale: [], errors: errorCount(res.diagnostics), diagnostics: res.diagnostics, ms: performance.now() - t0 };
  // a folder outside the project (a variant anywhere, issue 28): its own generated/ by default
  if (!ref.bundled && opts.out === undefined && outsideProject(ref.dir)) opts = { ...opts, out: path.join(ref.dir, "generated") };
  if (!ref.bundled && opts.out === undefined) throw new UsageError(`\`${ref.dir}\` is not a bundled edition (dsl/<name>); without --out build writes only generated/<name>`, 2, `give the folder to write to: \`rulewright build ${ref.dir} --out <dir>\``);
  const generatedDir = path.join("generated", editionFolder(res.edition));
  // --out: the same files, in that folder instead of generated/<name>
  const files = (await generateEdition(res.edition)).map((f) => (opts.out === undefined ? f : { ...f, path: path.join(opts.out, path.relative(generatedDir, f.path)) }));
  const stale = staleFiles(files);
  if (opts.check) {
    return { edition: editionFolder(res.edition), status: stale.length ? "stale" : "up-to-date", files: files.map((f) => f.path), stale, errors: 0, diagnostics: res.diagnostics, ms: performance.now() - t0, inputs: res.edition.inputs };
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
  return { edition: editionFolder(res.edition), status: stale.length ? "written" : "up-to-date", files: files.map((f) => f.path), stale, errors: 0, diagnostics: res.diagnostics, ms: performance.now() - t0, inputs: res.edition.inputs };
}

export interface BuildOptions {
  check?: boolean;
  format: Format;
  out?: string;
  /** build again on every save of an edition's rule, schema or board file (compiler/cli/watch.ts) */
  watch?: boolean;
  /** --watch: ends the watch (tests); the CLI ends it on Ctrl-C */
  signal?: AbortSignal;
  onRun?: (r: WatchRun) => void;
}

export async function buildCommand(editions: string[], opts: BuildOptions): Promise<number> {
  const names = editions.length ? editions : bundledEditions();
  if (!names.length) throw new UsageError("no editions found under dsl/", 2, "name an edition folder: `rulewright build <folder> --out <dir>` (`rulewright init` makes one)");
  if (opts.out !== undefined && names.length !== 1) throw new UsageError("--out takes one edition: the folder receives that edition's files", 2, "e.g. `rulewright build his --out src/rules/his`");
  if (opts.watch) {
    if (opts.check) throw new UsageError("--watch writes the generated files; it does not take --check", 2, "drop --check (`rulewright build --check` once, e.g. in CI)");
    return buildWatch(names, opts);
  }
  const results: BuildResult[] = [];
  for (const n of names) results.push(await buildOne(n, { check: !!opts.check, format: opts.format, ...(opts.out !== undefined ? { out: opts.out } : {}) }));
  if (opts.format === "json") {
    process.stdout.write(JSON.stringify({ results: results.map(({ ms: _ms, inputs: _inputs, ...r }) => r) }, null, 2) + "\n");
  } else {
    for (const r of results) {
      const tag =
        r.status === "error" ? color.red(`error: ${r.errors} compile error(s)`)
        : r.status === "stale" ? color.red("stale")
        : r.status === "written" ? color.green("written")
        : color.green("up to date");
      process.stdout.write(`${r.edition}: ${tag} (${r.files.length} files, ${r.ms.toFixed(0)} ms)\n`);
      for (const s of r.stale) process.stdout.write(`  ${r.status === "stale" ? `stale: ${s}` : writtenChange(s)}\n`);
      if (r.status === "stale") process.stdout.write(opts.out !== undefined ? `  run \`npx rulewright build ${names[0]} --out ${opts.out}\`\n` : `  run \`npx rulewright build ${r.edition}\` and commit generated/${r.edition}\n`);
    }
  }
  if (results.some((r) => r.status === "error")) return 2;
  if (results.some((r) => r.status === "stale")) return 1;
  return 0;
}

/** A generated file's text without the header line that carries the inputs hash (it changes with any edit, a comment's too). */
const withoutHash = (text: string | undefined) => (text === undefined ? undefined : withoutInputsHash(text));

/**
 * `build --watch`: a build of every edition at start, then, after each save, a build of the
 * editions the saved files belong to (`affects`: the edition folder, its last compilation's input
 * files and their folders; every edition whose last build failed). Each rebuilt edition prints
 * the generated files whose code changed, those whose only change is the inputs hash in their
 * header (counted), or `unchanged`; or its compile errors (the diagnostics are printed above;
 * generated files are left as they were). `--format json`: per run `{ results }` as `build`
 * prints, each with `changed` (files whose code changed) and `hashOnly`. Exit code of the watch:
 * the last run's (2 while an edition does not compile, else 0).
 */
async function buildWatch(names: string[], opts: BuildOptions): Promise<number> {
  const { watch, affects } = await import("./watch.js");
  const refs = names.map((n) => ({ name: n, ref: resolveEdition(n) }));
  const last = new Map<string, BuildResult>();
  const one = { check: false, format: opts.format, ...(opts.out !== undefined ? { out: opts.out } : {}) };
  const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8") : undefined);
  const run = async (changed: readonly string[]): Promise<number> => {
    const rebuilt: (BuildResult & { changed: string[]; hashOnly: string[] })[] = [];
    for (const { name, ref } of refs) {
      const prev = last.get(name);
      if (changed.length && prev && !affects(changed, ref.dir, prev.inputs, ref.root)) continue;
      // the generated files as they were, to tell a change of code from a new inputs hash
      const before = new Map((prev?.files ?? []).map((f) => [f, read(f)]));
      const r = await buildOne(name, one);
      if (r.status !== "error") last.set(name, r);
      else last.set(name, { ...r, files: prev?.files ?? [] });
      const differ = r.status === "error" ? [] : prev ? r.files.filter((f) => before.get(f) !== read(f)) : r.stale.map((s) => s.replace(/ (missing|differs|not generated)$/, ""));
      const gone = r.status === "error" ? [] : [...before.keys()].filter((f) => !r.files.includes(f)).map((f) => `${f} (removed)`);
      const code = [...differ.filter((f) => !prev || withoutHash(before.get(f)) !== withoutHash(read(f))), ...gone];
      rebuilt.push({ ...r, changed: code, hashOnly: differ.filter((f) => !code.includes(f)) });
    }
    if (opts.format === "json") {
      process.stdout.write(JSON.stringify({ results: rebuilt.map(({ ms: _ms, inputs: _inputs, ...r }) => r) }, null, 2) + "\n");
    } else {
      for (const r of rebuilt) {
        const hashNote = r.hashOnly.length ? `${r.hashOnly.length} file(s) with only a new inputs hash` : "";
        if (r.status === "error") process.stdout.write(`${r.edition}: ${color.red(`${r.errors} compile error(s)`)}; generated files left as they were\n`);
        else if (!r.changed.length) process.stdout.write(`${r.edition}: unchanged (${r.files.length} files${hashNote ? `; ${hashNote}` : ""}, ${r.ms.toFixed(0)} ms)\n`);
        else process.stdout.write(`${r.edition}: ${color.green(`${r.changed.length} generated file(s) changed`)}${hashNote ? `, ${hashNote}` : ""} (${r.ms.toFixed(0)} ms)\n${r.changed.map((f) => `  changed: ${f}\n`).join("")}`);
      }
      if (!rebuilt.length) process.stdout.write("no edition uses the saved files\n");
    }
    return [...last.values()].some((r) => r.status === "error") ? 2 : 0;
  };
  const dirs = refs.map(({ ref }) => (ref.root ? path.join(ref.root, ref.dir) : ref.dir));
  return watch({ label: "build", paths: [...new Set([...dirs, DSL_DIR])].filter((p) => fs.existsSync(p)), ignore: opts.out !== undefined ? [opts.out] : [], format: opts.format, whole: true, signal: opts.signal, onRun: opts.onRun, run });
}

/**
 * What `build` did to one file `staleFiles` listed (`<path> missing|differs|not generated`):
 * `created: <path>`, `updated: <path>` or `removed: <path>` (issue 28: not "updated: … missing").
 */
export function writtenChange(stale: string): string {
  const m = / (missing|differs|not generated)$/.exec(stale);
  const file = m ? stale.slice(0, m.index) : stale;
  return `${m?.[1] === "missing" ? "created" : m?.[1] === "not generated" ? "removed" : "updated"}: ${file}`;
}
