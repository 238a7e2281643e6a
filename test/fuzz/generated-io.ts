/**
 * Writing generated editions to a temporary folder, reading their comments back, and importing
 * them in a child process (so a payload that runs cannot touch the test process).
 * Used by test/codegen/hostile.test.ts, test/e2e/fuzz.test.ts and scripts/fuzz.ts.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { readComment } from "../../compiler/codegen/escape.js";
import type { GeneratedFile } from "../../compiler/codegen/index.js";

/** The global a hostile payload sets when it runs (`globalThis[CANARY] = 1`). */
export const CANARY = "__rulewright_pwned";
/** A statement that marks the canary when it runs. */
export const PAYLOAD = `globalThis.${CANARY}=1;`;

/** What a child process saw when importing one generated edition. */
export interface ImportResult {
  dir: string;
  /** the error message when the import threw (a syntax error is a failure too) */
  error?: string;
  /** whether any payload ran */
  ran: boolean;
  /** RULES/EXEMPTIONS/INVARIANTS/REMOVED_RULES/TABLES rows as the module exports them */
  catalogue?: Record<string, unknown[]>;
}

/** Writes the files of one or more editions under a fresh temporary folder; returns it. */
export function writeEditions(editions: GeneratedFile[][], prefix = "rulewright-hostile-"): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.writeFileSync(path.join(root, "package.json"), '{ "type": "module" }\n');
  editions.forEach((files, i) => {
    for (const f of files) {
      const p = path.join(root, String(i), f.path);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, f.content);
    }
  });
  return root;
}

const CHILD = `
const dirs = JSON.parse(process.argv[process.argv.length - 1]);
const out = [];
for (const dir of dirs) {
  globalThis.${CANARY} = undefined;
  const r = { dir, ran: false };
  try {
    const m = await import(new URL("file://" + dir + "/index.ts").href);
    r.catalogue = { RULES: m.RULES, EXEMPTIONS: m.EXEMPTIONS, INVARIANTS: m.INVARIANTS, REMOVED_RULES: m.REMOVED_RULES, TABLES: m.TABLES, ACTIONS: m.ACTIONS };
  } catch (e) { r.error = String(e && e.message || e); }
  r.ran = globalThis.${CANARY} !== undefined;
  out.push(r);
}
process.stdout.write(JSON.stringify(out));
`;

/**
 * Imports `generated/<folder>/index.ts` of each edition folder in one child process (Node with
 * tsx, as the CLI loads generated code) and reports, per folder, whether a payload ran.
 * @param dirs absolute folders holding index.ts
 * @throws Error when the child process itself fails (not when an import fails)
 */
export function importInChild(dirs: string[]): ImportResult[] {
  const res = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD, JSON.stringify(dirs)], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: 300_000,
  });
  if (res.status !== 0) throw new Error(`import child failed (${res.status ?? res.signal}): ${res.stderr.slice(0, 2000)}`);
  return JSON.parse(res.stdout) as ImportResult[];
}

/** Syntax errors of a TypeScript text (the parser's diagnostics, no type checking). */
export function syntaxErrors(file: string, text: string): string[] {
  const out = ts.transpileModule(text, { fileName: file, reportDiagnostics: true, compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } });
  return (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

/**
 * The text of every comment of a TypeScript file, decoded with `readComment` (line comments
 * without `//`, block comments without their delimiters and leading ` * `, lines joined by "\n").
 */
export function commentsOf(text: string): string[] {
  const sf = ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, true);
  const seen = new Set<number>();
  const out: string[] = [];
  const take = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      const t = text.slice(r.pos, r.end);
      if (r.kind === ts.SyntaxKind.SingleLineCommentTrivia) out.push(readComment(t.slice(2)));
      else {
        const body = t.slice(t.startsWith("/**") ? 3 : 2, -2);
        out.push(body.split("\n").map((l) => readComment(l.replace(/^\s*\* ?/, ""))).filter((l) => l !== "").join("\n"));
      }
    }
  };
  const visit = (n: ts.Node) => {
    take(ts.getLeadingCommentRanges(text, n.pos));
    take(ts.getTrailingCommentRanges(text, n.end));
    n.getChildren(sf).forEach(visit);
  };
  visit(sf);
  return out;
}
