#!/usr/bin/env node
// node Web/analyze.mjs FILE.wav [--format csv|json] [--engine opep-engine.wasm]
//
// Analyses a WAV file with the page's own engine (the Swift engine compiled to WebAssembly) and
// prints the frames as `opep analyze --format csv` does, or the breaths as JSON.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OPEPEngine } from "./engine.mjs";

const usage = "usage: node Web/analyze.mjs FILE.wav [--format csv|json] [--engine opep-engine.wasm]";

function fail(message) {
  process.stderr.write(`Error: ${message}\n`);
  process.exit(1);
}

/** The WAV file's sample rate and its samples as the native decoder gives them: mono (the
 * channels' average), in Float32, clamped to -1...1 for floating-point data. */
export function readWAV(path) {
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    fail(`${path}: cannot read the file (${error.code ?? error.message})`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (offset) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  if (bytes.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") fail(`${path}: not a RIFF WAVE file`);
  let format = null;
  let data = null;
  for (let offset = 12; offset + 8 <= bytes.length; ) {
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (tag(offset) === "fmt ") {
      let formatTag = view.getUint16(body, true);
      const bits = view.getUint16(body + 14, true);
      if (formatTag === 0xfffe && size >= 40) formatTag = view.getUint16(body + 24, true);
      format = { formatTag, channels: view.getUint16(body + 2, true), sampleRate: view.getUint32(body + 4, true), bits };
    } else if (tag(offset) === "data") {
      data = { offset: body, size: Math.min(size, bytes.length - body) };
    }
    offset = body + size + (size % 2);
  }
  if (!format) fail(`${path}: no fmt chunk`);
  if (!data) fail(`${path}: no data chunk`);
  const { formatTag, channels, sampleRate, bits } = format;
  const width = bits / 8;
  const load = {
    "1/8": (o) => view.getUint8(o), "1/16": (o) => view.getInt16(o, true),
    "1/24": (o) => (view.getUint8(o) | (view.getUint8(o + 1) << 8) | (view.getInt8(o + 2) << 16)),
    "1/32": (o) => view.getInt32(o, true), "3/32": (o) => view.getFloat32(o, true), "3/64": (o) => view.getFloat64(o, true),
  }[`${formatTag}/${bits}`];
  if (!load || channels < 1) fail(`${path}: unsupported WAV encoding (format tag ${formatTag}, ${bits} bits, ${channels} channels)`);
  const scale = { 8: 1 / 128, 16: 1 / 32768, 24: 1 / 8388608, 32: formatTag === 1 ? 1 / 2147483648 : 1, 64: 1 }[bits];
  const offset = bits === 8 ? -128 : 0;
  const isFloat = formatTag === 3;
  const frames = Math.floor(data.size / (width * channels));
  const samples = new Float32Array(frames);
  const f = Math.fround;
  const gain = f(f(scale) / channels);
  const bias = f(offset * channels);
  for (let i = 0; i < frames; i++) {
    const frame = data.offset + i * width * channels;
    let value;
    if (channels === 1) {
      value = f(f(f(load(frame)) + offset) * f(scale));
    } else {
      let sum = 0;
      for (let c = 0; c < channels; c++) sum = f(sum + f(load(frame + c * width)));
      value = f(f(sum + bias) * gain);
    }
    samples[i] = isFloat ? (Number.isNaN(value) ? 0 : Math.min(Math.max(value, -1), 1)) : value;
  }
  return { sampleRate, samples };
}

function fixed(value, digits) {
  return value === null ? "" : value.toFixed(digits);
}

async function main(args) {
  let format = "csv";
  let enginePath = fileURLToPath(new URL("./opep-engine.wasm", import.meta.url));
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--format") format = args[++i];
    else if (args[i] === "--engine") enginePath = args[++i];
    else if (args[i] === "-h" || args[i] === "--help") { process.stdout.write(usage + "\n"); return; }
    else files.push(args[i]);
  }
  if (files.length !== 1) fail(`one WAV file, please\n${usage}`);
  if (format !== "csv" && format !== "json") fail(`--format must be csv or json, not ${format}`);
  let engineBytes;
  try {
    engineBytes = readFileSync(enginePath);
  } catch {
    fail(`${enginePath}: no engine (build it with scripts/build-web.sh)`);
  }
  const { sampleRate, samples } = readWAV(files[0]);
  const engine = await OPEPEngine.load(engineBytes);
  try {
    engine.start(sampleRate);
  } catch (error) {
    fail(`${files[0]}: ${error.message}`);
  }
  const frames = engine.process(samples);
  const end = engine.finish();
  frames.push(...end.frames);
  if (format === "json") {
    process.stdout.write(JSON.stringify({ breaths: end.breaths }, null, 2) + "\n");
    return;
  }
  const lines = ["time_s,pitch_hz,pressure_cmh2o,confidence,exhaling,zone,level_db"];
  for (const f of frames) {
    lines.push([fixed(f.time_s, 3), fixed(f.pitch_hz, 3), fixed(f.pressure_cmh2o, 3), fixed(f.confidence, 3),
      f.exhaling ? 1 : 0, f.zone ?? "", fixed(f.level_db, 1)].join(","));
  }
  process.stdout.write(lines.join("\n") + "\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main(process.argv.slice(2));
}
