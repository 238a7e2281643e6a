/**
 * `npm run board-layout`: derives the positions the rulebook report draws the Here I Stand board
 * at (compiler/report/layout/his.json) from the real geography of its spaces.
 *
 * Input: compiler/report/layout/his-geo.csv — `name,lat,lon` per board space (the space's city,
 * or for a region and a sea zone a point inside it; degrees, WGS84; a geographic fact, rounded
 * to 0.01°), and dsl/his/board.json (the space ids and names). Steps: the points are projected
 * with d3-geo's conic conformal projection fitted to a 1200 × 900 box, then d3-force moves
 * spaces that would overlap apart (collision radius 15 px, each pulled back to its projected
 * point) for 300 deterministic ticks. Output: `{ width, height, positions: { <space id>: [x, y] } }`,
 * pixels, rounded to 0.1. Exits 1 naming any board space without a row or any row without a space.
 */
import fs from "node:fs";
import { geoConicConformal } from "d3-geo";
import { forceCollide, forceSimulation, forceX, forceY, type SimulationNodeDatum } from "d3-force";

const WIDTH = 1200;
const HEIGHT = 900;
const board = JSON.parse(fs.readFileSync("dsl/his/board.json", "utf8")) as { spaces: { id: string; name: string }[] };
const rows = fs.readFileSync("compiler/report/layout/his-geo.csv", "utf8").trim().split(/\r?\n/).slice(1).map((l) => {
  const [name, lat, lon] = l.split(",");
  return { name, lat: Number(lat), lon: Number(lon) };
});
const byName = new Map(rows.map((r) => [r.name, r]));
const problems = [
  ...board.spaces.filter((s) => !byName.has(s.name)).map((s) => `no row for space ${s.name}`),
  ...rows.filter((r) => !board.spaces.some((s) => s.name === r.name)).map((r) => `row ${r.name} names no space`),
];
if (problems.length) {
  process.stderr.write(problems.join("\n") + "\n");
  process.exit(1);
}
const points = { type: "MultiPoint" as const, coordinates: rows.map((r) => [r.lon, r.lat]) };
const projection = geoConicConformal().parallels([38, 52]).rotate([-10, 0]).fitExtent([[30, 30], [WIDTH - 30, HEIGHT - 30]], points);
interface Node extends SimulationNodeDatum { id: string; tx: number; ty: number }
const nodes: Node[] = board.spaces.map((s) => {
  const r = byName.get(s.name)!;
  const [x, y] = projection([r.lon, r.lat])!;
  return { id: s.id, tx: x, ty: y, x, y };
});
const sim = forceSimulation(nodes)
  .force("collide", forceCollide<Node>(15).strength(0.8))
  .force("x", forceX<Node>((n) => n.tx).strength(0.25))
  .force("y", forceY<Node>((n) => n.ty).strength(0.25))
  .stop();
sim.tick(300);
const positions: Record<string, [number, number]> = {};
for (const n of nodes) positions[n.id] = [Math.round(n.x! * 10) / 10, Math.round(n.y! * 10) / 10];
const out = { derived: "scripts/board-layout.ts from compiler/report/layout/his-geo.csv (d3-geo conic conformal + d3-force collision)", width: WIDTH, height: HEIGHT, positions };
fs.writeFileSync("compiler/report/layout/his.json", JSON.stringify(out, null, 1) + "\n");
process.stdout.write(`wrote compiler/report/layout/his.json (${nodes.length} spaces)\n`);
