/**
 * The IR's JSON for the solver processes, made in steps on the server's thread. The solver
 * processes read an IR from a JSON file (compiler/verify/run/worker.ts); `SolverPool.irFile`
 * writes it with one `JSON.stringify` of the whole IR — 3 MB and 60–80 ms for Here I Stand, in one
 * piece, during which a keystroke or a request waits. Background proving (proving.ts) writes it
 * here instead, `STEP_MS` at a time, and hands the file to the pool (`adoptIrFile`) before its
 * first obligation of that IR.
 */
import fs from "node:fs";
import path from "node:path";
import type { IREdition } from "../ir/types.js";
import { STEP_MS } from "./keys.js";

/**
 * `JSON.stringify(value)`, byte for byte, made in steps: the top-level object's fields one at a
 * time and the elements of its arrays one at a time, `step()` awaited whenever `STEP_MS` have
 * passed since the last one (a turn of the event loop); undefined as soon as a step says to stop
 * (false). A value with `toJSON`, or not a plain object, is stringified in one piece.
 */
export async function jsonInSteps(value: unknown, step: () => Promise<boolean>): Promise<string | undefined> {
  if (typeof value !== "object" || value === null || Array.isArray(value) || typeof (value as { toJSON?: unknown }).toJSON === "function") return JSON.stringify(value);
  let t0 = performance.now();
  const pause = async (): Promise<boolean> => {
    if (performance.now() - t0 < STEP_MS) return true;
    if (!(await step())) return false;
    t0 = performance.now();
    return true;
  };
  const fields: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    // what JSON.stringify leaves out of an object
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
    let text: string;
    if (Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== "function") {
      const items: string[] = [];
      for (const x of v) {
        // (an array gives null where JSON.stringify(x) gives nothing)
        items.push(JSON.stringify(x) ?? "null");
        if (!(await pause())) return undefined;
      }
      text = `[${items.join(",")}]`;
    } else {
      text = JSON.stringify(v);
      if (!(await pause())) return undefined;
    }
    fields.push(`${JSON.stringify(k)}:${text}`);
  }
  return `{${fields.join(",")}}`;
}

/**
 * Writes `ir` as JSON to a new file in folder `dir` (made in steps, `jsonInSteps`; written
 * without blocking the thread); resolves with the file, or undefined when a step said to stop
 * (nothing is written then).
 */
export async function writeIrFile(ir: IREdition, dir: string, step: () => Promise<boolean>): Promise<string | undefined> {
  const text = await jsonInSteps(ir, step);
  if (text === undefined) return undefined;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `ir-${process.pid}-${++written}.json`);
  await fs.promises.writeFile(file, text);
  return file;
}
let written = 0;
