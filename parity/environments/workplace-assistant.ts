/**
 * workplace_assistant: the example rollouts, then call sequences made from the examples' ground truth: the exact
 * calls, one dropped, reversed, duplicated, an argument changed, an unrelated read-only call added, calls then
 * text, text only, empty. Every case opens a session with `/seed_session` first, as an agent does.
 */
import { join } from 'node:path';
import type { ResponseItem } from '../../src/protocol/index.ts';
import { type ParityCase, callOutput, dataRows, response, textOutput } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

interface Call {
  name: string;
  arguments: string;
}

function changed(call: Call, random: Random): Call {
  const args = JSON.parse(call.arguments) as Record<string, unknown>;
  const key = random.pick(Object.keys(args).length > 0 ? Object.keys(args) : ['x']);
  return { name: call.name, arguments: JSON.stringify({ ...args, [key]: typeof args[key] === 'string' ? `${args[key] as string}!` : 'changed' }) };
}

function sequenceCase(random: Random, rows: Record<string, unknown>[], index: number): ParityCase {
  const row = random.pick(rows);
  const truth = row.ground_truth as Call[];
  const shape = random.pick(['exact', 'exact', 'drop_one', 'reversed', 'duplicated', 'argument_changed', 'extra_read', 'then_text', 'text_only', 'empty']);
  let calls: Call[] = truth;
  if (shape === 'drop_one') calls = truth.filter((_call, position) => position !== random.int(0, truth.length - 1));
  if (shape === 'reversed') calls = [...truth].reverse();
  if (shape === 'duplicated') calls = [...truth, ...truth.slice(-1)];
  if (shape === 'argument_changed') calls = truth.map((call, position) => (position === truth.length - 1 ? changed(call, random) : call));
  if (shape === 'extra_read') calls = [{ name: 'company_directory_find_email_address', arguments: JSON.stringify({ name: 'Lucas' }) }, ...truth];
  if (shape === 'text_only' || shape === 'empty') calls = [];
  const output: ResponseItem[] = calls.map((call, position) => callOutput(call.name, call.arguments, index * 20 + position));
  if (shape === 'then_text' || shape === 'text_only') output.push(textOutput('Done.', index));
  const { response: _recorded, reward: _reward, ...fields } = row;
  return { kind: shape, seed: fields, verify: { ...fields, response: response(output, index) } };
}

export const workplaceAssistant: ParityEnvironment = {
  name: 'workplace_assistant',
  configs: { ngym: 'workplace_assistant.yaml', upstream: 'workplace_assistant.yaml' },
  // Both on upstream's office database (the wheel's csv_data/processed): on ngym's bundled synthetic one, a ground
  // truth naming someone upstream's data lacks fails on one side only, which is data, not the verifier.
  overrides: (python) => ({ database_dirpath: join(python.sitePackages, 'resources_servers', 'workplace_assistant', 'csv_data', 'processed') }),
  fields: [],
  generate(random, count) {
    const rollouts = dataRows('workplace_assistant', 'example_rollouts.jsonl');
    const cases: ParityCase[] = rollouts.map((row) => {
      const { reward: _reward, ...verify } = row;
      const { response: _response, ...seed } = verify;
      return { kind: 'rollout', seed, verify };
    });
    for (let index = cases.length; index < count; index += 1) cases.push(sequenceCase(random, rollouts, index));
    return cases;
  },
};
