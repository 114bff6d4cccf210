import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODE_HEADER, type ResponseItem, sharedHttpClient } from 'ngym';
import { assistantMessage, functionCall, type InProcessGym, modelResponse, readJsonlRows, scriptedModel, startInProcessGym } from 'ngym/testing';
import { CONFIG_PATH, DATA_DIR, EXAMPLE_TASKS, exampleRows, scriptFor } from './example-data.ts';

const http = sharedHttpClient();
const row = {
  responses_create_params: { input: [{ role: 'user', content: 'What is the capital of France?' }] },
  id: 'q1',
  question: 'What is the capital of France?',
  answer: 'Paris',
};

/** What the judge answers next: a text, or output items. */
let judgeReply: () => string | ResponseItem[] = () => 'A';
const judge = scriptedModel(() => {
  const reply = judgeReply();
  return typeof reply === 'string' ? [assistantMessage(reply)] : reply;
});
const judgeRef = { type: 'responses_api_models', name: 'judge' };
const server = (keys: Record<string, unknown> = {}) => ({
  abstention: {
    resources_servers: {
      abstention: { entrypoint: 'app.ts', domain: 'knowledge', judge_model_server: judgeRef, judge_responses_create_params: { input: [], max_output_tokens: 64, temperature: 0.0 }, ...keys },
    },
  },
  judge: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
});

let gym: InProcessGym;
let customGym: InProcessGym;
const CUSTOM_TEMPLATE = 'Q={question} | T={target} | P={predicted_answer!r} {{literal braces}}';
beforeAll(async () => {
  [gym, customGym] = await Promise.all([
    startInProcessGym({ config: server(), definitions: { judge: judge.definition } }),
    startInProcessGym({
      config: server({ abstention_token: "I don't know", abstention_reward: 0.25, correct_reward: 2.0, incorrect_reward: -1.0, judge_prompt_template: CUSTOM_TEMPLATE }),
      definitions: { judge: judge.definition },
    }),
  ]);
});
afterAll(async () => Promise.all([gym?.close(), customGym?.close()]));
beforeEach(() => {
  judgeReply = () => 'A';
});

async function verify(output: string | ResponseItem[], extra: Record<string, unknown> = {}, on: InProcessGym = gym) {
  const items = typeof output === 'string' ? [assistantMessage(output)] : output;
  const reply = await http.request(on.url('abstention', '/verify'), { body: { ...row, ...extra, response: modelResponse(items) } });
  return { status: reply.status, headers: reply.headers, body: reply.json<Record<string, any>>() };
}

async function scored(output: string | ResponseItem[], extra: Record<string, unknown> = {}, on: InProcessGym = gym) {
  const { status, body } = await verify(output, extra, on);
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}

/** The judge prompt of the last judge call. */
const lastPrompt = () => (judge.calls.at(-1)?.input[0] as { content: string }).content;

describe('abstention: the abstention token', () => {
  it('earns abstention_reward without asking the judge', async () => {
    const calls = judge.calls.length;
    expect(await scored("I'm not sure. \\boxed{[IDK]}")).toMatchObject({
      reward: 0.5,
      extracted_answer: '[IDK]',
      ground_truth: 'Paris',
      verdict: 'abstain',
      judge_output: null,
      is_correct: 0,
      is_abstain: 1,
      is_incorrect: 0,
      omniscience_index: 0,
      id: 'q1',
      question: row.question,
      answer: 'Paris',
    });
    expect(judge.calls.length).toBe(calls);
  });

  it('is compared after SQuAD normalisation: case, articles and punctuation do not count', async () => {
    for (const text of ['\\boxed{idk}', '\\boxed{ The IDK. }', '\\boxed{[I.D.K]}', 'IDK', '<think>unsure</think>[idk]']) {
      expect((await scored(text)).verdict, text).toBe('abstain');
    }
    const calls = judge.calls.length;
    expect(await scored('\\boxed{I do not know}')).toMatchObject({ verdict: 'correct', judge_output: 'A' });
    expect(judge.calls.length).toBe(calls + 1);
  });

  it('follows the configured token and rewards', async () => {
    expect(await scored("\\boxed{I don't know}", {}, customGym)).toMatchObject({ reward: 0.25, verdict: 'abstain', judge_output: null });
    expect(await scored('\\boxed{i dont know!}', {}, customGym)).toMatchObject({ reward: 0.25, verdict: 'abstain' });
    expect((await scored('\\boxed{[IDK]}', {}, customGym)).verdict).toBe('correct');
    judgeReply = () => 'B';
    expect(await scored('\\boxed{Lyon}', {}, customGym)).toMatchObject({ reward: -1, verdict: 'incorrect', omniscience_index: -1 });
    judgeReply = () => 'A';
    expect(await scored('\\boxed{Paris}', {}, customGym)).toMatchObject({ reward: 2, verdict: 'correct', omniscience_index: 1 });
  });
});

describe('abstention: the judge', () => {
  it('maps A, B and C to correct, incorrect and abstain', async () => {
    const expected = { A: [1, 'correct', 1], B: [0, 'incorrect', -1], C: [0.5, 'abstain', 0] } as const;
    for (const [grade, [reward, verdict, index]] of Object.entries(expected)) {
      judgeReply = () => grade;
      expect(await scored('The answer is \\boxed{Paris}')).toMatchObject({ reward, verdict, judge_output: grade, omniscience_index: index, extracted_answer: 'Paris' });
    }
  });

  it('reads the grade as upstream: the whole reply, its last line, else the first of A, B, C in it, else B', async () => {
    const grades: [string, string][] = [
      ['  C  ', 'abstain'],
      ['Reasoning first.\nA', 'correct'],
      ['A\nB', 'incorrect'],
      ['The grade is C based on analysis', 'abstain'],
      // Upstream's letter search: "CORRECT" holds a C (not attempted), "NOT_ATTEMPTED" an A (correct).
      ['CORRECT', 'abstain'],
      ['NOT_ATTEMPTED', 'correct'],
      ['no clear grade here', 'incorrect'],
      ['<think>It might be A</think>B', 'incorrect'],
    ];
    for (const [reply, verdict] of grades) {
      judgeReply = () => reply;
      const body = await scored('\\boxed{Paris}');
      expect(body.verdict, reply).toBe(verdict);
    }
    judgeReply = () => '<think>It might be A</think>\n B ';
    expect((await scored('\\boxed{Paris}')).judge_output).toBe('B');
  });

  it('sends the OMNISCIENCE grader prompt with the question, the gold target and the boxed answer, and the configured parameters', async () => {
    await scored('Thinking... \\boxed{wrong} then \\boxed{\\text{Paris}}');
    const call = judge.calls.at(-1);
    expect(call?.input).toHaveLength(1);
    expect(call?.input[0]).toMatchObject({ role: 'user' });
    expect(lastPrompt()).toMatch(/^Your job is to look at a question, a gold target, and a predicted answer/);
    expect(lastPrompt()).toContain('Question: What is the capital of France?\nGold target: Paris\nPredicted answer: \\text{Paris}\n\nGrade the predicted answer');
    expect(lastPrompt().endsWith('Just return the letters "A", "B", or "C", with no text around it.')).toBe(true);
    expect(call?.params).toMatchObject({ max_output_tokens: 64, temperature: 0 });
  });

  it('fills a configured template with Python str.format rules ({x!r}, doubled braces)', async () => {
    await scored('\\boxed{Lyon}', {}, customGym);
    expect(lastPrompt()).toBe("Q=What is the capital of France? | T=Paris | P='Lyon' {literal braces}");
  });

  it('refuses to start with a template naming another placeholder', async () => {
    await expect(startInProcessGym({ config: server({ judge_prompt_template: 'Grade {answer}' }), definitions: { judge: judge.definition } })).rejects.toThrow(/judge_prompt_template uses the placeholder \{answer\}/);
  });
});

describe('abstention: reading the answer', () => {
  it('strips thinking blocks, paired or with only the closing tag, before looking for the box', async () => {
    expect((await scored('<think>\\boxed{[IDK]}</think>The answer is \\boxed{Paris}')).extracted_answer).toBe('Paris');
    expect((await scored('<thinking>hmm</thinking>\n\\boxed{Paris}')).extracted_answer).toBe('Paris');
    expect((await scored('reasoning from the prompt\\boxed{Lyon}</think>\\boxed{Paris}')).extracted_answer).toBe('Paris');
  });

  it('takes the last box, braces counted; the whole text when there is none or it never closes', async () => {
    expect((await scored('\\boxed{\\frac{1}{2}}')).extracted_answer).toBe('\\frac{1}{2}');
    expect((await scored('\\boxed{}')).extracted_answer).toBe('');
    expect((await scored('  The capital is Paris.  ')).extracted_answer).toBe('The capital is Paris.');
    expect((await scored('\\boxed{Paris')).extracted_answer).toBe('\\boxed{Paris');
  });

  it('reads the last assistant message with text, its parts joined with newlines', async () => {
    expect((await scored([assistantMessage('\\boxed{Lyon}'), assistantMessage('\\boxed{Paris}')])).extracted_answer).toBe('Paris');
    const refusal = assistantMessage('', { content: [{ type: 'refusal', refusal: 'no' }] } as Partial<ResponseItem>);
    expect((await scored([assistantMessage('\\boxed{Lyon}'), refusal])).extracted_answer).toBe('Lyon');
    const parts = assistantMessage('', { content: [{ type: 'output_text', text: 'It is', annotations: [] }, { type: 'output_text', text: 'Paris ', annotations: [] }] } as Partial<ResponseItem>);
    expect((await scored([parts])).extracted_answer).toBe('It is\nParis');
  });

  it('judges an empty answer (only a tool call, or nothing) against the gold target', async () => {
    judgeReply = () => 'C';
    expect(await scored([functionCall('search', { q: 'capital of France' })])).toMatchObject({ extracted_answer: '', verdict: 'abstain', reward: 0.5 });
    expect(lastPrompt()).toContain('Predicted answer: \n');
  });

  it('judges a row without answer or question against empty text, as upstream', async () => {
    const body = await scored('\\boxed{Paris}', { answer: null, question: undefined });
    expect(body).toMatchObject({ ground_truth: '', verdict: 'correct' });
    expect(lastPrompt()).toContain('Question: \nGold target: \nPredicted answer: Paris\n');
  });
});

describe('abstention: bad rows and failing judges', () => {
  it('refuses a non-string answer or question, or an id that is neither an integer nor a string, naming the field', async () => {
    for (const [field, value] of [['answer', 7], ['question', ['q']], ['id', 1.5]] as const) {
      const { status, body } = await verify('\\boxed{Paris}', { [field]: value });
      expect(status).toBe(422);
      expect(JSON.stringify(body.detail)).toContain(field);
    }
    expect((await scored('\\boxed{Paris}', { id: 7 })).id).toBe(7);
  });

  it('fails the verify with 502 (NGYM_JUDGE_FAILED), never a reward, when the judge errs or answers no text', async () => {
    const failures: (() => string | ResponseItem[])[] = [
      () => {
        throw new Error('judge is down');
      },
      () => '',
      () => '<think>I cannot decide</think>',
      () => [functionCall('grade', { grade: 'A' })],
    ];
    for (const failure of failures) {
      judgeReply = failure;
      const { status, headers, body } = await verify('\\boxed{Paris}');
      expect(status, JSON.stringify(body)).toBe(502);
      expect(headers[ERROR_CODE_HEADER]).toBe('NGYM_JUDGE_FAILED');
      expect(body).not.toHaveProperty('reward');
    }
  });
});

describe('abstention example data', () => {
  const rollouts = readJsonlRows(join(DATA_DIR, 'example_rollouts.jsonl'));

  it('example.jsonl is what example-data.ts writes', () => {
    expect(readJsonlRows(join(DATA_DIR, 'example.jsonl'))).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it('re-verifies data/example_rollouts.jsonl to the recorded rewards and fields, the judge giving the recorded grades', async () => {
    expect(rollouts.map((rollout) => rollout.reward)).toEqual([1, 1, 0.5, 0, 0.5]);
    for (const recorded of rollouts) {
      judgeReply = () => recorded.judge_output ?? 'no call expected';
      const { reward, extracted_answer, ground_truth, verdict, judge_output, is_correct, is_abstain, is_incorrect, omniscience_index, ...request } = recorded;
      const fields = { reward, extracted_answer, ground_truth, verdict, judge_output, is_correct, is_abstain, is_incorrect, omniscience_index };
      const reply = await http.request(gym.url('abstention', '/verify'), { body: request });
      expect(reply.json<Record<string, unknown>>()).toMatchObject(fields);
    }
  });

  it('runs the example tasks end to end through the agent and the judge of configs/abstention.yaml', async () => {
    const policy = scriptedModel(scriptFor((task) => task.reply));
    const grader = scriptedModel(scriptFor((task) => task.grade ?? ''));
    const full = await startInProcessGym({
      overrides: [`+config_paths=[${CONFIG_PATH}]`, '+policy_model.responses_api_models.scripted.entrypoint=app.ts', '+genrm_model.responses_api_models.scripted.entrypoint=app.ts'],
      definitions: { policy_model: policy.definition, genrm_model: grader.definition },
    });
    try {
      const results = [];
      for (const example of exampleRows()) results.push((await http.request(full.url('abstention_simple_agent', '/run'), { body: example })).json<Record<string, any>>());
      expect(results.map((result) => [result.reward, result.verdict])).toEqual(rollouts.map((rollout) => [rollout.reward, rollout.verdict]));
      // The token short-circuits the judge: four tasks judged, as many judge calls.
      expect(grader.calls).toHaveLength(EXAMPLE_TASKS.filter((task) => task.grade !== undefined).length);
      expect(grader.calls[0]?.params).toMatchObject({ max_output_tokens: 64, temperature: 0, top_p: 1 });
    } finally {
      await full.close();
    }
  });
});
