#!/usr/bin/env node
// How long the live coach's gauge shows a pressure inside and outside the breaths' flutter, with
// the page's own engine (the WebAssembly build in Sources/OPEPServer/Dashboard) and the page's own
// rule for holding a pressure through gaps (gaugeRun in common.js), on simulated sessions with
// their truth. A live frame is taken every 50 ms, as `opep serve` sends them; each frame's pressure
// stays on screen for those 50 ms. The rule is measured with the hold the page uses (GAUGE_HOLD_S) at
// each `steadyS` given (by default 0, which holds every pressure as the page did before 77dd055;
// 0.2 s, from 77dd055; and the page's own, BREATH_RUN_S), and so is the time a pressure is shown
// in the exhalations without the device (the truth's `plain_exhalations`).
//
//     for s in $(seq 1 30); do
//       opep simulate --real-breath --sets 1 --breaths 3 --noise room --seed $s -o /tmp/lg/s$s.wav
//     done
//     node scripts/live-gauge.mjs [--steady 0,0.2,1] /tmp/lg/s*.wav
//
// A WAV is read as 16-bit mono PCM (what `opep simulate` writes by default) and its truth from the
// `.truth.json` beside it; a breath's flutter runs from its `flutter_start` to its `end`.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPEPEngine } from '../Sources/OPEPServer/Dashboard/engine.mjs';
import { BREATH_RUN_S, GAUGE_HOLD_S, gaugeRun } from '../Sources/OPEPServer/Dashboard/common.js';

const LIVE_INTERVAL_S = 0.05;
const dashboard = join(dirname(fileURLToPath(import.meta.url)), '..', 'Sources', 'OPEPServer', 'Dashboard');

function fail(message) {
  console.error(`live-gauge: ${message}`);
  process.exit(2);
}

function read(path, encoding) {
  try {
    return readFileSync(path, encoding);
  } catch (error) {
    fail(`${path}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  }
}

function readWAV(path) {
  const wav = read(path);
  if (wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') fail(`${path}: not a WAV file`);
  let offset = 12, rate = 0, channels = 0, bits = 0, data = null;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4), size = wav.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      channels = wav.readUInt16LE(offset + 10);
      rate = wav.readUInt32LE(offset + 12);
      bits = wav.readUInt16LE(offset + 22);
    }
    if (id === 'data') data = wav.subarray(offset + 8, offset + 8 + size);
    offset += 8 + size + (size & 1);
  }
  if (channels !== 1 || bits !== 16 || !data) fail(`${path}: ${channels} channels of ${bits} bits; 16-bit mono PCM is read`);
  const samples = new Float32Array(data.length >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = data.readInt16LE(2 * i) / 32768;
  return { rate, samples };
}

const args = process.argv.slice(2);
let steadies = [0, 0.2, BREATH_RUN_S];
const steadyAt = args.indexOf('--steady');
if (steadyAt >= 0) {
  steadies = (args[steadyAt + 1] ?? '').split(',').map(Number);
  if (!steadies.length || steadies.some(s => !(s >= 0))) fail('--steady takes seconds, as 0,0.2');
  args.splice(steadyAt, 2);
}
if (!args.length) fail('name one or more simulated sessions (WAV files with their .truth.json beside them)');

const engine = await OPEPEngine.load(readFileSync(join(dashboard, 'opep-engine.wasm')));
const sessions = args.map(path => {
  const { rate, samples } = readWAV(path);
  const truthPath = path.replace(/\.wav$/i, '') + '.truth.json';
  let truth;
  try {
    truth = JSON.parse(read(truthPath, 'utf8'));
  } catch {
    fail(`${truthPath}: not JSON`);
  }
  if (!Array.isArray(truth?.breaths)) fail(`${truthPath}: no "breaths" list (a truth file of opep simulate)`);
  engine.start(rate, { chunkCapacity: 4096 });
  const step = Math.round(rate * LIVE_INTERVAL_S), live = [];
  for (let s = 0; s < samples.length; s += step) {
    const result = engine.process(samples.subarray(s, Math.min(samples.length, s + step)));
    if (result.live) live.push(result.live);
  }
  const plain = (truth.plain_exhalations ?? []).map(e => [e.start, e.end]);
  return { live, flutters: truth.breaths.map(b => [b.flutter_start, b.end]), plain };
});

const within = (t, spans) => spans.some(([from, to]) => t >= from && t <= to);
const plainCount = sessions.reduce((n, s) => n + s.plain.length, 0);
console.log(`${sessions.length} sessions (${plainCount} exhalations without the device), a live frame every ${LIVE_INTERVAL_S * 1000} ms, hold ${GAUGE_HOLD_S} s`);
for (const steadyS of steadies) {
  let inside = 0, outside = 0, inPlain = 0, plainShown = 0, longestInPlain = 0;
  for (const { live, flutters, plain } of sessions) {
    let run = null;
    const shownFor = plain.map(() => ({ total: 0, run: 0, longest: 0 }));
    for (const frame of live) {
      const t = frame.time_s;
      run = gaugeRun(run, t, frame.pressure_cmh2o ?? null, { steadyS });
      const shown = run !== null;
      if (shown) {
        if (within(t, flutters)) inside += LIVE_INTERVAL_S;
        else outside += LIVE_INTERVAL_S;
      }
      plain.forEach((span, i) => {
        const e = shownFor[i];
        if (shown && within(t, [span])) {
          e.total += LIVE_INTERVAL_S;
          e.run += LIVE_INTERVAL_S;
          e.longest = Math.max(e.longest, e.run);
        } else {
          e.run = 0;
        }
      });
    }
    for (const e of shownFor) {
      inPlain += e.total;
      if (e.total > 0) plainShown += 1;
      longestInPlain = Math.max(longestInPlain, e.longest);
    }
  }
  console.log(`steady ${steadyS} s: a pressure on screen ${outside.toFixed(1)} s outside the breaths' flutter, `
    + `${inside.toFixed(1)} s inside it; in ${plainShown} of the ${plainCount} exhalations without the device, `
    + `${inPlain.toFixed(1)} s in all, the longest run ${longestInPlain.toFixed(2)} s`);
}
