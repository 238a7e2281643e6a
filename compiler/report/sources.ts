/**
 * A rulebook source's title for the report (issue 25: sources named by title, not by their
 * hashed file name), read from its coverage manifest's header comment ("Coverage of … (<title>)",
 * dsl/coverage/*.yaml), with the rules the manifest lists in paragraph order. Reads files; an
 * unreadable or malformed manifest gives no title and no rules (never throws).
 */
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";

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
