/**
 * The last pass over a generated file's text, so that it compiles under `noUnusedLocals` and
 * `noUnusedParameters`: a function parameter its body never reads is renamed `_<name>` (TypeScript
 * exempts parameters starting with `_`), and an imported name the file never reads is dropped
 * from its import (the whole import when none is left).
 *
 * Purely syntactic (TypeScript's parser, no type checking): a name counts as read when an
 * identifier of that text occurs in the function body (or, for imports, anywhere outside the
 * imports). A name shadowed by an inner declaration therefore counts as read — the pass never
 * renames or drops something that is used; at worst it leaves an unused name in place.
 */
import { ts } from "ts-morph";

interface Edit {
  start: number;
  end: number;
  insert: string;
}

/** `text` with unused parameters renamed and unused imports dropped (see the module doc). */
export function pruneUnused(text: string, fileName = "generated.ts"): string {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const edits: Edit[] = [];
  const fileIdents = new Set<string>();

  const collect = (node: ts.Node, into: Set<string>): void => {
    const stack: ts.Node[] = [node];
    while (stack.length) {
      const n = stack.pop()!;
      if (ts.isIdentifier(n)) into.add(ts.idText(n));
      n.forEachChild((c) => {
        stack.push(c);
      });
    }
  };

  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st)) continue;
    collect(st, fileIdents);
  }

  const visitFunctions = (root: ts.Node): void => {
    const stack: ts.Node[] = [root];
    while (stack.length) {
      const n = stack.pop()!;
      if ((ts.isFunctionDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isMethodDeclaration(n)) && n.body) {
        const used = new Set<string>();
        collect(n.body, used);
        for (const p of n.parameters) {
          if (!ts.isIdentifier(p.name)) continue;
          const name = ts.idText(p.name);
          if (name.startsWith("_") || name === "this" || used.has(name)) continue;
          const start = p.name.getStart(sf);
          edits.push({ start, end: start, insert: "_" });
        }
      }
      n.forEachChild((c) => {
        stack.push(c);
      });
    }
  };
  for (const st of sf.statements) if (!ts.isImportDeclaration(st)) visitFunctions(st);

  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st)) continue;
    const clause = st.importClause;
    if (!clause || clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) continue;
    const elems = clause.namedBindings.elements;
    const kept = elems.filter((e) => fileIdents.has(ts.idText(e.name)));
    if (kept.length === elems.length) continue;
    const start = st.getStart(sf);
    if (kept.length === 0) {
      // drop the declaration with its line break
      let end = st.getEnd();
      if (text[end] === "\n") end++;
      edits.push({ start, end, insert: "" });
      continue;
    }
    const typeOnly = clause.isTypeOnly ? "type " : "";
    const spec = (st.moduleSpecifier as ts.StringLiteral).getText(sf);
    edits.push({ start, end: st.getEnd(), insert: `import ${typeOnly}{ ${kept.map((e) => e.getText(sf)).join(", ")} } from ${spec};` });
  }

  if (edits.length === 0) return text;
  edits.sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of edits) out = out.slice(0, e.start) + e.insert + out.slice(e.end);
  return out;
}
