/**
 * The harness agents (claude_code_agent, codex_agent, opencode_agent), in two parts.
 *
 * 1. End to end: for each real CLI, `ngym run` (coding_tasks, the agent, vllm_model in training mode in front of
 *    a scripted vLLM engine in this process: no network) and `ngym collect` of one task whose fix the script
 *    drives with the CLI's own tools (read, edit, run the tests in the sandbox). Printed: the reward, the model
 *    calls, the calls whose token ids the rollout delivers, and the wall time of the rollout.
 * 2. Overhead per model call of the rollout's model relay (dialect conversion + token capture + the Unix-socket
 *    hop), side by side with a direct `/v1/responses` call to the same model server: a scripted model server
 *    in-process whose answer carries token ids; each worker runs rollouts of 16 calls, each rollout with its own
 *    relay as the agents start one (its start and stop are in the figures). Rounds alternate the cases; medians.
 *    Sizes: BENCH_HARNESS_SECONDS (per case and round), BENCH_ROUNDS, BENCH_CONCURRENCY.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { RolloutTokenCapture } from '../src/agent/harness/token-capture.ts';
import { startModelRelay } from '../src/agent/harness/model-relay.ts';
import { startInProcessGym } from '../src/gym/in-process.ts';
import type { Response } from '../src/protocol/responses.ts';
import { bubblewrapUnavailableReason } from '../src/sandbox/availability.ts';
import { assistantMessage, functionCall, scriptedModel, usage } from '../src/server/scripted-model.ts';
import { runCli, startGymProcess } from '../src/testing/cli-process.ts';
import { startVllmBackend } from '../src/testing/vllm-backend.ts';
import { silentLogger } from '../src/util/logger.ts';
import { AGENT, bugfixRow, CLI_ROOT, FIXING_POLICIES, harnessGymConfig } from '../responses_api_agents/claude_code_agent/test-helpers.ts';
import { format, median } from './lib/measure.ts';

const SECONDS = Number(process.env.BENCH_HARNESS_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const CALLS_PER_ROLLOUT = 16;

async function endToEnd(): Promise<void> {
  const missing = bubblewrapUnavailableReason() ?? (existsSync(join(CLI_ROOT, 'node_modules')) ? null : 'the harness CLIs are not installed (npm run setup:harness-cli)');
  if (missing !== null) {
    process.stdout.write(`End to end: skipped (${missing})\n`);
    return;
  }
  process.stdout.write('End to end under `ngym run` + `ngym collect` (coding_tasks, one task, scripted vLLM engine, no network)\n');
  process.stdout.write(`${'agent'.padEnd(20)} ${'reward'.padStart(6)} ${'calls'.padStart(6)} ${'delivered'.padStart(10)} ${'masked'.padStart(7)} ${'rollout s'.padStart(10)}\n`);
  for (const agent of Object.keys(FIXING_POLICIES) as (keyof typeof FIXING_POLICIES)[]) {
    const engine = await startVllmBackend({ reply: FIXING_POLICIES[agent] });
    const dir = mkdtempSync(join(tmpdir(), 'ngym-harness-bench-'));
    const configPath = join(dir, 'config.yaml');
    // JSON is YAML: the same config the agents' tests start in-process.
    writeFileSync(configPath, JSON.stringify(harnessGymConfig(agent, engine.baseUrl)));
    const { _ng_task_index: _task, _ng_rollout_index: _rollout, ...row } = bugfixRow();
    writeFileSync(join(dir, 'input.jsonl'), `${JSON.stringify(row)}\n`);
    const gym = await startGymProcess([`+config_paths=[${configPath}]`]);
    try {
      const started = performance.now();
      const collected = await runCli(['collect', `+head_server.port=${gym.headPort}`, `+agent_name=${AGENT}`, `+input_jsonl_fpath=${join(dir, 'input.jsonl')}`, `+output_jsonl_fpath=${join(dir, 'output.jsonl')}`]);
      const seconds = (performance.now() - started) / 1000;
      if (collected.code !== 0) throw new Error(`ngym collect failed for ${agent}:\n${collected.stderr}\n${collected.stdout}`);
      const rollout = JSON.parse(readFileSync(join(dir, 'output.jsonl'), 'utf8').split('\n')[0] as string) as Record<string, any>;
      const delivered = (rollout.response?.output ?? []).filter((item: Record<string, unknown>) => Array.isArray(item.generation_token_ids)).length;
      process.stdout.write(
        `${agent.padEnd(20)} ${String(rollout.reward).padStart(6)} ${String(engine.generations.length).padStart(6)} ${String(delivered).padStart(10)} ${String(rollout.mask_sample === true).padStart(7)} ${format(seconds, 1).padStart(10)}\n`,
      );
    } finally {
      await gym.stop();
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

const ANSWER_ITEMS = [assistantMessage('Let me read the file.', { id: 'msg_bench' }), functionCall('Read', { file_path: '/work/sum_to.py' }, 'call_bench')];
const GENERATION = Array.from({ length: 40 }, (_, index) => 1000 + index);
/** The model server's answer, with token ids and logprobs on the first item as vllm_model's carry them. */
function answerWithTokens(): Partial<Response> {
  const [message, call] = ANSWER_ITEMS;
  const prompt = Array.from({ length: 600 }, (_, index) => index);
  return { output: [{ ...message, prompt_token_ids: prompt, generation_token_ids: GENERATION, generation_log_probs: GENERATION.map(() => -0.25) } as never, call as never], usage: usage(600, 40) };
}

const TOOL_SCHEMA = { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] };
const CONVERSATION = [
  { role: 'user', content: 'The tests in test_sum_to.py fail. Fix the bug in sum_to.py.' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/work/sum_to.py' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'def sum_to(n):\n    total = 0\n    for value in range(1, n):\n        total += value\n    return total\n' }] },
];

const CASES = [
  { name: '/v1/responses direct', path: '/v1/responses', relay: false, body: { input: [{ role: 'user', content: CONVERSATION[0]?.content }, { type: 'function_call', call_id: 'toolu_1', name: 'Read', arguments: '{"file_path": "/work/sum_to.py"}' }, { type: 'function_call_output', call_id: 'toolu_1', output: 'def sum_to(n): ...' }], tools: [{ type: 'function', name: 'Read', parameters: TOOL_SCHEMA, strict: false }] } },
  { name: 'relay /v1/messages stream', path: '/v1/messages', relay: true, body: { model: 'policy', max_tokens: 512, stream: true, system: 'You are a coding agent.', messages: CONVERSATION, tools: [{ name: 'Read', input_schema: TOOL_SCHEMA }] } },
  { name: 'relay /v1/responses stream', path: '/v1/responses', relay: true, body: { model: 'policy', stream: true, input: [{ role: 'user', content: 'Fix the bug.' }, { type: 'function_call', call_id: 'toolu_1', name: 'Read', arguments: '{"file_path": "/work/sum_to.py"}' }, { type: 'function_call_output', call_id: 'toolu_1', output: 'def sum_to(n): ...' }], tools: [{ type: 'function', name: 'Read', parameters: TOOL_SCHEMA, strict: false }] } },
  { name: 'relay /v1/chat/completions stream', path: '/v1/chat/completions', relay: true, body: { model: 'policy', stream: true, messages: [{ role: 'user', content: 'Fix the bug.' }, { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'Read', arguments: '{"file_path": "/work/sum_to.py"}' } }] }, { role: 'tool', tool_call_id: 'toolu_1', content: 'def sum_to(n): ...' }], tools: [{ type: 'function', function: { name: 'Read', parameters: TOOL_SCHEMA } }] } },
];

interface Figures {
  latencyMs: number;
  cpuMicroseconds: number;
}

async function callOnce(dispatcher: Agent, url: string, body: unknown): Promise<void> {
  const response = await request(url, { method: 'POST', dispatcher, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.body.text();
  if (response.statusCode !== 200 || /^event: (error|response\.failed)$/m.test(text)) throw new Error(`${url} answered ${response.statusCode}: ${text.slice(0, 300)}`);
}

async function measure(modelUrl: string, entry: (typeof CASES)[number], seconds: number, socketDir: string): Promise<Figures> {
  let calls = 0;
  let busyMs = 0;
  const cpuBefore = process.cpuUsage();
  const deadline = performance.now() + seconds * 1000;
  const direct = new Agent();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      for (let rollout = 0; performance.now() < deadline; rollout++) {
        const begin = performance.now();
        if (!entry.relay) {
          for (let call = 0; call < CALLS_PER_ROLLOUT; call++) await callOnce(direct, `${modelUrl}${entry.path}`, entry.body);
        } else {
          const capture = new RolloutTokenCapture(`${worker}-${rollout}`);
          const callModel = async (params: unknown) => {
            const response = await request(`${modelUrl}/v1/responses`, { method: 'POST', dispatcher: direct, headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
            return (await response.body.json()) as Response;
          };
          const relay = await startModelRelay(join(socketDir, `${worker}-${rollout}.sock`), { callModel, capture, logger: silentLogger, timeoutMs: 60_000, model: null });
          const local = new Agent({ connect: { socketPath: relay.socketPath } });
          for (let call = 0; call < CALLS_PER_ROLLOUT; call++) await callOnce(local, `http://relay${entry.path}`, entry.body);
          await local.close();
          await relay.close();
          if (capture.calls.length !== CALLS_PER_ROLLOUT) throw new Error(`the relay recorded ${capture.calls.length} of ${CALLS_PER_ROLLOUT} calls`);
        }
        busyMs += performance.now() - begin;
        calls += CALLS_PER_ROLLOUT;
      }
    }),
  );
  await direct.close();
  const cpu = process.cpuUsage(cpuBefore);
  return { latencyMs: busyMs / calls, cpuMicroseconds: (cpu.user + cpu.system) / calls };
}

async function overhead(): Promise<void> {
  const model = scriptedModel(() => answerWithTokens());
  const gym = await startInProcessGym({ config: { policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } } }, definitions: { policy_model: model.definition } });
  const socketDir = mkdtempSync(join(tmpdir(), 'ngym-relay-bench-'));
  try {
    const modelUrl = gym.url('policy_model', '').replace(/\/$/, '');
    for (const entry of CASES) await measure(modelUrl, entry, 0.5, socketDir);
    const rounds = new Map<string, Figures[]>(CASES.map((entry) => [entry.name, []]));
    for (let round = 0; round < ROUNDS; round++) for (const entry of CASES) rounds.get(entry.name)?.push(await measure(modelUrl, entry, SECONDS, socketDir));
    const medianOf = (name: string, pick: (figures: Figures) => number) => median((rounds.get(name) ?? []).map(pick));
    const directName = CASES[0]?.name as string;
    const directLatency = medianOf(directName, (figures) => figures.latencyMs);
    const directCpu = medianOf(directName, (figures) => figures.cpuMicroseconds);
    process.stdout.write(`\nPer model call: one scripted model server in-process (answer with 600 prompt + 40 generated token ids), ${CONCURRENCY} rollouts in flight, ${CALLS_PER_ROLLOUT} calls each, ${ROUNDS} rounds of ${SECONDS} s per case (medians)\n`);
    process.stdout.write(`${'case'.padEnd(34)} ${'ms/call'.padStart(8)} ${'x direct'.padStart(9)} ${'+ms'.padStart(6)} ${'CPU µs/call'.padStart(12)} ${'x direct'.padStart(9)} ${'+µs CPU'.padStart(8)}\n`);
    for (const entry of CASES) {
      const latency = medianOf(entry.name, (figures) => figures.latencyMs);
      const cpu = medianOf(entry.name, (figures) => figures.cpuMicroseconds);
      process.stdout.write(
        `${entry.name.padEnd(34)} ${format(latency, 2).padStart(8)} ${format(latency / directLatency, 2).padStart(9)} ${format(latency - directLatency, 2).padStart(6)} ${format(cpu, 0).padStart(12)} ${format(cpu / directCpu, 2).padStart(9)} ${format(cpu - directCpu, 0).padStart(8)}\n`,
      );
    }
  } finally {
    await gym.close();
    rmSync(socketDir, { recursive: true, force: true });
  }
}

export default async function harnessAgentsBenchmark(): Promise<void> {
  await endToEnd();
  await overhead();
}
