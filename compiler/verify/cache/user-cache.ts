/**
 * The per-user cache folder and the secret that seals what rulewright caches (issue 29).
 *
 * Caches that other people can write are not trusted: the folder is the user's own
 * (`$XDG_CACHE_HOME/rulewright`, else `~/.cache/rulewright`), created with mode 0700 and checked
 * before every use — a directory (not a symbolic link), owned by the running user's uid, not
 * writable by group or others — and refused otherwise (`UntrustedCacheError`, with a hint). It
 * holds `secret.key`, 32 random bytes (hex) created with mode 0600 and checked the same way
 * (owned by the user, no permission for group or others), which keys the HMAC-SHA256 seals of
 * the proof cache's entries (store.ts) and of the compiled-validator cache's manifests
 * (compiler/cli/common.ts): an entry written by another user, copied from another machine or
 * committed to a repository carries no seal made with this key and is ignored.
 *
 * Owner and mode checks apply where the platform has them (`process.getuid`): on Windows the
 * folder lives under the user's profile and only its type is checked.
 *
 * Imports nothing but Node (the CLI's code cache and the prover's proof cache both use it).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** A cache folder or file that cannot be trusted: its message names the path and what is wrong, `help` says how to fix it. */
export class UntrustedCacheError extends Error {
  constructor(
    message: string,
    readonly help: string,
  ) {
    super(message);
  }
}

/** The part of `fs.Stats` the checks read (a test may stub `lstat` with it). */
export type StatLike = Pick<fs.Stats, "uid" | "mode" | "isDirectory" | "isFile" | "isSymbolicLink">;

/** How the checks read a path's status and the running user (replaceable in tests). */
export interface TrustProbe {
  lstat(p: string): StatLike;
  /** the running user's uid, or undefined where the platform has none (Windows) */
  uid(): number | undefined;
}

export const realProbe: TrustProbe = {
  lstat: (p) => fs.lstatSync(p),
  uid: () => (typeof process.getuid === "function" ? process.getuid() : undefined),
};

/**
 * The per-user cache folder (not created): `$XDG_CACHE_HOME/rulewright` when XDG_CACHE_HOME is
 * an absolute path (the XDG base directory rule ignores a relative one), else
 * `<home>/.cache/rulewright`.
 */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "rulewright");
  return path.join(os.homedir(), ".cache", "rulewright");
}

/**
 * Whether `p`'s status is safe to trust for the running user: undefined when it is, else what is
 * wrong ("owned by uid 1001", "writable by group or others", …). `kind` is what `p` must be;
 * `privateRead` also refuses read permission for group or others (a secret).
 */
export function untrustedReason(p: string, kind: "dir" | "file", opts: { privateRead?: boolean; probe?: TrustProbe } = {}): string | undefined {
  const probe = opts.probe ?? realProbe;
  const st = probe.lstat(p);
  if (st.isSymbolicLink()) return "is a symbolic link";
  if (kind === "dir" ? !st.isDirectory() : !st.isFile()) return kind === "dir" ? "is not a folder" : "is not a regular file";
  const uid = probe.uid();
  if (uid === undefined) return undefined;
  if (st.uid !== uid) return `is owned by uid ${st.uid}, not by you (uid ${uid})`;
  if (st.mode & (opts.privateRead ? 0o077 : 0o022)) return `has mode ${(st.mode & 0o777).toString(8).padStart(3, "0")} (${opts.privateRead ? "group or others may read or write it" : "group or others may write it"})`;
  return undefined;
}

/**
 * Creates folder `dir` (and its parents) when missing, the last one with mode 0700, then checks
 * it (`untrustedReason`: a folder, the user's, not group/other-writable). Returns `dir`.
 * @throws UntrustedCacheError naming the folder and the fix when it is not safe to use
 */
export function ensurePrivateDir(dir: string, probe: TrustProbe = realProbe): string {
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
      // the umask may have taken bits away, never added them; set the mode exactly
      fs.chmodSync(dir, 0o700);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
  const why = untrustedReason(dir, "dir", { probe });
  if (why)
    throw new UntrustedCacheError(
      `the cache folder ${dir} ${why}: rulewright does not use a cache that someone else could write`,
      `delete it (rulewright creates it again, mode 0700) or \`chmod 700\` it if it is yours, or set XDG_CACHE_HOME to a folder of your own`,
    );
  return dir;
}

const secretMemo = new Map<string, Buffer>();

/**
 * The per-user secret (32 bytes) in `<dir>/secret.key` (default `userCacheDir()`), created on
 * first use (hex, mode 0600, written to a temporary file and linked into place, so concurrent
 * processes agree on one key). Memoized per folder.
 * @throws UntrustedCacheError when the folder or the key file is not the user's own and private
 */
export function cacheSecret(dir: string = userCacheDir(), probe: TrustProbe = realProbe): Buffer {
  const memo = secretMemo.get(dir);
  if (memo) return memo;
  ensurePrivateDir(dir, probe);
  const file = path.join(dir, "secret.key");
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
    fs.writeFileSync(tmp, crypto.randomBytes(32).toString("hex") + "\n", { mode: 0o600 });
    fs.chmodSync(tmp, 0o600);
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      // another process made it first: use that one
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const why = untrustedReason(file, "file", { privateRead: true, probe });
  const bad = (what: string) =>
    new UntrustedCacheError(`the cache key ${file} ${what}: rulewright does not trust a key someone else could read or write`, "delete it (rulewright makes a new one, mode 0600; what was cached is then proved or compiled again)");
  if (why) throw bad(why);
  const text = fs.readFileSync(file, "utf8").trim();
  if (!/^[0-9a-f]{64}$/.test(text)) throw bad("is not 64 hexadecimal digits");
  const key = Buffer.from(text, "hex");
  secretMemo.set(dir, key);
  return key;
}

/** The HMAC-SHA256 (hex) of `text` under `key`: the seal of a cache entry. */
export function seal(key: Buffer, text: string): string {
  return crypto.createHmac("sha256", key).update(text).digest("hex");
}

/** Whether `mac` is the seal of `text` under `key` (compared in constant time). */
export function sealed(key: Buffer, text: string, mac: unknown): boolean {
  if (typeof mac !== "string" || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return crypto.timingSafeEqual(Buffer.from(seal(key, text), "hex"), Buffer.from(mac, "hex"));
}
