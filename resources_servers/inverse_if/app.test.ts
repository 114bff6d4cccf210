import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODE_HEADER, type Response, sharedHttpClient } from 'ngym';
import { loadGlobalConfig, PACKAGE_ROOT } from 'ngym/runtime';
import { assistantMessage, type InProcessGym, modelResponse, readJsonlRows, scriptedModel, startFakeEndpoint, startInProcessGym } from 'ngym/testing';
import { EXAMPLE_DATA, exampleRows, judgeReply } from './example-data.ts';
import { expectExampleRolloutsReverify, expectRefused } from '../multichallenge/test-helpers.ts';

const http = sharedHttpClient();
const CONFIG = '+config_paths=[resources_servers/inverse_if/configs/inverse_if.yaml]';
const key = (name: string, value: string) => `++inverse_if.resources_servers.inverse_if.${name}=${value}`;

/** The judge's reply to each criterion (by its text, the line before the template's end); else the example data's. */
let replies: Record<string, string | Partial<Response>> = {};
const judge = scriptedModel(({ input }) => {
  const prompt = String(input.at(-1)?.content);
  const reply = Object.entries(replies).find(([criteria]) => prompt.includes(`<${criteria}>`))?.[1] ?? judgeReply(prompt) ?? 'no verdict';
  return typeof reply === 'string' ? [assistantMessage(reply)] : reply;
});

async function start(overrides: string[] = [], external?: Record<string, { host: string; port: number }>) {
  return startInProcessGym({
    overrides: [CONFIG, '+judge_model.responses_api_models.scripted.entrypoint=app.ts', '+policy_model.responses_api_models.scripted.entrypoint=app.ts', ...overrides],
    definitions: { judge_model: judge.definition, policy_model: scriptedModel(() => []).definition },
    external,
  });
}

let gym: InProcessGym;
beforeAll(async () => {
  gym = await start();
});
afterAll(async () => gym?.close());
afterEach(() => {
  judge.calls.length = 0;
  replies = {};
});

const TEMPLATE = 'Q: {prompt}\nA: {model_response}\nREF: {standard_response}\nCHECK: <{criteria}>';
const row = {
  responses_create_params: { input: [{ role: 'user', content: 'Name two primary colours in lower case, separated by a semicolon.' }] },
  prompt: 'Name two primary colours in lower case, separated by a semicolon.',
  reference_response: 'red; blue',
  rubric: [
    { id: 'C1', criteria: 'lower case' },
    { id: 'C2', criteria: 'semicolon' },
  ],
  judge_prompt_template: TEMPLATE,
  judge_system_prompt: 'Grade strictly.',
};

async function verify(answer: string | Response, extra: Record<string, unknown> = {}, target: InProcessGym = gym) {
  const response = typeof answer === 'string' ? modelResponse([assistantMessage(answer)]) : answer;
  const reply = await http.request(target.url('inverse_if', '/verify'), { body: { ...row, ...extra, response } });
  return { status: reply.status, headers: reply.headers, body: reply.json<Record<string, any>>() };
}

const fenced = (result: string, explanation = 'why') => `\`\`\`json\n{"result": "${result}", "explanation": "${explanation}"}\n\`\`\``;

describe('inverse_if with the shipped config', () => {
  it("judges each criterion with the row's own template and system prompt; the reward is the mean", async () => {
    replies = { 'lower case': fenced('PASS', 'Both are lower case.'), semicolon: fenced('FAIL', 'A comma is used.') };
    const { status, body } = await verify('<think>red and blue</think> red, blue ', { uuid: 'if-1', metadata: { domain: 'Arts & Culture' } });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      reward: 0.5,
      num_passed: 1,
      num_total: 2,
      aggregation_mode: 'mean',
      prompt: row.prompt,
      generated_response: 'red, blue',
      reference_response: 'red; blue',
      uuid: 'if-1',
      metadata: { domain: 'Arts & Culture' },
    });
    // Upstream's answer leaves out the rubric and the row's judge prompts.
    for (const field of ['rubric', 'judge_prompt_template', 'judge_system_prompt']) expect(body).not.toHaveProperty(field);
    expect(body.rubric_evaluations).toEqual([
      { criterion_id: 'C1', criteria: 'lower case', judge_prompt: `Q: ${row.prompt}\nA: red, blue\nREF: red; blue\nCHECK: <lower case>`, judge_response: fenced('PASS', 'Both are lower case.'), verdict: 'PASS', explanation: 'Both are lower case.', score: 1 },
      { criterion_id: 'C2', criteria: 'semicolon', judge_prompt: `Q: ${row.prompt}\nA: red, blue\nREF: red; blue\nCHECK: <semicolon>`, judge_response: fenced('FAIL', 'A comma is used.'), verdict: 'FAIL', explanation: 'A comma is used.', score: 0 },
    ]);
    expect(judge.calls[0]?.input).toEqual([
      { role: 'system', content: 'Grade strictly.', type: 'message' },
      { role: 'user', content: `Q: ${row.prompt}\nA: red, blue\nREF: red; blue\nCHECK: <lower case>`, type: 'message' },
    ]);
    expect(judge.calls[0]?.params).toMatchObject({ max_output_tokens: 8192, temperature: 0.7, top_p: 0.8 });
  });

  it("judges with the config's default template and system prompt when the row has none (null or empty)", async () => {
    for (const extra of [{ judge_prompt_template: null, judge_system_prompt: null }, { judge_prompt_template: '', judge_system_prompt: '' }, { judge_prompt_template: undefined, judge_system_prompt: undefined }]) {
      judge.calls.length = 0;
      const { body } = await verify('red; blue', { ...extra, rubric: [{ id: 'C1', criteria: 'lower case' }] });
      expect(body.rubric_evaluations[0].judge_prompt).toBe(`## Question\n${row.prompt}\n\n---\n## Student Response\nred; blue\n\n---\n## Standard Response\nred; blue\n\n---\n## Evaluation Criteria\nlower case\n\n---`);
      expect(judge.calls[0]?.input[0]?.content).toMatch(/^Your role is that of a meticulous instruction-following grading teacher\./);
    }
  });

  it('reads the verdict from a fenced JSON block, then a flat object, then the last five lines, else FAIL', async () => {
    const cases: [string, 'PASS' | 'FAIL', string][] = [
      [fenced('PASS', 'ok'), 'PASS', 'ok'],
      ['```\n{"result": " pass ", "explanation": "spaced"}\n```', 'PASS', 'spaced'],
      [`${fenced('FAIL', 'first')}\nthen ${fenced('PASS', 'second')}`, 'FAIL', 'first'],
      ['```json\n{oops}\n```\n{"result": "FAIL", "explanation": "flat"}', 'FAIL', 'flat'],
      // The first flat object is the only one tried: its JSON is broken, so the lines decide.
      ['{"result": "FAIL", "explanation": bad json}\n{"result": "PASS", "explanation": "second"}', 'PASS', ''],
      // Matched in any case, but read by the exact key: "Result" is no result, and the lines decide.
      ['```json\n{"result": "MAYBE"}\n```\n{"Result": "Fail"}', 'FAIL', ''],
      ['Verdict: {"RESULT": "PASS", "result": "fail", "explanation": "case-insensitive match, exact key"}', 'FAIL', 'case-insensitive match, exact key'],
      ['{"result": "PASS", "result": "FAIL"}', 'FAIL', ''],
      ['{"result": "FAIL", "result": 1}\nnot a verdict', 'FAIL', ''],
      ['{"result": "PASS", "explanation": ["a", 1]}', 'PASS', '["a", 1]'],
      ['{"result": "PASS", "explanation": null}', 'PASS', 'null'],
      ['{"result": "PASS"}', 'PASS', ''],
      ['It failed to pass.', 'PASS', ''],
      ['Looks fine.\nFAIL\nmore\nlines\nthan\nfive', 'FAIL', ''],
      ['PASS\na\nb\nc\nd\ne', 'FAIL', ''],
      ['<think>PASS</think>The criterion is not met: fail', 'FAIL', ''],
      ['paß', 'PASS', ''],
      ['', 'FAIL', ''],
    ];
    for (const [reply, verdict, explanation] of cases) {
      replies = { 'lower case': reply };
      const { body } = await verify('red; blue', { rubric: [{ id: 'C1', criteria: 'lower case' }] });
      expect({ reply, verdict: body.rubric_evaluations[0].verdict, explanation: body.rubric_evaluations[0].explanation }).toEqual({ reply, verdict, explanation });
      expect(body.reward).toBe(verdict === 'PASS' ? 1 : 0);
    }
  });

  it('takes the prompt, the reference answer and the rubric from metadata when the row leaves them empty', async () => {
    const metadata = { prompt: 'From metadata?', reference_response: 'meta ref', rubric: [{ id: 'M1', criteria: 'semicolon' }] };
    const { body } = await verify('red; blue', { prompt: '', reference_response: null, rubric: [], metadata });
    expect(body).toMatchObject({ prompt: 'From metadata?', reference_response: 'meta ref', num_total: 1, rubric_evaluations: [{ criterion_id: 'M1', criteria: 'semicolon' }] });
    expect(body.rubric_evaluations[0].judge_prompt).toBe('Q: From metadata?\nA: red; blue\nREF: meta ref\nCHECK: <semicolon>');
    // An absent id or criteria is "".
    const bare = await verify('red; blue', { rubric: [{}] });
    expect(bare.body.rubric_evaluations[0]).toMatchObject({ criterion_id: '', criteria: '' });
  });

  it("scores a row without criteria 0.0 without calling the judge, even if its template is broken (it is never filled)", async () => {
    for (const extra of [{ rubric: [] }, { rubric: null, judge_prompt_template: '{unknown} {' }, { rubric: [], metadata: { rubric: '' } }, { rubric: [], metadata: { rubric: {} } }]) {
      const { status, body } = await verify('red; blue', extra);
      expect(status).toBe(200);
      expect(body).toMatchObject({ reward: 0, num_passed: 0, num_total: 0, rubric_evaluations: [] });
    }
    expect(judge.calls).toHaveLength(0);
  });

  it('refuses with 422 naming the field what upstream fails on with 500 or refuses itself', async () => {
    const refused: [Record<string, unknown>, string][] = [
      [{ judge_prompt_template: 'Q: {prompt} {question}' }, 'body.judge_prompt_template'],
      [{ judge_prompt_template: 'Reply {"result": "PASS"} for {criteria}' }, 'body.judge_prompt_template'],
      [{ judge_prompt_template: 'Q: {0}' }, 'body.judge_prompt_template'],
      // Python fills a format spec; PromptTemplate reads only {name}, {name!s} and {name!r} (README).
      [{ judge_prompt_template: 'Q: {prompt:>10} {criteria}' }, 'body.judge_prompt_template'],
      [{ rubric: [{ id: 1, criteria: 'semicolon' }] }, 'body.rubric.0.id'],
      [{ rubric: [{ id: 'C1', criteria: null }] }, 'body.rubric.0.criteria'],
      [{ rubric: ['semicolon'] }, 'body.rubric.0'],
      [{ rubric: [], metadata: { rubric: 'semicolon' } }, 'body.metadata.rubric'],
      [{ rubric: [], metadata: { rubric: [{ criteria: 3 }] } }, 'body.metadata.rubric.0.criteria'],
      [{ prompt: '', metadata: { prompt: 42 } }, 'body.metadata.prompt'],
      [{ reference_response: '', metadata: { reference_response: null } }, 'body.metadata.reference_response'],
      [{ prompt: ['a'] }, 'body.prompt'],
      [{ judge_system_prompt: 1 }, 'body.judge_system_prompt'],
      [{ task_id: 2.5 }, 'body.task_id'],
    ];
    await expectRefused((extra) => verify('red; blue', extra), refused);
    expect(judge.calls).toHaveLength(0);
  });

  it('records an unreachable judge as a judge failure (502, NGYM_JUDGE_FAILED), not a score', async () => {
    const unreachable = await start([], { judge_model: { host: '127.0.0.1', port: 1 } });
    const { status, headers, body } = await verify('red; blue', {}, unreachable).finally(() => unreachable.close());
    expect({ status, code: headers[ERROR_CODE_HEADER] }).toEqual({ status: 502, code: 'NGYM_JUDGE_FAILED' });
    expect(JSON.stringify(body)).toMatch(/judge_model/);
  });

  it('records a judge reply that is not a Response as a judge failure too', async () => {
    const fake = await startFakeEndpoint(() => ({ body: { choices: [] } }));
    const url = new URL(fake.url);
    const broken = await start([], { judge_model: { host: url.hostname, port: Number(url.port) } });
    const { status } = await verify('red; blue', {}, broken).finally(() => Promise.all([broken.close(), fake.close()]));
    expect(status).toBe(502);
  });
});

describe('inverse_if config', () => {
  it('aggregates the criteria by aggregation_mode (weighted is the mean: criteria carry no weights)', async () => {
    const rubric = [
      { id: 'C1', criteria: 'one', weight: 5 },
      { id: 'C2', criteria: 'two' },
      { id: 'C3', criteria: 'three' },
    ];
    const rewards: Record<string, number> = {};
    for (const mode of ['mean', 'min', 'max', 'all', 'any', 'weighted']) {
      const configured = await start([key('aggregation_mode', mode), key('parallel_evaluation', 'false')]);
      try {
        replies = { one: fenced('PASS'), two: fenced('FAIL'), three: fenced('PASS') };
        rewards[mode] = (await verify('red; blue', { rubric }, configured)).body.reward;
      } finally {
        await configured.close();
      }
    }
    expect(rewards).toEqual({ mean: 2 / 3, min: 0, max: 1, all: 0, any: 1, weighted: 2 / 3 });
  });

  it('sends no system message when neither the row nor the config has one', async () => {
    const configured = await start([key('default_judge_system_prompt', '""')]);
    try {
      await verify('red; blue', { judge_system_prompt: null, rubric: [{ id: 'C1', criteria: 'semicolon' }] }, configured);
      expect(judge.calls[0]?.input.map((message) => message.role)).toEqual(['user']);
    } finally {
      await configured.close();
    }
  });

  it('refuses to start with a default template it cannot fill, or without the default judge prompts', async () => {
    await expect(start([key('default_judge_prompt_template', '"{prompt} {answer}"')])).rejects.toThrow(/default_judge_prompt_template uses the placeholder \{answer\}/);
    await expect(start([key('default_judge_system_prompt', 'null')])).rejects.toThrow(/default_judge_system_prompt/);
  });

  it('loads with upstream instance names, app.ts entrypoints and the example dataset', () => {
    const config = loadGlobalConfig({
      overrides: [CONFIG, ...['policy_model', 'judge_model'].map((model) => `+${model}={responses_api_models: {openai_model: {entrypoint: app.ts}}}`)],
      cwd: PACKAGE_ROOT,
      envYamlPath: null,
      warn: () => {},
    });
    expect(config.server('inverse_if')?.config).toMatchObject({ entrypoint: 'app.ts', judge_model_server: { type: 'responses_api_models', name: 'judge_model' }, aggregation_mode: 'mean' });
    const agent = config.server('inverse_if_simple_agent');
    expect(agent?.config.resources_server).toEqual({ type: 'resources_servers', name: 'inverse_if' });
    expect((agent?.config.datasets as { name: string; jsonl_fpath: string }[]).map((dataset) => dataset.name)).toEqual(['inverse_if_example', 'inverse_if_train']);
    expect(config.server('inverse_if_environment_server')?.config.agent_server).toEqual({ type: 'responses_api_agents', name: 'inverse_if_simple_agent' });
  });
});

describe('inverse_if example data', () => {
  it('is written by example-data.ts', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it('re-verifies data/example_rollouts.jsonl to its recorded rewards and evaluations', async () => {
    await expectExampleRolloutsReverify(gym, 'inverse_if', EXAMPLE_DATA, [1, 0.5, 2 / 3, 1 / 3, 1]);
  });
});
