/**
 * Upstream parity, from the rollouts NeMo Gym 0.7.0 ships for ns_tools (the wheel's data/example_rollouts.jsonl,
 * joined to data/example.jsonl by the last user message). Upstream's own server cannot run here (it needs
 * NeMo-Skills' tools and sandbox container, `nemo-skills-tools` from a git URL), so parity is checked against
 * what it recorded:
 *  - re-verified through math_with_judge (library only, as upstream's README runs it), every rollout gets its
 *    recorded reward, delegated verifier answer and echoed row fields;
 *  - every recorded `stateful_python_code_exec` call, replayed in order in one ngym session per rollout, gets
 *    byte for byte the output the model saw (all 21 are deterministic: integers, tuples and lists as IPython
 *    pretty-prints them, floats, sympy expressions and one traceback); the rollout's verify then counts them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, sharedHttpClient } from 'ngym';
import { type InProcessGym, scriptedModel, startInProcessGym, upstreamRollouts, upstreamWheel } from 'ngym/testing';
import { gymOverrides } from './example-data.ts';
import { pythonToolUnavailableReason } from './sandbox-requirements.ts';
import { PYTHON_TOOL_NAME } from './tool-specs.ts';

const { skipReason } = upstreamWheel('ns_tools');
// Two of the recorded rollouts' code imports sympy.
const sandboxSkip = skipReason ?? pythonToolUnavailableReason(['IPython', 'sympy']);

type Row = Record<string, any>;

/** ns_tools.yaml and math_with_judge (example-data.ts), the policy model a scripted one (no model call is made). */
const overrides = (extra: string[]) => gymOverrides(['+policy_model.responses_api_models.scripted.entrypoint=app.ts', ...extra]);

const ROW_FIELDS = ['verifier_type', 'question', 'expected_answer', 'id', 'agent_ref', 'subset_for_metrics', 'reference_solution'];

describe.skipIf(skipReason !== null)('ns_tools: upstream parity (verify)', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    // Verify needs no tool: without one the server needs no sandbox either.
    gym = await startInProcessGym({
      overrides: overrides(['++ns_tools.resources_servers.ns_tools.nemo_skills_tools=[]']),
      definitions: { policy_model: scriptedModel(() => []).definition },
    });
  });
  afterAll(async () => gym?.close());

  it('re-verifies every recorded rollout to its recorded reward, delegated answer and row fields', async () => {
    const recorded = upstreamRollouts('ns_tools', { source: 'wheel' });
    expect(recorded.map(({ rollout }) => rollout.reward)).toEqual([1, 1, 1, 1, 1]);
    for (const [index, { row, rollout }] of recorded.entries()) {
      const result = (await gym.client.post('ns_tools', '/verify', { ...row, response: rollout.response })).json<Row>();
      const pick = (source: Row, keys: string[]) => Object.fromEntries(keys.map((key) => [key, source[key]]));
      expect(pick(result, ['reward', ...ROW_FIELDS]), `rollout ${index}`).toEqual(pick(rollout, ['reward', ...ROW_FIELDS]));
      // ngym's math_with_judge echoes every row field, upstream's only its own, and upstream's echo of
      // responses_create_params has pydantic's defaults filled in: ours holds the rest of upstream's answer and more.
      const { responses_create_params: _normalized, ...delegated } = rollout.delegated_response;
      expect(result.delegated_response, `rollout ${index}`).toMatchObject(delegated);
    }
  });
});

describe.skipIf(sandboxSkip !== null)('ns_tools: upstream parity (tool outputs)', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({ overrides: overrides([]), definitions: { policy_model: scriptedModel(() => []).definition } });
  });
  afterAll(async () => gym?.close());

  it('gives every recorded call, replayed in its rollout’s session, the output the model saw; verify counts them', async () => {
    let replayed = 0;
    for (const [index, { row, rollout }] of upstreamRollouts('ns_tools', { source: 'wheel' }).entries()) {
      const cookies = new CookieJar();
      const post = async (path: string, body: unknown) => {
        const reply = await sharedHttpClient().request(gym.url('ns_tools', path), { body, cookies });
        cookies.merge(reply.cookies);
        return reply;
      };
      const outputs = new Map<string, string>(rollout.response.output.filter((item: Row) => item.type === 'function_call_output').map((item: Row) => [item.call_id, item.output]));
      const calls = rollout.response.output.filter((item: Row) => item.type === 'function_call');
      for (const call of calls) {
        expect(call.name).toBe(PYTHON_TOOL_NAME);
        const reply = await post(`/${call.name}`, JSON.parse(call.arguments));
        expect(reply.text, `rollout ${index}, call ${call.call_id}: ${JSON.parse(call.arguments).code}`).toBe(outputs.get(call.call_id));
        replayed += 1;
      }
      const verified = (await post('/verify', { ...row, response: rollout.response })).json<Row>();
      expect([verified.reward, verified.num_tool_calls, verified.tool_timeout_count, verified.tool_request_timeout_count]).toEqual([rollout.reward, calls.length, 0, 0]);
    }
    expect(replayed).toBe(21);
  }, 120_000);
});

describe.skipIf(skipReason === null)('ns_tools: upstream parity', () => {
  it.skip(skipReason ?? '', () => {});
});

describe.skipIf(skipReason !== null || sandboxSkip === null)('ns_tools: upstream parity (tool outputs)', () => {
  it.skip(`skipped: ${sandboxSkip ?? ''}`, () => {});
});
