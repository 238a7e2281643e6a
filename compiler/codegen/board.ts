/**
 * generated/<edition>/board.ts: the board as constant tables indexed by space number, the
 * board builtins of the language over them, and the scratch buffers of the route searches.
 *
 * Space numbers follow `board.spaces` order (the order of the `Space` enum). Adjacency lists are
 * split by connection type, both directions, sorted by space number:
 * - LAND_ADJ: normal connections between two land spaces
 * - PASS_ADJ: pass connections between two land spaces
 * - PORT_ADJ: port connections (land → its sea zones, sea zone → its ports)
 * - SEA_ADJ:  sea connections between two sea zones
 */
import { jsString } from "./escape.js";
import { boardDistances, unreachableDistance } from "../ir/board.js";
import { F_CAPITAL, F_ELECTORATE, F_FORTIFIED, F_KEY, F_PORT, F_SEA, type BoardTables } from "./board-tables.js";
import type { EditionContext } from "./context.js";
import { header } from "./header.js";

function table(name: string, doc: string, type: string, t: BoardTables, cell: (i: number) => string): string {
  const rows = t.ids.map((id, i) => `  /* ${i} ${id} */ ${cell(i)},`);
  return `/** ${doc} */\nexport const ${name}: ${type} = [\n${rows.join("\n")}\n];`;
}

const nums = (xs: number[]): string => `[${xs.join(", ")}]`;
const names = (t: BoardTables, xs: number[]): string => `[${xs.map((x) => jsString(t.ids[x]!)).join(", ")}]`;

/** The statements of board.ts (strings, written as they are). */
export function boardStatements(cx: EditionContext): string[] {
  const { ir, board: t } = cx;
  const s: string[] = [];
  s.push(header(ir, `The ${ir.title} board as constant tables (from board.json).`));
  s.push(`import type { Space } from "./state.js";`);
  s.push(
    [
      `/** Number of spaces (land spaces and sea zones). */`,
      `export const SPACE_COUNT = ${t.ids.length};`,
      `/** Number of sea zones. */`,
      `export const SEA_COUNT = ${t.seaCount};`,
      "",
      `export const F_SEA = ${F_SEA};`,
      `export const F_PORT = ${F_PORT};`,
      `export const F_FORTIFIED = ${F_FORTIFIED};`,
      `export const F_KEY = ${F_KEY};`,
      `export const F_ELECTORATE = ${F_ELECTORATE};`,
      `export const F_CAPITAL = ${F_CAPITAL};`,
    ].join("\n"),
  );
  s.push(`/** Space ids by space number. */\nexport const SPACES: readonly Space[] = [\n${t.ids.map((id, i) => `  /* ${i} */ ${jsString(id)},`).join("\n")}\n];`);
  s.push(
    `/** Space number by id. */\nexport const SPACE_INDEX: { readonly [S in Space]: number } = {\n${t.ids
      .map((id, i) => `  ${/^[A-Za-z_$][\w$]*$/.test(id) ? id : jsString(id)}: ${i},`)
      .join("\n")}\n};`,
  );
  // the builtins and the route searches look spaces up here: a Map finds a key in a few
  // nanoseconds, where a keyed read of a 148-property object takes several times longer
  s.push(
    `/** Space number by id, as a Map (what the board builtins and the route searches read). */\nconst SPACE_NO: ReadonlyMap<string, number> = new Map(SPACES.map((s, i) => [s, i]));\n\n/** The number of space \`s\`. */\nexport function spaceNo(s: Space): number {\n  return SPACE_NO.get(s)!;\n}`,
  );
  s.push(table("FLAGS", "F_* bits by space number.", "readonly number[]", t, (i) => String(t.flags[i])));
  s.push(table("HOME", "Home powers by space number.", "readonly (readonly string[])[]", t, (i) => `[${t.home[i]!.map((p) => jsString(p)).join(", ")}]`));
  s.push(table("LAND_ADJ", "Normal connections between land spaces.", "readonly (readonly number[])[]", t, (i) => nums(t.land[i]!)));
  s.push(table("PASS_ADJ", "Mountain-pass connections between land spaces.", "readonly (readonly number[])[]", t, (i) => nums(t.pass[i]!)));
  s.push(table("PORT_ADJ", "Port connections: a port's sea zones, a sea zone's ports.", "readonly (readonly number[])[]", t, (i) => nums(t.port[i]!)));
  s.push(table("SEA_ADJ", "Sea connections between sea zones.", "readonly (readonly number[])[]", t, (i) => nums(t.sea[i]!)));
  s.push(table("ADJ", "Every connection, any type.", "readonly (readonly number[])[]", t, (i) => nums(t.any[i]!)));
  s.push(table("NEIGHBORS", "`neighbors(s)`: every space connected to s.", "readonly (readonly Space[])[]", t, (i) => names(t, t.any[i]!)));
  s.push(table("PORTS_OF", "`ports_of(z)`: the ports on sea zone z (empty for land).", "readonly (readonly Space[])[]", t, (i) => (t.flags[i]! & F_SEA ? names(t, t.port[i]!) : "[]")));
  s.push(table("SEA_ZONES_OF", "`sea_zones_of(q)`: the sea zones port q touches (empty for sea zones).", "readonly (readonly Space[])[]", t, (i) => (t.flags[i]! & F_SEA ? "[]" : names(t, t.port[i]!))));
  s.push(
    [
      `export function isLand(s: Space): boolean {\n  return (FLAGS[spaceNo(s)]! & F_SEA) === 0;\n}`,
      `export function isSea(s: Space): boolean {\n  return (FLAGS[spaceNo(s)]! & F_SEA) !== 0;\n}`,
      `export function isPort(s: Space): boolean {\n  return (FLAGS[spaceNo(s)]! & F_PORT) !== 0;\n}`,
      `export function isFortified(s: Space): boolean {\n  return (FLAGS[spaceNo(s)]! & F_FORTIFIED) !== 0;\n}`,
      `export function isKey(s: Space): boolean {\n  return (FLAGS[spaceNo(s)]! & F_KEY) !== 0;\n}`,
      `export function isElectorate(s: Space): boolean {\n  return (FLAGS[spaceNo(s)]! & F_ELECTORATE) !== 0;\n}`,
      `export function isCapital(s: Space, p: string): boolean {\n  const i = spaceNo(s);\n  return (FLAGS[i]! & F_CAPITAL) !== 0 && HOME[i]!.includes(p);\n}`,
      `export function isHome(s: Space, p: string): boolean {\n  return HOME[spaceNo(s)]!.includes(p);\n}`,
      `export function adjacent(a: Space, b: Space): boolean {\n  return ADJ[spaceNo(a)]!.includes(spaceNo(b));\n}`,
      `export function passBetween(a: Space, b: Space): boolean {\n  return PASS_ADJ[spaceNo(a)]!.includes(spaceNo(b));\n}`,
      `export function portOn(q: Space, z: Space): boolean {\n  const i = spaceNo(q);\n  return (FLAGS[i]! & F_SEA) === 0 && (FLAGS[spaceNo(z)]! & F_SEA) !== 0 && PORT_ADJ[i]!.includes(spaceNo(z));\n}`,
      `export function portsOf(z: Space): readonly Space[] {\n  return PORTS_OF[spaceNo(z)]!;\n}`,
      `export function seaZonesOf(q: Space): readonly Space[] {\n  return SEA_ZONES_OF[spaceNo(q)]!;\n}`,
      `export function neighbors(s: Space): readonly Space[] {\n  return NEIGHBORS[spaceNo(s)]!;\n}`,
    ].join("\n\n"),
  );
  if (cx.usesDistance) {
    // only editions whose rules call `distance` carry the matrix (148² numbers in Here I Stand)
    const d = boardDistances(ir.board, t.ids);
    s.push(
      table(
        "DISTANCE",
        `\`distance(a, b)\`: connections on a shortest path from space a to space b, any connection type (a sea zone counts as a space); ${unreachableDistance(t.ids.length)} (SPACE_COUNT) when no path joins them.`,
        "readonly (readonly number[])[]",
        t,
        (i) => nums(d[i]!),
      ),
    );
    s.push(`export function distance(a: Space, b: Space): number {\n  return DISTANCE[spaceNo(a)]![spaceNo(b)]!;\n}`);
  }
  s.push(
    [
      `/**`,
      ` * Working memory of one route search: the fewest sea zones used to reach each space`,
      ` * (0x7fffffff, unreached, everywhere between searches: a search resets the spaces it queued),`,
      ` * a FIFO queue of (space, sea zones used) and per-space memos of the route's clauses. A memo`,
      ` * entry is the memo's stamp (a multiple of 4) plus 1 (the clause holds) or 2 (it fails); an`,
      ` * entry with another stamp is unknown, so a new stamp (\`newStamp\`) forgets them all at once.`,
      ` * Allocated once per route and reused; a nested search of the same route (a clause that`,
      ` * searches it again) gets a fresh one. A clause's memo is kept from one search to the next`,
      ` * while the call of the validators (\`<clause>Call\`, -1 never matches) and the clause's`,
      ` * arguments (\`<clause>Args\`) are the same. A clause that compares the searched space with a`,
      ` * route parameter is tested inline, and the parts between those comparisons are memoized on`,
      ` * their own (\`part[j]\`, \`partStamp[j]\`, \`partCall[j]\`, \`partArgs[j]\`), so a part that reads`,
      ` * fewer parameters is kept across searches whose other arguments differ.`,
      ` */`,
      `export interface RouteScratch {`,
      `  busy: boolean;`,
      `  best: Int32Array;`,
      `  queueSpace: Int32Array;`,
      `  queueSeas: Int32Array;`,
      `  land: Int32Array;`,
      `  sea: Int32Array;`,
      `  port: Int32Array;`,
      `  landStamp: number;`,
      `  seaStamp: number;`,
      `  portStamp: number;`,
      `  landCall: number;`,
      `  seaCall: number;`,
      `  portCall: number;`,
      `  landArgs: unknown[];`,
      `  seaArgs: unknown[];`,
      `  portArgs: unknown[];`,
      `  part: Int32Array[];`,
      `  partStamp: number[];`,
      `  partCall: number[];`,
      `  partArgs: unknown[][];`,
      `}`,
      ``,
      `/** A route's working memory, with \`parts\` memos of clause parts (see RouteScratch). */`,
      `export function newRouteScratch(parts = 0): RouteScratch {`,
      `  // with pruning, a space is queued at most once per distinct sea count 0..SEA_COUNT`,
      `  const cap = SPACE_COUNT * (SEA_COUNT + 1) + 1;`,
      `  return {`,
      `    busy: false,`,
      `    best: new Int32Array(SPACE_COUNT).fill(0x7fffffff),`,
      `    queueSpace: new Int32Array(cap),`,
      `    queueSeas: new Int32Array(cap),`,
      `    land: new Int32Array(SPACE_COUNT),`,
      `    sea: new Int32Array(SPACE_COUNT),`,
      `    port: new Int32Array(SPACE_COUNT),`,
      `    landStamp: 4,`,
      `    seaStamp: 4,`,
      `    portStamp: 4,`,
      `    landCall: -1,`,
      `    seaCall: -1,`,
      `    portCall: -1,`,
      `    landArgs: [],`,
      `    seaArgs: [],`,
      `    portArgs: [],`,
      `    part: Array.from({ length: parts }, () => new Int32Array(SPACE_COUNT)),`,
      `    partStamp: Array.from({ length: parts }, () => 4),`,
      `    partCall: Array.from({ length: parts }, () => -1),`,
      `    partArgs: Array.from({ length: parts }, (): unknown[] => []),`,
      `  };`,
      `}`,
      ``,
      `/** The stamp after \`stamp\` for a clause memo: every entry unknown again (the memo is cleared when the stamps run out). */`,
      `export function newStamp(stamp: number, memo: Int32Array): number {`,
      `  if (stamp < 0x3ffffff8) return stamp + 4;`,
      `  memo.fill(0);`,
      `  return 4;`,
      `}`,
    ].join("\n"),
  );
  return s;
}
