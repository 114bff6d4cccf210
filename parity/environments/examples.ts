/**
 * example_single_tool_call and example_multi_step: the example rollouts, then generated call sequences (the right
 * calls, wrong values, wrong order, the term itself, missing calls, text only, empty output).
 */
import type { ResponseItem } from '../../src/protocol/index.ts';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

const CITIES = ['Paris', 'Tokyo', 'São Paulo', '', 'new york', '東京'];

function weatherCase(random: Random, rows: Record<string, unknown>[], index: number): ParityCase {
  const row = random.pick(rows);
  const shape = random.pick(['get_weather', 'get_weather_then_text', 'text_only', 'other_tool', 'two_calls', 'empty', 'bad_arguments']);
  const city = random.pick(CITIES);
  const outputs: Record<string, ResponseItem[]> = {
    get_weather: [callOutput('get_weather', { city }, index)],
    get_weather_then_text: [callOutput('get_weather', { city }, index), textOutput(`It is cold in ${city}.`, index)],
    text_only: [textOutput('Bring a jacket.', index)],
    other_tool: [callOutput('get_time', { city }, index)],
    two_calls: [callOutput('get_weather', { city }, index), callOutput('get_weather', { city: 'Rome' }, index + 1)],
    empty: [],
    bad_arguments: [callOutput('get_weather', '{"city":', index)],
  };
  return { kind: shape, verify: { responses_create_params: row.responses_create_params, response: response(outputs[shape] ?? [], index) } };
}

export const exampleSingleToolCall: ParityEnvironment = {
  name: 'example_single_tool_call',
  configs: { ngym: 'example_single_tool_call.yaml', upstream: 'example_single_tool_call.yaml' },
  fields: [],
  generate(random, count) {
    const cases = dataRows('example_single_tool_call', 'example_rollouts.jsonl').map((row) => rolloutCase(row, []));
    const rows = dataRows('example_single_tool_call', 'example.jsonl');
    for (let index = cases.length; index < count; index += 1) cases.push(weatherCase(random, rows, index));
    return cases;
  },
};

const MULTI_STEP_FIELDS = ['parsed_synonym_values', 'accuracy', 'set_overlap', 'original_term_minefield_hit', 'order_instruction_following_failure'];

function multiStepCase(random: Random, rows: Record<string, unknown>[], index: number): ParityCase {
  const row = random.pick(rows);
  const expected = row.expected_synonym_values as number[];
  const synonyms = row.expected_synonyms as string[];
  const shape = random.pick(['right', 'reversed', 'subset', 'extra_value', 'minefield', 'wrong_values', 'no_extract_call', 'two_extract_calls', 'text_only', 'empty', 'bad_arguments', 'duplicate']);
  const values: Record<string, unknown> = {
    right: expected,
    reversed: [...expected].reverse(),
    subset: expected.slice(0, 1),
    extra_value: [...expected, 7],
    minefield: [...expected, row.minefield_label_value],
    wrong_values: expected.map((value) => value + random.int(1, 5)),
    duplicate: [...expected, ...expected],
  };
  const lookups = synonyms.map((synonym, position) => callOutput('get_synonym_value', { synonym }, index * 10 + position));
  let output: ResponseItem[];
  if (shape === 'no_extract_call') output = [...lookups, textOutput(JSON.stringify(expected), index)];
  else if (shape === 'two_extract_calls') output = [...lookups, callOutput('extract_synonym_values', { synonym_values: [1] }, index * 10 + 8), callOutput('extract_synonym_values', { synonym_values: expected }, index * 10 + 9)];
  else if (shape === 'text_only') output = [textOutput(`The values are ${expected.join(', ')}.`, index)];
  else if (shape === 'empty') output = [];
  else if (shape === 'bad_arguments') output = [...lookups, callOutput('extract_synonym_values', '{"synonym_values": [1,', index * 10 + 9)];
  else output = [...lookups, callOutput('extract_synonym_values', { synonym_values: values[shape] }, index * 10 + 9), textOutput('Done.', index)];
  const { response: _recorded, ...fields } = rolloutCase(row, MULTI_STEP_FIELDS).verify;
  return { kind: shape, verify: { ...fields, response: response(output, index) } };
}

export const exampleMultiStep: ParityEnvironment = {
  name: 'example_multi_step',
  configs: { ngym: 'example_multi_step.yaml', upstream: 'example_multi_step.yaml' },
  fields: MULTI_STEP_FIELDS,
  generate(random, count) {
    const cases = dataRows('example_multi_step', 'example_rollouts.jsonl').map((row) => rolloutCase(row, MULTI_STEP_FIELDS));
    const rows = dataRows('example_multi_step', 'example.jsonl');
    for (let index = cases.length; index < count; index += 1) cases.push(multiStepCase(random, rows, index));
    return cases;
  },
};
