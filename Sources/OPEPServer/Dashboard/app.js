// The live coach: captures the microphone, hands it to the engine over the /live protocol (see
// docs/live-protocol.md) and shows the pressure, the breath and set counts, the huff-cough cue,
// the 30-second trace and, after Stop, the session's summary. The engine runs in the page
// (engine-link.js: the Swift engine as WebAssembly, no network needed) unless the browser cannot
// or the address asks for `?engine=server`, which streams to `opep serve` instead. Sessions are
// kept on this device (device-history.js) and, when the page comes from `opep serve`, in its
// history too.

import { createGauge, drawTrace } from './charts.js';
import { bindPlanForm, loadPlan, DEFAULT_PLAN } from './plan.js';
import { BREATH_RUN_S, clock, el, exhalationSpans, exportLinks, fetchJSON, gaugeRun, num, pct, renderSummary } from './common.js';
import { EngineLink, pageEngineAvailable } from './engine-link.js';
import { documentName, forgetSession, keepSession, keptSessions, sendSession } from './device-history.js';

const $ = (id) => document.getElementById(id);
const WINDOW_S = 30;            // seconds of trace shown
const CHUNK_S = 0.1;            // audio per binary message
// The server reports hearing_device false whenever no flutter is heard at that moment, which is
// normal while breathing in and holding (4-5 s): warn only after longer, and not while resting.
const NOT_HEARING_AFTER_MS = 8000;
const TRACE_REDRAW_MS = 100;    // the 30-second trace moves 1/300 of its width per redraw: smooth, and light on a phone
const LITTLE_ENDIAN = new Uint8Array(new Float32Array([1]).buffer)[3] === 0x3f;

const ZONES = {
  in: ['In target', 'Good: keep breathing out steadily like this.'],
  below: ['Too soft', 'Breathe out a little harder.'],
  above: ['Too hard', 'Breathe out a little more gently.'],
};

let plan = { ...DEFAULT_PLAN };  // the saved plan, used by the next session
let session = null;              // the running session, null when idle
let shown = null;                // the session whose trace is on screen (kept after Stop)
let gauge = null;
let gaugeMax = 0;
const ENGINE = new URLSearchParams(location.search).get('engine') === 'server' || !pageEngineAvailable() ? 'server' : 'page';
let serverHere = false;           // the page came from `opep serve`, which keeps the history

// ---------------------------------------------------------------------------------------------
// Small display helpers.

function setStatus(text, isError = false) {
  const status = $('status');
  status.textContent = text;
  status.classList.toggle('error', isError);
}

function setText(id, text) {
  const node = $(id);
  if (node.textContent !== text) node.textContent = text;
}

function planText(p) {
  return `${p.target_low_cmh2o}–${p.target_high_cmh2o} cmH₂O, ${p.sets} ${p.sets === 1 ? 'set' : 'sets'} of ` +
    `${p.breaths_per_set} breaths, ${p.minutes} min, ${p.device?.name || 'Acapella'}`;
}

function ensureGauge(p) {
  const max = Math.max(40, Math.ceil((p.target_high_cmh2o + 10) / 10) * 10);
  if (max !== gaugeMax) { gauge = createGauge($('gauge'), { max }); gaugeMax = max; }
  gauge.setBand(p.target_low_cmh2o, p.target_high_cmh2o);
}

/** Shows a plan's numbers in the counters while no session runs. */
function showPlan(p) {
  ensureGauge(p);
  setText('plan-text', planText(p));
  setText('breath-count', `0 / ${p.breaths_per_set}`);
  setText('set-count', `Set 1 of ${p.sets}`);
  setText('timer', `0:00 / ${clock(p.minutes * 60)}`);
  $('timer').classList.remove('done');
  drawIdleTrace();
}

function showPressure(pressure, pitch, zone, exhaling) {
  const has = typeof pressure === 'number';
  setText('pressure', has ? num(pressure) : '—');
  $('pressure').classList.toggle('none', !has);
  setText('pitch', typeof pitch === 'number' ? num(pitch) : '—');
  setText('zone', has && zone ? zone : '—');
  gauge.update(has ? pressure : null, zone);
  const label = $('zone-label');
  const resting = session?.resting ?? false;
  const [text, hint] = has && ZONES[zone] ? ZONES[zone]
    : !session ? ['Waiting to start', '\u00a0']
      : resting ? ['Set done', 'Huff cough, then rest before the next set.']
        : exhaling ? ['Listening…', 'Keep breathing out through the device.']
          : ['Between breaths', 'Breathe in, then out slowly through the device.'];
  setText('zone-label', text);
  setText('zone-hint', hint);
  label.className = `zone-label zone-${has && zone ? zone : 'none'}`;
}

function showLevel(db) {
  const meter = $('level');
  if (typeof db !== 'number' || !Number.isFinite(db)) {
    meter.querySelector('.level-fill').style.width = '0%';
    meter.querySelector('.level-text').textContent = '— dB';
    meter.setAttribute('aria-valuenow', '-80');
    meter.setAttribute('aria-valuetext', 'no sound');
    return;
  }
  const clamped = Math.max(-80, Math.min(0, db));
  const kind = clamped > -3 ? 'loud' : clamped < -60 ? 'quiet' : 'ok';
  meter.querySelector('.level-fill').style.width = `${((clamped + 80) / 80) * 100}%`;
  meter.querySelector('.level-text').textContent = `${Math.round(clamped)} dB`;
  meter.dataset.kind = kind;
  meter.setAttribute('aria-valuenow', clamped.toFixed(0));
  meter.setAttribute('aria-valuetext', `${Math.round(clamped)} dB${kind === 'loud' ? ', too loud' : kind === 'quiet' ? ', very quiet' : ''}`);
}

/** Shows "Huff cough now" with a detail line under it, or hides the cue when `detail` is null;
 *  `s.resting` says whether it is up (the set is done, huff coughs and the rest follow). */
function showHuffCue(s, detail) {
  s.resting = detail !== null;
  const cue = $('huff-cue');
  if (detail) {
    cue.replaceChildren('Huff cough now ', el('small', {}, detail));
    cue.hidden = false;
  } else {
    cue.hidden = true;
    cue.textContent = '';
  }
}

/** Shows or hides the "Not hearing the device" box; `silent` when the microphone hears nothing at all. */
/** The signal check's warning (`kind` a reason of docs/live-protocol.md, null when none stands). */
function showSignal(kind, advice) {
  const box = $('signal-advice');
  if ((box.dataset.kind || '') === (kind ?? '')) return;
  box.dataset.kind = kind ?? '';
  box.hidden = kind === null;
  box.textContent = kind === null ? '' : advice;
}

/** The placement check's verdict on its breath (an ended breath's event), or hides it (null). */
function showPlacement(ev) {
  const box = $('placement');
  box.hidden = ev === null;
  if (ev === null) return;
  const problem = ev.signal?.problem ?? null;
  box.dataset.verdict = problem ? 'problem' : 'clear';
  setText('placement-verdict', problem
    ? `Heard, with a problem: ${ev.advice}`
    : 'Heard clearly: keep the phone where it is.');
  const figures = [`flutter measured in ${pct(ev.flutter_share)} of the breath`];
  if (typeof ev.signal?.snr_db === 'number') figures.push(`the breath ${num(ev.signal.snr_db, 0)} dB over the room`);
  if (typeof ev.signal?.modulation === 'number') figures.push(`modulation ${num(ev.signal.modulation, 2)}`);
  setText('placement-figures', `${figures.join(' · ')}.`);
}

function showNotHearing(show, silent = false) {
  const box = $('not-hearing');
  const kind = show ? (silent ? 'silent' : 'far') : '';
  if ((box.dataset.kind || '') === kind) return;
  box.dataset.kind = kind;
  box.hidden = !show;
  const hint = silent
    ? ' The microphone hears almost nothing: check that it is not muted and that the right microphone is chosen in the browser, then breathe out through the device again.'
    : ' Move the phone or laptop closer to the device (an arm\'s length or less), keep it away from fans and voices, then breathe out through the device again.';
  box.replaceChildren(...(show ? [el('strong', {}, 'Not hearing the device.'), el('span', {}, hint)] : []));
}

// ---------------------------------------------------------------------------------------------
// The trace.

function drawIdleTrace() {
  if (shown) return drawSessionTrace(shown);
  drawTrace($('trace'), { t0: -WINDOW_S, t1: 0, relative: true, yMax: yMaxFor(plan),
    low: plan.target_low_cmh2o, high: plan.target_high_cmh2o });
}

const yMaxFor = (p) => Math.max(40, Math.ceil((p.target_high_cmh2o + 10) / 10) * 10);

function drawSessionTrace(s) {
  const now = performance.now();
  const ahead = s.finished ? 0 : Math.min((now - s.lastLiveAt) / 1000, 0.15);
  const t1 = s.lastLiveT + ahead;
  const t0 = t1 - WINDOW_S;
  const finalEnd = s.frames.length ? s.frames[s.frames.length - 1][0] : -Infinity;
  const fresh = s.live.filter((p) => p[0] > finalEnd);
  drawTrace($('trace'), {
    t0, t1, relative: true, yMax: yMaxFor(s.plan), low: s.plan.target_low_cmh2o, high: s.plan.target_high_cmh2o,
    spans: exhalationSpans(s.frames, 0.05),
    provisional: exhalationSpans(fresh.map((p) => [p[0], null, p[1], p[2]]), 0.1),
    series: [
      { points: s.frames.map((f) => [f[0], f[2]]), gap: 0.25 },
      { points: fresh, gap: 0.35 },
    ],
  });
}

function prune(list, before) {
  let i = 0;
  while (i < list.length && list[i][0] < before) i++;
  if (i > 0) list.splice(0, i);
}

// ---------------------------------------------------------------------------------------------
// The session.

function newSession(p) {
  return {
    plan: p, ws: null, ctx: null, stream: null, source: null, node: null,
    sessionId: null, started: false, stopSent: false, finished: false, summary: null, lastError: null, wakeLock: null,
    chunkSize: 0, pending: null, filled: 0, seq: 0, sentAt: new Map(), rtts: [],
    live: [], frames: [], lastLiveT: 0, lastLiveAt: performance.now(), liveCount: 0, frameCount: 0,
    gaugeRun: null, huffs: 0, resting: false, setDone: '', breathsInSet: 0, setsDone: 0, setNo: 1, inBreath: false, prompt: '', breathHeard: false,
    elapsed: 0, elapsedAt: performance.now(), notHearingSince: null, lastStatusAt: performance.now(),
    raf: 0, diagAt: 0, traceAt: 0, stale: false,
  };
}

/** Starts a session; `placement`: a placement check, which ends after one breath and is not kept. */
async function start(placement = false) {
  if (session) return;
  const s = newSession({ ...plan });
  s.placement = placement;
  session = s;
  shown = s;
  $('start').disabled = true;
  $('placement-row').hidden = true;
  showPlacement(null);
  $('stop').disabled = false;
  $('summary').hidden = true;
  planForm.setDisabled(true);
  showHuffCue(s, null);
  showPlan(s.plan);
  try {
    if (!navigator.mediaDevices?.getUserMedia || !window.AudioWorkletNode) {
      throw new Error('This page cannot use the microphone here. Open it over https://, or as http://127.0.0.1:PORT or http://localhost:PORT on this computer, in a current browser.');
    }
    s.ctx = new AudioContext();          // created inside the click, so it may start
    s.ctx.resume().catch(() => {});
    setStatus('Asking for the microphone…');
    s.stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 },
    });
    if (session !== s) throw new Error('stopped');
    s.stream.getAudioTracks()[0]?.addEventListener('ended', () => {
      if (s.finished) return;
      setStatus('The microphone stopped (unplugged or taken by another app). The session so far is being saved.', true);
      stop();
    });
    await s.ctx.audioWorklet.addModule(new URL('./capture-worklet.js', import.meta.url).href).catch(() => {
      throw new Error('the audio module could not be loaded. Reload the page and try again.');
    });
    if (session !== s) throw new Error('stopped');
    s.source = s.ctx.createMediaStreamSource(s.stream);
    s.node = new AudioWorkletNode(s.ctx, 'opep-capture', {
      numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1],
      channelCount: 1, channelCountMode: 'explicit', channelInterpretation: 'speakers',
      processorOptions: { blockSize: 1024 },
    });
    s.node.port.onmessage = (event) => onWorkletMessage(s, event.data);
    s.source.connect(s.node);
    s.node.connect(s.ctx.destination);   // the node outputs silence; this keeps it running
    s.chunkSize = Math.round(s.ctx.sampleRate * CHUNK_S);
    s.pending = new Float32Array(s.chunkSize);
    setText('diag-rate', String(s.ctx.sampleRate));
    connect(s);
  } catch (error) {
    if (session !== s) { releaseAudio(s); return; } // Stop was pressed meanwhile
    const denied = error.name === 'NotAllowedError' || error.name === 'SecurityError';
    const missing = error.name === 'NotFoundError' || error.name === 'OverconstrainedError';
    setStatus(denied ? 'The microphone was not allowed. Allow it in the browser\'s address bar, then press Start again.'
      : missing ? 'No microphone was found. Plug one in or choose one in the system settings, then press Start again.'
        : `Could not start: ${error.message}`, true);
    finish(s);
  }
}

function connect(s) {
  s.local = ENGINE === 'page';
  setStatus(s.local ? 'Starting the engine…' : 'Connecting to the opep server…');
  const ws = s.local ? new EngineLink() : new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/live`);
  s.ws = ws;
  const where = s.local ? 'the engine in this page' : 'the opep server';
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => {
    ws.send(JSON.stringify({ type: 'start', sample_rate: s.ctx.sampleRate, plan: s.plan, keep_audio: false, placement: s.placement }));
  };
  ws.onmessage = (event) => {
    if (typeof event.data !== 'string') return;
    let msg;
    try { msg = JSON.parse(event.data); } catch { return setStatus('The server sent a message that is not JSON.', true); }
    onMessage(s, msg);
  };
  ws.onerror = () => {
    if (!s.finished) setStatus(s.local ? 'The engine in this page failed.' : 'Connection error: is `opep serve` still running?', true);
  };
  ws.onclose = (event) => {
    if (s.finished) return;
    if (!s.started) {
      const why = s.lastError || event.reason;
      setStatus(why ? `${where} did not start the session: ${why}`.replace(/^t/, 'T') : 'Could not connect to the opep server. Is `opep serve` running?', true);
    } else if (!s.stopSent) {
      setStatus(s.local ? `The engine in this page stopped: ${event.reason}` : 'The connection to the server was lost. The session so far has been saved.', true);
    }
    finish(s);
  };
}

function onWorkletMessage(s, data) {
  if (data === 'done') { s.flushed?.(); return; }
  if (!(data instanceof Float32Array) || !s.started || s.stopSent) return;
  let offset = 0;
  while (offset < data.length) {
    const count = Math.min(data.length - offset, s.chunkSize - s.filled);
    s.pending.set(data.subarray(offset, offset + count), s.filled);
    s.filled += count;
    offset += count;
    if (s.filled === s.chunkSize) {
      sendChunk(s, s.pending);
      s.filled = 0;
    }
  }
}

/** One binary message: UInt32 LE sequence number, then Float32 LE samples. */
function sendChunk(s, samples) {
  if (s.ws?.readyState !== WebSocket.OPEN) return;
  const n = samples.length;
  const buffer = new ArrayBuffer(4 + n * 4);
  const view = new DataView(buffer);
  view.setUint32(0, s.seq, true);
  if (LITTLE_ENDIAN) new Float32Array(buffer, 4, n).set(samples);
  else for (let i = 0; i < n; i++) view.setFloat32(4 + i * 4, samples[i], true);
  s.ws.send(buffer);
  s.sentAt.set(s.seq, performance.now());
  if (s.sentAt.size > 300) s.sentAt.delete(s.sentAt.keys().next().value);
  s.seq += 1;
}

function onMessage(s, msg) {
  if (s.finished) return;
  switch (msg.type) {
    case 'started': return onStarted(s, msg);
    case 'live': return onLive(s, msg);
    case 'frames': return onFrames(s, msg);
    case 'event': return onEvent(s, msg);
    case 'status': return onStatus(s, msg);
    case 'summary': return onSummary(s, msg);
    case 'checkpoint': return onCheckpoint(s, msg);
    case 'error': s.lastError = msg.message; return setStatus(`${s.local ? 'Engine' : 'Server'}: ${msg.message}`, true);
    default: return undefined;
  }
}

function onStarted(s, msg) {
  s.started = true;
  s.sessionId = msg.session_id;
  if (msg.plan) s.plan = { ...s.plan, ...msg.plan };
  showPlan(s.plan);
  setText('diag-session', String(msg.session_id ?? '—'));
  setText('diag-latency', num(msg.latency_s, 2));
  setStatus(s.placement
    ? 'Placement check: breathe in, then out once through the device, as in a session.'
    : 'Listening. Breathe in, then breathe out slowly through the device.');
  askNext(s, 'Breathe in, then out steadily through the device for 3–4 seconds.');
  s.elapsedAt = performance.now();
  s.lastStatusAt = performance.now();
  // Keep the screen on during the session, where the browser allows it.
  navigator.wakeLock?.request('screen').then((lock) => { s.wakeLock = lock; if (s.finished) lock.release(); }).catch(() => {});
  s.raf = requestAnimationFrame(() => tick(s));
}

function onLive(s, msg) {
  const now = performance.now();
  const sent = s.sentAt.get(msg.seq);
  if (sent !== undefined) {
    s.rtts.push(now - sent);
    if (s.rtts.length > 50) s.rtts.shift();
    for (const key of s.sentAt.keys()) { if (key > msg.seq) break; s.sentAt.delete(key); }
  }
  s.liveCount += 1;
  const pressure = typeof msg.pressure_cmh2o === 'number' ? msg.pressure_cmh2o : null;
  if (typeof msg.t === 'number') s.gaugeRun = gaugeRun(s.gaugeRun, msg.t, pressure);
  if (pressure !== null) {
    s.notHearingSince = null;
    showNotHearing(false);
    showPressure(pressure, msg.pitch_hz, msg.zone, msg.exhaling);
    // The next set's first breath has begun, before the engine counts it: the huff cue goes.
    if (s.gaugeRun && s.gaugeRun.to - s.gaugeRun.from >= BREATH_RUN_S) showHuffCue(s, null);
  } else if (!s.gaugeRun) {
    showPressure(null, null, null, msg.exhaling);
  }
  followBreath(s, s.gaugeRun !== null);
  showLevel(msg.level_db);
  showSignal(typeof msg.warning === 'string' ? msg.warning : null, typeof msg.advice === 'string' ? msg.advice : '');
  if (typeof msg.t === 'number') {
    s.live.push([msg.t, pressure, msg.exhaling ? 1 : 0]);
    s.lastLiveT = msg.t;
    s.lastLiveAt = now;
    prune(s.live, msg.t - WINDOW_S - 5);
  }
}

function onFrames(s, msg) {
  if (!Array.isArray(msg.frames)) return;
  for (const f of msg.frames) s.frames.push(f);
  s.frameCount += msg.frames.length;
  prune(s.frames, s.lastLiveT - WINDOW_S - 5);
}

function showCounts(s) {
  const p = s.plan;
  setText('breath-count', `${s.breathsInSet} / ${p.breaths_per_set}`);
  const done = s.setsDone >= p.sets && s.breathsInSet === 0 && !s.inBreath;
  setText('set-count', done ? `All ${p.sets} sets done` : `Set ${s.setNo} of ${p.sets}`);
  $('breath-count').classList.toggle('done', s.breathsInSet >= p.breaths_per_set);
}

/** Shows the huff-cough cue for the set just done (`text`), with the huff coughs heard since its
 *  last breath; they come a few seconds after the coughs, and may come before the set's end. */
function huffNow(s, text) {
  s.setDone = text;
  showHuffCue(s, s.huffs ? `${text} · ${huffsHeard(s.huffs)}` : text);
  askNext(s, afterSet(s.huffs));
}

function huffsHeard(n) {
  return `${n} huff cough${n === 1 ? '' : 's'} heard`;
}

/** What to do after a set once `n` huff coughs were heard (none yet: cough them). */
function afterSet(n) {
  return n ? `${huffsHeard(n)}. Rest, then start the next set when you are ready.`
    : 'Do 2–3 huff coughs, then rest and breathe normally before the next set.';
}

/** Sets what the patient is asked to do next; while a breath is heard that the engine has not
 *  counted yet (its first flutter, or a first breath that waits for the next), it is shown once
 *  the gauge stops showing a pressure. */
function askNext(s, text) {
  s.prompt = text;
  if (!s.breathHeard) setText('breath-state', text);
}

/** Keeps the prompt from asking for the next breath while the gauge shows this one's pressure. */
function followBreath(s, showing) {
  const heard = showing && !s.inBreath && !s.resting;
  if (heard === s.breathHeard) return;
  s.breathHeard = heard;
  setText('breath-state', heard ? 'Breathing out: keep it steady for 3–4 seconds.' : s.prompt);
}

function onEvent(s, ev) {
  const p = s.plan;
  switch (ev.kind) {
    case 'breath_started':
      s.inBreath = true;
      s.huffs = 0;
      if (typeof ev.set === 'number' && ev.set !== s.setNo) { s.setNo = ev.set; s.breathsInSet = 0; }
      showHuffCue(s, null);
      askNext(s, `Breath ${ev.breath_in_set}: breathe out steadily for 3–4 seconds.`);
      break;
    case 'breath_ended':
      if (s.placement) {
        showPlacement(ev);
        stop();
        return;
      }
      s.inBreath = false;
      s.breathsInSet = ev.breath_in_set;
      if (typeof ev.set === 'number') s.setNo = ev.set;
      if (s.breathsInSet >= p.breaths_per_set) {
        huffNow(s, `Set ${s.setNo} done: ${s.breathsInSet} breaths`);
      } else {
        const pressure = typeof ev.mean_pressure_cmh2o === 'number' ? ` Mean ${num(ev.mean_pressure_cmh2o)} cmH₂O.` : '';
        askNext(s, `Breath done (${num(ev.duration_s)} s).${pressure} Breathe in, hold 2–3 s, then out again.`);
      }
      break;
    case 'set_ended':
      s.inBreath = false;
      if (typeof ev.set === 'number') { s.setsDone = Math.max(s.setsDone, ev.set); s.setNo = ev.set + 1; }
      s.breathsInSet = 0;
      huffNow(s, `Set ${ev.set ?? s.setsDone} done`);
      break;
    case 'huff_cough':
      s.huffs += 1;
      if (s.resting) huffNow(s, s.setDone);
      else askNext(s, afterSet(s.huffs));
      break;
    default:
      break;
  }
  followBreath(s, s.gaugeRun !== null);
  showCounts(s);
}

function onStatus(s, msg) {
  const now = performance.now();
  const p = s.plan;
  s.lastStatusAt = now;
  if (s.stale) { s.stale = false; setStatus('Listening again.'); }
  if (typeof msg.elapsed_s === 'number') { s.elapsed = msg.elapsed_s; s.elapsedAt = now; }
  if (typeof msg.engine_busy_s === 'number' && msg.elapsed_s > 0) {
    const share = msg.engine_busy_s / msg.elapsed_s;
    $('diagnostics').dataset.engineShare = share.toFixed(5);
    setText('diag-engine', `${(share * 100).toFixed(2)} % of real time`);
  }
  if (typeof msg.sets === 'number') { s.setsDone = msg.sets; s.setNo = msg.sets + 1; }
  if (typeof msg.breaths_in_set === 'number') s.breathsInSet = msg.breaths_in_set;
  if (s.breathsInSet >= p.breaths_per_set && !s.inBreath && s.gaugeRun === null && !s.resting) {
    huffNow(s, `Set ${s.setNo} done: ${s.breathsInSet} breaths`);
  }
  showCounts(s);
  if (typeof msg.level_db === 'number' && now - s.lastLiveAt > 1000) showLevel(msg.level_db);
  if (msg.hearing_device === false) {
    s.notHearingSince ??= now;
    // huff coughs and the rest between sets are quiet
    showNotHearing(!s.resting && now - s.notHearingSince >= NOT_HEARING_AFTER_MS, msg.level_db !== null && msg.level_db < -70);
  } else if (msg.hearing_device === true) {
    s.notHearingSince = null;
    showNotHearing(false);
  }
}

function onSummary(s, msg) {
  if (s.placement) {
    setStatus($('placement').hidden ? 'Placement check stopped before a breath through the device was heard.' : 'Placement checked.');
    return finish(s);
  }
  s.summary = msg;
  if (msg.session_id !== undefined) s.sessionId = msg.session_id;
  showSummary(s, msg);
  const heard = (msg.summary?.breaths ?? msg.breaths?.length ?? 0) > 0;
  const praise = heard ? ' Well done.' : ' No breaths through the device were heard.';
  if (typeof msg.document === 'string') {
    setStatus(`Saving the session…${praise}`);
    keepHere(s, msg, praise);
  } else {
    setStatus(`Session ${s.sessionId ?? ''} saved.`.replace('  ', ' ') + praise);
  }
  finish(s);
}

/** Keeps the session so far on this device, so that a closed page loses nothing measured before. */
function onCheckpoint(s, msg) {
  if (s.placement) return;
  s.recordId ??= `${msg.recorded_at}-${Math.random().toString(36).slice(2, 8)}`;
  s.checkpoints = (s.checkpoints ?? Promise.resolve())
    .then(() => keepSession({ id: s.recordId, document: msg.document, recordedAt: msg.recorded_at, plan: s.plan, complete: false }))
    .catch((error) => setStatus(`The session cannot be kept on this device (${error.message}).`, true));
}

/** Keeps a session the page's engine measured on this device, and in the server's history when
 * the page came from `opep serve`. */
async function keepHere(s, msg, praise) {
  let record;
  try {
    await s.checkpoints;
    record = await keepSession({ id: s.recordId ?? null, document: msg.document, recordedAt: msg.recorded_at, plan: s.plan });
    s.record = record;
  } catch (error) {
    setStatus(`The session could not be kept on this device (${error.message}).`, true);
  }
  if (serverHere) {
    try {
      s.sessionId = await sendSession(record ?? { id: '', document: msg.document }, location.origin);
      setStatus(`Session ${s.sessionId} saved.${praise}`);
    } catch (error) {
      setStatus(`Saved on this device; the server did not take it: ${error.message}`, true);
    }
  } else if (record) {
    setStatus(`Session saved on this device.${praise}`);
  }
  showSummary(s, msg);
  showDeviceSessions();
}

function showSummary(s, data) {
  const box = $('summary');
  renderSummary($('summary-body'), { summary: data.summary, breaths: data.breaths, sets: data.sets, plan: s.plan }, 'summary');
  $('summary-links').replaceChildren(...(s.sessionId !== null && s.sessionId !== undefined
    ? [el('span', {}, `Saved as session ${s.sessionId}: `), exportLinks(s.sessionId, { page: true })]
    : s.record ? [el('span', {}, 'Saved on this device: '), documentLink(s.record)] : []));
  box.hidden = false;
  box.focus({ preventScroll: true });
  box.scrollIntoView({ behavior: 'smooth', block: 'start' });
}

/** Called every animation frame while a session runs: timer, trace, diagnostics. */
function tick(s) {
  if (s.finished) return;
  const now = performance.now();
  const elapsed = s.elapsed + Math.min((now - s.elapsedAt) / 1000, 1.5);
  const planned = s.plan.minutes * 60;
  setText('timer', `${clock(elapsed)} / ${clock(planned)}`);
  $('timer').classList.toggle('done', elapsed >= planned);
  if (now - s.lastStatusAt > 4000 && !s.stopSent && !s.stale) {
    s.stale = true;
    setStatus('No news from the server for a few seconds…', true);
  }
  if (now - s.traceAt >= TRACE_REDRAW_MS) { s.traceAt = now; drawSessionTrace(s); }
  if (now - s.diagAt > 250) { s.diagAt = now; showDiagnostics(s); }
  s.raf = requestAnimationFrame(() => tick(s));
}

function median(values) {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function showDiagnostics(s) {
  const rtt = median(s.rtts);
  setText('rtt', rtt === null ? '—' : rtt.toFixed(0));
  setText('rtt-count', String(s.rtts.length));
  $('diagnostics').dataset.rttMs = rtt === null ? '' : rtt.toFixed(1);
  setText('diag-chunks', String(s.seq));
  setText('diag-live', String(s.liveCount));
  setText('diag-frames', String(s.frameCount));
  setText('diag-buffer', String(s.ws?.bufferedAmount ?? 0));
}

async function stop() {
  const s = session;
  if (!s || s.stopSent) return;
  $('stop').disabled = true;
  if (!s.started) { setStatus('Stopped before the session started.'); s.ws?.close(); return finish(s); }
  setStatus('Finishing the session…');
  // Let the worklet hand over its last partial block, send what is left, then stop.
  await new Promise((resolve) => {
    s.flushed = resolve;
    s.node.port.postMessage('stop');
    setTimeout(resolve, 300);
  });
  if (s.filled > 0) sendChunk(s, s.pending.slice(0, s.filled));
  s.filled = 0;
  s.stopSent = true;
  releaseAudio(s);
  if (s.ws?.readyState === WebSocket.OPEN) s.ws.send(JSON.stringify({ type: 'stop' }));
  s.stopTimer = setTimeout(() => { if (!s.finished) { s.ws?.close(); finish(s); } }, 15000);
}

function releaseAudio(s) {
  s.wakeLock?.release().catch(() => {});
  s.wakeLock = null;
  s.stream?.getTracks().forEach((track) => track.stop());
  try { s.source?.disconnect(); s.node?.disconnect(); } catch { /* already gone */ }
  if (s.ctx && s.ctx.state !== 'closed') s.ctx.close().catch(() => {});
}

/** Ends the session on this page: frees the microphone, shows the summary (fetched if need be). */
async function finish(s) {
  if (s.finished) return;
  s.finished = true;
  clearTimeout(s.stopTimer);
  cancelAnimationFrame(s.raf);
  releaseAudio(s);
  if (s.ws && s.ws.readyState <= WebSocket.OPEN) s.ws.close();
  if (session === s) session = null;
  showDiagnostics(s);
  showNotHearing(false);
  showHuffCue(s, null);
  setText('breath-state', s.started && !s.placement ? 'Session finished. Well done: rest and breathe normally.' : 'Sit upright, lips sealed around the mouthpiece.');
  showLevel(null);
  showPressure(null, null, null, false);
  $('start').disabled = false;
  $('placement-row').hidden = false;
  $('stop').disabled = true;
  planForm.setDisabled(false);
  if (s.started) drawSessionTrace(s); else { shown = null; drawIdleTrace(); }
  if (!s.summary && !s.local && s.started && s.sessionId !== null && s.sessionId !== undefined) {
    try {
      const saved = await fetchJSON(`/api/sessions/${s.sessionId}`);
      showSummary(s, saved);
    } catch (error) {
      setStatus(`${$('status').textContent} The summary could not be loaded: ${error.message}`, true);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Sessions kept on this device.

/** A link that saves the session's analysis document as a JSON file. */
function documentLink(record) {
  const link = el('a', { href: '#', download: documentName(record) }, 'JSON');
  link.addEventListener('click', () => {
    link.href = URL.createObjectURL(new Blob([record.document], { type: 'application/json' }));
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  });
  return link;
}

async function showDeviceSessions() {
  const list = $('device-sessions-list');
  let records;
  try {
    records = await keptSessions();
  } catch (error) {
    list.replaceChildren(el('li', { class: 'error' }, `The sessions on this device cannot be read: ${error.message}`));
    return;
  }
  $('device-count').textContent = String(records.length);
  if (!records.length) {
    list.replaceChildren(el('li', { class: 'muted' }, 'No sessions yet.'));
    return;
  }
  list.replaceChildren(...records.map((record) => {
    let summary = {};
    try { summary = JSON.parse(record.document).summary ?? {}; } catch { /* shown without numbers */ }
    const when = new Date(record.recorded_at);
    const sent = Object.entries(record.sent ?? {});
    const forget = el('button', { type: 'button', class: 'link-button' }, 'Delete');
    forget.addEventListener('click', async () => {
      if (!confirm('Delete this session from this device?')) return;
      await forgetSession(record.id);
      showDeviceSessions();
    });
    return el('li', { 'data-breaths': String(summary.breaths ?? 0) },
      el('strong', {}, Number.isNaN(when.getTime()) ? record.recorded_at : when.toLocaleString()),
      record.complete === false && record.id !== session?.recordId ? ' (interrupted)' : '',
      ` · ${summary.breaths ?? 0} breaths · ${summary.sets ?? 0} sets · ${num(summary.mean_pressure_cmh2o)} cmH₂O · ${pct(summary.time_share?.in)} in target `,
      el('span', { class: 'links' }, documentLink(record), forget),
      sent.length ? el('small', { class: 'muted' }, ` sent to ${sent.map(([origin, id]) => `${origin} (session ${id})`).join(', ')}`) : null);
  }));
}

/** Sends every session not yet sent to the named `opep serve` (it answers with its session ids). */
async function syncSessions(event) {
  event.preventDefault();
  const message = $('sync-message');
  let origin, token;
  try {
    const address = new URL($('sync-address').value.trim());
    origin = address.origin;
    token = address.searchParams.get('token');
  } catch {
    message.textContent = 'Give the address `opep serve` printed, e.g. https://192.168.1.20:8080/?token=….';
    return;
  }
  localStorage.setItem('opep.sync', $('sync-address').value.trim());
  const records = (await keptSessions()).filter((r) => !(origin in (r.sent ?? {})));
  let sent = 0;
  for (const record of records) {
    message.textContent = `Sending ${sent + 1} of ${records.length}…`;
    try {
      await sendSession(record, origin, token);
      sent += 1;
    } catch (error) {
      message.textContent = `Sent ${sent} of ${records.length}; then ${origin} answered: ${error.message}`;
      showDeviceSessions();
      return;
    }
  }
  message.textContent = records.length ? `Sent ${sent} sessions to ${origin}.` : `Every session is already on ${origin}.`;
  showDeviceSessions();
}

// ---------------------------------------------------------------------------------------------
// Page set-up.

const planForm = bindPlanForm($('plan-form'), {
  serverless: () => !serverHere,
  onSaved(saved) { plan = { ...saved }; if (!session) showPlan(plan); },
  onMessage(text, isError) {
    setText('plan-message', text);
    $('plan-message').classList.toggle('error', isError);
  },
});

$('start').addEventListener('click', () => start());
$('placement-check').addEventListener('click', () => start(true));
$('stop').addEventListener('click', stop);
window.addEventListener('resize', () => { if (!session) drawIdleTrace(); });
window.addEventListener('beforeunload', (event) => {
  if (session?.started && !session.stopSent) { event.preventDefault(); event.returnValue = ''; }
});

ensureGauge(plan);
showPlan(plan);
showPressure(null, null, null, false);
$('sync-form').addEventListener('submit', syncSessions);
$('sync-address').value = localStorage.getItem('opep.sync') ?? '';
showDeviceSessions();
navigator.serviceWorker?.register(new URL('../sw.js', import.meta.url)).catch(() => { /* the page works online without it */ });
loadPlan().then(({ plan: loaded, source, error, serverless }) => {
  plan = loaded;
  planForm.fill(plan);
  if (plan.prescribed_by) planForm.lock(`Prescribed by ${plan.prescribed_by}: ask them to change it.`);
  if (!session) showPlan(plan);
  serverHere = source === 'server';
  document.body.classList.toggle('serverless', !serverHere);
  if (source !== 'server' && !(serverless && ENGINE === 'page')) {
    setStatus(`Could not load the plan from the server (${error?.message ?? 'unknown error'}); using ${source === 'browser' ? 'the copy saved in this browser' : 'the standard plan'}.`, true);
  }
});
