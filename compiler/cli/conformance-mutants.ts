/**
 * The Z3 answers of `rulewright conformance write` (compiler/engine/mutation-proof.ts): where they
 * are committed (`proofs/mutants/<edition>.json`), which of them are fresh for the current rules,
 * and `--prove-mutants`: solving the mutants that the bounded search leaves and that have no
 * fresh answer, then writing the file (answers of the edition's other current mutants kept).
 */
import fs from "node:fs";
import path from "node:path";
import { editionFolder, type IREdition } from "../ir/types.js";
import { mutantsOf } from "../engine/mutants.js";
import type { MutantResult } from "../engine/mutation.js";
import { formatMutantProofs, freshDecisions, mutantKey, parseMutantProofs, proveMutants, retriable, routeBound, type MutantDecision, type MutantProof, type SeedCase } from "../engine/mutation-proof.js";
import type { ValidatorModule } from "../engine/loader.js";

/** Mutants per `proveMutants` call (one encoding shared; the answers file written after each). */
const CHUNK = 20;

/** The committed Z3 answers of an edition's mutants. */
export const mutantProofsFile = (ir: IREdition): string => path.join("proofs", "mutants", `${editionFolder(ir)}.json`);

function readEntries(ir: IREdition): MutantProof[] {
  const f = mutantProofsFile(ir);
  return fs.existsSync(f) ? parseMutantProofs(fs.readFileSync(f, "utf8")) : [];
}

const readRepoFile = (file: string): string | undefined => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);

/** The fresh committed answers of the edition's mutants, by mutant id. */
export function committedDecisions(ir: IREdition): Map<string, MutantDecision> {
  return freshDecisions(ir, mutantsOf(ir), readEntries(ir), readRepoFile);
}

/** The fixture state witnesses are shrunk towards: the edition's `test/fixtures/<folder>/base-state.json`, else its parent's. */
function witnessBase(ir: IREdition): { file: string; text: string } {
  for (const folder of [editionFolder(ir), ...(ir.parent ? [path.basename(ir.parent)] : [])]) {
    const file = path.posix.join("test", "fixtures", folder, "base-state.json");
    if (fs.existsSync(file)) return { file, text: fs.readFileSync(file, "utf8") };
  }
  throw new Error(`no fixture state test/fixtures/${editionFolder(ir)}/base-state.json to write the witnesses of ${editionFolder(ir)}'s mutants against`);
}

/**
 * Solves the mutants of `results` that no case kills and that have no fresh answer (or a fresh
 * `unknown` whose budget ran out under a smaller budget than `rlimit`, when it is given: `retriable`), and writes
 * `proofs/mutants/<edition>.json` (the answers of mutants the rules no longer give dropped).
 * @returns how many were solved, their answers by verdict, and the CPU time (ms) the solving took
 */
export async function proveUndecided(
  ir: IREdition,
  mod: ValidatorModule,
  results: readonly MutantResult[],
  opts: {
    valid: (state: unknown, action: Record<string, unknown>) => boolean;
    rlimit?: number;
    /** solve only the mutants whose id it accepts and that are not proved equivalent, whatever else their committed answer (`--mutants`) */
    only?: (id: string) => boolean;
    cases?: readonly SeedCase[];
    onMutant?: (done: number, total: number, id: string) => void;
  },
): Promise<{ solved: number; verdicts: Record<MutantProof["verdict"], number>; cpuMs: number }> {
  const mutants = mutantsOf(ir);
  const fresh = committedDecisions(ir);
  // with --rlimit given: an answer whose budget ran out under a smaller budget is solved again
  // (without it, only the mutants with no fresh answer: a rule change does not re-solve every unknown)
  const budget = opts.rlimit;
  const retry = new Set(budget === undefined ? [] : readEntries(ir).filter((e) => fresh.get(e.id)?.verdict === "unknown" && retriable(e, budget)).map((e) => e.id));
  const only = opts.only;
  const todo = new Set(results.filter((r) => r.status !== "killed" && (only ? only(r.id) && fresh.get(r.id)?.verdict !== "equivalent" : !fresh.has(r.id) || retry.has(r.id))).map((r) => r.id));
  const cpu0 = process.cpuUsage();
  const keys = new Map(mutants.map((m) => [m.id, mutantKey(ir, m)]));
  // the fresh answers, those being solved again included: a run stopped midway keeps the ones it did not reach
  const kept = readEntries(ir).filter((e) => keys.get(e.id) === e.key);
  // the mutants whose searches refine routes last: a run stopped midway has solved the cheap ones
  const pending = mutants.filter((m) => todo.has(m.id)).map((m) => ({ m, late: routeBound(ir, m) })).sort((x, y) => Number(x.late) - Number(y.late)).map((x) => x.m);
  const solved: MutantProof[] = [];
  const base = witnessBase(ir);
  // in chunks, the file written after each: an interrupted run keeps what it solved
  for (let i = 0; i < pending.length; i += CHUNK) {
    const chunk = pending.slice(i, i + CHUNK);
    solved.push(...(await proveMutants(ir, chunk, { check: mod.check, valid: opts.valid, base, rlimit: opts.rlimit, cases: opts.cases, onMutant: (j, _n, id) => opts.onMutant?.(i + j, pending.length, id) })));
    const done = new Set(solved.map((x) => x.id));
    fs.mkdirSync(path.dirname(mutantProofsFile(ir)), { recursive: true });
    fs.writeFileSync(mutantProofsFile(ir), formatMutantProofs(editionFolder(ir), [...kept.filter((e) => !done.has(e.id)), ...solved]));
  }
  const cpu = process.cpuUsage(cpu0);
  const verdicts = { equivalent: 0, differs: 0, unknown: 0 };
  for (const s of solved) verdicts[s.verdict]++;
  return { solved: solved.length, verdicts, cpuMs: Math.round((cpu.user + cpu.system) / 1000) };
}

/**
 * The ids a `--mutants` pattern accepts: the whole id matched, `*` standing for any text (and
 * nothing else special), e.g. `control.units#*` or `*#exempt_actor@*`.
 */
export function idPattern(pattern: string): (id: string) => boolean {
  const re = new RegExp(`^${pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
  return (id) => re.test(id);
}
