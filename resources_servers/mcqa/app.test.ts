import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedHttpClient } from 'ngym';
import { assistantMessage, type InProcessGym, modelResponse, scriptedModel, startInProcessGym } from 'ngym/testing';

const http = sharedHttpClient();
const options = [{ A: 'Karyotyping' }, { B: 'Polymerase Chain Reaction (PCR)' }, { C: 'Whole-genome sequencing' }, { D: 'Southern blotting' }];
const tenOptions = [...'ABCDEFGHIJ'].map((letter) => ({ [letter]: `option ${letter} text` }));
const question = { responses_create_params: { input: [{ role: 'user', content: 'Which test? A/B/C/D' }] }, options, expected_answer: 'B' };

const server = (grading_mode?: string) => ({ mcqa: { resources_servers: { mcqa: { entrypoint: 'app.ts', domain: 'knowledge', ...(grading_mode ? { grading_mode } : {}) } } } });
let gym: InProcessGym;
let markdownGym: InProcessGym;
let colonGym: InProcessGym;
beforeAll(async () => {
  [gym, markdownGym, colonGym] = await Promise.all([startInProcessGym({ config: server() }), startInProcessGym({ config: server('lenient_answer_colon_md') }), startInProcessGym({ config: server('lenient_answer_colon') })]);
});
afterAll(async () => Promise.all([gym?.close(), markdownGym?.close(), colonGym?.close()]));

async function verify(text: string | string[], row: Record<string, unknown> = {}, on: InProcessGym = gym) {
  const texts = Array.isArray(text) ? text : [text];
  const response = modelResponse(texts.map((part) => assistantMessage(part)));
  const reply = await http.request(on.url('mcqa', '/verify'), { body: { ...question, ...row, response } });
  return { status: reply.status, body: reply.json<Record<string, any>>() };
}

async function extracted(text: string | string[], row: Record<string, unknown> = {}, on: InProcessGym = gym) {
  const { status, body } = await verify(text, row, on);
  expect(status, JSON.stringify(body)).toBe(200);
  return body.extracted_answer as string | null;
}

describe('mcqa strict_single_letter_boxed (default)', () => {
  it('rewards the boxed expected letter and echoes the row', async () => {
    const { body } = await verify('Reasoning...\n\\boxed{B}', { uuid: 'u1' });
    expect(body).toMatchObject({ reward: 1, expected_answer: 'B', extracted_answer: 'B', uuid: 'u1', options });
  });

  it('reads one uppercase letter among non-letters, never a lower-case one or bare option text', async () => {
    expect(await extracted('\\boxed{(B)}')).toBe('B');
    expect(await extracted('Final: \\boxed{ [C] }')).toBe('C');
    expect(await extracted('\\boxed{b}')).toBeNull();
    expect(await extracted('\\boxed{E}')).toBeNull();
    expect(await extracted('\\boxed{A polygenic risk score}', { options: tenOptions, expected_answer: 'A' })).toBeNull();
  });

  it('reads a letter labelling option text (`:` `)` `.` `-`), and through \\text{} wrappers', async () => {
    expect(await extracted('\\boxed{B: Polymerase Chain Reaction}')).toBe('B');
    expect(await extracted('\\boxed{C) Whole-genome sequencing}')).toBe('C');
    expect(await extracted('\\boxed{D. Southern blotting}')).toBe('D');
    expect(await extracted('\\boxed{A - Karyotyping}')).toBe('A');
    expect(await extracted('\\boxed{\\text{E}}', { options: tenOptions })).toBe('E');
    expect(await extracted('\\boxed{\\text{I: NGS can detect both coding and non-coding regions.}}', { options: tenOptions })).toBe('I');
    expect(await extracted('\\[ \\boxed{E: \\text{A polygenic risk score.}} \\]', { options: tenOptions })).toBe('E');
  });

  it('uses the last box (a corrected answer), and none when the last box never closes', async () => {
    expect(await extracted('\\boxed{A} then, on reflection, \\boxed{C}')).toBe('C');
    expect(await extracted('Thinking: \\boxed{\\text{some idea}}. Final answer: \\boxed{D}')).toBe('D');
    expect(await extracted('\\boxed{C} and finally \\boxed{\\text{some idea}}')).toBeNull();
    expect(await extracted('\\boxed{A} and \\boxed{B')).toBeNull();
  });

  it("grades the response's output_text: all message texts joined without a separator", async () => {
    expect(await extracted(['thinking', 'final: \\boxed{D}'])).toBe('D');
    expect(await extracted(['Answer: Kary', 'otyping'], { grading_mode: 'lenient_answer_colon' })).toBe('A');
  });

  it('normalizes the expected answer and gives 0 without one', async () => {
    expect((await verify('\\boxed{B}', { expected_answer: ' b ' })).body).toMatchObject({ reward: 1, expected_answer: 'B' });
    expect((await verify('\\boxed{B}', { expected_answer: null })).body).toMatchObject({ reward: 0, expected_answer: '', extracted_answer: 'B' });
    expect((await verify('\\boxed{A}')).body.reward).toBe(0);
  });
});

describe('mcqa options', () => {
  it('accepts a null option text and leaves its letter out of the allowed ones', async () => {
    const row = { options: [...options, { E: null }], expected_answer: 'E' };
    expect(await verify('\\boxed{E}', row)).toMatchObject({ status: 200, body: { reward: 0, extracted_answer: null } });
    expect(await extracted('Answer: E', { ...row, grading_mode: 'lenient_answer_colon' })).toBeNull();
    expect(await extracted('\\boxed{D}', row)).toBe('D');
  });

  it('takes every one-letter key of an option object, upper-casing lower-case keys', async () => {
    const row = { options: [{ A: 'Karyotyping', B: 'PCR' }, { c: 'Sequencing' }] };
    expect(await extracted('\\boxed{B}', row)).toBe('B');
    expect(await extracted('\\boxed{C}', row)).toBe('C');
    expect(await extracted('\\boxed{PCR}', { ...row, grading_mode: 'lenient_boxed' })).toBe('B');
  });

  it('refuses an option text that is neither a string nor null', async () => {
    const { status, body } = await verify('\\boxed{B}', { options: [{ A: 1 }] });
    expect(status).toBe(422);
    expect(JSON.stringify(body.detail)).toContain('options');
  });
});

describe('mcqa lenient modes', () => {
  it('lenient_boxed matches exactly one option text inside the last box', async () => {
    const row = { grading_mode: 'lenient_boxed' };
    expect(await extracted('\\boxed{\\text{Polymerase Chain Reaction (PCR)}}', row)).toBe('B');
    expect(await extracted('\\boxed{I pick southern   BLOTTING here}', row)).toBe('D');
    expect(await extracted('\\boxed{Karyotyping} or rather \\boxed{Southern blotting}', row)).toBe('D');
    expect(await extracted('\\boxed{C}', row)).toBe('C');
    expect(await extracted('\\boxed{Karyotyping or Southern blotting}', row)).toBeNull();
    expect(await extracted('Polymerase Chain Reaction (PCR)', row)).toBeNull();
  });

  it('lenient_answer_colon reads the letter or the option text after the first "answer:"', async () => {
    const row = { grading_mode: 'lenient_answer_colon' };
    expect(await extracted('So the ANSWER: c', row)).toBe('C');
    expect(await extracted('Answer: \\text{Karyotyping}', row)).toBe('A');
    expect(await extracted('Answer: whole-genome   sequencing\nAnswer: A', row)).toBe('C');
    expect(await extracted('Answer: E', row)).toBeNull();
    expect(await extracted('**Answer: C**', row)).toBeNull();
  });

  it('rejects an unknown grading mode, and the config-only lenient_answer_colon_md, in a row with 422', async () => {
    for (const grading_mode of ['lenient_everything', 'lenient_answer_colon_md', null]) {
      const { status, body } = await verify('\\boxed{B}', { grading_mode });
      expect(status).toBe(422);
      expect(JSON.stringify(body.detail)).toContain('grading_mode');
    }
  });
});

describe('mcqa config grading_mode', () => {
  it("overrides the row's mode", async () => {
    const row = { grading_mode: 'strict_single_letter_boxed' };
    expect(await extracted('I think B.\n\nAnswer: B', row, colonGym)).toBe('B');
    expect(await extracted('I think B.\n\nAnswer: B', row)).toBeNull();
    expect(await extracted('\\boxed{B}', row, colonGym)).toBeNull();
  });

  it('lenient_answer_colon_md reads the last readable Answer: payload, markdown allowed', async () => {
    const read = (text: string, row: Record<string, unknown> = {}) => extracted(text, { options: tenOptions, ...row }, markdownGym);
    expect(await read('The answer is B.\n\nAnswer: B')).toBe('B');
    expect(await read('Reasoning here.\n\n**Answer: C**')).toBe('C');
    expect(await read('__Answer__: A')).toBe('A');
    expect(await read('Answer: B because C is not valid')).toBe('B');
    expect(await read('Answer: B/B')).toBe('B');
    expect(await read('Answer: $D$')).toBe('D');
    expect(await read('Answer: (D)')).toBe('D');
    expect(await read('\\boxed{\\text{Answer: G}}')).toBe('G');
    expect(await read('Answer: the best is H')).toBe('H');
    expect(await read('Answer: Ｃ')).toBe('C');
    expect(await read('Answer: A\nAnswer: B')).toBe('B');
    for (const payload of ['unknown', 'Z', 'A/B/C']) expect(await read(`Answer: B\nAnswer: ${payload}`)).toBe('B');
  });

  it('lenient_answer_colon_md refuses lists of different choices, and allowed letters only', async () => {
    const read = (text: string) => extracted(text, { options: tenOptions }, markdownGym);
    for (const text of ['Answer: A/B/C', 'Answer: B/I', '**Answer: D/H**', 'Answer: A or B', 'Answer: A and B', 'Answer: A, B', 'Answer: unknown', 'Answer: Z']) expect(await read(text), text).toBeNull();
    expect(await extracted('Answer: G', {}, markdownGym)).toBeNull();
  });

  it("lenient_answer_colon_md reads after the row's answer_prefix, and falls back to the last box only with one", async () => {
    const row = (answer_prefix: string, extra: Record<string, unknown> = {}) => ({ options: tenOptions, template_metadata: { output_regex: 'NEVER_MATCH_([A-Z])', answer_prefix, ...extra } });
    expect(await extracted('La respuesta es (A).', row('La respuesta es'), markdownGym)).toBe('A');
    expect(await extracted('段階的に考える。答えは（C）です。', row('答えは'), markdownGym)).toBe('C');
    expect(await extracted('La réponse est (B).', row('La réponse est'), markdownGym)).toBe('B');
    expect(await extracted('The answer is (C).', { options: tenOptions }, markdownGym)).toBeNull();
    expect(await extracted('答えは A/D/E/F です。', row('答えは'), markdownGym)).toBeNull();
    expect(await extracted('\\boxed{H}', row('answer is'), markdownGym)).toBe('H');
    expect(await extracted('\\boxed{H}', { options: tenOptions }, markdownGym)).toBeNull();
    // A prefix holding regex syntax is matched literally.
    expect(await extracted('(Final) answer.* C', row('(Final) answer.*'), markdownGym)).toBe('C');
    const numeric = await verify('Answer: B', row('x', { answer_prefix: 3 }), markdownGym);
    expect(numeric.status).toBe(422);
    expect(numeric.body.detail).toMatch(/answer_prefix must be a string/);
  });
});

describe('mcqa template regexes (Python syntax)', () => {
  const template = (output_regex: unknown, extra: Record<string, unknown> = {}) => ({ template_metadata: { output_regex }, ...extra });

  it('takes the last match, case-insensitively, and trusts a single letter', async () => {
    expect(await extracted('Final Choice: a ... Final choice: d', template('Final Choice:\\s*([A-Za-z])\\s*'))).toBe('D');
    expect(await extracted('Option Selected: z', template('Option Selected:\\s*([A-Za-z])\\s*'))).toBe('Z');
  });

  it('maps captured option text to its letter', async () => {
    expect(await extracted('ANSWER IS Southern Blotting.', template('ANSWER IS\\s*(.+?)\\.'))).toBe('D');
  });

  it('reads full-width and other scripts\u2019 letters as A-D', async () => {
    expect(await extracted('الإجابة: ب', template('الإجابة:\\s*([أ-د])'))).toBe('B');
    expect(await extracted('Answer: Ｃ', template('Answer:\\s*(\\S)'))).toBe('C');
    // NFKC: a full-width letter beyond D is trusted as its ASCII letter.
    expect(await extracted('Answer: Ｅ', template('Answer:\\s*(\\S)'))).toBe('E');
  });

  it('tries each pattern of a list in order until one extracts a letter', async () => {
    const list = ['Answer\\s*:\\s*([A-Za-z])', 'Antwort\\s*:\\s*([A-Za-z])'];
    expect(await extracted('Antwort: B', template(list))).toBe('B');
    expect(await extracted('Answer: C\nAntwort: B', template(list))).toBe('C');
    expect(await extracted('Antwort: B', template(['([A-Z]', ...list]))).toBe('B');
    expect(await extracted('\\boxed{A}', template(list))).toBe('A');
  });

  it('supports named groups, inline flags and lookaheads', async () => {
    expect(await extracted('Answer: Answer: maybe\nanswer: C', template('(?m)^answer\\s*:\\s*(?P<letter>[a-z])\\s*$'))).toBe('C');
    expect(await extracted('Answer: Answer B', template('Answer\\s*:\\s*(?!Answer)\\s*([A-Za-z])\\s*'))).toBe('A');
  });

  it('falls back to the grading mode when the regex finds nothing or Python would reject it', async () => {
    expect(await extracted('\\boxed{B}', template('Final Choice:\\s*([A-Za-z])'))).toBe('B');
    expect(await extracted('\\boxed{B}', template('Final Choice:(?<x>[A-Z])'))).toBe('B');
    expect(await extracted('\\boxed{B}', template('([A-Z]'))).toBe('B');
    // Several groups only fail once they match (upstream cannot read a tuple).
    expect(await extracted('\\boxed{B}', template('(Final) (Choice) ([A-Z])'))).toBe('B');
  });

  it('extracts nothing from an empty answer, even with a regex that matches empty text', async () => {
    expect(await extracted('  \n', template('(.*)', { options: [...options, { E: '' }] }))).toBeNull();
  });

  it('fails with 422 naming a construct it cannot run, several groups that matched, or a pattern that is no string', async () => {
    const possessive = await verify('\\boxed{B}', template('Answer:\\s*+([A-Z])'));
    expect(possessive.status).toBe(422);
    expect(possessive.body.detail).toMatch(/Unsupported Python regex .*possessive quantifier/);
    const groups = await verify('Answer: B', template('(Answer): ([A-Z])'));
    expect(groups.status).toBe(422);
    expect(groups.body.detail).toMatch(/has 2 groups/);
    for (const pattern of [null, 3, ['Answer: ([A-Z])', 3]]) {
      const reply = await verify('\\boxed{B}', template(pattern));
      expect(reply.status).toBe(422);
      expect(reply.body.detail).toMatch(/output_regex must be a regex or a list/);
    }
  });
});

describe('mcqa example data', () => {
  it('re-verifies data/example_rollouts.jsonl to the recorded rewards', async () => {
    const lines = readFileSync(new URL('./data/example_rollouts.jsonl', import.meta.url), 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      const recorded = JSON.parse(line);
      const { reward, extracted_answer, ...row } = recorded;
      const reply = await http.request(gym.url('mcqa', '/verify'), { body: row });
      expect(reply.json<Record<string, unknown>>()).toMatchObject({ reward, extracted_answer });
    }
  });

  it('runs a task end to end through the agent defined in configs/mcqa.yaml', async () => {
    const model = scriptedModel(() => [assistantMessage('Mercury has the shortest year.\n\\boxed{C}')]);
    const full = await startInProcessGym({
      overrides: ['+config_paths=[resources_servers/mcqa/configs/mcqa.yaml]', '+policy_model.responses_api_models.scripted.entrypoint=app.ts'],
      definitions: { policy_model: model.definition },
    });
    try {
      const row = JSON.parse(readFileSync(new URL('./data/example.jsonl', import.meta.url), 'utf8').split('\n')[0] as string);
      const reply = await http.request(full.url('mcqa_simple_agent', '/run'), { body: row });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json<Record<string, unknown>>()).toMatchObject({ reward: 1, extracted_answer: 'C', expected_answer: 'C' });
    } finally {
      await full.close();
    }
  });
});
