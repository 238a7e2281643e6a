// The rulebook report's search (compiler/report/README.md). Plain browser JavaScript, inlined by
// site.ts before client.js; defines the global `RWSearch` = { init(data, esc, enc), docs(data), rank(docs, index, q) }.
// One hit per rule id (its editions merged: "his · his-500") and per proof obligation (its id
// without the edition prefix, so `his.dead_rule.x` and `his_500.dead_rule.x` are one hit), searched
// with MiniSearch over ids, titles, citations, readings and findings. A query that is a citation
// ("§9.6", "9.6", "§ 12") lists the rules of exactly that section first, then its subsections, then
// the rest. Arrow keys move through the hits, Enter opens one, Escape closes the list.
(function () {
  "use strict";
  const CITATION = /^§?\s*(\d+(?:\.\d+)*)$/;
  /** tokens: words, and section numbers kept whole ("§9.6" → "§9.6", "9.6") */
  const tokenize = (s) => {
    const out = [];
    for (const m of String(s).matchAll(/§\s*(\d+(?:\.\d+)*)|(\d+(?:\.\d+)+)|[\p{L}\p{N}]+/gu)) {
      if (m[1]) out.push(`§${m[1]}`, m[1]);
      else out.push(m[0]);
    }
    return out;
  };
  /** the section numbers a citation text names ("his §9.6, vq §…" → ["9.6"]) */
  const sections = (c) => [...String(c || "").matchAll(/§\s*(\d+(?:\.\d+)*)/g)].map((m) => m[1]);

  /** One document per rule id and per obligation (without its edition prefix), with the editions it is in. */
  function docs(data) {
    const byKey = new Map();
    const add = (key, doc, folder, href) => {
      const d = byKey.get(key);
      if (d) {
        d.editions.push(folder);
        d.hrefs.push(href);
        if (!d.citation.includes(doc.citation)) d.citation += ` ${doc.citation}`;
        if (!d.english.includes(doc.english)) d.english += ` ${doc.english}`;
      } else byKey.set(key, { key, ...doc, editions: [folder], hrefs: [href] });
    };
    for (const e of data.editions) {
      for (const r of e.rules) add(`r:${r.id}`, { type: r.what, id: r.id, title: r.title, citation: r.citation || "", english: r.english || "", idWords: r.id.replace(/[._]/g, " ") }, e.folder, `#/r/${encodeURIComponent(e.folder)}/${encodeURIComponent(r.id)}`);
      const prefix = `${e.name}.`;
      for (const o of e.obligations) {
        const short = o.id.startsWith(prefix) ? o.id.slice(prefix.length) : o.id;
        const finding = (o.explanation && o.explanation.finding) || "";
        add(`o:${short}`, { type: "obligation", id: short, title: `${o.verdict} ${o.kind}${finding ? `: ${finding}` : ""}`, citation: "", english: [o.kind, o.action, ...o.subjects, ...o.core, finding].join(" "), idWords: short.replace(/[._~]/g, " ") }, e.folder, `#/o/${encodeURIComponent(e.folder)}/${encodeURIComponent(o.id)}`);
      }
    }
    return [...byKey.values()];
  }

  function makeIndex(all) {
    const index = new MiniSearch({ idField: "key", fields: ["id", "idWords", "title", "citation", "english"], tokenize, searchOptions: { tokenize, boost: { id: 3, idWords: 2, title: 2, citation: 2 }, prefix: true, fuzzy: 0.15 } });
    index.addAll(all);
    return index;
  }

  /** The hits of a query, best first (at most 20): for a citation, the rules of that section first. */
  function rank(all, index, q) {
    const byKey = new Map(all.map((d) => [d.key, d]));
    const m = CITATION.exec(q.trim());
    const first = [];
    if (m) {
      const n = m[1];
      const exact = all.filter((d) => sections(d.citation).includes(n));
      const sub = all.filter((d) => !exact.includes(d) && sections(d.citation).some((s) => s.startsWith(`${n}.`)));
      first.push(...exact, ...sub);
    }
    const seen = new Set(first.map((d) => d.key));
    const rest = index.search(q).map((h) => byKey.get(h.id)).filter((d) => d && !seen.has(d.key));
    return [...first, ...rest].slice(0, 20);
  }

  function init(data, esc) {
    const all = docs(data);
    const index = makeIndex(all);
    const search = document.getElementById("search");
    const results = document.getElementById("results");
    let hits = [];
    let active = -1;
    const close = () => {
      results.innerHTML = "";
      hits = [];
      active = -1;
    };
    const mark = () => {
      results.querySelectorAll("li.result").forEach((li, i) => {
        li.classList.toggle("active", i === active);
        if (i === active) li.querySelector("a").setAttribute("aria-current", "true");
        else li.querySelector("a").removeAttribute("aria-current");
      });
      if (active >= 0) document.getElementById(`hit-${active}`)?.scrollIntoView({ block: "nearest" });
    };
    const show = () => {
      const q = search.value.trim();
      if (!q) return close();
      hits = rank(all, index, q);
      active = hits.length ? 0 : -1;
      results.innerHTML = hits.length
        ? `<p class="count" role="status">${hits.length} hit${hits.length === 1 ? "" : "s"} (↑ ↓ to choose, Enter to open)</p><ul aria-label="search results">${hits
            .map((h, i) => `<li class="result" id="hit-${i}" data-type="${esc(h.type)}"><a href="${esc(h.hrefs[0])}"><b>${esc(h.id)}</b> <small>${esc(h.type === "obligation" ? "proof obligation" : h.type)} · ${h.editions.map(esc).join(" · ")}${h.citation ? ` · ${esc(h.citation)}` : ""}</small><br>${esc(h.title)}</a>${h.editions.length > 1 ? `<span class="also">${h.editions.map((ed, j) => `<a href="${esc(h.hrefs[j])}">${esc(ed)}</a>`).join(" ")}</span>` : ""}</li>`)
            .join("")}</ul>`
        : `<p class="none" role="status">nothing matches “${esc(q)}”</p>`;
      mark();
    };
    search.addEventListener("input", show);
    search.addEventListener("keydown", (ev) => {
      if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        if (!hits.length) return;
        ev.preventDefault();
        active = (active + (ev.key === "ArrowDown" ? 1 : hits.length - 1)) % hits.length;
        mark();
      } else if (ev.key === "Enter") {
        if (!hits.length) return;
        ev.preventDefault();
        const href = hits[Math.max(0, active)].hrefs[0];
        search.value = "";
        close();
        document.dispatchEvent(new Event("rw-follow"));
        location.hash = href;
      } else if (ev.key === "Escape") {
        search.value = "";
        close();
      }
    });
    // a new page closes the list (a hit followed, back, a link, a typed address)
    window.addEventListener("hashchange", () => {
      search.value = "";
      close();
    });
    results.addEventListener("click", (ev) => {
      if (ev.target.closest("a")) {
        search.value = "";
        close();
      }
    });
  }

  window.RWSearch = { init, docs, rank, tokenize };
})();
