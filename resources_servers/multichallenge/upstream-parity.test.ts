/**
 * Upstream parity. NeMo Gym 0.7.0 ships no scored rollout for multichallenge: the wheel's example_rollouts.jsonl
 * holds its example rows again, without a response or a reward (checked below, so a later wheel that records some
 * fails here until they are re-scored). What is compared instead: upstream's own example rows, answered by
 * hand-written answers, scored by upstream's own verify (the wheel's app.py run in the venv, its judge call replaced
 * by a scripted one as its own tests do) and by ours with the same judge replies, field by field; once as the rows
 * are, once with their context left to be built from `metadata.messages` and the rubric moved into metadata.
 * Skips when the venv (NGYM_PYTHON_VENV, else .venv) has no nemo_gym.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, callServer, type InProcessGym, modelResponse, readJsonlRows, scriptedModel, startInProcessGym, upstreamWheel } from 'ngym/testing';

const { python: PYTHON, folder: UPSTREAM, skipReason } = upstreamWheel('multichallenge');

/** Upstream's verify on each body, with the judge replying as `replies` says (the first question found in the prompt). */
const UPSTREAM_VERIFY = `
import asyncio, json, sys, yaml
from unittest.mock import MagicMock
import resources_servers.multichallenge.app as app
from nemo_gym.openai_utils import NeMoGymResponse
from nemo_gym.server_utils import ServerClient
data = json.load(sys.stdin)
raw = yaml.safe_load(open(data["config"]))["multichallenge"]["resources_servers"]["multichallenge"]
config = app.MultiChallengeConfig.model_validate({"host": "127.0.0.1", "port": 0, "name": "multichallenge", **raw})
server = app.MultiChallengeServer(config=config, server_client=MagicMock(spec=ServerClient))
async def judge(*args, **kwargs):
    prompt = kwargs["json"].input[-1].content
    text = next((reply for question, reply in data["replies"].items() if question in prompt), "no verdict")
    message = {"id": "msg_judge", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}
    return NeMoGymResponse.model_validate({"id": "resp_judge", "created_at": 0, "model": "judge", "object": "response", "output": [message], "parallel_tool_calls": True, "tool_choice": "auto", "tools": []})
app.call_judge = judge
async def main():
    results = [await server.verify(app.MultiChallengeVerifyRequest.model_validate(body)) for body in data["bodies"]]
    print(json.dumps([result.model_dump(mode="json") for result in results]))
asyncio.run(main())
`;

/** An answer for each of upstream's example tasks (by its last user message), with reasoning to strip in two. */
const ANSWERS: [string, string][] = [
  ['suggest a snack', '<think>Alex is allergic to peanuts.</think>\nHow about apple slices with sunflower seed butter, Alex?'],
  ['must-try dishes', 'In Tokyo, try sushi at Tsukiji Outer Market, tempura, and a bowl of ramen with pork chashu.'],
  ['introduction', 'The model was thinking.</think>Open with a striking photo of a melting glacier and one question to the audience about climate change.'],
];

/** The judge's reply to each question of upstream's rows, in the shapes judges write. */
const REPLIES: Record<string, string> = {
  'avoid suggesting peanuts': 'Sunflower seed butter is peanut-free.\n\n[[YES]]',
  'by their name (Alex)': 'At first [[NO]], but the answer does say Alex. [[YES]]',
  'fish/seafood but exclude meat': 'Pork chashu is meat.\n\n[[NO]]',
  'pescatarian (not vegetarian)': 'It recommends fish dishes.\nYES',
  'specific to Tokyo': '[[YES]] Tsukiji is in Tokyo; [[NO]] ramen is everywhere; on balance [[YES]]',
  'presentation introduction': '<think>[[NO]]?</think>It gives an opening idea. [[YES]]',
  'climate change topic': 'The glacier and the question are about climate change.',
};

const COMPARED = ['reward', 'context', 'generated_response', 'rubric_evaluations', 'aggregation_mode', 'num_passed', 'num_total'];
const compared = (body: Record<string, unknown>) => Object.fromEntries(COMPARED.map((field) => [field, body[field]]));

describe.skipIf(skipReason !== null)('multichallenge: upstream parity', () => {
  const judge = scriptedModel(({ input }) => {
    const prompt = String(input.at(-1)?.content);
    return [assistantMessage(Object.entries(REPLIES).find(([question]) => prompt.includes(question))?.[1] ?? 'no verdict')];
  });
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      overrides: ['+config_paths=[resources_servers/multichallenge/configs/multichallenge.yaml]', '+policy_model.responses_api_models.scripted.entrypoint=app.ts'],
      definitions: { policy_model: judge.definition },
    });
  });
  afterAll(async () => gym?.close());

  it("finds no scored rollout in upstream's example_rollouts.jsonl, only its example rows again", () => {
    const rows = readJsonlRows(join(UPSTREAM, 'data', 'example.jsonl'));
    const rollouts = readJsonlRows(join(UPSTREAM, 'data', 'example_rollouts.jsonl'));
    expect(rollouts).toHaveLength(5);
    expect(rollouts.filter((rollout) => 'response' in rollout || 'reward' in rollout)).toEqual([]);
    for (const rollout of rollouts) expect(rows).toContainEqual(rollout);
  });

  it("scores upstream's example rows as upstream's own verify does, field by field", async () => {
    const bodies = readJsonlRows(join(UPSTREAM, 'data', 'example.jsonl')).flatMap((row, index) => {
      const last = String(row.responses_create_params.input.at(-1).content);
      const answer = ANSWERS.find(([task]) => last.includes(task))?.[1];
      if (answer === undefined) throw new Error(`no answer written for upstream's row ${index}: ${last}`);
      const response = modelResponse([assistantMessage(answer, { id: `msg_upstream_${index}` })], { id: `resp_upstream_${index}`, created_at: 0 });
      const { context: _context, rubric, ...rest } = row;
      return [
        { ...row, response },
        { ...rest, context: '', response, metadata: { ...row.metadata, messages: [...row.responses_create_params.input, { role: 'thinking', content: 'hidden' }], rubric } },
      ];
    });
    const upstream = JSON.parse(
      execFileSync(PYTHON, ['-c', UPSTREAM_VERIFY], { input: JSON.stringify({ config: join(UPSTREAM, 'configs', 'multichallenge.yaml'), replies: REPLIES, bodies }), encoding: 'utf8' }),
    ) as Record<string, unknown>[];
    expect(upstream).toHaveLength(10);
    // Every reply shape was read, and the rewards are not all alike.
    expect(new Set(upstream.map((result) => result.reward)).size).toBeGreaterThan(1);
    for (const [index, body] of bodies.entries()) {
      expect({ index, ...compared(await callServer(gym, 'multichallenge', '/verify', body)) }).toEqual({ index, ...compared(upstream[index] as Record<string, unknown>) });
    }
  }, 60_000);
});

describe.skipIf(skipReason === null)('multichallenge: upstream parity', () => {
  it.skip(skipReason ?? '', () => {});
});
