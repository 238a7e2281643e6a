/**
 * What the check passes of one edition share (compiler/check/index.ts runs them in order): the
 * assembled declarations, the diagnostic sink, the resolution table, the environment the declare
 * passes fill, and small helpers every pass uses.
 */
import path from "node:path";
import type { Diagnostic, Span } from "../diagnostics/types.js";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type { IRParam, Provenance, Type } from "../ir/types.js";
import type { Decl } from "../syntax/ast.js";
import type { Assembled, Level } from "./editions.js";
import type { Ctx, DeclOf, Env, Located, Origin, ParamInfo } from "./env.js";

import type { Resolution } from "./resolution.js";
import type { Help, Reporter } from "./util.js";

/** Report a diagnostic at a span of a file (the sink's `report` with the place as one argument). */
export type Rep = (code: DiagnosticCode, msg: string, at: { file: string; span: Span }, help?: Help, related?: Diagnostic["related"]) => void;

/** The state of checking one edition, shared by its passes. */
export interface Checking {
  /** the project root: diagnostics and IR positions are relative to it */
  repoRoot: string;
  /** the edition folder, absolute */
  absDir: string;
  /** an absolute path → repo-relative with `/` */
  rel: (abs: string) => string;
  r: Reporter;
  rep: Rep;
  res: Resolution;
  /** every file read (rule files, schema, board) with its hash, for the IR's `inputs` */
  inputs: { file: string; sha256: string }[];
  asm: Assembled;
  /** the compiled edition's own level (the last of `asm.levels`) */
  leaf: Level;
  /** the assembled declarations of one kind (rules come from `asm.rules`) */
  of: <K extends Decl["k"]>(k: K) => Located<DeclOf<K>>[];
  /** the declarations resolved so far (filled by the declare passes) */
  env: Env;
}

/** Starts the shared state after the assembly (`inputs` holds what it read). */
export function startChecking(asm: Assembled, repoRoot: string, absDir: string, r: Reporter, res: Resolution, inputs: Checking["inputs"], env: Env): Checking {
  return {
    repoRoot,
    absDir,
    rel: (abs: string) => relPath(repoRoot, abs),
    r,
    rep: (code, msg, at, help, related) => r.report(code, msg, at.file, at.span, help, related),
    res,
    inputs,
    asm,
    leaf: asm.levels[asm.levels.length - 1]!,
    of: <K extends Decl["k"]>(k: K) => asm.decls.filter((d) => d.decl.k === k) as Located<DeclOf<K>>[],
    env,
  };
}

/** `abs` relative to `root`, with `/` ("." for the root itself). */
export function relPath(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join("/") || ".";
}

export const BOOL: Type = { k: "bool" };

/**
 * The expression context of a body over parameters, visible in `within` of `file`: each
 * parameter is bound under its own name, and its scope is recorded in the resolution table.
 */
export function paramCtx(c: Checking, file: string, params: ParamInfo[], within: Span): Ctx {
  for (const p of params) if (p.key) c.res.scope({ file, span: within, name: p.name, key: p.key });
  return {
    file,
    scope: new Map(params.map((p) => [p.name, { type: p.type, irName: p.name, ...(p.key ? { key: p.key } : {}) }])),
    inUse: new Set(params.map((p) => p.name)),
  };
}

/** A declaration's provenance from its origin (`defined` in a root edition, `added` by a variant). */
export function provenanceOf(origin: Origin | undefined): Provenance {
  // INVARIANT: assemble() gives every declaration an origin
  if (!origin) return { edition: "", change: "defined" };
  return { edition: origin.edition, change: origin.root ? "defined" : "added", ...(origin.module ? { module: origin.module } : {}) };
}

/** A parameter as the IR holds it. */
export function irParam(p: ParamInfo): IRParam {
  return { name: p.name, type: p.type, actor: p.actor };
}
