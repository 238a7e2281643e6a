// The rulebook report's page script (compiler/report/README.md). Plain browser JavaScript, inlined
// into index.html by site.ts; reads the data and layout JSON inlined beside it, renders the hash
// route into <main>, and searches with MiniSearch (inlined as the global `MiniSearch`). Every text
// from the data goes through esc(), every number through num(): rule titles, sources and the
// numbers of a --coverage or --tests file are untrusted input (issue 29: a "number" that was
// markup ran its script on every route).
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("data").textContent);
  const layout = JSON.parse(document.getElementById("layout").textContent);
  const main = document.getElementById("main");
  const POWER_COLORS = {
    ottoman: "#4e9a4e", hapsburg: "#e0c341", england: "#d9534f", france: "#4a78c2", papacy: "#9b59b6",
    protestant: "#8d6e63", genoa: "#f0a35e", venice: "#5bc0de", scotland: "#7fb3a0", hungary_bohemia: "#c7a27c",
    independent: "#bdbdbd", spain: "#e0c341", hre: "#a0a060", ireland: "#7fb37f",
  };

  function esc(s) {
    return String(s == null ? "" : s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }
  const enc = encodeURIComponent;
  const edition = (f) => data.editions.find((e) => e.folder === f);
  const ruleLink = (e, id) => `<a href="#/r/${enc(e.folder)}/${enc(id)}">${esc(id)}</a>`;
  const obLink = (e, id) => `<a href="#/o/${enc(e.folder)}/${enc(id)}">${esc(id)}</a>`;
  const verdict = (v) => `<span class="v v-${esc(v)}">${esc(v)}</span>`;
  /** a number as text, or "–" for anything that is not a finite number (never markup) */
  const num = (n) => (typeof n === "number" && Number.isFinite(n) ? String(n) : "–");
  const pct = (p) => (typeof p === "number" && Number.isFinite(p) ? `${p.toFixed(1)}%` : "–");

  document.getElementById("editions").innerHTML = data.editions.map((e) => `<a href="#/e/${enc(e.folder)}">${esc(e.folder)}</a>`).join(" ");

  // ---- search ---------------------------------------------------------------------------------
  const docs = [];
  for (const e of data.editions) for (const r of e.rules) docs.push({ key: `${e.folder}/${r.id}`, edition: e.folder, id: r.id, title: r.title, citation: r.citation, english: r.english, idWords: r.id.replace(/[._]/g, " ") });
  const index = new MiniSearch({ idField: "key", fields: ["id", "idWords", "title", "citation", "english"], storeFields: ["edition", "id", "title", "citation"], searchOptions: { boost: { id: 3, idWords: 2, title: 2 }, prefix: true, fuzzy: 0.15 } });
  index.addAll(docs);
  const search = document.getElementById("search");
  const results = document.getElementById("results");
  search.addEventListener("input", () => {
    const q = search.value.trim();
    if (!q) {
      results.innerHTML = "";
      return;
    }
    const hits = index.search(q).slice(0, 20);
    results.innerHTML = hits.length
      ? `<ul>${hits.map((h) => `<li class="result"><a href="#/r/${enc(h.edition)}/${enc(h.id)}"><b>${esc(h.id)}</b> <small>${esc(h.edition)} · ${esc(h.citation)}</small><br>${esc(h.title)}</a></li>`).join("")}</ul>`
      : `<p class="none">no rule matches “${esc(q)}”</p>`;
  });
  results.addEventListener("click", (ev) => {
    if (ev.target.closest("a")) {
      results.innerHTML = "";
      search.value = "";
    }
  });

  // ---- pages ----------------------------------------------------------------------------------
  function overview() {
    const cards = data.editions.map((e) => {
      const p = e.proofs;
      const proofs = p
        ? `<table class="t"><tr><th>analysis</th><th>proved</th><th>refuted</th><th>unknown</th></tr>${p.byKind.map((k) => `<tr><td>${esc(k.kind)}</td><td>${num(k.proved)}</td><td>${num(k.refuted)}</td><td>${num(k.unknown)}</td></tr>`).join("")}<tr class="sum"><td>total</td><td data-count="proved">${num(p.proved)}</td><td data-count="refuted">${num(p.refuted)}</td><td data-count="unknown">${num(p.unknown)}</td></tr></table>${p.stale ? `<p class="warn">the prove report is older than the rule files: run <code>npx rulewright prove ${esc(e.folder)}</code></p>` : ""}`
        : `<p class="warn">no prove report: run <code>npx rulewright prove ${esc(e.folder)}</code></p>`;
      const findings = e.obligations.filter((o) => o.verdict !== "proved");
      const found = findings.length ? `<h3>Not proved</h3><ul class="findings">${findings.map((o) => `<li>${verdict(o.verdict)} ${obLink(e, o.id)}${o.example ? ` <small>(${esc(o.example.kind)} on the board)</small>` : ""}</li>`).join("")}</ul>` : "";
      const c = e.coverage;
      const cov = c
        ? `<p>sources encoded: <b data-count="encoded">${num(c.encoded)}</b>/<span data-count="restriction">${num(c.restriction)}</span> restriction paragraphs (${pct(c.percent)}); audited against the source text: <b data-count="audited">${num(c.audited)}</b>/<span data-count="auditable">${num(c.auditable)}</span> paragraphs (${pct(c.auditedPercent)})</p><table class="t"><tr><th>source</th><th>encoded</th><th>not encoded</th><th>out of scope</th><th>procedure</th><th>share</th><th>audited</th></tr>${c.files.map((f) => `<tr><td>${esc(f.source)}</td><td>${num(f.encoded)}</td><td>${num(f.notEncoded)}</td><td>${num(f.outOfScope)}</td><td>${num(f.procedure)}</td><td>${pct(f.percent)}</td><td>${num(f.audited)}/${num(f.auditable)}</td></tr>`).join("")}</table>`
        : `<p class="muted">no coverage manifest names this edition</p>`;
      return `<section class="card" data-edition="${esc(e.folder)}"><h2><a href="#/e/${enc(e.folder)}">${esc(e.title)}</a> <small>${esc(e.folder)}${e.parent ? ` · extends ${esc(e.parent)}` : ""}</small></h2>
<p><span data-count="rules">${num(e.counts.rules)}</span> rules, ${num(e.counts.exemptions)} exemptions, ${num(e.counts.invariants)} invariants, ${num(e.counts.routes)} routes, ${num(e.counts.tables)} tables${e.counts.removed ? `, ${num(e.counts.removed)} removed` : ""} · scenarios: <span data-count="scenarios-passed">${num(e.scenarios.passed)}</span> passed, <span data-count="scenarios-failed">${num(e.scenarios.failed)}</span> failed</p>
<h3>Proofs</h3>${proofs}${found}<h3>Coverage of the sources</h3>${cov}
<details><summary><b>Actions</b> (${num(e.actions.length)})</summary><table class="t"><tr><th>action</th><th>parameters</th><th>rules</th></tr>${e.actions.map((a) => `<tr><td>${esc(a.name)}</td><td>${esc(a.params)}</td><td>${num(a.rules)}</td></tr>`).join("")}</table></details></section>`;
    });
    const diffs = data.diffs.length
      ? data.diffs.map(diffCard).join("")
      : `<section class="card"><h2>Diffs between editions</h2><p class="muted">no two editions of this report declare the same action, and no <code>rulewright diff</code> report was found</p></section>`;
    return `<h1>Rulebook report</h1><div class="grid">${cards.join("")}</div>${diffs}`;
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
<p class="muted">${rulesNote}<br>${provedNote}</p>${rows.length ? `<table class="t"><tr><th>action</th><th>rules that differ</th><th>verdicts</th><th>states</th></tr>${rows.join("")}</table>` : `<p>no shared action has other rules</p>`}${restText}${other}${ns}</section>`;
  }

  function editionPage(e) {
    const obs = e.obligations.length
      ? `<section class="section"><h2>Proof obligations</h2><table class="t"><tr><th>obligation</th><th>verdict</th><th>state</th></tr>${e.obligations.map((o) => `<tr><td>${obLink(e, o.id)}</td><td>${verdict(o.verdict)}</td><td>${o.example ? esc(o.example.kind) : ""}</td></tr>`).join("")}</table></section>`
      : `<p class="muted">no prove report: run <code>npx rulewright prove ${esc(e.folder)}</code></p>`;
    return `<h1>${esc(e.title)} <small>${esc(e.folder)}</small></h1>${e.sections
      .map((s) => `<section class="section"><h2>${esc(s.section)}</h2>${s.ids
        .map((id) => {
          const r = e.rules.find((x) => x.id === id);
          return `<div class="rule"><div>${ruleLink(e, r.id)} <span class="kind">${esc(r.kind || r.what)}</span> <small>${esc(r.citation)}</small></div><div class="title">${esc(r.title)}</div><div class="english">${esc(r.english)}</div></div>`;
        })
        .join("")}</section>`)
      .join("")}${obs}`;
  }

  function rulePage(e, r) {
    const obs = r.obligations.map((id) => e.obligations.find((o) => o.id === id)).filter(Boolean);
    return `<h1 class="rule-id">${esc(r.id)} <small>${esc(r.what)} · ${esc(e.folder)}</small></h1>
<p class="title">${esc(r.title)}</p><p><b>Citation</b> ${esc(r.citation || "–")} · <b>Declared in</b> <code>${esc(r.file)}:${num(r.line)}</code>${r.provenance ? ` · ${esc(r.provenance)}` : ""}</p>
<h2>In plain English</h2><p class="english" id="english">${esc(r.english)}</p>
<h2>Source</h2><pre class="src">${esc(r.source)}</pre>
<h2>Reads</h2><p>${r.action ? `action <b>${esc(r.action)}</b>(${esc(r.params.join(", "))}); ` : ""}state fields: ${r.reads.length ? r.reads.map((x) => `<code>${esc(x)}</code>`).join(" ") : "none"}</p>
<h2>Scenarios</h2>${r.scenarios.length ? `<ul>${r.scenarios.map((s) => `<li>${s.pass === null ? "not run" : s.pass ? '<span class="v v-proved">pass</span>' : '<span class="v v-refuted">fail</span>'} ${esc(s.name)} <small>${esc(s.file)}:${num(s.line)} · expects ${esc(s.expect)}</small></li>`).join("")}</ul>` : `<p class="muted">no scenario expects this ${esc(r.what)} to fire</p>`}
<h2>Proof verdicts</h2>${obs.length ? `<table class="t"><tr><th>obligation</th><th>verdict</th><th>unsat core</th><th>example</th></tr>${obs.map((o) => `<tr><td>${obLink(e, o.id)}</td><td>${verdict(o.verdict)}${o.vacuous ? " (vacuous)" : ""}${o.reason ? ` <small>${esc(o.reason)}</small>` : ""}</td><td>${o.core.map(esc).join(", ")}</td><td>${o.example ? `<a href="#/o/${enc(e.folder)}/${enc(o.id)}">${esc(o.example.kind)}</a>` : ""}</td></tr>`).join("")}</table>` : `<p class="muted">${e.proofs ? "no proof obligation names it" : "no prove report"}</p>`}
<h2>Interacts with</h2><p>${r.related.length ? r.related.map((id) => (e.rules.some((x) => x.id === id) ? ruleLink(e, id) : esc(id))).join(", ") : "–"}</p>`;
  }

  function examplePage(e, heading, ex, extra) {
    const st = ex.state ? data.states[ex.state] : null;
    const facts = ex.facts.length ? `<ul class="facts">${ex.facts.map((f) => `<li>${esc(f)}</li>`).join("")}</ul>` : `<p class="muted">no facts reported</p>`;
    return `<h1>${heading}</h1>${extra || ""}<p><b>${esc(ex.kind)}</b>: <span class="action">${esc(ex.actionText)}</span>${ex.source ? ` <small>from ${esc(ex.source)}</small>` : ""}</p>
<div class="example"><div class="board-wrap">${st ? board(e, st, ex.highlight, ex.action) : `<p class="warn">the state file ${esc(ex.file || "")} could not be read</p>`}</div>
<aside><h2>Facts the prover reported</h2>${facts}<p>highlighted: ${ex.highlight.map((id) => esc(spaceName(e, id))).join(", ") || "–"}</p>${ex.file ? `<p><small>state: <code>${esc(ex.file)}</code></small></p>` : ""}</aside></div>`;
  }

  function spaceName(e, id) {
    const s = e.board.spaces.find((x) => x.id === id);
    return s ? s.name : id;
  }

  function board(e, st, highlight, action) {
    const hl = new Set(highlight);
    const onMap = e.board.spaces.filter((s) => layout.positions[s.id]);
    let svg = "";
    if (onMap.length) {
      const P = layout.positions;
      const lines = e.board.connections
        .filter(([a, b]) => P[a] && P[b])
        .map(([a, b, t]) => `<line class="c-${esc(t)}" x1="${P[a][0]}" y1="${P[a][1]}" x2="${P[b][0]}" y2="${P[b][1]}"/>`)
        .join("");
      const nodes = onMap
        .map((s) => {
          const [x, y] = P[s.id];
          const d = st.spaces[s.id] || {};
          const sea = s.type === "sea";
          const fill = sea ? "#cfe3f3" : POWER_COLORS[d.controller] || "#eee";
          const r = sea ? 16 : s.type === "normal" ? 6 : 8.5;
          const shape = s.type === "capital" || s.type === "key" || s.type === "fortress" || s.type === "electorate" ? `<rect x="${x - r}" y="${y - r}" width="${2 * r}" height="${2 * r}" rx="2" fill="${fill}"/>` : `<circle cx="${x}" cy="${y}" r="${r}" fill="${fill}"/>`;
          const tip = [s.name, d.controller ? `controlled by ${d.controller}` : "", d.unrest ? "unrest" : "", d.units ? `units: ${d.units}` : "", d.leaders ? `leaders: ${d.leaders}` : ""].filter(Boolean).join(" · ");
          const marks = (d.unrest ? `<text class="unrest" x="${x + r}" y="${y - r}">!</text>` : "") + (d.units || d.leaders ? `<circle class="units" cx="${x - r}" cy="${y - r}" r="3"/>` : "");
          const label = hl.has(s.id) || s.type !== "normal" ? `<text class="lbl" x="${x}" y="${y + r + 9}">${esc(s.name)}</text>` : "";
          return `<g class="space${sea ? " sea" : ""}${hl.has(s.id) ? " hl" : ""}" data-space="${esc(s.id)}"><title>${esc(tip)}</title>${shape}${hl.has(s.id) ? `<circle class="ring" cx="${x}" cy="${y}" r="${r + 6}"/>` : ""}${marks}${label}</g>`;
        })
        .join("");
      // the action's move: origin → destination (or the first two space parameters)
      const moved = Object.entries(action || {}).filter(([k, v]) => k !== "action" && typeof v === "string" && P[v]).map(([, v]) => v);
      const arrow = moved.length >= 2 && moved[0] !== moved[1] ? `<line class="move" x1="${P[moved[0]][0]}" y1="${P[moved[0]][1]}" x2="${P[moved[1]][0]}" y2="${P[moved[1]][1]}" marker-end="url(#arrow)"/>` : "";
      const defs = `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#e53935"/></marker></defs>`;
      svg = `<svg class="board" viewBox="0 0 ${layout.width} ${layout.height}" role="img" aria-label="the board">${defs}${lines}${nodes}${arrow}</svg>`;
    }
    const off = e.board.spaces.filter((s) => !layout.positions[s.id]);
    const table = off.length
      ? `<table class="t spaces"><tr><th>space</th><th>type</th><th>controller</th><th>unrest</th><th>units</th><th>leaders</th></tr>${off
          .map((s) => {
            const d = st.spaces[s.id] || {};
            return `<tr class="${hl.has(s.id) ? "hl" : ""}" data-space="${esc(s.id)}"><td>${esc(s.name)}</td><td>${esc(s.type)}</td><td>${esc(d.controller || "")}</td><td>${d.unrest ? "yes" : ""}</td><td>${esc(d.units || "")}</td><td>${esc(d.leaders || "")}</td></tr>`;
          })
          .join("")}</table>`
      : "";
    const legend = onMap.length ? `<p class="legend">${Object.entries(POWER_COLORS).filter(([p]) => e.board.spaces.length && onMap.some((s) => (st.spaces[s.id] || {}).controller === p)).map(([p, c]) => `<span><i style="background:${c}"></i>${esc(p)}</span>`).join("")}<span><i class="ring-key"></i>highlighted</span></p>` : "";
    return svg + legend + table;
  }

  function route() {
    const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
    let html;
    const e = parts[1] !== undefined ? edition(parts[1]) : undefined;
    if (parts[0] === "e" && e) html = editionPage(e);
    else if (parts[0] === "r" && e && e.rules.some((r) => r.id === parts[2])) html = rulePage(e, e.rules.find((r) => r.id === parts[2]));
    else if (parts[0] === "o" && e && e.obligations.some((o) => o.id === parts[2])) {
      const o = e.obligations.find((x) => x.id === parts[2]);
      const stuck = o.stuck ? `<p>${esc(o.stuck.actor)} has no legal move: ${o.stuck.blocked.map((b) => `${esc(b.action)} (forbidden by ${b.rules.map((id) => (e.rules.some((r) => r.id === id) ? ruleLink(e, id) : esc(id))).join(", ") || "?"})`).join("; ")}${o.stuck.decline ? `; declining (${esc(o.stuck.decline)}) is not possible either` : ""}</p>` : "";
      const head = stuck + `<p>${verdict(o.verdict)} ${esc(o.kind)} (${esc(o.severity)}) · action ${esc(o.action)} · rules ${o.subjects.map((id) => (e.rules.some((r) => r.id === id) ? ruleLink(e, id) : esc(id))).join(", ")}${o.core.length ? ` · unsat core ${o.core.map(esc).join(", ")}` : ""}${o.reason ? ` · ${esc(o.reason)}` : ""}</p>`;
      html = o.example ? examplePage(e, esc(o.id), o.example, head) : `<h1>${esc(o.id)}</h1>${head}<p class="muted">no state for this obligation</p>`;
    } else if (parts[0] === "d" && data.diffs[Number(parts[1])]) {
      const d = data.diffs[Number(parts[1])];
      const a = d.proved && d.proved.actions.find((x) => x.action === parts[2]);
      const ex = a && a.examples[Number(parts[3])];
      const ed = edition(d.a) || data.editions[0];
      html = ex ? examplePage(ed, `diff ${esc(d.a)} → ${esc(d.b)}: ${esc(a.action)}`, ex, `<p>${esc(ex.source || "")}</p>`) : `<p class="warn">no such diff state</p>`;
    } else html = overview();
    main.innerHTML = html;
    window.scrollTo(0, 0);
  }
  window.addEventListener("hashchange", route);
  route();
})();
