/**
 * The front-end driver: load an edition folder, parse every rule file, read the schema and the
 * board, resolve and type-check every declaration, lower to IR. Bad input never throws.
 * Stops after parsing when a file has syntax errors (checking a partial AST only cascades).
 *
 * The passes, in order (each in its own file, over the shared `Checking` state of context.ts):
 * assemble (editions.ts) → inputs (inputs.ts) → declare (declare.ts, schema.ts, tables.ts'
 * `declareTables`) → bodies: routes (routes.ts), rules (rules.ts), exemptions (exemptions.ts),
 * invariants and declines (declines.ts), tables (tables.ts' `checkTables`) — each resolving,
 * typing and lowering its expressions through expr.ts → integer ranges (ranges.ts) → lower
 * (lower.ts).
 */
import path from "node:path";
import type { Diagnostic } from "../diagnostics/types.js";
import type { EnumType, IREdition } from "../ir/types.js";
import { editionIds } from "./cite.js";
import { relPath, startChecking } from "./context.js";
import { declareBoard, declareEnums, declareSignatures, declareState, typeResolver } from "./declare.js";
import { checkDeclines, checkInvariants } from "./declines.js";
import { assemble, editionLayout, type ParseRules } from "./editions.js";
import type { Env } from "./env.js";
import { checkExemptions } from "./exemptions.js";
import { ExprChecker } from "./expr.js";
import { findSingle, readJson, textHash } from "./inputs.js";
import { readStateSchema } from "./schema-extension.js";
import { lowerEdition } from "./lower.js";
import { checkIntRanges } from "./ranges.js";
import { Resolution } from "./resolution.js";
import { checkRoutes } from "./routes.js";
import { checkRules } from "./rules.js";
import { checkActionScopes } from "./action-scope.js";
import { checkTables } from "./tables.js";
import { LINE1, Reporter } from "./util.js";

export { renderDiagnostic } from "../diagnostics/render.js";

/**
 * `opts.readFile(abs)`: the text of a rule file to use instead of the disk's (the language
 * server's open, unsaved documents); undefined = read the disk. `opts.unsavedIn(absDir)`: names of
 * `.rules` files in that folder that exist only in the editor (a new file not saved yet), read
 * with `readFile` as part of the folder. Schema and board are always read from disk.
 * `opts.parse(text, file)`: the parser to use (default `parseRules`), e.g. one that caches by text
 * (the language server re-checks an edition on every edit; only the edited file's text changed).
 * Its result is only read, never changed.
 */
export function loadEdition(editionDir: string, opts?: { repoRoot?: string; readFile?: (abs: string) => string | undefined; unsavedIn?: (absDir: string) => string[]; parse?: ParseRules }): LoadResult {
  const r = new Reporter();
  const repoRoot = opts?.repoRoot ?? process.cwd();
  const folder = relPath(repoRoot, path.resolve(repoRoot, editionDir));
  const resolution = new Resolution({ folder, rules: [], ...editionLayout(path.posix.basename(folder)) });
  try {
    const found: { parentDir?: string } = {};
    const edition = load(editionDir, repoRoot, r, resolution, opts?.readFile, opts?.unsavedIn, opts?.parse, found);
    return r.errorCount === 0 && edition ? { edition, diagnostics: r.diagnostics, resolution, ...found } : { diagnostics: r.diagnostics, resolution };
  } catch (e) {
    // INVARIANT: unreachable on any input; if it is reached, report instead of throwing.
    r.report("RW4001", `internal error while checking \`${editionDir}\`: ${(e as Error).message}`, editionDir, LINE1, "please report this with the input files");
    return { diagnostics: r.diagnostics, resolution };
  }
}

/** What `loadEdition` gives: the IR (only without error diagnostics), the diagnostics, and the resolution table (always; partial when the edition has errors). */
export interface LoadResult {
  edition?: IREdition;
  diagnostics: Diagnostic[];
  /** every name's declaration and uses, and the edition's files (compiler/check/resolution.ts) */
  resolution: Resolution;
  /** a variant's parent edition folder (absolute), wherever `extends` found it (issue 28); absent for an edition that extends nothing */
  parentDir?: string;
}

/** Runs the passes over one edition folder; undefined when it has errors (they are in `r`). */
function load(editionDir: string, repoRoot: string, r: Reporter, res: Resolution, readFile?: (abs: string) => string | undefined, unsavedIn?: (absDir: string) => string[], parse?: ParseRules, found: { parentDir?: string } = {}): IREdition | undefined {
  const absDir = path.resolve(repoRoot, editionDir);
  const inputs: { file: string; sha256: string }[] = [];

  // assemble: parse the edition, its ancestors (`extends`) and the modules they import
  const asm = assemble(absDir, { repoRoot, r, inputs, textHash, readFile, unsavedIn, parse });
  res.files.rules = inputs.map((i) => i.file);
  if (!asm) return undefined;
  if (asm.levels.length > 1) found.parentDir = asm.levels[asm.levels.length - 2]!.abs;
  const checkedFrom = r.diagnostics.length;
  const env: Env = { enums: new Map(), memberIndex: new Map(), defs: new Map(), routes: new Map(), actions: new Map() };
  const c = startChecking(asm, repoRoot, absDir, r, res, inputs, env);

  // inputs: one schema and one board, from the nearest edition of the chain that declares them
  const schemaDecl = findSingle(c, "schema", 'schema "state.schema.json"');
  const boardDecl = findSingle(c, "board", 'board "board.json"');

  // declare: the board, enums, signatures, the state
  const boardJson = boardDecl && readJson(c, boardDecl);
  declareBoard(c, boardJson);
  declareEnums(c, boardJson);
  declareSignatures(c, typeResolver(c, !!boardDecl));
  // a variant's schema may extend its parent's (schema-extension.ts)
  const schemaJson = schemaDecl && readStateSchema(c, schemaDecl);
  declareState(c, schemaJson);

  // bodies: resolve, type and lower every expression (defs once each, even unused ones)
  const ex = new ExprChecker(env, r, res);
  for (const n of env.defs.keys()) ex.defTemplate(n, undefined, undefined);
  const ids = editionIds(c);
  const routes = checkRoutes(c, ex);
  const { irRules: rules, ruleInfo } = checkRules(c, ex, ids);
  const exemptions = checkExemptions(c, ex, ids, ruleInfo);
  const invariants = checkInvariants(c, ex, ids);
  const declines = checkDeclines(c, rules);
  const actionScopes = checkActionScopes(c, ids);
  // tables (a variant's and a module's come through the assembly like defs)
  const tables = checkTables(env, ex, c.rep, (t) => ids.citation(t.decl.citations, t.decl.name, t.file, t.origin, "table"), repoRoot);

  // every arithmetic result within the safe integer range (RW3106; compiler/check/ranges.ts)
  checkIntRanges([
    ...rules.map((x) => x.when),
    ...exemptions.map((x) => x.when),
    ...invariants.map((x) => x.expr),
    ...routes.flatMap((x) => [x.land, x.sea, x.port, ...(x.maxSeas ? [x.maxSeas] : []), x.passes]),
    ...tables.flatMap((t) => [...t.keys, ...t.rows.flatMap((row) => (row.guard ? [row.guard] : []))]),
  ], { tables, spaces: env.board?.spaces.length ?? 0, spanOf: (p) => ex.spans.get(p), report: (code, msg, file, span, help) => r.report(code, msg, file, span, help) });

  // a problem found in a module's file is a problem of the module in this edition's vocabulary
  for (const d of r.diagnostics.slice(checkedFrom)) {
    const m = asm.moduleOfFile.get(d.file);
    if (m && !d.code.startsWith("RW21")) d.message += ` (in module \`${m}\`, checked for edition \`${c.leaf.folder}\`)`;
  }

  if (r.errorCount || !env.state || !env.board || !schemaJson) return undefined;
  return lowerEdition(c, { rules, exemptions, invariants, declines, routes, tables, actionScopes }, schemaJson);
}

export type { EnumType };
