/**
 * Reading the files that input files name (a rule file's `schema` and `board`, a scenario file's
 * `fixture`), confined to a folder (issue 29): a path that is absolute or leads out of the folder
 * (`..`, or a symlink whose real path is outside it) is refused; only a regular file is read, and
 * at most `MAX_INPUT_FILE_BYTES` of it, so a device (`/dev/zero`), a FIFO or a huge file is an
 * error at once instead of an unbounded read. Never throws.
 */
import fs from "node:fs";
import path from "node:path";

/** The largest schema, board or fixture file read, in bytes (16 MiB; the bundled ones are < 100 KB). */
export const MAX_INPUT_FILE_BYTES = 16 * 1024 * 1024;

/** Why a named file was not read. `outside`: `real` is the real path it leads to (a symlink), when known. */
export type InputFileProblem =
  | { k: "absolute" }
  | { k: "outside"; real?: string }
  | { k: "missing" }
  | { k: "not-file" }
  /** `bytes`: the file's size when `stat` told it (not for a file cut off while reading) */
  | { k: "too-large"; limit: number; bytes?: number }
  | { k: "unreadable"; message: string };

/** Whether `child` is `dir` itself or lies under it (both made absolute; no file system access). */
export function isInsideDir(child: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(child));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** A problem in words, for a message: "is an absolute path", "leads out of …", … (`what`: e.g. "schema file"). */
export function describeInputProblem(p: InputFileProblem, rootShown: string): string {
  switch (p.k) {
    case "absolute": return "is an absolute path";
    case "outside": return `leads out of \`${rootShown}\`${p.real !== undefined ? " and the project (through a symbolic link)" : ""}`;
    case "missing": return "does not exist";
    case "not-file": return "is not a regular file";
    case "too-large": return `is larger than the limit of ${p.limit / (1024 * 1024)} MB`;
    case "unreadable": return `cannot be read (${p.message})`;
  }
}

/**
 * Resolves `ref` (a path as written in an input file, relative to `baseDir`) inside `rootDir`.
 * @returns the absolute path, or the problem: `absolute` (a path written absolute), `outside`
 *   (`..` out of `rootDir`); symlinks are checked when the file is read (`readConfinedFile`).
 */
export function resolveConfined(ref: string, baseDir: string, rootDir: string): { abs: string } | { problem: InputFileProblem } {
  if (path.isAbsolute(ref) || path.win32.isAbsolute(ref)) return { problem: { k: "absolute" } };
  const abs = path.resolve(baseDir, ref);
  if (!isInsideDir(abs, rootDir)) return { problem: { k: "outside" } };
  return { abs };
}

/**
 * Reads the file `abs` if its real path (symlinks resolved) lies inside the real path of one of
 * `rootDirs` (no confinement when it is undefined), it is a regular file (checked on the open
 * descriptor, opened without blocking so a FIFO cannot hang the read) and it holds at most
 * `maxBytes` bytes (counted while reading: a file whose size `stat` under-reports, like those of
 * /proc, is cut off at the limit too). With `pipes` (a path the user named on the command line,
 * such as `--state <(…)`), a pipe is read too, blocking, with the same limit; a device never is.
 */
export function readConfinedFile(abs: string, rootDirs: string[] | undefined, maxBytes = MAX_INPUT_FILE_BYTES, pipes = false): { buf: Buffer; real: string } | { problem: InputFileProblem } {
  // a pipe named as /dev/fd/N has no real path (its link reads `pipe:[…]`): the path itself, unconfined only
  if (pipes && rootDirs === undefined && isPipe(abs)) return readReal(abs, rootDirs, maxBytes, pipes);
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch (e) {
    return missingOr(e);
  }
  return readReal(real, rootDirs, maxBytes, pipes);
}

/** Whether `p` is a pipe (following links). */
function isPipe(p: string): boolean {
  try {
    return fs.statSync(p).isFIFO();
  } catch {
    return false;
  }
}

/** The problem of a path whose real path could not be found. */
function missingOr(e: unknown): { problem: InputFileProblem } {
  const code = (e as NodeJS.ErrnoException).code;
  return { problem: code === "ENOENT" || code === "ENOTDIR" ? { k: "missing" } : { k: "unreadable", message: code ?? "error" } };
}

/** `readConfinedFile` once the real path is known. */
function readReal(real: string, rootDirs: string[] | undefined, maxBytes: number, pipes: boolean): { buf: Buffer; real: string } | { problem: InputFileProblem } {
  if (rootDirs !== undefined && !rootDirs.some((root) => isInsideDir(real, realOr(root)))) return { problem: { k: "outside", real } };
  let fd: number;
  try {
    fd = fs.openSync(real, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    return { problem: { k: "unreadable", message: (e as NodeJS.ErrnoException).code ?? "error" } };
  }
  try {
    const st = fs.fstatSync(fd);
    if (pipes && st.isFIFO()) {
      // a pipe the user gave: read it as it comes (its writer may not have written yet)
      fs.closeSync(fd);
      fd = fs.openSync(real, fs.constants.O_RDONLY);
    } else if (!st.isFile()) return { problem: { k: "not-file" } };
    if (st.size > maxBytes) return { problem: { k: "too-large", limit: maxBytes, bytes: st.size } };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) return { problem: { k: "too-large", limit: maxBytes } };
    }
    return { buf: Buffer.concat(chunks, total), real };
  } catch (e) {
    return { problem: { k: "unreadable", message: (e as NodeJS.ErrnoException).code ?? "error" } };
  } finally {
    fs.closeSync(fd);
  }
}

/** The real path of `p`, or `p` resolved when it does not exist. */
function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** `buf` as UTF-8 text, or undefined when it is not valid UTF-8 (a binary file: never echoed). */
export function utf8Text(buf: Buffer): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    return undefined;
  }
}
