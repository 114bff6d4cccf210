import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODE_HEADER, type Response, sharedHttpClient } from 'ngym';
import { loadGlobalConfig, PACKAGE_ROOT } from 'ngym/runtime';
import { assistantMessage, type InProcessGym, modelResponse, readJsonlRows, scriptedModel, startFakeEndpoint, startInProcessGym } from 'ngym/testing';
import { EXAMPLE_DATA, exampleRows, judgeReply } from './example-data.ts';
import { expectExampleRolloutsReverify, expectRefused } from './test-helpers.ts';

const http = sharedHttpClient();
const CONFIG = '+config_paths=[resources_servers/multichallenge/configs/multichallenge.yaml]';
const key = (name: string, value: string) => `++multichallenge.resources_servers.multichallenge.${name}=${value}`;

/** The judge's reply to each question (by the question's text); a question without one gets no verdict at all. */
let replies: Record<string, string | Partial<Response>> = {};
/** Awaited by every judge call before it answers (a test holds calls to see how many are in flight at once). */
let hold: () => Promise<void> = async () => {};
let inFlight = 0;
let peakInFlight = 0;
const judge = scriptedModel(async ({ input }) => {
  inFlight += 1;
  peakInFlight = Math.max(peakInFlight, inFlight);
  await hold();
  inFlight -= 1;
  const prompt = String(input.at(-1)?.content);
  const question = /EVALUATION QUESTION:\n([\s\S]*?)\n\nEXPECTED ANSWER/.exec(prompt)?.[1] ?? '';
  const reply = replies[question] ?? judgeReply(prompt) ?? 'I cannot tell.';
  return typeof reply === 'string' ? [assistantMessage(reply)] : reply;
});

async function start(overrides: string[] = [], external?: Record<string, { host: string; port: number }>) {
  return startInProcessGym({
    overrides: [CONFIG, '+policy_model.responses_api_models.scripted.entrypoint=app.ts', ...overrides],
    definitions: { policy_model: judge.definition },
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
  hold = async () => {};
  peakInFlight = 0;
});

const conversation = [
  { role: 'user', content: 'I am allergic to sesame.' },
  { role: 'assistant', content: 'Noted, no sesame.' },
  { role: 'user', content: 'Suggest a snack.' },
];
const row = {
  responses_create_params: { input: conversation },
  rubric: [
    { question: 'Does it avoid sesame?', pass_criteria: 'YES' },
    { question: 'Does it suggest hummus or tahini?', pass_criteria: 'NO' },
  ],
  context: '[USER]: I am allergic to sesame.\n\n[ASSISTANT]: Noted, no sesame.\n\n[USER]: Suggest a snack.',
};

async function verify(answer: string | Response, extra: Record<string, unknown> = {}, target: InProcessGym = gym) {
  const response = typeof answer === 'string' ? modelResponse([assistantMessage(answer)]) : answer;
  const reply = await http.request(target.url('multichallenge', '/verify'), { body: { ...row, ...extra, response } });
  return { status: reply.status, headers: reply.headers, body: reply.json<Record<string, any>>() };
}

const prompts = () => judge.calls.map((call) => String(call.input.at(-1)?.content));

describe('multichallenge with the shipped config', () => {
  it('judges each rubric item on the conversation and the final answer without its reasoning; the reward is the mean', async () => {
    replies = { 'Does it avoid sesame?': 'Apple slices have no sesame.\n\n[[YES]]', 'Does it suggest hummus or tahini?': 'No hummus is suggested.\n[[NO]]' };
    const { status, body } = await verify('<think>no sesame, no hummus</think>\n Apple slices with peanut butter. ', { uuid: 'mc-1', metadata: { topic: 'Food' } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ reward: 1, num_passed: 2, num_total: 2, aggregation_mode: 'mean', generated_response: 'Apple slices with peanut butter.', context: row.context, uuid: 'mc-1', metadata: { topic: 'Food' } });
    // Upstream's answer leaves the rubric out; its evaluations replace it.
    expect(body).not.toHaveProperty('rubric');
    const [first] = body.rubric_evaluations;
    expect(Object.keys(first)).toEqual(['question', 'pass_criteria', 'judge_prompt', 'judge_response', 'verdict', 'score', 'weight']);
    expect(first).toMatchObject({ question: 'Does it avoid sesame?', pass_criteria: 'YES', judge_response: 'Apple slices have no sesame.\n\n[[YES]]', verdict: 'YES', score: 1, weight: 1 });
    expect(first.judge_prompt).toBe(
      `You are evaluating whether a model's response meets a specific criterion.\n\nCONVERSATION CONTEXT:\n${row.context}\n\nMODEL'S FINAL RESPONSE:\nApple slices with peanut butter.\n\nEVALUATION QUESTION:\nDoes it avoid sesame?\n\nEXPECTED ANSWER: YES\n\nDoes the model's response satisfy the criterion described in the evaluation question?\nThink step by step, then respond with exactly [[YES]] or [[NO]] on the last line.`,
    );
    expect(body.rubric_evaluations[1]).toMatchObject({ verdict: 'NO', score: 1 });
    const call = judge.calls[0];
    expect(call?.input.map((message) => message.role)).toEqual(['system', 'user']);
    expect(call?.input[0]?.content).toBe('You are a precise evaluator. Assess responses objectively based on the given criteria. Analyze the response carefully against the evaluation question.');
    expect(call?.params).toMatchObject({ max_output_tokens: 8192, temperature: 0.7, top_p: 0.8 });
  });

  it('judges the items of a rubric all at once', async () => {
    // Each call waits until both items' calls are in flight: judged one after another, this would never finish.
    let release: () => void = () => {};
    const bothArrived = new Promise<void>((resolve) => (release = resolve));
    hold = async () => {
      if (inFlight === 2) release();
      await bothArrived;
    };
    const { body } = await verify('Rice cakes.');
    expect(body.num_total).toBe(2);
    expect(peakInFlight).toBe(2);
  });

  it('takes the label found last, else YES in the last line, else no; pass_criteria NO wants a no', async () => {
    const cases: [string, 'YES' | 'NO'][] = [
      ['[[NO]] at first, but [[YES]]', 'YES'],
      ['[[YES]] at first, but [[NO]] in the end', 'NO'],
      ['[[YES]], then [[NO]], then [[YES]] again', 'YES'],
      ['[[NO]], then [[YES]], then [[NO]] again', 'NO'],
      ['Thinking it over.\nyes, it does', 'YES'],
      ['Thinking it over.\nNot yes: NO', 'YES'],
      ['YES it does.\nNo.', 'NO'],
      ['No verdict here', 'NO'],
      ['<think>[[NO]]</think>[[YES]]', 'YES'],
      ['The answer is [[YES]].\n<think>second thoughts [[NO]]', 'NO'],
    ];
    for (const [reply, verdict] of cases) {
      replies = { 'Does it avoid sesame?': reply, 'Does it suggest hummus or tahini?': reply };
      const { body } = await verify('Rice cakes.');
      expect({ reply, verdicts: body.rubric_evaluations.map((evaluation: any) => evaluation.verdict) }).toEqual({ reply, verdicts: [verdict, verdict] });
      expect(body.reward).toBe(0.5);
    }
  });

  it('strips reasoning from the answer: paired tags, and everything up to a closing tag without its opening one', async () => {
    const answers: [string | Response, string][] = [
      ['<thinking>plan</thinking>Rice cakes.<think>more</think>', 'Rice cakes.'],
      ['plan first, the template opened the tag</think>\n\nRice cakes.', 'Rice cakes.'],
      [modelResponse([assistantMessage('Draft: hummus.'), assistantMessage('  Rice cakes.  ')]), 'Rice cakes.'],
      [modelResponse([assistantMessage('Rice'), { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' } as any]), 'Rice'],
      [modelResponse([assistantMessage('', { content: [{ type: 'output_text', text: 'Rice', annotations: [] }, { type: 'refusal', refusal: 'no' }, { type: 'output_text', text: 'cakes.', annotations: [] }] } as any)]), 'Rice\ncakes.'],
      [modelResponse([{ id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'hummus' }] } as any]), ''],
      [modelResponse([]), ''],
    ];
    for (const [answer, generated] of answers) {
      const { body } = await verify(answer);
      expect(body.generated_response).toBe(generated);
      expect(prompts().at(-1)).toContain(`MODEL'S FINAL RESPONSE:\n${generated}\n\nEVALUATION QUESTION`);
    }
  });

  it('builds the context from metadata.messages when the row has none, and takes the rubric from metadata when the row has none', async () => {
    const metadata = {
      messages: [{ role: 'user', content: 'Hi' }, { role: 'thinking', content: 'hidden' }, { content: ['a', 1, null, true] }, { role: 'assistant', content: { text: "it's" } }, { role: 'tool' }],
      rubric: [{ question: 'From metadata?' }],
    };
    const { body } = await verify('Rice cakes.', { context: '', rubric: [], metadata });
    expect(body.context).toBe("[USER]: Hi\n\n[UNKNOWN]: ['a', 1, None, True]\n\n[ASSISTANT]: {'text': \"it's\"}\n\n[TOOL]: ");
    expect(body.rubric_evaluations).toHaveLength(1);
    expect(body.rubric_evaluations[0]).toMatchObject({ question: 'From metadata?', pass_criteria: 'YES', weight: 1 });
    // A row's own non-empty context and rubric win over metadata's.
    const own = await verify('Rice cakes.', { metadata });
    expect(own.body.context).toBe(row.context);
    expect(own.body.num_total).toBe(2);
  });

  it('scores a rubric with no items 0.0 without calling the judge (none, empty, or an empty string or object in metadata)', async () => {
    for (const extra of [{ rubric: [] }, { rubric: null }, { rubric: [], metadata: { rubric: '' } }, { rubric: [], metadata: { rubric: {} } }, { rubric: undefined, metadata: {} }]) {
      const { status, body } = await verify('Rice cakes.', extra);
      expect(status).toBe(200);
      expect(body).toMatchObject({ reward: 0, num_passed: 0, num_total: 0, rubric_evaluations: [] });
    }
    expect(judge.calls).toHaveLength(0);
  });

  it('refuses with 422 naming the field what upstream fails on with 500 or refuses itself', async () => {
    const refused: [Record<string, unknown>, string][] = [
      [{ rubric: [{ question: 7 }] }, 'body.rubric.0.question'],
      [{ rubric: [{ question: 'q', pass_criteria: null }] }, 'body.rubric.0.pass_criteria'],
      [{ rubric: [{ question: 'q', weight: 'heavy' }] }, 'body.rubric.0.weight'],
      [{ rubric: ['Does it avoid sesame?'] }, 'body.rubric.0'],
      [{ rubric: { question: 'q' } }, 'body.rubric'],
      [{ rubric: [], metadata: { rubric: 'Does it avoid sesame?' } }, 'body.metadata.rubric'],
      [{ rubric: [], metadata: { rubric: [{ question: null }] } }, 'body.metadata.rubric.0.question'],
      [{ context: '', metadata: { messages: [{ role: null, content: 'x' }] } }, 'body.metadata.messages.0.role'],
      [{ context: '', metadata: { messages: 'hello' } }, 'body.metadata.messages'],
      [{ context: 5 }, 'body.context'],
      [{ metadata: ['a'] }, 'body.metadata'],
      [{ task_id: 'seven' }, 'body.task_id'],
      [{ uuid: 1.5 }, 'body.uuid'],
    ];
    await expectRefused((extra) => verify('Rice cakes.', extra), refused);
    expect(judge.calls).toHaveLength(0);
  });

  it("accepts the id and weight forms upstream's pydantic model accepts; an infinite weight is written null, as upstream does", async () => {
    const { status, body } = await verify('Rice cakes.', { uuid: 3, task_id: ' 1_0 ', rubric: [{ question: 'a', weight: '2.5' }, { question: 'b', weight: true }, { question: 'c', weight: ' 1e1 ' }, { question: 'd', weight: '-inf' }] });
    expect(status).toBe(200);
    expect(body.rubric_evaluations.map((evaluation: any) => evaluation.weight)).toEqual([2.5, 1, 10, null]);
    expect(body.reward).toBeTypeOf('number');
  });

  it('records a failed judge call as a judge failure (502, NGYM_JUDGE_FAILED), not a score', async () => {
    const fake = await startFakeEndpoint(() => ({ status: 503, body: { detail: 'overloaded' } }));
    const url = new URL(fake.url);
    const broken = await start([], { policy_model: { host: url.hostname, port: Number(url.port) } });
    try {
      const { status, headers } = await verify('Rice cakes.', {}, broken);
      expect(status).toBe(502);
      expect(headers[ERROR_CODE_HEADER]).toBe('NGYM_JUDGE_FAILED');
    } finally {
      await broken.close();
      await fake.close();
    }
  });
});

describe('multichallenge config', () => {
  const scoresUnder = async (overrides: string[], items: Record<string, unknown>[], verdicts: string[]) => {
    const configured = await start(overrides);
    try {
      replies = Object.fromEntries(items.map((item, index) => [String(item.question), verdicts[index] as string]));
      return (await verify('Rice cakes.', { rubric: items }, configured)).body;
    } finally {
      await configured.close();
    }
  };
  const items = [
    { question: 'q1', weight: 3 },
    { question: 'q2', weight: 1 },
    { question: 'q3', weight: 0 },
  ];

  it('aggregates the items by aggregation_mode', async () => {
    const verdicts = ['[[YES]]', '[[NO]]', '[[YES]]'];
    const rewards: Record<string, number> = {};
    for (const mode of ['mean', 'min', 'max', 'all', 'any', 'weighted']) rewards[mode] = (await scoresUnder([key('aggregation_mode', mode)], items, verdicts)).reward;
    expect(rewards).toEqual({ mean: 2 / 3, min: 0, max: 1, all: 0, any: 1, weighted: 0.75 });
    expect((await scoresUnder([key('aggregation_mode', 'weighted')], [{ question: 'q1', weight: 0 }], ['[[YES]]'])).reward).toBe(0);
    // Upstream's weighted mean of an infinite weight is NaN, answered as a null reward: refused here, naming the weight.
    const infinite = await scoresUnder([key('aggregation_mode', 'weighted')], [{ question: 'q1' }, { question: 'q2', weight: 'inf' }], []);
    expect(infinite.detail.map((detail: any) => detail.loc.join('.'))).toEqual(['body.rubric.1.weight']);
    expect((await scoresUnder([key('aggregation_mode', 'all')], items, ['[[YES]]', '[[YES]]', '[[YES]]'])).reward).toBe(1);
    expect((await scoresUnder([key('aggregation_mode', 'any')], items, ['[[NO]]', '[[NO]]', 'no label'])).reward).toBe(0);
  });

  it('judges one item after another without parallel_evaluation, with its own template, labels and no system message', async () => {
    // Each call lets the event loop turn a few times, when a second call judged at the same time would arrive.
    hold = async () => {
      for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    };
    const body = await scoresUnder(
      [key('parallel_evaluation', 'false'), key('judge_system_message', 'null'), key('judge_prompt_template', '"Q={question!r} ({pass_criteria}) A={response}"'), key('yes_label', 'PASS'), key('no_label', 'FAIL')],
      [{ question: 'first' }, { question: 'second' }, { question: 'third' }],
      [],
    );
    expect(prompts()).toEqual(["Q='first' (YES) A=Rice cakes.", "Q='second' (YES) A=Rice cakes.", "Q='third' (YES) A=Rice cakes."]);
    expect(peakInFlight).toBe(1);
    expect(judge.calls[0]?.input.map((message) => message.role)).toEqual(['user']);
    // The template has no EVALUATION QUESTION section, so every reply is the default one, without a label.
    expect(body.rubric_evaluations.map((evaluation: any) => evaluation.verdict)).toEqual(['NO', 'NO', 'NO']);
  });

  it('refuses to start with a template placeholder it cannot fill, or an unknown aggregation mode', async () => {
    await expect(start([key('judge_prompt_template', '"{question} {answer}"')])).rejects.toThrow(/judge_prompt_template uses the placeholder \{answer\}/);
    await expect(start([key('judge_prompt_template', '"{question} {"')])).rejects.toThrow(/judge_prompt_template: Single '\{'/);
    await expect(start([key('aggregation_mode', 'median')])).rejects.toThrow(/aggregation_mode/);
  });

  it('loads both configs with upstream instance names, app.ts entrypoints and the example dataset', () => {
    for (const [file, maxTokens] of [['multichallenge', 8192], ['multichallenge_nrl', 512]] as const) {
      const config = loadGlobalConfig({
        overrides: [`+config_paths=[resources_servers/multichallenge/configs/${file}.yaml]`, '+policy_model={responses_api_models: {openai_model: {entrypoint: app.ts}}}'],
        cwd: PACKAGE_ROOT,
        envYamlPath: null,
        warn: () => {},
      });
      expect(config.server('multichallenge')?.config).toMatchObject({ entrypoint: 'app.ts', judge_responses_create_params: { max_output_tokens: maxTokens } });
      const agent = config.server('multichallenge_simple_agent');
      expect(agent?.config.resources_server).toEqual({ type: 'resources_servers', name: 'multichallenge' });
      expect((agent?.config.datasets as { name: string; jsonl_fpath: string }[]).find((dataset) => dataset.name === 'multichallenge_example')?.jsonl_fpath).toBe('resources_servers/multichallenge/data/example.jsonl');
      expect(config.server('multichallenge_environment_server')?.config.agent_server).toEqual({ type: 'responses_api_agents', name: 'multichallenge_simple_agent' });
    }
  });
});

describe('multichallenge example data', () => {
  it('is written by example-data.ts', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it('re-verifies data/example_rollouts.jsonl to its recorded rewards and evaluations', async () => {
    await expectExampleRolloutsReverify(gym, 'multichallenge', EXAMPLE_DATA, [1, 0.5, 2 / 3, 0, 1]);
  });

  it('keeps the rollouts in the order of the rows', () => {
    expect(readJsonlRows(EXAMPLE_DATA.rolloutsPath).map((rollout) => rollout.uuid)).toEqual(readJsonlRows(EXAMPLE_DATA.examplePath).map((row) => row.uuid));
  });
});
