#!/usr/bin/env node
// The page's QR Code encoder (Sources/OPEPServer/Dashboard/qr.js) against symbols made by another
// encoder, the Python package qrcode (Tests/Web/Fixtures/qr-reference.json, written by
// make_qr_fixtures.py): with the same mask, the same version and every module the same. The mask
// the page chooses itself must be one of the eight, giving the symbol forced with it.
//     node Tests/Web/qr_matrix.mjs
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { qrSymbol } from '../../Sources/OPEPServer/Dashboard/qr.js';

const here = dirname(fileURLToPath(import.meta.url));
const { symbols } = JSON.parse(readFileSync(join(here, 'Fixtures', 'qr-reference.json'), 'utf8'));
const failures = [];
for (const expected of symbols) {
  const label = `${JSON.stringify(expected.text.slice(0, 40))}, mask ${expected.mask}`;
  const ours = qrSymbol(expected.text, { mask: expected.mask });
  if (ours.version !== expected.version) {
    failures.push(`${label}: version ${ours.version}, not ${expected.version}`);
    continue;
  }
  let differing = 0;
  for (let row = 0; row < ours.size; row++) {
    for (let column = 0; column < ours.size; column++) {
      if (String(ours.dark[row * ours.size + column]) !== expected.rows[row][column]) differing++;
    }
  }
  if (differing) failures.push(`${label}: ${differing} of ${ours.size * ours.size} modules differ`);
}
for (const text of new Set(symbols.map((s) => s.text))) {
  const chosen = qrSymbol(text);
  const forced = qrSymbol(text, { mask: chosen.mask });
  if (!(chosen.mask >= 0 && chosen.mask < 8) || chosen.dark.some((v, k) => v !== forced.dark[k])) {
    failures.push(`${JSON.stringify(text.slice(0, 40))}: the chosen mask ${chosen.mask} does not give its own symbol`);
  }
}
let refused = false;
try { qrSymbol('x'.repeat(700)); } catch (error) { refused = error instanceof RangeError; }
if (!refused) failures.push('700 bytes were not refused');
if (failures.length) {
  for (const failure of failures) console.error(`qr: ${failure}`);
  console.error(`qr: FAILED, ${failures.length} problems`);
  process.exit(1);
}
const versions = [...new Set(symbols.map((s) => s.version))].join(', ');
console.log(`ok: ${symbols.length} symbols (versions ${versions}) module for module as qrcode makes them; the chosen masks consistent; 700 bytes refused`);
