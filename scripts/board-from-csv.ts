/**
 * Generates dsl/his/board.json from the shared Here I Stand map data (../shared/maps/his/*.csv,
 * MIT, (c) 2022 Martin Eden: see dsl/his/BOARD.md) and refreshes `$defs.Space` in
 * dsl/his/state.schema.json (and the `required` list of its `spaces` map) so the schema's Space
 * enum is exactly the board's ids.
 *
 *   npx tsx scripts/board-from-csv.ts [--check]
 *
 * --check: write nothing, exit 1 when board.json or the schema's Space enum is out of date.
 * Paths are resolved from the repo root (the parent of this scripts/ folder).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const csvDir = path.resolve(repoRoot, "../shared/maps/his");
const boardFile = path.join(repoRoot, "dsl/his/board.json");
const schemaFile = path.join(repoRoot, "dsl/his/state.schema.json");

export type SpaceType = "normal" | "key" | "fortress" | "capital" | "electorate" | "sea";
export type ConnType = "normal" | "pass" | "port" | "sea";

/**
 * Space id from a printed name: accents dropped (NFD, combining marks removed), lower case,
 * every run of other characters becomes one `_`, no leading/trailing `_`.
 * "St. Quentin" → st_quentin, "Orléans" → orleans, "Lübeck" → lubeck, "Gulf of Lyon" → gulf_of_lyon.
 */
export function spaceId(name: string): string {
  return name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** The CSV's home_power column → power ids of the rules (`hungary` is Power `hungary_bohemia`). */
export function homePowers(col: string): string[] {
  if (col === "independent" || col === "sea") return [];
  return col.split("/").map((p) => (p === "hungary" ? "hungary_bohemia" : p));
}

function readCsv(file: string): string[][] {
  const lines = fs.readFileSync(file, "utf8").split(/\r?\n/).filter((l) => l.trim() !== "");
  return lines.slice(1).map((l) => l.split(",").map((c) => c.trim()));
}

export function buildBoard(dir = csvDir) {
  const spaces = readCsv(path.join(dir, "spaces.csv")).map(([name, type, home]) => ({
    id: spaceId(name!),
    name: name!,
    type: type as SpaceType,
    home: homePowers(home!),
  }));
  const ids = new Set<string>();
  for (const s of spaces) {
    if (ids.has(s.id)) throw new Error(`duplicate space id ${s.id}`);
    ids.add(s.id);
  }
  const byName = new Map(spaces.map((s) => [s.name, s.id]));
  const connections = readCsv(path.join(dir, "connections.csv")).map(([from, to, type]) => {
    const f = byName.get(from!);
    const t = byName.get(to!);
    if (!f || !t) throw new Error(`connection ${from} - ${to}: unknown space`);
    return { from: f, to: t, type: type as ConnType };
  });
  return { spaces, connections };
}

function main() {
  const check = process.argv.includes("--check");
  const board = buildBoard();
  // one space / one connection per line: diffs stay readable
  const boardText =
    '{\n  "spaces": [\n' +
    board.spaces.map((s) => "    " + JSON.stringify(s)).join(",\n") +
    '\n  ],\n  "connections": [\n' +
    board.connections.map((c) => "    " + JSON.stringify(c)).join(",\n") +
    "\n  ]\n}\n";
  let stale = false;
  const oldBoard = fs.existsSync(boardFile) ? fs.readFileSync(boardFile, "utf8") : "";
  if (oldBoard !== boardText) {
    stale = true;
    if (!check) fs.writeFileSync(boardFile, boardText);
  }
  if (fs.existsSync(schemaFile)) {
    const schemaText = fs.readFileSync(schemaFile, "utf8");
    const schema = JSON.parse(schemaText);
    schema.$defs ??= {};
    schema.$defs.Space = { type: "string", enum: board.spaces.map((s) => s.id) };
    // the `spaces` map of the state is keyed by Space: every id is required
    if (schema.properties?.spaces) schema.properties.spaces.required = board.spaces.map((s) => s.id);
    const next = JSON.stringify(schema, null, 2) + "\n";
    if (next !== schemaText) {
      stale = true;
      if (!check) fs.writeFileSync(schemaFile, next);
    }
  }
  if (check && stale) {
    console.error("dsl/his/board.json or the schema's Space enum is out of date: run npx tsx scripts/board-from-csv.ts");
    process.exit(1);
  }
  if (!check) console.log(`board: ${board.spaces.length} spaces, ${board.connections.length} connections`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
