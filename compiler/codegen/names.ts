/**
 * Naming helpers for the generated code: identifiers from IR names, collision-free allocation.
 * Pure string functions; no dependency on the IR beyond names.
 */
import { jsString } from "./escape.js";

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `declare_war` → `DeclareWar`, `dow.scotland` → `DowScotland`. */
export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((p) => p.length > 0)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join("");
}

/** A valid identifier fragment from any name: every other character becomes `_`. */
export function identPart(name: string): string {
  const s = name.replace(/[^A-Za-z0-9_]/g, "_");
  return /^[0-9]/.test(s) ? `_${s}` : s;
}

/** A property key as written in a type or object literal: bare when an identifier, else quoted. */
export function propKey(name: string): string {
  return IDENT.test(name) ? name : jsString(name);
}

/** `obj.name` or `obj["name"]`. */
export function propAccess(obj: string, name: string): string {
  return IDENT.test(name) ? `${obj}.${name}` : `${obj}[${jsString(name)}]`;
}

/** The local name of an IR variable (action/route parameter, quantifier variable). */
export function varName(name: string): string {
  return `v_${identPart(name)}`;
}

/**
 * Allocates unique top-level names. Allocation order is the generation order, which is
 * deterministic, so the names are too.
 */
export class Names {
  private readonly used = new Set<string>();
  constructor(reserved: Iterable<string> = []) {
    for (const r of reserved) this.used.add(r);
  }
  take(base: string): string {
    let n = base;
    for (let i = 2; this.used.has(n); i++) n = `${base}_${i}`;
    this.used.add(n);
    return n;
  }
}
