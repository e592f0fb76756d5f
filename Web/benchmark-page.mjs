// The WebAssembly engine timed in the browser: the median of several runs over one recording, as
// `node Web/benchmark.mjs` does in Node. The result is shown and kept in `window.opepBenchmark`.
import { OPEPEngine } from "./engine.mjs";
import { decodeWAV } from "./wav.mjs";

const parameters = new URLSearchParams(location.search);
const file = parameters.get("file") ?? "session.wav";
const runs = Number(parameters.get("runs") ?? 9);
const output = document.getElementById("result");

try {
  const [wasm, wav] = await Promise.all(
    ["opep-engine.wasm", file].map(async (name) => {
      const response = await fetch(name);
      if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    }));
  const { sampleRate, samples } = decodeWAV(wav);
  const engine = await OPEPEngine.load(wasm);
  const times = [];
  let breaths = [];
  for (let run = 0; run < runs; run++) {
    engine.start(sampleRate);
    const begin = performance.now();
    engine.process(samples);
    breaths = engine.finish().document.breaths;
    times.push((performance.now() - begin) / 1000);
  }
  times.sort((a, b) => a - b);
  const seconds = samples.length / sampleRate;
  const median = times[Math.floor(times.length / 2)];
  window.opepBenchmark = {
    seconds, sampleRate, runs, wasmBytes: wasm.length, breaths,
    medianSeconds: median, timesRealTime: seconds / median,
    fastest: seconds / times[0], slowest: seconds / times[times.length - 1],
  };
  output.textContent = `${seconds.toFixed(1)} s of ${sampleRate / 1000} kHz audio, ${breaths.length} breaths, ${runs} runs\n` +
    `median ${(median * 1000).toFixed(2)} ms = ${Math.round(seconds / median)} x real time`;
} catch (error) {
  window.opepBenchmark = { error: error.message };
  output.textContent = `Error: ${error.message}`;
}
