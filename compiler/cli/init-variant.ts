/**
 * `rulewright init --extends <parent> <dir>` (issue 28, "variants anywhere"): scaffolds a variant
 * edition in any folder, inside the tool's `dsl/` or outside it:
 * - `edition.rules`: the edition over its parent, with commented examples of adding, overriding
 *   and removing a rule (they cite the parent's rules by id and position, never their text);
 * - `state.extension.json`: a schema extension over the parent's schema (no fields yet);
 * - `fixtures/base-state.json`: the parent's fixture (or default state) with the schema defaults,
 *   made to satisfy the variant's invariants (compiler/engine/fixture.ts);
 * - `scenarios/<name>.yaml`: two scenarios on that fixture, their verdicts as the interpreter gives
 *   them at scaffold time (edit them with the variant's rules);
 * - `coverage/`: the parent's coverage manifests, inherited (edition renamed, audit marks dropped:
 *   they name the parent's scenarios);
 * - `README.md`: the next commands.
 * `rulewright init --fixture <dir>` derives the fixture again after the variant's invariants
 * changed, or names the invariants and the facts they need (exit 1).
 *
 * Exit codes: 0 written; 1 no fixture satisfies the variant's invariants (the message names them);
 * 2 bad usage: the folder exists and is not empty, the parent is unknown or does not compile.
 */
import fs from "node:fs";
import path from "node:path";
import { parseDocument, visit } from "yaml";
import { loadEdition } from "../check/index.js";
import { DSL_DIR, TOOL_ROOT, resolveParent } from "../check/editions.js";
import type { IREdition, IRRule } from "../ir/types.js";
import { createInterpreter } from "../interpret/index.js";
import { deriveFixture, type DerivedFixture } from "../engine/fixture.js";
import { printDiagnostics, UsageError, type Format } from "./common.js";
import { editionName } from "./init.js";

type Json = Record<string, unknown>;

/** The scaffold's file names inside the variant folder. */
export const VARIANT_FILES = { edition: "edition.rules", schema: "state.extension.json", fixture: path.join("fixtures", "base-state.json"), scenarios: "scenarios", coverage: "coverage", readme: "README.md" } as const;

/** Where `--extends <arg>` leads: a path is the user's (relative to the working folder), a name or `<package>/<edition>` is resolved as `extends` resolves it. */
function parentOf(arg: string, variantAbs: string): { abs: string; written: string } {
  const pathLike = arg.startsWith(".") || path.isAbsolute(arg) || fs.existsSync(arg);
  if (pathLike && fs.existsSync(arg) && fs.statSync(arg).isDirectory()) {
    const rel = path.relative(variantAbs, path.resolve(arg)).split(path.sep).join("/");
    return { abs: path.resolve(arg), written: rel.startsWith(".") ? rel : `./${rel}` };
  }
  const found = resolveParent(variantAbs, arg, process.cwd());
  if (!found.abs) throw new UsageError(`no parent edition \`${arg}\`: tried ${found.tried.map((t) => `\`${path.relative(process.cwd(), t) || t}\``).join(", ")}`, 2, "name a bundled edition (`his`), an edition folder's path, or `<package>/<edition>`");
  return { abs: found.abs, written: arg };
}

/** Compiles an edition folder for the scaffold (diagnostics printed). @throws UsageError when it does not compile */
function compileFolder(abs: string, format: Format, what: string): IREdition & { parentDir?: string } {
  const res = loadEdition(abs, { repoRoot: process.cwd() });
  if (!res.edition) {
    printDiagnostics(res.diagnostics, format, process.cwd());
    throw new UsageError(`${what} \`${path.relative(process.cwd(), abs) || abs}\` does not compile`, 2);
  }
  return { ...res.edition, ...(res.parentDir ? { parentDir: res.parentDir } : {}) };
}

/** The parent's fixture: `<parent>/fixtures/base-state.json` (a variant's), else `test/fixtures/<folder>/base-state.json` of the project or of rulewright; undefined when none. */
function parentFixture(parentAbs: string): Json | undefined {
  const folder = path.basename(parentAbs);
  for (const f of [path.join(parentAbs, VARIANT_FILES.fixture), path.join(process.cwd(), "test", "fixtures", folder, "base-state.json"), path.join(TOOL_ROOT, "test", "fixtures", folder, "base-state.json")]) {
    if (fs.existsSync(f)) return JSON.parse(fs.readFileSync(f, "utf8")) as Json;
  }
  return undefined;
}

/** Where a rule stands, as `file:line`. */
const at = (r: IRRule) => `${r.pos.file}:${r.pos.line}`;

/** edition.rules of a variant: the declaration and commented examples citing the parent's rules. */
function editionText(name: string, parent: IREdition, written: string): string {
  const title = `${parent.title}, variant ${name}`;
  const forbid = parent.rules.find((r) => r.kind === "forbid");
  const another = parent.rules.find((r) => r.kind === "forbid" && r !== forbid && r.action !== forbid?.action) ?? parent.rules.find((r) => r !== forbid);
  const action = parent.actions.find((a) => a.name === forbid?.action) ?? parent.actions[0]!;
  const params = action.params.map((p) => p.name).join(", ");
  return `// ${title}: a variant of \`${parent.name}\` (${parent.title}), scaffolded by \`rulewright init --extends\`.
// It inherits every rule, table, invariant, the board and the state schema of its parent; the
// lines below add, replace or remove some. dsl/README.md of rulewright ("Making a variant") is the
// reference. Cite your own rulebook's sections and paraphrase them: never copy rulebook text.

edition ${name} "${title}" cites "${parent.cites}" extends "${written}"
// new or narrowed state fields: ${VARIANT_FILES.schema} (merged over the parent's schema)
schema "${VARIANT_FILES.schema}"

// --- Adding a rule: a new id, the citation of your rulebook, the action it restricts.
// \`${action.name}\` takes (${params}).
// rule variant.example §1 "<what your rulebook says, in your words>"
//   forbid ${action.name} when <condition on ${params || "the state"} and state.…>
${forbid ? `
// --- Overriding a rule of the parent: the same id, a new body (the parent's stands at ${at(forbid)}).
// override rule ${forbid.id} §<section> "<the rule as your variant reads it>"
//   forbid ${forbid.action} when <the new condition>
` : ""}${another ? `
// --- Removing a rule of the parent, with the reason (the parent's stands at ${at(another)}).
// remove rule ${another.id} "<why the variant drops it>"
` : ""}
// --- An invariant: a fact every state of the variant holds (the prover assumes it; the fixture
// must satisfy it: \`rulewright init --fixture <this folder>\` derives the fixture again).
// invariant state.variant_example "<the fact>":
//   <condition on state.…>
`;
}

/** The schema extension: no fields yet, an example in `$comment`. */
function extensionText(): string {
  return JSON.stringify(
    {
      $comment: 'Fields this variant adds to its parent\'s state schema, or narrows (an enum to some of its members, an integer to a smaller range). Give a new field a "default": the parent\'s fixtures and scenarios stay valid. Example: "properties": { "truce_turns": { "type": "integer", "minimum": 0, "maximum": 9, "default": 0 } }, "required": ["truce_turns"]',
      extends: "parent",
      properties: {},
      required: [],
    },
    null,
    2,
  ) + "\n";
}

/** Two scenarios on the fixture (the first allowed and the first forbidden move the interpreter finds among the actions with enum and boolean parameters). */
function scenarioText(ir: IREdition, editionRef: string, fixtureRef: string, fixture: Json): string {
  const interp = createInterpreter(ir);
  const found: { action: Json; allowed: boolean; rules: string[] }[] = [];
  for (const a of ir.actions) {
    const domains = a.params.map((p) => (p.type.k === "enum" ? p.type.members : p.type.k === "bool" ? [false, true] : undefined));
    if (domains.some((d) => !d)) continue;
    let combos: Json[] = [{ action: a.name }];
    for (const [i, p] of a.params.entries()) combos = combos.flatMap((c) => (domains[i] as unknown[]).map((v) => ({ ...c, [p.name]: v }))).slice(0, 5000);
    for (const c of combos) {
      let v;
      try {
        v = interp.check(fixture, c);
      } catch {
        continue;
      }
      if (!found.some((f) => f.allowed === v.allowed)) found.push({ action: c, allowed: v.allowed, rules: v.allowed ? [] : v.violations.map((x) => x.rule) });
      if (found.length === 2) break;
    }
    if (found.length === 2) break;
  }
  const lines = [
    `# Scenarios of the variant: each runs its validators on a state and an action and compares the`,
    `# verdict. These two were computed by rulewright's interpreter when the variant was scaffolded (the`,
    `# parent's rules then): keep them, change their expectations as your rules change, add your own.`,
    `# \`edition\` and \`fixture\` are paths relative to this file.`,
    `edition: ${editionRef}`,
    `fixture: ${fixtureRef}`,
    `scenarios:`,
  ];
  for (const f of found) {
    const { action, ...args } = f.action;
    const what = `${action}(${Object.entries(args).map(([k, v]) => `${k}: ${String(v)}`).join(", ")})`;
    lines.push(`  - name: "${what} is ${f.allowed ? "allowed" : "forbidden"} in the fixture"`);
    lines.push(`    action: ${JSON.stringify(f.action)}`);
    lines.push(`    expect: ${f.allowed ? "allowed" : JSON.stringify({ forbidden: f.rules })}`);
  }
  return lines.join("\n") + "\n";
}

/** The parent's coverage manifests (those naming `parentFolder`), for the variant: edition renamed, audit marks dropped. */
function inheritedManifests(parentFolder: string, variantRef: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const dir of [path.join(process.cwd(), DSL_DIR, "coverage"), path.join(TOOL_ROOT, DSL_DIR, "coverage")]) {
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith(".yaml")).sort()) {
      const doc = parseDocument(fs.readFileSync(path.join(dir, f), "utf8"));
      if (doc.get("edition") !== parentFolder) continue;
      doc.set("edition", variantRef);
      visit(doc, { Pair: (_, pair) => ((pair.key as { value?: unknown })?.value === "audited" ? visit.REMOVE : undefined) });
      doc.commentBefore = ` Inherited from ${parentFolder}'s manifest (${f}) by \`rulewright init --extends\`: the paragraphs\n the parent's rules encode. Add your variant's rules to the paragraphs they encode.\n${doc.commentBefore ?? ""}`;
      out[f] = doc.toString({ lineWidth: 0 });
    }
    if (Object.keys(out).length) break;
  }
  return out;
}

/** Writes the derived fixture, or throws the error naming what no search could satisfy. */
function fixtureOrError(d: DerivedFixture, dir: string): { state: Json; changed: string[] } {
  if (d.ok) return d;
  const what = d.problems.length
    ? `the parent's fixture is not a state of the variant: ${d.problems.slice(0, 3).join("; ")}`
    : `no fixture satisfies the variant's invariants: ${d.broken.map((b) => `\`${b.id}\` (reads ${b.reads.map((r) => `state.${r}`).join(", ") || "the state"})`).join("; ")}`;
  throw new UsageError(what, 1, `set those facts in \`${path.join(dir, VARIANT_FILES.fixture)}\` by hand (or give the new fields defaults in ${VARIANT_FILES.schema}), then run the scenarios`);
}

/** `rulewright init --extends <parent> <dir>`: writes the scaffold (see the file comment). */
export async function initVariant(dirArg: string, parentArg: string, opts: { format: Format }): Promise<number> {
  const dir = path.normalize(dirArg);
  if (fs.existsSync(dir) && (!fs.statSync(dir).isDirectory() || fs.readdirSync(dir).length > 0)) {
    throw new UsageError(`\`${dir}\` already exists and is not an empty folder`, 2, "name a new folder: `rulewright init --extends <parent> <dir>`");
  }
  const abs = path.resolve(dir);
  const parent = parentOf(parentArg, abs);
  const parentIr = compileFolder(parent.abs, opts.format, "the parent edition");
  const name = editionName(dir);
  const files: Record<string, string> = {
    [VARIANT_FILES.edition]: editionText(name, parentIr, parent.written),
    [VARIANT_FILES.schema]: extensionText(),
  };
  for (const [f, text] of Object.entries(inheritedManifests(path.basename(parent.abs), ".."))) files[path.join(VARIANT_FILES.coverage, f)] = text;
  const write = (rel: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  };
  try {
    for (const [rel, content] of Object.entries(files)) write(rel, content);
  } catch (e) {
    throw new UsageError(`cannot write \`${dir}\`: ${(e as Error).message}`, 2);
  }
  const ir = compileFolder(abs, opts.format, "the scaffolded variant");
  const fx = fixtureOrError(deriveFixture(ir, parentFixture(parent.abs)), dir);
  write(VARIANT_FILES.fixture, JSON.stringify(fx.state, null, 2) + "\n");
  write(path.join(VARIANT_FILES.scenarios, `${name}.yaml`), scenarioText(ir, "..", `../${VARIANT_FILES.fixture.split(path.sep).join("/")}`, fx.state));
  const ref = dir.split(path.sep).join("/");
  write(VARIANT_FILES.readme, readmeText(name, parentIr, ref));
  const written = [...Object.keys(files), VARIANT_FILES.fixture, path.join(VARIANT_FILES.scenarios, `${name}.yaml`), VARIANT_FILES.readme].map((f) => path.join(dir, f));
  if (opts.format === "json") process.stdout.write(JSON.stringify({ edition: name, dir, parent: path.relative(process.cwd(), parent.abs) || parent.abs, files: written, fixtureChanged: fx.changed }, null, 2) + "\n");
  else {
    process.stdout.write(`${name}: written ${dir}/ (${written.length} files), a variant of ${parentIr.name}\n`);
    if (fx.changed.length) process.stdout.write(`fixture: the parent's, with ${fx.changed.join(", ")} (the variant's invariants)\n`);
    process.stdout.write(`next:\n  npx rulewright build ${ref}\n  npx rulewright prove ${ref}\n  npx rulewright test ${ref}/scenarios\n`);
  }
  return 0;
}

/** `rulewright init --fixture <dir>`: derives the variant's fixture again (after its invariants or fields changed). */
export async function refreshFixture(dirArg: string, opts: { format: Format }): Promise<number> {
  const abs = path.resolve(dirArg);
  const ir = compileFolder(abs, opts.format, "the variant");
  if (!ir.parentDir) throw new UsageError(`\`${dirArg}\` extends no edition: --fixture derives a variant's fixture from its parent's`, 2);
  const parentAbs = path.resolve(process.cwd(), ir.parentDir);
  const fx = fixtureOrError(deriveFixture(ir, parentFixture(parentAbs)), dirArg);
  const file = path.join(dirArg, VARIANT_FILES.fixture);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(fx.state, null, 2) + "\n");
  if (opts.format === "json") process.stdout.write(JSON.stringify({ file, changed: fx.changed }, null, 2) + "\n");
  else process.stdout.write(`written ${file}${fx.changed.length ? `: the parent's fixture with ${fx.changed.join(", ")}` : ""}\n`);
  return 0;
}

function readmeText(name: string, parent: IREdition, ref: string): string {
  return `# ${name}

A variant of \`${parent.name}\` (${parent.title}), scaffolded by \`rulewright init --extends\`.

- \`${VARIANT_FILES.edition}\`: the edition over its parent; add, override and remove rules there.
- \`${VARIANT_FILES.schema}\`: state fields the variant adds or narrows, merged over the parent's schema.
- \`${VARIANT_FILES.fixture}\`: a state of the variant (the parent's, satisfying the variant's
  invariants); \`npx rulewright init --fixture ${ref}\` derives it again.
- \`${VARIANT_FILES.scenarios}/\`: expected verdicts; \`${VARIANT_FILES.coverage}/\`: the parent's coverage manifests.

\`\`\`sh
npx rulewright build ${ref}              # the validators, into ${ref}/generated/
npx rulewright prove ${ref}              # Z3, reusing the parent's proofs where nothing changed
npx rulewright test ${ref}/scenarios     # the scenarios
npx rulewright coverage --manifests ${ref}/coverage
\`\`\`
`;
}
