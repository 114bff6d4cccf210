/**
 * TRL's own NeMo Gym integration as the client: `get_agent_servers` and `nemo_gym_rollout_func` from TRL 0.28's
 * examples/scripts/nemo_gym/train_multi_environment.py (in ../shared/fixtures/clients/trl_nemo_gym, run
 * unchanged; never copied here) against `ngym run` serving two environments through vllm_model in training
 * mode, with a scripted engine speaking TRL vllm-serve's token format. `trl` and `transformers` are replaced by
 * module stubs (the two classes the script imports; the real packages need torch); everything else the script
 * imports is real (requests, aiohttp, yaml, omegaconf, datasets from the Python side's venv).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { SHARED_DIR, startGymProcess, startVllmBackend, TOY_EOS, type VllmChatCall } from 'ngym/testing';

const CLIENT_DIR = join(SHARED_DIR, 'fixtures', 'clients', 'trl_nemo_gym');
const PYTHON = join(PACKAGE_ROOT, process.env.NGYM_PYTHON_VENV ?? '.venv', 'bin', 'python');
const ENVIRONMENTS = ['example_single_tool_call', 'example_multi_step'];

function skipReason(): string | undefined {
  if (!existsSync(join(CLIENT_DIR, 'train_multi_environment.py'))) return `TRL's client is not in ${CLIENT_DIR} (../shared is absent)`;
  if (!existsSync(PYTHON)) return 'the Python side is not set up: run `npm run setup:python`';
  try {
    execFileSync(PYTHON, ['-c', 'import aiohttp, datasets, omegaconf, requests, yaml'], { stdio: 'ignore' });
  } catch {
    return "the venv lacks one of aiohttp, datasets, omegaconf, requests, yaml (TRL's script imports them)";
  }
  return undefined;
}

/** Arguments a model could send for a tool: a value of each property's type. */
function argumentsFor(schema: { properties?: Record<string, { type?: string }> } | undefined): Record<string, unknown> {
  const values: Record<string, unknown> = { string: 'cold', integer: 1, number: 1, boolean: true, array: [], object: {} };
  return Object.fromEntries(Object.entries(schema?.properties ?? {}).map(([name, property]) => [name, values[property.type ?? 'string'] ?? 'x']));
}

/** Two tool turns, then an answer: three model calls per rollout, each prompt extending the last. */
function reply(call: VllmChatCall) {
  const messages = call.body.messages as Array<{ role: string }>;
  const toolTurns = messages.filter((message) => message.role === 'tool').length;
  const tool = (call.body.tools as Array<{ function: { name: string; parameters?: any } }> | undefined)?.[0]?.function;
  if (tool === undefined || toolTurns >= 2) return { content: 'Done: the answer is ready.' };
  return { reasoning: `Step ${toolTurns + 1}.`, toolCalls: [{ name: tool.name, arguments: argumentsFor(tool.parameters) }] };
}

// What the trainer would be: the attributes nemo_gym_rollout_func reads, with the module stubs for trl/transformers.
const DRIVER = `
import json, sys, types
from dataclasses import dataclass
trl = types.ModuleType("trl")
@dataclass
class GRPOConfig:
    pass
class GRPOTrainer:
    pass
trl.GRPOConfig, trl.GRPOTrainer = GRPOConfig, GRPOTrainer
transformers = types.ModuleType("transformers")
transformers.AutoTokenizer = object
sys.modules["trl"], sys.modules["transformers"] = trl, transformers
import train_multi_environment as example

head_port, dataset_path = int(sys.argv[1]), sys.argv[2]
agent_servers = example.get_agent_servers("127.0.0.1", head_port)
rows = [json.loads(line) for line in open(dataset_path)]
ns = types.SimpleNamespace
logged = []
trainer = ns(
    model=ns(training=True),
    args=ns(num_generations=2, num_generations_eval=None, agent_servers=agent_servers, request_timeout=30,
            max_completion_length=512, temperature=1.0, top_p=0.999),
    train_dataset=[{"metadata": json.dumps(row)} for row in rows],
    eval_dataset=None,
    processing_class=ns(eos_token_id=2),
    log=logged.append,
)
out = example.nemo_gym_rollout_func([str(index) for index in range(len(rows))], trainer)
print("RESULT " + json.dumps({"agent_servers": agent_servers, "out": out, "logged": logged}), flush=True)
`;

function runPython(args: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(PYTHON, args, { cwd, env: { ...process.env, PYTHONPATH: CLIENT_DIR } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

const reason = skipReason();
describe.skipIf(reason !== undefined)("TRL 0.28's NeMo Gym example as the client", () => {
  it('turns multi-environment, multi-turn rollouts into GRPO inputs with no "Non-contiguous messages"', { timeout: 300_000 }, async () => {
    const engine = await startVllmBackend({ reply, tokenFormat: 'bare' });
    const gym = await startGymProcess([
      `+config_paths=[${ENVIRONMENTS.map((env) => `resources_servers/${env}/configs/${env}.yaml`).join(',')},responses_api_models/vllm_model/configs/vllm_model_for_training.yaml]`,
      `+policy_base_url=${engine.baseUrl}`,
      '+policy_api_key=EMPTY',
      '+policy_model_name=toy-model',
    ]);
    try {
      const directory = mkdtempSync(join(tmpdir(), 'ngym-trl-'));
      const rows = ENVIRONMENTS.flatMap((env) =>
        readFileSync(join(PACKAGE_ROOT, 'resources_servers', env, 'data', 'example.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .slice(0, 2)
          .map((line) => ({ ...JSON.parse(line), agent_ref: { type: 'responses_api_agents', name: `${env}_simple_agent` } })),
      );
      writeFileSync(join(directory, 'dataset.jsonl'), rows.map((row) => JSON.stringify(row)).join('\n'));
      writeFileSync(join(directory, 'driver.py'), DRIVER);
      // Asynchronously: the scripted engine answers from this process's event loop.
      const run = await runPython(['driver.py', String(gym.headPort), join(directory, 'dataset.jsonl')], directory);
      expect(run.status, run.stderr + run.stdout).toBe(0);
      expect(run.stdout + run.stderr, gym.stderr().slice(-3000)).not.toContain('WARNING: Request');
      const line = run.stdout.split('\n').find((text) => text.startsWith('RESULT '));
      const { agent_servers: agents, out, logged } = JSON.parse((line as string).slice('RESULT '.length));

      // get_agent_servers found both agents (and nothing else) from the head server.
      expect(Object.keys(agents).sort()).toEqual(ENVIRONMENTS.map((env) => `${env}_simple_agent`).sort());
      // 4 prompts x 2 generations, each three model turns with two tool results between them.
      expect(out.prompt_ids).toHaveLength(4);
      expect(out.completion_ids).toHaveLength(8);
      expect(out.num_turns).toEqual(Array(8).fill(3));
      expect(logged[0]).toMatchObject({ num_turns_mean: 3, num_turns_min: 3 });
      for (let index = 0; index < 8; index++) {
        const completion: number[] = out.completion_ids[index];
        const mask: number[] = out.env_mask[index];
        expect(mask).toHaveLength(completion.length);
        expect(out.logprobs[index]).toHaveLength(completion.length);
        // Model tokens are trained on (mask 1, real logprobs); tool results between turns are not (mask 0).
        expect(mask.filter((bit) => bit === 0).length).toBeGreaterThan(0);
        // The trained tokens are the three generations, each ending with the engine's end-of-turn token.
        expect(completion.filter((id, position) => mask[position] === 1 && id === TOY_EOS)).toHaveLength(3);
        expect(out.logprobs[index].some((value: number, position: number) => mask[position] === 1 && value !== 0)).toBe(true);
      }
      // Rewards are the environments' own verify results, one per rollout.
      expect(out.env_reward).toHaveLength(8);
      for (const reward of out.env_reward) expect([0, 1]).toContain(reward);
      // 8 rollouts x 3 calls reached the engine, each carrying the previous turns' token ids (spliced, contiguous).
      expect(engine.chatRequests()).toHaveLength(24);
    } finally {
      await gym.stop();
      await engine.close();
    }
  });
});

describe.skipIf(reason === undefined)("TRL 0.28's NeMo Gym example as the client", () => {
  it.skip(reason ?? '', () => {});
});
