// Helpers shared by the three pages: fetching JSON, formatting numbers and times, building DOM,
// and the session summary (tiles and tables) shown after a live session and on a session's page.

/** Fetches JSON; throws an Error whose message is the server's `{"error": ...}` when there is one. */
export async function fetchJSON(url, options = {}) {
  const init = { ...options, headers: { Accept: 'application/json', ...(options.headers || {}) } };
  if (options.json !== undefined) {
    init.body = JSON.stringify(options.json);
    init.headers['Content-Type'] = 'application/json';
    delete init.json;
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    const e = new Error(`Could not reach the opep server (${err.message}).`);
    e.network = true;
    throw e;
  }
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!response.ok) {
    const e = new Error(body?.error || `${response.status} ${response.statusText || 'error'}`.trim());
    e.status = response.status;
    throw e;
  }
  return body;
}

const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

/** A number with `digits` decimals, or an em dash when there is none. */
export function num(v, digits = 1) {
  return isNum(v) ? v.toFixed(digits) : '—';
}

/** A share 0-1 as a whole percentage. */
export function pct(share) {
  return isNum(share) ? `${Math.round(share * 100)} %` : '—';
}

/** Seconds as m:ss, or h:mm:ss from an hour on. */
export function clock(seconds) {
  if (!isNum(seconds) || seconds < 0) seconds = 0;
  const s = Math.floor(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** An ISO 8601 date-time in the reader's locale, e.g. "21 Nov 2026, 07:30". */
export function dateTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso ?? '—';
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Builds an element: el('a', {href: '/x', class: 'btn'}, 'text', child). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'style') node.style.cssText = value; // through CSSOM: the CSP forbids style attributes
    else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** Links to a session's page and its CSV and JSON exports. */
export function exportLinks(id, { page = false } = {}) {
  return el('span', { class: 'links' },
    page ? el('a', { href: `/sessions/${id}` }, 'Open') : null,
    el('a', { href: `/api/sessions/${id}/export.csv`, download: `opep-session-${id}.csv` }, 'CSV'),
    el('a', { href: `/api/sessions/${id}/export.json`, download: `opep-session-${id}.json` }, 'JSON'));
}

function tile(label, value, unit, id) {
  return el('div', { class: 'tile' },
    el('span', { class: 'tile-label' }, label),
    el('span', { class: 'tile-value' }, el('span', { id }, value), unit ? el('small', {}, ` ${unit}`) : null));
}

/** The share of time below, in and above the target as one labelled bar. */
function zoneBar(shares) {
  if (!shares) return null;
  const parts = [['below', 'Too soft', shares.below], ['in', 'In target', shares.in], ['above', 'Too hard', shares.above]];
  return el('div', { class: 'zone-bar-wrap' },
    el('div', { class: 'zone-bar', role: 'img', 'aria-label': parts.map(([, l, v]) => `${l} ${pct(v)}`).join(', ') },
      parts.filter(([, , v]) => v > 0).map(([z, , v]) => el('span', { class: `zone-${z}`, style: `width:${(v * 100).toFixed(1)}%` }))),
    el('p', { class: 'zone-legend' },
      parts.map(([z, l, v]) => el('span', {}, el('i', { class: `swatch zone-${z}` }), ` ${l} ${pct(v)}`))));
}

/** The words for each reason the signal check gives, by its key in a breath's `unmeasured`, in
 * the order of the engine's `SignalProblem`. */
const REASON_WORDS = {
  clipped_s: 'clipped', too_noisy_s: 'too noisy', too_quiet_s: 'too quiet', too_far_s: 'too far',
  band_limited_s: 'band-limited', no_flutter_s: 'no flutter', gain_control_s: 'gain control',
};

/** Why a breath went without a pitch, as the reports say it ("too noisy 1.2 s, onsets and short
 * gaps 0.3 s"): the reasons given for 0.05 s or more, the longest first (ties in the order above),
 * then the time without a reason; empty when under 0.05 s went unmeasured. The page cannot call
 * the Swift of `UnmeasuredTime.breakdown`, so Tests/Web/unmeasured_breakdown.mjs holds this to
 * the same cases as the Swift tests. */
export function unmeasuredBreakdown(unmeasured) {
  const shown = Object.keys(REASON_WORDS).map((key) => [key, unmeasured[key] ?? 0])
    .filter(([, seconds]) => seconds >= 0.05).sort((a, b) => b[1] - a[1]);
  const unnamed = (unmeasured.total_s ?? 0) - shown.reduce((sum, [, seconds]) => sum + seconds, 0);
  const parts = shown.map(([key, seconds]) => `${REASON_WORDS[key]} ${num(seconds)} s`);
  if (unnamed >= 0.05) parts.push(`onsets and short gaps ${num(unnamed)} s`);
  return parts.join(', ');
}

/** The breaths as a table: number, set, start, length, pressures, pitch, time in target, the
 * share with a flutter heard and why the rest was not. */
export function breathsTable(breaths) {
  if (!breaths?.length) return el('p', { class: 'muted' }, 'No breaths through the device were heard.');
  const head = ['Breath', 'Set', 'Start', 'Length (s)', 'Mean (cmH₂O)', 'Min–max (cmH₂O)', 'Pitch (Hz)', 'In target', 'Flutter heard', 'Not heard because'];
  return el('div', { class: 'table-wrap' }, el('table', { class: 'data' },
    el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, breaths.map((b) => el('tr', {},
      el('th', { scope: 'row' }, b.index), el('td', {}, b.set), el('td', {}, clock(b.start_s)),
      el('td', {}, num(b.duration_s)), el('td', {}, num(b.mean_pressure_cmh2o)),
      el('td', {}, `${num(b.min_pressure_cmh2o)}–${num(b.max_pressure_cmh2o)}`),
      el('td', {}, num(b.mean_pitch_hz)), el('td', {}, pct(b.share_in_target)), el('td', {}, pct(b.flutter_share)),
      el('td', {}, b.unmeasured ? unmeasuredBreakdown(b.unmeasured) : '—'))))));
}

/** The sets as a table. */
export function setsTable(sets) {
  if (!sets?.length) return null;
  const head = ['Set', 'Start', 'Breaths', 'Huff coughs', 'Mean (cmH₂O)', 'In target'];
  return el('div', { class: 'table-wrap' }, el('table', { class: 'data' },
    el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, sets.map((s) => el('tr', {},
      el('th', { scope: 'row' }, s.index), el('td', {}, clock(s.start_s)), el('td', {}, s.breaths),
      el('td', {}, s.huff_coughs), el('td', {}, num(s.mean_pressure_cmh2o)), el('td', {}, pct(s.share_in_target)))))));
}

/**
 * Fills `container` with a session's summary: tiles (the breath count in `#${prefix}-breaths`),
 * the zone bar, and the sets and breaths tables (into `tablesInto` when given, else below).
 */
export function renderSummary(container, { summary, breaths, sets, plan }, prefix = 'summary', tablesInto = null) {
  const s = summary || {};
  const planned = plan ? plan.breaths_per_set * plan.sets : null;
  container.replaceChildren(
    el('div', { class: 'tiles' },
      tile('Breaths', String(s.breaths ?? breaths?.length ?? 0), planned ? `of ${planned} planned` : '', `${prefix}-breaths`),
      tile('Sets', String(s.sets ?? sets?.length ?? 0), plan ? `of ${plan.sets}` : '', `${prefix}-sets`),
      tile('Time in target', pct(s.time_share?.in), '', `${prefix}-in-target`),
      tile('Mean pressure', num(s.mean_pressure_cmh2o), 'cmH₂O', `${prefix}-mean-pressure`),
      tile('Duration', clock(s.duration_s), 'min:s', `${prefix}-duration`),
      tile('Huff coughs', String(s.huff_coughs ?? 0), '', `${prefix}-huffs`),
      tile('Mean breath', num(s.mean_breath_duration_s), 's', `${prefix}-mean-breath`),
      tile('Mean pitch', num(s.mean_pitch_hz), 'Hz', `${prefix}-mean-pitch`)),
    zoneBar(s.time_share) || el('span'));
  const tables = [el('h3', {}, 'Sets'), setsTable(sets) || el('p', { class: 'muted' }, 'No sets.'),
    el('h3', {}, 'Breaths'), breathsTable(breaths)];
  if (tablesInto) tablesInto.replaceChildren(...tables); else container.append(...tables);
}

/** Spans [start, end] of exhalation from frames [t, pitch, pressure, exhaling]. */
export function exhalationSpans(frames, step = 0.05) {
  const spans = [];
  let start = null;
  let last = null;
  for (const f of frames) {
    if (f[3]) {
      if (start === null || f[0] - last > step * 3) {
        if (start !== null) spans.push([start - step / 2, last + step / 2]);
        start = f[0];
      }
      last = f[0];
    } else if (start !== null) {
      spans.push([start - step / 2, last + step / 2]);
      start = null;
    }
  }
  if (start !== null) spans.push([start - step / 2, last + step / 2]);
  return spans;
}

/**
 * A run of pressures on the live gauge that has lasted this long, in seconds, is a breath's: a
 * huff cough, an inhalation or a chance track in breathing without the device flashes for less
 * (about half a second on average, docs/real-breath.md).
 */
export const BREATH_RUN_S = 1.0;

/** How long the live gauge keeps a breath's last pressure through a gap in its flutter, in seconds. */
export const GAUGE_HOLD_S = 0.4;

/**
 * The run of pressures the live gauge shows, after a live frame at audio time `t` (s) with
 * `pressure` (null in a gap): `{ from, to }`, the times of the run's first and last pressure, or
 * null when the gauge shows none. Through a gap the last pressure stays for `holdS` (a breath's
 * flutter missed for a moment), but only once the run has lasted `steadyS`: a chance track in
 * plain breathing, an inhalation or a huff cough goes when it ends instead of staying for the hold.
 */
export function gaugeRun(run, t, pressure, { holdS = GAUGE_HOLD_S, steadyS = BREATH_RUN_S } = {}) {
  if (pressure !== null) return { from: run?.from ?? t, to: t };
  return run && run.to - run.from >= steadyS && t - run.to <= holdS ? run : null;
}
