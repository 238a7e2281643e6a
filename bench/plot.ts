/**
 * A small SVG line chart on log–log axes (time against rule count), written by hand: the one plot
 * the benchmark commits does not justify a charting dependency. On log–log axes linear growth is
 * a line of slope 1; each series is drawn with a dashed "linear from the first point" guide.
 */

export interface Series {
  name: string;
  color: string;
  points: { x: number; y: number }[];
}

const W = 720;
const H = 440;
const M = { left: 70, right: 190, top: 40, bottom: 56 };

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const fmt = (v: number) => (v >= 1000 ? `${v / 1000}k` : v >= 1 ? String(v) : v.toPrecision(1));

/** Renders the chart; `title` on top, axes labelled `xLabel` and `yLabel`. Deterministic output. */
export function logLogChart(title: string, xLabel: string, yLabel: string, series: Series[]): string {
  const pts = series.flatMap((s) => s.points).filter((p) => p.x > 0 && p.y > 0);
  if (!pts.length) return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><text x="20" y="40">${esc(title)}: no data</text></svg>\n`;
  const decade = (v: number, up: boolean) => 10 ** (up ? Math.ceil(Math.log10(v)) : Math.floor(Math.log10(v)));
  const x0 = decade(Math.min(...pts.map((p) => p.x)), false);
  const x1 = decade(Math.max(...pts.map((p) => p.x)), true);
  const y0 = decade(Math.min(...pts.map((p) => p.y)) / 1.5, false);
  // the linear guides end at first.y · last.x / first.x: keep them inside the frame
  const guideEnds = series.map((s) => {
    const ps = s.points.filter((p) => p.x > 0 && p.y > 0).sort((a, b) => a.x - b.x);
    return ps.length ? (ps[0]!.y * ps[ps.length - 1]!.x) / ps[0]!.x : 0;
  });
  const y1 = decade(Math.max(...pts.map((p) => p.y), ...guideEnds) * 1.5, true);
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const sx = (x: number) => M.left + ((Math.log10(x) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * pw;
  const sy = (y: number) => M.top + ph - ((Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * ph;
  const f = (n: number) => n.toFixed(1);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${esc(title)}</text>`);
  // grid and ticks at 1, 2, 5 × each decade
  for (let d = x0; d <= x1; d *= 10) {
    for (const m of [1, 2, 5]) {
      const v = d * m;
      if (v > x1) break;
      out.push(`<line x1="${f(sx(v))}" y1="${M.top}" x2="${f(sx(v))}" y2="${M.top + ph}" stroke="${m === 1 ? "#ccc" : "#eee"}"/>`);
      out.push(`<text x="${f(sx(v))}" y="${M.top + ph + 16}" text-anchor="middle" fill="#444">${fmt(v)}</text>`);
    }
  }
  for (let d = y0; d <= y1; d *= 10) {
    for (const m of [1, 2, 5]) {
      const v = d * m;
      if (v > y1) break;
      out.push(`<line x1="${M.left}" y1="${f(sy(v))}" x2="${M.left + pw}" y2="${f(sy(v))}" stroke="${m === 1 ? "#ccc" : "#eee"}"/>`);
      out.push(`<text x="${M.left - 6}" y="${f(sy(v) + 4)}" text-anchor="end" fill="#444">${fmt(v)}</text>`);
    }
  }
  out.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`);
  out.push(`<text x="${M.left + pw / 2}" y="${H - 14}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text transform="translate(18 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`);
  series.forEach((s, i) => {
    const ps = s.points.filter((p) => p.x > 0 && p.y > 0).sort((a, b) => a.x - b.x);
    if (!ps.length) return;
    const first = ps[0]!;
    const last = ps[ps.length - 1]!;
    // linear guide: y = first.y · x / first.x
    out.push(`<line x1="${f(sx(first.x))}" y1="${f(sy(first.y))}" x2="${f(sx(last.x))}" y2="${f(sy((first.y * last.x) / first.x))}" stroke="${s.color}" stroke-dasharray="4 4" opacity="0.6"/>`);
    out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${ps.map((p) => `${f(sx(p.x))},${f(sy(p.y))}`).join(" ")}"/>`);
    for (const p of ps) out.push(`<circle cx="${f(sx(p.x))}" cy="${f(sy(p.y))}" r="3.5" fill="${s.color}"><title>${esc(`${s.name}: ${p.x} rules, ${p.y.toPrecision(3)} s`)}</title></circle>`);
    const ly = M.top + 10 + i * 20;
    out.push(`<line x1="${W - M.right + 14}" y1="${ly}" x2="${W - M.right + 38}" y2="${ly}" stroke="${s.color}" stroke-width="2"/>`);
    out.push(`<text x="${W - M.right + 44}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  const gy = M.top + 10 + series.length * 20;
  out.push(`<line x1="${W - M.right + 14}" y1="${gy}" x2="${W - M.right + 38}" y2="${gy}" stroke="#666" stroke-dasharray="4 4"/>`);
  out.push(`<text x="${W - M.right + 44}" y="${gy + 4}">linear from 1×</text>`);
  out.push(`</svg>`);
  return out.join("\n") + "\n";
}
