/**
 * Pass "inputs": the edition's `schema` and `board` declarations (exactly one each, from the
 * nearest edition of the chain that declares them) and the JSON files they name, read confined
 * to the declaring edition's folder.
 */
import { createHash } from "node:crypto";
import type { Span } from "../diagnostics/types.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type { Decl } from "../syntax/ast.js";
import { parseJson, stripBom } from "../diagnostics/json.js";
import { MAX_INPUT_FILE_BYTES, describeInputProblem, readConfinedFile, resolveConfined, utf8Text } from "../diagnostics/files.js";
import type { Checking } from "./context.js";
import { shownName } from "./editions.js";
import type { DeclOf, Located } from "./env.js";
import { LINE1, jsonPositions, posOf } from "./util.js";

/** Hex SHA-256 of bytes or text. */
export const sha256 = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");
/** Hash of a text input with line endings normalized, so a CRLF checkout is not "stale". */
export const textHash = (b: Buffer) => sha256(b.toString("utf8").replace(/\r\n?/g, "\n"));

/** A JSON input read and parsed: its value, repo-relative file and the span of every JSON pointer. */
export interface JsonInput {
  json: unknown;
  file: string;
  positions: Map<string, Span>;
}

/**
 * The one `schema` or `board` declaration of the edition: the first of the nearest level that has
 * one (a second one there is RW2015); none in the whole chain is RW2015 at the edition's first file.
 */
export function findSingle<K extends "schema" | "board">(c: Checking, k: K, shape: string): Located<DeclOf<K>> | undefined {
  const { asm, of, rep, rel, absDir, leaf } = c;
  for (const level of [...asm.levels].reverse()) {
    const ds = of(k).filter((d) => d.origin?.edition === level.folder);
    if (!ds.length) continue;
    for (const d of ds.slice(1)) {
      rep("RW2015", `second \`${k}\` declaration`, { file: d.file, span: (d.decl as Decl).span }, `an edition has exactly one \`${k}\` declaration; remove this one`,
        [{ message: "the first one", pos: posOf(ds[0]!.file, (ds[0]!.decl as Decl).span) }]);
    }
    return ds[0];
  }
  rep("RW2015", `no \`${k}\` declaration in \`${rel(absDir)}\``, { file: leaf.firstFile, span: LINE1 },
    `add \`${shape}\` (by convention in edition.rules)${asm.levels.length > 1 ? "; a variant inherits its parent's" : ""}`);
  return undefined;
}

/**
 * Reads the schema or board a declaration names, confined to the folder of the edition whose
 * file declares it (compiler/diagnostics/files.ts): an absolute path, `..` out of the folder or a
 * symlink leading out is RW4012; a device, FIFO or folder, or a file over 16 MB, is RW4013; a
 * file that is not UTF-8 text is RW4002 at the declaration (its bytes are never echoed). The file
 * is added to `c.inputs`.
 */
export function readJson(c: Checking, d: Located<DeclOf<"schema" | "board">>): JsonInput | undefined {
  const { asm, absDir, rep, rel, repoRoot, inputs, r } = c;
  const folder = asm.levels.find((l) => l.folder === d.origin?.edition)?.abs ?? absDir;
  const at = { file: d.file, span: d.decl.pathSpan };
  const what = `${d.decl.k} file`;
  const shownPath = shownName(d.decl.path);
  const resolved = resolveConfined(d.decl.path, folder, folder);
  const got = "abs" in resolved ? readConfinedFile(resolved.abs, [folder, repoRoot]) : resolved;
  if ("problem" in got) {
    const p = got.problem;
    const code: DiagnosticCode = p.k === "absolute" || p.k === "outside" ? "RW4012" : p.k === "not-file" || p.k === "too-large" ? "RW4013" : "RW4001";
    rep(code, code === "RW4001" && "abs" in resolved ? `cannot read ${what} \`${rel(resolved.abs)}\`` : `${d.decl.k === "schema" ? "the schema" : "the board"} path \`${shownPath}\` ${describeInputProblem(p, rel(folder))}`, at,
      code === "RW4012" ? `name a file inside the edition folder \`${rel(folder)}\`, relative to it (e.g. \`${d.decl.k === "schema" ? "state.schema.json" : "board.json"}\`)`
      : code === "RW4013" ? `a ${what} is a regular JSON file of at most ${MAX_INPUT_FILE_BYTES / (1024 * 1024)} MB`
      : `the path is relative to the edition folder \`${rel(folder)}\``);
    return undefined;
  }
  const file = rel((resolved as { abs: string }).abs);
  inputs.push({ file, sha256: textHash(got.buf) });
  const decoded = utf8Text(got.buf);
  if (decoded === undefined) {
    rep("RW4002", `the ${what} \`${file}\` is not UTF-8 text`, at, `a ${what} is a JSON text file`);
    return undefined;
  }
  const text = stripBom(decoded);
  const parsed = parseJson(text);
  if (parsed.error) {
    const { line, column, message } = parsed.error;
    r.report("RW4002", `invalid JSON: ${message}`, file, { line, column, endLine: line, endColumn: column + 1 }, "fix the JSON syntax");
    return undefined;
  }
  return { json: parsed.value, file, positions: jsonPositions(text) };
}

