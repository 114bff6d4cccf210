// Reads the suites test-all.sh ran and prints one line per suite, then the line CI reads: "N passed, N failed".
// A suite that exited non-zero without a failing test in its report (a crash, a type error) counts as one failure.
import { existsSync, readFileSync } from 'node:fs';

const list = process.argv[2];
const suites = list && existsSync(list) ? readFileSync(list, 'utf8').trim().split('\n').filter(Boolean) : [];

function countsOf(kind, report, exitCode) {
  if (kind === 'check') return { passed: exitCode === 0 ? 1 : 0, failed: exitCode === 0 ? 0 : 1, skipped: 0 };
  if (!existsSync(report)) return null;
  const text = readFileSync(report, 'utf8');
  if (kind === 'vitest') {
    const json = JSON.parse(text);
    const crashedFiles = (json.testResults ?? []).filter((file) => file.status === 'failed' && (file.assertionResults ?? []).length === 0).length;
    return { passed: json.numPassedTests ?? 0, failed: (json.numFailedTests ?? 0) + crashedFiles, skipped: json.numPendingTests ?? 0 };
  }
  // pytest --junitxml: sum the attributes of every <testsuite>.
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const [, attributes] of text.matchAll(/<testsuite\b([^>]*)>/g)) {
    for (const key of Object.keys(totals)) totals[key] += Number(attributes.match(new RegExp(`\\b${key}="(\\d+)"`))?.[1] ?? 0);
  }
  const failed = totals.failures + totals.errors;
  return { passed: totals.tests - failed - totals.skipped, failed, skipped: totals.skipped };
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const line of suites) {
  const [kind, name, code, report] = line.split('\t');
  const exitCode = Number(code);
  const counts = countsOf(kind, report, exitCode) ?? { passed: 0, failed: 1, skipped: 0 };
  if (exitCode !== 0 && counts.failed === 0) counts.failed = 1;
  console.log(`suite ${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped (exit ${exitCode})`);
  passed += counts.passed;
  failed += counts.failed;
  skipped += counts.skipped;
}
if (suites.length === 0) failed += 1;
console.log(`${skipped} skipped (they say why in the log)`);
console.log(`${passed} passed, ${failed} failed`);
