/**
 * Shared plumbing for the subcommands: parsing options, compiling editions with diagnostics
 * printed, reading JSON input files, comparing generated files. Finding editions, loading the
 * generated validators and validating states and actions live in compiler/engine/ (re-exported
 * here for the subcommands).
 *
 * Exit codes used by every subcommand (documented in the README):
 *   0 success / allowed, 1 a failure the command exists to detect (stale, refuted, forbidden,
 *   scenario failed), 2 bad input (usage, missing file, compile error, state not matching schema).
 */
import { MAX_INPUT_FILE_BYTES, describeInputProblem, readConfinedFile, utf8Text } from "../diagnostics/files.js";
import { parseJson } from "../diagnostics/json.js";
import fs from "node:fs";
import path from "node:path";
import pc from "picocolors";
import { loadEdition } from "../check/index.js";
import { citationWarnings, projectSectionIndex } from "../coverage/index.js";
import { renderDiagnostic } from "../diagnostics/render.js";
import type { Diagnostic } from "../diagnostics/types.js";
import type { IREdition } from "../ir/types.js";
import type { EditionRef } from "../engine/editions.js";
import { UsageError } from "../engine/errors.js";

export { UsageError };

export type Format = "text" | "json";

/** The longest timer Node can arm (2^31 − 1 ms, about 24.8 days): longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A positive whole number of milliseconds from a command-line option, at most `MAX_TIMER_MS`.
 * @throws UsageError (exit 2) naming the option otherwise
 */
export function parseMillis(value: string, flag: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${flag} takes a positive number of milliseconds, not \`${value}\``, 2, `e.g. \`${flag} 60000\``);
  if (n > MAX_TIMER_MS) throw new UsageError(`${flag} ${value} is beyond the longest timer (${MAX_TIMER_MS} ms, about 24.8 days)`, 2, `give at most ${MAX_TIMER_MS} ms`);
  return n;
}

/**
 * A positive whole count from a command-line option, at most `max`.
 * @throws UsageError (exit 2) naming the option otherwise
 */
export function parseCount(value: string, flag: string, max: number): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${flag} takes a positive integer, not \`${value}\``, 2);
  if (n > max) throw new UsageError(`${flag} ${value} is more than the limit of ${max}`, 2, `give at most ${max}`);
  return n;
}

/** Prints diagnostics (text: rendered with source lines; json: collected by the caller). */
export function printDiagnostics(diags: Diagnostic[], format: Format, root = process.cwd()): void {
  if (format === "json") return;
  const cache = new Map<string, string>();
  for (const d of diags) {
    let text = cache.get(d.file);
    if (text === undefined) {
      // a regular text file of at most 16 MB (never a device, never bytes that are not UTF-8)
      const got = readConfinedFile(path.resolve(root, d.file), undefined);
      text = ("buf" in got ? utf8Text(got.buf) : undefined) ?? "";
      cache.set(d.file, text);
    }
    process.stderr.write(renderDiagnostic(d, text) + "\n");
  }
}

export interface Compiled {
  edition?: IREdition;
  diagnostics: Diagnostic[];
  /** a variant's parent edition folder (absolute; check's `LoadResult.parentDir`) */
  parentDir?: string;
}

/** Compiles an edition folder; prints its diagnostics in text mode. */
export function compile(ref: EditionRef, format: Format): Compiled {
  const res = loadEdition(ref.dir, { repoRoot: ref.root ?? process.cwd() });
  // citations outside the sources' section index: warnings (issue 28; compiler/coverage/sections.ts)
  if (res.edition) res.diagnostics.push(...citationWarnings(res.edition, projectSectionIndex(path.join("dsl", "coverage"), path.join("..", "shared", "rulebooks"))));
  printDiagnostics(res.diagnostics, format, ref.root ?? process.cwd());
  return res;
}

export function errorCount(diags: Diagnostic[]): number {
  return diags.filter((d) => d.severity === "error").length;
}

/** Paths (relative to the repo root) whose committed content differs from `files`, plus extra files on disk. */
export function staleFiles(files: { path: string; content: string }[]): string[] {
  const stale: string[] = [];
  const expected = new Set(files.map((f) => path.normalize(f.path)));
  for (const f of files) {
    const onDisk = fs.existsSync(f.path) ? fs.readFileSync(f.path, "utf8") : undefined;
    if (onDisk !== f.content) stale.push(f.path + (onDisk === undefined ? " missing" : " differs"));
  }
  const dirs = new Set(files.map((f) => path.dirname(f.path)));
  for (const d of dirs) {
    if (!fs.existsSync(d)) continue;
    for (const name of fs.readdirSync(d)) {
      const p = path.normalize(path.join(d, name));
      if (fs.statSync(p).isFile() && !expected.has(p)) stale.push(p + " not generated");
    }
  }
  return stale.sort();
}

/**
 * Reads and parses a JSON file.
 * @throws UsageError (exit 2) naming the file when it is missing, or not JSON (with line, column and a code frame).
 * A UTF-8 byte-order mark is accepted.
 */
export function readJson(file: string, what: string): unknown {
  // a path from the command line: any file the user can read, a pipe too (`--state <(…)`), never a device
  const got = readConfinedFile(file, undefined, MAX_INPUT_FILE_BYTES, true);
  if ("problem" in got) {
    const p = got.problem;
    throw new UsageError(`cannot read the ${what} file \`${file}\`${p.k === "not-file" || p.k === "too-large" ? `: it ${describeInputProblem(p, ".")}` : ""}`, 2,
      p.k === "not-file" || p.k === "too-large" ? `give a JSON file of at most ${MAX_INPUT_FILE_BYTES / (1024 * 1024)} MB` : "check the path");
  }
  const text = utf8Text(got.buf);
  if (text === undefined) throw new UsageError(`the ${what} file \`${file}\` is not UTF-8 text`, 2, "give a JSON file");
  const r = parseJson(text);
  if (r.error) {
    const { line, column, message, frame } = r.error;
    throw new UsageError(`${file}:${line}:${column}: the ${what} file is not valid JSON: ${message}\n${frame}`, 2, "fix the JSON syntax at that line and column");
  }
  return r.value;
}

export const color = pc;

/** Whether a folder (relative to the working folder, or absolute) lies outside the working folder (a variant anywhere, issue 28). */
export function outsideProject(dir: string): boolean {
  const rel = path.relative(process.cwd(), path.resolve(dir));
  return rel === ".." || rel.startsWith(".." + path.sep) || path.isAbsolute(rel);
}
