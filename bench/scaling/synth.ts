/**
 * Synthetic rulebooks for the scaling benchmark, generated from a real edition's rule files.
 *
 * A k× rulebook holds k copies of the chosen rule files. Copy 0 is the edition as written; copy i
 * (i ≥ 1) renames every action it uses to `<action>_c<i>` (declared with the same parameters),
 * every rule and exemption id to `c<i>.<id>` and every exemption group `(g)` to `(g_c<i>)`, so the
 * copies touch disjoint actions. Oblige rules are copied only once (in copy 0): an oblige rule
 * constrains every action of its actor (docs/CONTRACTS.md), so a copied one would not be disjoint.
 *
 * The declarations file (the one with `edition`), the schema and the board are shared by all
 * copies; the edition is renamed `synth_<k>x`. Text in, text out: nothing here parses the language.
 */
import fs from "node:fs";
import path from "node:path";

export interface SynthOptions {
  /** the real edition folder, e.g. dsl/his */
  from: string;
  /** rule files (besides the declarations file) to copy, e.g. ["war.rules", "pass.rules"] */
  files: string[];
  /** number of copies (1 = the real rules) */
  copies: number;
  /** where to write the edition folder (created; must not exist) */
  out: string;
  /** lower every `maxItems` of the schema to at most this (a reduced prover configuration), if set */
  maxItems?: number;
  /** leave out the edition's invariants (a reduced prover configuration: every obligation assumes them all) */
  dropInvariants?: boolean;
}

const TOP = /^(rule|exempt|invariant|def|route|action|enum|edition|schema|board)\b/;

/** Splits a rule file into top-level declarations (each with the comment lines before it). */
function declarations(text: string): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let pendingComments: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (TOP.test(line)) {
      if (cur.length) out.push(cur.join("\n"));
      cur = [...pendingComments, line];
      pendingComments = [];
    } else if (/^\s*\/\//.test(line) && (cur.length === 0 || /^\s*$/.test(cur[cur.length - 1] ?? ""))) {
      pendingComments.push(line);
    } else if (cur.length) {
      cur.push(...pendingComments, line);
      pendingComments = [];
    }
  }
  if (cur.length) out.push(cur.join("\n"));
  return out;
}

/** Writes the k× edition; returns the number of rules it holds. */
export function writeSynthetic(o: SynthOptions): { dir: string; rules: number; actions: number } {
  const names = fs.readdirSync(o.from).filter((f) => f.endsWith(".rules"));
  const declFile = names.find((f) => /^\s*edition\s/m.test(fs.readFileSync(path.join(o.from, f), "utf8")));
  if (!declFile) throw new Error(`${o.from}: no file with the \`edition\` declaration`);
  fs.mkdirSync(o.out, { recursive: true });
  for (const f of fs.readdirSync(o.from)) {
    if (f.endsWith(".rules")) continue;
    fs.copyFileSync(path.join(o.from, f), path.join(o.out, f));
  }
  if (o.maxItems !== undefined) {
    const p = path.join(o.out, "state.schema.json");
    const cap = o.maxItems;
    const lower = (x: unknown): unknown => {
      if (Array.isArray(x)) return x.map(lower);
      if (x && typeof x === "object") {
        const r: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(x)) r[k] = k === "maxItems" && typeof v === "number" ? Math.min(v, cap) : lower(v);
        return r;
      }
      return x;
    };
    fs.writeFileSync(p, JSON.stringify(lower(JSON.parse(fs.readFileSync(p, "utf8"))), null, 1) + "\n");
  }
  const declText = fs.readFileSync(path.join(o.from, declFile), "utf8");
  const actions = new Map<string, string>(); // name -> parameter list
  for (const m of declText.matchAll(/^action\s+(\w+)\s*\(([^)]*)\)/gm)) actions.set(m[1]!, m[2]!.replace(/\s+/g, " ").trim());
  const kept = o.dropInvariants ? declarations(declText).filter((d) => !/^invariant\b/m.test(d)).join("\n\n") + "\n" : declText;
  fs.writeFileSync(
    path.join(o.out, declFile),
    kept.replace(/^edition\s+\w+\s+"[^"]*"/m, `edition synth_${o.copies}x "Synthetic ${o.copies}x rulebook"`),
  );
  let rules = 0;
  let copiedActions = 0;
  const group = (i: number, line: string) => line.replace(/\((\*|[a-z_]\w*)\)/g, (_, g: string) => (g === "*" ? `(star_c${i})` : `(${g}_c${i})`));
  for (let i = 1; i < o.copies; i++) {
    const declared = new Set<string>();
    for (const f of o.files) {
      const parts: string[] = [];
      for (const d of declarations(fs.readFileSync(path.join(o.from, f), "utf8"))) {
        if (/^rule\b/m.test(d)) {
          if (/\boblige\s+\w+\s+when\b/.test(d)) continue;
        } else if (!/^exempt\b/m.test(d)) continue; // defs, routes, … are shared with copy 0
        let t = d.replace(/^(rule|exempt)\s+([\w.]+)/m, (_, kw: string, id: string) => `${kw} c${i}.${id}`);
        t = t.replace(/\b(forbid|oblige)\s+(\w+)\s+when\b/, (_, kw: string, a: string) => {
          if (!declared.has(a) && actions.has(a)) {
            declared.add(a);
            parts.unshift(`action ${a}_c${i}(${actions.get(a)})`);
          }
          return `${kw} ${a}_c${i} when`;
        });
        // exemption groups on the rule's header line (after its title) and in `lifts`
        t = t.replace(/^(rule\s+\S+\s+§\S+\s+"(?:[^"\\]|\\.)*")(.*)$/m, (_, head: string, tail: string) => head + group(i, tail));
        t = t.replace(/^(\s*lifts\s+)(.*)$/m, (_, head: string, list: string) => head + group(i, list).replace(/(^|,\s*)([a-z_]\w*\.[\w.]+)/g, (_m, sep: string, id: string) => `${sep}c${i}.${id}`));
        if (/^rule\b/m.test(t)) rules++;
        parts.push(t);
      }
      fs.writeFileSync(path.join(o.out, `${path.basename(f, ".rules")}_c${i}.rules`), `// copy ${i} of ${o.from}/${f} (generated by bench/scaling/synth.ts)\n\n${parts.join("\n\n")}\n`);
    }
    copiedActions += declared.size;
  }
  // copy 0: the files as written
  for (const f of o.files) {
    const text = fs.readFileSync(path.join(o.from, f), "utf8");
    rules += declarations(text).filter((d) => /^rule\b/m.test(d)).length;
    fs.writeFileSync(path.join(o.out, f), text);
  }
  return { dir: o.out, rules, actions: actions.size + copiedActions };
}
