#!/usr/bin/env node
// The live gauge's run of pressures (gaugeRun in Sources/OPEPServer/Dashboard/common.js): a
// breath's pressure held through a short gap, a chance flash gone when it ends (BREATH_RUN_S).
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
const frames = (n, value) => Array(n).fill(value);
const cases = [
  ['a flash of one frame goes with the next', [p, _, _], [true, false, false]],
  ['a flash of 0.15 s goes when it ends', [p, p, p, p, _, _], [true, true, true, true, false, false]],
  ['a chance run of 0.5 s goes when it ends', [...frames(11, p), _, _], [...frames(11, true), false, false]],
  // (0.4 s after the last pressure lies on the hold's edge, where the frames' times round either way)
  ['a breath of 1.05 s is held for 0.4 s after its last pressure', [...frames(22, p), ...frames(10, _)],
    [...frames(29, true), undefined, false, false]],
  ['a breath going on after a held gap is one run', [...frames(22, p), _, _, _, p, _, _, _],
    frames(29, true)],
];
const failures = cases.flatMap(([name, pressures, expected]) => {
  const shown = play(pressures);
  const same = shown.length === expected.length && shown.every((s, i) => expected[i] === undefined || s === expected[i]);
  return same ? [] : [`${name}: ${JSON.stringify(shown)}, not ${JSON.stringify(expected)}`];
});
let run = null;
for (const [i, pressure] of [...frames(22, p), _, _, p].entries()) run = gaugeRun(run, 10 + 0.05 * i, pressure);
if (run?.from !== 10 || Math.abs(run.to - 11.2) > 1e-9) failures.push(`the run after a held gap: ${JSON.stringify(run)}, not from 10 to 11.2`);
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log(`gauge run: ${cases.length + 1} cases`);
