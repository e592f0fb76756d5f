// The coach's engine inside the page: a module Worker that answers the /live protocol of
// docs/live-protocol.md as `opep serve` does, with the Swift engine compiled to WebAssembly
// (engine.mjs, opep-engine.wasm), so the gauge needs no network. It takes the same messages
// (`start`, binary chunks with a sequence number, `stop`) and sends the same ones back (`started`,
// `live`, `frames`, `event`, `status`, `summary`, `error`); the summary carries the session's
// analysis document, the JSON of `opep analyze --format json`, and `checkpoint` messages carry the
// document of the session so far, after each breath and every 30 s, so that a closed page loses
// nothing measured before them.

import { OPEPEngine } from './engine.mjs';

const FRAME_STEP_S = 0.05;      // the trace gets a final frame every 0.05 s or the next after it, as from the server
const STATUS_INTERVAL_S = 1;    // seconds of audio between status messages
const MAX_CHUNK_S = 1;          // the longest chunk taken at once
const CHECKPOINT_S = 30;        // the session so far is handed out at least this often, and after each breath

const enginePromise = fetch(new URL('./opep-engine.wasm', import.meta.url))
  .then((response) => {
    if (!response.ok) throw new Error(`the engine could not be loaded (HTTP ${response.status})`);
    return response.arrayBuffer();
  })
  .then((bytes) => OPEPEngine.load(bytes));

let engine = null;
let session = null;

const send = (message) => postMessage(JSON.stringify(message));
const refuse = (text) => send({ type: 'error', message: text });
const round = (value, digits) => (value === null || value === undefined ? null : Number(value.toFixed(digits)));

enginePromise.then(
  (loaded) => { engine = loaded; postMessage({ ready: true }); },
  (error) => postMessage({ ready: false, error: error.message }));

onmessage = (event) => {
  const data = event.data;
  if (typeof data === 'string') return onText(data);
  if (data instanceof ArrayBuffer) return onChunk(data);
  return refuse('a message must be JSON text or binary audio');
};

function onText(text) {
  let message;
  try { message = JSON.parse(text); } catch { return refuse('the message is not JSON'); }
  if (message?.type === 'start') return start(message);
  if (message?.type === 'stop') return session ? stop() : refuse('stop before start');
  return refuse(`unknown message type "${message?.type}" (expected start or stop)`);
}

function start(message) {
  if (session) return refuse('a second start: this session is already running');
  if (!engine) return refuse('the engine is not loaded yet');
  const rate = message.sample_rate;
  if (typeof rate !== 'number' || !(rate >= 8000 && rate <= 192000)) {
    return refuse(`sample_rate must be between 8000 and 192000 Hz, not ${rate}`);
  }
  const recordedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  try {
    engine.start(rate, { chunkCapacity: Math.ceil(rate * MAX_CHUNK_S), plan: message.plan ?? null, recordedAt });
  } catch (error) {
    return refuse(`the analysis cannot run with this plan and sample rate: ${error.message}`);
  }
  session = {
    rate, plan: message.plan ?? null, recordedAt, expected: 0, samples: 0, lastStatus: 0, busy: 0, lastCheckpoint: 0,
    traceDue: -Infinity,
    breathsEndedInSet: 0, breathsEnded: 0, setsEnded: 0, newest: null,
  };
  send({ type: 'started', session_id: null, sample_rate: rate, plan: message.plan ?? null, recorded_at: recordedAt });
}

function onChunk(buffer) {
  const s = session;
  if (!s) return refuse('audio before start');
  if (buffer.byteLength < 4 || buffer.byteLength % 4 !== 0) {
    return refuse(`a binary message must be a 4-byte sequence number and Float32 samples; this one has ${buffer.byteLength} bytes`);
  }
  const view = new DataView(buffer);
  const sequence = view.getUint32(0, true);
  if (sequence !== s.expected) return refuse(`chunk ${sequence} is out of order: the next one is ${s.expected}`);
  s.expected += 1;
  const count = buffer.byteLength / 4 - 1;
  if (count > s.rate * MAX_CHUNK_S) return refuse(`a binary message may hold at most ${MAX_CHUNK_S} s of audio`);
  const samples = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const value = view.getFloat32(4 + i * 4, true);
    samples[i] = Number.isFinite(value) ? value : 0;
  }
  const begin = performance.now();
  const result = engine.process(samples);
  s.busy += performance.now() - begin;
  s.samples += count;
  hand(s, result);
  if (result.live) {
    s.newest = result.live;
    const f = result.live;
    send({ type: 'live', t: round(f.time_s, 3), seq: sequence, pitch_hz: round(f.pitch_hz, 2), pressure_cmh2o: round(f.pressure_cmh2o, 2),
      zone: f.zone, exhaling: f.exhaling, confidence: round(f.confidence, 3), level_db: round(f.level_db, 1),
      warning: f.warning, advice: f.warning ? engine.advice[f.warning] : null });
  }
  const elapsed = s.samples / s.rate;
  const breathEnded = result.events.some((ev) => ev.kind === 'breath_ended' || ev.kind === 'set_ended');
  if (breathEnded || elapsed - s.lastCheckpoint >= CHECKPOINT_S) {
    s.lastCheckpoint = elapsed;
    send({ type: 'checkpoint', recorded_at: s.recordedAt, document: engine.snapshot().text });
  }
  if (elapsed - s.lastStatus >= STATUS_INTERVAL_S) {
    s.lastStatus = elapsed;
    send({ type: 'status', breaths: s.breathsEnded, breaths_in_set: s.breathsEndedInSet, sets: s.setsEnded,
      elapsed_s: round(elapsed, 2), hearing_device: s.newest?.pitch_hz != null, level_db: round(s.newest?.level_db ?? null, 1),
      engine_busy_s: round(s.busy / 1000, 4) });
  }
}

/** Sends the trace's final frames (the first, then the first at least FRAME_STEP_S after the last
 *  sent: one in five of 10 ms frames, one in three of 20 ms frames, as from the server), then the
 *  events. */
function hand(s, { frames, events }) {
  const trace = [];
  for (const f of frames) {
    if (f.time_s >= s.traceDue) {
      trace.push([round(f.time_s, 3), round(f.pitch_hz, 2), round(f.pressure_cmh2o, 2), f.exhaling ? 1 : 0]);
      s.traceDue = f.time_s + FRAME_STEP_S - 1e-6;
    }
  }
  if (trace.length) send({ type: 'frames', frames: trace });
  for (const ev of events) send(eventMessage(s, ev));
}

function eventMessage(s, ev) {
  const message = {
    type: 'event', kind: ev.kind, time_s: ev.time_s, duration_s: ev.duration_s, breath: ev.breath, set: ev.set,
    breath_in_set: ev.breath_in_set,
  };
  switch (ev.kind) {
    case 'breath_ended':
      s.breathsEnded = ev.breath ?? s.breathsEnded;
      s.breathsEndedInSet = ev.breath_in_set ?? s.breathsEndedInSet;
      message.mean_pressure_cmh2o = ev.mean_pressure_cmh2o;
      message.share_in_target = ev.share_in_target;
      message.flutter_share = ev.flutter_share;
      message.signal = ev.signal;
      message.advice = ev.signal?.problem ? engine.advice[ev.signal.problem] : null;
      break;
    case 'set_ended':
      s.setsEnded = ev.set ?? s.setsEnded;
      s.breathsEndedInSet = 0;
      message.mean_pressure_cmh2o = ev.mean_pressure_cmh2o;
      message.share_in_target = ev.share_in_target;
      break;
    default:
      break;
  }
  for (const key of Object.keys(message)) if (message[key] === null) delete message[key];
  return message;
}

function stop() {
  const s = session;
  session = null;
  const end = engine.finish({ pretty: false });
  hand(s, end);
  const { summary, breaths, sets } = end.document;
  send({ type: 'summary', session_id: null, summary, breaths, sets, recorded_at: s.recordedAt, document: end.text });
}
