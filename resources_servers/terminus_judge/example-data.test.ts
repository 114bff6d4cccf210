import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedJudge } from 'ngym';
import { callServer, type InProcessGym, readJsonlRows, startInProcessGym } from 'ngym/testing';
import { EXAMPLE_DATA, exampleRows } from './example-data.ts';

const FIELDS = ['reward', 'failure_reason', 'similarity_score', 'schema_check_passed', 'task_complete_check_passed', 'string_similarity_passed', 'judge_passed'];

describe('terminus_judge example data', () => {
  const recorded = readJsonlRows(EXAMPLE_DATA.rolloutsPath);
  const judge = recordedJudge(recorded.flatMap((rollout) => rollout.judge_evaluations));
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      overrides: [`+config_paths=[${EXAMPLE_DATA.configPath}]`, '+policy_model.responses_api_models.scripted.entrypoint=app.ts'],
      definitions: { policy_model: judge.definition },
    });
  });
  afterAll(async () => gym?.close());

  it('example.jsonl is what example-data.ts writes', () => {
    expect(readJsonlRows(EXAMPLE_DATA.examplePath)).toEqual(JSON.parse(JSON.stringify(exampleRows())));
  });

  it('the example rollouts re-verify to their recorded fields, the judge replaying its recorded replies', async () => {
    expect(recorded.map((rollout) => [rollout.reward, rollout.failure_reason])).toEqual([
      [1, 'none'],
      [1, 'none'],
      [0, 'task_complete_check_failed'],
      [0, 'schema_check_failed'],
      [0, 'judge_not_equivalent'],
    ]);
    const rows = exampleRows();
    for (const [index, rollout] of recorded.entries()) {
      const result = await callServer(gym, 'terminus_judge_resources_server', '/verify', { ...rows[index], response: rollout.response });
      const pick = (body: Record<string, unknown>) => Object.fromEntries(FIELDS.map((field) => [field, body[field]]));
      expect(pick(result), `rollout ${index}`).toEqual(pick(rollout));
    }
    expect(judge.answered).toBe(4);
  });
});
