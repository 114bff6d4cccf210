import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason, type ResponseItem, sharedHttpClient } from 'ngym';
import {
  assistantMessage,
  type InProcessGym,
  readJsonlRows,
  scriptedModel,
  startInProcessGym,
  usage,
} from 'ngym/testing';
import { imageName } from './app.ts';
import { EXAMPLE_DATA, REPOS_DIR } from './example-data.ts';

const http = sharedHttpClient();
const unavailable = bubblewrapUnavailableReason();
const rows = readJsonlRows(EXAMPLE_DATA.examplePath);
const bash = (command: string) => `THOUGHT: go.\n\n\`\`\`bash\n${command}\n\`\`\``;
const texts = (output: ResponseItem[]) => output.map((item) => ('content' in item && Array.isArray(item.content) ? String(item.content[0]?.text) : ''));

describe('SWE-bench image names', () => {
  it('names images as upstream does, unless the row names one', () => {
    expect(imageName({ instance_id: 'django__django-11099', subset: 'verified' })).toBe('swebench/sweb.eval.x86_64.django_1776_django-11099:latest');
    expect(imageName({ instance_id: 'getmoto__moto-7365', subset: 'gym' })).toBe('xingyaoww/sweb.eval.x86_64.getmoto_s_moto-7365:latest');
    expect(imageName({ instance_id: 'Owner__Repo-1' })).toBe('xingyaoww/sweb.eval.x86_64.owner_s_repo-1:latest');
    expect(imageName({ instance_id: 'x', image_name: 'my/image:1' })).toBe('my/image:1');
  });
});

describe.skipIf(unavailable !== null)('mini_swe_agent', () => {
  /** The model's turns for the current test; each call answers the next one. */
  let turns: string[] = [];
  let gym: InProcessGym;
  const agentConfig = (extra: Record<string, unknown>) => ({
    responses_api_agents: {
      mini_swe_agent: { entrypoint: 'app.ts', model_server: { type: 'responses_api_models', name: 'policy_model' }, repos_dir: REPOS_DIR, step_limit: 6, step_timeout: 1, eval_timeout: 120, ...extra },
    },
  });
  beforeAll(async () => {
    const model = scriptedModel(({ input }) => {
      const turn = input.filter((item) => 'role' in item && item.role === 'assistant').length;
      return { output: [assistantMessage(turns[turn] ?? bash('true'))], usage: usage(100, 10) };
    });
    gym = await startInProcessGym({
      config: { agent: agentConfig({}), golden: agentConfig({ run_golden: true }), policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } } },
      definitions: { policy_model: model.definition },
    });
  });
  afterAll(async () => gym?.close());

  async function run(row: Record<string, unknown>, agent = 'agent') {
    const reply = await http.request(gym.url(agent, '/run'), { body: row });
    return { status: reply.status, body: reply.json<Record<string, any>>() };
  }

  it('resolves every example instance with its gold patch, and none without a fix', async () => {
    for (const row of rows) {
      const { status, body } = await run(row, 'golden');
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.reward).toBe(1);
      expect(body.metadata.eval_report[row.instance_id].tests_status.FAIL_TO_PASS.success).toEqual(row.FAIL_TO_PASS);
    }
    turns = [bash('echo MINI_SWE_AGENT_FINAL_OUTPUT && git add -A && git diff --cached')];
    const { body } = await run(rows[0] as Record<string, unknown>);
    expect(body.reward).toBe(0);
    expect(body.metadata.model_patch).toBe('');
    expect(body.metadata.eval_report[(rows[0] as Record<string, any>).instance_id].tests_status.FAIL_TO_PASS.failure).toEqual((rows[0] as Record<string, any>).FAIL_TO_PASS);
  });

  it('answers each command with its observation, timeouts and repeats with upstream’s messages, and stops at the step limit', async () => {
    turns = [
      bash('echo "$PAGER $TQDM_DISABLE"; ls /testbed; false'),
      bash('sleep 5; echo never'),
      bash('python3 -c "print(\'x\' * 12000)"'),
      'no command here',
      bash('echo same'),
      bash('echo same'),
    ];
    const { status, body } = await run(rows[0] as Record<string, unknown>);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.responses_create_params.input.map((item: { role: string }) => item.role)).toEqual(['system', 'user']);
    expect(body.responses_create_params.input[1].content).toContain('add() does not reduce its result');
    const observations = texts(body.response.output).filter((_, index) => index % 2 === 1);
    expect(observations[0]).toBe('<returncode>1</returncode>\n<output>\ncat 1\nREADME.md\nfractions_calc\ntests</output>');
    expect(observations[1]).toBe('The last command <command>sleep 5; echo never</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>\nPlease try another command and make sure to avoid those requiring interactive input.');
    expect(observations[2]).toMatch(/^<returncode>0<\/returncode>\n<warning>\nThe output of your last command was too long\./);
    expect(observations[2]).toContain('<elided_chars>\n2000 characters elided\n</elided_chars>');
    expect(observations[3]).toMatch(/^Please always provide EXACTLY ONE action in triple backticks, found 0 actions\./);
    expect(observations[4]).toBe('<returncode>0</returncode>\n<output>\nsame</output>');
    expect(observations[5]).toBe('<returncode>0</returncode>\n<output>\nsame</output>');
    // The step limit ends the run with an empty message; the evaluation runs all the same.
    expect(texts(body.response.output).at(-1)).toBe('');
    expect(body.response.output).toHaveLength(13);
    expect(body).toMatchObject({ reward: 0, instance_id: 'ngym__fractions_calc-1' });
    expect(body.response.usage).toMatchObject({ input_tokens: 600, output_tokens: 60, total_tokens: 660 });
  });

  it('warns when the first commands are all the same', async () => {
    turns = [bash('ls'), bash('ls'), bash('ls'), bash('echo MINI_SWE_AGENT_FINAL_OUTPUT')];
    const { body } = await run(rows[1] as Record<string, unknown>);
    const messages = texts(body.response.output);
    expect(messages[5]).toBe("The last 3 commands you generated were identical: 'ls'. This suggests you may be stuck in a loop. Please try a different approach or command.");
    expect(messages.at(-1)).toBe('');
  });

  it('refuses rows it cannot run with a 422 naming the problem', async () => {
    const row = rows[0] as Record<string, unknown>;
    expect((await run({ ...row, FAIL_TO_PASS: undefined })).body.detail).toMatch(/FAIL_TO_PASS/);
    expect((await run({ ...row, repo: '../../../etc' })).body.detail).toMatch(/outside repos_dir/);
    const wrong = await run({ ...row, base_commit: '0000000' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.detail).toMatch(/base_commit 0000000 is not the commit/);
    expect((await http.request(gym.url('agent', '/v1/responses'), { body: { input: 'hi' } })).status).toBe(501);
  });
});

describe.skipIf(unavailable === null)('mini_swe_agent', () => {
  it.skip(`skipped: ${unavailable ?? ''}`, () => {});
});
