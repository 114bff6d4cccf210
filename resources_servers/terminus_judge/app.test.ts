import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODE_HEADER, type Response, sharedHttpClient } from 'ngym';
import {
  assistantMessage,
  functionCall,
  type InProcessGym,
  modelResponse,
  type ScriptedModel,
  scriptedModel,
  startFakeEndpoint,
  startInProcessGym,
} from 'ngym/testing';

const http = sharedHttpClient();
const SIMPLE = '+config_paths=[resources_servers/terminus_judge/configs/terminus_judge_simple.yaml]';
const STRING_ONLY = '+config_paths=[resources_servers/terminus_judge/configs/terminus_judge_string_only.yaml]';
const SERVER = 'terminus_judge_resources_server';
const key = (name: string, value: string, instance = SERVER) => `++${instance}.resources_servers.terminus_judge.${name}=${value}`;

const gold2 = { analysis: 'A fresh shell.', plan: 'List the directory.', commands: [{ keystrokes: 'ls -la /srv/app\n', duration: 0.1 }], task_complete: false };
const gold1 = { state_analysis: 'A fresh shell.', explanation: 'List the directory.', commands: [{ keystrokes: 'ls -la /srv/app\n', is_blocking: true, timeout_sec: 2 }], is_task_complete: false };
const row2 = { responses_create_params: { input: [{ role: 'user', content: 'List /srv/app.' }] }, expected_answer: JSON.stringify(gold2, null, 2), uuid: 'u-2', metadata: { harness: 'terminus_2', category: 'first_round' } };
const row1 = { ...row2, expected_answer: JSON.stringify(gold1), uuid: 7, metadata: { harness: 'terminus_1' } };
const batch = (changes: Record<string, unknown> = {}, base: Record<string, unknown> = gold2) => JSON.stringify({ ...base, ...changes });
const far = { commands: [{ keystrokes: 'find /srv -maxdepth 1 -type d | sort\n', duration: 1 }] };

/** The judge's replies in call order: a text for a one-message reply, or a whole (partial) response. */
let verdicts: (string | Partial<Response>)[] = [];
let judge: ScriptedModel;
let judged: InProcessGym;
let stringOnly: InProcessGym;

async function startJudged(overrides: string[] = [], external?: Record<string, { host: string; port: number }>) {
  return startInProcessGym({
    overrides: [SIMPLE, key('judge_model_server.name', 'judge_model'), '+judge_model.responses_api_models.scripted.entrypoint=app.ts', '+policy_model.responses_api_models.scripted.entrypoint=app.ts', ...overrides],
    definitions: { judge_model: judge.definition, policy_model: scriptedModel(() => []).definition },
    external,
  });
}

async function startStringOnly(overrides: string[] = []) {
  return startInProcessGym({ overrides: [STRING_ONLY, '+policy_model.responses_api_models.scripted.entrypoint=app.ts', ...overrides], definitions: { policy_model: scriptedModel(() => []).definition } });
}

beforeAll(async () => {
  judge = scriptedModel(({ index }) => {
    const reply = verdicts[index] ?? 'no verdict';
    return typeof reply === 'string' ? [assistantMessage(reply)] : reply;
  });
  [judged, stringOnly] = await Promise.all([startJudged([key('reward_if_swap_fails', '-1.0'), key('judge_system_message', 'Grade strictly.')]), startStringOnly()]);
});
afterAll(async () => Promise.all([judged?.close(), stringOnly?.close()]));
/** The judge's next replies, from its next call on. */
function judgeSays(...replies: (string | Partial<Response>)[]): void {
  judge.calls.length = 0;
  verdicts = replies;
}
afterEach(() => judgeSays());

async function verify(on: InProcessGym, text: string | string[], extra: Record<string, unknown> = {}, instance = SERVER) {
  const response = modelResponse((Array.isArray(text) ? text : [text]).map((part) => assistantMessage(part)));
  const reply = await http.request(on.url(instance, '/verify'), { body: { ...row2, ...extra, response } });
  return { status: reply.status, headers: reply.headers, body: reply.json<Record<string, any>>() };
}
const onStrings = (text: string | string[], extra: Record<string, unknown> = {}) => verify(stringOnly, text, extra, 'terminus_judge_string_only_resources_server');

describe('terminus_judge format checks (string-similarity config)', () => {
  it('passes the gold batch and reports every check', async () => {
    const { body } = await onStrings(batch({ plan: 'Another plan, same keystrokes.' }));
    expect(body).toMatchObject({
      reward: 1,
      failure_reason: 'none',
      similarity_score: 1,
      schema_check_passed: true,
      task_complete_check_passed: true,
      string_similarity_passed: true,
      judge_passed: null,
      judge_evaluations: [],
      uuid: 'u-2',
      threshold: null,
      metadata: row2.metadata,
      parsed_output: { ...gold2, plan: 'Another plan, same keystrokes.' },
    });
  });

  it('needs the gold answer: the row, else str(metadata.expected_answer); empty or not a JSON object is a data error', async () => {
    expect((await onStrings(batch(), { expected_answer: null })).body).toMatchObject({ reward: 0, failure_reason: 'expected_answer_invalid', expected_answer: '', model_output: '' });
    const fromMetadata = await onStrings(batch(), { expected_answer: '', metadata: { harness: 'terminus_2', expected_answer: batch() } });
    expect(fromMetadata.body).toMatchObject({ reward: 1, expected_answer: batch() });
    const pythonDict = await onStrings(batch(), { expected_answer: null, metadata: { harness: 'terminus_2', expected_answer: { analysis: 'x', ok: true } } });
    expect(pythonDict.body).toMatchObject({ reward: 0, failure_reason: 'expected_answer_invalid', expected_answer: "{'analysis': 'x', 'ok': True}", model_output: batch() });
    expect((await onStrings(batch(), { expected_answer: '[1, 2]' })).body).toMatchObject({ failure_reason: 'expected_answer_invalid', parsed_output: null });
    expect((await onStrings(batch(), { expected_answer: batch({ commands: 'none' }) })).body).toMatchObject({ failure_reason: 'expected_answer_invalid', schema_check_passed: null, parsed_output: JSON.parse(batch()) });
  });

  it('reads the model batch from every assistant message joined, after the last </think>, as Python json.loads', async () => {
    expect((await onStrings(['<think>first ls</think>', batch()])).body).toMatchObject({ reward: 1, model_output: batch() });
    expect((await onStrings(`reasoning</think>\n${batch()}`)).body).toMatchObject({ reward: 1, model_output: batch() });
    const nan = await onStrings(batch({ commands: [{ keystrokes: 'ls -la /srv/app\n', duration: 'NaN' }] }).replace('"NaN"', 'NaN'));
    expect(nan.body).toMatchObject({ reward: 1, schema_check_passed: true });
    expect((await onStrings('   ')).body).toMatchObject({ reward: 0, failure_reason: 'model_output_invalid', model_output: '' });
    expect((await onStrings(`Here it is: ${batch()}`)).body).toMatchObject({ failure_reason: 'model_output_invalid', model_output: `Here it is: ${batch()}`, schema_check_passed: null });
    expect((await onStrings('["ls"]')).body).toMatchObject({ failure_reason: 'model_output_invalid', parsed_output: null });
    // Python's json.loads raises RecursionError past 1,000 levels (upstream answers 500); here it parses, and fails the schema.
    const deep = `${'{"a": '.repeat(1500)}1${'}'.repeat(1500)}`;
    expect((await onStrings(deep)).body).toMatchObject({ reward: 0, failure_reason: 'schema_check_failed' });
    const toolOnly = await http.request(stringOnly.url('terminus_judge_string_only_resources_server', '/verify'), { body: { ...row2, response: modelResponse([functionCall('shell', { cmd: 'ls' }, 'c1')]) } });
    expect(toolOnly.json<Record<string, unknown>>()).toMatchObject({ failure_reason: 'model_output_invalid' });
  });

  it('needs metadata.harness to be terminus_1 or terminus_2', async () => {
    for (const metadata of [null, {}, { harness: 'terminus_3' }, { harness: ['terminus_2'] }]) {
      expect((await onStrings(batch(), { metadata })).body, JSON.stringify(metadata)).toMatchObject({ reward: 0, failure_reason: 'unknown_harness', parsed_output: gold2, schema_check_passed: null });
    }
  });

  it("checks the batch against the harness's schema: required keys, no others, JSON types (a bool is no number)", async () => {
    for (const answer of [
      batch({ plan: undefined }),
      batch({ extra: 1 }),
      batch({ commands: [{ keystrokes: 'ls\n', duration: true }] }),
      batch({ commands: [{ keystrokes: 'ls\n', is_blocking: true }] }),
      batch({ task_complete: 'no' }),
      batch({}, gold1),
    ]) {
      expect((await onStrings(answer)).body, answer).toMatchObject({ reward: 0, failure_reason: 'schema_check_failed', schema_check_passed: false, task_complete_check_passed: null });
    }
    expect((await onStrings(batch({}, gold1), { ...row1 })).body).toMatchObject({ reward: 1, uuid: 7 });
    expect((await onStrings(batch({ commands: [{ keystrokes: 'ls -la /srv/app\n' }], task_complete: undefined }))).body).toMatchObject({ reward: 1 });
  });

  it('needs the task declared complete when the gold batch declares it', async () => {
    const complete = { expected_answer: batch({ task_complete: true }) };
    expect((await onStrings(batch({ task_complete: false }), complete)).body).toMatchObject({ reward: 0, failure_reason: 'task_complete_check_failed', task_complete_check_passed: false });
    expect((await onStrings(batch({ task_complete: undefined }), complete)).body).toMatchObject({ failure_reason: 'task_complete_check_failed' });
    expect((await onStrings(batch({ task_complete: true }), complete)).body).toMatchObject({ reward: 1 });
    const terminus1 = { ...row1, expected_answer: batch({ is_task_complete: true }, gold1) };
    expect((await onStrings(batch({}, gold1), terminus1)).body).toMatchObject({ failure_reason: 'task_complete_check_failed' });
    // A batch that finishes a task the gold batch does not finish passes this check.
    expect((await onStrings(batch({ task_complete: true }))).body).toMatchObject({ reward: 1 });
  });

  it("scores the keystrokes' difflib ratio against the threshold (0.9 here; the row's threshold wins, numeric text too)", async () => {
    const close = batch({ commands: [{ keystrokes: 'ls -al /srv/app\n', duration: 0.1 }] });
    expect((await onStrings(close)).body).toMatchObject({ reward: 1, similarity_score: 0.9375, string_similarity_passed: true });
    expect((await onStrings(close, { threshold: 0.95 })).body).toMatchObject({ reward: 0, failure_reason: 'string_similarity_below_threshold', string_similarity_passed: false, threshold: 0.95 });
    expect((await onStrings(batch(far), { threshold: ' 0.1 ' })).body).toMatchObject({ reward: 1, threshold: 0.1 });
    expect((await onStrings(batch(far), { threshold: 'high' })).status).toBe(422);
    expect((await onStrings(batch({ commands: [] }))).body).toMatchObject({ reward: 0, similarity_score: 0 });
    expect((await onStrings(batch({ commands: [] }), { expected_answer: batch({ commands: [] }) })).body).toMatchObject({ reward: 1, similarity_score: 1 });
  });

  it('refuses rows whose fields have the wrong type (422), as upstream', async () => {
    expect((await onStrings(batch(), { expected_answer: 5 })).status).toBe(422);
    expect((await onStrings(batch(), { metadata: ['terminus_2'] })).status).toBe(422);
    expect((await onStrings(batch(), { uuid: 1.5 })).status).toBe(422);
    expect((await onStrings(batch(), { uuid: true })).body).toMatchObject({ uuid: 1 });
  });

  it('replaces lone surrogates in what it echoes, as Python re-encoding does (three U+FFFD each)', async () => {
    // The model's text itself holds the surrogate (JSON.stringify would write it as an escape).
    const { body } = await onStrings(batch({ plan: 'bad LONE text' }).replace('LONE', '\ud800'));
    expect(body.model_output).toContain('bad \ufffd\ufffd\ufffd text');
    expect(body.parsed_output.plan).toBe('bad \ufffd\ufffd\ufffd text');
    expect(body.response.output[0].content[0].text).toContain('\ufffd\ufffd\ufffd');
    expect((await onStrings(batch({ plan: 'pair \ud83d\ude00 kept' }))).body.parsed_output.plan).toBe('pair \ud83d\ude00 kept');
  });
});

describe('terminus_judge with the judge (simple config: threshold 0.9, swap check on)', () => {
  const prompts = () => judge.calls.map((call) => call.input.map((item) => (item as { content?: unknown }).content));

  it('a close batch needs no judge; a far one is judged, then judged again swapped', async () => {
    expect((await verify(judged, batch())).body).toMatchObject({ reward: 1, judge_passed: null, judge_evaluations: [] });
    expect(judge.calls).toHaveLength(0);
    judgeSays('Same intent.\n\n[[A=B]] they are equivalent', '[[A=B]]');
    const { body } = await verify(judged, batch(far));
    expect(body).toMatchObject({ reward: 1, failure_reason: 'none', judge_passed: true, string_similarity_passed: false });
    expect(body.judge_evaluations.map((evaluation: any) => evaluation.verdict_label)).toEqual(['[[A=B]]', '[[A=B]]']);
    const [asked, swapped] = prompts() as [string[], string[]];
    expect(asked[0]).toBe('Grade strictly.');
    expect(asked[1]).toMatch(new RegExp(`GOLD:\\n${literal(row2.expected_answer)}\\n\\nCANDIDATE:\\n${literal(batch(far))}$`));
    expect(swapped[1]).toMatch(new RegExp(`GOLD:\\n${literal(batch(far))}\\n\\nCANDIDATE:\\n${literal(row2.expected_answer)}$`));
  });

  it('scores each verdict path as upstream: not equivalent, swap disagreeing (reward_if_swap_fails), no label', async () => {
    judgeSays('[[A!=B]]');
    expect((await verify(judged, batch(far))).body).toMatchObject({ reward: 0, judge_passed: false, failure_reason: 'judge_not_equivalent' });
    judgeSays('[[A=B]]', 'On reflection [[A!=B]]');
    expect((await verify(judged, batch(far))).body).toMatchObject({ reward: -1, judge_passed: false, failure_reason: 'judge_not_equivalent' });
    judgeSays('I cannot tell.');
    const unread = await verify(judged, batch(far));
    expect(unread.body).toMatchObject({ reward: 0, judge_passed: null, failure_reason: 'judge_parsing_failed' });
    expect(unread.body.judge_evaluations[0].verdict_label).toBeNull();
    judgeSays('[[A=B]]', { output: [] });
    expect((await verify(judged, batch(far))).body).toMatchObject({ reward: 0, judge_passed: null, failure_reason: 'judge_swap_parsing_failed' });
  });

  it('reads the last label of the last 200 characters, else the first label of the whole reply', async () => {
    judgeSays(`[[A!=B]] at first, then ${'x'.repeat(10)} finally [[A=B]]`, `[[A=B]] early, ${'padding '.repeat(40)}[[A!=B]]`);
    expect((await verify(judged, batch(far))).body).toMatchObject({ reward: -1 });
    judgeSays(`[[A=B]] then [[A!=B]] ${'long explanation '.repeat(20)}`, '[[A=B]]');
    expect((await verify(judged, batch(far))).body).toMatchObject({ reward: 1 });
    judgeSays({ output: [{ type: 'message', id: 'm', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: '[[A=B]]', annotations: [] }, { type: 'refusal', refusal: 'no' }] }] } as Partial<Response>);
    expect((await verify(judged, batch(far))).body).toMatchObject({ failure_reason: 'judge_parsing_failed' });
  });

  it('with the string check off, every batch that passes the format checks is judged', async () => {
    const judgeOnly = await startJudged([key('enable_string_similarity', 'false'), key('check_twice_swap', 'false')]);
    try {
      judgeSays('[[A=B]]');
      expect((await verify(judgeOnly, batch())).body).toMatchObject({ reward: 1, similarity_score: null, string_similarity_passed: null, judge_passed: true });
      expect(judge.calls).toHaveLength(1);
    } finally {
      await judgeOnly.close();
    }
  });

  it('records a failed judge call as a judge failure (502, NGYM_JUDGE_FAILED), never a reward', async () => {
    const fake = await startFakeEndpoint(() => ({ status: 500, body: { error: 'overloaded' } }));
    const url = new URL(fake.url);
    const broken = await startJudged([], { judge_model: { host: url.hostname, port: Number(url.port) } });
    try {
      const result = await verify(broken, batch(far));
      expect(result.status).toBe(502);
      expect(result.headers[ERROR_CODE_HEADER]).toBe('NGYM_JUDGE_FAILED');
      // Rows settled before the judge is needed still score.
      expect((await verify(broken, batch())).body).toMatchObject({ reward: 1 });
    } finally {
      await broken.close();
      await fake.close();
    }
  });
});

describe('terminus_judge config', () => {
  it('with both checks off, the format checks alone give 1.0', async () => {
    const formatOnly = await startStringOnly([key('enable_string_similarity', 'false', 'terminus_judge_string_only_resources_server')]);
    try {
      const { body } = await verify(formatOnly, batch(far), {}, 'terminus_judge_string_only_resources_server');
      expect(body).toMatchObject({ reward: 1, failure_reason: 'none', similarity_score: null, judge_passed: null });
    } finally {
      await formatOnly.close();
    }
  });

  it('refuses to start a judged server without a judge, or with a prompt it cannot fill', async () => {
    const stringInstance = 'terminus_judge_string_only_resources_server';
    await expect(startStringOnly([key('enable_llm_judge', 'true', stringInstance)])).rejects.toThrow(/judge_model_server is required when enable_llm_judge is true/);
    await expect(startJudged([key('judge_prompt_template_fpath', 'prompt_templates/missing.txt')])).rejects.toThrow(/cannot read the judge prompt/);
  });
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
