/**
 * Loading an edition's generated validators (the committed `generated/<edition>/`, the installed
 * package's compiled `dist/editions/<edition>/`, or validators generated for this run into the
 * user's code cache), transpiled to JavaScript when no TypeScript loader is there.
 */
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { pathToFileURL } from "node:url";
import { editionFolder, type IREdition } from "../ir/types.js";
import { headerInputsHash } from "../codegen/header.js";
import { cacheSecret, ensurePrivateDir, seal, sealed, userCacheDir, UntrustedCacheError } from "../verify/cache/user-cache.js";
import { COMPILED, GENERATED_DIR, PACKAGE_ROOT, type EditionRef } from "./editions.js";
import { UsageError } from "./errors.js";

/** The generated validator module's surface as the CLI uses it (see docs/CONTRACTS.md). */
export interface ValidatorModule {
  check(state: unknown, action: unknown): {
    allowed: boolean;
    violations: readonly { rule: string; kind: string; citation: string; title: string; file: string; line: number; column: number }[];
    obliged: readonly string[];
  };
  obligedActions(state: unknown, actor: string): { action: string; rules: string[] }[];
  brokenInvariants(state: unknown): string[];
  RULES: readonly { id: string; kind: string; action: string; citation: string; title: string; file: string; line: number; column: number }[];
  ACTIONS: readonly { name: string; params: { name: string; type: string }[] }[];
  /** the value of a result table for some inputs (throws RangeError outside its domain) */
  lookup(table: string, inputs: Record<string, unknown>): unknown;
  /** the index of the row that gives it (its line: TABLES[…].rowLines[index]) */
  lookupRow(table: string, inputs: Record<string, unknown>): number;
  TABLES: readonly { name: string; rowLines: readonly number[]; file: string }[];
  /** the action's problems (generated checked.ts; absent in validators generated before it) */
  validateAction?(action: unknown): readonly { input: string; path: string; message: string }[];
}

/**
 * Loads the validators of an edition. Bundled editions use the committed `generated/<name>/`
 * (its header's input hash must match the rules: a stale folder is a usage error naming the
 * command that fixes it; `build --check` compares every byte); an edition shipped with the
 * installed package uses the package's compiled `dist/editions/<name>/`. Other editions (test
 * fixtures, a designer's work folder) are compiled into the user's own code cache
 * (`codeCacheDir()`, never a shared temporary folder). Compiled (dist/, no TypeScript loader),
 * TypeScript validators are first transpiled to JavaScript in that cache (`transpiledValidators`,
 * imported only when its sealed manifest of content hashes holds).
 * @throws UsageError (exit 2) also when the user's cache folder or key is not safe to use `generateWhenStale`
 * (`--watch`): a stale generated/ is replaced by validators generated for this call, with a note
 * on stderr unless `quiet`.
 */
export async function loadValidators(ref: EditionRef, edition: IREdition, opts: { generateWhenStale?: boolean; quiet?: boolean } = {}): Promise<ValidatorModule> {
  return trusted(await loadGenerated(ref, edition, opts)) as ValidatorModule;
}

/**
 * The module with `check` as `checkTrusted` (the verdict alone, no input checks) where the
 * validators have one: the callers here check their input themselves (the state against the
 * schema and invariants, the action with `actionProblems`) and compare verdicts with the
 * interpreter's. Validators generated before `checkTrusted` existed are returned as they are.
 */
function trusted(ns: unknown): unknown {
  const m = ns as { checkTrusted?: unknown };
  return typeof m.checkTrusted === "function" ? { ...(ns as object), check: m.checkTrusted } : ns;
}

/** The part of the generated validators that checks moves and states (generated/<edition>/validators.ts). */
export type CheckerModule = Pick<ValidatorModule, "check" | "obligedActions" | "brokenInvariants">;

/**
 * The checkers of an edition (`CheckerModule`), loaded as `loadValidators` loads the validators,
 * but where they have to be generated (an edition outside dsl/, a stale generated/ with
 * `generateWhenStale`) only the files `validators.ts` needs at run time are (codegen
 * `CHECKER_FILES`), and with `actions` only the checkers of those actions (their rules and every
 * oblige rule; `check` of another action then finds no rule of it): a fraction of the time of
 * the whole folder. prove's witness judge uses it.
 */
export async function loadCheckers(ref: EditionRef, edition: IREdition, opts: { generateWhenStale?: boolean; quiet?: boolean; actions?: readonly string[] } = {}): Promise<CheckerModule> {
  return trusted(await loadGenerated(ref, edition, { ...opts, checkersOnly: true })) as CheckerModule;
}

/**
 * Whether loading the validators of an edition (with `generateWhenStale`) means generating them
 * first: an edition outside dsl/, or a bundled one whose generated/ is stale or missing (never
 * for the installed package's own editions).
 */
export function needsGenerating(ref: EditionRef, edition: IREdition): boolean {
  if (ref.root !== undefined) return false;
  return !ref.bundled || committedInputsHash(edition) !== edition.inputHash;
}

/** The inputs hash in the header of a bundled edition's committed generated/<edition>/index.ts, or undefined when missing. */
function committedInputsHash(edition: IREdition): string | undefined {
  const index = path.join(path.resolve(GENERATED_DIR, editionFolder(edition)), "index.ts");
  const header = fs.existsSync(index) ? fs.readFileSync(index, "utf8").slice(0, 2000) : "";
  return headerInputsHash(header);
}

async function loadGenerated(ref: EditionRef, edition: IREdition, opts: { generateWhenStale?: boolean; quiet?: boolean; checkersOnly?: boolean; actions?: readonly string[] }): Promise<unknown> {
  let dir = "";
  let entry = "index.ts";
  let generate = !ref.bundled;
  if (ref.root !== undefined) {
    dir = path.join(ref.root, "dist", "editions", editionFolder(edition));
    entry = "index.js";
    generate = false;
  } else if (ref.bundled) {
    dir = path.resolve(GENERATED_DIR, editionFolder(edition));
    const hash = committedInputsHash(edition);
    // --watch: the rule files change under the designer's hands; the validators of this run are
    // generated to the user's code cache (as for an edition outside dsl/), generated/ is left alone
    if (hash !== edition.inputHash && opts.generateWhenStale) {
      generate = true;
      if (!opts.quiet) process.stderr.write(`note: generated/${editionFolder(edition)} is ${hash ? "stale" : "missing"}; this run uses validators generated from the rule files as they are (\`npx rulewright build ${editionFolder(edition)}\` updates generated/)\n`);
    } else if (hash !== edition.inputHash) {
      throw new UsageError(
        `generated/${editionFolder(edition)} is ${hash ? "stale: it was generated from other rule files" : "missing"}`,
        2,
        `run \`npx rulewright build ${editionFolder(edition)}\``,
      );
    }
  }
  if (generate) {
    const { CHECKER_FILES, generateEdition } = await import("../codegen/index.js");
    const files = await generateEdition(edition, opts.checkersOnly ? { only: CHECKER_FILES, actions: opts.actions } : {});
    if (opts.checkersOnly) entry = "validators.ts";
    const key = crypto.createHash("sha256").update(files.map((f) => f.path + "\0" + f.content).join("\0")).digest("hex").slice(0, 16);
    // the user's own code cache (never a shared temporary folder: issue 29), outside
    // node_modules (tsx compiles TypeScript only outside it); every file is compared with what
    // was just generated and rewritten when it differs, so what is imported is what codegen made
    dir = path.join(codeCacheDir(), `${editionFolder(edition)}-${opts.checkersOnly ? "checkers-" : ""}${key}`);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // the generated modules are ESM, like the project they are normally committed into
    fs.writeFileSync(path.join(dir, "package.json"), '{ "type": "module" }\n');
    for (const f of files) {
      const target = path.join(dir, path.relative(path.join(GENERATED_DIR, editionFolder(edition)), f.path));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      if (!fs.existsSync(target) || fs.readFileSync(target, "utf8") !== f.content) fs.writeFileSync(target, f.content);
    }
  }
  try {
    // compiled, no loader for TypeScript; from the sources, tsx would load validators outside this
    // checkout by the module type of their own project (a CommonJS project: "require() … in a cycle")
    const foreign = !isInside(dir, PACKAGE_ROOT) && !isInside(dir, codeCacheDir());
    if (entry.endsWith(".ts") && (COMPILED || foreign)) {
      dir = await transpiledValidators(dir, editionFolder(edition));
      entry = entry.replace(/\.ts$/, ".js");
    }
    return (await import(pathToFileURL(path.join(dir, entry)).href)) as unknown;
  } catch (e) {
    // the user's cache refused (codeCacheDir, transpiledValidators): its own message and fix
    if (e instanceof UsageError) throw e;
    throw new UsageError(
      `the generated validators in \`${path.relative(process.cwd(), dir)}\` do not load: ${(e as Error).message.split("\n")[0]}`,
      2,
      ref.bundled && ref.root === undefined ? `run \`npx rulewright build ${editionFolder(edition)}\` (never edit generated/ by hand)` : undefined,
    );
  }
}

function isInside(dir: string, parent: string): boolean {
  const rel = path.relative(path.resolve(parent), path.resolve(dir));
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * The user's cache of compiled validators, `<userCacheDir()>/code/` (user-cache.ts: mode 0700,
 * owned by the user, not writable by group or others), created when missing.
 * @throws UsageError (exit 2) naming the folder when it is not safe to use
 */
export function codeCacheDir(): string {
  try {
    return ensurePrivateDir(path.join(ensurePrivateDir(userCacheDir()), "code"));
  } catch (e) {
    if (e instanceof UntrustedCacheError) throw new UsageError(e.message, 2, e.help);
    throw e;
  }
}

/** The manifest of a folder of compiled validators: each file's sha256, sealed with the user's secret. */
const MANIFEST = "rulewright-manifest.json";

/** The text a manifest's seal covers: the folder's name (the hash of its sources) and each file's hash. */
const manifestText = (name: string, files: Record<string, string>) => `code\0${name}\0${JSON.stringify(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)))}`;

/** Writes the manifest of folder `dir` (named `name`): every file in it with its sha256, sealed. */
function writeManifest(dir: string, name: string): void {
  const files: Record<string, string> = {};
  for (const f of fs.readdirSync(dir).sort()) if (f !== MANIFEST) files[f] = crypto.createHash("sha256").update(fs.readFileSync(path.join(dir, f))).digest("hex");
  fs.writeFileSync(path.join(dir, MANIFEST), JSON.stringify({ files, seal: seal(cacheSecret(), manifestText(name, files)) }) + "\n", { mode: 0o600 });
}

/**
 * Whether folder `dir` of compiled validators (named `name`) may be imported: its manifest is
 * sealed with the user's secret for this name, it lists `index.js`, and every file in the folder
 * is listed with the sha256 of its content now (no file added, removed or changed since it was
 * written). Undefined when it may, else what is wrong.
 */
export function codeFolderProblem(dir: string, name: string): string | undefined {
  let m: { files?: Record<string, unknown>; seal?: unknown };
  try {
    m = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), "utf8")) as typeof m;
  } catch {
    return "no readable manifest";
  }
  const files = m.files && typeof m.files === "object" ? (m.files as Record<string, string>) : {};
  if (!sealed(cacheSecret(), manifestText(name, files), m.seal)) return "its manifest is not sealed with your key";
  if (!("index.js" in files)) return "its manifest lists no index.js";
  const present = fs.readdirSync(dir).filter((f) => f !== MANIFEST);
  for (const f of present) if (!(f in files)) return `${f} is not in its manifest`;
  for (const [f, h] of Object.entries(files)) {
    const p = path.join(dir, f);
    if (!fs.existsSync(p) || !fs.lstatSync(p).isFile()) return `${f} is missing`;
    if (crypto.createHash("sha256").update(fs.readFileSync(p)).digest("hex") !== h) return `${f} does not have the content it was written with`;
  }
  return undefined;
}

/**
 * The TypeScript validators of folder `dir` (generated/<name>/ or a cache folder) as JavaScript
 * modules, for the compiled CLI, which registers no TypeScript loader: each `.ts` file is
 * transpiled alone (TypeScript's `transpileModule`, types erased, no type check; the TypeScript
 * that ts-morph ships, which codegen already depends on) into
 * `<codeCacheDir()>/<name>-js-<hash of the sources>/` with a `{"type": "module"}` package.json,
 * so the modules are ESM whatever the project around `dir` is (a CommonJS project included), and
 * a sealed manifest of the files' hashes. Returns that folder. An existing folder is reused only
 * when `codeFolderProblem` finds nothing wrong (else it is written again), so no file another
 * user or a stray write put there is imported.
 * @throws UsageError (exit 2) when the user's cache folder or key is not safe to use
 */
export async function transpiledValidators(dir: string, name: string): Promise<string> {
  const sources = fs.readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")).sort();
  const texts = sources.map((f) => fs.readFileSync(path.join(dir, f), "utf8"));
  const key = crypto.createHash("sha256").update(sources.map((f, i) => f + "\0" + texts[i]).join("\0")).digest("hex").slice(0, 16);
  const cache = codeCacheDir();
  const folder = `${name}-js-${key}`;
  const out = path.join(cache, folder);
  try {
    if (fs.existsSync(out) && codeFolderProblem(out, folder) === undefined) return out;
  } catch (e) {
    if (e instanceof UntrustedCacheError) throw new UsageError(e.message, 2, e.help);
    throw e;
  }
  const { ts } = await import("ts-morph");
  const write = () => {
    const tmp = `${out}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
    fs.mkdirSync(tmp, { mode: 0o700 });
    fs.writeFileSync(path.join(tmp, "package.json"), '{ "type": "module" }\n');
    sources.forEach((f, i) => {
      const js = ts.transpileModule(texts[i]!, { fileName: f, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, isolatedModules: true } }).outputText;
      fs.writeFileSync(path.join(tmp, f.replace(/\.ts$/, ".js")), js);
    });
    writeManifest(tmp, folder);
    return tmp;
  };
  const tmp = write();
  // a folder that failed the check is replaced; another process may write the same folder first
  if (fs.existsSync(out) && codeFolderProblem(out, folder) !== undefined) fs.rmSync(out, { recursive: true, force: true });
  try {
    fs.renameSync(tmp, out);
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true });
    const problem = codeFolderProblem(out, folder);
    if (problem !== undefined) throw new UsageError(`the compiled validators in ${out} cannot be trusted: ${problem}`, 2, `delete ${out} and run again`);
  }
  return out;
}

