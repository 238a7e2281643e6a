/**
 * The generated header's inputs hash (compiler/codegen/header.ts): written by `header`, read back
 * by `headerInputsHash` (the CLI's staleness test of a bundled edition's generated/) and dropped
 * by `withoutInputsHash` (`build --watch` telling a code change from a new hash).
 */
import { describe, expect, it } from "vitest";
import { header, headerInputsHash, withoutInputsHash } from "../../compiler/codegen/header.js";
import { tinyIR } from "../helpers/tiny-ir.js";

describe("generated header", () => {
  const ir = { ...tinyIR(), inputHash: "ab".repeat(32) };
  const file = `${header(ir, "Validators of Tiny.")}\nexport const X = 1;\n`;

  it("reads back the inputs hash it wrote", () => {
    expect(headerInputsHash(file)).toBe(ir.inputHash);
    expect(headerInputsHash(file.replace(/\n/g, "\r\n"))).toBe(ir.inputHash);
    expect(headerInputsHash(header({ ...ir, inputHash: "0".repeat(64) }, "x"))).toBe("0".repeat(64));
  });

  it("finds no hash in a text without the header line", () => {
    expect(headerInputsHash("export const X = 1;\n")).toBeUndefined();
    // not 64 hex digits, or not at the start of a line
    expect(headerInputsHash(`// inputs sha256: ${"ab".repeat(31)}\n`)).toBeUndefined();
    expect(headerInputsHash(`const s = "// inputs sha256: ${ir.inputHash}";\n`)).toBeUndefined();
  });

  it("drops only the hash line, so two files that differ in their hash alone compare equal", () => {
    const other = `${header({ ...ir, inputHash: "cd".repeat(32) }, "Validators of Tiny.")}\nexport const X = 1;\n`;
    expect(other).not.toBe(file);
    expect(withoutInputsHash(other)).toBe(withoutInputsHash(file));
    expect(withoutInputsHash(file)).toContain("export const X = 1;");
    expect(withoutInputsHash(file)).not.toContain(ir.inputHash);
    expect(withoutInputsHash(file.replace("X = 1", "X = 2"))).not.toBe(withoutInputsHash(file));
  });
});
