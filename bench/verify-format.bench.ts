/**
 * Verify throughput of the format environments, instruction_following and structured_outputs, through their
 * HTTP surface: each environment in-process with its default worker threads, 8 requests in flight, over its
 * example rollouts (ours, plus upstream's recorded ones when ../shared is present). Prints verifies/s and
 * latency percentiles; structured_outputs also once with a cold cache (every schema new).
 */
import { existsSync, readFileSync } from 'node:fs';
import { sharedHttpClient } from '../src/client/http-client.ts';
import { sharedFixture } from '../src/testing/shared-fixtures.ts';
import { startInProcessGym } from '../src/gym/in-process.ts';

const CONCURRENCY = 8;
const DURATION_MS = 8000;

function readJsonl(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const percentile = (sorted: number[], fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;

async function measure(url: string, bodies: () => Record<string, unknown>): Promise<string> {
  const http = sharedHttpClient();
  const latencies: number[] = [];
  const deadline = performance.now() + DURATION_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const begin = performance.now();
        const response = await http.request(url, { body: bodies() });
        if (response.status !== 200) throw new Error(`verify answered ${response.status}: ${response.text.slice(0, 200)}`);
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return `${(latencies.length / seconds).toFixed(0).padStart(6)} verifies/s   p50 ${percentile(latencies, 0.5).toFixed(1)} ms   p99 ${percentile(latencies, 0.99).toFixed(1)} ms   (${latencies.length} requests)`;
}

/** Rollout lines are verify responses: dropping the scores gives back verify requests. */
function requests(rollouts: Record<string, unknown>[], rows: Record<string, unknown>[], join: (row: Record<string, unknown>) => string) {
  const byKey = new Map(rows.map((row) => [join(row), row]));
  return rollouts.map(({ reward: _reward, follow_all_instructions: _all, follow_instruction_list: _list, error_type: _type, error_message: _message, ...rollout }) => ({
    ...byKey.get(join(rollout)),
    ...rollout,
  }));
}

export default async function verifyFormatBenchmark(): Promise<void> {
  const gym = await startInProcessGym({
    config: {
      instruction_following: { resources_servers: { instruction_following: { entrypoint: 'app.ts', domain: 'instruction_following' } } },
      structured_outputs: { resources_servers: { structured_outputs: { entrypoint: 'app.ts', domain: 'instruction_following' } } },
    },
  });
  try {
    const local = (env: string, file: string) => readJsonl(new URL(`../resources_servers/${env}/data/${file}`, import.meta.url).pathname);
    const upstream = (env: string, file: string) => readJsonl(sharedFixture(env, file));

    const ifRequests = [
      ...requests(local('instruction_following', 'example_rollouts.jsonl'), [], () => ''),
      ...requests(upstream('instruction_following', 'example_rollouts.jsonl'), upstream('instruction_following', 'example.jsonl'), (row) => String(row.prompt)),
    ];
    const lastUser = (row: Record<string, unknown>) =>
      JSON.stringify(((row.responses_create_params as { input: { role: string; content: unknown }[] }).input ?? []).filter((item) => item.role === 'user').at(-1)?.content);
    const soRequests = [
      ...requests(local('structured_outputs', 'example_rollouts.jsonl'), [], () => ''),
      ...requests(upstream('structured_outputs', 'example_rollouts.jsonl'), upstream('structured_outputs', 'example.jsonl'), lastUser),
    ];

    let next = 0;
    const cycle = <T>(list: T[]) => () => list[next++ % list.length] as T;
    // Warm the worker threads (language profiles, compiled schemas) before measuring.
    for (const body of ifRequests) await sharedHttpClient().request(gym.url('instruction_following', '/verify'), { body });
    for (const body of soRequests) await sharedHttpClient().request(gym.url('structured_outputs', '/verify'), { body });

    process.stdout.write(`instruction_following (${ifRequests.length} rollouts, ${CONCURRENCY} in flight): ${await measure(gym.url('instruction_following', '/verify'), cycle(ifRequests))}\n`);
    process.stdout.write(`structured_outputs, cached schemas (${soRequests.length} rollouts): ${await measure(gym.url('structured_outputs', '/verify'), cycle(soRequests))}\n`);
    // A new $comment makes every schema distinct: each verify compiles.
    let serial = 0;
    const coldBodies = () => {
      const body = soRequests[serial % soRequests.length] as Record<string, unknown>;
      const schema = JSON.parse(body.schema_str as string) as Record<string, unknown>;
      return { ...body, schema_str: JSON.stringify({ ...schema, $comment: `cold ${serial++}` }) };
    };
    process.stdout.write(`structured_outputs, every schema new:           ${await measure(gym.url('structured_outputs', '/verify'), coldBodies)}\n`);
  } finally {
    await gym.close();
  }
}
