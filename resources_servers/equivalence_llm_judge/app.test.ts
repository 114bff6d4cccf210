import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODE_HEADER, type Response, sharedHttpClient } from 'ngym';
import {
  assistantMessage,
  type InProcessGym,
  modelResponse,
  type ScriptedModel,
  scriptedModel,
  startFakeEndpoint,
  startInProcessGym,
} from 'ngym/testing';

const http = sharedHttpClient();
const CONFIG = '+config_paths=[resources_servers/equivalence_llm_judge/configs/equivalence_llm_judge.yaml]';
const key = (name: string, value: string) => `++equivalence_llm_judge.resources_servers.equivalence_llm_judge.${name}=${value}`;
const question = 'Which gas do plants absorb for photosynthesis?';
/**
 * Upstream 0.7.0's class defaults with the swap check on: the rescue and the length skip run. The shipped YAML
 * (0.7.0's) turns all three off; its own tests are under "the shipped config".
 */
const SWAP_AND_RESCUE = [key('check_twice_swap', 'true'), key('extraction_length_threshold', '120'), key('check_full_generation_on_fail', 'true'), key('reward_if_full_generation_succeeds', '0.5')];
const row = { responses_create_params: { input: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: `  ${question}  ` }] }, expected_answer: 'carbon dioxide' };

/** The judge's replies in call order: a text for a one-message reply, or a whole (partial) response. */
let verdicts: (string | Partial<Response>)[] = [];
let judge: ScriptedModel;
let gym: InProcessGym;

async function start(overrides: string[] = [], external?: Record<string, { host: string; port: number }>) {
  return startInProcessGym({
    overrides: [CONFIG, key('judge_model_server.name', 'judge_model'), '+judge_model.responses_api_models.scripted.entrypoint=app.ts', '+policy_model.responses_api_models.scripted.entrypoint=app.ts', ...overrides],
    definitions: { judge_model: judge.definition, policy_model: scriptedModel(() => []).definition },
    external,
  });
}

beforeAll(async () => {
  judge = scriptedModel(({ index }) => {
    const reply = verdicts[index] ?? 'no verdict';
    return typeof reply === 'string' ? [assistantMessage(reply)] : reply;
  });
  gym = await start(SWAP_AND_RESCUE);
});
afterAll(async () => gym.close());
afterEach(() => {
  judge.calls.length = 0;
  verdicts = [];
});

async function verify(text: string | Response, extra: Record<string, unknown> = {}, target: InProcessGym = gym) {
  const response = typeof text === 'string' ? modelResponse([assistantMessage(text)]) : text;
  const reply = await http.request(target.url('equivalence_llm_judge', '/verify'), { body: { ...row, ...extra, response } });
  return { status: reply.status, headers: reply.headers, body: reply.json<Record<string, any>>(), text: reply.text };
}

/** The {question, gold, candidate} the judge saw in call `index`, parsed back from the shipped prompt. */
function judged(index: number) {
  const prompt = judge.calls[index]?.input.at(-1)?.content as string;
  const match = /===== Inputs =====\nQUESTION:\n([\s\S]*)\n\nGOLD:\n([\s\S]*)\n\nCANDIDATE:\n([\s\S]*)$/.exec(prompt);
  return { question: match?.[1], gold: match?.[2], candidate: match?.[3] };
}

describe('equivalence_llm_judge with the swap check and the rescue on', () => {
  it('judges the last user question, the gold answer and the last assistant message, then confirms with a swap', async () => {
    verdicts = ['Same gas.\n\n[[A=B]] they are equivalent', 'Still the same.\n\n[[A=B]] they are equivalent'];
    const { body } = await verify('It is CO2, carbon dioxide.', { uuid: 'q1' });
    expect(body).toMatchObject({ reward: 1, expected_answer: 'carbon dioxide', uuid: 'q1' });
    expect(body.judge_evaluations.map((evaluation: any) => evaluation.verdict_label)).toEqual(['[[A=B]]', '[[A=B]]']);
    expect(judged(0)).toEqual({ question, gold: 'carbon dioxide', candidate: 'It is CO2, carbon dioxide.' });
    expect(judged(1)).toEqual({ question, gold: 'It is CO2, carbon dioxide.', candidate: 'carbon dioxide' });
    expect(judge.calls[0]?.input).toHaveLength(1);
    expect(judge.calls[0]?.input[0]?.content).toMatch(/^===== System role =====\nYou are a meticulous STEM grader\./);
  });

  it('gives reward_if_swap_fails when the swapped verdict disagrees', async () => {
    verdicts = ['[[A=B]]', '[[A!=B]]'];
    expect((await verify('oxygen')).body).toMatchObject({ reward: 0 });
    const penalized = await start([...SWAP_AND_RESCUE, key('reward_if_swap_fails', '-1.0')]);
    try {
      judge.calls.length = 0;
      verdicts = ['[[A=B]]', '[[A!=B]]'];
      expect((await verify('oxygen', {}, penalized)).body.reward).toBe(-1);
    } finally {
      await penalized.close();
    }
  });

  it('stops at a first "not equal" when the row has no regex', async () => {
    verdicts = ['[[A!=B]] they are not equivalent'];
    const { body } = await verify('oxygen');
    expect(body).toMatchObject({ reward: 0 });
    expect(body.judge_evaluations).toHaveLength(1);
    expect(body.judge_evaluations[0].verdict_label).toBe('[[A!=B]]');
  });

  it('records a null verdict label when the judge gives none', async () => {
    verdicts = ['I am not sure.'];
    const { body } = await verify('oxygen');
    expect(body).toMatchObject({ reward: 0, judge_evaluations: [{ verdict_label: null, judgement_parsing_issues: ['no_verdict'] }] });
  });

  it('uses metadata.expected_answer when expected_answer is empty', async () => {
    verdicts = ['[[A=B]]', '[[A=B]]'];
    const { body } = await verify('Na', { expected_answer: '', metadata: { expected_answer: 11 } });
    expect(body.expected_answer).toBe('11');
    expect(judged(0).gold).toBe('11');
  });
});

describe('equivalence_llm_judge per-row regexes', () => {
  const template = (output_regex: string) => ({ template_metadata: { output_regex } });

  it('judges the last match of the row regex, first non-empty group', async () => {
    verdicts = ['[[A=B]]', '[[A=B]]'];
    const { body } = await verify('Maybe ((oxygen))?\nNo: (( carbon dioxide )).', template('\\(\\((.*?)\\)\\)'));
    expect(body.reward).toBe(1);
    expect(judged(0).candidate).toBe('carbon dioxide');
  });

  it('rescues a failed regex verdict with the whole generation for partial credit', async () => {
    verdicts = ['[[A!=B]]', 'The response does say carbon dioxide. [[A=B]]'];
    const text = '**Short answer:** it is carbon dioxide.';
    const { body } = await verify(text, template('\\*\\*(.*?)\\*\\*'));
    expect(body.reward).toBe(0.5);
    expect(judged(0).candidate).toBe('Short answer:');
    expect(judged(1).candidate).toBe(text);

    judge.calls.length = 0;
    verdicts = ['[[A!=B]]', '[[A!=B]]'];
    expect((await verify(text, template('\\*\\*(.*?)\\*\\*'))).body).toMatchObject({ reward: 0, judge_evaluations: [{}, {}] });
  });

  it('keeps the whole text when the regex finds nothing, or when Python would reject it', async () => {
    verdicts = ['[[A=B]]', '[[A=B]]'];
    await verify('carbon dioxide, no tags', template('<final_answer>(.+?)</final_answer>'));
    expect(judged(0).candidate).toBe('carbon dioxide, no tags');
    judge.calls.length = 0;
    verdicts = ['[[A=B]]', '[[A=B]]'];
    await verify('carbon dioxide', template('(?<bad>x)'));
    expect(judged(0).candidate).toBe('carbon dioxide');
  });

  it('skips the regex, the rescue and the swap for a gold answer over extraction_length_threshold', async () => {
    const long = 'Plants absorb carbon dioxide from the air through their stomata and fix it in the Calvin cycle, releasing oxygen as a by-product of splitting water.';
    expect(long.length).toBeGreaterThan(120);
    verdicts = ['[[A!=B]]'];
    const failed = await verify('((oxygen)) is released', { expected_answer: long, ...template('\\(\\((.*?)\\)\\)') });
    expect(failed.body).toMatchObject({ reward: 0, judge_evaluations: [{}] });
    expect(judged(0).candidate).toBe('((oxygen)) is released');

    judge.calls.length = 0;
    verdicts = ['[[A=B]]'];
    const passed = await verify('((carbon dioxide))', { expected_answer: long, ...template('\\(\\((.*?)\\)\\)') });
    expect(passed.body).toMatchObject({ reward: 1, judge_evaluations: [{}] });
  });

  it('fails with 422 naming a regex construct it cannot run', async () => {
    const { status, body } = await verify('carbon dioxide', template('(?>atomic)'));
    expect(status).toBe(422);
    expect(body.detail).toMatch(/atomic group/);
    expect(judge.calls).toHaveLength(0);
  });
});

describe('equivalence_llm_judge config', () => {
  it('applies response_extract_regex and question_extract_regex, and a system message', async () => {
    const configured = await start([
      key('response_extract_regex', '"^Answer:\\s*([^\\n]*)$"'),
      key('question_extract_regex', '"photosynthesis"'),
      key('judge_system_message', '"You grade answers."'),
      key('check_twice_swap', 'false'),
    ]);
    try {
      verdicts = ['[[A=B]]'];
      const { body } = await verify('Let me think.\nAnswer: carbon dioxide\nDone.', {}, configured);
      expect(body).toMatchObject({ reward: 1, judge_evaluations: [{}] });
      expect(judge.calls[0]?.input[0]).toEqual({ role: 'system', content: 'You grade answers.', type: 'message' });
      expect(judged(0)).toMatchObject({ question: 'photosynthesis', candidate: 'carbon dioxide' });
    } finally {
      await configured.close();
    }
  });

  it('refuses to start with a prompt placeholder it cannot fill or an untranslatable regex', async () => {
    await expect(start([key('judge_prompt_template', '"Q: {question} A: {answer}"'), key('judge_prompt_template_fpath', 'null')])).rejects.toThrow(/uses the placeholder \{answer\}/);
    await expect(start([key('response_extract_regex', '"a++"')])).rejects.toThrow(/response_extract_regex: Unsupported Python regex .*possessive/);
  });

  it('takes an inline judge_prompt_template in place of the shipped file, and refuses both keys at once', async () => {
    const inline = await start([key('judge_prompt_template', '"Is {generated_answer!r} the same as {expected_answer}?"'), key('judge_prompt_template_fpath', 'null')]);
    try {
      verdicts = ['[[A=B]]', '[[A=B]]'];
      await verify('CO2', {}, inline);
      expect(judge.calls[0]?.input.at(-1)?.content).toBe("Is 'CO2' the same as carbon dioxide?");
    } finally {
      await inline.close();
    }
    await expect(start([key('judge_prompt_template', '"{question}"')])).rejects.toThrow(/judge_prompt_template and judge_prompt_template_fpath are both set/);
  });

  it('records a failed judge call as a judge failure (502, NGYM_JUDGE_FAILED)', async () => {
    const fake = await startFakeEndpoint(() => ({ body: { not: 'a response' } }));
    const url = new URL(fake.url);
    const broken = await start([], { judge_model: { host: url.hostname, port: Number(url.port) } });
    try {
      const result = await verify('carbon dioxide', {}, broken);
      expect(result.status).toBe(502);
      expect(result.headers[ERROR_CODE_HEADER]).toBe('NGYM_JUDGE_FAILED');
      expect(result.body).toMatch(/not a Response/);
    } finally {
      await broken.close();
      await fake.close();
    }
  });
});

describe('equivalence_llm_judge example data', () => {
  it('re-verifies data/example_rollouts.jsonl, replaying the recorded judge replies', async () => {
    const recordings = readFileSync(new URL('./data/example_rollouts.jsonl', import.meta.url), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    expect(recordings.map((recorded) => recorded.reward)).toEqual([1, 1, 0, 0.5, 0]);
    for (const recorded of recordings) {
      judge.calls.length = 0;
      verdicts = recorded.judge_evaluations.map((evaluation: any) => evaluation.response.output[0].content[0].text);
      const { reward, judge_evaluations, ...rest } = recorded;
      // Recorded with the swap check and the rescue on (upstream's class defaults): `gym` runs with them.
    const reply = await http.request(gym.url('equivalence_llm_judge', '/verify'), { body: rest });
      const body = reply.json<Record<string, any>>();
      expect(body.reward).toBe(reward);
      expect(body.judge_evaluations.map((evaluation: any) => evaluation.responses_create_params)).toEqual(judge_evaluations.map((evaluation: any) => evaluation.responses_create_params));
    }
  });
});

describe('equivalence_llm_judge with the shipped config (NeMo Gym 0.7.0)', () => {
  let shipped: InProcessGym;
  beforeAll(async () => {
    shipped = await start();
  });
  afterAll(async () => shipped?.close());
  const send = (text: string | Response, extra: Record<string, unknown> = {}) => verify(text, extra, shipped);

  it('judges once: no swap check, no rescue of a failed per-row regex, no length skip', async () => {
    verdicts = ['[[A=B]]'];
    expect((await send('((carbon dioxide))')).body).toMatchObject({ reward: 1, judge_evaluations: [{ verdict_label: '[[A=B]]' }] });
    expect(judge.calls).toHaveLength(1);

    judge.calls.length = 0;
    verdicts = ['[[A!=B]]', '[[A=B]]'];
    const long = `carbon dioxide${' and the reasons for it'.repeat(8)}`;
    const { body } = await send('So: ((carbon dioxide)) it is.', { expected_answer: long, template_metadata: { output_regex: '\\(\\((.*?)\\)\\)' } });
    expect(body).toMatchObject({ reward: 0, judge_evaluations: [{}] });
    expect(body.judge_evaluations).toHaveLength(1);
    // The regex applies whatever the gold answer's length (extraction_length_threshold is null).
    expect(judged(0).candidate).toBe('carbon dioxide');
  });

  it('scores an empty final answer 0 without calling the judge, with failure_reason empty_final_answer', async () => {
    const reasoning = { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'carbon dioxide' }] } as any;
    for (const response of [modelResponse([assistantMessage('  \n ')]), modelResponse([reasoning]), modelResponse([])]) {
      const { body } = await send(response);
      expect(body).toMatchObject({ reward: 0, expected_answer: 'carbon dioxide', judge_evaluations: [], failure_reason: 'empty_final_answer' });
    }
    expect(judge.calls).toHaveLength(0);
  });

  it('scores a final answer over max_answer_chars 0 without calling the judge; thinking does not count', async () => {
    const limited = await start([key('max_answer_chars', '10')]);
    try {
      const long = await verify('carbon dioxide', {}, limited);
      expect(long.body).toMatchObject({ reward: 0, judge_evaluations: [], failure_reason: 'final_answer_too_long: 14 characters exceeds 10' });
      expect(judge.calls).toHaveLength(0);
      verdicts = ['[[A=B]]'];
      const reasoning = { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'a long chain of thought '.repeat(5) }] } as any;
      // Code points, as Python's len(): four emoji are four characters.
      const short = await verify(modelResponse([reasoning, assistantMessage('  CO₂ 🌿🌿🌿🌿  ')]), {}, limited);
      expect(short.body).toMatchObject({ reward: 1, judge_evaluations: [{}] });
      expect(short.body.failure_reason ?? null).toBeNull();
    } finally {
      await limited.close();
    }
  });

  it('takes the last verdict label in the reply and records what was wrong with it', async () => {
    const cases: [string | Partial<Response>, number, string | null, string[] | undefined][] = [
      ['[[A!=B]] at first, but on reflection [[A=B]]', 1, '[[A=B]]', ['conflicting_verdicts']],
      ['[[A=B]] at first, but on reflection [[A!=B]]', 0, '[[A!=B]]', ['conflicting_verdicts']],
      ['[[A=B]] ... [[A=B]]', 1, '[[A=B]]', ['repeated_verdict']],
      ['[[A=B]] [[A!=B]] [[A!=B]]', 0, '[[A!=B]]', ['conflicting_verdicts', 'repeated_verdict']],
      ['[[A=B]] they are equivalent', 1, '[[A=B]]', undefined],
      [{ output: [assistantMessage('Thinking about it')], status: 'incomplete' }, 0, null, ['truncated_judge_output', 'no_verdict']],
      [{ output: [{ type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' } as any], status: 'incomplete' }, 0, null, ['truncated_judge_output', 'unparseable_judge_output']],
      [{ output: [] }, 0, null, ['unparseable_judge_output']],
    ];
    for (const [reply, reward, label, issues] of cases) {
      judge.calls.length = 0;
      verdicts = [reply];
      const { body } = await send('carbon dioxide');
      expect({ reward: body.reward, label: body.judge_evaluations[0].verdict_label, issues: body.judge_evaluations[0].judgement_parsing_issues }).toEqual({ reward, label, issues });
      // No issues: the key is left out, as upstream serializes it.
      if (issues === undefined) expect(Object.keys(body.judge_evaluations[0])).not.toContain('judgement_parsing_issues');
    }
  });

  it('reads one label inside the other once (INCORRECT is not also CORRECT)', async () => {
    const labelled = await start([key('judge_equal_label', 'CORRECT'), key('judge_not_equal_label', 'INCORRECT')]);
    try {
      verdicts = ['Grade: INCORRECT'];
      const { body } = await verify('oxygen', {}, labelled);
      expect(body).toMatchObject({ reward: 0, judge_evaluations: [{ verdict_label: 'INCORRECT' }] });
      expect(body.judge_evaluations[0].judgement_parsing_issues).toBeUndefined();
    } finally {
      await labelled.close();
    }
  });

  it('answers /aggregate_metrics with judgement_parsing_issue_rate, re-reading saved replies with its own labels', async () => {
    const saved = (text: string) => ({ reward: 1, judge_evaluations: [{ verdict_label: null, response: { status: 'completed', output: [assistantMessage(text)] } }] });
    const recorded = { reward: 0, judge_evaluations: [{ verdict_label: null, judgement_parsing_issues: ['conflicting_verdicts'] }] };
    const rows = [saved('Grade: CORRECT'), saved('[[A=B]] and again [[A=B]]'), recorded].map((row, index) => ({ ...row, _ng_task_index: index, _ng_rollout_index: 0 }));
    const metricsOf = async (target: InProcessGym) => (await http.request(target.url('equivalence_llm_judge', '/aggregate_metrics'), { body: { verify_responses: rows } })).json<Record<string, any>>();
    const parsing = (metrics: Record<string, unknown>) => Object.fromEntries(Object.entries(metrics).filter(([name]) => name.startsWith('judgement_parsing_issue_rate')));
    const labelled = await start([key('judge_equal_label', 'CORRECT'), key('judge_not_equal_label', 'INCORRECT')]);
    try {
      const theirs = await metricsOf(labelled);
      // CORRECT / INCORRECT: the first reply has a verdict, the second none.
      expect(parsing(theirs.agent_metrics)).toEqual({
        judgement_parsing_issue_rate: 2 / 3,
        'judgement_parsing_issue_rate/conflicting_verdicts': 1 / 3,
        'judgement_parsing_issue_rate/no_verdict': 1 / 3,
      });
      expect(theirs.key_metrics).toEqual({ 'mean/reward': 2 / 3, judgement_parsing_issue_rate: 2 / 3 });
    } finally {
      await labelled.close();
    }
    const ours = await metricsOf(shipped);
    expect(parsing(ours.agent_metrics)).toEqual({
      judgement_parsing_issue_rate: 1,
      'judgement_parsing_issue_rate/conflicting_verdicts': 1 / 3,
      'judgement_parsing_issue_rate/no_verdict': 1 / 3,
      'judgement_parsing_issue_rate/repeated_verdict': 1 / 3,
    });
    expect(ours.key_metrics).toEqual({ 'mean/reward': 2 / 3, judgement_parsing_issue_rate: 1 });
  });

  it('judges all text parts of the last assistant message joined, and a multimodal question', async () => {
    verdicts = ['[[A=B]]'];
    const message = assistantMessage('It is') as any;
    message.content.push({ ...message.content[0], text: '' }, { ...message.content[0], text: ' carbon dioxide. ' });
    const input = [{ role: 'user', content: [{ type: 'input_text', text: 'Look at the leaf.' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' }, { type: 'input_text', text: question }] }];
    await send(modelResponse([assistantMessage('Draft: oxygen'), message]), { responses_create_params: { input } });
    expect(judged(0)).toEqual({ question: `Look at the leaf.\n${question}`, gold: 'carbon dioxide', candidate: 'It is\n\n carbon dioxide.' });
  });
});
