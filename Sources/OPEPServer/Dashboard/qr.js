// QR Code symbols (ISO/IEC 18004:2015) for the address that pairs a patient's coach: byte mode,
// error correction level M (15 % of the symbol may be lost), the smallest of versions 1-20 that
// holds the text (up to 666 bytes), the mask with the lowest penalty (section 7.8.3). The page
// draws it as SVG with a quiet zone of 4 modules. Tests/Web/qr_matrix.mjs checks the modules
// against symbols made by another encoder (the Python package qrcode) with the same mask.

/** Error correction codewords per block at level M, by version (index 0 unused). */
const EC_CODEWORDS_M = [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26];
/** Error correction blocks at level M, by version. */
const BLOCKS_M = [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16];
/** Centres of the alignment patterns, by version (Annex E). */
const ALIGNMENT = [[], [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
  [6, 30, 54], [6, 32, 58], [6, 34, 62], [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78],
  [6, 30, 56, 82], [6, 30, 58, 86], [6, 34, 62, 90]];
const LARGEST_VERSION = 20;
/** Level M's two format bits. */
const LEVEL_M = 0b00;
const FORMAT_GENERATOR = 0x537;
const FORMAT_MASK = 0x5412;
const VERSION_GENERATOR = 0x1f25;
const QUIET_ZONE = 4;
/** The field's reducing polynomial, x^8 + x^4 + x^3 + x^2 + 1. */
const FIELD_POLYNOMIAL = 0x11d;
/** Penalty points (section 7.8.3.1): a run of 5 alike (and each module more), a 2 x 2 block
 * alike, a finder-like pattern, each 5 % of dark modules away from half. */
const PENALTY = { run: 3, block: 3, finderLike: 40, balance: 10 };

/** The eight data masks: whether the module at row i, column j is inverted. */
const MASKS = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i + j) % 2) + ((i * j) % 3)) % 2 === 0,
];

// GF(256), powers and logarithms of its generator 2.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x;
  LOG[x] = i;
  x <<= 1;
  if (x & 0x100) x ^= FIELD_POLYNOMIAL;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
const multiply = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

/** The Reed-Solomon error correction codewords of `data`, `count` of them. */
function errorCorrection(data, count) {
  let generator = [1];
  for (let i = 0; i < count; i++) {
    const next = new Array(generator.length + 1).fill(0);
    generator.forEach((g, k) => {
      next[k] ^= g;
      next[k + 1] ^= multiply(g, EXP[i]);
    });
    generator = next;
  }
  const remainder = new Array(count).fill(0);
  for (const byte of data) {
    const factor = byte ^ remainder.shift();
    remainder.push(0);
    for (let k = 0; k < count; k++) remainder[k] ^= multiply(generator[k + 1], factor);
  }
  return remainder;
}

/** A symbol of `version` with its function patterns drawn; `reserved` marks every module they take. */
function functionPatterns(version) {
  const size = 4 * version + 17;
  const dark = new Uint8Array(size * size);
  const reserved = new Uint8Array(size * size);
  const set = (row, column, isDark) => {
    if (row < 0 || column < 0 || row >= size || column >= size) return;
    dark[row * size + column] = isDark ? 1 : 0;
    reserved[row * size + column] = 1;
  };
  for (const [top, left] of [[0, 0], [0, size - 7], [size - 7, 0]]) {
    for (let r = -1; r <= 7; r++) {
      for (let c = -1; c <= 7; c++) {
        const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
        set(top + r, left + c, ring !== 2 && ring !== 4);
      }
    }
  }
  for (let k = 8; k < size - 8; k++) {
    set(6, k, k % 2 === 0);
    set(k, 6, k % 2 === 0);
  }
  const centres = ALIGNMENT[version];
  const last = centres.length - 1;
  centres.forEach((row, i) => centres.forEach((column, j) => {
    if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
    for (let r = -2; r <= 2; r++) {
      for (let c = -2; c <= 2; c++) set(row + r, column + c, Math.max(Math.abs(r), Math.abs(c)) !== 1);
    }
  }));
  // The format information's places (written once the mask is chosen) and its dark module.
  for (let k = 0; k < 9; k++) {
    if (k === 6) continue;
    set(8, k, false);
    set(k, 8, false);
  }
  for (let k = 0; k < 8; k++) {
    set(8, size - 1 - k, false);
    set(size - 1 - k, 8, false);
  }
  set(size - 8, 8, true);
  if (version >= 7) {
    let remainder = version;
    for (let k = 0; k < 12; k++) remainder = (remainder << 1) ^ ((remainder >> 11) * VERSION_GENERATOR);
    const bits = (version << 12) | remainder;
    for (let k = 0; k < 18; k++) {
      const isDark = ((bits >> k) & 1) === 1;
      const a = size - 11 + (k % 3), b = Math.floor(k / 3);
      set(b, a, isDark);
      set(a, b, isDark);
    }
  }
  return { size, dark, reserved };
}

/** Writes the 15 format bits for level M and `mask` in both of their places. */
function drawFormat(symbol, mask) {
  const { size, dark } = symbol;
  const data = (LEVEL_M << 3) | mask;
  let remainder = data;
  for (let k = 0; k < 10; k++) remainder = (remainder << 1) ^ ((remainder >> 9) * FORMAT_GENERATOR);
  const bits = ((data << 10) | remainder) ^ FORMAT_MASK;
  const bit = (k) => ((bits >> k) & 1);
  const put = (row, column, value) => { dark[row * size + column] = value; };
  for (let k = 0; k <= 5; k++) put(k, 8, bit(k));
  put(7, 8, bit(6));
  put(8, 8, bit(7));
  put(8, 7, bit(8));
  for (let k = 9; k < 15; k++) put(8, 14 - k, bit(k));
  for (let k = 0; k < 8; k++) put(8, size - 1 - k, bit(k));
  for (let k = 8; k < 15; k++) put(size - 15 + k, 8, bit(k));
}

/** The data and error correction codewords of `bytes` in `version`, interleaved; null when they do not fit. */
function codewords(bytes, version, capacity) {
  const ecPerBlock = EC_CODEWORDS_M[version], blocks = BLOCKS_M[version];
  const dataCodewords = capacity - ecPerBlock * blocks;
  const countBits = version <= 9 ? 8 : 16; // the byte count's length (Table 3)
  if (4 + countBits + 8 * bytes.length > 8 * dataCodewords) return null;
  const bits = [];
  const push = (value, length) => { for (let k = length - 1; k >= 0; k--) bits.push((value >> k) & 1); };
  push(0b0100, 4);
  push(bytes.length, countBits);
  for (const byte of bytes) push(byte, 8);
  push(0, Math.min(4, 8 * dataCodewords - bits.length));
  push(0, (8 - (bits.length % 8)) % 8);
  const data = [];
  for (let k = 0; k < bits.length; k += 8) data.push(parseInt(bits.slice(k, k + 8).join(''), 2));
  for (let pad = 0; data.length < dataCodewords; pad++) data.push(pad % 2 === 0 ? 0xec : 0x11);
  const shortLength = Math.floor(dataCodewords / blocks);
  const longBlocks = dataCodewords % blocks;
  const dataBlocks = [], ecBlocks = [];
  for (let b = 0, start = 0; b < blocks; b++) {
    const length = shortLength + (b >= blocks - longBlocks ? 1 : 0);
    const block = data.slice(start, start + length);
    start += length;
    dataBlocks.push(block);
    ecBlocks.push(errorCorrection(block, ecPerBlock));
  }
  const out = [];
  for (let k = 0; k <= shortLength; k++) for (const block of dataBlocks) if (k < block.length) out.push(block[k]);
  for (let k = 0; k < ecPerBlock; k++) for (const block of ecBlocks) out.push(block[k]);
  return out;
}

/** The modules free for data, in placement order (two columns at a time from the right, snaking up and down). */
function dataPlaces(symbol) {
  const { size, reserved } = symbol;
  const places = [];
  let upward = true;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let step = 0; step < size; step++) {
      const row = upward ? size - 1 - step : step;
      for (const column of [right, right - 1]) if (!reserved[row * size + column]) places.push(row * size + column);
    }
    upward = !upward;
  }
  return places;
}

/** The penalty of a finished symbol (ISO/IEC 18004 section 7.8.3.1). */
function penalty(size, dark) {
  let score = 0;
  const at = (row, column) => dark[row * size + column];
  for (let pass = 0; pass < 2; pass++) {
    for (let line = 0; line < size; line++) {
      const module = (k) => (pass === 0 ? at(line, k) : at(k, line));
      let run = 1;
      for (let k = 1; k <= size; k++) {
        if (k < size && module(k) === module(k - 1)) {
          run++;
          continue;
        }
        if (run >= 5) score += PENALTY.run + (run - 5);
        run = 1;
      }
      // A 1:1:3:1:1 dark-light pattern preceded or followed by 4 light modules (the outside
      // counts as light), once each; after one the search goes on past it.
      const light = (k) => k < 0 || k >= size || module(k) === 0;
      for (let k = 0; k + 7 <= size;) {
        if (![1, 0, 1, 1, 1, 0, 1].every((value, n) => module(k + n) === value)) {
          k++;
          continue;
        }
        if ([1, 2, 3, 4].every((n) => light(k - n)) || [0, 1, 2, 3].every((n) => light(k + 7 + n))) {
          score += PENALTY.finderLike;
          k += 7;
        } else {
          k += 4;
        }
      }
    }
  }
  for (let row = 0; row + 1 < size; row++) {
    for (let column = 0; column + 1 < size; column++) {
      const v = at(row, column);
      if (v === at(row, column + 1) && v === at(row + 1, column) && v === at(row + 1, column + 1)) score += PENALTY.block;
    }
  }
  const darkCount = dark.reduce((sum, v) => sum + v, 0);
  score += PENALTY.balance * Math.floor(Math.abs((darkCount * 100) / (size * size) - 50) / 5);
  return score;
}

/**
 * The QR Code symbol of `text` (UTF-8, byte mode, level M): `size` modules a side and `dark`,
 * one entry per module row by row (1 dark). `mask` forces a mask (0-7) instead of the best.
 * Throws a RangeError when the text is longer than version 20 holds.
 */
export function qrSymbol(text, { mask: forcedMask } = {}) {
  const bytes = new TextEncoder().encode(text);
  for (let version = 1; version <= LARGEST_VERSION; version++) {
    const base = functionPatterns(version);
    const places = dataPlaces(base);
    const words = codewords(bytes, version, Math.floor(places.length / 8));
    if (!words) continue;
    let best = null;
    for (const mask of forcedMask === undefined ? [0, 1, 2, 3, 4, 5, 6, 7] : [forcedMask]) {
      const dark = base.dark.slice();
      const inverted = MASKS[mask];
      places.forEach((place, k) => {
        const bit = k < words.length * 8 ? (words[k >> 3] >> (7 - (k & 7))) & 1 : 0;
        const row = Math.floor(place / base.size), column = place % base.size;
        dark[place] = bit ^ (inverted(row, column) ? 1 : 0);
      });
      const symbol = { size: base.size, dark, reserved: base.reserved };
      drawFormat(symbol, mask);
      const score = penalty(base.size, dark);
      if (!best || score < best.score) best = { version, mask, size: base.size, dark, score };
    }
    return { version: best.version, mask: best.mask, size: best.size, dark: best.dark };
  }
  throw new RangeError(`a QR code of level M holds at most version ${LARGEST_VERSION}; this text is ${bytes.length} bytes`);
}

/** The symbol of `text` as an SVG element, `pixels` wide, with its quiet zone. */
export function qrSvg(text, pixels = 240) {
  const { size, dark } = qrSymbol(text);
  const namespace = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(namespace, 'svg');
  const side = size + 2 * QUIET_ZONE;
  svg.setAttribute('viewBox', `0 0 ${side} ${side}`);
  svg.setAttribute('width', String(pixels));
  svg.setAttribute('height', String(pixels));
  svg.setAttribute('shape-rendering', 'crispEdges');
  const background = document.createElementNS(namespace, 'rect');
  background.setAttribute('width', String(side));
  background.setAttribute('height', String(side));
  background.setAttribute('fill', '#fff');
  const path = document.createElementNS(namespace, 'path');
  let d = '';
  for (let row = 0; row < size; row++) {
    for (let column = 0; column < size; column++) {
      if (dark[row * size + column]) d += `M${column + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`;
    }
  }
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
  svg.append(background, path);
  return svg;
}
