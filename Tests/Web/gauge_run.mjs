#!/usr/bin/env node
// The live gauge's run of pressures (gaugeRun in Sources/OPEPServer/Dashboard/common.js): a
// breath's pressure held through a short gap, a chance flash gone when it ends.
//     node Tests/Web/gauge_run.mjs
import { gaugeRun } from '../../Sources/OPEPServer/Dashboard/common.js';

/** Plays live frames 50 ms apart (a pressure, or null) and returns whether the gauge shows one after each. */
function play(pressures) {
  let run = null;
  return pressures.map((pressure, i) => {
    run = gaugeRun(run, 10 + 0.05 * i, pressure);
    return run !== null;
  });
}

const p = 14, _ = null;
const cases = [
  ['a flash of one frame goes with the next', [p, _, _], [true, false, false]],
  ['a flash of 0.15 s goes when it ends', [p, p, p, p, _, _], [true, true, true, true, false, false]],
  ['a breath of 0.3 s is held for 0.4 s after its last pressure',
    [p, p, p, p, p, p, p, _, _, _, _, _, _, _, _, _, _],
    [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false]],
  ['a breath going on after a held gap is one run', [p, p, p, p, p, p, _, _, _, p, _, _, _],
    [true, true, true, true, true, true, true, true, true, true, true, true, true]],
];
const failures = cases.flatMap(([name, pressures, expected]) => {
  const shown = play(pressures);
  return JSON.stringify(shown) === JSON.stringify(expected) ? [] : [`${name}: ${JSON.stringify(shown)}, not ${JSON.stringify(expected)}`];
});
let run = null;
for (const [i, pressure] of [p, p, p, p, p, p, _, _, p].entries()) run = gaugeRun(run, 10 + 0.05 * i, pressure);
if (run?.from !== 10 || Math.abs(run.to - 10.4) > 1e-9) failures.push(`the run after a held gap: ${JSON.stringify(run)}, not from 10 to 10.4`);
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log(`gauge run: ${cases.length + 1} cases`);
