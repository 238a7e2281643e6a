/**
 * What every feature of the language server reads (issue 24: one file per feature, all on one
 * context): the project (files, buffers, ASTs, the last IR that checked), the symbol index of each
 * edition (rebuilt when `generation` moves on), and the proof reports and caches hover reads.
 * Positions here are the compiler's: 1-based lines and columns (compiler/diagnostics/types.ts);
 * the protocol's 0-based ones are converted at the edge (protocol.ts).
 */
import type { ProofCache } from "./keys.js";
import { Caches, Reports } from "./proof-verdicts.js";
import type { Project } from "./project.js";
import { buildIndex, occurrenceAt, type EditionIndex, type Occurrence } from "./symbols.js";

export class FeatureContext {
  private indexes = new Map<string, { gen: number; index: EditionIndex }>();
  readonly reports: Reports;
  readonly caches: Caches;
  /** bumped on every change of a rule file (open buffer or disk): invalidates the indexes */
  generation = 0;

  constructor(readonly project: Project) {
    this.reports = new Reports(project.root);
    this.caches = new Caches(project.root);
  }

  /** Reads proof caches from `loaded` (background proving's, up to date before they are written) when it has them. */
  useProofCaches(loaded: (editionRel: string) => ProofCache | undefined): void {
    this.caches.loaded = loaded;
  }

  /**
   * Builds what the first hover after an edit would build — the edition's symbol index, and its
   * proof cache read from disk — so that the hover answers at once. The server calls it when a
   * check is done and no edit is waiting.
   */
  warm(dir: string): void {
    this.index(dir);
    if (this.caches.store(this.project.rel(dir))) {
      const ir = this.project.lastGood.get(dir);
      if (ir) this.caches.prepare(this.project.rel(dir), ir);
    }
  }

  /** The symbol index of the edition in folder `dir` (absolute), built once per generation. */
  index(dir: string): EditionIndex {
    const hit = this.indexes.get(dir);
    if (hit && hit.gen === this.generation) return hit.index;
    const index = buildIndex(this.project, dir);
    this.indexes.set(dir, { gen: this.generation, index });
    return index;
  }

  /** The indexes of every edition `file` belongs to (its own, the variants, the importers). */
  indexesOf(file: string): EditionIndex[] {
    return this.project.editionsOf(file).map((d) => this.index(d));
  }

  /** The occurrence at a 1-based line and column of `file`, in each edition that has one there. */
  at(file: string, line: number, column: number): { index: EditionIndex; occ: Occurrence }[] {
    const out: { index: EditionIndex; occ: Occurrence }[] = [];
    for (const index of this.indexesOf(file)) {
      const occ = occurrenceAt(index, file, line, column);
      if (occ) out.push({ index, occ });
    }
    return out;
  }
}
