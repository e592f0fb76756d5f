#!/usr/bin/env node
// The dashboard's account of a breath's time without a pitch (unmeasuredBreakdown in
// Sources/OPEPServer/Dashboard/common.js) against the cases of Tests/Web/Fixtures/
// unmeasured-breakdowns.json, which the Swift tests hold UnmeasuredTime.breakdown to as well
// (OPEPReportTests), so the page and the reports say the same.
//     node Tests/Web/unmeasured_breakdown.mjs
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unmeasuredBreakdown } from '../../Sources/OPEPServer/Dashboard/common.js';

const here = dirname(fileURLToPath(import.meta.url));
const { cases } = JSON.parse(readFileSync(join(here, 'Fixtures', 'unmeasured-breakdowns.json'), 'utf8'));
const failures = cases.flatMap(({ unmeasured, breakdown }) => {
  const ours = unmeasuredBreakdown(unmeasured);
  return ours === breakdown ? [] : [`${JSON.stringify(unmeasured)}: "${ours}", not "${breakdown}"`];
});
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log(`unmeasured breakdown: ${cases.length} cases as the reports give them`);
