/**
 * Shared plumbing for the subcommands: finding editions, compiling them with diagnostics
 * printed, loading generated validators, and validating states against the schema.
 *
 * Exit codes used by every subcommand (documented in the README):
 *   0 success / allowed, 1 a failure the command exists to detect (stale, refuted, forbidden,
 *   scenario failed), 2 bad input (usage, missing file, compile error, state not matching schema).
 */
import { MAX_INPUT_FILE_BYTES, describeInputProblem, readConfinedFile, utf8Text } from "../diagnostics/files.js";
import { parseJson } from "../diagnostics/json.js";
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { fileURLToPath, pathToFileURL } from "node:url";
import pc from "picocolors";
import { Ajv2020 } from "ajv/dist/2020.js";
import { loadEdition } from "../check/index.js";
import { DSL_DIR, editionFolders } from "../check/editions.js";
import { renderDiagnostic } from "../diagnostics/render.js";
import type { Diagnostic } from "../diagnostics/types.js";
import { editionFolder, type IREdition, type Type } from "../ir/types.js";
import { intRange } from "../ir/ints.js";
import { headerInputsHash } from "../codegen/header.js";
import { cacheSecret, ensurePrivateDir, seal, sealed, userCacheDir, UntrustedCacheError } from "../verify/cache/user-cache.js";

export type Format = "text" | "json";

/** A user-facing failure: printed as one message (no stack trace) with the given exit code. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
    readonly help?: string,
  ) {
    super(message);
  }
}

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

/** The folder of bundled editions (the layout is compiler/check/editions.ts'). */
export { DSL_DIR };
export const GENERATED_DIR = "generated";
export const PROOFS_DIR = "proofs";

/**
 * Names of the bundled editions, sorted: folders under `dsl/` with a rule file that declares an
 * `edition` (variants included; `dsl/modules/` holds modules, not editions).
 */
export function bundledEditions(root = process.cwd()): string[] {
  return editionFolders(path.join(root, DSL_DIR));
}

export interface EditionRef {
  /** folder holding the rule files (relative to `root` when that is given, else to the working folder) */
  dir: string;
  /** true for `dsl/<name>` (its outputs go to generated/<name>, proofs/<name>) */
  bundled: boolean;
  /**
   * set for an edition shipped in the installed package (`<package>/dsl/<name>`, used when the
   * working folder has no `dsl/<name>`): the package's root folder. Its rule files are compiled
   * from there (the same file names as in the rulewright repository) and its validators are the
   * package's compiled `dist/editions/<name>/`.
   */
  root?: string;
}

/**
 * The root folder of the rulewright package or checkout this file belongs to (compiler/cli/ from
 * the sources, dist/cli/ compiled: both two levels down).
 */
export const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** True when this code runs compiled (dist/, the installed package): no TypeScript loader is registered. */
export const COMPILED = import.meta.url.endsWith(".js");

/**
 * Resolves an edition argument: a bundled edition name (`his`) or a path to an edition folder.
 * @throws UsageError (exit 2) when neither exists.
 */
export function resolveEdition(arg: string, root = process.cwd()): EditionRef {
  const asName = path.join(root, DSL_DIR, arg);
  const plainName = !arg.includes("/") && !arg.includes(path.sep) && arg !== "." && arg !== "..";
  if (plainName && fs.existsSync(asName) && fs.statSync(asName).isDirectory()) {
    return { dir: path.relative(root, asName), bundled: true };
  }
  // an edition shipped with the installed package (`rulewright build his` in an engine's project)
  const shipped = path.join(PACKAGE_ROOT, DSL_DIR, arg);
  if (plainName && path.resolve(PACKAGE_ROOT) !== path.resolve(root) && fs.existsSync(shipped) && fs.statSync(shipped).isDirectory() && bundledEditions(PACKAGE_ROOT).includes(arg)) {
    return { dir: path.join(DSL_DIR, arg), bundled: true, root: PACKAGE_ROOT };
  }
  if (fs.existsSync(arg) && fs.statSync(arg).isDirectory()) {
    const rel = path.relative(root, path.resolve(arg));
    const bundled = path.dirname(rel) === DSL_DIR;
    return { dir: rel, bundled };
  }
  const known = [...new Set([...bundledEditions(root), ...(path.resolve(PACKAGE_ROOT) !== path.resolve(root) ? bundledEditions(PACKAGE_ROOT) : [])])].sort();
  throw new UsageError(
    `no edition \`${arg}\`: not a bundled edition and not a folder`,
    2,
    known.length ? `bundled editions: ${known.map((k) => `\`${k}\``).join(", ")}` : undefined,
  );
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
}

/** Compiles an edition folder; prints its diagnostics in text mode. */
export function compile(ref: EditionRef, format: Format): Compiled {
  const res = loadEdition(ref.dir, { repoRoot: ref.root ?? process.cwd() });
  printDiagnostics(res.diagnostics, format, ref.root ?? process.cwd());
  return res;
}

export function errorCount(diags: Diagnostic[]): number {
  return diags.filter((d) => d.severity === "error").length;
}

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
  return (await loadGenerated(ref, edition, opts)) as ValidatorModule;
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
  return (await loadGenerated(ref, edition, { ...opts, checkersOnly: true })) as CheckerModule;
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

const ajvCache = new WeakMap<object, ReturnType<Ajv2020["compile"]>>();

/**
 * Validates a state against the edition's JSON Schema (ajv) and its invariants.
 * Returns human-readable problems; empty when the state is good.
 */
export function stateProblems(edition: IREdition, mod: Pick<ValidatorModule, "brokenInvariants"> | undefined, state: unknown): string[] {
  let validate = ajvCache.get(edition.schema);
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    validate = ajv.compile(edition.schema);
    ajvCache.set(edition.schema, validate);
  }
  if (!validate(state)) {
    return (validate.errors ?? []).slice(0, 20).map((e) => `state${e.instancePath.replace(/\//g, ".")} ${e.message}${e.params && "allowedValues" in e.params ? ` (${(e.params.allowedValues as string[]).slice(0, 8).join(", ")}${(e.params.allowedValues as string[]).length > 8 ? ", …" : ""})` : ""}${e.params && "additionalProperty" in e.params ? ` (\`${e.params.additionalProperty}\`)` : ""}`);
  }
  // an integer the schema leaves unbounded holds a 32-bit integer (compiler/ir/ints.ts): the range
  // the prover and the checker's arithmetic assume
  const wide = unboundedIntProblems(edition.state, state, "state").slice(0, 20);
  if (wide.length) return wide;
  if (mod) {
    return mod.brokenInvariants(state).map((id) => `state breaks invariant \`${id}\``);
  }
  return [];
}

/** The integers of `v` (a value of type `t` that the schema accepted) outside their `intRange`. */
function unboundedIntProblems(t: Type, v: unknown, at: string): string[] {
  if (t.k === "int") {
    const [lo, hi] = intRange(t);
    return typeof v === "number" && (v < lo || v > hi) ? [`${at} is ${v}, outside ${lo}..${hi} (an integer without a declared \`minimum\`/\`maximum\` holds a 32-bit integer)`] : [];
  }
  if (typeof v !== "object" || v === null) return [];
  if (t.k === "list" && Array.isArray(v)) return v.flatMap((x, i) => unboundedIntProblems(t.elem, x, `${at}[${i}]`));
  if (t.k === "record") return t.fields.flatMap((f) => unboundedIntProblems(f.type, (v as Record<string, unknown>)[f.name], `${at}.${f.name}`));
  if (t.k === "map") return t.key.members.flatMap((m) => unboundedIntProblems(t.value, (v as Record<string, unknown>)[m], `${at}.${m}`));
  return [];
}

/**
 * Checks an action JSON against the edition's action declarations.
 * Returns problems (unknown action, missing/unknown parameter, wrong type); empty when good.
 */
export function actionProblems(edition: IREdition, action: unknown): string[] {
  if (typeof action !== "object" || action === null || Array.isArray(action)) return ["the action must be a JSON object like {\"action\": \"pass\", \"power\": \"france\"}"];
  const a = action as Record<string, unknown>;
  if (typeof a.action !== "string") {
    return [`the action needs an \`action\` field naming it; actions: ${edition.actions.map((x) => x.name).join(", ")}`];
  }
  const decl = edition.actions.find((x) => x.name === a.action);
  if (!decl) {
    return [`unknown action \`${String(a.action)}\`; actions: ${edition.actions.map((x) => x.name).join(", ")}`];
  }
  const problems: string[] = [];
  for (const p of decl.params) {
    if (!(p.name in a)) problems.push(`action \`${decl.name}\` needs parameter \`${p.name}\``);
    else {
      const err = valueProblem(p.type, a[p.name]);
      if (err) problems.push(`parameter \`${p.name}\`: ${err}`);
    }
  }
  for (const k of Object.keys(a)) {
    if (k !== "action" && !decl.params.some((p) => p.name === k)) problems.push(`action \`${decl.name}\` has no parameter \`${k}\``);
  }
  return problems;
}

/**
 * Checks the inputs of a table lookup against the table's parameters (names, types, declared
 * ranges). Returns problems (unknown table, missing/unknown input, wrong type); empty when good.
 */
export function tableInputProblems(edition: IREdition, table: string, inputs: Record<string, unknown>): string[] {
  const t = (edition.tables ?? []).find((x) => x.name === table);
  if (!t) {
    const names = (edition.tables ?? []).map((x) => x.name);
    return [`unknown table \`${table}\`${names.length ? `; tables: ${names.join(", ")}` : " (the edition has no tables)"}`];
  }
  const problems: string[] = [];
  for (const p of t.params) {
    if (!(p.name in inputs)) {
      problems.push(`table \`${t.name}\` needs input \`${p.name}\``);
      continue;
    }
    const v = inputs[p.name];
    const err = valueProblem(p.type, v);
    if (err) problems.push(`input \`${p.name}\`: ${err}`);
    else if (p.type.k === "int" && ((p.type.min !== undefined && (v as number) < p.type.min) || (p.type.max !== undefined && (v as number) > p.type.max))) {
      problems.push(`input \`${p.name}\`: ${String(v)} is outside ${p.type.min ?? "…"}..${p.type.max ?? "…"}`);
    }
  }
  for (const k of Object.keys(inputs)) if (!t.params.some((p) => p.name === k)) problems.push(`table \`${t.name}\` has no parameter \`${k}\``);
  return problems;
}

function valueProblem(t: IREdition["actions"][number]["params"][number]["type"], v: unknown): string | undefined {
  switch (t.k) {
    case "bool":
      return typeof v === "boolean" ? undefined : "expected true or false";
    case "int": {
      if (!Number.isInteger(v)) return "expected an integer";
      const [lo, hi] = intRange(t);
      if ((v as number) >= lo && (v as number) <= hi) return undefined;
      return `${String(v)} is outside ${lo}..${hi}${t.min === undefined || t.max === undefined ? " (an int without a declared range holds a 32-bit integer)" : ""}`;
    }
    case "string":
      return typeof v === "string" ? undefined : "expected a string";
    case "enum":
      return typeof v === "string" && t.members.includes(v) ? undefined : `expected one of ${t.members.slice(0, 12).join(", ")}${t.members.length > 12 ? ", …" : ""}`;
    case "list":
      if (!Array.isArray(v)) return "expected a list";
      for (const x of v) {
        const e = valueProblem(t.elem, x);
        if (e) return `list item: ${e}`;
      }
      return undefined;
    default:
      return typeof v === "object" && v !== null ? undefined : "expected an object";
  }
}

export const color = pc;
