/**
 * What the report reads from the coverage manifests (dsl/coverage/*.yaml, compiler/coverage):
 * a source's title (from the manifest's header comment, "Coverage of … (<title>)"), and the
 * rulebook order of an edition's rules (the order its manifests list them, paragraph by
 * paragraph, the sources in file-name order), which orders the named sections (Virgin Queen's
 * "Action Phase: Pass") as the rulebook does. Reads files; an unreadable or malformed manifest
 * gives no title and no order (never throws).
 */
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import type { CoverageReport } from "../coverage/index.js";
import { sectionKey } from "./view-helpers.js";

export interface SourceInfo {
  /** "Here I Stand: §9.6 restrictions on declaring war…"; null when the header says none */
  title: string | null;
  /** the header's whole parenthesis ("Here I Stand, Russian translation: §9.6 …, §10 …") */
  about: string | null;
  /** rule ids in the order the manifest's paragraphs list them (first listing only) */
  ruleOrder: string[];
}

const cache = new Map<string, SourceInfo>();

/** A manifest's title and rule order; `manifest` relative to `root` or absolute. */
export function manifestInfo(root: string, manifest: string): SourceInfo {
  const file = path.resolve(root, manifest);
  const hit = cache.get(file);
  if (hit) return hit;
  let info: SourceInfo = { title: null, about: null, ruleOrder: [] };
  try {
    const text = fs.readFileSync(file, "utf8");
    const header = text.split(/\r?\n/).filter((l, i, all) => /^#/.test(l) && all.slice(0, i).every((x) => /^#/.test(x))).map((l) => l.replace(/^#\s?/, "")).join(" ");
    const about = /\(([^()]*)\)/.exec(header)?.[1]?.replace(/\s+/g, " ").trim() ?? null;
    const doc = YAML.parse(text) as { paragraphs?: Record<string, unknown> } | null;
    const order: string[] = [];
    const paras = Object.entries(doc?.paragraphs ?? {}).sort(([a], [b]) => Number(a) - Number(b));
    for (const [, p] of paras) {
      const rules = p && typeof p === "object" && Array.isArray((p as { rules?: unknown }).rules) ? ((p as { rules: unknown[] }).rules) : [];
      for (const r of rules) if (typeof r === "string" && !order.includes(r)) order.push(r);
    }
    info = { title: about ? shortTitle(about) : null, about, ruleOrder: order };
  } catch {
    // no title, no order
  }
  cache.set(file, info);
  return info;
}

/** "Here I Stand, Russian translation: §9.6 restrictions on declaring war, §10 …" → "Here I Stand: §9.6 restrictions on declaring war…" */
function shortTitle(about: string): string {
  const i = about.indexOf(":");
  if (i < 0) return about;
  const game = about.slice(0, i).replace(/,\s*Russian translation$/, "");
  const topics = about.slice(i + 1).trim();
  const first = topics.split(/,\s*/)[0]!;
  return `${game}: ${first}${first.length < topics.length ? "…" : ""}`;
}

/**
 * Each rule id of an edition with its rulebook position (0, 1, …) by the coverage manifests of the
 * first of `editions` that has any (the edition, then its parent: his-500 has none of its own);
 * empty without coverage.
 */
export function ruleRanks(root: string, coverage: CoverageReport | undefined, editions: (string | undefined)[]): Map<string, number> {
  const ranks = new Map<string, number>();
  const own = editions.map((name) => coverage?.editions.find((e) => e.edition === name)?.files ?? []).find((f) => f.length) ?? [];
  const files = [...own].sort((a, b) => a.source.localeCompare(b.source));
  for (const f of files) for (const id of manifestInfo(root, f.manifest).ruleOrder) if (!ranks.has(id)) ranks.set(id, ranks.size);
  return ranks;
}

/**
 * Sections in rulebook order: numbered sections by number (§5.1, §9.6, §10), then named sections
 * by the median rulebook position of their rules (`ranks`, from ruleRanks), those without one by
 * name, then invariants and routes.
 */
export function sortSections<T extends { section: string; ids: string[] }>(sections: T[], ranks: Map<string, number>): T[] {
  // the median position of its rules (one rule also listed under an earlier paragraph does not move the section)
  const rank = (s: T) => {
    const r = s.ids.map((id) => ranks.get(id)).filter((x): x is number => x !== undefined).sort((a, b) => a - b);
    return r.length ? r[Math.floor((r.length - 1) / 2)]! : Infinity;
  };
  const group = (s: T) => sectionKey(s.section)[0]!;
  return [...sections].sort((x, y) => {
    const gx = group(x);
    const gy = group(y);
    if (gx !== gy || gx !== "1") return sectionKey(x.section).localeCompare(sectionKey(y.section), "en", { numeric: true });
    const rx = rank(x);
    const ry = rank(y);
    return rx !== ry ? (rx < ry ? -1 : 1) : x.section.localeCompare(y.section);
  });
}
