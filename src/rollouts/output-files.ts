/**
 * The files of a collection run, beside the output `<stem>.jsonl`:
 *   `<stem>_failures.jsonl`  rollouts that failed after their retries (never scored into the output),
 *   `<stem>_metrics.json`    metrics of the whole output,
 *   `<stem>_run.json`        what the run was started with, so `+resume=true` can refuse a different input,
 *   `<stem>_aggregate_metrics.json`  upstream's per-agent aggregate metrics, written when the run ends.
 *
 * Appends are crash-safe: lines are written whole by single `write` calls on an O_APPEND descriptor, so a
 * process killed at any point (even SIGKILL) leaves whole lines plus at most one torn last line, which
 * resume cuts off before appending.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { type FileHandle, open, rename, rm, truncate } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { NgymError } from '../errors.ts';

export interface OutputPaths {
  output: string;
  failures: string;
  metrics: string;
  manifest: string;
  aggregateMetrics: string;
}

export function outputPathsFor(outputPath: string): OutputPaths {
  const absolute = resolve(outputPath);
  const stem = absolute.replace(/\.jsonl$/, '');
  return { output: absolute, failures: `${stem}_failures.jsonl`, metrics: `${stem}_metrics.json`, manifest: `${stem}_run.json`, aggregateMetrics: `${stem}_aggregate_metrics.json` };
}

/**
 * Appends lines in batches, one `write` per batch, one batch in flight at a time (so lines stay whole).
 * The file is opened on the first line, so a run without failures leaves no empty failures file.
 */
export class JsonlAppender {
  private queue: string[] = [];
  private writing: Promise<void> | undefined;
  private failure: unknown;
  private handle: FileHandle | undefined;

  private constructor(
    private readonly path: string,
    private readonly flags: 'w' | 'a',
  ) {}

  /** `truncate`: start the file over (a lazy one is removed until its first line); otherwise append after cutting a torn last line. */
  static async open(path: string, options: { truncate: boolean; lazy?: boolean }): Promise<JsonlAppender> {
    mkdirSync(dirname(path), { recursive: true });
    if (!options.truncate) await cutTornTail(path);
    else if (options.lazy) await rm(path, { force: true });
    const appender = new JsonlAppender(path, options.truncate ? 'w' : 'a');
    if (!options.lazy) appender.handle = await open(path, appender.flags);
    return appender;
  }

  /** Queues one line (no trailing newline); it reaches the file within the current tick. */
  append(line: string): void {
    if (this.failure !== undefined) throw this.failure;
    this.queue.push(line);
    this.writing ??= this.drain();
  }

  private async drain(): Promise<void> {
    // Let the rest of this tick's completions join the batch.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      this.handle ??= await open(this.path, this.flags);
      while (this.queue.length > 0) {
        const batch = `${this.queue.join('\n')}\n`;
        this.queue = [];
        await this.handle.appendFile(batch);
      }
    } catch (error) {
      this.failure = error;
    } finally {
      this.writing = undefined;
    }
  }

  /** Resolves when every queued line is written. */
  async flush(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
    if (this.failure !== undefined) throw this.failure;
  }

  async close(): Promise<void> {
    if (this.handle === undefined && this.queue.length === 0) return;
    try {
      await this.flush();
      await this.handle?.sync();
    } finally {
      await this.handle?.close();
    }
  }
}

/** Byte length of the file up to and including its last newline (0 when it has none). */
async function lengthOfWholeLines(path: string, size: number): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const chunk = Buffer.alloc(Math.min(size, 1 << 16));
    for (let end = size; end > 0; ) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await handle.read(chunk, 0, end - start, start);
      const newline = chunk.subarray(0, bytesRead).lastIndexOf(10);
      if (newline >= 0) return start + newline + 1;
      end = start;
    }
    return 0;
  } finally {
    await handle.close();
  }
}

/** Removes a partial last line (a write cut off by a crash). */
async function cutTornTail(path: string): Promise<void> {
  if (!existsSync(path)) return;
  const size = statSync(path).size;
  const whole = size === 0 ? 0 : await lengthOfWholeLines(path, size);
  if (whole < size) await truncate(path, whole);
}

/** Each line of a file with its byte offset and length (lines are bytes; no string decoding here). */
export async function* readLinesWithOffsets(path: string): AsyncGenerator<{ offset: number; bytes: Buffer }> {
  let carry: Buffer = Buffer.alloc(0);
  let carryOffset = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10, start)) {
      yield { offset: carryOffset + start, bytes: data.subarray(start, newline) };
      start = newline + 1;
    }
    carryOffset += start;
    carry = data.subarray(start);
    data = carry;
  }
  if (carry.length > 0) yield { offset: carryOffset, bytes: carry };
}

/** `(task, rollout)` as one number: rollout indices stay below 2^20 per task. */
export function rolloutKey(taskIndex: number, rolloutIndex: number): number {
  return taskIndex * 1_048_576 + rolloutIndex;
}

interface StampedRow {
  _ng_task_index?: unknown;
  _ng_rollout_index?: unknown;
}

/**
 * The rollouts an earlier run completed, as sorted keys in one typed array: 8 bytes a rollout (a Set of
 * numbers costs several times that), so resuming a run of millions of rollouts stays light.
 */
export class CompletedRollouts {
  private keys = new Float64Array(1024);
  private count = 0;
  private sorted = true;

  add(taskIndex: number, rolloutIndex: number): void {
    const key = rolloutKey(taskIndex, rolloutIndex);
    if (this.count === this.keys.length) {
      const grown = new Float64Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    if (this.count > 0 && key < (this.keys[this.count - 1] as number)) this.sorted = false;
    this.keys[this.count++] = key;
  }

  has(taskIndex: number, rolloutIndex: number): boolean {
    if (!this.sorted) {
      this.keys = this.keys.slice(0, this.count).sort();
      this.sorted = true;
    }
    const key = rolloutKey(taskIndex, rolloutIndex);
    let low = 0;
    let high = this.count - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const value = this.keys[middle] as number;
      if (value === key) return true;
      if (value < key) low = middle + 1;
      else high = middle - 1;
    }
    return false;
  }

  get size(): number {
    return this.count;
  }
}

/** Calls `visit` with every rollout (whole lines) already in an output file, and returns which they are. */
export async function readCompletedRollouts(path: string, visit: (row: Record<string, unknown>) => void): Promise<CompletedRollouts> {
  const keys = new CompletedRollouts();
  if (!existsSync(path)) return keys;
  for await (const { bytes } of readLinesWithOffsets(path)) {
    if (bytes.length === 0) continue;
    let row: Record<string, unknown> & StampedRow;
    try {
      row = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof row._ng_task_index === 'number' && typeof row._ng_rollout_index === 'number') {
      keys.add(row._ng_task_index, row._ng_rollout_index);
      visit(row);
    }
  }
  return keys;
}

/** Rewrites an output file in (task, rollout) order, atomically (write a sibling, then rename). */
/**
 * Removes the rows `remove` picks from a JSONL file (its torn last line cut first), through a copy renamed over
 * it once written and synced, so a crash leaves the old file or the new one; returns how many went.
 */
export async function removeRows(path: string, remove: (row: Record<string, unknown>) => boolean): Promise<number> {
  if (!existsSync(path)) return 0;
  await cutTornTail(path);
  const copyPath = `${path}.migrating`;
  const copy = await open(copyPath, 'w', statSync(path).mode & 0o7777);
  let removed = 0;
  try {
    let batch: Buffer[] = [];
    for await (const { bytes } of readLinesWithOffsets(path)) {
      if (bytes.length === 0) continue;
      if (remove(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>)) {
        removed++;
        continue;
      }
      batch.push(bytes, NEWLINE);
      if (batch.length >= 2048) {
        await copy.write(Buffer.concat(batch));
        batch = [];
      }
    }
    await copy.write(Buffer.concat(batch));
    await copy.sync();
  } finally {
    await copy.close();
  }
  if (removed === 0) await rm(copyPath, { force: true });
  else await rename(copyPath, path);
  return removed;
}

const NEWLINE = Buffer.from('\n');

export async function sortOutputFile(path: string): Promise<void> {
  const entries: { key: number; offset: number; length: number }[] = [];
  for await (const { offset, bytes } of readLinesWithOffsets(path)) {
    if (bytes.length === 0) continue;
    const row = JSON.parse(bytes.toString('utf8')) as StampedRow;
    entries.push({ key: rolloutKey(Number(row._ng_task_index), Number(row._ng_rollout_index)), offset, length: bytes.length });
  }
  entries.sort((a, b) => a.key - b.key);
  const source = await open(path, 'r');
  const target = await open(`${path}.sorting`, 'w');
  try {
    for (const entry of entries) {
      const buffer = Buffer.alloc(entry.length + 1);
      await source.read(buffer, 0, entry.length, entry.offset);
      buffer[entry.length] = 10;
      await target.write(buffer);
    }
    await target.sync();
  } finally {
    await source.close();
    await target.close();
  }
  await rename(`${path}.sorting`, path);
}

export interface RunManifest {
  input: string;
  input_size: number;
  input_fingerprint: string;
  num_repeats: number | Record<string, number>;
  limit: number | null;
  agent_name: string | null;
  /** Absent from manifests written before ngym took these knobs: read as their defaults. */
  agent_map?: Record<string, string> | null;
  fan_out?: Record<string, string[]> | null;
  num_repeats_add_seed?: boolean;
  responses_create_params: Record<string, unknown>;
  started_at: string;
}

/** Size plus a hash of the first and last 64 KiB: cheap, and changes when the rows change. */
export async function fingerprint(path: string): Promise<{ size: number; hash: string }> {
  const size = statSync(path).size;
  const handle = await open(path, 'r');
  try {
    const hash = createHash('sha256');
    const window = Math.min(size, 1 << 16);
    const head = Buffer.alloc(window);
    await handle.read(head, 0, window, 0);
    const tail = Buffer.alloc(window);
    await handle.read(tail, 0, window, size - window);
    hash.update(head).update(tail);
    return { size, hash: hash.digest('hex') };
  } finally {
    await handle.close();
  }
}

/** Refuses to resume a run whose input or settings differ from the manifest's, naming the difference. */
export function checkResumable(previous: RunManifest, current: RunManifest, manifestPath: string): void {
  const differences: string[] = [];
  if (previous.input !== current.input) differences.push(`input was ${previous.input}, now ${current.input}`);
  else if (previous.input_size !== current.input_size || previous.input_fingerprint !== current.input_fingerprint) {
    differences.push(`the input file ${current.input} changed since the run started`);
  }
  const shown = (value: unknown) => (typeof value === 'string' || value === null ? String(value) : JSON.stringify(value));
  // A manifest from before agent_map was recorded has only agent_name, which is its _default.
  const effective = (manifest: RunManifest) => ({ ...manifest, agent_map: manifest.agent_map ?? (manifest.agent_name ? { _default: manifest.agent_name } : null) });
  const compare = (key: 'num_repeats' | 'limit' | 'agent_map' | 'fan_out' | 'num_repeats_add_seed', fallback: unknown) => {
    const before = effective(previous)[key] ?? fallback;
    const now = effective(current)[key] ?? fallback;
    if (JSON.stringify(before) !== JSON.stringify(now)) differences.push(`${key} was ${shown(before)}, now ${shown(now)}`);
  };
  compare('num_repeats', 1);
  compare('limit', null);
  // agent_name is folded into agent_map (its _default): the map says where rows went.
  compare('agent_map', null);
  compare('fan_out', null);
  compare('num_repeats_add_seed', false);
  if (JSON.stringify(previous.responses_create_params) !== JSON.stringify(current.responses_create_params)) {
    differences.push('the responses_create_params overrides changed');
  }
  if (differences.length > 0) {
    throw new NgymError(
      'NGYM_USAGE',
      `Cannot resume: ${differences.join('; ')} (recorded in ${manifestPath}). Resume with the same arguments, or start over with +overwrite=true.`,
    );
  }
}
