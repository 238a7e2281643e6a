/**
 * The diagnostics schedule (compiler/lsp/diagnostics-schedule.ts) after an edit:
 *
 * - the open files' diagnostics go out first: each notification is written in a turn of the
 *   event loop of its own, and a check of Here I Stand publishes about 40 files, so the file being
 *   typed in waited behind the others (and behind background proving's steps between them);
 * - only an open file's own edition is warmed (its symbol index and proof-cache keys built after
 *   the checks): hover reads the index of the file's own edition only, and warming a variant that
 *   was checked because it extends the edited file's edition built an index no hover read, in one
 *   piece the next keystroke waited behind (75–115 ms for his-500).
 *
 * Driven in process on the mini fixture and a variant extending it; no proving, no timed assertion.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Project } from "../../compiler/lsp/project.js";
import { DiagnosticsSchedule, type ProjectEntry } from "../../compiler/lsp/diagnostics-schedule.js";
import type { Features } from "../../compiler/lsp/protocol.js";

const MINI = path.resolve(import.meta.dirname, "../fixtures/frontend/mini");
const VARIANT = `edition mini_w "Mini, variant W" cites "mini" extends "mini"

invariant state.always_diplomacy "this variant is played in the diplomacy phase only":
  state.phase = diplomacy
`;

describe("the diagnostics schedule after an edit", () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-lsp-order-"));
    fs.cpSync(MINI, path.join(root, "dsl/mini"), { recursive: true });
    fs.mkdirSync(path.join(root, "dsl/mini_w"));
    fs.writeFileSync(path.join(root, "dsl/mini_w/edition.rules"), VARIANT);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  /** A schedule over one project: what it sends (file names, in order) and which editions it warms. */
  function scheduleOf(project: Project) {
    const sent: string[] = [];
    const warmed: string[] = [];
    const features = { warm: (d: string) => warmed.push(path.basename(d)) } as unknown as Features;
    const entry: ProjectEntry = { project, features };
    const schedule = new DiagnosticsSchedule({
      forFile: () => entry,
      entries: () => [entry],
      workspace: () => project,
      send: (f) => void sent.push(path.relative(root, f)),
      safe: (_what, fallback, f) => {
        try {
          return f();
        } catch {
          return fallback;
        }
      },
    });
    return { schedule, sent, warmed };
  }
  /** The edit of an open file: its new text in the buffer, the project told. */
  const edit = (project: Project, schedule: DiagnosticsSchedule, file: string, version: number) => {
    project.open.set(file, { text: fs.readFileSync(file, "utf8") + `\n// edit ${version}\n`, version });
    project.invalidate();
    schedule.changed(file);
  };
  const idle = () => new Promise((r) => setImmediate(r));

  it("publishes the open file first, then the other files of its edition; a variant checked after it is not warmed", async () => {
    const project = new Project(root);
    const { schedule, sent, warmed } = scheduleOf(project);
    const war = path.join(root, "dsl/mini/war.rules");
    edit(project, schedule, war, 2);
    // the edition's own check, then the variant's 150 ms later: war.rules is published by both
    await vi.waitFor(() => expect(sent.filter((f) => f === "dsl/mini/war.rules")).toHaveLength(2), { timeout: 10_000, interval: 5 });
    await idle();
    await idle();
    // edition.rules sorts before war.rules: without the open-first order it went out first
    expect(sent[0]).toBe("dsl/mini/war.rules");
    expect(sent).toContain("dsl/mini/edition.rules");
    // the variant (no file of it open) was checked but not warmed
    expect(warmed).not.toContain("mini_w");
  });

  it("warms the edited file's own edition when nothing else is to check", async () => {
    const project = new Project(root);
    const { schedule, sent, warmed } = scheduleOf(project);
    const variantFile = path.join(root, "dsl/mini_w/edition.rules");
    edit(project, schedule, variantFile, 2);
    await vi.waitFor(() => expect(sent).toContain("dsl/mini_w/edition.rules"), { timeout: 10_000, interval: 5 });
    await vi.waitFor(() => expect(warmed).toEqual(["mini_w"]), { timeout: 10_000, interval: 5 });
    expect(sent[0]).toBe("dsl/mini_w/edition.rules");
  });
});
