/**
 * Parity with upstream on upstream's own database (csv_data/processed): the tools answer the recorded tool
 * calls of upstream's example rollouts byte for byte, the tool schemas equal upstream's, and verify gives
 * upstream's example tasks reward 1 for their ground-truth calls and 0 when the calls are altered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type InProcessGym,
  readJsonlRows,
  SHARED_SKIP_MESSAGE,
  sharedFixture,
  sharedFixturesAvailable,
} from 'ngym/testing';
import definition from './app.ts';
import { startWorkplaceGym, verifyBody, WorkplaceSession } from './test-helpers.ts';


interface Call {
  name: string;
  arguments: string;
}

/** Calls that change the outcome: another record's id, or a different value for the change. */
function alterations(groundTruth: Call[]): Call[][] {
  const last = groundTruth[groundTruth.length - 1] as Call;
  const args = JSON.parse(last.arguments) as Record<string, string>;
  const idKey = Object.keys(args).find((key) => key.endsWith('_id')) as string;
  const otherId = String(Number(args[idKey]) === 1 ? 2 : 1).padStart(8, '0');
  const valueKey = Object.keys(args).find((key) => key === 'new_value' || key === 'body');
  const altered: Call[][] = [
    groundTruth.slice(0, -1),
    [...groundTruth.slice(0, -1), { name: last.name, arguments: JSON.stringify({ ...args, [idKey]: otherId }) }],
  ];
  if (valueKey !== undefined) {
    altered.push([...groundTruth.slice(0, -1), { name: last.name, arguments: JSON.stringify({ ...args, [valueKey]: `${args[valueKey]} (edited)` }) }]);
  }
  return altered;
}

/** Upper-cases values no tool validates: a body, or a new value for a free-text or email field. */
function upperCaseFreeText(call: Call): Call {
  const args = JSON.parse(call.arguments) as Record<string, string>;
  const freeText = ['event_name', 'assigned_to_email', 'customer_email', 'customer_name', 'notes', 'task_name'];
  if (typeof args.body === 'string') args.body = args.body.toUpperCase();
  if (typeof args.new_value === 'string' && freeText.includes(args.field as string)) args.new_value = args.new_value.toUpperCase();
  return { name: call.name, arguments: JSON.stringify(args) };
}

describe.skipIf(!sharedFixturesAvailable())('workplace_assistant parity with upstream', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startWorkplaceGym(sharedFixture('workplace_assistant', 'csv_data', 'processed'));
  });
  afterAll(async () => {
    await gym?.close();
  });

  it("answers every recorded tool call of upstream's example rollouts byte for byte", async () => {
    const rollouts = readJsonlRows(sharedFixture('workplace_assistant', 'example_rollouts.jsonl'));
    let compared = 0;
    for (const rollout of rollouts) {
      const session = await new WorkplaceSession(gym).seed();
      const calls = new Map<string, Call>();
      for (const item of rollout.response.output) {
        if (item.type === 'function_call') calls.set(item.call_id, item);
        if (item.type !== 'function_call_output') continue;
        const call = calls.get(item.call_id) as Call;
        const answer = await session.call(call.name, call.arguments);
        expect(answer.text, `${call.name} ${call.arguments}`).toBe(item.output);
        compared++;
      }
    }
    expect(compared).toBe(8);
  });

  it("lists upstream's 27 tool schemas exactly", () => {
    const upstreamTools = readJsonlRows(sharedFixture('workplace_assistant', 'example.jsonl'))[0]?.responses_create_params.tools;
    expect(definition.toolDefinitions()).toEqual(upstreamTools);
  });

  it("rewards upstream's ground-truth calls with 1 and altered calls with 0", async () => {
    const rows = readJsonlRows(sharedFixture('workplace_assistant', 'example.jsonl'));
    for (const row of rows) {
      const truth = row.ground_truth as Call[];
      const session = () => new WorkplaceSession(gym).seed();
      const exact = await (await session()).verify(verifyBody(truth, truth));
      expect(exact.reward, `${row.id}: ground truth`).toBe(1);
      // Upper-cased free text is the same state under upstream's case rule.
      const shouting = truth.map(upperCaseFreeText);
      if (shouting.some((call, index) => call.arguments !== truth[index]?.arguments)) {
        expect((await (await session()).verify(verifyBody(shouting, truth))).reward, `${row.id}: upper case`).toBe(1);
      }
      for (const altered of alterations(truth)) {
        const result = await (await session()).verify(verifyBody(altered, truth));
        expect(result.reward, `${row.id}: ${JSON.stringify(altered)}`).toBe(0);
      }
    }
  });
});

describe.skipIf(sharedFixturesAvailable())('workplace_assistant parity with upstream', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});
