/**
 * `rulewright serve --watch` as a designer runs it: a child process in a temporary project that
 * holds one small edition (a copy of test/fixtures/frontend/mini), on a free port (`--port 0`, the
 * URL read from what it prints). The index is fetched over HTTP, a rule file is edited, and the
 * served page shows the edit (polled with a deadline). A port in use and a malformed port are
 * usage errors (exit 2) with a message and a hint, never a stack trace. The child is always
 * killed in afterAll.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http from "node:http";
import { DEFAULT_PORT, isLocalHost, parsePort } from "../../compiler/cli/report.js";
import { UsageError } from "../../compiler/cli/common.js";
import { unshareSubtrees } from "../../compiler/report/shared-json.js";

const REPO = process.cwd();
const BIN = path.join(REPO, "bin", "rulewright.mjs");
const env = { ...process.env, NO_COLOR: "1" };

/** Polls `probe` until it returns a value (not undefined) or the deadline passes. */
async function until<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${deadlineMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const get = async (url: string): Promise<{ status: number; text: string }> => {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
};

/** The edition's data as inlined in the page (the `<script id="data">` JSON). */
const pageData = (html: string): { editions: { folder: string; rules: { id: string; title: string }[] }[] } =>
  unshareSubtrees(JSON.parse(html.match(/<script id="data" type="application\/json">([\s\S]*?)<\/script>/)![1].replace(/\\u003c/g, "<"))) as never;

describe("rulewright serve --watch", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rulewright-serve-"));
  const rules = path.join(tmp, "dsl", "mini", "war.rules");
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> | undefined;
  let stdout = "";
  let stderr = "";
  let url = "";

  beforeAll(async () => {
    fs.mkdirSync(path.join(tmp, "dsl"));
    fs.cpSync(path.join(REPO, "test/fixtures/frontend/mini"), path.join(tmp, "dsl", "mini"), { recursive: true });
    const c = spawn(process.execPath, [BIN, "serve", "--port", "0", "--watch"], { cwd: tmp, env, stdio: ["ignore", "pipe", "pipe"] });
    child = c;
    exited = new Promise((resolve) => c.once("exit", (code) => resolve(code)));
    c.stdout!.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    c.stderr!.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    let gone = false;
    void exited.then(() => (gone = true));
    url = await until("serve prints its URL", 90_000, () => {
      if (gone) throw new Error(`serve exited before serving:\n${stdout}\n${stderr}`);
      return stdout.match(/serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/)?.[1];
    });
  }, 600_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child!.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("serves the report of the project's edition on 127.0.0.1, and nothing else", async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const { status, text } = await get(url);
    expect(status).toBe(200);
    expect(text).toContain("<title>rulewright — rulebook report</title>");
    const data = pageData(text);
    expect(data.editions.map((e) => e.folder)).toEqual(["mini"]);
    expect(data.editions[0].rules.find((r) => r.id === "dow.genoa")!.title).toBe("no power may declare war on Genoa");
    // served, the page may poll the version (and reloads when it changes)
    expect(text).toContain("connect-src 'self'");
    expect((await get(`${url}__version`)).text).toBe("1");
    expect((await get(`${url}other.html`)).status).toBe(404);
  });

  it("refuses a request for another host name (DNS rebinding): 403, nothing of the report", async () => {
    const port = Number(new URL(url).port);
    /** GET with a chosen Host header (fetch does not let one set it) */
    const withHost = (host: string, p = "/") =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.get({ host: "127.0.0.1", port, path: p, headers: { host } }, (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (s: string) => (text += s)).on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on("error", reject);
      });
    for (const host of [`attacker.example:${port}`, "attacker.example", `127.0.0.1.attacker.example:${port}`, `localhost:${port + 1}`]) {
      const r = await withHost(host);
      expect([host, r.status]).toEqual([host, 403]);
      expect(r.text).not.toContain("rulebook report");
      expect((await withHost(host, "/__version")).status).toBe(403);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) expect([host, (await withHost(host)).status]).toEqual([host, 200]);
  });

  it("rebuilds the page when a rule file is saved", async () => {
    fs.writeFileSync(rules, fs.readFileSync(rules, "utf8").replace('"no power may declare war on Genoa"', '"Genoa may never be attacked (edited)"'));
    const title = await until("the served page shows the edited rule", 60_000, async () => {
      const t = pageData((await get(url)).text).editions[0].rules.find((r) => r.id === "dow.genoa")!.title;
      return t === "no power may declare war on Genoa" ? undefined : t;
    });
    expect(title).toBe("Genoa may never be attacked (edited)");
    expect(Number((await get(`${url}__version`)).text)).toBeGreaterThan(1);
    expect(stdout).toMatch(/rebuilt .*index\.html/);
    // the report it serves is written in the project, where `rulewright report` writes it
    expect(fs.readFileSync(path.join(tmp, "proofs", "report", "index.html"), "utf8")).toContain("Genoa may never be attacked (edited)");
  });

  it("a rule file that no longer compiles keeps the last page and says why", async () => {
    const before = (await get(`${url}__version`)).text;
    fs.writeFileSync(rules, fs.readFileSync(rules, "utf8") + "\nrule broken.rule §1 \"unterminated\n");
    await until("serve reports the failed rebuild", 60_000, () => (stderr.includes("report not rebuilt") ? true : undefined));
    expect(stderr).toContain("does not compile");
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect((await get(`${url}__version`)).text).toBe(before);
    expect(pageData((await get(url)).text).editions[0].rules.some((r) => r.id === "dow.genoa")).toBe(true);
  });

  it("stops with exit code 0 on SIGTERM", async () => {
    child!.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("isLocalHost: the local names with the server's port only", () => {
    expect(isLocalHost("127.0.0.1:8377", 8377)).toBe(true);
    expect(isLocalHost("localhost:8377", 8377)).toBe(true);
    expect(isLocalHost("[::1]:8377", 8377)).toBe(true);
    expect(isLocalHost("localhost", 80)).toBe(true);
    expect(isLocalHost("localhost", 8377)).toBe(false);
    expect(isLocalHost("127.0.0.1:8378", 8377)).toBe(false);
    expect(isLocalHost("rebind.example:8377", 8377)).toBe(false);
    expect(isLocalHost("localhost.rebind.example:8377", 8377)).toBe(false);
    expect(isLocalHost(undefined, 8377)).toBe(false);
    expect(isLocalHost("", 8377)).toBe(false);
  });

  it("a port in use and a malformed port are usage errors (exit 2) with a hint and no stack trace", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", () => resolve()));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      // spawnSync would block this process's event loop, and with it the server holding the port: run it async
      const busy = await new Promise<{ code: number | null; err: string }>((resolve) => {
        const c = spawn(process.execPath, [BIN, "serve", "--port", String(port)], { cwd: tmp, env, stdio: ["ignore", "ignore", "pipe"] });
        let err = "";
        c.stderr!.setEncoding("utf8").on("data", (s: string) => (err += s));
        c.once("exit", (code) => resolve({ code, err }));
      });
      expect(busy.code).toBe(2);
      expect(busy.err).toContain(`error: port ${port} on 127.0.0.1 is in use`);
      expect(busy.err).toContain("--port <n> (0 picks a free one)");
      expect(busy.err).not.toMatch(/\n\s+at |internal error/);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
    const r = spawnSync(process.execPath, [BIN, "serve", "--port", "70000"], { cwd: tmp, env, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("error: --port must be a port number from 0 to 65535, got `70000`");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // the same check in process for the other malformed values (Number() would take "", " 80", "0x50", "1e3")
    for (const bad of ["http", "-1", "8080x", "", "0x50", "1e3", "65536"]) expect(() => parsePort(bad), bad).toThrow(UsageError);
    expect([parsePort(undefined), parsePort("0"), parsePort("8080"), parsePort("65535")]).toEqual([DEFAULT_PORT, 0, 8080, 65535]);
  });
});
