/**
 * One collection run in its own process, so its CPU time and peak memory are its own. Either ngym's
 * `collectRollouts` (through the head server) or the baseline: a bare loop of node:http POSTs to /run
 * that appends each result to a file. Prints one JSON line of measurements.
 */
import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, writeSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectRollouts, limitHeapGrowth } from 'ngym/runtime';
import { PING_ROW as row } from './ping-row.ts';

interface Options {
  mode: 'ngym' | 'baseline';
  rollouts: number;
  concurrency: number;
  headPort?: number;
  agentUrl?: string;
  agentName?: string;
  /** A JSONL file of rows to cycle through instead of the ping row. */
  rowsPath?: string;
}

const options = JSON.parse(process.argv[2] ?? '{}') as Options;
// As `ngym collect` runs it: with the CLI's heap growth limit (the baseline loop keeps V8's defaults).
if (options.mode === 'ngym') limitHeapGrowth();
const folder = mkdtempSync(join(tmpdir(), 'ngym-bench-'));
const inputPath = join(folder, 'input.jsonl');
const outputPath = join(folder, 'output.jsonl');
// Written in chunks: the input must not sit in this process's memory, whose peak is measured.
const rows = options.rowsPath === undefined ? [row] : (readFileSync(options.rowsPath, 'utf8').trim().split('\n').map((line) => JSON.parse(line)) as (typeof row)[]);
const inputFile = openSync(inputPath, 'w');
for (let start = 0; start < options.rollouts; start += 1000) {
  const end = Math.min(options.rollouts, start + 1000);
  writeSync(inputFile, Array.from({ length: end - start }, (_, offset) => `${JSON.stringify({ ...rows[(start + offset) % rows.length], id: start + offset })}\n`).join(''));
}
closeSync(inputFile);

function peakRssMb(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}

const latencies: number[] = [];
let firstCompletion = Number.NaN;
let failures = 0;
const cpuBefore = process.cpuUsage();
const started = performance.now();

if (options.mode === 'ngym') {
  const collection = collectRollouts({
    headServer: { host: '127.0.0.1', port: options.headPort as number },
    input: inputPath,
    outputPath,
    agentName: options.agentName,
    concurrency: options.concurrency,
    maxRetries: 0,
  });
  for await (const outcome of collection) {
    if (Number.isNaN(firstCompletion)) firstCompletion = performance.now() - started;
    if (outcome.status === 'failed') failures++;
    else latencies.push(outcome.durationMs);
  }
  await collection.done();
} else {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const lines = readFileSync(inputPath, 'utf8').trim().split('\n');
  let next = 0;
  const post = (body: string) =>
    new Promise<string>((resolve, reject) => {
      const call = request(`${options.agentUrl}/run`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => (response.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(String(response.statusCode)))));
      });
      call.on('error', reject);
      call.end(body);
    });
  const worker = async () => {
    while (next < lines.length) {
      const line = lines[next++] as string;
      const start = performance.now();
      try {
        const result = await post(line);
        appendFileSync(outputPath, `${result}\n`);
        const now = performance.now();
        if (Number.isNaN(firstCompletion)) firstCompletion = now - started;
        latencies.push(now - start);
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
}

const wallSeconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
latencies.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    wallSeconds,
    completed: latencies.length,
    failures,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    firstCompletionSeconds: firstCompletion / 1000,
    p50Ms: latencies[Math.floor(latencies.length * 0.5)] ?? Number.NaN,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN,
    peakRssMb: peakRssMb(),
  }),
);
process.exit(0);
