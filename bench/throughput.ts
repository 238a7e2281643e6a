/**
 * Times one engine on one action's sample set, in its own process:
 *   node --expose-gc --import tsx bench/throughput.ts <action> <engine id> [--quick] [--batch n]
 * and prints one JSON line (a results.json throughput row). bench/run.ts starts one process per
 * (action, engine), so no engine runs in a process whose JIT another engine has already shaped
 * (and a crash of one engine's runtime cannot take the others with it).
 */
import { createEngines, prebuiltCedar } from "./engines/index.js";
import { cedarCallFloor } from "./engines/cedar.js";
import { makeSet, type ActionKind, type Sample } from "./states.js";
import { measure, type TimingOptions } from "./timing.js";
import type { Row } from "./report.js";

/** The seed of every benchmark set (bench/states.ts). */
export const SEED = 20240611;
/** Checks per action: the full sets, or the small ones of `--quick`. */
export const sizes = (quick: boolean): Record<ActionKind, number> => (quick ? { declare_war: 512, pass: 512, spring_deploy: 128 } : { declare_war: 4096, pass: 4096, spring_deploy: 1024 });

/** The (action, engine) pairs to time, in table order. */
export function plan(): { kind: ActionKind; engine: string }[] {
  return [
    ...["generated", "interpreter", "jre", "cedar", "cedar-prebuilt", "cedar-floor", "hand"].map((engine) => ({ kind: "declare_war" as const, engine })),
    ...["generated", "interpreter", "jre", "hand"].map((engine) => ({ kind: "pass" as const, engine })),
    ...["generated", "interpreter", "jre", "hand"].map((engine) => ({ kind: "spring_deploy" as const, engine })),
  ];
}

/**
 * Builds the set and the engine, calibrates the batch size (≈20 µs per batch; `batch` given: that
 * one) and the allocation run (≈200 ms of checks), and measures. `engine` is an id of createEngines() or `cedar-prebuilt`
 * / `cedar-floor`.
 */
export async function timeOne(kind: ActionKind, engine: string, quick: boolean, batch?: number): Promise<Row> {
  const set = makeSet(kind, sizes(quick)[kind], SEED);
  const { engines } = createEngines();
  let items: readonly unknown[] = set;
  let run: (x: unknown) => { allowed: boolean } | Promise<{ allowed: boolean }>;
  let isAsync = false;
  let label: string;
  let timed: string;
  if (engine === "cedar-prebuilt") {
    const pre = prebuiltCedar(set);
    items = pre.calls;
    run = pre.run as (x: unknown) => { allowed: boolean };
    label = "Cedar, requests built beforehand";
    timed = "`statefulIsAuthorized` alone (entities and context built outside the timing)";
  } else if (engine === "cedar-floor") {
    items = [0];
    run = cedarCallFloor();
    label = "cedar-wasm call floor (reference)";
    timed = "`statefulIsAuthorized` with a permit-all policy, no entities: the cost of a call, not of the bans";
  } else {
    const e = engines.find((x) => x.id === engine);
    if (!e || !e.kinds.includes(kind)) throw new Error(`no engine \`${engine}\` for ${kind}`);
    run = (s) => e.check((s as Sample).state, (s as Sample).action) as { allowed: boolean };
    isAsync = e.async;
    label = e.label;
    timed = e.timed;
  }
  // calibrate: a batch of ~20 µs, an allocation run of ~200 ms of checks
  for (let i = 0; i < 50; i++) await run(items[i % items.length]);
  const t = performance.now();
  for (let i = 0; i < 200; i++) await run(items[i % items.length]);
  const est = ((performance.now() - t) * 1e6) / 200;
  const o: TimingOptions = {
    batch: batch ?? Math.max(1, Math.min(256, Math.round(20_000 / est))),
    timeMs: quick ? 300 : 1500,
    warmupMs: quick ? 100 : 300,
    allocChecks: Math.max(200, Math.min(50_000, Math.round(2e8 / est))),
  };
  const timing = await measure(`${kind}/${engine}`, items, run, isAsync, o);
  return { kind, engine, label, timed, ...timing };
}

if (process.argv[1] && /throughput\.ts$/.test(process.argv[1])) {
  const [kind, engine] = process.argv.slice(2);
  const b = process.argv.indexOf("--batch");
  timeOne(kind as ActionKind, engine!, process.argv.includes("--quick"), b > 0 ? Number(process.argv[b + 1]) : undefined).then(
    (row) => {
      process.stdout.write(JSON.stringify(row) + "\n");
      process.exit(0);
    },
    (e) => {
      process.stderr.write(`${kind}/${engine}: ${(e as Error).stack ?? String(e)}\n`);
      process.exit(2);
    },
  );
}
