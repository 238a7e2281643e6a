/**
 * The per-edition context of code generation (compiler/codegen/context.ts): what every generated
 * file reads, computed once — declarations in generated order, enum members, exported names,
 * lifting exemptions in the order the generated code tests them, the actor type.
 */
import { describe, expect, it } from "vitest";
import { editionContext, tablesReserved } from "../../compiler/codegen/context.js";
import { liftedBy } from "../../compiler/ir/derived.js";
import type { IRExemption, IRTable } from "../../compiler/ir/types.js";
import { MajorPower, tinyIR } from "../helpers/tiny-ir.js";

describe("editionContext", () => {
  it("sorts the declarations as every generated list does", () => {
    const ir = tinyIR();
    const cx = editionContext(ir);
    const sorted = (xs: string[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(cx.actions.map((a) => a.name)).toEqual(sorted(ir.actions.map((a) => a.name)));
    expect(cx.rules.map((r) => r.id)).toEqual(sorted(ir.rules.map((r) => r.id)));
    expect(cx.routes.map((r) => r.name)).toEqual(sorted(ir.routes.map((r) => r.name)));
    expect(cx.enumTypes).toEqual(sorted([...new Set([...ir.enums.map((e) => e.name), "Space"])]));
    expect(cx.members.get("MajorPower")).toEqual(MajorPower.members);
    // every action of the tiny edition acts with a MajorPower
    expect(cx.actorType).toEqual(MajorPower);
  });

  it("lists the lifting exemptions by id, however they are declared, and keeps the list", () => {
    const ir = tinyIR();
    const r = ir.rules.find((x) => x.id === "deploy.path")!;
    const early: IRExemption = { ...ir.exemptions[0]!, id: "aaa.first", groups: ["*"], rules: [] };
    const late = { ...ir, exemptions: [...ir.exemptions, early] };
    const cx = editionContext(late);
    expect(liftedBy(late, r).map((e) => e.id)).toEqual(["ex.spring", "aaa.first"]);
    expect(cx.lifts(r).map((e) => e.id)).toEqual(["aaa.first", "ex.spring"]);
    expect(cx.lifts(r)).toBe(cx.lifts(r));
  });

  it("names a record table's row type apart from every name tables.ts reserves", () => {
    const ir = tinyIR();
    const base = (ir.tables ?? [])[0];
    // a table whose `<Table>Result` would be taken by an enum of the same name
    const t: IRTable = {
      ...(base ?? { title: "t", citation: ir.rules[0]!.citation, params: [], keys: [], keyLabels: [], rows: [], pos: ir.rules[0]!.pos }),
      name: "power",
      result: { k: "record", fields: [{ name: "cp", type: { k: "int" } }] },
    } as IRTable;
    const clash = { ...ir, enums: [...ir.enums, { name: "PowerResult", base: "PowerResult", members: ["x"], pos: ir.rules[0]!.pos }], tables: [t] };
    const cx = editionContext(clash);
    expect(cx.lookupNames.get("power")).toBe("lookupPower");
    expect(tablesReserved(cx)).toContain("PowerResult");
    expect(cx.resultTypeNames.get("power")).toBe("PowerResult_2");
  });
});
