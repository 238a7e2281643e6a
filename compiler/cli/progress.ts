/**
 * Progress of a long proof run, on stderr only (stdout carries the document in --format
 * json/sarif/junit): on a terminal one redrawn line — a bar, done/total, the obligation being
 * solved; elsewhere (CI logs) one plain line per obligation solved, and one line for those taken
 * from the proof cache.
 */
import type { ProgressEvent } from "../verify/index.js";
import { color } from "./common.js";

export class Progress {
  private readonly tty: boolean;
  private cached = 0;
  private lastDraw = 0;
  private shown = false;
  private startedAt = new Map<string, number>();

  constructor(
    private readonly label: string,
    private readonly enabled: boolean,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = !!out.isTTY && !process.env.CI;
  }

  event(e: ProgressEvent): void {
    if (!this.enabled) return;
    if (e.type === "start") this.startedAt.set(e.id, performance.now());
    if (this.tty) {
      const now = performance.now();
      if (e.type === "done" && e.done < e.total && now - this.lastDraw < 80) return;
      this.lastDraw = now;
      const width = 24;
      const filled = Math.round((e.done / Math.max(1, e.total)) * width);
      const bar = "█".repeat(filled) + "░".repeat(width - filled);
      const cols = this.out.columns ?? 100;
      const line = `${this.label} ${bar} ${e.done}/${e.total} ${e.type === "start" ? e.id : ""}`;
      this.out.write(`\r\x1b[2K${line.slice(0, Math.max(10, cols - 1))}`);
      this.shown = true;
      return;
    }
    if (e.type !== "done") return;
    if (e.cached) {
      this.cached++;
      return;
    }
    this.flushCached(e.total);
    const t0 = this.startedAt.get(e.id);
    const secs = t0 === undefined ? "" : ` (${((performance.now() - t0) / 1000).toFixed(1)} s)`;
    const v = e.verdict === "proved" ? "proved" : e.verdict === "refuted" ? color.red("refuted") : color.yellow("unknown");
    this.out.write(`${this.label} [${e.done}/${e.total}] ${v} ${e.id}${secs}\n`);
  }

  private flushCached(total: number): void {
    if (!this.cached) return;
    this.out.write(`${this.label} ${this.cached}/${total} from the proof cache\n`);
    this.cached = 0;
  }

  /** Clears the terminal line (or prints the pending cache line). */
  end(total: number): void {
    if (!this.enabled) return;
    if (this.tty && this.shown) this.out.write("\r\x1b[2K");
    else this.flushCached(total);
  }
}
