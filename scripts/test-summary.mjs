// Prints vitest's JSON reports as the plain closing line CI reads: "N passed, N failed".
// Usage: node scripts/test-summary.mjs <failed checks> <report.json> [<report.json> …]; a missing report counts as a
// failure (the suite that should have written it did not finish).
import { readFileSync } from 'node:fs';

// Checks that ran before the tests and failed (the lint step of .ci/run), counted as failures.
const failedChecks = Number(process.argv[2] ?? 0);
const files = process.argv.slice(3);
let passed = 0;
let failed = failedChecks;
for (const file of files.length === 0 ? ['.tmp/vitest.json'] : files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    failed += 1;
    console.error(`no vitest report at ${file}: ${error instanceof Error ? error.message : String(error)}`);
    continue;
  }
  passed += report.numPassedTests ?? 0;
  failed +=
    (report.numFailedTests ?? 0) +
    (report.numRuntimeErrorTestSuites ?? 0) +
    (report.numFailedTestSuites > 0 && report.numFailedTests === 0 ? report.numFailedTestSuites : 0);
}
console.log(`${passed} passed, ${failed} failed`);
