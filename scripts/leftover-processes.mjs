// The test suite's last check (.ci/test-all.sh): no process it started is still alive. Run as
//   NGYM_SUITE_RUN=<id> node --import tsx scripts/leftover-processes.mjs --since-pid <pid of the suite's shell>
// A leftover is a live process started with NGYM_SUITE_RUN=<id> in its environment (everything the suites start
// inherits it: ngym commands, server children, Python servers, vitest workers, redis), or a sandbox box (whose
// environment is cleared; found by its supervisor's source on its command line) started after the suite's shell.
// Each is printed, sent SIGTERM, then SIGKILL if still there after 5 s; the check fails if there was any.
// Container engine: a podman or conmon process started after the suite's shell is a leftover too (with
// NGYM_ENGINE_STOP_BEFORE_LEFTOVERS, CI's engine was stopped just before: any podman or conmon process is), and so
// is a container labelled ngym.sandbox=1 or nemo-gym.sandbox=1 on DOCKER_HOST's engine, when it still answers
// (removed, and the check fails).
// Without /proc (macOS) nothing can be listed: the check says so and passes.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
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
const engineStopped = Boolean(process.env.NGYM_ENGINE_STOP_BEFORE_LEFTOVERS);
const isEngineProcess = (entry) => /^(\S*\/)?(podman|conmon)(\s|$)/.test(entry.commandLine) && (engineStopped || entry.startTicks >= since.startTicks);
const leftovers = processes.filter(
  (entry) =>
    !ancestors.has(entry.pid) &&
    !isOwn(entry.pid) &&
    entry.state !== 'Z' &&
    (environmentOf(entry.pid).includes(`${TAG}=${tag}`) || (entry.startTicks >= since.startTicks && entry.commandLine.includes(sandboxSignature)) || isEngineProcess(entry)),
);
const boxes = await leftoverBoxes();
if (boxes.length > 0) {
  console.log(`leftover sandbox containers: ${boxes.length} on ${process.env.DOCKER_HOST} (removed): ${boxes.map((box) => `${box.Names?.[0] ?? box.Id.slice(0, 12)} (${box.Image})`).join(', ')}`);
  await Promise.all(boxes.map((box) => engineCall('DELETE', `/containers/${box.Id}?force=true`)));
}
if (leftovers.length === 0 && boxes.length > 0) process.exit(1);
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

/** A call to DOCKER_HOST's engine (a unix socket); undefined when it does not answer (stopped, as in CI). */
function engineCall(method, path) {
  const host = process.env.DOCKER_HOST ?? '';
  if (!host.startsWith('unix://')) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const call = request({ socketPath: host.slice('unix://'.length), method, path, timeout: 10_000 }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve(response.statusCode < 300 ? body : undefined));
    });
    call.on('error', () => resolve(undefined));
    call.on('timeout', () => call.destroy());
    call.end();
  });
}

/** ngym's and upstream's sandbox containers still on the engine. */
async function leftoverBoxes() {
  const found = new Map();
  for (const label of ['ngym.sandbox=1', 'nemo-gym.sandbox=1']) {
    const body = await engineCall('GET', `/containers/json?all=true&filters=${encodeURIComponent(JSON.stringify({ label: [label] }))}`);
    for (const box of body === undefined ? [] : JSON.parse(body)) found.set(box.Id, box);
  }
  return [...found.values()];
}
