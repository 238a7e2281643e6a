/**
 * `--watch` for `check`, `test`, `build` and `prove`: run the command once, then again whenever a
 * watched file is saved (chokidar 4: created, changed or removed `.rules`, `.json`, `.yaml`/`.yml`
 * files under the watched paths; saves within `debounceMs`, default 150 ms, are one run; a save
 * during a run queues one more run after it, so two runs never overlap: a run's solver checks are
 * always awaited, never abandoned). Each run's output (stdout and stderr, captured while it runs)
 * is compared line by line with the previous run's: the first run prints everything, later runs
 * print only the lines that went (`- `) and came (`+ `), or that nothing changed; `--format json`,
 * and commands whose runs print their own changes (`whole`: `build`, `prove`), print every run's
 * output whole. A status line on stderr gives the files that triggered the run, its exit code and
 * its time in ms. A UsageError of one run (a file that is not JSON, stale generated code, …) is
 * that run's output, never the end of the watch. Ends when `signal` aborts (the CLI: Ctrl-C),
 * after the running run, resolving to the last run's exit code.
 */
import chokidar from "chokidar";
import path from "node:path";
import pc from "picocolors";
import { UsageError, type Format } from "./common.js";

export interface WatchRun {
  /** 1 for the first run */
  n: number;
  /** the command's exit code (a UsageError's code when it threw one) */
  code: number;
  ms: number;
  /** the saved files (relative to the working directory) that started this run; none for the first */
  changed: string[];
  /** output lines of the previous run that this one no longer prints, and the new ones (all of them on the first run) */
  removed: string[];
  added: string[];
  /** every output line of this run */
  lines: string[];
}

export interface WatchOptions {
  /** `check`, `test`, `build`, `prove`: the label of the status line */
  label: string;
  /** files and folders to watch (folders recursively) */
  paths: string[];
  /** files and folders under `paths` not to watch (besides node_modules, .git, generated, proofs) */
  ignore?: string[];
  /**
   * one run of the command, given the saved files that started it (relative to the working
   * directory; none for the first run); what it writes to stdout and stderr is captured
   */
  run: (changed: readonly string[]) => Promise<number>;
  format: Format;
  /** the run prints what changed itself: print its output whole every time, not the line changes */
  whole?: boolean;
  debounceMs?: number;
  signal?: AbortSignal;
  /** after each run (tests wait on it) */
  onRun?: (r: WatchRun) => void;
  /** where the watch prints (default process.stdout / process.stderr) */
  out?: (s: string) => void;
  err?: (s: string) => void;
}

const WATCHED = /\.(rules|json|ya?ml)$/i;

/** Lines of `b` not in `a` and lines of `a` not in `b`, as multisets, each in its own order. */
export function lineChanges(a: string[], b: string[]): { removed: string[]; added: string[] } {
  const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const left = count(b);
  const removed = a.filter((l) => {
    const n = left.get(l) ?? 0;
    if (n > 0) left.set(l, n - 1);
    return n === 0;
  });
  const right = count(a);
  const added = b.filter((l) => {
    const n = right.get(l) ?? 0;
    if (n > 0) right.set(l, n - 1);
    return n === 0;
  });
  return { removed, added };
}

/** Runs `opts.run` and captures what it writes to stdout and stderr (a UsageError becomes its message). */
async function captured(run: () => Promise<number>): Promise<{ code: number; text: string }> {
  const chunks: string[] = [];
  const ow = process.stdout.write;
  const ew = process.stderr.write;
  const sink = ((s: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(typeof s === "string" ? s : Buffer.from(s).toString("utf8"));
    const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = sink;
  process.stderr.write = sink;
  let code: number;
  try {
    code = await run();
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    chunks.push(`${pc.red("error")}: ${e.message}\n${e.help ? `  ${pc.cyan("help")}: ${e.help}\n` : ""}`);
    code = e.exitCode;
  } finally {
    process.stdout.write = ow;
    process.stderr.write = ew;
  }
  return { code, text: chunks.join("") };
}

export async function watch(opts: WatchOptions): Promise<number> {
  const out = opts.out ?? ((s: string) => void process.stdout.write(s));
  const err = opts.err ?? ((s: string) => void process.stderr.write(s));
  const debounce = opts.debounceMs ?? 150;
  const skip = (opts.ignore ?? []).map((p) => path.resolve(p));
  const watcher = chokidar.watch(opts.paths, {
    ignoreInitial: true,
    ignored: (p, stats) =>
      /(^|[\\/])(node_modules|\.git|generated|proofs)([\\/]|$)/.test(p) || (!!stats?.isFile() && !WATCHED.test(p)) || skip.some((s) => isWithin(path.resolve(p), s)),
  });
  await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));

  let previous: string[] | undefined;
  let lastCode = 0;
  let n = 0;
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const once = async (changed: string[]): Promise<void> => {
    const t0 = performance.now();
    const { code, text } = await captured(() => opts.run(changed));
    const ms = Math.round(performance.now() - t0);
    const lines = text.split("\n").filter((l, i, all) => l !== "" || i < all.length - 1);
    const { removed, added } = previous ? lineChanges(previous, lines) : { removed: [], added: lines };
    n++;
    if (opts.format === "json" || opts.whole || !previous) out(text.endsWith("\n") || !text ? text : text + "\n");
    else if (!removed.length && !added.length) out(pc.dim("(the output did not change)") + "\n");
    else out([...removed.map((l) => pc.red(`- ${l}`)), ...added.map((l) => pc.green(`+ ${l}`))].join("\n") + "\n");
    err(pc.dim(`[watch] ${opts.label} run ${n}${changed.length ? ` after ${changed.join(", ")}` : ""}: exit ${code} in ${ms} ms; watching for saves (Ctrl-C to stop)`) + "\n");
    previous = lines;
    lastCode = code;
    opts.onRun?.({ n, code, ms, changed, removed, added, lines });
  };
  const start = (changed: string[]): void => {
    running = once(changed).finally(() => {
      running = undefined;
      if (again) {
        again = false;
        const next = [...pending];
        pending = new Set();
        start(next);
      }
    });
  };
  const saved = (file: string): void => {
    if (!WATCHED.test(file)) return;
    pending.add(path.relative(process.cwd(), file) || file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (running) {
        again = true;
        return;
      }
      const next = [...pending];
      pending = new Set();
      start(next);
    }, debounce);
  };
  watcher.on("add", saved).on("change", saved).on("unlink", saved);

  start([]);
  await new Promise<void>((resolve) => {
    if (opts.signal?.aborted) resolve();
    else opts.signal?.addEventListener("abort", () => resolve(), { once: true });
    if (!opts.signal) process.once("SIGINT", () => resolve());
  });
  clearTimeout(timer);
  await running;
  await watcher.close();
  return lastCode;
}

/** Whether `file` is `dir` or lies under it (both absolute). */
function isWithin(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Whether saved `changed` files (relative to the working directory) can change what an edition
 * compiles to: one is under the edition folder `dir`, or is one of its last compilation's
 * `inputs` (paths relative to `root`, IREdition.inputs), or lies in the folder of one of them (a
 * rule file added to a parent edition or module). Without inputs (never compiled, or the last
 * compilation failed) every save counts.
 */
export function affects(changed: readonly string[], dir: string, inputs: readonly { file: string }[] | undefined, root = process.cwd()): boolean {
  if (!inputs) return true;
  const files = new Set(inputs.map((i) => path.resolve(root, i.file)));
  const folders = new Set([...files].map((f) => path.dirname(f)));
  return changed.some((c) => {
    const abs = path.resolve(c);
    return isWithin(abs, path.resolve(dir)) || files.has(abs) || folders.has(path.dirname(abs));
  });
}
