/**
 * Scenario files: the designer's tests (DESIGN.md "Scenario tests").
 *
 * A scenario file is YAML (or JSON):
 * ```yaml
 * edition: his                  # bundled edition name or a folder path
 * fixture: base-state.json      # optional: a state file in test/fixtures/<edition>/ (or a path)
 * scenarios:
 *   - name: france may not declare war on hungary-bohemia
 *     source: his §9.6          # optional citation of the example
 *     patch: { phase: diplomacy }      # deep-merged into the fixture; lists and scalars replace
 *     state: { … }              # optional: a whole state instead of fixture + patch
 *     action: { action: declare_war, by: france, target: hungary_bohemia }
 *     expect: allowed           # or { forbidden: [rule ids] } (exact set) or { obliged: [rule ids] }
 *   - name: the worked example, first explorer   # a table scenario: no state, no action
 *     table: exploration        # a table of the edition
 *     inputs: { roll: 6, explorer: 3, mercators_map: false }   # one entry per parameter
 *     expect: { result: discovery }   # the value (a record as a mapping), compared exactly
 * ```
 * Source: the format follows the project's DESIGN.md; nothing here knows any particular game.
 */
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { parseJson, stableJson, stripBom } from "../diagnostics/json.js";
import { describeInputProblem, isInsideDir, readConfinedFile, resolveConfined, utf8Text, type InputFileProblem } from "../diagnostics/files.js";
import { closest } from "../diagnostics/suggest.js";

export type Expectation = "allowed" | { forbidden: string[] } | { obliged: string[] };

export interface Scenario {
  file: string;
  /** 1-based line of the scenario in its file (0 when unknown) */
  line: number;
  name: string;
  source?: string;
  edition: string;
  state: unknown;
  action: unknown;
  expect: Expectation;
}

const SCENARIO_KEYS = ["name", "source", "patch", "state", "action", "expect"];
const TABLE_SCENARIO_KEYS = ["name", "source", "table", "inputs", "expect"];

/** A table scenario: the value a table gives for some inputs. */
export interface TableScenario {
  file: string;
  line: number;
  name: string;
  source?: string;
  edition: string;
  table: string;
  inputs: Record<string, unknown>;
  /** the expected value: a scalar, or a mapping for a record-valued table */
  expect: { result: unknown };
}

export interface ScenarioFileProblem {
  file: string;
  line: number;
  message: string;
}

/** Deep merge for patches: objects merge key by key; arrays, scalars and null replace. */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (isPlainObject(base) && isPlainObject(patch)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(patch)) out[k] = k in base ? deepMerge(base[k], v) : v;
    return out;
  }
  return structuredClone(patch);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Lists scenario files (.yaml, .yml, .json) under the given files/folders, sorted. */
export function findScenarioFiles(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = fs.statSync(p);
    if (st.isDirectory()) for (const n of fs.readdirSync(p).sort()) walk(path.join(p, n));
    else if (/\.(ya?ml|json)$/.test(p)) out.push(p);
  };
  for (const p of paths) walk(p);
  return out.sort();
}

/** The largest scenario file read, in bytes (a bigger one is a problem of that file). */
export const MAX_SCENARIO_FILE_BYTES = 8 * 1024 * 1024;
/** The most alias expansions a scenario file may make (YAML anchors `&a` used as `*a`). */
export const MAX_YAML_ALIASES = 100;

type ScenarioFileContents = { scenarios: Scenario[]; tableScenarios: TableScenario[]; problems: ScenarioFileProblem[] };

/**
 * Reads one scenario file. Never throws: every problem (unreadable, too big, bad YAML, an alias
 * bomb, a bad fixture, anything unexpected) is returned with file:line, so the other files of a
 * run still run. A UTF-8 byte-order mark is accepted.
 * @param fixtureDirFor folder of named fixtures for an edition (e.g. test/fixtures/his)
 */
export function readScenarioFile(file: string, fixtureDirFor: (edition: string) => string, root: string = process.cwd()): ScenarioFileContents {
  try {
    return readScenarioFileOrThrow(file, fixtureDirFor, root);
  } catch (e) {
    return { scenarios: [], tableScenarios: [], problems: [{ file, line: 1, message: `cannot read the scenario file: ${String((e as Error)?.message ?? e).split("\n")[0]}` }] };
  }
}

/** A path as a message shows it: control characters and line breaks escaped, at most 200 characters. */
function shown(p: string): string {
  const s = JSON.stringify(p).slice(1, -1);
  return s.length > 200 ? s.slice(0, 200) + "…" : s;
}

/**
 * The text of a scenario file's `fixture`: a path relative to the project `root` (tried first)
 * or a name in the edition's fixture folder, which must stay inside `root` (no absolute path, no
 * `..` out of it, no symbolic link out of it), name a regular file of at most 16 MB, and be UTF-8
 * text (issue 29). A problem is passed to `problem` (its message never quotes the file's
 * contents) and gives undefined.
 */
function readFixture(fixture: string, fixtureDir: string, root: string, problem: (message: string) => void, scenarioFile?: string): { text: string; file: string } | undefined {
  const what = `fixture \`${shown(fixture)}\``;
  const rootShown = path.relative(process.cwd(), root) || ".";
  // relative to the project first, then a name in the fixture folder; the first that exists
  const tries = [resolveConfined(fixture, root, root), resolveConfined(fixture, path.resolve(root, fixtureDir), root)];
  // a scenario file outside the project (a variant's, issue 28): then relative to the file, inside
  // the folder that holds the file's folder (the variant's)
  if (scenarioFile !== undefined && !isInsideDir(path.resolve(scenarioFile), path.resolve(root))) {
    const own = path.dirname(path.dirname(path.resolve(scenarioFile)));
    const t = resolveConfined(fixture, path.dirname(path.resolve(scenarioFile)), own);
    if ("abs" in t && fs.existsSync(t.abs) && !tries.some((x) => "abs" in x && fs.existsSync(x.abs))) {
      root = own;
      tries.unshift(t);
    }
  }
  const inside = tries.flatMap((t) => ("abs" in t ? [t.abs] : []));
  if (!inside.length) {
    const p = (tries[0] as { problem: InputFileProblem }).problem;
    problem(`cannot load ${what}: the path ${describeInputProblem(p, rootShown)} (a fixture is a path inside the project, or a name in \`${fixtureDir}\`)`);
    return undefined;
  }
  const abs = inside.find((a) => fs.existsSync(a)) ?? inside[inside.length - 1]!;
  const fx = path.relative(process.cwd(), abs) || abs;
  const got = readConfinedFile(abs, [root]);
  if ("problem" in got) {
    problem(`cannot load ${what} (\`${shown(fx)}\`): it ${describeInputProblem(got.problem, rootShown)}`);
    return undefined;
  }
  const text = utf8Text(got.buf);
  if (text === undefined) {
    problem(`cannot load ${what} (\`${shown(fx)}\`): it is not UTF-8 text`);
    return undefined;
  }
  return { text, file: fx };
}

function readScenarioFileOrThrow(file: string, fixtureDirFor: (edition: string) => string, root: string): ScenarioFileContents {
  const problems: ScenarioFileProblem[] = [];
  const tableScenarios: TableScenario[] = [];
  let text: string;
  // a regular file (not a device or FIFO a link may point to), read up to the limit
  const got = readConfinedFile(file, undefined, MAX_SCENARIO_FILE_BYTES);
  if ("problem" in got) {
    const p = got.problem;
    const message = p.k === "too-large" ? `the file has ${p.bytes ?? `more than ${MAX_SCENARIO_FILE_BYTES}`} bytes, more than the limit of ${MAX_SCENARIO_FILE_BYTES}; split it into several files`
      : p.k === "not-file" ? "not a regular file" : "cannot read the file";
    return { scenarios: [], tableScenarios, problems: [{ file, line: 1, message }] };
  }
  {
    const decoded = utf8Text(got.buf);
    if (decoded === undefined) return { scenarios: [], tableScenarios, problems: [{ file, line: 1, message: "not UTF-8 text" }] };
    text = stripBom(decoded);
  }
  const lineCounter = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length) {
    return {
      scenarios: [],
      tableScenarios,
      problems: doc.errors.map((e) => ({ file, line: lineCounter.linePos(e.pos[0]).line, message: e.message.split("\n")[0] })),
    };
  }
  let top: Record<string, unknown> | null;
  try {
    top = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as Record<string, unknown> | null;
  } catch (e) {
    let line = 1;
    YAML.visit(doc, {
      Alias(_, node) {
        if (node.range) line = lineCounter.linePos(node.range[0]).line;
        return YAML.visit.BREAK;
      },
    });
    const bomb = /alias/i.test((e as Error).message);
    return {
      scenarios: [],
      tableScenarios,
      problems: [{ file, line, message: bomb ? `the YAML aliases (\`*name\`) expand more than ${MAX_YAML_ALIASES} times: refused (an alias bomb?)` : `cannot read the YAML: ${(e as Error).message.split("\n")[0]}` }],
    };
  }
  if (!isPlainObject(top)) return { scenarios: [], tableScenarios, problems: [{ file, line: 1, message: "expected a mapping with `edition` and `scenarios`" }] };
  const edition = top.edition;
  if (typeof edition !== "string") problems.push({ file, line: 1, message: "missing `edition` (e.g. `edition: his`)" });
  let base: unknown = undefined;
  if (typeof top.fixture === "string" && typeof edition === "string") {
    const fxText = readFixture(top.fixture, fixtureDirFor(edition), root, (message) => problems.push({ file, line: 1, message }), file);
    if (fxText !== undefined) {
      const parsed = parseJson(fxText.text);
      if (parsed.error) problems.push({ file, line: 1, message: `cannot load fixture \`${shown(top.fixture)}\`: ${fxText.file}:${parsed.error.line}:${parsed.error.column}: ${parsed.error.message}` });
      else base = parsed.value;
    }
  }
  const list = Array.isArray(top.scenarios) ? top.scenarios : isPlainObject(top.action) ? [top] : undefined;
  if (!list) {
    problems.push({ file, line: 1, message: "expected `scenarios:` with a list of scenarios" });
    return { scenarios: [], tableScenarios, problems };
  }
  const seqNode = doc.get("scenarios", true) as YAML.YAMLSeq | undefined;
  const scenarios: Scenario[] = [];
  list.forEach((raw, i) => {
    const node = seqNode && YAML.isSeq(seqNode) ? (seqNode.items[i] as YAML.Node | undefined) : undefined;
    const line = node?.range ? lineCounter.linePos(node.range[0]).line : 0;
    if (!isPlainObject(raw)) {
      problems.push({ file, line, message: `scenario ${i + 1} is not a mapping` });
      return;
    }
    const name = typeof raw.name === "string" ? raw.name : `scenario ${i + 1}`;
    if ("table" in raw) {
      const t = readTableScenario(raw, name);
      if (typeof t === "string") problems.push({ file, line, message: `${name}: ${t}` });
      else tableScenarios.push({ file, line, name, ...(typeof raw.source === "string" ? { source: raw.source } : {}), edition: String(edition), ...t });
      return;
    }
    const unknownKeys = Object.keys(raw).filter((k) => !SCENARIO_KEYS.includes(k));
    if (unknownKeys.length) {
      problems.push({ file, line, message: `${name}: unknown key${unknownKeys.length > 1 ? "s" : ""} ${unknownKeys.map((k) => `\`${k}\``).join(", ")} (a scenario has ${SCENARIO_KEYS.map((k) => `\`${k}\``).join(", ")})` });
      return;
    }
    const expect = parseExpect(raw.expect);
    if (typeof expect === "string" && expect !== "allowed") {
      problems.push({ file, line, message: `${name}: ${expect}` });
      return;
    }
    let state: unknown;
    if (raw.state !== undefined) state = raw.state;
    else if (base !== undefined) {
      const typos = patchTypos(base, raw.patch);
      if (typos.length) {
        problems.push({ file, line, message: `${name}: ${typos.join("; ")}` });
        return;
      }
      state = deepMerge(base, raw.patch ?? {});
    }
    else {
      problems.push({ file, line, message: `${name}: needs \`state\`, or a file-level \`fixture\`` });
      return;
    }
    if (!isPlainObject(raw.action)) {
      problems.push({ file, line, message: `${name}: needs \`action\` (e.g. { action: pass, power: france })` });
      return;
    }
    scenarios.push({
      file,
      line,
      name,
      source: typeof raw.source === "string" ? raw.source : undefined,
      edition: String(edition),
      state,
      action: raw.action,
      expect: expect as Expectation,
    });
  });
  return { scenarios, tableScenarios, problems };
}

/**
 * The fields of `patch` that the fixture lacks but that are one small edit away from a field it
 * has at the same place (`phse` beside `phase`): almost surely misspelled, as
 * "`patch` field `a.phse` is not in the fixture: did you mean `phase`?". A new field with no
 * near name (an optional field the fixture leaves out) is not reported. Map keys are checked the
 * same way (`spaces.pariss`).
 */
export function patchTypos(base: unknown, patch: unknown, at = ""): string[] {
  if (!isPlainObject(base) || !isPlainObject(patch)) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(patch)) {
    const here = at ? `${at}.${k}` : k;
    if (k in base) {
      out.push(...patchTypos(base[k], v, here));
      continue;
    }
    const near = closest(k, Object.keys(base));
    if (near !== undefined) out.push(`\`patch\` field \`${here}\` is not in the fixture: did you mean \`${near}\`?`);
  }
  return out;
}

/**
 * The problem of an `expect` that names rule ids the edition does not have, each with its nearest
 * known id: "`expect` names unknown rule id `dow.genao` (did you mean `dow.genoa`?)".
 */
export function unknownRuleIds(unknown: readonly string[], known: Iterable<string>): string {
  const ids = [...known];
  const shown = unknown.map((u) => {
    const near = closest(u, ids);
    return near !== undefined ? `\`${u}\` (did you mean \`${near}\`?)` : `\`${u}\``;
  });
  return `\`expect\` names unknown rule id${unknown.length > 1 ? "s" : ""} ${shown.join(", ")}`;
}

/** The table, inputs and expectation of a table scenario, or what is wrong with it. */
function readTableScenario(raw: Record<string, unknown>, name: string): Pick<TableScenario, "table" | "inputs" | "expect"> | string {
  void name;
  const unknownKeys = Object.keys(raw).filter((k) => !TABLE_SCENARIO_KEYS.includes(k));
  if (unknownKeys.length) {
    return `unknown key${unknownKeys.length > 1 ? "s" : ""} ${unknownKeys.map((k) => `\`${k}\``).join(", ")} (a table scenario has ${TABLE_SCENARIO_KEYS.map((k) => `\`${k}\``).join(", ")})`;
  }
  if (typeof raw.table !== "string") return "`table` names a table of the edition (e.g. `table: exploration`)";
  if (!isPlainObject(raw.inputs)) return "needs `inputs`, one entry per table parameter (e.g. `inputs: { roll: 6, explorer: 3 }`)";
  if (!isPlainObject(raw.expect) || !("result" in raw.expect) || Object.keys(raw.expect).length !== 1) return "`expect` must be `{ result: <value> }`";
  return { table: raw.table, inputs: raw.inputs, expect: { result: raw.expect.result } };
}

/** Compares a table's value with a table scenario's expectation (exact, records field by field). */
export function judgeTable(expect: { result: unknown }, got: unknown): ScenarioOutcome {
  const same = stableJson(expect.result) === stableJson(got);
  return same ? { pass: true, detail: "" } : { pass: false, detail: `expected ${JSON.stringify(expect.result)}, got ${JSON.stringify(got)}` };
}

function parseExpect(e: unknown): Expectation | string {
  if (e === "allowed") return "allowed";
  if (isPlainObject(e)) {
    if (Array.isArray(e.forbidden) && e.forbidden.every((x) => typeof x === "string")) return { forbidden: e.forbidden as string[] };
    if (Array.isArray(e.obliged) && e.obliged.every((x) => typeof x === "string")) return { obliged: e.obliged as string[] };
  }
  return "`expect` must be `allowed`, `{ forbidden: [rule ids] }` or `{ obliged: [rule ids] }`";
}

export interface ScenarioOutcome {
  pass: boolean;
  /** what went wrong, in words; empty when passed */
  detail: string;
}

/**
 * Compares a verdict with a scenario's expectation. `forbidden` is an exact set of violated
 * rule ids; `obliged` requires the action to be allowed and exactly those oblige rules to fire.
 */
export function judge(
  expect: Expectation,
  verdict: { allowed: boolean; violations: readonly { rule: string }[]; obliged: readonly string[] },
): ScenarioOutcome {
  const got = [...new Set(verdict.violations.map((v) => v.rule))].sort();
  if (expect === "allowed") {
    return verdict.allowed ? { pass: true, detail: "" } : { pass: false, detail: `expected allowed, got forbidden by ${got.join(", ")}` };
  }
  if ("forbidden" in expect) {
    const want = [...new Set(expect.forbidden)].sort();
    const same = want.length === got.length && want.every((x, i) => x === got[i]);
    if (same) return { pass: true, detail: "" };
    return { pass: false, detail: `expected forbidden by [${want.join(", ")}], got ${got.length ? `[${got.join(", ")}]` : "allowed"}` };
  }
  const want = [...new Set(expect.obliged)].sort();
  const obl = [...verdict.obliged].sort();
  const same = verdict.allowed && want.length === obl.length && want.every((x, i) => x === obl[i]);
  if (same) return { pass: true, detail: "" };
  return {
    pass: false,
    detail: `expected allowed and obliged by [${want.join(", ")}], got ${verdict.allowed ? "allowed" : `forbidden by [${got.join(", ")}]`}, obliged by [${obl.join(", ")}]`,
  };
}
