// Small chart helpers shared by the pages: the pressure gauge (SVG), the pressure trace (canvas)
// and the daily trend charts of the history page (SVG). Colours come from style.css's variables.

const SVG = 'http://www.w3.org/2000/svg';

/** The value of a CSS custom property on :root, e.g. cssVar('--in'). */
export function cssVar(name, fallback = '#888') {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Round step for about `count` ticks between 0 and `max`. */
function niceStep(max, count = 4) {
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw || 1));
  const norm = raw / mag;
  return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
}

function niceMax(max, count = 4) {
  const step = niceStep(max, count);
  return { max: Math.max(step, Math.ceil(max / step) * step), step };
}

// ---------------------------------------------------------------------------------------------
// Gauge: a semicircle 0-max cmH2O with the target band, zone-coloured needle.

/**
 * Draws a semicircular gauge in `host` and returns `update(pressure, zone)` and `setBand(low, high)`.
 * Pressure null shows a grey needle resting at 0.
 */
export function createGauge(host, { max = 40 } = {}) {
  const cx = 160, cy = 160, r = 130;
  const root = svg('svg', { viewBox: '0 0 320 190', class: 'gauge-svg', 'aria-hidden': 'true' });
  const angle = (p) => Math.PI * (1 - Math.min(Math.max(p, 0), max) / max); // 0 → left, max → right
  const point = (p, rad) => [cx + rad * Math.cos(angle(p)), cy - rad * Math.sin(angle(p))];
  const arc = (p0, p1, rad) => {
    const [x0, y0] = point(p0, rad);
    const [x1, y1] = point(p1, rad);
    return `M ${x0.toFixed(2)} ${y0.toFixed(2)} A ${rad} ${rad} 0 0 1 ${x1.toFixed(2)} ${y1.toFixed(2)}`;
  };
  const below = svg('path', { class: 'g-below', fill: 'none', 'stroke-width': 22 });
  const band = svg('path', { class: 'g-in', fill: 'none', 'stroke-width': 22 });
  const above = svg('path', { class: 'g-above', fill: 'none', 'stroke-width': 22 });
  root.append(below, band, above);
  for (let p = 0; p <= max; p += 5) {
    const major = p % 10 === 0;
    const [x0, y0] = point(p, r - 13);
    const [x1, y1] = point(p, r - (major ? 30 : 22));
    root.append(svg('line', { x1: x0, y1: y0, x2: x1, y2: y1, class: 'g-tick', 'stroke-width': major ? 2.5 : 1.2 }));
    if (major) {
      const [tx, ty] = point(p, r - 44);
      root.append(svg('text', { x: tx, y: ty + 5, class: 'g-label', 'text-anchor': 'middle' }, String(p)));
    }
  }
  const bandLabel = svg('text', { class: 'g-band-label', 'text-anchor': 'middle' });
  root.append(bandLabel);
  const needle = svg('g', { class: 'g-needle zone-none' });
  needle.append(svg('line', { x1: cx, y1: cy, x2: cx - (r - 8), y2: cy, 'stroke-width': 7, 'stroke-linecap': 'round' }),
    svg('circle', { cx, cy, r: 12 }));
  root.append(needle);
  host.replaceChildren(root);

  function setBand(low, high) {
    below.setAttribute('d', arc(0, low, r));
    band.setAttribute('d', arc(low, high, r));
    above.setAttribute('d', arc(high, max, r));
    const [bx, by] = point((low + high) / 2, r + 20);
    bandLabel.setAttribute('x', bx.toFixed(1));
    bandLabel.setAttribute('y', Math.min(by, cy).toFixed(1));
    bandLabel.textContent = `target ${low}–${high}`;
  }
  function update(pressure, zone) {
    const has = typeof pressure === 'number' && Number.isFinite(pressure);
    const deg = has ? (Math.min(Math.max(pressure, 0), max) / max) * 180 : 0;
    needle.setAttribute('transform', `rotate(${deg.toFixed(2)} ${cx} ${cy})`);
    needle.setAttribute('class', `g-needle zone-${has && zone ? zone : 'none'}${has ? '' : ' idle'}`);
  }
  setBand(10, 20);
  update(null, null);
  return { update, setBand };
}

// ---------------------------------------------------------------------------------------------
// Trace: pressure over time on a canvas, exhalations shaded, the target band drawn.

const TIME_STEPS = [0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
const clockLabel = (t) => `${Math.floor(t / 60)}:${String(Math.round(t % 60)).padStart(2, '0')}`;

/** Sizes a canvas's backing store to its CSS box and device pixels; returns the 2D context and size. */
function fitCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(canvas.clientWidth));
  const h = Math.max(1, Math.round(canvas.clientHeight));
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, w, h };
}

/**
 * Draws a pressure trace.
 * opts: t0, t1 (s), yMax (cmH2O), low, high (target band), spans [[a, b]] (exhalations),
 * provisional [[a, b]] (exhalations not final yet, lighter), series [{points: [[t, p|null]], dashed}],
 * labels [[t, text]] (e.g. breath numbers above the spans), relative (x ticks as seconds before t1),
 * clockTicks (x ticks as m:ss; by default when the span is over 150 s).
 */
export function drawTrace(canvas, opts) {
  const { ctx, w, h } = fitCanvas(canvas);
  const { t0, t1, low, high } = opts;
  const yMax = opts.yMax ?? 40;
  const m = { l: 52, r: 12, t: 14, b: 40 };
  const pw = w - m.l - m.r, ph = h - m.t - m.b;
  const x = (t) => m.l + ((t - t0) / (t1 - t0 || 1)) * pw;
  const y = (p) => m.t + ph - (Math.min(Math.max(p, 0), yMax) / yMax) * ph;
  const c = { text: cssVar('--text', '#111'), muted: cssVar('--muted', '#666'), grid: cssVar('--grid', '#ddd'),
    exh: cssVar('--exh', 'rgba(37,99,235,.14)'), band: cssVar('--band', 'rgba(21,128,61,.15)'),
    below: cssVar('--below', '#b45309'), in: cssVar('--in', '#15803d'), above: cssVar('--above', '#b91c1c') };
  ctx.clearRect(0, 0, w, h);
  ctx.font = '12px system-ui, sans-serif';

  ctx.save();
  ctx.beginPath();
  ctx.rect(m.l, m.t, pw, ph);
  ctx.clip();
  ctx.fillStyle = c.exh;
  for (const [a, b] of opts.spans || []) if (b > t0 && a < t1) ctx.fillRect(x(a), m.t, x(b) - x(a), ph);
  ctx.globalAlpha = 0.5;
  for (const [a, b] of opts.provisional || []) if (b > t0 && a < t1) ctx.fillRect(x(a), m.t, x(b) - x(a), ph);
  ctx.globalAlpha = 1;
  if (low !== undefined && high !== undefined) {
    ctx.fillStyle = c.band;
    ctx.fillRect(m.l, y(high), pw, y(low) - y(high));
    ctx.strokeStyle = c.in;
    ctx.setLineDash([4, 4]);
    ctx.lineWidth = 1;
    for (const p of [low, high]) { ctx.beginPath(); ctx.moveTo(m.l, y(p)); ctx.lineTo(m.l + pw, y(p)); ctx.stroke(); }
    ctx.setLineDash([]);
  }
  ctx.restore();

  // Grid and axes.
  const yStep = niceStep(yMax, 4);
  ctx.strokeStyle = c.grid;
  ctx.fillStyle = c.muted;
  ctx.lineWidth = 1;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (let p = 0; p <= yMax + 1e-9; p += yStep) {
    ctx.beginPath(); ctx.moveTo(m.l, y(p)); ctx.lineTo(m.l + pw, y(p)); ctx.stroke();
    ctx.fillText(String(p), m.l - 6, y(p));
  }
  const span = t1 - t0;
  const wanted = span / Math.max(2, Math.floor(pw / 90));
  const tStep = TIME_STEPS.find((step) => step >= wanted) ?? TIME_STEPS[TIME_STEPS.length - 1];
  const minutes = !opts.relative && (opts.clockTicks ?? span > 150); // long spans read better as m:ss
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  const first = Math.ceil((opts.relative ? 0 : t0) / tStep) * tStep;
  if (opts.relative) {
    for (let back = 0; back <= span + 1e-9; back += tStep) {
      const tx = x(t1 - back);
      ctx.beginPath(); ctx.moveTo(tx, m.t + ph); ctx.lineTo(tx, m.t + ph + 5); ctx.stroke();
      ctx.fillText(back === 0 ? 'now' : `−${Math.round(back)}`, tx, m.t + ph + 8);
    }
  } else {
    for (let t = first; t <= t1 + 1e-9; t += tStep) {
      const tx = x(t);
      ctx.beginPath(); ctx.moveTo(tx, m.t + ph); ctx.lineTo(tx, m.t + ph + 5); ctx.stroke();
      ctx.fillText(minutes ? clockLabel(t) : String(Math.round(t * 10) / 10), tx, m.t + ph + 8);
    }
  }
  ctx.strokeStyle = c.muted;
  ctx.beginPath(); ctx.moveTo(m.l, m.t); ctx.lineTo(m.l, m.t + ph); ctx.lineTo(m.l + pw, m.t + ph); ctx.stroke();
  ctx.fillStyle = c.text;
  ctx.fillText(opts.relative ? 'Time (s before now)' : minutes ? 'Time (min:s)' : 'Time (s)', m.l + pw / 2, h - 16);
  ctx.save();
  ctx.translate(13, m.t + ph / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = 'middle';
  ctx.fillText('Pressure (cmH₂O)', 0, 0);
  ctx.restore();

  // The lines, coloured by zone, broken where no flutter was heard.
  ctx.save();
  ctx.beginPath();
  ctx.rect(m.l, m.t - 2, pw, ph + 4);
  ctx.clip();
  ctx.lineWidth = 2.2;
  ctx.lineJoin = 'round';
  const zoneColour = (p) => (low === undefined ? c.text : p < low ? c.below : p > high ? c.above : c.in);
  for (const s of opts.series || []) {
    ctx.setLineDash(s.dashed ? [3, 3] : []);
    let prev = null;
    let colour = null;
    for (const pt of s.points) {
      const [t, p] = pt;
      if (t < t0 - 1 || t > t1 + 1) { prev = null; continue; }
      if (p === null || p === undefined || (prev && t - prev[0] > (s.gap ?? 0.25))) {
        if (colour) ctx.stroke();
        colour = null;
        prev = p === null || p === undefined ? null : pt;
        if (prev) { colour = zoneColour(p); ctx.strokeStyle = colour; ctx.beginPath(); ctx.moveTo(x(t), y(p)); }
        continue;
      }
      const col = zoneColour(p);
      if (!prev) {
        colour = col; ctx.strokeStyle = col; ctx.beginPath(); ctx.moveTo(x(t), y(p));
      } else if (col !== colour) {
        ctx.lineTo(x(t), y(p)); ctx.stroke();
        colour = col; ctx.strokeStyle = col; ctx.beginPath(); ctx.moveTo(x(t), y(p));
      } else {
        ctx.lineTo(x(t), y(p));
      }
      prev = pt;
    }
    if (colour) ctx.stroke();
  }
  ctx.setLineDash([]);
  ctx.fillStyle = c.muted;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const [t, text] of opts.labels || []) if (t >= t0 && t <= t1) ctx.fillText(text, x(t), m.t + 2);
  ctx.restore();
}

// ---------------------------------------------------------------------------------------------
// Trend chart: one value per day as bars or dots joined by lines, as inline SVG.

/**
 * Draws a daily chart into `host`.
 * opts: days ["YYYY-MM-DD"], values [number|null], kind 'bar'|'line', yLabel (with unit),
 * yMax (optional), format (value → text for tooltips), ref {value, label} (dashed line),
 * band {low, high, label} (shaded range), title (accessible name), integer (whole-number ticks).
 */
export function trendChart(host, opts) {
  const W = 640, H = 240, m = { l: 56, r: 16, t: 16, b: 50 };
  const pw = W - m.l - m.r, ph = H - m.t - m.b;
  const n = opts.days.length;
  const finite = opts.values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  const top = Math.max(opts.yMax ?? 0, ...finite, opts.ref?.value ?? 0, opts.band?.high ?? 0, 1e-9);
  let { max, step } = opts.yMax ? { max: opts.yMax, step: niceStep(opts.yMax, 4) } : niceMax(top * 1.05, 4);
  if (opts.integer && !Number.isInteger(step)) { step = Math.ceil(step); max = Math.max(step, Math.ceil(max / step) * step); }
  const slot = pw / Math.max(n, 1);
  const x = (i) => m.l + slot * (i + 0.5);
  const y = (v) => m.t + ph - (Math.min(v, max) / max) * ph;
  const fmt = opts.format || ((v) => String(v));
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'trend', role: 'img', 'aria-label': opts.title || opts.yLabel });
  root.append(svg('title', {}, opts.title || opts.yLabel));

  if (opts.band) {
    root.append(svg('rect', { x: m.l, y: y(opts.band.high), width: pw, height: y(opts.band.low) - y(opts.band.high), class: 'c-band' }));
  }
  for (let v = 0; v <= max + 1e-9; v += step) {
    root.append(svg('line', { x1: m.l, x2: m.l + pw, y1: y(v), y2: y(v), class: 'c-grid' }));
    root.append(svg('text', { x: m.l - 8, y: y(v) + 4, 'text-anchor': 'end', class: 'c-tick' }, String(Math.round(v * 100) / 100)));
  }
  const every = Math.ceil(n / 6);
  opts.days.forEach((day, i) => {
    if ((n - 1 - i) % every !== 0) return;
    const d = new Date(`${day}T12:00:00`);
    const label = Number.isNaN(d.getTime()) ? day : d.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
    root.append(svg('line', { x1: x(i), x2: x(i), y1: m.t + ph, y2: m.t + ph + 5, class: 'c-axis' }));
    root.append(svg('text', { x: x(i), y: m.t + ph + 19, 'text-anchor': 'middle', class: 'c-tick' }, label));
  });
  root.append(svg('path', { d: `M ${m.l} ${m.t} V ${m.t + ph} H ${m.l + pw}`, class: 'c-axis', fill: 'none' }));
  root.append(svg('text', { x: m.l + pw / 2, y: H - 6, 'text-anchor': 'middle', class: 'c-title' }, 'Day'));
  root.append(svg('text', { x: 14, y: m.t + ph / 2, 'text-anchor': 'middle', class: 'c-title',
    transform: `rotate(-90 14 ${m.t + ph / 2})` }, opts.yLabel));

  const tip = (i, v) => svg('title', {}, `${opts.days[i]}: ${v === null || v === undefined ? 'no session' : fmt(v)}`);
  if (opts.kind === 'bar') {
    const bw = Math.max(2, slot * 0.7);
    opts.values.forEach((v, i) => {
      if (!(v > 0)) return;
      const bar = svg('rect', { x: x(i) - bw / 2, y: y(v), width: bw, height: m.t + ph - y(v), class: 'c-bar' });
      bar.append(tip(i, v));
      root.append(bar);
    });
  } else {
    let d = ''; // joins the days with a value, across the days without one
    opts.values.forEach((v, i) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) return;
      d += `${d ? 'L' : 'M'} ${x(i).toFixed(1)} ${y(v).toFixed(1)} `;
    });
    if (d) root.append(svg('path', { d, class: 'c-line', fill: 'none' }));
    opts.values.forEach((v, i) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) return;
      const dot = svg('circle', { cx: x(i), cy: y(v), r: 4, class: 'c-dot' });
      dot.append(tip(i, v));
      root.append(dot);
    });
  }
  if (opts.ref && Number.isFinite(opts.ref.value)) {
    root.append(svg('line', { x1: m.l, x2: m.l + pw, y1: y(opts.ref.value), y2: y(opts.ref.value), class: 'c-ref' }));
    root.append(svg('text', { x: m.l + pw - 4, y: y(opts.ref.value) - 5, 'text-anchor': 'end', class: 'c-ref-label' }, opts.ref.label));
  }
  if (opts.band?.label) {
    root.append(svg('text', { x: m.l + pw - 4, y: y(opts.band.high) + 14, 'text-anchor': 'end', class: 'c-ref-label' }, opts.band.label));
  }
  host.replaceChildren(root);
}
