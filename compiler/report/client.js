// The rulebook report's page script (compiler/report/README.md). Plain browser JavaScript, inlined
// into index.html by site.ts after board.js (the global RWBoard) and search.js (RWSearch); reads the
// data inlined beside it, renders the hash route into <main>. Every text from the data goes through
// esc(), every number through num(): rule titles, sources and the numbers of a --coverage or
// --tests file are untrusted input (issue 29: a "number" that was markup ran its script on every
// route). Fields the data may lack (older data, or findings not yet explained in words) are shown
// when present and left out when absent.
(function () {
  "use strict";
  /** The data from its shared form (shared-json.ts: repeated subtrees stored once in `$shared`, `{ "$s": i }` where they occur); each reference a fresh copy. */
  function unshare(raw) {
    if (!raw || !Array.isArray(raw.$shared)) return raw;
    const fix = (x) => {
      if (Array.isArray(x)) return x.map(fix);
      if (x === null || typeof x !== "object") return x;
      const keys = Object.keys(x);
      if (keys.length === 1 && keys[0] === "$s") return fix(raw.$shared[x.$s]);
      return Object.fromEntries(keys.map((k) => [k, fix(x[k])]));
    };
    return fix(raw.$root);
  }
  const data = unshare(JSON.parse(document.getElementById("data").textContent));
  const main = document.getElementById("main");
  const SITE = "rulewright report";

  function esc(s) {
    return String(s == null ? "" : s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  const enc = encodeURIComponent;
  const edition = (f) => data.editions.find((e) => e.folder === f);
  const ruleOf = (e, id) => e.rules.find((r) => r.id === id) || e.rules.find((r) => r.what === "invariant" && `inv:${r.id}` === id);
  const ruleLink = (e, id) => `<a href="#/r/${enc(e.folder)}/${enc(id)}">${esc(id)}</a>`;
  /** a rule id as a link when the edition has it (invariants also as `inv:<id>`), else as text */
  const anyRule = (e, id) => {
    const r = ruleOf(e, id);
    return r ? ruleLink(e, r.id) : `<code>${esc(id)}</code>`;
  };
  /** a text with each rule id it names (bare or in backticks) made a link to the rule's page; the rest escaped */
  const linkIds = (e, text, ids) => {
    const known = [...new Set(ids)].filter((id) => ruleOf(e, id)).sort((a, b) => b.length - a.length);
    const parts = [String(text == null ? "" : text)];
    for (const id of known)
      for (let i = parts.length - 1; i >= 0; i -= 2) {
        const bits = parts[i].split(new RegExp("(?<![\\w.])`?" + id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "`?(?!\\w|\\.\\w)"));
        const out = [];
        bits.forEach((b, j) => (j ? out.push(id, b) : out.push(b)));
        parts.splice(i, 1, ...out);
      }
    return parts.map((p, i) => (i % 2 ? anyRule(e, p) : esc(p))).join("");
  };
  const obLink = (e, id) => `<a href="#/o/${enc(e.folder)}/${enc(id)}">${esc(id)}</a>`;
  const verdict = (v) => `<span class="v v-${esc(v)}">${esc(v)}</span>`;
  /** a number as text, or "–" for anything that is not a finite number (never markup) */
  const num = (n) => (typeof n === "number" && Number.isFinite(n) ? String(n) : "–");
  const pct = (p) => (typeof p === "number" && Number.isFinite(p) ? `${p.toFixed(1)}%` : "–");
  const plural = (n, w) => `${num(n)} ${w}${n === 1 ? "" : "s"}`;
  /** a scrollable block (keyboard-focusable, as a named region) */
  const scroll = (label, html) => `<div class="scroll" tabindex="0" role="region" aria-label="${esc(label)}">${html}</div>`;

  document.getElementById("editions").innerHTML = data.editions.map((e) => `<a href="#/e/${enc(e.folder)}">${esc(e.folder)}</a>`).join(" ");

  // ---- what names a rule ------------------------------------------------------------------------
  /**
   * Every obligation that names the rule: those the data lists for it (data.ts ruleLinks), and any
   * with it as a subject, in its core, or blocking a move of a stuck power (not every obligation
   * whose rule set holds it: a redundant_rule obligation holds every rule of its action).
   */
  function obligationsOf(e, r) {
    const ids = new Set([r.id, `inv:${r.id}`]);
    const names = (o) => [...o.subjects, ...o.core, ...(o.stuck ? o.stuck.blocked.flatMap((b) => b.rules) : [])].some((x) => ids.has(x));
    const listed = new Set(r.obligations);
    return e.obligations.filter((o) => listed.has(o.id) || names(o));
  }
  /** The rules a rule interacts with: those of the cores and subjects of its obligations (strong), and the others its obligations share (weak). */
  function interactions(e, r, obs) {
    const strong = new Set(r.related);
    const weak = new Set();
    for (const o of obs) {
      for (const id of [...o.subjects, ...o.core]) strong.add(id);
      if (o.kind !== "stuck_power") for (const id of o.rules) weak.add(id);
      if (o.stuck) for (const b of o.stuck.blocked) if (b.rules.includes(r.id)) for (const id of b.rules) strong.add(id);
    }
    for (const id of [r.id, `inv:${r.id}`]) {
      strong.delete(id);
      weak.delete(id);
    }
    for (const id of strong) weak.delete(id);
    // only what the edition declares (a core may hold `move:end_spring_deployment`, a decline move)
    const known = (id) => !!ruleOf(e, id);
    return { strong: [...strong].filter(known).sort(), weak: [...weak].filter(known).sort() };
  }
  /** The scenarios of the whole report, by `file:line`: the name, result, expectation and the rules (per edition) that list it. */
  const scenarioIndex = new Map();
  for (const e of data.editions)
    for (const r of e.rules)
      for (const s of r.scenarios) {
        const key = `${s.file}:${s.line}`;
        const x = scenarioIndex.get(key) || { ...s, key, rules: [] };
        x.rules.push([e.folder, r.id]);
        scenarioIndex.set(key, x);
      }
  const scenarioLink = (key, text) => `<a href="#/s/${enc(key)}">${esc(text)}</a>`;

  // ---- banner: any unknown verdict, and why ------------------------------------------------------
  function banner() {
    const unknown = data.editions.flatMap((e) => e.obligations.filter((o) => o.verdict === "unknown").map((o) => ({ e, o })));
    if (!unknown.length) return "";
    const reasons = new Map();
    for (const { o } of unknown) reasons.set(o.reason || "the report gives no reason", (reasons.get(o.reason || "the report gives no reason") || 0) + 1);
    const eds = [...new Set(unknown.map((u) => u.e.folder))];
    return `<div class="banner" role="status"><b>${plural(unknown.length, "verdict")} unknown</b> (${eds.map(esc).join(", ")}): the prover gave no answer, so these obligations are neither proved nor refuted. Why: ${[...reasons].map(([why, n]) => `${esc(why)} (${num(n)})`).join("; ")}. Run <code>npx rulewright prove ${eds.map(esc).join(" ")}</code> again (on a quiet machine, or with a larger <code>--timeout</code>), then rebuild the report.</div>`;
  }

  // ---- pages ----------------------------------------------------------------------------------
  function overview() {
    const cards = data.editions.map((e) => {
      const p = e.proofs;
      const proofs = p
        ? `${scroll("proofs of " + e.folder, `<table class="t"><tr><th><a href="#/a">analysis</a></th><th>proved</th><th>refuted</th><th>unknown</th></tr>${p.byKind.map((k) => `<tr><td><a href="#/a/${enc(k.kind)}">${esc(k.kind)}</a></td><td>${num(k.proved)}</td><td>${num(k.refuted)}</td><td>${num(k.unknown)}</td></tr>`).join("")}<tr class="sum"><td>total</td><td data-count="proved">${num(p.proved)}</td><td data-count="refuted">${num(p.refuted)}</td><td data-count="unknown">${num(p.unknown)}</td></tr></table>`)}${p.stale ? `<p class="warn">the prove report is older than the rule files: run <code>npx rulewright prove ${esc(e.folder)}</code></p>` : ""}`
        : `<p class="warn">no prove report: run <code>npx rulewright prove ${esc(e.folder)}</code></p>`;
      const findings = e.obligations.filter((o) => o.verdict !== "proved");
      const shown = findings.filter((o) => o.verdict === "refuted");
      const unknown = findings.length - shown.length;
      const found = findings.length
        ? `<h3>Not proved</h3><ul class="findings">${shown.map((o) => `<li>${verdict(o.verdict)} ${obLink(e, o.id)}${o.example ? ` <small>(${esc(o.example.kind)} on the board)</small>` : ""}</li>`).join("")}</ul>${unknown ? `<p>${verdict("unknown")} ${plural(unknown, "obligation")} (see the banner; listed on <a href="#/e/${enc(e.folder)}">the edition's page</a>)</p>` : ""}`
        : "";
      const c = e.coverage;
      const cov = c
        ? `<p>sources encoded: <b data-count="encoded">${num(c.encoded)}</b>/<span data-count="restriction">${num(c.restriction)}</span> restriction paragraphs (${pct(c.percent)}); audited against the source text: <b data-count="audited">${num(c.audited)}</b>/<span data-count="auditable">${num(c.auditable)}</span> paragraphs (${pct(c.auditedPercent)})</p><table class="t cov"><tr><th>source</th><th title="encoded">enc.</th><th title="not encoded">not enc.</th><th title="out of scope">out of scope</th><th title="procedure">proc.</th><th>share</th><th>audited</th></tr>${c.files.map((f) => `<tr><td>${sourceName(f)}</td><td>${num(f.encoded)}</td><td>${num(f.notEncoded)}</td><td>${num(f.outOfScope)}</td><td>${num(f.procedure)}</td><td data-col="share">${pct(f.percent)}</td><td data-col="audited">${num(f.audited)}/${num(f.auditable)}</td></tr>`).join("")}</table>`
        : `<p class="muted">no coverage manifest names this edition</p>`;
      return `<section class="card" data-edition="${esc(e.folder)}"><h2><a href="#/e/${enc(e.folder)}">${esc(e.title)}</a> <small>${esc(e.folder)}${e.parent ? ` · extends ${esc(e.parent)}` : ""}</small></h2>
<p><span data-count="rules">${num(e.counts.rules)}</span> rules, ${num(e.counts.exemptions)} exemptions, ${num(e.counts.invariants)} invariants, ${num(e.counts.routes)} routes, ${num(e.counts.tables)} tables${e.counts.removed ? `, ${num(e.counts.removed)} removed` : ""} · scenarios: <span data-count="scenarios-passed">${num(e.scenarios.passed)}</span> passed, <span data-count="scenarios-failed">${num(e.scenarios.failed)}</span> failed</p>
<h3>Proofs</h3>${proofs}${found}<h3>Coverage of the sources</h3>${cov}
<details><summary><b>Actions</b> (${num(e.actions.length)})</summary>${scroll("actions of " + e.folder, `<table class="t"><tr><th>action</th><th>parameters</th><th>rules</th></tr>${e.actions.map((a) => `<tr><td>${esc(a.name)}</td><td>${esc(a.params)}</td><td>${num(a.rules)}</td></tr>`).join("")}</table>`)}</details></section>`;
    });
    const diffs = data.diffs.length
      ? data.diffs.map(diffCard).join("")
      : `<section class="card"><h2>Diffs between editions</h2><p class="muted">no two editions of this report declare the same action, and no <code>rulewright diff</code> report was found</p></section>`;
    return [`Overview`, `<h1>Rulebook report</h1><div class="grid">${cards.join("")}</div>${diffs}`];
  }

  /** A source file by its title when the data gives one, else by its file name. */
  function sourceName(f) {
    return f.title ? `${esc(f.title)} <small class="muted">${esc(f.source)}</small>` : `<code>${esc(f.source)}</code>`;
  }

  // A rule id linked to its page in the edition that has it (plain text when that edition is not in the report).
  function ruleIn(folder, id) {
    const e = edition(folder);
    return e && e.rules.some((r) => r.id === id) ? ruleLink(e, id) : esc(id);
  }

  // Two editions compared: the rule-level diff (from the IR, always current) beside the verdicts
  // `rulewright diff` proved (when its report exists; marked when the rules changed since).
  function diffCard(d, i) {
    const r = d.rules;
    const p = d.proved;
    const cmd = `npx rulewright diff ${d.a} ${d.b} --max-states 1`;
    const byAction = new Map();
    for (const a of r ? r.actions : []) byAction.set(a.action, { rules: a, proved: null });
    for (const a of p ? p.actions : []) {
      const row = byAction.get(a.action) || { rules: null, proved: null };
      row.proved = a;
      if (a.verdict !== "identical" || byAction.has(a.action)) byAction.set(a.action, row);
    }
    const names = [...byAction.keys()].sort();
    const ruleCell = (x) => {
      if (!x) return r ? `<span class="muted">same rules</span>` : `<span class="muted">–</span>`;
      const parts = [
        ...x.added.map((id) => `<li class="d-added">added ${ruleIn(d.b, id)}</li>`),
        ...x.removed.map((m) => `<li class="d-removed">removed ${ruleIn(d.a, m.id)}${m.reason ? ` <small>(${esc(m.reason)})</small>` : ""}</li>`),
        ...x.changed.map((c) => `<li class="d-changed">changed ${ruleIn(d.b, c.id)} <small>(${c.what.map(esc).join(", ")}; was ${ruleIn(d.a, c.id)} in ${esc(d.a)})</small></li>`),
        ...x.reworded.map((id) => `<li class="d-reworded">reworded ${ruleIn(d.b, id)} <small>(title or citation only)</small></li>`),
      ];
      return `<ul class="rd">${parts.join("")}</ul>${x.same ? `<small class="muted">${num(x.same)} other rule${x.same === 1 ? "" : "s"} the same</small>` : ""}`;
    };
    const verdictCell = (a) => (a ? `${verdict(a.verdict)}${a.reason ? ` <small>${esc(a.reason)}</small>` : ""}` : p ? verdict("identical") : `<span class="muted">not proved</span>`);
    const states = (a) => (a ? a.examples.map((x, j) => `<a href="#/d/${i}/${enc(a.action)}/${j}">state ${j + 1}</a>`).join(" ") : "");
    const rows = names.map((n) => {
      const row = byAction.get(n);
      return `<tr data-action="${esc(n)}"><td>${esc(n)}</td><td>${ruleCell(row.rules)}</td><td>${verdictCell(row.proved)}</td><td>${states(row.proved)}</td></tr>`;
    });
    const shared = r ? r.shared : p ? p.actions.length : 0;
    const rest = shared - names.length;
    const restText = rest > 0 ? `<p class="muted">the other ${rest} shared action${rest === 1 ? "" : "s"}: ${r ? "the same rules" : ""}${r && p ? ", " : ""}${p ? "verdicts proved identical" : ""}</p>` : "";
    const other = r && r.other.length ? `<p>Also: ${r.other.map((o) => `${esc(o.what)} <code>${esc(o.id)}</code> ${esc(o.change)}`).join("; ")}</p>` : "";
    const notShared = r ? r.notShared : p ? p.notCompared : [];
    const ns = notShared.length ? `<p class="muted">not compared: ${notShared.map((n) => `${esc(n.action)} (${esc(n.reason)})`).join(", ")}</p>` : "";
    const rulesNote = r
      ? `<b>Rules</b>: the rule-level diff, read from the rule files of both editions (current; it says which rules differ, not whether a verdict does).`
      : `<b>Rules</b>: not compared (an edition of this diff is not in the report).`;
    const provedNote = !p
      ? `<b>Verdicts</b>: <span data-proved="none">not proved</span> — <code>${esc(cmd)}</code> proves, for every shared action, whether some legal state gets another verdict (a Z3 run: about 1.5 minutes for Here I Stand's two editions on 2 cores); then rebuild the report.`
      : `<b>Verdicts</b>: proved by <code>rulewright diff</code>${p.file ? ` (<code>${esc(p.file)}</code>${p.maxStates !== null ? `, up to ${num(p.maxStates)} state${p.maxStates === 1 ? "" : "s"} per action, aspect and direction` : ""})` : ""}${
          p.current === true ? ` <span data-proved="current">on the rules as they are</span>.` : p.current === false ? ` — <span class="warn" data-proved="stale">the editions' files changed since that diff: run <code>${esc(cmd)}</code> again</span>.` : ` <span class="muted" data-proved="unknown">(the report does not say which rules it was made from)</span>.`
        }`;
    return `<section class="card diff" data-diff="${esc(d.a)}__${esc(d.b)}"><h2>diff ${esc(d.a)} → ${esc(d.b)} <small>${shared} shared action${shared === 1 ? "" : "s"}</small></h2>
<p class="muted">${rulesNote}<br>${provedNote}</p>${rows.length ? scroll(`diff ${d.a} to ${d.b}`, `<table class="t"><tr><th>action</th><th>rules that differ</th><th>verdicts</th><th>states</th></tr>${rows.join("")}</table>`) : `<p>no shared action has other rules</p>`}${restText}${other}${ns}</section>`;
  }

  function editionPage(e) {
    const obs = e.obligations.length
      ? `<section class="section"><h2>Proof obligations</h2>${scroll("proof obligations", `<table class="t"><tr><th>obligation</th><th>verdict</th><th>state</th></tr>${e.obligations.map((o) => `<tr><td>${obLink(e, o.id)}</td><td>${verdict(o.verdict)}${o.verdict === "unknown" && o.reason ? ` <small>${esc(o.reason)}</small>` : ""}</td><td>${o.example ? esc(o.example.kind) : ""}</td></tr>`).join("")}</table>`)}</section>`
      : `<p class="muted">no prove report: run <code>npx rulewright prove ${esc(e.folder)}</code></p>`;
    const toc = `<nav class="toc" aria-label="sections"><b>Sections:</b> ${e.sections.map((s, i) => `<a href="#/e/${enc(e.folder)}/${i}">${esc(s.section)}</a>`).join(" · ")}</nav>`;
    return [`${e.title} (${e.folder})`, `<h1>${esc(e.title)} <small>${esc(e.folder)}</small></h1>${toc}${e.sections
      .map((s, i) => `<section class="section" id="s-${i}"><h2>${esc(s.section)}</h2>${s.ids
        .map((id) => {
          const r = e.rules.find((x) => x.id === id);
          return r ? `<div class="rule"><div>${ruleLink(e, r.id)} <span class="kind">${esc(r.kind || r.what)}</span> <small>${esc(r.citation)}</small></div><div class="title">${esc(r.title)}</div><div class="english">${esc(r.english)}</div></div>` : "";
        })
        .join("")}</section>`)
      .join("")}${obs}`];
  }

  /** A rule's source without the comment lines after it (they belong to the next declaration). */
  function ownSource(src) {
    const lines = String(src || "").split("\n");
    while (lines.length > 1 && (/^\/\//.test(lines[lines.length - 1]) || lines[lines.length - 1].trim() === "")) lines.pop();
    return lines.join("\n");
  }

  function rulePage(e, r) {
    const obs = obligationsOf(e, r);
    const { strong, weak } = interactions(e, r, obs);
    const others = data.editions.filter((x) => x !== e && x.rules.some((y) => y.id === r.id));
    // the scenarios whose states witness its obligations (a his-500 rule's witnesses come from his scenarios)
    const witnessed = new Map();
    for (const o of obs) if (o.example && o.example.kind === "witness" && o.example.source && /:\d+$/.test(o.example.source)) witnessed.set(o.example.source, o);
    const scen = r.scenarios.length
      ? `<ul>${r.scenarios.map((s) => `<li>${s.pass === null ? "not run" : s.pass ? '<span class="v v-proved">pass</span>' : '<span class="v v-refuted">fail</span>'} ${scenarioLink(`${s.file}:${s.line}`, s.name)} <small>${esc(s.file)}:${num(s.line)} · expects ${esc(s.expect)}</small></li>`).join("")}</ul>`
      : `<p class="muted">no scenario ${witnessed.size ? `of ${esc(e.folder)} ` : ""}expects this ${esc(r.what)} to fire${witnessed.size ? "" : "."}</p>`;
    const wit = witnessed.size
      ? `<p>Witnesses of its proofs come from ${[...witnessed].map(([src, o]) => `${scenarioIndex.has(src) ? scenarioLink(src, scenarioIndex.get(src).name) : `<code>${esc(src)}</code>`} (${obLink(e, o.id)})`).join(", ")}.</p>`
      : "";
    const obTable = obs.length
      ? scroll("proof verdicts", `<table class="t"><tr><th>obligation</th><th>verdict</th><th>unsat core</th><th>state</th></tr>${obs.map((o) => `<tr><td>${obLink(e, o.id)}${o.kind === "stuck_power" ? " <small>(blocks a move)</small>" : ""}</td><td>${verdict(o.verdict)}${o.vacuous ? " (vacuous)" : ""}${o.reason ? ` <small>${esc(o.reason)}</small>` : ""}</td><td>${o.core.map((id) => anyRule(e, id)).join(", ")}</td><td>${o.example ? `<a href="#/o/${enc(e.folder)}/${enc(o.id)}">${esc(o.example.kind)}</a>` : ""}</td></tr>`).join("")}</table>`)
      : `<p class="muted">${e.proofs ? "no proof obligation names it" : "no prove report"}</p>`;
    return [`${r.id} (${e.folder})`, `<h1 class="rule-id">${esc(r.id)} <small>${esc(r.what)} · ${esc(e.folder)}</small></h1>
<p class="title">${esc(r.title)}</p><p><b>Citation</b> ${esc(r.citation || "–")} · <b>Declared in</b> <code>${esc(r.file)}:${num(r.line)}</code>${r.provenance ? ` · ${esc(r.provenance)}` : ""}${others.length ? ` · also in ${others.map((x) => ruleLink(x, r.id).replace(`>${esc(r.id)}<`, `>${esc(x.folder)}<`)).join(", ")}` : ""}</p>
<h2>In plain English</h2><p class="english" id="english">${esc(r.english)}</p>
<h2>Source</h2><pre class="src" tabindex="0" aria-label="source">${esc(ownSource(r.source))}</pre>
<h2>Reads</h2><p>${r.action ? `action <b>${esc(r.action)}</b>(${esc(r.params.join(", "))}); ` : ""}state fields: ${r.reads.length ? r.reads.map((x) => `<code>${esc(x)}</code>`).join(" ") : "none"}</p>
<h2>Scenarios</h2>${scen}${wit}
<h2>Proof verdicts</h2>${obTable}
<h2>Interacts with</h2><p class="interacts">${strong.length ? strong.map((id) => anyRule(e, id)).join(", ") : weak.length ? "" : "–"}</p>${weak.length ? `<details><summary>shares a proof obligation with ${plural(weak.length, "more rule")}</summary><p>${weak.map((id) => anyRule(e, id)).join(", ")}</p></details>` : ""}`];
  }

  /**
   * An obligation's finding in words: what the analysis asks, what the verdict means and the
   * finding (the data's `explanation`, compiler/ir/explanations.ts, when present), the unsat core
   * as links, a stuck power's blocked moves each with its rules, the replay command.
   */
  function findingWords(e, o) {
    const parts = [];
    const x = o.explanation;
    if (x) {
      if (x.asks) parts.push(`<p class="analysis"><b>What <a href="#/a/${enc(o.kind)}">${esc(o.kind.replace(/_/g, " "))}</a> asks:</b> ${esc(x.asks)}</p>`);
      if (x.means) parts.push(`<p class="means">${esc(x.means)}</p>`);
      if (x.finding) parts.push(`<p class="finding" id="finding">${linkIds(e, x.finding, [...o.rules, ...o.core, ...(x.core || []).map((c) => c.id)])}</p>`);
    }
    if (o.stuck) {
      const blocked = o.stuck.blocked.map((b) =>
        b.text
          ? `<li>${linkIds(e, b.text, b.rules)}</li>`
          : `<li><b>${esc(b.action)}</b>: ${b.rules.length ? `forbidden by ${b.rules.map((id) => anyRule(e, id)).join(", ")}` : "forbidden, though no single rule forbids it"}${b.everyChoice === true ? " (for every choice of its parameters)" : ""}</li>`,
      );
      parts.push(`<p><b>${esc(o.stuck.actor)}</b> has no legal move:</p><ul class="blocked">${blocked.join("")}</ul>${o.stuck.decline ? `<p>declining (${esc(o.stuck.decline)}) is not possible either</p>` : ""}`);
    }
    const core = x && Array.isArray(x.core) && x.core.length ? x.core : o.core.map((id) => ({ id }));
    if (core.length) parts.push(`<p class="core"><b>Unsat core</b> (the rules the proof needs): ${core.map((c) => `${anyRule(e, c.id)}${c.title ? ` <small>(${esc(c.title)})</small>` : ""}`).join(", ")}</p>`);
    // the CLI's replay command (compiler/cli/prove.ts replayCommand) for a counterexample; else the rule's explanation
    const ex = o.example;
    const check = ex && ex.kind === "counterexample" && /\.state\.json$/.test(ex.file || "") ? `npx rulewright check --edition ${e.folder} --state ${ex.file} --action ${ex.file.replace(/\.state\.json$/, ".action.json")}` : "";
    const replay = (x && x.replay) || o.replay || check;
    if (replay) parts.push(`<p class="replay"><b>Replay:</b> <code>${esc(replay)}</code></p>`);
    else if (o.verdict !== "proved" && o.subjects.length) parts.push(`<p class="replay"><b>Explain:</b> <code>${esc(`npx rulewright explain ${o.subjects[0]} --edition ${e.folder}`)}</code></p>`);
    return parts.join("");
  }

  function obligationPage(e, o) {
    const subj = o.subjects.length ? ` · rules ${o.subjects.map((id) => anyRule(e, id)).join(", ")}` : "";
    const head = `<p>${verdict(o.verdict)} <a href="#/a/${enc(o.kind)}">${esc(o.kind)}</a> (${esc(o.severity)}) · action ${o.action === "*" ? "any" : esc(o.action)}${subj}${o.reason ? ` · ${esc(o.reason)}` : ""}</p>`;
    const words = findingWords(e, o);
    if (!o.example) return [o.id, `<h1>${esc(o.id)}</h1>${head}${words}<p class="muted">no state for this obligation</p>`];
    return [o.id, examplePage(e, esc(o.id), o.example, head, words)];
  }

  /** The facts: grouped and in words (the data's `factGroups`) when present, with the raw facts folded; else the raw facts. */
  function factsHtml(e, ex) {
    const raw = ex.facts.length ? `<ul class="facts">${ex.facts.map((f) => `<li>${esc(f)}</li>`).join("")}</ul>` : `<p class="muted">no facts reported</p>`;
    const groups = Array.isArray(ex.factGroups) ? ex.factGroups.filter((g) => g.facts && g.facts.length) : [];
    if (!groups.length) return `<h2>Facts the prover reported</h2>${raw}`;
    const fact = (f) => `<li${f.space ? ` class="space-fact" data-space="${esc(f.space)}"` : ""}>${esc(f.text)}${f.rules && f.rules.length ? ` <small>(read by ${f.rules.map((id) => anyRule(e, id)).join(", ")})</small>` : ""}</li>`;
    return `<h2>The facts it depends on</h2>${groups.map((g) => `<h3>${esc(g.title)}</h3><ul class="grouped">${g.facts.map(fact).join("")}</ul>`).join("")}${ex.facts.length ? `<details><summary>as the prover wrote them (${plural(ex.facts.length, "fact")})</summary>${raw}</details>` : ""}`;
  }

  function examplePage(e, heading, ex, head, words) {
    const st = ex.state ? data.states[ex.state] : null;
    return `<h1>${heading}</h1>${head || ""}<p><b>${esc(ex.kind)}</b>: <span class="action">${esc(ex.actionText)}</span>${ex.source ? ` <small>from ${esc(ex.source)}</small>` : ""}</p>
<div class="example"><div class="board-wrap">${st ? RWBoard.render(e, st, ex.highlight, ex.action, esc, num) : `<p class="warn">the state file ${esc(ex.file || "")} could not be read</p>`}</div>
<aside>${words || ""}${factsHtml(e, ex)}<p>highlighted: ${ex.highlight.map((id) => esc(spaceName(e, id))).join(", ") || "none (no fact names a board space)"}</p>${ex.file ? `<p><small>state: <code>${esc(ex.file)}</code></small></p>` : ""}</aside></div>`;
  }

  function spaceName(e, id) {
    const s = e.board.spaces.find((x) => x.id === id);
    return s ? s.name : id;
  }

  function scenarioPage(key) {
    const s = scenarioIndex.get(key);
    const wit = data.editions.flatMap((e) => e.obligations.filter((o) => o.example && o.example.source === key).map((o) => `<li>${obLink(e, o.id)} <small>${esc(e.folder)}</small></li>`));
    return [`scenario ${s.name}`, `<h1>${esc(s.name)} <small>scenario</small></h1><p><code>${esc(s.file)}:${num(s.line)}</code> · ${s.pass === null ? "not run" : s.pass ? '<span class="v v-proved">pass</span>' : '<span class="v v-refuted">fail</span>'} · expects ${esc(s.expect)}</p>
<h2>Rules it expects to fire</h2><ul>${s.rules.map(([f, id]) => `<li>${ruleLink(edition(f), id)} <small>${esc(f)}</small></li>`).join("")}</ul>
<h2>Witnesses taken from it</h2>${wit.length ? `<ul>${wit.join("")}</ul>` : `<p class="muted">none</p>`}`];
  }

  /** What each analysis asks and what its verdicts mean (the data's `analyses`), with the obligations of one kind that are not proved. */
  function analysisPage(kind) {
    const all = Array.isArray(data.analyses) ? data.analyses : [];
    const kinds = kind ? [kind] : [...new Set([...all.map((a) => a.kind), ...data.editions.flatMap((e) => e.obligations.map((o) => o.kind))])];
    const one = (k) => {
      const w = all.find((a) => a.kind === k);
      const rows = data.editions.flatMap((e) => e.obligations.filter((o) => o.kind === k).map((o) => ({ e, o })));
      const list = rows.filter((x) => x.o.verdict !== "proved");
      const count = (v) => num(rows.filter((x) => x.o.verdict === v).length);
      const words = w ? `<p class="analysis">${esc(w.asks)}</p><ul><li><b>proved</b>: ${esc(w.proved)}</li><li><b>refuted</b>: ${esc(w.refuted)} <small>(${esc(w.severity)} unless the rule says otherwise)</small></li></ul>` : "";
      return `<section class="section" data-analysis="${esc(k)}"><h2>${kind ? "" : `<a href="#/a/${enc(k)}">`}${esc(w ? w.name : k)}${kind ? "" : "</a>"} <small>${esc(k)}</small></h2>${words}<p>${plural(rows.length, "obligation")}: ${count("proved")} proved, ${count("refuted")} refuted, ${count("unknown")} unknown.</p>${list.length ? `<ul>${list.map(({ e, o }) => `<li>${verdict(o.verdict)} ${obLink(e, o.id)}</li>`).join("")}</ul>` : ""}</section>`;
    };
    return [kind ? `analysis ${kind}` : "analyses", `<h1>${kind ? `${esc(kind)} <small>analysis</small>` : "Analyses"}</h1>${kind ? "" : `<p>What each proof analysis asks of the rules, and what its verdicts mean.</p>`}${kinds.map(one).join("")}`];
  }

  function notFound(hash) {
    return [`not found`, `<h1>Not found</h1><p>There is no page at <code>${esc(hash)}</code> in this report.</p><p><a href="#/">the overview</a> · or search above for a rule, a citation (§9.6) or an obligation.</p>`];
  }

  // ---- routes -----------------------------------------------------------------------------------
  /** The page of a hash: [title, html]; null for a route that names nothing. */
  function page(hash) {
    const raw = hash.replace(/^#\/?/, "");
    if (raw === "") return overview();
    let parts;
    try {
      parts = raw.split("/").map(decodeURIComponent);
    } catch {
      return null; // a malformed escape (`#/r/his/100%`)
    }
    const e = parts[1] !== undefined ? edition(parts[1]) : undefined;
    if (parts[0] === "e" && e && parts.length <= 3) return editionPage(e);
    if (parts[0] === "r" && e && parts.length === 3) {
      const r = e.rules.find((x) => x.id === parts[2]);
      return r ? rulePage(e, r) : null;
    }
    if (parts[0] === "o" && e && parts.length === 3) {
      const o = e.obligations.find((x) => x.id === parts[2]);
      return o ? obligationPage(e, o) : null;
    }
    if (parts[0] === "s" && parts.length === 2 && scenarioIndex.has(parts[1])) return scenarioPage(parts[1]);
    if (parts[0] === "a" && parts.length === 1) return analysisPage(null);
    if (parts[0] === "a" && parts.length === 2 && ((data.analyses || []).some((a) => a.kind === parts[1]) || data.editions.some((x) => x.obligations.some((o) => o.kind === parts[1])))) return analysisPage(parts[1]);
    if (parts[0] === "d" && parts.length === 4 && /^\d+$/.test(parts[1]) && data.diffs[Number(parts[1])]) {
      const d = data.diffs[Number(parts[1])];
      const a = d.proved && d.proved.actions.find((x) => x.action === parts[2]);
      const ex = a && /^\d+$/.test(parts[3]) && a.examples[Number(parts[3])];
      const ed = edition(d.a) || data.editions[0];
      return ex ? [`diff ${d.a} → ${d.b}: ${a.action}`, examplePage(ed, `diff ${esc(d.a)} → ${esc(d.b)}: ${esc(a.action)}`, ex, `<p>${esc(ex.source || "")}</p>`)] : null;
    }
    return null;
  }

  // back and forward restore the scroll position a page had; a followed link starts at the top
  if ("scrollRestoration" in history) history.scrollRestoration = "manual";
  const scrolls = new Map();
  let current = location.hash;
  let followed = false;
  document.addEventListener("click", (ev) => {
    const a = ev.target.closest && ev.target.closest('a[href^="#"]');
    if (a) followed = true;
  });
  document.addEventListener("rw-follow", () => (followed = true));
  window.addEventListener("scroll", () => scrolls.set(current, window.scrollY), { passive: true });

  function route() {
    scrolls.set(current, scrolls.get(current) ?? 0);
    current = location.hash;
    let res;
    try {
      res = page(location.hash);
    } catch (err) {
      res = null;
      console.warn(`report: ${location.hash}: ${err && err.message}`);
    }
    const [title, html] = res || notFound(location.hash);
    main.innerHTML = banner() + html;
    document.title = `${title} — ${SITE}`;
    RWBoard.init(main);
    const section = /^#\/e\/[^/]+\/(\d+)$/.exec(location.hash);
    const y = followed || !scrolls.has(current) ? 0 : scrolls.get(current);
    followed = false;
    if (section && document.getElementById(`s-${section[1]}`)) document.getElementById(`s-${section[1]}`).scrollIntoView();
    else window.scrollTo(0, y);
  }
  window.addEventListener("hashchange", route);
  RWSearch.init(data, esc, enc);
  route();
})();
