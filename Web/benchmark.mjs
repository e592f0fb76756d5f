#!/usr/bin/env node
// node Web/benchmark.mjs FILE.wav [--runs N] [--engine opep-engine.wasm]
//
// Times the page's engine (WebAssembly) on a recording already in memory, in chunks of 4096
// samples: the median of N runs, as times real time, as `opep benchmark` reports the native one.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OPEPEngine } from "../Sources/OPEPServer/Dashboard/engine.mjs";
import { readWAV } from "./analyze.mjs";

const args = process.argv.slice(2);
let runs = 9;
let enginePath = fileURLToPath(new URL("../Sources/OPEPServer/Dashboard/opep-engine.wasm", import.meta.url));
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--runs") runs = Number(args[++i]);
  else if (args[i] === "--engine") enginePath = args[++i];
  else files.push(args[i]);
}
if (files.length !== 1 || !(runs >= 1)) {
  process.stderr.write("Error: usage: node Web/benchmark.mjs FILE.wav [--runs N] [--engine opep-engine.wasm]\n");
  process.exit(1);
}
const { sampleRate, samples } = readWAV(files[0]);
const engine = await OPEPEngine.load(readFileSync(enginePath));
const seconds = samples.length / sampleRate;
const times = [];
let breaths = 0;
for (let run = 0; run < runs; run++) {
  engine.start(sampleRate);
  const begin = process.hrtime.bigint();
  engine.process(samples);
  breaths = engine.finish().document.breaths.length;
  times.push(Number(process.hrtime.bigint() - begin) / 1e9);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const wasmBytes = readFileSync(enginePath).length;
process.stdout.write(
  `${seconds.toFixed(1)} s of ${sampleRate / 1000} kHz audio (${breaths} breaths), ${runs} runs, chunks of 4096 samples\n` +
  `wasm engine (${wasmBytes} bytes)  median ${(median * 1000).toFixed(2)} ms = ${Math.round(seconds / median)} x real time ` +
  `(fastest ${Math.round(seconds / times[0])} x, slowest ${Math.round(seconds / times[times.length - 1])} x)\n`);
