// WAV decoding for the page and for Node: PCM 8/16/24/32-bit and float 32/64, any channel count.

/** A WAV file's sample rate, its samples as the native decoder gives them (mono: the channels'
 * average, in Float32, clamped to -1...1 for floating-point data) and its format described as
 * `opep analyze` describes it. Throws an Error saying what is wrong with the file. */
export function decodeWAV(bytes) {
  const fail = (message) => { throw new Error(message); };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (offset) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
  if (bytes.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") fail(`not a RIFF WAVE file`);
  let format = null;
  let data = null;
  for (let offset = 12; offset + 8 <= bytes.length; ) {
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (tag(offset) === "fmt ") {
      let formatTag = view.getUint16(body, true);
      const bits = view.getUint16(body + 14, true);
      const extensible = formatTag === 0xfffe && size >= 40;
      if (extensible) formatTag = view.getUint16(body + 24, true);
      format = { formatTag, extensible, channels: view.getUint16(body + 2, true), sampleRate: view.getUint32(body + 4, true), bits };
    } else if (tag(offset) === "data") {
      data = { offset: body, size: Math.min(size, bytes.length - body) };
    }
    offset = body + size + (size % 2);
  }
  if (!format) fail(`no fmt chunk`);
  if (!data) fail(`no data chunk`);
  const { formatTag, extensible, channels, sampleRate, bits } = format;
  const width = bits / 8;
  const load = {
    "1/8": (o) => view.getUint8(o), "1/16": (o) => view.getInt16(o, true),
    "1/24": (o) => (view.getUint8(o) | (view.getUint8(o + 1) << 8) | (view.getInt8(o + 2) << 16)),
    "1/32": (o) => view.getInt32(o, true), "3/32": (o) => view.getFloat32(o, true), "3/64": (o) => view.getFloat64(o, true),
  }[`${formatTag}/${bits}`];
  if (!load || channels < 1) fail(`unsupported WAV encoding (format tag ${formatTag}, ${bits} bits, ${channels} channels)`);
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
  const encoding = formatTag === 3 ? `${bits}-bit float` : bits === 8 ? "8-bit unsigned integer" : `${bits}-bit integer`;
  const description = `WAV${extensible ? " (extensible)" : ""} ${encoding}, ${channels} channel${channels === 1 ? "" : "s"}, ${sampleRate} Hz`;
  return { sampleRate, samples, description };
}

