/**
 * `rulewright fmt [--check] [paths…]`: rewrite rule files in the canonical layout
 * (compiler/fmt/README.md). Paths are `.rules` files or folders (searched recursively; default
 * `dsl`). With `--check` nothing is written: the files that would change are listed.
 * Exit codes: 0 formatted (or, with --check, already formatted); 1 with --check, some file is not
 * formatted; 2 a path cannot be read or a file has a syntax error (its diagnostics are printed;
 * the file is left as it is).
 */
import fs from "node:fs";
import path from "node:path";
import { formatRules } from "../fmt/format.js";
import { color, printDiagnostics, UsageError, type Format } from "./common.js";

function ruleFilesUnder(p: string): string[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    throw new UsageError(`cannot read \`${p}\``, 2, "give `.rules` files or folders holding them (default: dsl)");
  }
  if (st.isFile()) return [p];
  const out: string[] = [];
  for (const name of fs.readdirSync(p).sort()) {
    const q = path.join(p, name);
    if (fs.statSync(q).isDirectory()) out.push(...ruleFilesUnder(q));
    else if (name.endsWith(".rules")) out.push(q);
  }
  return out;
}

export async function fmtCommand(paths: string[], o: { check?: boolean; format: Format }): Promise<number> {
  const files = [...new Set((paths.length ? paths : ["dsl"]).flatMap(ruleFilesUnder))];
  // a symlinked file (test fixtures link the bundled ones) is formatted once, through its target
  const seenReal = new Set<string>();
  const changed: string[] = [];
  const broken: string[] = [];
  for (const f of files) {
    const real = fs.realpathSync(f);
    if (seenReal.has(real)) continue;
    seenReal.add(real);
    const text = fs.readFileSync(f, "utf8");
    const res = formatRules(text, f);
    if (!res.ok) {
      broken.push(f);
      printDiagnostics(res.diagnostics, o.format);
      continue;
    }
    if (res.text === text) continue;
    changed.push(f);
    if (!o.check) fs.writeFileSync(f, res.text);
  }
  if (o.format === "json") {
    process.stdout.write(JSON.stringify({ files: seenReal.size, [o.check ? "unformatted" : "formatted"]: changed, syntaxErrors: broken }, null, 2) + "\n");
  } else {
    for (const f of changed) process.stdout.write(`${o.check ? color.yellow("not formatted") : "formatted"} ${f}\n`);
    process.stdout.write(`${seenReal.size} rule files, ${changed.length} ${o.check ? "not formatted" : "reformatted"}${broken.length ? `, ${broken.length} with syntax errors (left as they are)` : ""}\n`);
  }
  if (broken.length) return 2;
  return o.check && changed.length ? 1 : 0;
}
