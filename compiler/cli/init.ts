/**
 * `rulewright init [dir]`: scaffolds a new edition folder (default `dsl/my-edition`) that builds,
 * proves and tests as it is: `edition.rules` (the edition, its enums and one action), a state
 * schema, a board of two spaces, one rule file with one rule, one scenario file (the rule firing and staying quiet) and a
 * README with the next commands. Nothing in it comes from a rulebook: it is a starting point.
 *
 * Exit codes: 0 written; 2 the folder exists and is not empty, or it cannot be written.
 */
import fs from "node:fs";
import path from "node:path";
import { UsageError, type Format } from "./common.js";

/** The files of a new edition named `name` (a rules identifier) in folder `dir` (as the user gave it), path → content. */
export function scaffoldFiles(dir: string, name: string): Record<string, string> {
  const title = name.split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");
  // the scenario file names its edition by the folder, as `rulewright test` run from here resolves it
  const editionRef = dir.split(path.sep).join("/");
  const edition = `// ${title}: an edition scaffolded by \`rulewright init\`. Replace the enums, the action and the
// rule with your game's (dsl/README.md in the rulewright repository is the language reference).

edition ${name} "${title}" cites "${name}"
schema "state.schema.json"
board "board.json"

// Every enum must match the $defs entry of the same name in state.schema.json.
enum Player { red, blue }

// An action names its actor (the player who takes it) and its parameters.
action pass(actor player: Player)
`;
  const rules = `// The turn: who may pass. Cite your rulebook's section (here §1) and paraphrase it.

rule turn.active_only §1 "only the active player may pass"
  forbid pass when state.active_player != player
`;
  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      active_player: { $ref: "#/$defs/Player" },
      round: { type: "integer", minimum: 1, maximum: 10 },
    },
    required: ["active_player", "round"],
    additionalProperties: false,
    $defs: { Player: { type: "string", enum: ["red", "blue"] } },
  };
  // every edition has a board (its spaces are the enum Space); two spaces to start with
  const board = {
    spaces: [
      { id: "red_home", name: "Red Home", type: "capital", home: ["red"] },
      { id: "blue_home", name: "Blue Home", type: "capital", home: ["blue"] },
    ],
    connections: [{ from: "red_home", to: "blue_home", type: "normal" }],
  };
  const scenarios = `# Scenarios: each runs the generated validators on a state and an action and compares the verdict.
# Every rule should fire in one scenario and stay quiet in another.
edition: ${editionRef}
scenarios:
  - name: "the active player may pass"
    source: ${name} §1
    state: { active_player: red, round: 1 }
    action: { action: pass, player: red }
    expect: allowed
  - name: "turn.active_only fires: the other player may not pass"
    source: ${name} §1
    state: { active_player: red, round: 1 }
    action: { action: pass, player: blue }
    expect: { forbidden: [turn.active_only] }
`;
  const readme = `# ${title}

An edition scaffolded by \`rulewright init\`: \`edition.rules\` declares the edition, its enums and
its actions; \`turn.rules\` holds a rule; \`state.schema.json\` is the state the rules read;
\`board.json\` the board (its spaces are the enum \`Space\`);
\`scenarios/\` holds the scenarios (expected verdicts).

\`\`\`sh
npx rulewright build ${editionRef} --out generated/${name}   # the TypeScript validators
npx rulewright prove ${editionRef}                           # Z3: no rule contradicts another
npx rulewright test ${editionRef}/scenarios                  # the scenarios
\`\`\`
`;
  return {
    "edition.rules": edition,
    "turn.rules": rules,
    "state.schema.json": JSON.stringify(schema, null, 2) + "\n",
    "board.json": JSON.stringify(board, null, 2) + "\n",
    [path.join("scenarios", `${name}.yaml`)]: scenarios,
    "README.md": readme,
  };
}

/** The edition name for a folder: its base name in lower case, runs of other characters as `_`. */
export function editionName(dir: string): string {
  const base = path.basename(path.resolve(dir)).toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  return /^[a-z]/.test(base) ? base : `edition_${base || "new"}`;
}

export async function initCommand(dirArg: string | undefined, opts: { format: Format }): Promise<number> {
  const dir = path.normalize(dirArg ?? path.join("dsl", "my-edition"));
  if (fs.existsSync(dir) && (!fs.statSync(dir).isDirectory() || fs.readdirSync(dir).length > 0)) {
    throw new UsageError(`\`${dir}\` already exists and is not an empty folder`, 2, "name a new folder: `rulewright init <dir>`");
  }
  const name = editionName(dir);
  const files = scaffoldFiles(dir, name);
  try {
    for (const [rel, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), content);
    }
  } catch (e) {
    throw new UsageError(`cannot write \`${dir}\`: ${(e as Error).message}`, 2);
  }
  const written = Object.keys(files).map((f) => path.join(dir, f));
  if (opts.format === "json") {
    process.stdout.write(JSON.stringify({ edition: name, dir, files: written }, null, 2) + "\n");
  } else {
    const ref = dir.split(path.sep).join("/");
    process.stdout.write(`${name}: written ${dir}/ (${written.length} files)\n`);
    process.stdout.write(`next:\n  npx rulewright build ${ref} --out generated/${name}\n  npx rulewright prove ${ref}\n  npx rulewright test ${ref}/scenarios\n`);
  }
  return 0;
}
