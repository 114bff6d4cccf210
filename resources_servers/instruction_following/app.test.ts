import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedHttpClient } from 'ngym';
import { type InProcessGym, startInProcessGym } from 'ngym/testing';
import { INSTRUCTIONS } from './instructions.ts';

const http = sharedHttpClient();
let gym: InProcessGym;

beforeAll(async () => {
  gym = await startInProcessGym({
    config: { instruction_following: { resources_servers: { instruction_following: { entrypoint: 'app.ts', domain: 'instruction_following', verify_workers: 1 } } } },
  });
});
afterAll(async () => gym?.close());

const message = (text: string) => ({ type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });

function verifyBody(ids: unknown[], kwargs: unknown[], output: unknown[]) {
  return {
    id: 7,
    prompt: 'the prompt',
    instruction_id_list: ids,
    kwargs,
    responses_create_params: { input: [{ role: 'user', content: 'the prompt' }] },
    response: { id: 'resp_1', object: 'response', created_at: 0, model: 'm', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [] },
  };
}

async function verify(ids: unknown[], kwargs: unknown[], output: unknown[]) {
  const response = await http.request(gym.url('instruction_following', '/verify'), { body: verifyBody(ids, kwargs, output) });
  return { status: response.status, body: response.json<Record<string, any>>(), text: response.text };
}

async function followed(id: string, kwargs: Record<string, unknown> | null, text: string): Promise<boolean> {
  const result = await verify([id], [kwargs], [message(text)]);
  expect(result.status, result.text).toBe(200);
  return result.body.follow_instruction_list[0];
}

const prompt = 'Write a short note about the sea.';
// [id, kwargs, a response that follows it, one that does not]
const CASES: [string, Record<string, unknown> | null, string, string][] = [
  ['keywords:existence', { keywords: ['ocean', 'wave\\w*'] }, 'The OCEAN has waves.', 'The ocean is calm.'],
  ['keywords:frequency', { keyword: 'sea', frequency: 2, relation: 'at least' }, 'Sea, sea everywhere.', 'The sea is blue.'],
  ['keywords:forbidden_words', { forbidden_words: ['salt'] }, 'The water is salty.', 'The Salt is everywhere.'],
  ['keywords:letter_frequency', { letter: 'z', let_frequency: 2, let_relation: 'less than' }, 'A lazy day.', 'Zebra zone.'],
  ['language:response_language', { language: 'hi' }, 'समिति अगले मंगलवार को बजट प्रस्ताव की समीक्षा करेगी।', 'The committee will meet next Tuesday.'],
  ['length_constraints:number_sentences', { num_sentences: 3, relation: 'less than' }, 'Dr. Smith came. He left.', 'One. Two. Three.'],
  ['length_constraints:number_paragraphs', { num_paragraphs: 2 }, 'First part.\n***\nSecond part.', 'First.\n***\n\n***\nSecond.'],
  ['length_constraints:number_words', { num_words: 3, relation: 'at least' }, 'café au lait', 'two words'],
  ['length_constraints:nth_paragraph_first_word', { num_paragraphs: 2, nth_paragraph: 2, first_word: 'then' }, 'Intro here.\n\n"Then, we sail.', 'Intro here.\n\nNow we sail.'],
  ['detectable_content:number_placeholders', { num_placeholders: 2 }, 'Dear [name], at [address].', 'Dear [name\n], at home.'],
  ['detectable_content:postscript', { postscript_marker: 'P.S.' }, 'Hello.\n  p.s. see you', 'Hello. PS see you'],
  ['detectable_format:number_bullet_lists', { num_bullets: 2 }, '* one\n- two\n**bold** line', '* one\n* two\n* three'],
  ['detectable_format:constrained_response', null, '  My answer is maybe.  ', 'My answer is perhaps.'],
  ['detectable_format:number_highlighted_sections', { num_highlights: 2 }, '*one* and **two**', '*one* and ** **'],
  ['detectable_format:multiple_sections', { section_spliter: 'Section', num_sections: 2 }, 'Section 1\nA\nSection 2\nB', 'Section 1\nA'],
  ['detectable_format:json_format', null, '```json\n{"a": NaN}\n```', '```json\n{"a": 1,}\n```'],
  ['detectable_format:title', null, 'Text <<A Title>> more', 'Text << >> more'],
  ['combination:two_responses', null, 'First answer.\n******\nSecond answer.', 'Same.\n******\nSame.'],
  ['combination:repeat_prompt', { prompt_to_repeat: prompt }, `  ${prompt.toUpperCase()} The sea is wide.`, `Sure. ${prompt}`],
  ['startend:end_checker', { end_phrase: 'Any other questions?' }, 'The sea is wide. any other questions?"', 'Any other questions? Bye.'],
  ['startend:quotation', null, ' "The sea." ', '"'],
  ['change_case:capital_word_frequency', { capital_frequency: 2, capital_relation: 'at least' }, 'The SEA is VERY wide.', 'The SEA is wide.'],
  ['change_case:english_capital', null, 'THE SEA IS VERY WIDE AND DEEP TODAY.', 'The sea is very wide and deep today.'],
  ['change_case:english_lowercase', null, 'the sea is very wide and deep today.', 'el mar es muy ancho y profundo hoy.'],
  ['punctuation:no_comma', null, 'No commas here.', 'Yes, one.'],
  ['copy:repeat_phrase', { phrase: 'The early bird catches the worm', small_n: 2 }, 'The early cat catches the worm. The early dog catches the worm.', 'The early cat catches the worm. The early bird catches the worm.'],
  ['copy:copy', { prompt_to_repeat: prompt }, `  ${prompt.toLowerCase()} `, `${prompt} Done.`],
  ['new:copy_span_idx', { prompt_to_repeat: 'Copy this sentence fully.', n_start: 5, n_end: 18 }, 'THIS SENTENCE', 'Copy this sentence'],
  ['detectable_format:sentence_hyphens', null, 'The sea is wide.-It is deep.', 'The sea is wide. - It is deep.'],
  ['keywords:no_adjacent_consecutive', null, 'The sea is wide', 'A big sea'],
  ['detectable_format:square_brackets', null, '[The] [sea] [is] [wide.]', '[The] sea'],
  ['keywords:word_once', { keyword: 'sea' }, 'The sea is wide.', 'The sea, the SEA.'],
  ['keywords:word_count_different_numbers', { keyword: 'wave', frequency: 2, relation: 'less than' }, 'One wave.', 'Wave after wave.'],
  ['keywords:exclude_word_harder', { keyword: 'sea' }, 'The Sea is wide; sea.', 'The sea is wide.'],
  ['paragraphs:paragraphs', {}, 'One.\n* * *\nignored\n***\nTwo.', 'One.\n***\nTwo.\n***\nThree.'],
  ['paragraphs:paragraphs2', {}, '\n\nOne.\n\nTwo.\n\n', 'One.\n\n\n\nTwo.'],
  ['first_word:first_word_sent', { first_word: 'sea' }, 'Sea is wide. SEA is deep!', 'Sea is wide. It is deep.'],
  ['first_word:first_word_answer', { first_word: 'Sea' }, ' sea is wide.', 'Sea, wide.'],
  ['last_word:last_word_sent', { last_word: 'sea' }, 'I love the sea. Look at the sea!', 'I love the sea. Look at it.'],
  ['last_word:last_word_answer', { last_word: 'sea' }, 'I love the SEA!!', ''],
  ['detectable_format:bigram_wrapping', null, '<<The sea>> <<is wide>> alone', '<<The sea>> is <<wide>>'],
  ['copy:copying_simple', { prompt_to_repeat: prompt }, prompt, `${prompt}!`],
  ['copy:copying_multiple', { prompt_to_repeat: prompt, N: 2 }, `${prompt}\n******\n${prompt}`, `${prompt}\n******\n${prompt}\n******\n${prompt}`],
  ['punctuation:punctuation_dot', null, 'No dots here!', 'A dot.'],
  ['punctuation:punctuation_exclamation', null, 'Calm.', 'Wow!'],
  ['count:lowercase_counting', { N: 2 }, 'THE sea IS wide café', 'the sea is wide'],
  ['letters:letter_counting', { N: 5, relation: 'less than' }, 'Sea 123', 'Oceans'],
  ['letters:letter_counting2', { letter: 'E', let_frequency: 3, let_relation: 'at least' }, 'EEe', 'ee'],
  [
    'count:counting_composition',
    { n_sent: 2, n_words: 3 }, // word_tokenize counts the period as a word
    'Seas roll. Waves crash.\n***\nBirds fly. Fish swim.\n***\nWinds blow. Clouds drift.',
    'Seas roll. Waves crash.\n***\nBirds fly.\n***\nWinds blow. Clouds drift.',
  ],
  ['count:count_unique', null, 'The sea is wide', 'The sea is the sea'],
  ['count:count_increment_word', { keyword1: 'sea', keyword2: 'wave' }, 'The sea has a wave, then a wave.', 'The sea has a wave.'],
  ['keywords:palindrome', null, 'See the level sea.', 'See the sea.'],
  ['keywords:keyword_specific_position', { keyword: 'sea', n: 2, m: 3 }, 'Hello there. I love sea views.', 'Hello there. I love the sea.'],
  ['keywords:start_end', null, 'Sea is wide, sea', 'Sea is wide.'],
];

describe('instruction_following /verify: every instruction id', () => {
  it('covers all 54 instruction ids', () => {
    expect(new Set(CASES.map(([id]) => id))).toEqual(new Set(Object.keys(INSTRUCTIONS)));
    expect(Object.keys(INSTRUCTIONS)).toHaveLength(54);
  });

  for (const [id, kwargs, pass, fail] of CASES) {
    it(`${id}: passes and fails`, async () => {
      expect(await followed(id, kwargs, pass), `should follow: ${JSON.stringify(pass)}`).toBe(true);
      expect(await followed(id, kwargs, fail), `should not follow: ${JSON.stringify(fail)}`).toBe(false);
    });
  }
});

describe('instruction_following /verify: reward and request handling', () => {
  it('rewards 1.0 only when every instruction is followed, and echoes the row', async () => {
    const ids = ['punctuation:no_comma', 'keywords:word_once'];
    const all = await verify(ids, [null, { keyword: 'sea' }], [message('The sea is wide.')]);
    expect(all.body).toMatchObject({ reward: 1, follow_all_instructions: true, follow_instruction_list: [true, true], id: 7, prompt: 'the prompt', kwargs: [null, { keyword: 'sea' }] });
    const one = await verify(ids, [null, { keyword: 'sea' }], [message('The sea, the sea.')]);
    expect(one.body).toMatchObject({ reward: 0, follow_all_instructions: false, follow_instruction_list: [false, false] });
  });

  it('pairs ids with kwargs like zip (shortest wins); an empty list follows all (0.7.0: all([]) is true)', async () => {
    const zipped = await verify(['punctuation:no_comma', 'punctuation:punctuation_dot'], [null], [message('ok.')]);
    expect(zipped.body.follow_instruction_list).toEqual([true]);
    expect(zipped.body.reward).toBe(1);
    const empty = await verify([], [], [message('ok')]);
    expect(empty.body).toMatchObject({ reward: 1, follow_all_instructions: true, follow_instruction_list: [] });
  });

  it('scores unknown ids, unexpected kwargs, wrong types and kwargs upstream would randomize as not followed', async () => {
    const result = await verify(
      ['no:such_id', 'punctuation:no_comma', 'length_constraints:number_words', 'length_constraints:number_words', 'language:response_language', 'new:copy_span_idx'],
      [null, { extra: 1 }, { num_words: '5', relation: 'at least' }, { num_words: 5 }, { language: 'xx' }, { prompt_to_repeat: 'abc', n_start: 0, n_end: 2 }],
      [message('one two three four five six')],
    );
    expect(result.body.follow_instruction_list).toEqual([false, false, false, false, false, false]);
    // None values are dropped before building, as upstream does.
    expect(await followed('length_constraints:number_words', { num_words: 3, relation: 'at least', unused: null }, 'one two three')).toBe(true);
  });

  it('0.7.0: first_word_sent never reads a list first_word (upstream compares instead of assigning); last_word_sent does', async () => {
    expect(await followed('first_word:first_word_sent', { first_word: 'We' }, 'We sail. We row.')).toBe(true);
    expect(await followed('first_word:first_word_sent', { first_word: ['We'] }, 'We sail. We row.')).toBe(false);
    expect(await followed('last_word:last_word_sent', { last_word: ['row'] }, 'We row. They row.')).toBe(true);
  });

  it('counts a keyword right after another instruction searched for it (one cached regex)', async () => {
    const result = await verify(['keywords:existence', 'keywords:word_once'], [{ keywords: ['ship'] }, { keyword: 'ship' }], [message('A ship appears.')]);
    expect(result.body.follow_instruction_list).toEqual([true, true]);
  });

  it("checks the last output item's first text only", async () => {
    const ids = ['keywords:existence'];
    const kwargs = [{ keywords: ['sea'] }];
    expect((await verify(ids, kwargs, [message('sea'), { type: 'function_call', name: 'f', arguments: '{}', call_id: 'c' }])).body.reward).toBe(0);
    expect((await verify(ids, kwargs, [message('no'), message('sea')])).body.reward).toBe(1);
    expect((await verify(ids, kwargs, [])).body.reward).toBe(0);
  });

  it('counts an undetectable language as followed, as langdetect errors are', async () => {
    expect(await followed('language:response_language', { language: 'fr' }, '12345 !!!')).toBe(true);
    // Upper case (Roman numerals are) but no character the profiles know: detection fails, so it passes.
    expect(await followed('change_case:english_capital', null, 'Ⅻ Ⅸ')).toBe(true);
  });

  it('rejects rows without the instruction fields (422 naming the field)', async () => {
    const body = verifyBody(['punctuation:no_comma'], [null], [message('x')]) as Record<string, unknown>;
    delete body.kwargs;
    const response = await http.request(gym.url('instruction_following', '/verify'), { body });
    expect(response.status).toBe(422);
    expect(response.text).toContain('kwargs');
  });
});

async function verifyRow(row: Record<string, unknown>, text = 'The sea is wide.') {
  const base = verifyBody([], [], [message(text)]) as Record<string, unknown>;
  for (const field of ['prompt', 'instruction_id_list', 'kwargs']) delete base[field];
  const response = await http.request(gym.url('instruction_following', '/verify'), { body: { ...base, ...row } });
  return { status: response.status, body: response.json<Record<string, any>>(), text: response.text };
}

describe('instruction_following /verify: 0.7.0 verifier_metadata and grading_mode', () => {
  const metadata = { instruction_id_list: ['punctuation:no_comma', 'keywords:word_once', 'startend:quotation'], prompt: 'p', kwargs: [null, { keyword: 'sea' }, null] };

  it('reads the fields under verifier_metadata and answers it back', async () => {
    const result = await verifyRow({ verifier_metadata: metadata });
    expect(result.status, result.text).toBe(200);
    expect(result.body).toMatchObject({ reward: 0, follow_all_instructions: false, follow_instruction_list: [true, true, false], verifier_metadata: metadata });
  });

  it('migrates top-level fields into verifier_metadata; explicit verifier_metadata values win', async () => {
    const legacy = await verifyRow({ ...metadata, grading_mode: 'fraction' });
    expect(legacy.body.verifier_metadata).toEqual({ ...metadata, grading_mode: 'fraction' });
    expect(legacy.body.reward).toBeCloseTo(2 / 3, 12);
    // The top-level kwargs would fail word_once ("wide"); verifier_metadata's are the ones used.
    const mixed = await verifyRow({ instruction_id_list: ['keywords:word_once'], kwargs: [{ keyword: 'wide' }], prompt: 'top', verifier_metadata: { kwargs: [{ keyword: 'whale' }] } });
    expect(mixed.body).toMatchObject({ follow_instruction_list: [false], verifier_metadata: { instruction_id_list: ['keywords:word_once'], kwargs: [{ keyword: 'whale' }], prompt: 'top' } });
    // A null (falsy) verifier_metadata is an empty one, so the top-level fields fill it.
    const nulled = await verifyRow({ ...metadata, verifier_metadata: null });
    expect(nulled.body.follow_instruction_list).toEqual([true, true, false]);
  });

  it('refuses rows missing a required field (422 naming it) but accepts a present null prompt', async () => {
    const missing = await verifyRow({ verifier_metadata: { instruction_id_list: [], prompt: 'p' } });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('verifier_metadata is missing required fields: kwargs');
    expect((await verifyRow({ verifier_metadata: { instruction_id_list: [], kwargs: [], prompt: null } })).status).toBe(200);
    const notObject = await verifyRow({ verifier_metadata: 'instructions' });
    expect(notObject.status).toBe(422);
    expect(notObject.text).toContain('verifier_metadata');
  });

  it('grades binary by default, fraction as the share followed (0.0 for no instructions), refuses other modes', async () => {
    expect((await verifyRow({ verifier_metadata: { ...metadata, grading_mode: 'binary' } })).body.reward).toBe(0);
    const fraction = await verifyRow({ verifier_metadata: { ...metadata, grading_mode: 'fraction' } });
    expect(fraction.body).toMatchObject({ follow_all_instructions: false, follow_instruction_list: [true, true, false] });
    expect(fraction.body.reward).toBeCloseTo(2 / 3, 12);
    const allFollowed = await verifyRow({ verifier_metadata: { ...metadata, grading_mode: 'fraction' } }, '"The sea is wide."');
    expect(allFollowed.body.reward).toBe(1);
    const none = await verifyRow({ verifier_metadata: { instruction_id_list: [], prompt: 'p', kwargs: [], grading_mode: 'fraction' } });
    expect(none.body).toMatchObject({ reward: 0, follow_all_instructions: true });
    for (const mode of ['partial', null]) {
      const refused = await verifyRow({ verifier_metadata: { ...metadata, grading_mode: mode } });
      expect(refused.status, String(mode)).toBe(422);
      expect(refused.text).toContain('grading_mode');
    }
  });
});

describe('instruction_following example data', () => {
  it('re-verifies data/example_rollouts.jsonl to its recorded rewards and results', async () => {
    const lines = readFileSync(new URL('./data/example_rollouts.jsonl', import.meta.url), 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      const rollout = JSON.parse(line) as Record<string, any>;
      const { reward, follow_all_instructions, follow_instruction_list, ...row } = rollout;
      const response = await http.request(gym.url('instruction_following', '/verify'), { body: row });
      expect(response.json<Record<string, unknown>>()).toMatchObject({ reward, follow_all_instructions, follow_instruction_list });
    }
  });
});
