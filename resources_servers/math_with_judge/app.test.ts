import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ConfigDict, ERROR_CODE_HEADER, sharedHttpClient } from 'ngym';
import {
  assistantMessage,
  type InProcessGym,
  modelResponse,
  type ScriptedModel,
  scriptedModel,
  startFakeEndpoint,
  startInProcessGym,
} from 'ngym/testing';
import { JUDGE_SYSTEM_MESSAGE } from './app.ts';

const http = sharedHttpClient();
const row = { question: 'What is 1/2 + 1/3?', expected_answer: '\\frac{5}{6}', responses_create_params: { input: [{ role: 'user', content: 'Solve: 1/2 + 1/3' }] } };
const config = (extra: ConfigDict = {}): ConfigDict => ({
  math_with_judge: {
    resources_servers: {
      math_with_judge: { entrypoint: 'app.ts', domain: 'math', judge_model_server: { type: 'responses_api_models', name: 'judge_model' }, math_workers: 1, ...extra },
    },
  },
  judge_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
});

let verdicts: string[] = [];
let judge: ScriptedModel;
let gym: InProcessGym;
beforeAll(async () => {
  judge = scriptedModel(({ index }) => [assistantMessage(verdicts[index] ?? 'no verdict')]);
  gym = await startInProcessGym({ config: config(), definitions: { judge_model: judge.definition } });
});
afterAll(async () => gym.close());
afterEach(() => {
  judge.calls.length = 0;
  verdicts = [];
});

async function verify(text: string, extra: Record<string, unknown> = {}, target: InProcessGym = gym) {
  const reply = await http.request(target.url('math_with_judge', '/verify'), { body: { ...row, ...extra, response: modelResponse([assistantMessage(text)]) } });
  return { status: reply.status, headers: reply.headers, body: reply.json<Record<string, any>>(), text: reply.text };
}

describe('math_with_judge library check', () => {
  it('rewards an equivalent answer without asking the judge', async () => {
    const { body } = await verify('1/2 + 1/3 = 3/6 + 2/6.\n\n\\boxed{\\dfrac{10}{12}}');
    expect(body).toMatchObject({ reward: 1, library_reward: 1, extracted_answer: '5/6', expected_answer: '\\frac{5}{6}', judge_evaluations: null, question: row.question });
    expect(judge.calls).toHaveLength(0);
  });

  it('concatenates every output_text of every message item', async () => {
    const response = modelResponse([assistantMessage('The answer is \\boxed{\\frac{5}'), assistantMessage('{6}}')]);
    const reply = await http.request(gym.url('math_with_judge', '/verify'), { body: { ...row, response } });
    expect(reply.json<Record<string, unknown>>()).toMatchObject({ library_reward: 1 });
  });

  // Upstream 0.7.0's gate: no complete, non-empty last \boxed{} means reward 0, no extracted answer, no judge call.
  it.each([
    ['no box', 'The answer is $\\frac{5}{6}$.'],
    ['a box never closed', 'So \\boxed{\\frac{5}{6}'],
    ['an empty box', 'First \\boxed{\\frac{5}{6}}, then \\boxed{ }'],
    ['\\fbox only', '\\fbox{\\frac{5}{6}}'],
  ])('scores an answer with %s 0 before the library or the judge sees it', async (_, text) => {
    verdicts = ['[[A=B]]', '[[A=B]]'];
    const { body } = await verify(text);
    expect(body).toMatchObject({ reward: 0, library_reward: 0, extracted_answer: null, judge_evaluations: null });
    expect(judge.calls).toHaveLength(0);
  });

  it('reads the whole text once a box closes it: two boxes close together are one set (math-verify 0.8)', async () => {
    const { body } = await verify('Either \\boxed{\\frac{5}{6}} or \\boxed{\\frac{6}{5}}');
    expect(body).toMatchObject({ library_reward: 0, extracted_answer: '{5/6, 6/5}' });
  });

  it('requires question and expected_answer', async () => {
    const reply = await http.request(gym.url('math_with_judge', '/verify'), { body: { responses_create_params: row.responses_create_params, response: modelResponse([]) } });
    expect(reply.status).toBe(422);
    expect(reply.text).toContain('question');
  });
});

describe('math_with_judge judge fallback (both orders)', () => {
  it('asks the judge in both orders and rewards only when both say equal', async () => {
    verdicts = ['They agree. [[A=B]]', 'Still the same [[A=B]]'];
    const { body } = await verify('It is five sixths: \\boxed{\\text{five sixths}}');
    expect(body).toMatchObject({ reward: 1, library_reward: 0 });
    expect(body.judge_evaluations).toHaveLength(2);
    const [first, second] = judge.calls;
    expect(first?.input).toEqual([
      { role: 'system', content: JUDGE_SYSTEM_MESSAGE, type: 'message' },
      {
        role: 'user',
        type: 'message',
        content: `<|Problem|>\n${row.question}\n\n<|Start of Assistant A's Answer|>\n\\frac{5}{6}\n<|End of Assistant A's Answer|>\n\n<|Start of Assistant B's Answer|>\n\\text{five sixths}\n<|End of Assistant B's Answer|>`,
      },
    ]);
    // Swapped: A is the generated box's content (0.7.0 sends no more of the generation), B the expected answer.
    expect(second?.input[1]?.content).toContain("Assistant A's Answer|>\n\\text{five sixths}\n");
    expect(second?.input[1]?.content).toContain("Assistant B's Answer|>\n\\frac{5}{6}\n");
    expect(body.judge_evaluations[0].responses_create_params.input).toEqual(first?.input);
  });

  it('stops after a first "not equal", and fails the swap check', async () => {
    verdicts = ['My final verdict is different [[A!=B]]'];
    const first = await verify('\\boxed{\\text{seven}}');
    expect(first.body).toMatchObject({ reward: 0, library_reward: 0 });
    expect(first.body.judge_evaluations).toHaveLength(1);

    judge.calls.length = 0;
    verdicts = ['[[A=B]]', 'On reflection they differ [[A!=B]]'];
    const swapped = await verify('\\boxed{\\text{seven}}');
    expect(swapped.body).toMatchObject({ reward: 0 });
    expect(swapped.body.judge_evaluations).toHaveLength(2);
  });

  it('reads a reply without a label, or with [[A!=B]] first, as not equal', async () => {
    verdicts = ['[[A!=B]] ... or [[A=B]]?'];
    expect((await verify('\\boxed{\\text{seven}}')).body.reward).toBe(0);
    judge.calls.length = 0;
    verdicts = ['I cannot decide.'];
    expect((await verify('\\boxed{\\text{seven}}')).body.reward).toBe(0);
  });

  it('records a failed judge call as a judge failure (502, NGYM_JUDGE_FAILED), not a zero reward', async () => {
    const fake = await startFakeEndpoint(() => ({ status: 500, body: { detail: 'judge crashed' } }));
    const url = new URL(fake.url);
    const broken = await startInProcessGym({ config: config(), external: { judge_model: { host: url.hostname, port: Number(url.port) } } });
    try {
      const result = await verify('\\boxed{\\text{seven}}', {}, broken);
      expect(result.status).toBe(502);
      expect(result.headers[ERROR_CODE_HEADER]).toBe('NGYM_JUDGE_FAILED');
      expect(result.body).toMatch(/^JudgeError\(.*judge_model.*answered HTTP 500: .*judge crashed/);
      // A library match never needs the judge, so it still scores.
      expect((await verify('\\boxed{5/6}', {}, broken)).body.reward).toBe(1);
    } finally {
      await broken.close();
      await fake.close();
    }
  });

  it('fails the rollout of the agent in configs/math_with_judge.yaml with the judge failure code', async () => {
    const fake = await startFakeEndpoint(() => ({ status: 503, body: { detail: 'overloaded' } }));
    const url = new URL(fake.url);
    const policy = scriptedModel(() => [assistantMessage('\\boxed{\\text{seven}}')]);
    const full = await startInProcessGym({
      overrides: [
        '+config_paths=[resources_servers/math_with_judge/configs/math_with_judge.yaml]',
        '+math_with_judge.resources_servers.math_with_judge.judge_model_server.name=judge_model',
        '+judge_model.responses_api_models.scripted.entrypoint=app.ts',
        '+policy_model.responses_api_models.scripted.entrypoint=app.ts',
      ],
      definitions: { policy_model: policy.definition },
      external: { judge_model: { host: url.hostname, port: Number(url.port) } },
    });
    try {
      const reply = await http.request(full.url('math_with_judge_simple_agent', '/run'), { body: row });
      expect(reply.status).toBe(500);
      expect(reply.headers[ERROR_CODE_HEADER]).toBe('NGYM_JUDGE_FAILED');
    } finally {
      await full.close();
      await fake.close();
    }
  });

  it('does not ask the judge when should_use_judge is false', async () => {
    const model = scriptedModel(() => [assistantMessage('[[A=B]]')]);
    const noJudge = await startInProcessGym({ config: config({ should_use_judge: false }), definitions: { judge_model: model.definition } });
    try {
      const { body } = await verify('\\boxed{\\text{five sixths}}', {}, noJudge);
      expect(body).toMatchObject({ reward: 0, library_reward: 0, judge_evaluations: null });
      expect(model.calls).toHaveLength(0);
    } finally {
      await noJudge.close();
    }
  });
});

describe('math_with_judge time limit', () => {
  it('scores a check that exceeds math_timeout_seconds as no match, then falls back to the judge', async () => {
    const model = scriptedModel(() => [assistantMessage('[[A!=B]]')]);
    const limited = await startInProcessGym({ config: config({ math_timeout_seconds: 0.5 }), definitions: { judge_model: model.definition } });
    try {
      const started = performance.now();
      const { body } = await verify('\\boxed{99999!}', {}, limited);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(body).toMatchObject({ reward: 0, library_reward: 0, extracted_answer: null });
      expect(model.calls).toHaveLength(1);
    } finally {
      await limited.close();
    }
  });
});

describe('math_with_judge example data', () => {
  it('re-verifies data/example_rollouts.jsonl, replaying the recorded judge replies', async () => {
    const recordings = readFileSync(new URL('./data/example_rollouts.jsonl', import.meta.url), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    expect(recordings).toHaveLength(5);
    for (const recorded of recordings) {
      judge.calls.length = 0;
      verdicts = (recorded.judge_evaluations ?? []).map((evaluation: any) => evaluation.response.output[0].content[0].text);
      const { reward, library_reward, extracted_answer, judge_evaluations, ...rest } = recorded;
      const reply = await http.request(gym.url('math_with_judge', '/verify'), { body: rest });
      const body = reply.json<Record<string, any>>();
      expect(body).toMatchObject({ reward, library_reward, extracted_answer });
      expect(body.judge_evaluations?.length ?? null).toBe(judge_evaluations?.length ?? null);
    }
  });
});
