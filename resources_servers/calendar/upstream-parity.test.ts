/**
 * Parity with upstream: re-verifying upstream's recorded calendar rollouts gives their recorded rewards.
 * The rollouts do not carry `exp_cal_state`; it is joined from upstream's example rows by the last user message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstPartText, sharedHttpClient } from 'ngym';
import {
  type InProcessGym,
  readJsonlRows,
  SHARED_SKIP_MESSAGE,
  sharedFixture,
  sharedFixturesAvailable,
  startInProcessGym,
} from 'ngym/testing';
import { gradeCalendar } from './grade.ts';


const lastUserText = (row: Record<string, any>): string => [...row.responses_create_params.input].reverse().find((item: any) => item.role === 'user').content;

describe.skipIf(!sharedFixturesAvailable())('calendar parity with upstream', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({ config: { calendar: { resources_servers: { calendar: { entrypoint: 'app.ts', domain: 'agent' } } } } });
  });
  afterAll(async () => {
    await gym?.close();
  });

  it("re-verifies upstream's recorded rollouts with their recorded rewards", async () => {
    const rows = new Map(readJsonlRows(sharedFixture('calendar', 'example.jsonl')).map((row) => [lastUserText(row), row]));
    const rollouts = readJsonlRows(sharedFixture('calendar', 'example_rollouts.jsonl'));
    expect(rollouts.map((rollout) => rollout.reward)).toEqual([1, 0, 1, 0, 0]);
    const reasons: string[] = [];
    for (const rollout of rollouts) {
      const row = rows.get(lastUserText(rollout));
      expect(row, lastUserText(rollout)).toBeDefined();
      const { reward: _recorded, ...fields } = rollout;
      const body = { ...fields, exp_cal_state: row?.exp_cal_state };
      const response = await sharedHttpClient().request(gym.url('calendar', '/verify'), { body });
      expect(response.status, response.text).toBe(200);
      expect(response.json<{ reward: number }>().reward).toBe(rollout.reward);
      reasons.push(gradeCalendar(firstPartText(rollout.response.output.at(-1)), row?.exp_cal_state).reason);
    }
    // The failure reasons upstream's grader gives these rollouts.
    expect(reasons).toEqual(['pass', 'constraint_violated', 'pass', 'constraint_violated', 'conflicting_events']);
  });
});

describe.skipIf(sharedFixturesAvailable())('calendar parity with upstream', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});
