// The conformance corpus of this edition (./corpus/: manifest.json, cases.json.gz — the cases as
// gzip'd JSON —, the base states), loaded with each case's state built (base deep-merged with
// patch). Node only (it reads files).
import fs from "node:fs";
import zlib from "node:zlib";

const file = (name) => fs.readFileSync(new URL(`./corpus/${name}`, import.meta.url));
const read = (name) => JSON.parse(name.endsWith(".gz") ? zlib.gunzipSync(file(name)).toString("utf8") : file(name).toString("utf8"));

/** Objects merge key by key; arrays, scalars and null replace. */
export function deepMerge(base, patch) {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  if (base === null || typeof base !== "object" || Array.isArray(base)) base = {};
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = deepMerge(base[k], v);
  return out;
}

/** The manifest and every case, each with its `state`. */
export function loadCorpus() {
  const manifest = read("manifest.json");
  const bases = new Map(manifest.bases.map((b) => [b, read(b)]));
  const cases = read("cases.json.gz").map((c) => ({ ...c, state: deepMerge(bases.get(c.base), c.patch) }));
  return { manifest, cases };
}

/**
 * Runs `check(state, action)` (sync or async) on every case and lists the disagreements; with
 * verdictOnly, only allowed/forbidden is compared, else the violated rule ids too.
 */
export async function runCorpus(check, opts = {}) {
  const { manifest, cases } = loadCorpus();
  const disagreements = [];
  for (const c of cases) {
    let a;
    try {
      a = await check(structuredClone(c.state), c.action);
    } catch (e) {
      disagreements.push({ id: c.id, name: c.name, source: c.source, problems: [`the engine failed: ${e?.message ?? e}`] });
      continue;
    }
    const problems = [];
    if (a?.allowed !== c.expect.allowed) problems.push(`allowed: expected ${c.expect.allowed}, engine ${a?.allowed}`);
    if (!opts.verdictOnly) {
      const ids = [...new Set((a?.violations ?? []).map((v) => (typeof v === "string" ? v : v.rule)))].sort();
      if (ids.join(",") !== c.expect.violations.join(",")) problems.push(`violations: expected [${c.expect.violations.join(", ")}], engine [${ids.join(", ")}]`);
    }
    if (problems.length) disagreements.push({ id: c.id, name: c.name, source: c.source, problems });
  }
  return { edition: manifest.edition, version: manifest.version, total: cases.length, agreed: cases.length - disagreements.length, disagreements };
}
