// The Swift engine compiled to WebAssembly (scripts/build-web.sh), for the page and for Node.
// It needs no imports; one OPEPEngine drives one instance, one session at a time.

const FRAME_VALUES = 7;
const BREATH_VALUES = 8;
const ZONES = [null, "below", "in", "above"];

export class OPEPEngine {
  /** Instantiates the engine from the bytes of opep-engine.wasm. */
  static async load(bytes) {
    const { instance } = await WebAssembly.instantiate(bytes, {});
    return new OPEPEngine(instance.exports);
  }

  constructor(exports) {
    this.wasm = exports;
    this.capacity = 0;
  }

  /** Starts a session at `sampleRate` Hz taking chunks of up to `chunkCapacity` samples. */
  start(sampleRate, chunkCapacity = 4096) {
    if (this.wasm.opep_start(sampleRate, chunkCapacity) !== 0) {
      throw new Error(`the engine cannot analyse ${sampleRate} Hz audio (4000-384000 Hz)`);
    }
    this.capacity = chunkCapacity;
  }

  /** Analyses `samples` (a Float32Array, any length); returns the frames that became final. */
  process(samples) {
    const frames = [];
    for (let start = 0; start < samples.length; start += this.capacity) {
      const chunk = samples.subarray(start, Math.min(samples.length, start + this.capacity));
      new Float32Array(this.wasm.memory.buffer, this.wasm.opep_input(), chunk.length).set(chunk);
      this.#readFrames(this.wasm.opep_process(chunk.length), frames);
    }
    return frames;
  }

  /** Ends the session: the frames still held back, and the breaths. */
  finish() {
    const frames = [];
    this.#readFrames(this.wasm.opep_finish(), frames);
    const count = this.wasm.opep_breath_count();
    const values = new Float64Array(this.wasm.memory.buffer, this.wasm.opep_breaths(), count * BREATH_VALUES);
    const breaths = [];
    for (let i = 0; i < count; i++) {
      const v = values.subarray(i * BREATH_VALUES, (i + 1) * BREATH_VALUES);
      breaths.push({
        index: v[0], set: v[1], start_s: v[2], end_s: v[3], duration_s: v[3] - v[2],
        mean_pressure_cmh2o: nullable(v[4]), mean_pitch_hz: nullable(v[5]),
        share_in_target: nullable(v[6]), flutter_share: v[7],
      });
    }
    return { frames, breaths };
  }

  #readFrames(count, into) {
    if (count < 0) throw new Error("the engine has no session: call start() first");
    const values = new Float64Array(this.wasm.memory.buffer, this.wasm.opep_frames(), count * FRAME_VALUES);
    for (let i = 0; i < count; i++) {
      const v = values.subarray(i * FRAME_VALUES, (i + 1) * FRAME_VALUES);
      into.push({
        time_s: v[0], pitch_hz: nullable(v[1]), pressure_cmh2o: nullable(v[2]), confidence: v[3],
        exhaling: v[4] === 1, zone: ZONES[v[5] + 1], level_db: v[6],
      });
    }
  }
}

function nullable(value) {
  return Number.isNaN(value) ? null : value;
}
