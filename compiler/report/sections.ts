/**
 * The order of an edition's sections on the report's pages (issue 25): numbered sections by
 * number, named ones in rulebook order (from the coverage manifests), then invariants and routes.
 */
import fs from "node:fs";
import path from "node:path";
import type { IREdition } from "../ir/types.js";
import { readManifest, type Manifest } from "../coverage/manifest.js";
import { rulebookRanks, sectionKey } from "./view-helpers.js";

/**
 * An edition's sections in order: numbered ones by number; named ones (Virgin Queen's) in
 * rulebook order — by the first source paragraph naming one of their declarations in the coverage
 * manifests of the edition (or of its parent) under `<root>/dsl/coverage/` — and those no
 * manifest names after them by name; then invariants and routes.
 */
export function sortSections(manifests: Manifest[], ir: Pick<IREdition, "name" | "folder" | "parent">, sections: Map<string, string[]>): { section: string; ids: string[] }[] {
  const own = rulebookRanks(sections, manifests, ir.folder ?? ir.name);
  const ranks = own.size || !ir.parent ? own : rulebookRanks(sections, manifests, ir.parent);
  const key = (s: string) => sectionKey(s);
  return [...sections]
    .map(([section, ids]) => ({ section, ids }))
    .sort((x, y) => {
      const [kx, ky] = [key(x.section), key(y.section)];
      if (kx[0] === "1" && ky[0] === "1") {
        const [rx, ry] = [ranks.get(x.section) ?? Infinity, ranks.get(y.section) ?? Infinity];
        if (rx !== ry) return rx < ry ? -1 : 1;
      }
      return kx.localeCompare(ky, "en", { numeric: true });
    });
}

/** The coverage manifests under `<root>/dsl/coverage/` that parse (none when there is no such folder). */
export function readManifests(root: string): Manifest[] {
  const dir = path.join(root, "dsl", "coverage");
  if (!fs.existsSync(dir)) return [];
  const out: Manifest[] = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".yaml")).sort()) {
    const { manifest } = readManifest(path.join(dir, f), fs.readFileSync(path.join(dir, f), "utf8"));
    if (manifest) out.push(manifest);
  }
  return out;
}

