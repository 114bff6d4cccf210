import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResponseItem, sharedHttpClient } from 'ngym';
import { assistantMessage, functionCall, type InProcessGym, modelResponse, readJsonlRows, scriptedModel, startInProcessGym } from 'ngym/testing';
import { citationExampleRows, CONFIG_PATHS, DATA_DIR, exampleRows, freeformExampleRows } from './example-data.ts';

const http = sharedHttpClient();
const question = { responses_create_params: { input: [{ role: 'user', content: 'List three facts, one per line, each starting with "- ".' }] } };
const bullets = { type: 'regex', pattern_id: 'bullet_dash', verify_regex: ['^- .+'], verify_min_matches: 3 };
const citations = { type: 'string_match', patterns: ['\\[ref:\\d+\\]'], expected_markers: ['[ref:1]', '[ref:3]'] };

let gym: InProcessGym;
beforeAll(async () => {
  gym = await startInProcessGym({ config: { freeform_formatting: { resources_servers: { format_verification: { entrypoint: 'app.ts', domain: 'instruction_following' } } } } });
});
afterAll(async () => gym?.close());

async function verify(output: string | ResponseItem[], verifier: unknown, row: Record<string, unknown> = {}) {
  const items = typeof output === 'string' ? [assistantMessage(output)] : output;
  const reply = await http.request(gym.url('freeform_formatting', '/verify'), { body: { ...question, verifier, ...row, response: modelResponse(items) } });
  return { status: reply.status, body: reply.json<Record<string, any>>() };
}

async function scored(output: string | ResponseItem[], verifier: unknown) {
  const { status, body } = await verify(output, verifier);
  expect(status, JSON.stringify(body)).toBe(200);
  return { reward: body.reward as number, details: body.match_details as Record<string, unknown> };
}

async function refused(verifier: unknown, text = '- a') {
  const { status, body } = await verify(text, verifier);
  expect(status, JSON.stringify(body)).toBe(422);
  return JSON.stringify(body.detail);
}

describe('format_verification regex lines', () => {
  it('rewards enough matching lines, echoing the row and saying how many matched', async () => {
    const { status, body } = await verify('Facts:\n- one\n- two\n- three', bullets, { extra: 'kept' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ reward: 1, match_details: { matching_lines: 3, min_matches: 3, passed: true }, verifier: bullets, extra: 'kept' });
    expect(await scored('- one\n- two\nthree', bullets)).toEqual({ reward: 0, details: { matching_lines: 2, min_matches: 3, passed: false } });
  });

  it('counts a line once however many patterns match it, and reads patterns with Python re (search, not match)', async () => {
    const verifier = { type: 'regex', verify_regex: ['^- ', '.+', 'three'], verify_min_matches: 3 };
    expect((await scored('- one\n- two\n- three', verifier)).details).toMatchObject({ matching_lines: 3 });
    // Python's \d is Unicode: Arabic-Indic digits count; `$` needs no MULTILINE on a single line.
    expect((await scored('١. first\n٢. second', { type: 'regex', verify_regex: ['^\\d+\\. \\w+$'], verify_min_matches: 2 })).reward).toBe(1);
    expect((await scored('x = 1\ny=2', { type: 'regex', verify_regex: ['(?P<key>\\w+)\\s*=\\s*(?P=key)?\\d'], verify_min_matches: 2 })).reward).toBe(1);
  });

  it('splits on "\\n" only: a "\\r" stays on its line and a trailing newline adds an empty line', async () => {
    // Only the last line has no "\r" before its end.
    expect((await scored('- a\r\n- b\r\n- c', { type: 'regex', verify_regex: ['^- \\w$'] })).details).toMatchObject({ matching_lines: 1 });
    expect((await scored('- a\n\n- b\n', { type: 'regex', verify_regex: ['^$'] })).details).toMatchObject({ matching_lines: 2 });
    expect((await scored('', { type: 'regex', verify_regex: ['^$'] })).details).toMatchObject({ matching_lines: 1, passed: true });
  });

  it('defaults to one needed match and no pattern; a minimum of 0 always passes', async () => {
    expect(await scored('- a', { type: 'regex', verify_regex: ['^- '] })).toEqual({ reward: 1, details: { matching_lines: 1, min_matches: 1, passed: true } });
    expect(await scored('- a', { type: 'regex' })).toEqual({ reward: 0, details: { matching_lines: 0, min_matches: 1, passed: false } });
    expect((await scored('', { type: 'regex', verify_min_matches: 0 })).reward).toBe(1);
  });

  it('compares with a fractional or boolean minimum as Python does, echoing it as given', async () => {
    expect(await scored('- a\n- b\n- c', { ...bullets, verify_min_matches: 2.5 })).toEqual({ reward: 1, details: { matching_lines: 3, min_matches: 2.5, passed: true } });
    expect(await scored('- a\n- b', { ...bullets, verify_min_matches: 2.5 })).toMatchObject({ reward: 0 });
    expect(await scored('- a', { ...bullets, verify_min_matches: true })).toEqual({ reward: 1, details: { matching_lines: 1, min_matches: true, passed: true } });
  });

  it('grades inline_prose rows with the same line check', async () => {
    const verifier = { type: 'inline_prose', verify_regex: ['\\*\\*\\d+\\*\\*'], verify_min_matches: 2 };
    expect((await scored('It is **240** km long.\nIt has **63** locks.', verifier)).reward).toBe(1);
    expect((await scored('It is **240** km long and has **63** locks.', verifier)).reward).toBe(0);
  });

  it("reads the response's output_text: every message's output_text parts joined without separator", async () => {
    const reasoning = { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: '- thought\n- thought\n- thought' }] } as unknown as ResponseItem;
    const refusal = assistantMessage('', { content: [{ type: 'refusal', refusal: '- no\n- no\n- no' }] } as Partial<ResponseItem>);
    expect((await scored([assistantMessage('- one\n- tw'), assistantMessage('o\n- three')], bullets)).details).toMatchObject({ matching_lines: 3 });
    expect((await scored([reasoning, refusal, functionCall('cite', { a: 1 }), assistantMessage('- only one')], bullets)).details).toMatchObject({ matching_lines: 1 });
    expect((await scored([functionCall('cite', { a: 1 })], bullets)).details).toMatchObject({ matching_lines: 0 });
  });
});

describe('format_verification string_match', () => {
  it('needs every expected marker and no other match of the patterns', async () => {
    expect(await scored('A [ref:1] and B [ref:3].', citations)).toEqual({ reward: 1, details: { expected: ['[ref:1]', '[ref:3]'], missing: [], spurious: [], passed: true } });
    expect(await scored('A [ref:1].', citations)).toEqual({ reward: 0, details: { expected: ['[ref:1]', '[ref:3]'], missing: ['[ref:3]'], spurious: [], passed: false } });
    // Each unexpected match is listed, repeats included; an expected marker cited twice is fine.
    expect((await scored('[ref:1] [ref:1] [ref:3] [ref:2] [ref:2] [ref:10]', citations)).details).toEqual({
      expected: ['[ref:1]', '[ref:3]'],
      missing: [],
      spurious: ['[ref:2]', '[ref:2]', '[ref:10]'],
      passed: false,
    });
  });

  it('matches markers literally (a bracket is no regex) and as substrings', async () => {
    const verifier = { type: 'string_match', expected_markers: ['(Part 2)', '<<1>>'] };
    expect((await scored('Said so (Part 2), and <<1>>.', verifier)).reward).toBe(1);
    expect((await scored('Said so (Part 20) and <<1>>.', verifier)).details).toMatchObject({ missing: ['(Part 2)'] });
    expect((await scored('Part 2 <<1>>', verifier)).details).toMatchObject({ missing: ['(Part 2)'] });
  });

  it('lists spurious matches pattern by pattern, and skips the search without patterns (absent, empty or null)', async () => {
    const verifier = { type: 'string_match', patterns: ['\\[web:\\d\\]', '\\[\\d\\]'], expected_markers: ['[web:1]'] };
    expect((await scored('[1] [web:1] [web:2] [2]', verifier)).details).toMatchObject({ spurious: ['[web:2]', '[1]', '[2]'] });
    for (const patterns of [undefined, [], null]) {
      expect((await scored('[web:1] [web:2]', { type: 'string_match', expected_markers: ['[web:1]'], patterns })).reward).toBe(1);
    }
    expect(await scored('anything', { type: 'string_match' })).toEqual({ reward: 1, details: { expected: [], missing: [], spurious: [], passed: true } });
  });

  it('finds nothing in an empty answer: every marker missing', async () => {
    expect(await scored('', citations)).toMatchObject({ reward: 0, details: { missing: ['[ref:1]', '[ref:3]'] } });
  });
});

describe('format_verification bad rows', () => {
  it('refuses a row without a verifier, or one that is not an object, naming the field', async () => {
    const { status, body } = await verify('- a', undefined);
    expect(status).toBe(422);
    expect(JSON.stringify(body.detail)).toContain('verifier');
    expect(await refused(['regex'])).toContain('verifier');
  });

  it('refuses a verifier type other than regex, inline_prose and string_match (upstream: NotImplementedError, a 500)', async () => {
    for (const type of ['other', '', 3, undefined]) expect(await refused({ type, verify_regex: ['.'] })).toContain('type');
  });

  it('refuses fields of the wrong type, where upstream would crash or read a string as a list of characters', async () => {
    expect(await refused({ type: 'regex', verify_regex: '^- .+' })).toContain('verify_regex');
    expect(await refused({ type: 'regex', verify_regex: ['^- ', 3] })).toContain('verify_regex');
    expect(await refused({ type: 'regex', verify_regex: ['^- '], verify_min_matches: null })).toContain('verify_min_matches');
    expect(await refused({ type: 'regex', verify_regex: ['^- '], verify_min_matches: '3' })).toContain('verify_min_matches');
    expect(await refused({ type: 'string_match', expected_markers: '[1]' })).toContain('expected_markers');
    expect(await refused({ type: 'string_match', expected_markers: [1] })).toContain('expected_markers');
    expect(await refused({ type: 'string_match', expected_markers: ['[1]'], patterns: '\\[1\\]' })).toContain('patterns');
  });

  it('refuses a pattern Python rejects, or one it cannot run faithfully, naming the pattern and its place', async () => {
    expect(await refused({ type: 'regex', verify_regex: ['^- ', '(unclosed'] })).toMatch(/verifier\.verify_regex\[1\]: Invalid Python regex .*unclosed/);
    // Compiled even when the text is empty, as upstream compiles before reading a line.
    expect(await refused({ type: 'string_match', expected_markers: [], patterns: ['[ref'] }, '')).toMatch(/verifier\.patterns\[0\]: Invalid Python regex/);
    expect(await refused({ type: 'regex', verify_regex: ['a++'] })).toMatch(/verifier\.verify_regex\[0\]: Unsupported Python regex .*possessive/);
  });
});

describe('format_verification example data', () => {
  it('the example files are what example-data.ts writes', () => {
    const same = (file: string, rows: unknown[]) => expect(readJsonlRows(join(DATA_DIR, file))).toEqual(JSON.parse(JSON.stringify(rows)));
    same('example.jsonl', exampleRows());
    same('ds2_freeform_formatting_example.jsonl', freeformExampleRows());
    same('ds3_citation_format_example.jsonl', citationExampleRows());
  });

  it('re-verifies data/example_rollouts.jsonl to the recorded rewards and details', async () => {
    const rollouts = readJsonlRows(join(DATA_DIR, 'example_rollouts.jsonl'));
    expect(rollouts.map((rollout) => rollout.reward)).toEqual([1, 0, 1, 1, 0]);
    for (const { reward, match_details, ...row } of rollouts) {
      const reply = await http.request(gym.url('freeform_formatting', '/verify'), { body: row });
      expect(reply.json<Record<string, unknown>>()).toMatchObject({ reward, match_details });
    }
  });

  it('runs a row end to end through each agent the configs define', async () => {
    const model = scriptedModel(({ index }) => [assistantMessage(index === 0 ? '- a\n- b\n- c' : 'Cited [ref:2] and [ref:3].')]);
    const full = await startInProcessGym({
      overrides: [`+config_paths=[${CONFIG_PATHS.join(',')}]`, '+policy_model.responses_api_models.scripted.entrypoint=app.ts'],
      definitions: { policy_model: model.definition },
    });
    try {
      const [freeform, citation] = [readFileSync(join(DATA_DIR, 'example.jsonl'), 'utf8').split('\n')[0], readFileSync(join(DATA_DIR, 'example.jsonl'), 'utf8').split('\n')[3]].map((line) => JSON.parse(line as string));
      const first = await http.request(full.url('freeform_formatting_simple_agent', '/run'), { body: freeform });
      expect(first.status, first.text).toBe(200);
      expect(first.json<Record<string, unknown>>()).toMatchObject({ reward: 1, match_details: { matching_lines: 3 } });
      const second = await http.request(full.url('citation_format_simple_agent', '/run'), { body: citation });
      expect(second.json<Record<string, unknown>>()).toMatchObject({ reward: 1, match_details: { missing: [], spurious: [] } });
    } finally {
      await full.close();
    }
  });
});
