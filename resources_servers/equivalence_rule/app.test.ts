/**
 * equivalence_rule through its HTTP surface: which text is graded, the normalization, each grading rule's score
 * (values from CPython's difflib), and the rows and configs it refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConfigDict, type ResponseItem, sharedHttpClient } from 'ngym';
import { assistantMessage, functionCall, type InProcessGym, modelResponse, readJsonlRows, replayExampleRollouts, scriptedModel, startInProcessGym } from 'ngym/testing';
import { EXAMPLE_DATA, exampleRows } from './example-data.ts';

const http = sharedHttpClient();
const server = (grading_rule?: string): ConfigDict => ({ resources_servers: { equivalence_rule: { entrypoint: 'app.ts', domain: 'knowledge', ...(grading_rule === undefined ? {} : { grading_rule }) } } });

let gym: InProcessGym;
beforeAll(async () => {
  gym = await startInProcessGym({ config: { exact: server(), seq_match: server('seq_match'), weighted_seq_match: server('weighted_seq_match') } });
});
afterAll(async () => gym?.close());

const params = { input: [{ role: 'user', content: 'How many harbour reports are there?' }] };
type Rule = 'exact' | 'seq_match' | 'weighted_seq_match';

async function verify(output: ResponseItem[], row: Record<string, unknown>, on: Rule = 'exact') {
  const reply = await http.request(gym.url(on, '/verify'), { body: { responses_create_params: params, response: modelResponse(output), ...row } });
  return { status: reply.status, body: reply.json<Record<string, any>>() };
}

async function score(answer: string | ResponseItem[], expected_answer: string, on: Rule = 'exact') {
  const { status, body } = await verify(typeof answer === 'string' ? [assistantMessage(answer)] : answer, { expected_answer }, on);
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.equivalence_score).toBe(body.reward);
  return body.reward as number;
}

describe('exact (the default rule)', () => {
  it('compares after strip, lower case and one space for each run of whitespace (Python whitespace)', async () => {
    expect(await score('Paris', 'Paris')).toBe(1);
    expect(await score('  pARIS \n', 'Paris')).toBe(1);
    expect(await score('two\t\n words\u3000here\u001cnow', 'Two words here now')).toBe(1);
    expect(await score('Par', 'Paris')).toBe(0);
    expect(await score('Paris.', 'Paris')).toBe(0);
    // Not Python whitespace: a zero-width space stays, and so differs.
    expect(await score('Paris\u200b', 'Paris')).toBe(0);
    expect(await score('', '')).toBe(1);
  });

  it("grades the response's output_text: every output_text part of every message, joined without separator", async () => {
    const parts = { ...assistantMessage(''), content: [{ type: 'output_text', text: 'Pa', annotations: [] }, { type: 'refusal', refusal: 'no' }, { type: 'output_text', text: 'ris', annotations: [] }] } as ResponseItem;
    expect(await score([parts], 'Paris')).toBe(1);
    expect(await score([assistantMessage('Par'), functionCall('lookup', {}), assistantMessage('is')], 'Paris')).toBe(1);
    const reasoning = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Paris' }] } as ResponseItem;
    expect(await score([reasoning], 'Paris')).toBe(0);
    expect(await score([reasoning], '')).toBe(1);
    // A string content holds no output_text part (upstream fails with a 500 on it).
    expect(await score([{ type: 'message', role: 'assistant', content: 'Paris' } as ResponseItem], 'Paris')).toBe(0);
  });
});

describe('seq_match and weighted_seq_match', () => {
  it("score difflib's ratio of the normalized texts, and 85% of it plus 15% of the prefix ratio", async () => {
    expect(await score('Hello World', 'hello', 'seq_match')).toBe(0.625);
    expect(await score('Hello World', 'hello', 'weighted_seq_match')).toBe(0.68125);
    expect(await score('the answer is 42', '42', 'seq_match')).toBe(0.2222222222222222);
    expect(await score('the answer is 42', '42', 'weighted_seq_match')).toBe(0.18888888888888888);
    expect(await score('abcdefghij tail', 'ABCDEFGHIJ  diff', 'weighted_seq_match')).toBe(0.8300000000000001);
    expect(await score('pL4vWc9n fog swallows', 'PL4VWC9N FOG', 'weighted_seq_match')).toBe(0.7681818181818182);
    expect(await score('😀 smile 😀', 'smile 😀', 'weighted_seq_match')).toBe(0.8508928571428571);
  });

  it('follow difflib where a long answer makes its frequent characters junk', async () => {
    expect(await score('x' + 'e'.repeat(300), 'e'.repeat(300) + 'y', 'seq_match')).toBe(0);
    expect(await score('x' + 'e'.repeat(300), 'e'.repeat(300) + 'y', 'weighted_seq_match')).toBe(0.135);
  });

  it('score two empty texts 1 and one empty text 0', async () => {
    for (const rule of ['seq_match', 'weighted_seq_match'] as const) {
      expect(await score(' ', '', rule)).toBe(1);
      expect(await score([], 'abc', rule)).toBe(0);
    }
  });
});

describe('bad input', () => {
  it('refuses a row without a string expected_answer with 422 naming it', async () => {
    for (const row of [{}, { expected_answer: null }, { expected_answer: 42 }, { expected_answer: ['Paris'] }]) {
      const { status, body } = await verify([assistantMessage('Paris')], row);
      expect(status, JSON.stringify(row)).toBe(422);
      expect(JSON.stringify(body.detail)).toContain('expected_answer');
    }
  });

  it('keeps the provenance fields of the row in the answer', async () => {
    const { body } = await verify([assistantMessage('2')], { expected_answer: '2', question: 'q', dataset: 'mrcr.x', source: 'mrcr', hashid: 'ab12', context_length: '1562' });
    expect(body).toMatchObject({ reward: 1, equivalence_score: 1, question: 'q', dataset: 'mrcr.x', source: 'mrcr', hashid: 'ab12', context_length: '1562' });
  });

  it('refuses an unknown grading rule at start-up', async () => {
    await expect(startInProcessGym({ config: { broken: server('fuzzy') } })).rejects.toThrow(/grading_rule/);
  });
});

describe('example data', () => {
  it('example.jsonl is what example-data.ts writes', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it('the example rollouts replay in strict mode with their recorded rewards', async () => {
    const replayed = await replayExampleRollouts(EXAMPLE_DATA);
    expect(replayed.map(({ recorded }) => recorded.reward)).toEqual([1, 1, 0, 0, 1]);
    for (const { recorded, result } of replayed) expect({ reward: result.reward, equivalence_score: result.equivalence_score }).toEqual({ reward: recorded.reward, equivalence_score: recorded.equivalence_score });
  });

  it('runs a task end to end through the agent of the config', async () => {
    const model = scriptedModel(() => [assistantMessage('2')]);
    const full = await startInProcessGym({
      overrides: [`+config_paths=[resources_servers/equivalence_rule/configs/lc.yaml]`, '++policy_model={responses_api_models: {scripted: {entrypoint: app.ts}}}'],
      definitions: { policy_model: model.definition },
    });
    try {
      const reply = await http.request(full.url(EXAMPLE_DATA.agent, '/run'), { body: exampleRows()[1] });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json<Record<string, unknown>>()).toMatchObject({ reward: 1, equivalence_score: 1, expected_answer: '2', source: 'mrcr' });
    } finally {
      await full.close();
    }
  });
});
