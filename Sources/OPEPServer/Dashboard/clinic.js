// The clinicians' page: sign in, the patients one follows with their week at a glance, and one
// patient's sessions and plan (the API under /api/clinic/, docs/clinic.md).

import { clock, dateTime, el, exportLinks, fetchJSON, num, pct } from './common.js';

const $ = (id) => document.getElementById(id);
const PLAN_FIELDS = ['target_low_cmh2o', 'target_high_cmh2o', 'breaths_per_set', 'sets', 'minutes'];
let shownPatient = null;

function setStatus(text, isError = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', isError);
  $('status').hidden = !text;
}

/** ▲ or ▼ when this week's share in target differs from the week before's by 5 points or more. */
function trend(now, before) {
  if (typeof now !== 'number' || typeof before !== 'number' || Math.abs(now - before) < 0.05) return '';
  return now > before ? ' ▲' : ' ▼';
}

function planText(plan) {
  return `${plan.target_low_cmh2o}–${plan.target_high_cmh2o} cmH₂O, ${plan.sets} × ${plan.breaths_per_set}, ${plan.minutes} min`;
}

function showSignIn() {
  for (const id of ['patients', 'patient', 'who', 'sign-out']) $(id).hidden = true;
  $('sign-in').hidden = false;
  setStatus('');
  $('username').focus();
}

function patientTable(patients) {
  if (!patients.length) return el('p', { class: 'empty muted' }, 'No patients yet: `opep clinic add-patient` adds them.');
  const head = ['Patient', 'Sessions (7 days)', 'Week before', 'Breaths (7 days)', 'In target (7 days)', 'Last session', 'Plan'];
  return el('div', { class: 'table-wrap' }, el('table', { class: 'data' },
    el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, patients.map(({ patient, this_week: week, week_before: before, last_session: last }) => {
      const open = el('button', { type: 'button', class: 'link-button' }, patient.name);
      open.addEventListener('click', () => showPatient(patient.id));
      return el('tr', { 'data-patient': String(patient.id) },
        el('th', { scope: 'row' }, open),
        el('td', {}, String(week.sessions)), el('td', {}, String(before.sessions)), el('td', {}, String(week.breaths)),
        el('td', {}, pct(week.share_in_target) + trend(week.share_in_target, before.share_in_target)),
        el('td', {}, last ? dateTime(last) : '—'), el('td', {}, planText(patient.plan)));
    }))));
}

function sessionsTable(sessions) {
  if (!sessions.length) return el('p', { class: 'empty muted' }, 'No sessions yet.');
  const head = ['Date', 'Duration (min:s)', 'Breaths', 'Sets', 'Mean pressure (cmH₂O)', 'In target', 'Session'];
  return el('div', { class: 'table-wrap' }, el('table', { class: 'data' },
    el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, sessions.map((s) => el('tr', {},
      el('th', { scope: 'row' }, el('a', { href: `/sessions/${s.id}` }, dateTime(s.started_at))),
      el('td', {}, clock(s.duration_s)), el('td', {}, String(s.breaths)), el('td', {}, String(s.sets)),
      el('td', {}, num(s.mean_pressure_cmh2o)), el('td', {}, pct(s.share_in_target)),
      el('td', {}, exportLinks(s.id, { page: true })))))));
}

async function showPatients() {
  let data;
  try {
    data = await fetchJSON('/api/clinic/patients');
  } catch (error) {
    if (error.status === 401) return showSignIn();
    return setStatus(`Could not load your patients: ${error.message}`, true);
  }
  $('sign-in').hidden = true;
  $('who').textContent = `${data.clinician.name} (${data.clinician.username})`;
  for (const id of ['who', 'sign-out', 'patients']) $(id).hidden = false;
  $('patient-table').replaceChildren(patientTable(data.patients));
  setStatus('');
}

async function showPatient(id) {
  let data;
  try {
    data = await fetchJSON(`/api/clinic/patients/${encodeURIComponent(id)}`);
  } catch (error) {
    if (error.status === 401) return showSignIn();
    return setStatus(`Could not load the patient: ${error.message}`, true);
  }
  const { patient, this_week: week } = data.adherence;
  shownPatient = patient.id;
  $('patient-title').textContent = patient.name;
  $('patient-week').textContent = `Last 7 days: ${week.sessions} session${week.sessions === 1 ? '' : 's'}, ${week.breaths} breaths, ${pct(week.share_in_target)} of flutter time in target.`;
  const form = $('patient-plan');
  for (const name of PLAN_FIELDS) form.elements[name].value = patient.plan[name];
  form.dataset.device = JSON.stringify(patient.plan.device);
  $('plan-message').textContent = '';
  $('patient-sessions').replaceChildren(sessionsTable(data.sessions));
  $('patient').hidden = false;
  $('patient').scrollIntoView({ block: 'start' });
}

async function savePlan(event) {
  event.preventDefault();
  const form = $('patient-plan');
  const plan = Object.fromEntries(PLAN_FIELDS.map((name) => [name, Number(form.elements[name].value)]));
  plan.device = JSON.parse(form.dataset.device || 'null') ?? undefined;
  try {
    const saved = await fetchJSON(`/api/clinic/patients/${shownPatient}/plan`, { method: 'PUT', json: plan });
    $('plan-message').textContent = `Saved: ${planText(saved)}. The patient's coach takes it at its next start.`;
    await showPatients();
  } catch (error) {
    if (error.status === 401) return showSignIn();
    $('plan-message').textContent = `Not saved: ${error.message}`;
  }
}

async function signIn(event) {
  event.preventDefault();
  try {
    await fetchJSON('/api/clinic/sign-in', { method: 'POST', json: { username: $('username').value, password: $('password').value } });
    $('password').value = '';
    await showPatients();
  } catch (error) {
    setStatus(error.message, true);
  }
}

async function signOut() {
  try { await fetchJSON('/api/clinic/sign-out', { method: 'POST' }); } catch { /* signed out either way */ }
  shownPatient = null;
  showSignIn();
}

$('sign-in-form').addEventListener('submit', signIn);
$('patient-plan').addEventListener('submit', savePlan);
$('sign-out').addEventListener('click', signOut);
showPatients();
