// The rulebook report's board (compiler/report/README.md): a state drawn as SVG on the Here I Stand
// layout, with pan and zoom. Plain browser JavaScript, inlined by site.ts before client.js; defines
// the global `RWBoard` = { render(e, state, highlight, action, esc, num) → html, init(root) }.
// Spaces are coloured by their controller (one colour per power, POWER_COLORS), unrest is a red
// "!" badge, units a badge per power with its colour and count ("4", "2⚓" for naval units); every
// space has a label (always shown for highlighted and unit-holding spaces, for fortified ones from
// 0.7 screen pixels per board unit, for the rest from 1.6, and on hover). Labels and badges keep a constant size on screen (12 px): they
// live in groups scaled by 1 / (screen pixels per board unit), recomputed on zoom and resize.
(function () {
  "use strict";
  const POWER_COLORS = {
    ottoman: "#4e9a4e", hapsburg: "#e0c341", england: "#d9534f", france: "#4a78c2", papacy: "#9b59b6",
    protestant: "#8d6e63", genoa: "#f0a35e", venice: "#5bc0de", scotland: "#7fb3a0", hungary_bohemia: "#c7a27c",
    independent: "#bdbdbd", spain: "#e0c341", hre: "#a0a060", ireland: "#7fb37f",
  };
  /** screen pixels per board unit at which every label is shown */
  const ALL_LABELS_SCALE = 1.6;
  /** … and at which the labels of fortified spaces are (a phone shows them once zoomed in) */
  const FORT_LABELS_SCALE = 0.7;
  const FORTIFIED = new Set(["capital", "key", "fortress", "electorate"]);

  /** black or white text, whichever reads better on this background colour */
  function ink(hex) {
    const n = parseInt(String(hex).slice(1), 16);
    const lum = (0.299 * ((n >> 16) & 255) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255)) / 255;
    return lum > 0.55 ? "#111" : "#fff";
  }
  const words = (s) => String(s).replace(/_/g, " ");
  const power = (p) => words(p).replace(/\b\w/g, (c) => c.toUpperCase());

  /** "france 4, hapsburg 2 naval" (data.ts compactState) → [{power, n, naval}] */
  function unitsOf(text) {
    if (!text) return [];
    return String(text).split(", ").map((u) => {
      const m = /^(\S+) (\d+)( naval)?$/.exec(u);
      return m ? { power: m[1], n: Number(m[2]), naval: !!m[3] } : null;
    }).filter(Boolean);
  }

  function render(e, st, highlight, action, esc, num) {
    const P = layout.positions;
    const hl = new Set(highlight);
    const onMap = e.board.spaces.filter((s) => P[s.id]);
    let svg = "";
    const present = new Set();
    if (onMap.length) {
      const lines = e.board.connections
        .filter(([a, b]) => P[a] && P[b])
        .map(([a, b, t]) => `<line class="c-${esc(t)}" x1="${P[a][0]}" y1="${P[a][1]}" x2="${P[b][0]}" y2="${P[b][1]}"/>`)
        .join("");
      const nodes = [];
      const marks = [];
      const labels = [];
      for (const s of onMap) {
        const [x, y] = P[s.id];
        const d = st.spaces[s.id] || {};
        const sea = s.type === "sea";
        if (d.controller && !sea) present.add(d.controller);
        const fill = sea ? "#cfe3f3" : POWER_COLORS[d.controller] || "#f5f5f5";
        const r = sea ? 16 : s.type === "normal" ? 6 : 8.5;
        const shape = FORTIFIED.has(s.type) ? `<rect x="${x - r}" y="${y - r}" width="${2 * r}" height="${2 * r}" rx="2" fill="${fill}"/>` : `<circle cx="${x}" cy="${y}" r="${r}" fill="${fill}"/>`;
        const units = unitsOf(d.units);
        for (const u of units) present.add(u.power);
        const tip = [s.name, d.controller ? `controlled by ${power(d.controller)}` : "", d.unrest ? "in unrest" : "", units.length ? `units: ${units.map((u) => `${power(u.power)} ${u.n}${u.naval ? " naval" : ""}`).join(", ")}` : "", d.leaders ? `leaders: ${d.leaders}` : "", hl.has(s.id) ? "highlighted" : ""].filter(Boolean).join(" · ");
        nodes.push(`<g class="space${sea ? " sea" : ""}${hl.has(s.id) ? " hl" : ""}" data-space="${esc(s.id)}"><title>${esc(tip)}</title>${shape}${hl.has(s.id) ? `<circle class="ring" cx="${x}" cy="${y}" r="${r + 6}"/>` : ""}</g>`);
        // badges, in screen pixels (the .k group is scaled to them)
        let bx = 6;
        const badges = [];
        if (d.unrest) {
          badges.push(`<g class="unrest"><rect x="${bx}" y="-20" width="12" height="14" rx="2"/><text x="${bx + 6}" y="-9">!</text></g>`);
          bx += 14;
        }
        for (const u of units) {
          const c = POWER_COLORS[u.power] || "#999";
          const t = `${num(u.n)}${u.naval ? "⚓" : ""}`;
          const w = 8 + 7 * t.length;
          badges.push(`<g class="unit" data-power="${esc(u.power)}"><rect x="${bx}" y="-20" width="${w}" height="14" rx="3" fill="${c}"/><text x="${bx + w / 2}" y="-9" fill="${ink(c)}">${esc(t)}</text></g>`);
          bx += w + 2;
        }
        if (d.leaders) badges.push(`<g class="leader"><circle cx="${-8}" cy="-13" r="5"/></g>`);
        if (badges.length) marks.push(`<g transform="translate(${x} ${y})" data-space="${esc(s.id)}"><g class="k">${badges.join("")}</g></g>`);
        const always = hl.has(s.id) || units.length || d.leaders ? " always" : FORTIFIED.has(s.type) ? " fort" : "";
        labels.push(`<g transform="translate(${x} ${y})" class="lbl${always}${hl.has(s.id) ? " hl" : ""}" data-space="${esc(s.id)}"><g class="k"><text y="${(sea ? 16 : r) + 14}">${esc(s.name)}</text></g></g>`);
      }
      // the action's move: origin → destination (the first two highlighted action values)
      const moved = Object.entries(action || {}).filter(([k, v]) => k !== "action" && typeof v === "string" && P[v] && hl.has(v)).map(([, v]) => v);
      const arrow = moved.length >= 2 && moved[0] !== moved[1] ? `<line class="move" x1="${P[moved[0]][0]}" y1="${P[moved[0]][1]}" x2="${P[moved[1]][0]}" y2="${P[moved[1]][1]}" marker-end="url(#arrow)"/>` : "";
      const defs = `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#e53935"/></marker></defs>`;
      svg = `<div class="zoom" role="group" aria-label="zoom the board"><button type="button" data-zoom="in" aria-label="zoom in">+</button><button type="button" data-zoom="out" aria-label="zoom out">−</button><button type="button" data-zoom="reset">whole board</button><span class="muted">drag to move, wheel or +/− to zoom; hover a space for its name</span></div>
<svg class="board" viewBox="0 0 ${layout.width} ${layout.height}" role="img" aria-label="the board: ${num(onMap.length)} spaces, ${num(hl.size)} highlighted" data-w="${layout.width}" data-h="${layout.height}">${defs}<g class="edges">${lines}</g><g class="nodes">${nodes.join("")}</g>${arrow}<g class="marks">${marks.join("")}</g><g class="labels">${labels.join("")}</g></svg>`;
    }
    const off = e.board.spaces.filter((s) => !P[s.id]);
    const table = off.length
      ? `<div class="scroll" tabindex="0" role="region" aria-label="spaces"><table class="t spaces"><tr><th>space</th><th>type</th><th>controller</th><th>unrest</th><th>units</th><th>leaders</th></tr>${off
          .map((s) => {
            const d = st.spaces[s.id] || {};
            return `<tr class="${hl.has(s.id) ? "hl" : ""}" data-space="${esc(s.id)}"><td>${esc(s.name)}</td><td>${esc(s.type)}</td><td>${esc(d.controller ? power(d.controller) : "")}</td><td>${d.unrest ? "yes" : ""}</td><td>${esc(d.units || "")}</td><td>${esc(d.leaders || "")}</td></tr>`;
          })
          .join("")}</table></div>`
      : "";
    const legend = onMap.length
      ? `<ul class="legend" aria-label="legend">${[...present].sort().map((p) => `<li><i style="background:${POWER_COLORS[p] || "#999"}"></i>${esc(power(p))}</li>`).join("")}<li><i class="sq"></i>fortified space</li><li><i class="sea-key"></i>sea zone</li><li><b class="unrest-key">!</b>unrest</li><li><b class="unit-key">4</b>land units (⚓ naval)</li><li><i class="ring-key"></i>named by the finding</li><li><i class="pass-key"></i>pass</li></ul>`
      : "";
    return `<div class="board-box">${legend}${svg}</div>${table}`;
  }

  /** Wires zoom, pan and label sizing to every board under `root`. */
  function init(root) {
    for (const svg of root.querySelectorAll("svg.board")) attach(svg);
  }

  function attach(svg) {
    const W = Number(svg.dataset.w);
    const H = Number(svg.dataset.h);
    let vb = { x: 0, y: 0, w: W, h: H };
    const box = svg.closest(".board-box");
    const apply = () => {
      vb.w = Math.min(W, Math.max(W / 12, vb.w));
      vb.h = (vb.w * H) / W;
      vb.x = Math.min(W - vb.w, Math.max(0, vb.x));
      vb.y = Math.min(H - vb.h, Math.max(0, vb.y));
      svg.setAttribute("viewBox", `${vb.x} ${vb.y} ${vb.w} ${vb.h}`);
      const scale = svg.clientWidth / vb.w || 1;
      svg.style.setProperty("--k", String(1 / scale));
      svg.classList.toggle("all-labels", scale >= ALL_LABELS_SCALE);
      svg.classList.toggle("fort-labels", scale >= FORT_LABELS_SCALE);
      svg.classList.toggle("zoomed", vb.w < W);
    };
    const zoomAt = (f, cx, cy) => {
      const nw = Math.min(W, Math.max(W / 12, vb.w / f));
      const k = nw / vb.w;
      vb = { x: cx - (cx - vb.x) * k, y: cy - (cy - vb.y) * k, w: nw, h: vb.h * k };
      apply();
    };
    const toBoard = (ev) => {
      const r = svg.getBoundingClientRect();
      return [vb.x + ((ev.clientX - r.left) / r.width) * vb.w, vb.y + ((ev.clientY - r.top) / r.height) * vb.h];
    };
    box.querySelector(".zoom").addEventListener("click", (ev) => {
      const b = ev.target.closest("button");
      if (!b) return;
      if (b.dataset.zoom === "reset") {
        vb = { x: 0, y: 0, w: W, h: H };
        apply();
      } else zoomAt(b.dataset.zoom === "in" ? 1.6 : 1 / 1.6, vb.x + vb.w / 2, vb.y + vb.h / 2);
    });
    svg.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const [cx, cy] = toBoard(ev);
      zoomAt(ev.deltaY < 0 ? 1.25 : 0.8, cx, cy);
    }, { passive: false });
    svg.addEventListener("dblclick", (ev) => {
      const [cx, cy] = toBoard(ev);
      zoomAt(2, cx, cy);
    });
    // drag to pan, two pointers to pinch
    const pts = new Map();
    let pinch = 0;
    svg.addEventListener("pointerdown", (ev) => {
      pts.set(ev.pointerId, [ev.clientX, ev.clientY]);
      svg.setPointerCapture(ev.pointerId);
    });
    svg.addEventListener("pointermove", (ev) => {
      const prev = pts.get(ev.pointerId);
      if (!prev) return;
      const r = svg.getBoundingClientRect();
      if (pts.size === 2) {
        pts.set(ev.pointerId, [ev.clientX, ev.clientY]);
        const [a, b] = [...pts.values()];
        const dist = Math.hypot(a[0] - b[0], a[1] - b[1]);
        if (pinch) zoomAt(dist / pinch, vb.x + (((a[0] + b[0]) / 2 - r.left) / r.width) * vb.w, vb.y + (((a[1] + b[1]) / 2 - r.top) / r.height) * vb.h);
        pinch = dist;
        return;
      }
      vb.x -= ((ev.clientX - prev[0]) / r.width) * vb.w;
      vb.y -= ((ev.clientY - prev[1]) / r.height) * vb.h;
      pts.set(ev.pointerId, [ev.clientX, ev.clientY]);
      apply();
    });
    const up = (ev) => {
      pts.delete(ev.pointerId);
      pinch = 0;
    };
    svg.addEventListener("pointerup", up);
    svg.addEventListener("pointercancel", up);
    // a hovered space shows its label
    svg.addEventListener("pointerover", (ev) => {
      const g = ev.target.closest("g.space");
      for (const l of svg.querySelectorAll(".lbl.hover")) l.classList.remove("hover");
      if (g) svg.querySelector(`.lbl[data-space="${CSS.escape(g.dataset.space)}"]`)?.classList.add("hover");
    });
    if (typeof ResizeObserver === "function") new ResizeObserver(apply).observe(svg);
    apply();
  }

  const layout = JSON.parse(document.getElementById("layout").textContent);
  window.RWBoard = { render, init, POWER_COLORS };
})();
