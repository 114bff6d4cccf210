import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedHttpClient } from 'ngym';
import {
  assistantMessage,
  callServer,
  exampleData,
  type InProcessGym,
  modelResponse,
  replayExampleRollouts,
  SHARED_SKIP_MESSAGE,
  sharedFixturesAvailable,
  startInProcessGym,
  upstreamRollouts,
} from 'ngym/testing';

const http = sharedHttpClient();

const KNIGHTS = {
  question: 'A very special island ... (Format your answer like: "Zoey is a sage/fool, and Riley is a sage/fool")',
  answer: 'Zoey is a fool, and Riley is a sage.',
  metadata: { source_dataset: 'knights_knaves', source_index: 0 },
};

describe('reasoning_gym /verify', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({ config: { reasoning_gym: { resources_servers: { reasoning_gym: { entrypoint: 'app.ts', domain: 'knowledge' } } } } });
  });
  afterAll(async () => {
    await gym.close();
  });

  const verify = async (texts: string[], row: Record<string, unknown> = KNIGHTS) => {
    const response = await http.request(gym.url('reasoning_gym', '/verify'), {
      body: { responses_create_params: { input: 'q' }, response: modelResponse(texts.map((text) => assistantMessage(text))), ...row },
    });
    return { status: response.status, text: response.text, body: response.status === 200 ? response.json<Record<string, any>>() : undefined };
  };

  it('scores the last <answer> tag, stripped, and returns task_name, score and extracted_answer', async () => {
    const result = await verify(['<answer>Zoey is a sage</answer> no wait...\n<answer>\n Zoey is a fool, and Riley is a sage. \n</answer>']);
    expect(result.status, result.text).toBe(200);
    expect(result.body).toMatchObject({ reward: 1, score: 1, task_name: 'knights_knaves', extracted_answer: 'Zoey is a fool, and Riley is a sage.' });
    // Row fields are kept (ngym echoes the whole request; see docs/decisions/0002).
    expect(result.body?.metadata).toEqual(KNIGHTS.metadata);
  });

  it('falls back to \\boxed{}, then to the whole text, joining every message', async () => {
    expect((await verify(['So: \\boxed{ Zoey is a fool, Riley is a sage } and \\boxed{other}'])).body).toMatchObject({
      extracted_answer: 'Zoey is a fool, Riley is a sage',
      reward: 1,
    });
    const joined = await verify(['  Zoey is a fool, ', 'and Riley is a sage.\n']);
    expect(joined.body).toMatchObject({ extracted_answer: 'Zoey is a fool, and Riley is a sage.', reward: 1 });
    expect((await verify(['Zoey is a sage, and Riley is a sage.'])).body?.reward).toBe(0.3 + (0.7 * 1) / 2);
    expect((await verify([])).body).toMatchObject({ extracted_answer: '', reward: 0 });
  });

  it('gives mini_sudoku partial credit through the HTTP surface', async () => {
    const solution = [
      [1, 3, 4, 2],
      [4, 2, 3, 1],
      [3, 1, 2, 4],
      [2, 4, 1, 3],
    ];
    const row = { question: 'q', answer: '1 3 4 2\n4 2 3 1\n3 1 2 4\n2 4 1 3', metadata: { source_dataset: 'mini_sudoku', source_index: 0, solution } };
    expect((await verify(['<answer>1|3|4|2\n4|2|3|1\n3|1|2|4\n2|4|1|3</answer>'], row)).body?.reward).toBe(0.9);
    expect((await verify(['<answer>\n1 3 4 2\n4 2 3 1\n3 1 2 4\n2 4 1 3\n</answer>'], row)).body?.reward).toBe(1);
    expect((await verify(['I cannot solve this.'], row)).body?.reward).toBe(0);
  });

  it('scores 0 when the metadata the scorer needs is malformed, as upstream', async () => {
    const row = { question: 'q', answer: 'x', metadata: { source_dataset: 'mini_sudoku', solution: 'not a grid' } };
    expect((await verify(['<answer>1 2 3 4</answer>'], row)).body).toMatchObject({ reward: 0, score: 0, task_name: 'mini_sudoku' });
  });

  it('answers 500 ValueError without a task name and 422 without the verifier fields', async () => {
    const missing = await verify(['x'], { question: 'q', answer: null, metadata: {} });
    expect(missing.status).toBe(500);
    expect(missing.text).toContain('ValueError(');
    expect(missing.text).toContain('No task name found in metadata');
    const noMetadata = await verify(['x'], { question: 'q', answer: null });
    expect(noMetadata.status).toBe(422);
    expect(noMetadata.text).toContain('metadata');
  });
});

describe('reasoning_gym example rollouts', () => {
  it('replay under strict replay_model with their recorded rewards', async () => {
    const replayed = await replayExampleRollouts(exampleData('reasoning_gym'));
    expect(replayed).toHaveLength(5);
    expect(new Set(replayed.map(({ row }) => row.metadata.source_dataset)).size).toBe(5);
    for (const { row, recorded, result } of replayed) {
      expect(result.response.output).toEqual(recorded.response.output);
      expect({ reward: result.reward, score: result.score, extracted_answer: result.extracted_answer, task_name: result.task_name }).toEqual({
        reward: recorded.reward,
        score: recorded.score,
        extracted_answer: recorded.extracted_answer,
        task_name: row.metadata.source_dataset,
      });
    }
    // The examples exercise full, partial (0.9 rule, 0.3 + 0.7 k/n, 0.2) and boxed-answer scoring.
    expect(replayed.map(({ recorded }) => recorded.reward)).toEqual([0.9, 0.3 + 0.7 / 2, 1, 0.2, 1]);
  });
});

describe.skipIf(!sharedFixturesAvailable())('reasoning_gym upstream parity', () => {
  it("re-scores upstream's recorded rollouts with the recorded rewards", async () => {
    const gym = await startInProcessGym({ config: { reasoning_gym: { resources_servers: { reasoning_gym: { entrypoint: 'app.ts', domain: 'knowledge' } } } } });
    try {
      // Rollouts keep only the verify response's fields; the row is found by its question (its last user message).
      const recorded = upstreamRollouts('reasoning_gym');
      expect(recorded).toHaveLength(5);
      for (const { row, rollout } of recorded) {
        const result = await callServer(gym, 'reasoning_gym', '/verify', { ...row, response: rollout.response });
        expect(result.reward).toBe(rollout.reward);
        expect(result.score).toBe(rollout.score);
        expect(result.task_name).toBe(rollout.task_name);
        // The recording predates upstream's stripping of the whole-text fallback.
        expect(result.extracted_answer).toBe(rollout.extracted_answer.trim());
      }
      expect(recorded.map(({ rollout }) => rollout.reward)).toEqual([1, 1, 0, 0, 0]);
    } finally {
      await gym.close();
    }
  });
});

describe.skipIf(sharedFixturesAvailable())('reasoning_gym upstream parity', () => {
  it.skip(SHARED_SKIP_MESSAGE, () => {});
});
