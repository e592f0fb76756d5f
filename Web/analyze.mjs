#!/usr/bin/env node
// node Web/analyze.mjs FILE.wav [--format csv|json] [--engine opep-engine.wasm]
//
// Analyses a WAV file with the page's own engine (the Swift engine compiled to WebAssembly) and
// prints what `opep analyze` prints: the frames as `--format csv`, or the analysis document
// (schema_version, settings, summary, breaths, sets, events) as `--format json`.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OPEPEngine } from "../Sources/OPEPServer/Dashboard/engine.mjs";
import { decodeWAV } from "./wav.mjs";

const usage = "usage: node Web/analyze.mjs FILE.wav [--format csv|json] [--engine opep-engine.wasm]";

function fail(message) {
  process.stderr.write(`Error: ${message}\n`);
  process.exit(1);
}

/** The WAV file's sample rate and samples (see wav.mjs); a bad file exits with one line. */
export function readWAV(path) {
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    fail(`${path}: cannot read the file (${error.code ?? error.message})`);
  }
  try {
    return decodeWAV(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (error) {
    fail(`${path}: ${error.message}`);
  }
}

function fixed(value, digits) {
  return value === null ? "" : value.toFixed(digits);
}

async function main(args) {
  let format = "csv";
  let enginePath = fileURLToPath(new URL("../Sources/OPEPServer/Dashboard/opep-engine.wasm", import.meta.url));
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
  const { sampleRate, samples, description } = readWAV(files[0]);
  const engine = await OPEPEngine.load(engineBytes);
  try {
    engine.start(sampleRate, { file: files[0], format: description });
  } catch (error) {
    fail(`${files[0]}: ${error.message}`);
  }
  const { frames } = engine.process(samples);
  const end = engine.finish({ pretty: true });
  frames.push(...end.frames);
  if (format === "json") {
    process.stdout.write(end.text + "\n");
    return;
  }
  const lines = ["time_s,pitch_hz,pressure_cmh2o,confidence,exhaling,zone,level_db,signal"];
  for (const f of frames) {
    lines.push([fixed(f.time_s, 3), fixed(f.pitch_hz, 3), fixed(f.pressure_cmh2o, 3), fixed(f.confidence, 3),
      f.exhaling ? 1 : 0, f.zone ?? "", fixed(f.level_db, 1), f.signal ?? ""].join(","));
  }
  process.stdout.write(lines.join("\n") + "\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main(process.argv.slice(2));
}
