/**
 * Writes the rulebook report as a static site: `<out>/index.html`, one self-contained page (the
 * data as JSON, the client script, minisearch and the board layout inlined) that opens from the
 * file system with no server and makes no network request. Hash routes: `#/` overview,
 * `#/e/<edition>` sections (`#/e/<edition>/<n>` at its n-th section), `#/r/<edition>/<id>` a rule,
 * `#/o/<edition>/<obligation>` an obligation with its example on the board, `#/d/<n>/<action>/<i>`
 * a diff state, `#/s/<file:line>` a scenario, `#/a/<kind>` an analysis; any other a "not found" page.
 * The page script is board.js, search.js and client.js, inlined in that order.
 *
 * Errors: an unwritable `out` folder throws the file system's error (the CLI reports it).
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { SiteData } from "./data.js";
import { shareSubtrees } from "./shared-json.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The board layout of compiler/report/layout/his.json (scripts/board-layout.ts). */
export interface Layout {
  width: number;
  height: number;
  positions: Record<string, [number, number]>;
}

export function readLayout(): Layout {
  return JSON.parse(fs.readFileSync(path.join(here, "layout", "his.json"), "utf8")) as Layout;
}

/** JSON safe inside a <script> element. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** The page script: board.js (the global RWBoard), search.js (RWSearch) and client.js, which uses both, in that order. */
export function pageScript(): string {
  return ["board.js", "search.js", "client.js"].map((f) => fs.readFileSync(path.join(here, f), "utf8")).join("\n");
}

/** The page's HTML for this data. */
export function renderSite(data: SiteData, layout: Layout): string {
  // the UMD build (defines the global MiniSearch); not in the package's exports, so found beside its package.json
  const minisearch = fs.readFileSync(path.join(path.dirname(require.resolve("minisearch")), "..", "umd", "index.js"), "utf8");
  const client = pageScript();
  const css = fs.readFileSync(path.join(here, "style.css"), "utf8");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rulewright — rulebook report</title>
<style>${css}</style>
</head>
<body>
<header><a href="#/" class="brand">rulewright report</a><nav id="editions" aria-label="editions"></nav><div class="search-box" role="search"><input id="search" type="search" placeholder="Search rules, §9.6, obligations…" aria-label="search rules, citations and proof obligations" aria-controls="results" autocomplete="off"><div id="results"></div></div></header>
<main id="main"></main>
<script id="data" type="application/json">${scriptJson(shareSubtrees(data))}</script>
<script id="layout" type="application/json">${scriptJson(layout)}</script>
<script>${minisearch.replace(/<\/script/gi, "<\\/script")}</script>
<script>${client.replace(/<\/script/gi, "<\\/script")}</script>
</body>
</html>
`;
}

/** Writes `<out>/index.html`; returns its path and size in bytes. */
export function writeSite(out: string, data: SiteData, layout: Layout): { file: string; bytes: number } {
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, "index.html");
  const html = renderSite(data, layout);
  fs.writeFileSync(file, html);
  return { file, bytes: Buffer.byteLength(html) };
}
