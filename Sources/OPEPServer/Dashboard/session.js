// One session's page: the summary, the pressure trace with the exhalations shaded and numbered,
// the sets and breaths tables and the export links. The id is the last segment of /sessions/ID,
// or ?id= when the page is opened as session.html.

import { drawTrace } from './charts.js';
import { clock, dateTime, el, exhalationSpans, exportLinks, fetchJSON, renderSummary } from './common.js';
import { DEFAULT_PLAN } from './plan.js';

const $ = (id) => document.getElementById(id);

function sessionId() {
  const last = decodeURIComponent(location.pathname.split('/').filter(Boolean).at(-1) || '');
  if (last && !last.includes('.') && last !== 'sessions') return last;
  return new URLSearchParams(location.search).get('id');
}

function setStatus(text, isError = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
  $('status').hidden = !text;
}

function setUpTrace(frames, breaths, plan) {
  const spans = exhalationSpans(frames, 0.05);
  const points = frames.map((f) => [f[0], f[2]]);
  const labels = (breaths || []).map((b) => [(b.start_s + b.end_s) / 2, String(b.index)]);
  const first = frames.length ? frames[0][0] : 0;
  const last = frames.length ? frames[frames.length - 1][0] : 1;
  const yMax = Math.max(40, Math.ceil((plan.target_high_cmh2o + 10) / 10) * 10);
  const windowSelect = $('window');
  const from = $('from');

  function draw() {
    const width = Number(windowSelect.value) || 0;
    const whole = width === 0 || width >= last - first;
    $('scroll-label').hidden = whole;
    let t0 = first;
    let t1 = Math.max(last, first + 1);
    if (!whole) {
      from.max = String(Math.max(0, Math.floor(last - first - width)));
      t0 = first + Math.min(Number(from.value), Number(from.max));
      t1 = t0 + width;
      $('from-text').textContent = clock(t0);
    }
    drawTrace($('trace'), {
      t0, t1, yMax, low: plan.target_low_cmh2o, high: plan.target_high_cmh2o, spans, labels, clockTicks: last - first > 150,
      series: [{ points, gap: 0.25 }],
    });
  }
  windowSelect.addEventListener('change', draw);
  from.addEventListener('input', draw);
  window.addEventListener('resize', draw);
  draw();
}

async function main() {
  const id = sessionId();
  if (!id) {
    setStatus('No session given. Open a session from the History page.', true);
    return;
  }
  document.title = `OPEP session ${id}`;
  $('title').textContent = `Session ${id}`;
  let data;
  try {
    data = await fetchJSON(`/api/sessions/${encodeURIComponent(id)}`);
  } catch (error) {
    setStatus(error.status === 404 ? `There is no session ${id}.` : `Could not load session ${id}: ${error.message}`, true);
    return;
  }
  const plan = { ...DEFAULT_PLAN, ...(data.plan || {}) };
  const row = data.session || {};
  $('meta').textContent = [row.started_at ? dateTime(row.started_at) : null, row.source ? `source: ${row.source}` : null,
    `plan ${plan.target_low_cmh2o}–${plan.target_high_cmh2o} cmH₂O, ${plan.sets} × ${plan.breaths_per_set} breaths, ${plan.minutes} min, ${plan.device?.name ?? ''}`]
    .filter(Boolean).join(' · ');
  $('links').replaceChildren(el('span', {}, 'Export: '), exportLinks(row.id ?? id));
  renderSummary($('summary-body'), { summary: data.summary, breaths: data.breaths, sets: data.sets, plan }, 'summary', $('tables'));
  $('tables-card').hidden = false;
  $('overview').hidden = false;
  setStatus('Loading the pressure trace…');

  try {
    const { frames } = await fetchJSON(`/api/sessions/${encodeURIComponent(id)}/frames`);
    $('trace-card').hidden = false;
    if (!frames?.length) {
      $('trace').replaceWith(el('p', { class: 'muted' }, 'No frames were saved for this session.'));
    } else {
      setUpTrace(frames, data.breaths, plan);
    }
    setStatus('');
  } catch (error) {
    setStatus(`Could not load the pressure trace: ${error.message}`, true);
  }
}

main();
