// Adds up vitest JSON reports and prints the closing line CI reads: "tests: N passed, N failed".
// Above it, one line per failed test (file, name, the first line of its error), so that a CI log
// that keeps only its tail still says what failed.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const MAX_LISTED = 40;
let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

function firstLine(messages) {
  const text = stripVTControlCharacters((messages ?? []).join('\n'));
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '(no message)';
  return line.trim().slice(0, 300);
}

for (const file of process.argv.slice(2)) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.error(`ci-summary: cannot read ${file}: ${err instanceof Error ? err.message : err}`);
    failed += 1;
    continue;
  }
  passed += report.numPassedTests ?? 0;
  failed += (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const suite of report.testResults ?? []) {
    const where = relative(process.cwd(), suite.name ?? '?');
    const failedTests = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const test of failedTests) {
      failures.push(
        `failed: ${where} › ${test.fullName ?? test.title}: ${firstLine(test.failureMessages)}`,
      );
    }
    if (failedTests.length === 0 && suite.status === 'failed') {
      failures.push(`failed: ${where} (the file itself): ${firstLine([suite.message])}`);
    }
  }
}
if (passed === 0) failed += 1; // a run that executed nothing is a failure, never a pass
for (const line of failures.slice(0, MAX_LISTED)) console.log(line);
if (failures.length > MAX_LISTED)
  console.log(`… and ${failures.length - MAX_LISTED} more failures`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 ? 0 : 1);
