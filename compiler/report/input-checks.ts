/**
 * The checks of the report's input files (issue 29): a `--coverage` or `--tests` file is input
 * from anyone, checked before the report reads it. Re-exported by data.ts.
 */
/**
 * What is wrong with a `--coverage` (`kind` "coverage") or `--tests` ("tests") file before the
 * report reads it: each number the report shows must be a finite number (or null where a share
 * may be missing), each text a string, each flag a boolean — a file is input from anyone, and a
 * "number" that is markup must never reach the page (issue 29). Returns up to 5 problems, each
 * `<path>: <what> (got <value>)`; empty when the file has the shape the report reads.
 */
export function reportInputProblems(kind: "coverage" | "tests", v: unknown): string[] {
  const problems: string[] = [];
  const show = (x: unknown) => {
    const t = JSON.stringify(x) ?? String(x);
    return t.length > 40 ? t.slice(0, 40) + "…" : t;
  };
  const need = (ok: boolean, where: string, what: string, got: unknown) => {
    if (!ok && problems.length < 5) problems.push(`${where}: ${what} (got ${show(got)})`);
  };
  const obj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  const list = (o: Record<string, unknown>, k: string, where: string): unknown[] => {
    need(Array.isArray(o[k]), `${where}${k}`, "must be a list", o[k]);
    return Array.isArray(o[k]) ? (o[k] as unknown[]) : [];
  };
  const nums = (o: Record<string, unknown>, where: string, keys: string[], nullable: string[] = []) => {
    for (const k of keys) need(typeof o[k] === "number" && Number.isFinite(o[k]), `${where}${k}`, "must be a number", o[k]);
    for (const k of nullable) need(o[k] === null || o[k] === undefined || (typeof o[k] === "number" && Number.isFinite(o[k])), `${where}${k}`, "must be a number or null", o[k]);
  };
  const strs = (o: Record<string, unknown>, where: string, keys: string[]) => {
    for (const k of keys) need(typeof o[k] === "string", `${where}${k}`, "must be a string", o[k]);
  };
  if (!obj(v)) return [`the file must hold a JSON object (got ${show(v)})`];
  if (kind === "tests") {
    nums(v, "", ["passed", "failed"]);
    list(v, "results", "").forEach((r, i) => {
      const w = `results[${i}].`;
      if (!obj(r)) return need(false, `results[${i}]`, "must be an object", r);
      strs(r, w, ["file", "name", "edition", "detail"]);
      nums(r, w, ["line"]);
      need(typeof r.pass === "boolean", `${w}pass`, "must be true or false", r.pass);
    });
    return problems;
  }
  list(v, "editions", "").forEach((e, i) => {
    const w = `editions[${i}].`;
    if (!obj(e)) return need(false, `editions[${i}]`, "must be an object", e);
    strs(e, w, ["edition"]);
    nums(e, w, ["encoded", "restriction", "auditable", "audited"], ["percent", "auditedPercent"]);
    list(e, "files", w).forEach((f, j) => {
      const wf = `${w}files[${j}].`;
      if (!obj(f)) return need(false, `${w}files[${j}]`, "must be an object", f);
      strs(f, wf, ["source"]);
      nums(f, wf, ["encoded", "restriction", "auditable", "audited"], ["percent"]);
      if (!obj(f.counts)) return need(false, `${wf}counts`, "must be an object", f.counts);
      nums(f.counts, `${wf}counts.`, ["out_of_scope", "procedure", "not_encoded"]);
    });
  });
  return problems;
}
