/**
 * Completion, from the tokens before the cursor (so it works in half-typed text): fields typed
 * from the schema after `state.`/`c.` (a bound variable's domain followed), enum members after
 * `E.`, `during` and a comma between an action scope's phases, rule ids after `lifts`/`override rule`/`remove rule` (and after a comma in an
 * exemption's targets), actions after `forbid`/`oblige`; elsewhere keywords, snippets, the
 * action's parameters, bound variables, enums, members, defs, tables and routes.
 */
import type { IToken } from "chevrotain";
import { offsetAt } from "../diagnostics/lines.js";
import type { Decl } from "../syntax/ast.js";
import { KEYWORDS, RulesLexer } from "../syntax/tokens.js";
import type { FeatureContext } from "./context.js";
import { typeRefText, type EditionIndex } from "./symbols.js";

/** What a completion offers (the edge maps it to the protocol's kinds). */
export type CompletionKind = "keyword" | "snippet" | "event" | "function" | "enumMember" | "enum" | "field" | "variable";

/** One completion: its label, kind, detail, and for a snippet the text with `${n:…}` placeholders. */
export interface CompletionEntry {
  label: string;
  kind: CompletionKind;
  detail?: string;
  snippet?: string;
}

const SNIPPETS: { label: string; detail: string; body: string }[] = [
  { label: "forbid … when …", detail: "a rule that bans an action", body: 'rule ${1:section.id} §${2:9.6} "${3:what the rule bans, in your words}"\n  during ${4:phase}\n  forbid ${5:action} when ${0:condition}' },
  { label: "oblige … when …", detail: "a rule that makes an action the only legal move", body: 'rule ${1:section.id} §${2:11} "${3:when the power must do it}"\n  during ${4:phase}\n  oblige ${5:action} when ${0:condition}' },
  { label: "exempt … lifts …", detail: "an exemption", body: 'exempt ${1:section.id} §${2:10} "${3:what lifts the rules}"\n  lifts ${4:(*)}\n  when ${0:condition}' },
  { label: "some … in …: …", detail: "a quantifier", body: "some ${1:x} in ${2:domain}: ${0:condition}" },
];

/**
 * The completions at a 1-based line and column of `file`: by what the tokens before it are (see
 * the file's comment); every edition's names when the file is in none, the keywords only.
 */
export function completion(ctx: FeatureContext, file: string, line: number, column: number): CompletionEntry[] {
  const text = ctx.project.read(file) ?? "";
  const offset = offsetAt(text, line, column);
  const toks = RulesLexer.tokenize(text.slice(0, offset)).tokens;
  // a word being typed is the prefix, not context
  const last = toks[toks.length - 1];
  if (last && last.endOffset === offset - 1 && /^[A-Za-z_]/.test(last.image)) toks.pop();
  const prev = toks[toks.length - 1];
  const img = (t?: IToken) => t?.image;
  const indexes = ctx.indexesOf(file);
  const index = indexes[0];
  if (!index) return KEYWORDS.map((k) => ({ label: k, kind: "keyword" }));

  const ruleIds = (): CompletionEntry[] => {
    const ids = new Set<string>();
    for (const idx of indexes) for (const o of idx.occurrences) if (o.def && o.kind === "rule") ids.add(o.name);
    for (const idx of indexes) for (const d of idx.decls) if (d.decl.k === "rule") ids.add(d.decl.id.name);
    return [...ids].sort().map((id) => ({ label: id, kind: "event", detail: "rule" }));
  };
  const members = (e: string): CompletionEntry[] => (index.enums.get(e)?.members ?? []).map((m) => ({ label: m, kind: "enumMember", detail: e }));

  // after `lifts`, `override rule`, `remove rule`, or a comma in an exemption's targets
  const declStart = findLastIndex(toks, (t, i) => isDeclKeyword(t.image) && img(toks[i - 1]) !== "." && !(t.image === "rule" && ["override", "remove"].includes(img(toks[i - 1]) ?? "")));
  const decl = toks.slice(Math.max(0, declStart));
  if (img(prev) === "lifts" || (img(prev) === "rule" && ["override", "remove"].includes(img(toks[toks.length - 2]) ?? ""))) return ruleIds();
  if (img(prev) === "," && decl[0]?.image === "exempt" && decl.some((t) => t.image === "lifts") && !decl.some((t) => t.image === "when")) return ruleIds();
  if (img(prev) === "forbid" || img(prev) === "oblige") {
    return index.decls.filter((d) => d.decl.k === "action").map((d): CompletionEntry => ({ label: (d.decl as Extract<Decl, { k: "action" }>).name.name, kind: "function", detail: "action" }));
  }
  // an action's scope names several phases, comma-separated: `during a, b.s`
  const scopeStart = decl[0]?.image === "action" ? decl.findIndex((t) => t.image === "during") : -1;
  const inActionScope = scopeStart >= 0 && !decl.slice(scopeStart).some((t) => t.image.startsWith("§"));
  if (img(prev) === "during" || (img(prev) === "," && inActionScope)) return members("Phase");
  if (img(prev) === ".") {
    const chain = chainBefore(toks, toks.length - 1);
    const before = img(toks[toks.length - 3]);
    if (chain.length === 1 && (before === "during" || (before === "," && inActionScope))) return members("Segment");
    if (chain.length === 1 && index.enums.has(chain[0]!)) return members(chain[0]!);
    const node = resolveChain(index, chain, decl);
    if (node && index.schema) {
      const rec = index.schema.deref(node);
      return index.schema.fields(rec).map((f) => ({ label: f, kind: "field", detail: index.schema!.typeText(index.schema!.field(rec, f)) }));
    }
    return [];
  }
  // anywhere else: keywords, snippets, names in scope
  const items: CompletionEntry[] = KEYWORDS.map((k) => ({ label: k, kind: "keyword" }));
  for (const s of SNIPPETS) items.push({ label: s.label, kind: "snippet", detail: s.detail, snippet: s.body });
  const act = decl.findIndex((t) => t.image === "forbid" || t.image === "oblige");
  const actionName = act >= 0 ? img(decl[act + 1]) : undefined;
  const action = actionName ? index.decls.find((d) => d.decl.k === "action" && d.decl.name.name === actionName)?.decl : undefined;
  if (action?.k === "action") for (const p of action.params) items.push({ label: p.name.name, kind: "variable", detail: `${typeRefText(p.type)} (parameter of ${actionName})` });
  for (let i = 0; i + 2 < decl.length; i++) {
    if (["some", "every", "count", "sum", "max", "min", ","].includes(decl[i]!.image) && decl[i + 2]!.image === "in" && /^[A-Za-z_]/.test(decl[i + 1]!.image)) {
      items.push({ label: decl[i + 1]!.image, kind: "variable", detail: "bound variable" });
    }
  }
  for (const e of index.enums.values()) {
    if (e.name !== "Space") items.push({ label: e.name, kind: "enum", detail: "enum" });
    if (!e.base && e.name !== "Space") for (const m of e.members) items.push({ label: m, kind: "enumMember", detail: e.name });
  }
  for (const { decl: d } of index.decls) {
    if (d.k === "def" || d.k === "table" || d.k === "route") items.push({ label: d.name.name, kind: "function", detail: d.k });
  }
  const seen = new Set<string>();
  return items.filter((i) => (seen.has(i.label + i.kind) ? false : (seen.add(i.label + i.kind), true)));
}


/** The schema node of `state.a[x].b` / `c.b` chains written before a `.` (token-level, works in half-typed text). */
function resolveChain(index: EditionIndex, chain: string[], decl: IToken[], depth = 0): ReturnType<NonNullable<EditionIndex["schema"]>["rootNode"]> | undefined {
  const schema = index.schema;
  if (!schema || !chain.length || depth > 8) return undefined;
  let node: ReturnType<typeof schema.rootNode> | undefined;
  const [root, ...rest] = chain;
  if (root === "state") node = schema.rootNode();
  else {
    // a bound variable: `some c in <domain>:` → the domain's element
    for (let i = decl.length - 3; i >= 0; i--) {
      if (decl[i + 1]!.image === root && decl[i + 2]!.image === "in") {
        const dom: string[] = [];
        let j = i + 3;
        let depthB = 0;
        const domToks: IToken[] = [];
        for (; j < decl.length; j++) {
          const t = decl[j]!.image;
          if (depthB === 0 && (t === ":" || t === "where" || t === ")" || t === ",")) break;
          if (t === "[" || t === "(") depthB++;
          if (t === "]" || t === ")") depthB--;
          domToks.push(decl[j]!);
        }
        dom.push(...chainBefore([...domToks, { image: "." } as IToken], domToks.length));
        const d = resolveChain(index, dom, decl.slice(0, i + 1), depth + 1);
        node = d ? schema.items(schema.deref(d)) : undefined;
        break;
      }
    }
  }
  for (const step of rest) {
    if (!node) return undefined;
    node = step === "[]" ? schema.mapValue(schema.deref(node)) : schema.field(schema.deref(node), step);
  }
  return node;
}


function isDeclKeyword(s: string): boolean {
  return ["edition", "schema", "board", "enum", "action", "def", "route", "rule", "exempt", "invariant", "module", "import", "override", "remove", "table", "decline"].includes(s);
}

function findLastIndex<T>(xs: T[], p: (x: T, i: number) => boolean): number {
  for (let i = xs.length - 1; i >= 0; i--) if (p(xs[i]!, i)) return i;
  return -1;
}

/** The postfix chain ending before the `.` at `dot`: `state.a[x].b` → ["state", "a", "[]", "b"]. */
export function chainBefore(toks: IToken[], dot: number): string[] {
  const out: string[] = [];
  let i = dot - 1;
  while (i >= 0) {
    const t = toks[i]!;
    if (t.image === "]") {
      let depth = 0;
      for (; i >= 0; i--) {
        if (toks[i]!.image === "]") depth++;
        if (toks[i]!.image === "[") depth--;
        if (depth === 0) break;
      }
      out.push("[]");
      i--;
      continue;
    }
    if (/^[A-Za-z_]/.test(t.image)) {
      out.push(t.image);
      if (i >= 1 && toks[i - 1]!.image === ".") {
        i -= 2;
        continue;
      }
      break;
    }
    break;
  }
  return out.reverse();
}

