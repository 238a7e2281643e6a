/**
 * Canonical SMT-LIB text for the proof files.
 *
 * Z3's printer decides which subterms to `let`-bind from their reference counts, which depend on
 * which JS wrappers the garbage collector has freed: the same assertions print differently from
 * run to run. `canonicalSmt2` re-prints every `(assert …)`: lets are expanded into a structurally
 * hash-consed DAG, then every compound subterm used twice or more in an assertion is bound once,
 * in first-completion order, as `?tN`. Everything else (declarations, check-sat) is kept as is.
 */

type Tok = string;

function tokenize(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s[i];
    if (c === " " || c === "\n" || c === "\t" || c === "\r") i++;
    else if (c === ";") {
      while (i < n && s[i] !== "\n") i++;
    } else if (c === "(" || c === ")") {
      out.push(c);
      i++;
    } else if (c === "|") {
      const j = s.indexOf("|", i + 1);
      out.push(s.slice(i, j + 1));
      i = j + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && !(s[j] === '"' && s[j + 1] !== '"')) j += s[j] === '"' ? 2 : 1;
      out.push(s.slice(i, j + 1));
      i = j + 1;
    } else {
      let j = i;
      while (j < n && !" \n\t\r();|".includes(s[j])) j++;
      out.push(s.slice(i, j));
      i = j;
    }
  }
  return out;
}

/** A parsed s-expression: an atom or a list. */
type SExp = string | SExp[];

function parse(tokens: Tok[]): SExp[] {
  const top: SExp[] = [];
  const stack: SExp[][] = [];
  for (const t of tokens) {
    if (t === "(") stack.push([]);
    else if (t === ")") {
      const done = stack.pop()!;
      if (stack.length) stack[stack.length - 1].push(done);
      else top.push(done);
    } else if (stack.length) stack[stack.length - 1].push(t);
    else top.push(t);
  }
  return top;
}

class Dag {
  readonly atoms: (string | undefined)[] = [];
  readonly kids: (number[] | undefined)[] = [];
  private readonly index = new Map<string, number>();

  atom(s: string): number {
    const key = "a" + s;
    let id = this.index.get(key);
    if (id === undefined) {
      id = this.atoms.length;
      this.atoms.push(s);
      this.kids.push(undefined);
      this.index.set(key, id);
    }
    return id;
  }
  app(ks: number[]): number {
    const key = ks.join(" ");
    let id = this.index.get(key);
    if (id === undefined) {
      id = this.atoms.length;
      this.atoms.push(undefined);
      this.kids.push(ks);
      this.index.set(key, id);
    }
    return id;
  }

  /**
   * Builds the node of `e`, expanding `let`s (parallel bindings). `env` maps let-bound names to
   * nodes; it is updated in place and restored before returning. A `let` body is followed in a
   * loop, not by recursion, and the map is never copied: Z3 nests one `let` per shared subterm,
   * thousands deep on large assertions (the §12 line-of-communication rules), which overflowed
   * the call stack and, with a copy per level, took quadratic time.
   */
  build(e: SExp, env: Map<string, number>): number {
    const saved: [string, number | undefined][] = [];
    while (typeof e !== "string" && e[0] === "let" && Array.isArray(e[1])) {
      const vals = (e[1] as SExp[][]).map((b) => [b[0] as string, this.build(b[1], env)] as const);
      for (const [k, v] of vals) {
        saved.push([k, env.get(k)]);
        env.set(k, v);
      }
      e = e[2];
    }
    const id = typeof e === "string" ? (env.get(e) ?? this.atom(e)) : this.app(e.map((x) => this.build(x, env)));
    for (let i = saved.length - 1; i >= 0; i--) {
      const [k, prev] = saved[i]!;
      if (prev === undefined) env.delete(k);
      else env.set(k, prev);
    }
    return id;
  }


  /** Prints the node with every compound subterm used twice or more bound by a `let`. */
  print(root: number): string {
    const count = new Map<number, number>();
    const seen = new Set<number>();
    const order: number[] = [];
    // iterative post-order over the DAG, children in position order
    const stack: [number, number][] = [[root, 0]];
    seen.add(root);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const ks = this.kids[top[0]];
      if (ks && top[1] < ks.length) {
        const k = ks[top[1]++];
        count.set(k, (count.get(k) ?? 0) + 1);
        if (!seen.has(k)) {
          seen.add(k);
          stack.push([k, 0]);
        }
      } else {
        stack.pop();
        order.push(top[0]);
      }
    }
    const name = new Map<number, string>();
    const text = (id: number): string => {
      const a = this.atoms[id];
      if (a !== undefined) return a;
      const nm = name.get(id);
      if (nm) return nm;
      return "(" + this.kids[id]!.map(text).join(" ") + ")";
    };
    const lines: string[] = [];
    for (const id of order) {
      if (id === root || this.kids[id] === undefined || (count.get(id) ?? 0) < 2) continue;
      const body = text(id);
      const nm = `?t${name.size + 1}`;
      name.set(id, nm);
      lines.push(` (let ((${nm} ${body}))`);
    }
    const body = text(root);
    if (!lines.length) return ` ${body}`;
    return lines.join("\n") + "\n " + body + ")".repeat(lines.length);
  }
}

const printFlat = (e: SExp): string => (typeof e === "string" ? e : "(" + e.map(printFlat).join(" ") + ")");

/** Deterministic re-print of a Z3 benchmark (see the module comment). */
export function canonicalSmt2(z3Text: string): string {
  // an enum's datatype declared under a name of its own in a process that proves several
  // editions (encode/terms.ts enumDatatype) is printed under the enum's name
  const forms = parse(tokenize(z3Text.replace(/\b([A-Za-z_]\w*)@\d+(?=[\s()|])/g, "$1")));
  const dag = new Dag();
  const out: string[] = [];
  for (const f of forms) {
    if (Array.isArray(f) && f[0] === "assert" && f.length === 2) {
      out.push("(assert\n" + dag.print(dag.build(f[1], new Map())) + ")");
    } else out.push(printFlat(f));
  }
  return out.join("\n") + "\n";
}
