// The clinicians' page: sign in, the patients one follows with their week at a glance, and one
// patient's sessions, plan and adherence report (the API under /api/clinic/, docs/clinic.md).

import { clock, dateTime, el, exportLinks, fetchJSON, num, pct } from './common.js';
import { qrSvg } from './qr.js';

const $ = (id) => document.getElementById(id);
const PLAN_FIELDS = ['target_low_cmh2o', 'target_high_cmh2o', 'breaths_per_set', 'sets', 'minutes', 'sessions_per_day'];
const DAY = 24 * 3600 * 1000;
let shownPatient = null;
let shownWeek = null;
let shownArchived = false;

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
  return `${plan.target_low_cmh2o}–${plan.target_high_cmh2o} cmH₂O, ${plan.sets} × ${plan.breaths_per_set}, ${plan.minutes} min, ${plan.sessions_per_day} a day`;
}

/** Sessions in a week against the plan's, e.g. "9 of 14". */
function weekSessions(week, plan) {
  return `${week.sessions} of ${7 * plan.sessions_per_day}`;
}

/** A day as the date input and the API write it, YYYY-MM-DD, in the browser's time zone. */
function isoDay(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function showSignIn() {
  for (const id of ['patients', 'patient', 'who', 'sign-out', 'new-token']) $(id).hidden = true;
  $('sign-in').hidden = false;
  setStatus('');
  $('username').focus();
}

function patientTable(patients) {
  if (!patients.length) return el('p', { class: 'empty muted' }, 'No patients yet: add one below.');
  const head = ['Patient', 'Sessions (7 days)', 'Week before', 'Breaths (7 days)', 'In target (7 days)', 'Last session', 'Plan'];
  return el('div', { class: 'table-wrap' }, el('table', { class: 'data' },
    el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, patients.map(({ patient, this_week: week, week_before: before, last_session: last }) => {
      const open = el('button', { type: 'button', class: 'link-button' }, patient.name);
      open.addEventListener('click', () => openPatient(patient.id));
      return el('tr', { 'data-patient': String(patient.id) },
        el('th', { scope: 'row' }, open),
        el('td', {}, weekSessions(week, patient.plan)), el('td', {}, weekSessions(before, patient.plan)), el('td', {}, String(week.breaths)),
        el('td', {}, pct(week.share_in_target) + trend(week.share_in_target, before.share_in_target)),
        el('td', {}, last ? dateTime(last) : '—'), el('td', {}, planText(patient.plan)));
    }))));
}

function archivedTable(patients) {
  const head = ['Patient', 'Archived', 'Last session'];
  return el('div', { class: 'table-wrap' }, el('table', { class: 'data' },
    el('thead', {}, el('tr', {}, head.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, patients.map(({ patient, last_session: last }) => {
      const open = el('button', { type: 'button', class: 'link-button' }, patient.name);
      open.addEventListener('click', () => openPatient(patient.id));
      return el('tr', { 'data-patient': String(patient.id) },
        el('th', { scope: 'row' }, open), el('td', {}, dateTime(patient.archived_at)), el('td', {}, last ? dateTime(last) : '—'));
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
  const archived = data.archived ?? [];
  $('archived-patients').hidden = !archived.length;
  $('archived-table').replaceChildren(archivedTable(archived));
  setStatus('');
}

/** The shown patient's last 7 days against `plan`. */
function showWeek(plan) {
  const week = shownWeek;
  $('patient-week').textContent = `Last 7 days: ${weekSessions(week, plan)} sessions planned, ${week.breaths} breaths, ${pct(week.share_in_target)} of flutter time in target.`;
}

/** Shows, once, the address that opens a patient's coach with their new access token. */
function showPairing(text, token) {
  $('new-token-text').textContent = text;
  const address = `${location.origin}/?token=${encodeURIComponent(token)}`;
  $('pairing-address').value = address;
  $('pairing-qr').replaceChildren(qrSvg(address));
  $('copy-pairing').textContent = 'Copy';
  $('new-token').hidden = false;
}

async function addPatient(event) {
  event.preventDefault();
  const form = $('add-patient');
  try {
    const { patient, token } = await fetchJSON('/api/clinic/patients', { method: 'POST', json: { name: form.elements.name.value } });
    form.reset();
    await showPatients();
    showPairing(`${patient.name} added on the standard plan. Let their phone scan this code, or open the address on it, to pair their coach; it is shown only now:`, token);
    await showPatient(patient.id, { scroll: false });
  } catch (error) {
    if (error.status === 401) return showSignIn();
    setStatus(`Could not add the patient: ${error.message}`, true);
  }
}

async function newToken() {
  const name = $('patient-title').textContent;
  if (!window.confirm(`Give ${name} a new access token? The address on their old phone stops working.`)) return;
  try {
    const { token } = await fetchJSON(`/api/clinic/patients/${shownPatient}/token`, { method: 'POST' });
    showPairing(`${name}'s new code and address (the old ones open nothing now); shown only now:`, token);
    $('new-token').scrollIntoView({ block: 'center' });
  } catch (error) {
    if (error.status === 401) return showSignIn();
    $('therapy-message').textContent = `No new token: ${error.message}`;
  }
}

async function copyPairing() {
  const field = $('pairing-address');
  field.select();
  try {
    await navigator.clipboard.writeText(field.value);
    $('copy-pairing').textContent = 'Copied';
  } catch {
    $('copy-pairing').textContent = 'Selected: copy it';
  }
}

/** Whether the shown patient is archived, and the buttons that change it or delete them. */
function showArchived(patient) {
  shownArchived = Boolean(patient.archived_at);
  $('archived-note').textContent = shownArchived
    ? `Archived ${dateTime(patient.archived_at)}: their coach's token opens nothing; their sessions stay until you delete them.`
    : 'Followed: their coach records their sessions with their token. Archive them when their therapy has ended.';
  $('archive-button').textContent = shownArchived ? 'Follow again' : 'Archive (therapy ended)';
  $('delete-button').hidden = !shownArchived;
}

/** The colleagues the shown patient can be handed over to; the form is hidden when there are none. */
async function showColleagues() {
  const form = $('hand-over');
  try {
    const { colleagues } = await fetchJSON('/api/clinic/colleagues');
    form.elements.username.replaceChildren(...colleagues.map((c) => el('option', { value: c.username }, `${c.name} (${c.username})`)));
    form.hidden = !colleagues.length;
  } catch {
    form.hidden = true;
  }
}

async function handOver(event) {
  event.preventDefault();
  const select = $('hand-over').elements.username;
  const colleague = select.selectedOptions[0]?.textContent ?? select.value;
  if (!window.confirm(`Hand ${$('patient-title').textContent} over to ${colleague}? You will no longer see them; their sessions, plan and coach go with them.`)) return;
  try {
    await fetchJSON(`/api/clinic/patients/${shownPatient}/clinician`, { method: 'POST', json: { username: select.value } });
    $('patient').hidden = true;
    await showPatients();
    setStatus(`${$('patient-title').textContent} is followed by ${colleague} now.`);
  } catch (error) {
    if (error.status === 401) return showSignIn();
    $('therapy-message').textContent = `Not handed over: ${error.message}`;
  }
}

async function deletePatient() {
  const name = $('patient-title').textContent;
  const sessions = $('patient-sessions').querySelectorAll('tbody tr').length;
  if (!window.confirm(`Delete ${name} and their ${sessions} session${sessions === 1 ? '' : 's'} for good? This cannot be undone: export what you must keep first.`)) return;
  try {
    const { deleted } = await fetchJSON(`/api/clinic/patients/${shownPatient}`, { method: 'DELETE' });
    $('patient').hidden = true;
    shownPatient = null;
    await showPatients();
    setStatus(`${name} deleted with ${deleted.sessions} session${deleted.sessions === 1 ? '' : 's'}.`);
  } catch (error) {
    if (error.status === 401) return showSignIn();
    $('therapy-message').textContent = `Not deleted: ${error.message}`;
  }
}

async function archive() {
  const restore = shownArchived;
  if (!restore && !window.confirm(`Archive ${$('patient-title').textContent}? Their coach will stop working; their sessions stay.`)) return;
  try {
    const patient = await fetchJSON(`/api/clinic/patients/${shownPatient}/${restore ? 'restore' : 'archive'}`, { method: 'POST' });
    showArchived(patient);
    await showPatients();
  } catch (error) {
    if (error.status === 401) return showSignIn();
    setStatus(`Could not ${restore ? 'restore' : 'archive'} the patient: ${error.message}`, true);
  }
}

/** Opens a patient from a list: a pairing address shown for another one goes away. */
function openPatient(id) {
  $('new-token').hidden = true;
  return showPatient(id);
}

async function showPatient(id, { scroll = true } = {}) {
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
  shownWeek = week;
  showWeek(patient.plan);
  showArchived(patient);
  const form = $('patient-plan');
  for (const name of PLAN_FIELDS) form.elements[name].value = patient.plan[name];
  form.dataset.device = JSON.stringify(patient.plan.device);
  $('plan-message').textContent = '';
  const report = $('patient-report');
  const today = new Date();
  report.elements.to.value = isoDay(today);
  report.elements.from.value = isoDay(new Date(today.getTime() - 27 * DAY));
  $('report-message').textContent = '';
  $('patient-sessions').replaceChildren(sessionsTable(data.sessions));
  $('therapy-message').textContent = '';
  await showColleagues();
  $('patient').hidden = false;
  if (scroll) $('patient').scrollIntoView({ block: 'start' });
}

async function savePlan(event) {
  event.preventDefault();
  const form = $('patient-plan');
  const plan = Object.fromEntries(PLAN_FIELDS.map((name) => [name, Number(form.elements[name].value)]));
  plan.device = JSON.parse(form.dataset.device || 'null') ?? undefined;
  try {
    const saved = await fetchJSON(`/api/clinic/patients/${shownPatient}/plan`, { method: 'PUT', json: plan });
    $('plan-message').textContent = `Saved: ${planText(saved)}. The patient's coach takes it at its next start.`;
    showWeek(saved);
    await showPatients();
  } catch (error) {
    if (error.status === 401) return showSignIn();
    $('plan-message').textContent = `Not saved: ${error.message}`;
  }
}

/** Opens the shown patient's adherence report over the chosen days in a new tab. */
function openReport(event) {
  event.preventDefault();
  const form = $('patient-report');
  const from = form.elements.from.value, to = form.elements.to.value;
  if (!from || !to || from > to) {
    $('report-message').textContent = 'Choose the first and the last day, the first not after the last.';
    return;
  }
  $('report-message').textContent = '';
  const query = new URLSearchParams({ from, to, tz: Intl.DateTimeFormat().resolvedOptions().timeZone });
  window.open(`/api/clinic/patients/${shownPatient}/report?${query}`, '_blank', 'noopener');
}

/** Changes the clinician's password; their other sign-ins end, this one goes on. */
async function changePassword(event) {
  event.preventDefault();
  const form = $('password-form');
  const say = (text) => { $('password-message').textContent = text; };
  if (form.elements.new.value !== form.elements.again.value) return say('The two new passwords differ.');
  try {
    await fetchJSON('/api/clinic/password', { method: 'POST', json: { current: form.elements.current.value, new: form.elements.new.value } });
    form.reset();
    say('Password changed. Your sign-ins elsewhere have ended.');
  } catch (error) {
    if (error.status === 401) return showSignIn();
    say(`Not changed: ${error.message}`);
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
$('patient-report').addEventListener('submit', openReport);
$('password-form').addEventListener('submit', changePassword);
$('archive-button').addEventListener('click', archive);
$('delete-button').addEventListener('click', deletePatient);
$('add-patient').addEventListener('submit', addPatient);
$('token-button').addEventListener('click', newToken);
$('copy-pairing').addEventListener('click', copyPairing);
$('hand-over').addEventListener('submit', handOver);
$('sign-out').addEventListener('click', signOut);
showPatients();
