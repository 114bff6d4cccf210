import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigDict, Response } from 'ngym';
import { assistantMessage, functionCall, type InProcessGym, modelResponse, scriptedModel, startFakeEndpoint, startInProcessGym, type FakeEndpoint } from 'ngym/testing';
import { JudgeError, LlmJudge, parseVerdict, PromptTemplate, PromptTemplateError, recordedJudge } from './index.ts';

const labels = { equal: '[[A=B]]', notEqual: '[[A!=B]]' };
const reply = (text: string): Response => modelResponse([assistantMessage(text)]);
const judgeConfig = (overrides: Record<string, unknown> = {}) => ({
  judge_model_server: { type: 'responses_api_models', name: 'judge_model' },
  judge_responses_create_params: { input: [], temperature: 0, max_output_tokens: 64 },
  judge_endpoint_max_concurrency: 64,
  judge_timeout_seconds: null,
  ...overrides,
});
const modelConfig: ConfigDict = { judge_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } } };

let gym: InProcessGym | undefined;
let fake: FakeEndpoint | undefined;
afterEach(async () => {
  await gym?.close();
  await fake?.close();
  gym = undefined;
  fake = undefined;
});

async function failure(promise: Promise<unknown>): Promise<JudgeError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(JudgeError);
    return error as JudgeError;
  }
  throw new Error('expected the judge call to fail');
}

describe('PromptTemplate', () => {
  it("fills fields with Python str.format's rules", () => {
    const template = new PromptTemplate('Q: {question}\n{{literal}} A={first_answer!r} B={second_answer!s}');
    expect(template.fields).toEqual(['question', 'first_answer', 'second_answer']);
    expect(template.format({ question: 'q?', first_answer: "it's", second_answer: 'x' })).toBe('Q: q?\n{literal} A="it\'s" B=x');
  });

  it('rejects unknown placeholders, lone braces and format specs with a clear message', () => {
    expect(() => new PromptTemplate('{question} {answer}').assertFields(['question'], 'judge_prompt_template')).toThrow(
      /judge_prompt_template uses the placeholder \{answer\}; the available ones are \{question\}/,
    );
    expect(() => new PromptTemplate('a } b')).toThrow(PromptTemplateError);
    expect(() => new PromptTemplate('a { b')).toThrow(/Single '\{'/);
    expect(() => new PromptTemplate('{question:>10}')).toThrow(/Unsupported replacement field \{question:>10\}/);
  });
});

describe('parseVerdict', () => {
  it('finds the first label in the last content part of the last message', () => {
    expect(parseVerdict(reply('reasoning... [[A=B]] they are equivalent'), labels)).toEqual({ equal: true, label: '[[A=B]]' });
    expect(parseVerdict(reply('My final verdict is different [[A!=B]]'), labels)).toEqual({ equal: false, label: '[[A!=B]]' });
    expect(parseVerdict(reply('[[A!=B]] at first, then [[A=B]]'), labels)).toEqual({ equal: false, label: '[[A!=B]]' });
    expect(parseVerdict(reply('[[A=B]] then [[A!=B]]'), labels)).toEqual({ equal: true, label: '[[A=B]]' });
    expect(parseVerdict(reply('no label at all'), labels)).toEqual({ equal: false, label: null });
  });

  it('reads nothing but the last item, which must be a message with text', () => {
    expect(parseVerdict(modelResponse([assistantMessage('[[A=B]]'), functionCall('f', {})]), labels)).toEqual({ equal: false, label: null });
    expect(parseVerdict(modelResponse([]), labels)).toEqual({ equal: false, label: null });
    const refusal = assistantMessage('', { content: [{ type: 'output_text', text: '[[A=B]]', annotations: [] }, { type: 'refusal', refusal: 'no' }] } as never);
    expect(parseVerdict(modelResponse([refusal]), labels)).toEqual({ equal: false, label: null });
  });
});

describe('LlmJudge', () => {
  it('sends the configured create params with the prompt as input and returns the exchange', async () => {
    const model = scriptedModel(() => [assistantMessage('They match. [[A=B]]')]);
    gym = await startInProcessGym({ config: modelConfig, definitions: { judge_model: model.definition } });
    const judge = new LlmJudge(gym.client, judgeConfig());
    const { verdict, evaluation } = await judge.compare(
      [
        { role: 'system', content: 'be fair' },
        { role: 'user', content: 'A vs B' },
      ],
      labels,
    );
    expect(verdict).toEqual({ equal: true, label: '[[A=B]]' });
    expect(evaluation.verdict_label).toBe('[[A=B]]');
    expect(evaluation.responses_create_params).toEqual({
      input: [
        { role: 'system', content: 'be fair', type: 'message' },
        { role: 'user', content: 'A vs B', type: 'message' },
      ],
      temperature: 0,
      max_output_tokens: 64,
      // Upstream's request model fills these in, and its rollouts record them.
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
    });
    expect(model.calls[0]?.params).toMatchObject({ temperature: 0, max_output_tokens: 64 });
    expect(model.calls[0]?.input.at(-1)).toMatchObject({ role: 'user', content: 'A vs B' });
  });

  it('keeps at most judge_endpoint_max_concurrency calls in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    let arrived: () => void = () => {};
    const twoArrived = new Promise<void>((resolve) => (arrived = resolve));
    const model = scriptedModel(async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      if (gates.length < 2) {
        // The first two calls wait until the test has seen both in flight.
        await new Promise<void>((resolve) => {
          gates.push(resolve);
          if (gates.length === 2) arrived();
        });
      }
      inFlight--;
      return [assistantMessage('[[A!=B]]')];
    });
    gym = await startInProcessGym({ config: modelConfig, definitions: { judge_model: model.definition } });
    const judge = new LlmJudge(gym.client, judgeConfig({ judge_endpoint_max_concurrency: 2 }));
    const pending = Array.from({ length: 8 }, () => judge.compare([{ role: 'user', content: 'x' }], labels));
    // The other six wait in this process, before any request is sent.
    expect(judge.inFlight).toBe(2);
    await twoArrived;
    expect(model.calls).toHaveLength(2);
    for (const open of gates) open();
    const results = await Promise.all(pending);
    expect(results.every((result) => result.verdict.equal === false)).toBe(true);
    expect(model.calls).toHaveLength(8);
    expect(peak).toBe(2);
  });

  it('fails with NGYM_JUDGE_FAILED (502, retryable) when the judge answers an error status', async () => {
    fake = await startFakeEndpoint(() => ({ status: 503, body: { detail: 'overloaded' } }));
    const url = new URL(fake.url);
    gym = await startInProcessGym({ config: modelConfig, external: { judge_model: { host: url.hostname, port: Number(url.port) } } });
    const error = await failure(new LlmJudge(gym.client, judgeConfig()).call([{ role: 'user', content: 'x' }]));
    expect(error).toMatchObject({ code: 'NGYM_JUDGE_FAILED', status: 502, retryable: true });
    expect(error.message).toMatch(/'judge_model' answered HTTP 503: .*overloaded/);
  });

  it('fails when the judge answers something that is not a Response', async () => {
    fake = await startFakeEndpoint(() => ({ body: { choices: [] } }));
    const url = new URL(fake.url);
    gym = await startInProcessGym({ config: modelConfig, external: { judge_model: { host: url.hostname, port: Number(url.port) } } });
    const error = await failure(new LlmJudge(gym.client, judgeConfig()).call([{ role: 'user', content: 'x' }]));
    expect(error.message).toMatch(/answered something that is not a Response/);
  });

  it('fails when the judge cannot be reached or times out', async () => {
    gym = await startInProcessGym({ config: modelConfig, external: { judge_model: { host: '127.0.0.1', port: 1 } } });
    const unreachable = await failure(new LlmJudge(gym.client, judgeConfig()).call([{ role: 'user', content: 'x' }]));
    expect(unreachable.message).toMatch(/'judge_model' failed: Could not reach/);
    await gym.close();

    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    fake = await startFakeEndpoint(async () => {
      await held;
      return { body: reply('[[A=B]]') };
    });
    const url = new URL(fake.url);
    gym = await startInProcessGym({ config: modelConfig, external: { judge_model: { host: url.hostname, port: Number(url.port) } } });
    const slow = await failure(new LlmJudge(gym.client, judgeConfig({ judge_timeout_seconds: 0.2 })).call([{ role: 'user', content: 'x' }]));
    release();
    expect(slow.message).toMatch(/timed out after 0.2 s/);
  });

  it('replays recorded judge evaluations by prompt, and fails on a prompt it has no recording for', async () => {
    const evaluation = (content: string, verdict: string) => ({ responses_create_params: { input: [{ role: 'user' as const, content, type: 'message' as const }] }, response: reply(verdict) });
    const replay = recordedJudge([evaluation('A vs B', '[[A=B]]'), evaluation('B vs A', '[[A!=B]]')]);
    gym = await startInProcessGym({ config: modelConfig, definitions: { judge_model: replay.definition } });
    const judge = new LlmJudge(gym.client, judgeConfig());
    expect((await judge.compare([{ role: 'user', content: 'B vs A' }], labels)).verdict.equal).toBe(false);
    expect((await judge.compare([{ role: 'user', content: 'A vs B' }], labels)).verdict.equal).toBe(true);
    expect(replay.answered).toBe(2);
    const unknown = await failure(judge.call([{ role: 'user', content: 'C vs D' }]));
    expect(unknown.message).toMatch(/HTTP 404: .*No recorded judge evaluation has this prompt/);
  });
});
