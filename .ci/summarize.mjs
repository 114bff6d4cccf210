// Reads the suites test-all.sh ran and prints one line per suite, then the line CI reads: "N passed, N failed".
// A suite that exited non-zero without a failing test in its report (a crash, a type error) counts as one failure.
// Failed tests are named with the first line of their message, so the tail of a CI log says what broke; the
// first few failures' messages are printed whole just above, as a log may be read only from its end.
import { existsSync, readFileSync } from 'node:fs';

const list = process.argv[2];
const suites = list && existsSync(list) ? readFileSync(list, 'utf8').trim().split('\n').filter(Boolean) : [];

const plain = (message) => String(message ?? '').replace(/\x1b\[[0-9;]*m/g, '').trim();
const firstLine = (message) => plain(message).split('\n')[0].slice(0, 300);
/** Up to 60 lines of a message, for the failures printed whole. */
const head = (message) => plain(message).split('\n').slice(0, 60).join('\n').slice(0, 6000);

function countsOf(kind, report, exitCode) {
  if (kind === 'check') return { passed: exitCode === 0 ? 1 : 0, failed: exitCode === 0 ? 0 : 1, skipped: 0, failures: [] };
  if (!existsSync(report)) return null;
  const text = readFileSync(report, 'utf8');
  if (kind === 'vitest') {
    const json = JSON.parse(text);
    const files = json.testResults ?? [];
    const crashed = files.filter((file) => file.status === 'failed' && (file.assertionResults ?? []).length === 0);
    // A crashed file, then each failed test: a title and the message.
    const failedTests = [
      ...crashed.map((file) => ({ title: file.name, message: file.message })),
      ...files.flatMap((file) =>
        (file.assertionResults ?? []).filter((test) => test.status === 'failed').map((test) => ({ title: `${file.name} > ${test.fullName}`, message: test.failureMessages?.[0] })),
      ),
    ];
    const failures = failedTests.map(({ title, message }) => `${title}: ${firstLine(message)}`);
    const messages = failedTests.map(({ title, message }) => `${title}\n${head(message)}`);
    return { passed: json.numPassedTests ?? 0, failed: (json.numFailedTests ?? 0) + crashed.length, skipped: json.numPendingTests ?? 0, failures, messages };
  }
  // pytest --junitxml: sum the attributes of every <testsuite>.
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const [, attributes] of text.matchAll(/<testsuite\b([^>]*)>/g)) {
    for (const key of Object.keys(totals)) totals[key] += Number(attributes.match(new RegExp(`\\b${key}="(\\d+)"`))?.[1] ?? 0);
  }
  const failed = totals.failures + totals.errors;
  const failures = [...text.matchAll(/<testcase\b[^>]*?classname="([^"]*)"[^>]*?name="([^"]*)"[^>]*>\s*<(?:failure|error)\b[^>]*?message="([^"]*)"/g)].map(
    ([, className, name, message]) => `${className}::${name}: ${firstLine(message)}`,
  );
  return { passed: totals.tests - failed - totals.skipped, failed, skipped: totals.skipped, failures };
}

const results = suites.map((line) => {
  const [kind, name, code, report] = line.split('\t');
  const exitCode = Number(code);
  const counts = countsOf(kind, report, exitCode) ?? { passed: 0, failed: 1, skipped: 0, failures: [] };
  if (exitCode !== 0 && counts.failed === 0) counts.failed = 1;
  return { name, exitCode, counts };
});
const whole = results.flatMap(({ counts }) => counts.messages ?? []).slice(0, 3);
for (const message of whole) console.log(`=== failed, in full:\n${message}\n`);
let passed = 0;
let failed = 0;
let skipped = 0;
for (const { name, exitCode, counts } of results) {
  console.log(`suite ${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped (exit ${exitCode})`);
  for (const failure of counts.failures.slice(0, 20)) console.log(`  failed: ${failure}`);
  passed += counts.passed;
  failed += counts.failed;
  skipped += counts.skipped;
}
if (suites.length === 0) failed += 1;
console.log(`${skipped} skipped (they say why in the log)`);
console.log(`${passed} passed, ${failed} failed`);
