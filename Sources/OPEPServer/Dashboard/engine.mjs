// The Swift engine compiled to WebAssembly (scripts/build-web.sh), for the page and for Node.
// It needs no imports; one OPEPEngine drives one instance, one session at a time.

const FRAME_VALUES = 9;
const EVENT_VALUES = 14;
const ZONES = [null, "below", "in", "above"];
// SignalProblem.allCases, after "none".
const SIGNALS = [null, "clipped", "too_noisy", "too_quiet", "too_far", "band_limited", "no_flutter", "gain_control"];
const EVENT_KINDS = ["breath_started", "breath_ended", "huff_cough", "set_ended"];
const TEXT_KINDS = { device: 0, file: 1, format: 2, recordedAt: 3 };

export class OPEPEngine {
  /** Instantiates the engine from the bytes of opep-engine.wasm. */
  static async load(bytes) {
    const { instance } = await WebAssembly.instantiate(bytes, {});
    return new OPEPEngine(instance.exports);
  }

  constructor(exports) {
    this.wasm = exports;
    this.capacity = 0;
    this.advice = Object.fromEntries(SIGNALS.slice(1).map((name, index) => [name, this.#cText(this.wasm.opep_advice(index))]));
  }

  /** The NUL-terminated UTF-8 text at `pointer` in the engine's memory. */
  #cText(pointer) {
    const memory = new Uint8Array(this.wasm.memory.buffer);
    let end = pointer;
    while (memory[end] !== 0) end += 1;
    return new TextDecoder().decode(memory.subarray(pointer, end));
  }

  /**
   * Starts a session at `sampleRate` Hz taking chunks of up to `chunkCapacity` samples.
   * `plan` (optional) is the therapy plan as the server keeps it: target_low_cmh2o,
   * target_high_cmh2o and device {name, intercept_cmh2o, slope_cmh2o_per_hz,
   * lower_frequency_hz, upper_frequency_hz}; `file`, `format` and `recordedAt` (ISO 8601) name
   * the input in the analysis document.
   */
  start(sampleRate, { chunkCapacity = 4096, plan = null, file = "live", format = "live microphone, 32-bit float", recordedAt = "" } = {}) {
    const device = plan?.device ?? {};
    this.#setText(TEXT_KINDS.device, device.name ?? "Acapella");
    this.#setText(TEXT_KINDS.file, file);
    this.#setText(TEXT_KINDS.format, format);
    this.#setText(TEXT_KINDS.recordedAt, recordedAt ?? "");
    const or = (value) => (typeof value === "number" ? value : NaN);
    const status = this.wasm.opep_start(
      sampleRate, chunkCapacity, or(plan?.target_low_cmh2o), or(plan?.target_high_cmh2o),
      or(device.intercept_cmh2o), or(device.slope_cmh2o_per_hz), or(device.lower_frequency_hz), or(device.upper_frequency_hz));
    if (status !== 0) {
      throw new Error(`the engine cannot analyse ${sampleRate} Hz audio with this plan (4000-384000 Hz, a valid device line and target)`);
    }
    this.capacity = chunkCapacity;
  }

  /**
   * Analyses `samples` (a Float32Array, any length). Returns the frames that became final, the
   * events, in order, and the newest live frame (null when none came out).
   */
  process(samples) {
    const result = { frames: [], events: [], live: null };
    for (let start = 0; start < samples.length; start += this.capacity) {
      const chunk = samples.subarray(start, Math.min(samples.length, start + this.capacity));
      new Float32Array(this.wasm.memory.buffer, this.wasm.opep_input(), chunk.length).set(chunk);
      this.#readFrames(this.wasm.opep_process(chunk.length), result.frames);
      this.#readEvents(result.events);
      const live = new Float64Array(this.wasm.memory.buffer, this.wasm.opep_live(), FRAME_VALUES);
      if (!Number.isNaN(live[0])) result.live = frame(live);
    }
    return result;
  }

  /**
   * Ends the session: the frames still held back, the last events and the analysis document as
   * `opep analyze --format json` writes it (`text`, pretty-printed when asked, and parsed).
   */
  finish({ pretty = true } = {}) {
    const frames = [];
    const events = [];
    this.#readFrames(this.wasm.opep_finish(pretty ? 1 : 0), frames);
    this.#readEvents(events);
    const bytes = new Uint8Array(this.wasm.memory.buffer, this.wasm.opep_document(), this.wasm.opep_document_length());
    const text = new TextDecoder().decode(bytes);
    return { frames, events, text, document: JSON.parse(text) };
  }

  /** The analysis document of the session so far, without ending it (text and parsed). */
  snapshot({ pretty = false } = {}) {
    const length = this.wasm.opep_snapshot(pretty ? 1 : 0);
    if (length < 0) throw new Error("the engine has no session: call start() first");
    const text = new TextDecoder().decode(new Uint8Array(this.wasm.memory.buffer, this.wasm.opep_document(), length));
    return { text, document: JSON.parse(text) };
  }

  #setText(kind, text) {
    const bytes = new TextEncoder().encode(String(text));
    if (bytes.length > 1024) throw new Error(`the engine takes names of at most 1024 bytes; this one has ${bytes.length}`);
    new Uint8Array(this.wasm.memory.buffer, this.wasm.opep_text(), bytes.length).set(bytes);
    this.wasm.opep_set_text(kind, bytes.length);
  }

  #readFrames(count, into) {
    if (count < 0) throw new Error("the engine has no session: call start() first");
    const values = new Float64Array(this.wasm.memory.buffer, this.wasm.opep_frames(), count * FRAME_VALUES);
    for (let i = 0; i < count; i++) into.push(frame(values.subarray(i * FRAME_VALUES, (i + 1) * FRAME_VALUES)));
  }

  #readEvents(into) {
    const count = this.wasm.opep_event_count();
    const values = new Float64Array(this.wasm.memory.buffer, this.wasm.opep_events(), count * EVENT_VALUES);
    for (let i = 0; i < count; i++) {
      const v = values.subarray(i * EVENT_VALUES, (i + 1) * EVENT_VALUES);
      into.push({
        kind: EVENT_KINDS[v[0]], time_s: v[1], duration_s: nullable(v[2]), breath: nullable(v[3]), set: nullable(v[4]),
        mean_pressure_cmh2o: nullable(v[5]), share_in_target: nullable(v[6]), breath_in_set: nullable(v[7]),
        flutter_share: nullable(v[8]), signal: Number.isNaN(v[12]) ? null : withoutNulls({
          snr_db: nullable(v[9]), modulation: v[10], clipped_share: v[11], upper_frequency_hz: nullable(v[13]),
          problem: SIGNALS[v[12]],
        }),
      });
    }
  }
}

function frame(v) {
  return {
    time_s: v[0], pitch_hz: nullable(v[1]), pressure_cmh2o: nullable(v[2]), confidence: v[3],
    exhaling: v[4] === 1, zone: ZONES[v[5] + 1], level_db: v[6],
    signal: SIGNALS[v[7] + 1], warning: SIGNALS[v[8] + 1],
  };
}

function withoutNulls(object) {
  for (const key of Object.keys(object)) if (object[key] === null) delete object[key];
  return object;
}

function nullable(value) {
  return Number.isNaN(value) ? null : value;
}
