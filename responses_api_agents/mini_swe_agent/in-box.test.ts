/**
 * mini_swe_agent working in the swebench server's box (`env: sandbox`), on the project's container engine with the
 * swebench tests' task image. End to end as a user runs it: `gym env start --environment swebench` with replay_model
 * as a scripted model, then `ngym collect` with the environment's `swebench_mini_swe_agent`: the model that applies
 * the gold patch (git apply in a heredoc) and submits is resolved, the one that submits at once is not. Then the bad
 * cases in one process: a box gone mid-run, a box the agent's provider cannot adopt, seed answers naming no box or a
 * provider ngym lacks: each a failed rollout naming the cause, never a reward.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandboxProvider, type ResponseItem, sharedHttpClient } from 'ngym';
import { assistantMessage, containerEngineForTests, type InProcessGym, runCli, scriptedModel, startGymProcess, startInProcessGym } from 'ngym/testing';
import { buildTestTaskImage, GOLD, row } from '../../resources_servers/swebench/__fixtures__/test-task.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';
import { adoptTaskBox } from './task-box.ts';
import { loadTemplates, render } from './templates.ts';

const engine = await containerEngineForTests();
const skipReason = 'skipReason' in engine ? engine.skipReason : undefined;
const folder = mkdtempSync(join(tmpdir(), 'ngym-mini-swe-in-box-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const templates = loadTemplates();

const bash = (command: string) => `THOUGHT: next.\n\n\`\`\`bash\n${command}\n\`\`\``;
const SUBMIT = bash('echo MINI_SWE_AGENT_FINAL_OUTPUT && git add -A && git diff --cached');
const APPLY_GOLD = bash(`git apply <<'NGYM_PATCH'\n${GOLD}NGYM_PATCH\ngit diff --stat`);
/** The observation of APPLY_GOLD in the task's box. */
const APPLIED = '<returncode>0</returncode>\n<output>\ncalc.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)</output>';
const userMessage = (text: string) => ({ type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text }] });

/** The fixture task as mini_swe_agent's prompts present it (its own problem statement per variant, so replays tell them apart). */
const task = (mode: 'gold' | 'empty') => ({ ...row({ responses_create_params: { input: [] } }), problem_statement: `add() subtracts (${mode})`, expected_reward: mode === 'gold' ? 1 : 0 });

/** The scripted model's turns for a variant, recorded as replay_model reads them: the prompt the agent builds, then model turns and observations. */
function recording(variant: ReturnType<typeof task>) {
  const input = [
    { role: 'system', content: render(templates.system_template, {}) },
    { role: 'user', content: render(templates.instance_template, { task: variant.problem_statement }) },
  ];
  // The model's turns, each followed by the observation the agent sends back (replay_model checks it).
  const turns: [string, string?][] = variant.expected_reward === 1 ? [[APPLY_GOLD, APPLIED], [SUBMIT]] : [[SUBMIT]];
  const output = turns.flatMap(([text, seen], index) => [assistantMessage(text, { id: `msg_${index}` } as Partial<ResponseItem>), ...(seen === undefined ? [] : [userMessage(seen)])]);
  return { responses_create_params: { input }, response: { id: 'resp_1', object: 'response', model: 'scripted', output } };
}

describe.skipIf(skipReason !== undefined)('mini_swe_agent in the swebench task box', () => {
  beforeAll(async () => {
    if ('skipReason' in engine) return;
    await buildTestTaskImage(engine.dockerHost, engine.baseImage);
  }, 240_000);

  it('gym env start --environment swebench, then ngym collect: the gold fix resolves, submitting at once does not', async () => {
    const tasks = [task('gold'), task('empty')];
    const input = join(folder, 'tasks.jsonl');
    const recordings = join(folder, 'scripted.jsonl');
    const output = join(folder, 'rollouts.jsonl');
    writeFileSync(input, tasks.map((entry) => JSON.stringify(entry)).join('\n'));
    writeFileSync(recordings, tasks.map((entry) => JSON.stringify(recording(entry))).join('\n'));
    const gymBin = join(folder, 'gym');
    symlinkSync(join(PACKAGE_ROOT, 'bin', 'ngym.js'), gymBin);
    const gym = await startGymProcess(['--environment', 'swebench', '--model-type', 'replay_model', `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${recordings}`], { bin: gymBin, command: ['env', 'start'] });
    try {
      const collected = await runCli(['collect', `+head_server.port=${gym.headPort}`, '+agent_name=swebench_mini_swe_agent', `+input_jsonl_fpath=${input}`, `+output_jsonl_fpath=${output}`, '+num_samples_in_parallel=2']);
      const failures = join(folder, 'rollouts_failures.jsonl');
      expect(collected.code, `${collected.stderr}\n${existsSync(failures) ? readFileSync(failures, 'utf8') : ''}`).toBe(0);
      const results = readFileSync(output, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
      const byMode: Record<string, Record<string, any>> = Object.fromEntries(results.map((result) => [result.expected_reward === 1 ? 'gold' : 'empty', result]));
      const gold = byMode.gold as Record<string, any>;
      expect(gold, JSON.stringify(results)).toMatchObject({ reward: 1, resolved: true, patch_successfully_applied: true });
      // The diff graded is the one the agent made in the server's box.
      expect(gold.model_patch).toContain('+    return a + b');
      expect(byMode.empty).toMatchObject({ reward: 0, resolved: false, unresolved_reason: 'the patch is empty' });
      // The rollout is the agent's: its prompt, the model's turns and the observations of the commands it ran in the box.
      const texts = (gold.response.output as { content: { text: string }[] }[]).map((item) => item.content[0]?.text ?? '');
      expect(gold.responses_create_params.input.map((item: { role: string }) => item.role)).toEqual(['system', 'user']);
      expect(texts[1]).toBe(APPLIED);
      expect(texts.at(-1)).toContain('+    return a + b');
    } finally {
      expect((await gym.stop()).code).toBe(0);
    }
  }, 120_000);

  describe('bad input: a failed rollout naming the cause', () => {
    let gym: InProcessGym;
    /** Ends the task's box while the agent works in it (on the model's second turn). */
    let killBox = false;
    const http = sharedHttpClient();
    const docker = new DockerSandboxProvider({});
    beforeAll(async () => {
      const model = scriptedModel(async ({ input }) => {
        const turn = input.filter((item) => 'role' in item && item.role === 'assistant').length;
        if (turn === 1 && killBox) {
          // The box's hostname is the start of its container id, which the engine finds it by.
          const hostname = /box=([0-9a-zA-Z]+)/.exec(JSON.stringify(input.at(-1)))?.[1] as string;
          await docker.close(await docker.connect({ sandbox_id: hostname }));
        }
        return [assistantMessage(turn === 0 ? bash('echo "box=$(cat /etc/hostname)"') : SUBMIT)];
      });
      const agent = (extra: Record<string, unknown>) => ({
        responses_api_agents: {
          mini_swe_agent: { entrypoint: 'app.ts', env: 'sandbox', sandbox_provider: 'sandbox', resources_server: { type: 'resources_servers', name: 'swebench' }, model_server: { type: 'responses_api_models', name: 'policy_model' }, step_limit: 4, ...extra },
        },
      });
      gym = await startInProcessGym({
        config: {
          sandbox: { docker: {} },
          elsewhere: { local: {} },
          swebench: { resources_servers: { swebench: { entrypoint: 'app.ts', domain: 'coding', sandbox_provider: 'sandbox', evaluation_timeout: 20, sandbox_config: { resources: { cpu: 1, memory_mib: 512 } } } } },
          agent: agent({}),
          wrong_provider: agent({ sandbox_provider: 'elsewhere' }),
          policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
        },
        definitions: { policy_model: model.definition },
      });
    }, 60_000);
    afterAll(async () => Promise.all([gym?.close(), docker.aclose()]));

    const run = async (agent: string) => {
      const reply = await http.request(gym.url(agent, '/run'), { body: task('empty') });
      return { status: reply.status, text: reply.text };
    };

    it('the box ends while the agent works in it', async () => {
      killBox = true;
      try {
        const { status, text } = await run('agent');
        expect(status, text).toBe(502);
        expect(text).toMatch(/local__calc-1: the task.{0,4}s box (nemo-gym-[0-9a-f]+) failed while running a command \(The box \1 is gone.*it is gone or its engine failed/);
        expect(text).not.toMatch(/"reward"/);
      } finally {
        killBox = false;
      }
    });

    it("the agent's provider cannot adopt the server's box", async () => {
      const { status, text } = await run('wrong_provider');
      expect(status, text).toBe(502);
      const box = /cannot adopt the task.{0,4}s box (nemo-gym-[0-9a-f]+) with the sandbox provider 'local' \(not_found: No local box/.exec(text)?.[1];
      expect(box, text).toBeDefined();
      // The failed rollout still had the server end its box (at /verify), so none is left behind.
      await expect(docker.connect({ sandbox_id: box as string })).rejects.toThrow(/no such container/);
    });

    it('seed answers that name no box, a box that is gone, or a provider ngym lacks', async () => {
      await expect(adoptTaskBox('t-1', { session_id: 's' }, docker)).rejects.toThrow(/t-1: the resources server's \/seed_session answered no sandbox_descriptor or sandbox_handle/);
      await expect(adoptTaskBox('t-1', { sandbox_handle: 'nemo-gym-00000000gone' }, docker)).rejects.toThrow(/cannot adopt the task's box nemo-gym-00000000gone with the sandbox provider 'docker' \(not_found: .*no such container/);
      await expect(adoptTaskBox('t-1', { sandbox_descriptor: { sandbox_id: 'x' }, sandbox_provider: { nosuch: {} } }, undefined)).rejects.toThrow(/cannot adopt the box x: .*unknown sandbox provider 'nosuch'/);
      await expect(adoptTaskBox('t-1', { sandbox_descriptor: { sandbox_id: 'x' }, sandbox_provider: { opensandbox: {} } }, docker)).rejects.toThrow(/made its box with the sandbox provider 'opensandbox', but this agent's sandbox_provider selects 'docker'/);
      await expect(adoptTaskBox('t-1', { sandbox_handle: 'x' }, undefined)).rejects.toThrow(/the agent has no sandbox_provider and the resources server's seed answer names none/);
    });
  });
});

describe.skipIf(skipReason === undefined)('mini_swe_agent in the swebench task box', () => {
  it.skip(`skipped: ${skipReason ?? ''}`, () => {});
});
