// The history page: every session as a table, and daily trends for the last 30 days.

import { trendChart } from './charts.js';
import { clock, dateTime, el, exportLinks, fetchJSON, num, pct } from './common.js';
import { loadPlan } from './plan.js';

const $ = (id) => document.getElementById(id);
const DAYS = 30;

function setStatus(text, isError = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
  $('status').hidden = !text;
}

const isoDay = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** The last `count` days up to today (or the newest day the server reports), each with its data or null. */
function dayRange(rows, count) {
  const byDate = new Map(rows.map((r) => [r.date, r]));
  let end = new Date();
  const newest = rows.map((r) => r.date).sort().at(-1);
  if (newest && newest > isoDay(end)) end = new Date(`${newest}T12:00:00`);
  const days = [];
  for (let i = count - 1; i >= 0; i--) {
    const d = new Date(end.getFullYear(), end.getMonth(), end.getDate() - i, 12);
    days.push(isoDay(d));
  }
  return days.map((date) => ({ date, row: byDate.get(date) || null }));
}

function sessionsTable(sessions) {
  if (!sessions.length) {
    return el('div', { class: 'empty' },
      el('p', {}, 'No sessions yet.'),
      el('p', {}, 'Start one on the ', el('a', { href: '/' }, 'live coach'), ' page: it is saved here when you press Stop.'));
  }
  const head = ['Date', 'Duration (min:s)', 'Breaths', 'Sets', 'Mean pressure (cmH₂O)', 'In target', 'Source', 'Session'];
  return el('div', { class: 'table-wrap' }, el('table', { class: 'data' },
    el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, sessions.map((s) => el('tr', {},
      el('th', { scope: 'row' }, el('a', { href: `/sessions/${s.id}` }, dateTime(s.started_at))),
      el('td', {}, clock(s.duration_s)), el('td', {}, s.breaths ?? '—'), el('td', {}, s.sets ?? '—'),
      el('td', {}, num(s.mean_pressure_cmh2o)), el('td', {}, pct(s.share_in_target)),
      el('td', {}, s.source ?? ''), el('td', {}, exportLinks(s.id, { page: true })))))));
}

function drawTrends(rows, plan) {
  const range = dayRange(rows, DAYS);
  const days = range.map((d) => d.date);
  const value = (f) => range.map(({ row }) => (row && row.sessions > 0 ? f(row) : null));
  const perDay = plan.sessions_per_day;
  const planned = plan.breaths_per_set * plan.sets;
  const any = rows.some((r) => r.sessions > 0);
  if (!any) {
    $('trends').replaceChildren(el('p', { class: 'empty muted' }, `No sessions in the last ${DAYS} days.`));
    return;
  }
  trendChart($('chart-sessions'), {
    days, kind: 'bar', integer: true, values: range.map(({ row }) => row?.sessions ?? 0), yLabel: 'Sessions',
    title: 'Sessions per day', format: (v) => `${v} session${v === 1 ? '' : 's'}`,
    ref: { value: perDay, label: `plan ${perDay} a day` },
  });
  trendChart($('chart-breaths'), {
    days, kind: 'line', values: value((r) => r.breaths / r.sessions), yLabel: 'Breaths per session',
    title: 'Breaths per session, daily mean', format: (v) => `${num(v, 1)} breaths`,
    ref: { value: planned, label: `plan ${planned}` },
  });
  trendChart($('chart-target'), {
    days, kind: 'line', values: value((r) => (typeof r.share_in_target === 'number' ? r.share_in_target * 100 : null)),
    yLabel: 'In target (%)', yMax: 100, title: 'Share of flutter time in the target band', format: (v) => `${Math.round(v)} %`,
  });
  trendChart($('chart-pressure'), {
    days, kind: 'line', values: value((r) => r.mean_pressure_cmh2o ?? null), yLabel: 'Pressure (cmH₂O)',
    title: 'Mean pressure per day', format: (v) => `${num(v)} cmH₂O`,
    band: { low: plan.target_low_cmh2o, high: plan.target_high_cmh2o, label: `target ${plan.target_low_cmh2o}–${plan.target_high_cmh2o}` },
  });
}

async function main() {
  const [planResult, sessions, trends] = await Promise.allSettled([
    loadPlan(), fetchJSON('/api/sessions'), fetchJSON(`/api/trends?days=${DAYS}`),
  ]);
  const plan = planResult.value.plan;
  const problems = [];
  if (sessions.status === 'fulfilled') {
    $('sessions').replaceChildren(sessionsTable(sessions.value?.sessions ?? []));
  } else {
    problems.push(`sessions: ${sessions.reason.message}`);
    $('sessions').replaceChildren(el('p', { class: 'muted' }, 'The sessions could not be loaded.'));
  }
  const rows = trends.status === 'fulfilled' ? trends.value?.days ?? [] : [];
  if (trends.status === 'rejected') problems.push(`trends: ${trends.reason.message}`);
  drawTrends(rows, plan);
  setStatus(problems.length ? `Could not load ${problems.join('; ')}` : '', problems.length > 0);
}

main();
