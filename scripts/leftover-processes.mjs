// The test suite's last check (.ci/test-all.sh): no process it started is still alive. Run as
//   NGYM_SUITE_RUN=<id> node --import tsx scripts/leftover-processes.mjs --since-pid <pid of the suite's shell>
// A leftover is a live process started with NGYM_SUITE_RUN=<id> in its environment (everything the suites start
// inherits it: ngym commands, server children, Python servers, vitest workers, redis), or a sandbox box (whose
// environment is cleared; found by its supervisor's source on its command line) started after the suite's shell.
// Each is printed, sent SIGTERM, then SIGKILL if still there after 5 s; the check fails if there was any.
// Without /proc (macOS) nothing can be listed: the check says so and passes.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { environmentOf, isRunning, listProcesses, readProcess, untilNoneLeft } from '../src/testing/process-table.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TAG = 'NGYM_SUITE_RUN';
const tag = process.env[TAG];
const sinceIndex = process.argv.indexOf('--since-pid');
const since = sinceIndex === -1 ? undefined : readProcess(Number(process.argv[sinceIndex + 1]));
if (!tag || since === undefined) {
  console.error(`usage: ${TAG}=<id> node --import tsx scripts/leftover-processes.mjs --since-pid <pid of the process that started the suites>`);
  process.exit(2);
}
const processes = listProcesses();
if (processes === undefined) {
  console.log('leftover processes: cannot list processes here (no /proc); not checked');
  process.exit(0);
}

// This check, the shells and npm that run it, and what it starts itself (tsx's esbuild) carry the tag too.
const ancestors = new Set();
for (let entry = readProcess(process.pid); entry !== undefined && entry.pid > 1; entry = readProcess(entry.parentPid)) ancestors.add(entry.pid);
const parents = new Map(processes.map((entry) => [entry.pid, entry.parentPid]));
const isOwn = (pid) => {
  for (let current = pid; current !== undefined && current > 1; current = parents.get(current)) if (current === process.pid) return true;
  return false;
};
const sandboxSignature = readFileSync(join(ROOT, 'src', 'sandbox', 'launcher.py'), 'utf8').split('\n')[0];
const leftovers = processes.filter(
  (entry) =>
    !ancestors.has(entry.pid) &&
    !isOwn(entry.pid) &&
    entry.state !== 'Z' &&
    (environmentOf(entry.pid).includes(`${TAG}=${tag}`) || (entry.startTicks >= since.startTicks && entry.commandLine.includes(sandboxSignature))),
);
if (leftovers.length === 0) {
  console.log('leftover processes: none');
  process.exit(0);
}

console.log(`leftover processes: ${leftovers.length} still alive after every suite:`);
for (const entry of leftovers) console.log(`  pid ${entry.pid} (parent ${entry.parentPid}): ${entry.commandLine.slice(0, 300)}`);
const signal = (entry, name) => {
  try {
    process.kill(entry.pid, name);
  } catch {
    // Gone meanwhile.
  }
};
for (const entry of leftovers) signal(entry, 'SIGTERM');
const stubborn = await untilNoneLeft(() => leftovers.filter((entry) => isRunning(entry.pid)), 5_000);
for (const entry of stubborn) signal(entry, 'SIGKILL');
console.log(`Killed them (${stubborn.length} needed SIGKILL). A test or command let them outlive it: see docs/reliability.md.`);
process.exit(1);
