/**
 * Assertions the rubric-judged environments' tests (multichallenge, inverse_if) share: both are checked through HTTP
 * the same way, on in-process gyms whose judge is scripted.
 */
import { expect } from 'vitest';
import { sharedHttpClient } from 'ngym';
import { type ExampleData, type InProcessGym, readJsonlRows } from 'ngym/testing';

type Verify = (extra: Record<string, unknown>) => Promise<{ status: number; body: Record<string, any> }>;

/** Each body change is refused with 422, and the detail names the field. */
export async function expectRefused(verify: Verify, cases: readonly [Record<string, unknown>, string][]): Promise<void> {
  for (const [extra, location] of cases) {
    const { status, body } = await verify(extra);
    expect({ extra, status }).toEqual({ extra, status: 422 });
    expect(body.detail.map((detail: { loc: (string | number)[] }) => detail.loc.join('.'))).toContain(location);
  }
}

/**
 * Every example rollout, its response put back into its row (verify leaves the rubric out), verifies again to the
 * recorded reward, evaluations and answer text; `rewards` are the recorded ones, in order.
 */
export async function expectExampleRolloutsReverify(gym: InProcessGym, server: string, data: ExampleData, rewards: number[]): Promise<void> {
  const rows = readJsonlRows(data.examplePath);
  const recordings = readJsonlRows(data.rolloutsPath);
  expect(recordings.map((recorded) => recorded.reward)).toEqual(rewards);
  for (const [index, recorded] of recordings.entries()) {
    const body = (await sharedHttpClient().request(gym.url(server, '/verify'), { body: { ...rows[index], response: recorded.response } })).json<Record<string, any>>();
    const { reward, rubric_evaluations, generated_response } = body;
    expect({ reward, rubric_evaluations, generated_response }).toEqual({ reward: recorded.reward, rubric_evaluations: recorded.rubric_evaluations, generated_response: recorded.generated_response });
  }
}
