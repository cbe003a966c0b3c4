// Prints vitest's JSON report as the plain closing line CI reads: "N passed, N failed".
import { readFileSync } from 'node:fs';
const file = process.argv[2] ?? '.tmp/vitest.json';
// Checks that ran before the tests and failed (the lint step of .ci/run), counted as failures.
const failedChecks = Number(process.argv[3] ?? 0);
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (error) {
  console.log(`0 passed, 1 failed`);
  console.error(`no vitest report at ${file}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failed =
  failedChecks +
  (report.numFailedTests ?? 0) +
  (report.numRuntimeErrorTestSuites ?? 0) +
  (report.numFailedTestSuites > 0 && report.numFailedTests === 0 ? report.numFailedTestSuites : 0);
console.log(`${passed} passed, ${failed} failed`);
