// The therapy plan: loading it (server first, then the copy kept on this device), saving it with
// PUT /api/plan, and the small form that edits it.

import { fetchJSON } from './common.js';
import { keepPlan, keptPlan } from './device-history.js';

const STORAGE_KEY = 'opep.plan';   // where earlier versions kept it

export const ACAPELLA = Object.freeze({
  name: 'Acapella', lower_frequency_hz: 10, upper_frequency_hz: 40, intercept_cmh2o: -4.659, slope_cmh2o_per_hz: 1.119,
});

export const DEFAULT_PLAN = Object.freeze({
  target_low_cmh2o: 10, target_high_cmh2o: 20, breaths_per_set: 10, sets: 3, minutes: 15, sessions_per_day: 2, device: ACAPELLA,
});

function storeLocally(plan) {
  keepPlan(plan).catch(() => { /* no storage for the page: the plan lasts this visit */ });
}

async function localPlan() {
  let plan = await keptPlan().catch(() => null);
  if (!plan) {
    try { plan = JSON.parse(localStorage.getItem(STORAGE_KEY)); } catch { plan = null; }
  }
  return plan && typeof plan === 'object' ? { ...DEFAULT_PLAN, ...plan } : null;
}

/** The saved plan: {plan, source: 'server' | 'browser' | 'default', error?}; `serverless` when
 * the page comes from a plain static host (no /api at all, as after `opep web export`). */
export async function loadPlan() {
  try {
    const plan = { ...DEFAULT_PLAN, ...(await fetchJSON('/api/plan')) };
    storeLocally(plan);
    return { plan, source: 'server' };
  } catch (error) {
    const plan = await localPlan();
    const serverless = error.status === 404 || error.status === 405;
    return plan ? { plan, source: 'browser', error, serverless } : { plan: { ...DEFAULT_PLAN }, source: 'default', error, serverless };
  }
}

/** Saves on the server; returns the server's plan. Throws with the server's message when refused. */
export async function savePlan(plan) {
  const saved = await fetchJSON('/api/plan', { method: 'PUT', json: plan });
  storeLocally(saved);
  return saved;
}

const isAcapella = (d) => !d || Object.keys(ACAPELLA).every((k) => d[k] === ACAPELLA[k]);

/**
 * Binds the plan form (inputs named after PLAN's keys, the device's keys prefixed "device_", a
 * select named "device_kind" and a fieldset .custom-device). Returns {fill, read, setDisabled, lock}.
 * onSaved(plan) runs after a successful save; onMessage(text, isError) reports progress;
 * serverless() says the page has no server behind it, so the plan is kept on the device only.
 */
export function bindPlanForm(form, { onSaved, onMessage, serverless = () => false }) {
  const custom = form.querySelector('.custom-device');
  const kind = form.elements.device_kind;
  const dirtyNote = form.querySelector('.dirty');
  const numberFields = ['target_low_cmh2o', 'target_high_cmh2o', 'breaths_per_set', 'sets', 'minutes', 'sessions_per_day'];
  const deviceFields = ['lower_frequency_hz', 'upper_frequency_hz', 'intercept_cmh2o', 'slope_cmh2o_per_hz'];

  const showCustom = () => {
    custom.hidden = kind.value !== 'custom';
    for (const input of custom.querySelectorAll('input')) input.disabled = custom.hidden;
  };
  const setDirty = (dirty) => { if (dirtyNote) dirtyNote.hidden = !dirty; };

  function fill(plan) {
    for (const key of numberFields) form.elements[key].value = plan[key];
    const device = plan.device || ACAPELLA;
    kind.value = isAcapella(device) ? 'acapella' : 'custom';
    form.elements.device_name.value = device.name;
    for (const key of deviceFields) form.elements[`device_${key}`].value = device[key];
    showCustom();
    setDirty(false);
  }

  function read() {
    const plan = {};
    for (const key of numberFields) plan[key] = Number(form.elements[key].value);
    if (kind.value === 'acapella') {
      plan.device = { ...ACAPELLA };
    } else {
      plan.device = { name: form.elements.device_name.value.trim() || 'Custom' };
      for (const key of deviceFields) plan.device[key] = Number(form.elements[`device_${key}`].value);
    }
    return plan;
  }

  function checkBand() {
    const low = form.elements.target_low_cmh2o;
    const high = form.elements.target_high_cmh2o;
    high.setCustomValidity(Number(high.value) > Number(low.value) ? '' : 'The upper pressure must be above the lower.');
    const fmin = form.elements.device_lower_frequency_hz;
    const fmax = form.elements.device_upper_frequency_hz;
    fmax.setCustomValidity(fmax.disabled || Number(fmax.value) >= 1.2 * Number(fmin.value)
      ? '' : 'The upper frequency must be at least 1.2 times the lower.');
  }

  kind.addEventListener('change', showCustom);
  form.addEventListener('input', () => { setDirty(true); checkBand(); onMessage('', false); });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    checkBand();
    if (!form.reportValidity()) return;
    const plan = read();
    if (serverless()) {
      storeLocally(plan);
      setDirty(false);
      onMessage('Plan saved on this device.', false);
      onSaved(plan);
      return;
    }
    onMessage('Saving…', false);
    try {
      const saved = await savePlan(plan);
      fill(saved);
      onMessage('Plan saved.', false);
      onSaved(saved);
    } catch (error) {
      if (error.network) {
        storeLocally(plan);
        setDirty(false);
        onMessage('The server could not be reached: the plan is kept on this device only.', true);
        onSaved(plan);
      } else {
        onMessage(`Not saved: ${error.message}`, true);
      }
    }
  });
  form.addEventListener('reset', (event) => {
    event.preventDefault();
    fill(DEFAULT_PLAN);
    setDirty(true);
    onMessage('Standard plan filled in: press Save plan to keep it.', false);
  });

  let locked = false;
  return {
    fill,
    read,
    setDisabled(disabled) { form.querySelector('fieldset').disabled = disabled || locked; },
    /** Keeps the form shut for good, saying why (a plan prescribed by a physiotherapist). */
    lock(reason) {
      locked = true;
      form.querySelector('fieldset').disabled = true;
      onMessage(reason, false);
    },
  };
}
