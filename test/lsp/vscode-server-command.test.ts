/**
 * The VS Code client's choice of language server (editors/vscode/server-command.js, a pure
 * function): the user's setting, the project's own rulewright found from the workspace folder or
 * a folder above it, the rulewright checkout, the server shipped in the .vsix — never `npx`
 * (outside a checkout it failed, or would install from the registry). Each workspace folder
 * resolves on its own (the client starts one server per folder).
 */
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/lsp-client.js";

const { resolveServer } = createRequire(import.meta.url)("../../editors/vscode/server-command.js") as {
  resolveServer: (o: { folder?: string; extensionPath: string; configured?: string[]; exists: (p: string) => boolean; readFile?: (p: string) => string | undefined; platform?: string }) =>
    | { kind: "command"; command: string; args: string[]; cwd?: string; source: string }
    | { kind: "module"; module: string; args: string[]; cwd?: string; source: string }
    | { kind: "none"; error: string };
};

const EXT = "/home/u/.vscode/extensions/rulewright-0.1.0";
const on = (...files: string[]) => (p: string) => files.includes(p);

describe("VS Code client: which server it starts", () => {
  it("the project's node_modules/.bin/rulewright, run in the folder", () => {
    expect(resolveServer({ folder: "/p/game", extensionPath: EXT, configured: [], exists: on("/p/game/node_modules/.bin/rulewright", `${EXT}/server/rulewright-lsp.mjs`) })).toEqual({
      kind: "command", command: "/p/game/node_modules/.bin/rulewright", args: ["lsp", "--stdio"], cwd: "/p/game", source: "the project's node_modules/.bin/rulewright",
    });
  });

  it("else node_modules/rulewright/bin/rulewright.mjs, run by the editor's node (a module)", () => {
    const r = resolveServer({ folder: "/p/game", extensionPath: EXT, exists: on("/p/game/node_modules/rulewright/bin/rulewright.mjs") });
    expect(r).toMatchObject({ kind: "module", module: "/p/game/node_modules/rulewright/bin/rulewright.mjs", args: ["lsp"], cwd: "/p/game" });
  });

  it("a workspace folder inside the project (dsl/his) finds the project's server above it", () => {
    const r = resolveServer({ folder: "/p/game/dsl/his", extensionPath: EXT, exists: on("/p/game/node_modules/.bin/rulewright") });
    expect(r).toMatchObject({ kind: "command", command: "/p/game/node_modules/.bin/rulewright", cwd: "/p/game/dsl/his" });
  });

  it("Windows: node_modules\\.bin\\rulewright.cmd", () => {
    const r = resolveServer({ folder: "C:\\p\\game", extensionPath: "C:\\ext", platform: "win32", exists: on("C:\\p\\game\\node_modules\\.bin\\rulewright.cmd") });
    expect(r).toMatchObject({ kind: "command", command: "C:\\p\\game\\node_modules\\.bin\\rulewright.cmd", args: ["lsp", "--stdio"] });
  });

  it("in a checkout of rulewright itself: its bin/rulewright.mjs (this repository)", () => {
    const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");
    const r = resolveServer({ folder: path.join(REPO, "dsl/his"), extensionPath: EXT, exists: (p) => fs.existsSync(p) && !p.includes("node_modules/.bin/rulewright") && !p.includes("node_modules/rulewright/"), readFile: (p) => fs.readFileSync(p, "utf8") });
    expect(r).toMatchObject({ kind: "module", module: path.join(REPO, "bin/rulewright.mjs"), source: "the rulewright checkout" });
    // a bin/rulewright.mjs in a project that is not rulewright is not taken
    const other = resolveServer({ folder: "/p/x", extensionPath: EXT, exists: on("/p/x/bin/rulewright.mjs"), readFile: () => '{"name":"x"}' });
    expect(other.kind).toBe("none");
  });

  it("no project server: the one shipped with the extension; none at all: an error naming what was looked for, never npx", () => {
    expect(resolveServer({ folder: "/p/game", extensionPath: EXT, exists: on(`${EXT}/server/rulewright-lsp.mjs`) })).toMatchObject({
      kind: "module", module: `${EXT}/server/rulewright-lsp.mjs`, args: [], source: "the server shipped with the extension",
    });
    const none = resolveServer({ folder: "/p/game", extensionPath: EXT, exists: () => false });
    expect(none.kind).toBe("none");
    if (none.kind === "none") {
      expect(none.error).toContain("/p/game/node_modules/.bin/rulewright");
      expect(none.error).toContain(`${EXT}/server/rulewright-lsp.mjs`);
      expect(none.error).not.toContain("npx");
    }
  });

  it("the setting, when set, wins; several folders resolve each on its own", () => {
    expect(resolveServer({ folder: "/p/a", extensionPath: EXT, configured: ["rw", "lsp", "--stdio"], exists: on("/p/a/node_modules/.bin/rulewright") })).toMatchObject({ kind: "command", command: "rw", args: ["lsp", "--stdio"], cwd: "/p/a" });
    const exists = on("/p/a/node_modules/.bin/rulewright", `${EXT}/server/rulewright-lsp.mjs`);
    const [a, b] = ["/p/a", "/q/b"].map((folder) => resolveServer({ folder, extensionPath: EXT, exists }));
    expect(a).toMatchObject({ command: "/p/a/node_modules/.bin/rulewright", cwd: "/p/a" });
    expect(b).toMatchObject({ module: `${EXT}/server/rulewright-lsp.mjs`, cwd: "/q/b" });
  });
});
