/**
 * The Here I Stand edition's data files against their sources:
 * - dsl/his/board.json against the shared map CSVs (../shared/maps/his/, resolved from the repo
 *   root): same spaces, types, home powers and connections; 134 land spaces, 14 sea zones,
 *   16 mountain passes; the ports;
 * - dsl/his/state.schema.json: its Space enum is the board's ids; the fixture
 *   test/fixtures/his/base-state.json and every scenario state (fixture + patch) validate.
 * The CSVs are parsed here independently of scripts/board-from-csv.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import YAML from "yaml";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const csvDir = path.resolve(repoRoot, "../shared/maps/his");
const readJson = (p: string) => JSON.parse(fs.readFileSync(path.join(repoRoot, p), "utf8"));

interface Space { id: string; name: string; type: string; home: string[] }
interface Conn { from: string; to: string; type: string }
const board: { spaces: Space[]; connections: Conn[] } = readJson("dsl/his/board.json");

function csv(name: string): string[][] {
  return fs
    .readFileSync(path.join(csvDir, name), "utf8")
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .slice(1)
    .map((l) => l.split(",").map((c) => c.trim()));
}
/** the id rule of dsl/his/BOARD.md */
const idOf = (name: string) =>
  name.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "");
const homeOf = (h: string) => (h === "independent" || h === "sea" ? [] : h.split("/").map((p) => (p === "hungary" ? "hungary_bohemia" : p)));

const csvSpaces = csv("spaces.csv");
const csvConns = csv("connections.csv");

/** the 58 ports of the map (land spaces with a port connection), by id */
const PORTS = [
  "algiers", "amsterdam", "ancona", "antwerp", "athens", "barcelona", "bastia", "berwick", "bordeaux",
  "boulogne", "bremen", "brest", "bristol", "cagliari", "calais", "candia", "cartagena", "corfu", "coron",
  "corunna", "durazzo", "edinburgh", "genoa", "gibraltar", "glasgow", "hamburg", "istanbul", "lepanto",
  "london", "lubeck", "malta", "marseille", "messina", "nantes", "naples", "nice", "norwich", "oran",
  "palermo", "palma", "plymouth", "portsmouth", "ragusa", "ravenna", "rhodes", "rome", "rouen", "salonika",
  "scutari", "seville", "stettin", "taranto", "trieste", "tripoli", "tunis", "valencia", "varna", "venice",
];

describe("his board.json against ../shared/maps/his/*.csv", () => {
  it("has the CSV's spaces, in order, with their ids, types and home powers", () => {
    expect(board.spaces.map((s) => s.name)).toEqual(csvSpaces.map((r) => r[0]));
    expect(board.spaces).toEqual(csvSpaces.map(([name, type, home]) => ({ id: idOf(name!), name, type, home: homeOf(home!) })));
  });

  it("has unique snake_case ascii ids", () => {
    const ids = board.spaces.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
    expect(ids).toContain("st_quentin");
    expect(ids).toContain("orleans");
    expect(ids).toContain("gulf_of_lyon");
  });

  it("has exactly the CSV's connections (both directions, as in the CSV)", () => {
    const key = (c: Conn) => `${c.from}|${c.to}|${c.type}`;
    const want = csvConns.map(([f, t, ty]) => `${idOf(f!)}|${idOf(t!)}|${ty}`).sort();
    expect(board.connections.map(key).sort()).toEqual(want);
    const all = new Set(board.connections.map(key));
    for (const c of board.connections) expect(all.has(`${c.to}|${c.from}|${c.type}`)).toBe(true);
  });

  it("has 134 land spaces, 14 sea zones and 16 mountain passes", () => {
    const land = board.spaces.filter((s) => s.type !== "sea");
    expect(land.length).toBe(134);
    expect(board.spaces.filter((s) => s.type === "sea").length).toBe(14);
    const count = (t: string) => land.filter((s) => s.type === t).length;
    expect([count("normal"), count("key"), count("fortress"), count("capital"), count("electorate")]).toEqual([86, 27, 9, 6, 6]);
    const passes = new Set(board.connections.filter((c) => c.type === "pass").map((c) => [c.from, c.to].sort().join("|")));
    expect(passes.size).toBe(16);
  });

  it("has the two shared hapsburg/ottoman spaces and independent spaces with no home power", () => {
    expect(board.spaces.filter((s) => s.home.length === 2).map((s) => [s.id, s.home])).toEqual([
      ["oran", ["hapsburg", "ottoman"]],
      ["tripoli", ["hapsburg", "ottoman"]],
    ]);
    expect(board.spaces.find((s) => s.id === "milan")!.home).toEqual([]);
    expect(board.spaces.find((s) => s.id === "buda")!.home).toEqual(["hungary_bohemia"]);
    const capitals = board.spaces.filter((s) => s.type === "capital").map((s) => [s.id, s.home[0]]);
    expect(capitals).toEqual([
      ["london", "england"], ["paris", "france"], ["valladolid", "hapsburg"],
      ["vienna", "hapsburg"], ["rome", "papacy"], ["istanbul", "ottoman"],
    ]);
  });

  it("lists the ports: land spaces with a port connection to a sea zone", () => {
    const type = new Map(board.spaces.map((s) => [s.id, s.type]));
    const ports = [...new Set(board.connections.filter((c) => c.type === "port" && type.get(c.from) !== "sea").map((c) => c.from))].sort();
    expect(ports).toEqual(PORTS);
    for (const c of board.connections.filter((c) => c.type === "port")) {
      expect([type.get(c.from) === "sea", type.get(c.to) === "sea"].sort()).toEqual([false, true]);
    }
    for (const c of board.connections.filter((c) => c.type === "sea")) {
      expect([type.get(c.from), type.get(c.to)]).toEqual(["sea", "sea"]);
    }
  });
});

describe("his state schema, fixture and scenario states", () => {
  const schema = readJson("dsl/his/state.schema.json");
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ allErrors: true, strict: true, strictRequired: false });
  const validate = ajv.compile(schema);
  const fixture = readJson("test/fixtures/his/base-state.json");

  it("has the board's ids as $defs.Space and as the keys of the `spaces` map", () => {
    const ids = board.spaces.map((s) => s.id);
    expect(schema.$defs.Space.enum).toEqual(ids);
    expect(schema.properties.spaces.required).toEqual(ids);
  });

  it("requires every property of every record and allows no other", () => {
    const walk = (s: Record<string, unknown>) => {
      if (s.type === "object" && s.properties) {
        expect(s.additionalProperties).toBe(false);
        expect([...(s.required as string[])].sort()).toEqual(Object.keys(s.properties as object).sort());
      }
      for (const v of Object.values(s)) if (v && typeof v === "object" && !Array.isArray(v)) walk(v as Record<string, unknown>);
    };
    walk(schema);
  });

  it("validates the fixture", () => {
    const ok = validate(fixture);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  const dir = path.join(repoRoot, "test/scenarios/his");
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort() : [];
  const merge = (base: unknown, patch: unknown): unknown => {
    const obj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
    if (obj(base) && obj(patch)) {
      const out: Record<string, unknown> = { ...base };
      for (const [k, v] of Object.entries(patch)) out[k] = k in base ? merge(base[k], v) : v;
      return out;
    }
    return structuredClone(patch);
  };
  const spaceIds = new Set(board.spaces.map((s) => s.id));
  for (const f of files) {
    it(`scenario states of ${f} validate and name real spaces`, () => {
      const doc = YAML.parse(fs.readFileSync(path.join(dir, f), "utf8"));
      expect(doc.edition).toBe("his");
      for (const sc of doc.scenarios) {
        if (sc.table) continue; // a table scenario has inputs, no state
        const state = sc.state ?? merge(fixture, sc.patch ?? {});
        const ok = validate(state);
        expect({ name: sc.name, errors: validate.errors ?? [] }).toEqual({ name: sc.name, errors: [] });
        expect(ok).toBe(true);
        for (const k of ["origin", "destination"]) if (k in sc.action) expect(spaceIds.has(sc.action[k])).toBe(true);
      }
    });
  }
});
