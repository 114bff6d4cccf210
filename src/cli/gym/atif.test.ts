/**
 * ATIF v1.7 trajectories as verifier responses: the projection checked against upstream 0.7.0's own
 * (`atif_trajectory_to_response`, run from the project's venv) item for item, ids included, and the documents
 * it must refuse. End to end through `gym eval reverify --input-format atif`: reverify.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { atifResponse, parseAtifTrajectory } from './atif.ts';

const PYTHON = join(PACKAGE_ROOT, '.venv', 'bin', 'python');

/** A two-step agent: one tool call and its result, then the answer; token counts per step and in total. */
export function toolTrajectory(overrides: Record<string, unknown> = {}) {
  return {
    schema_version: 'ATIF-v1.7',
    session_id: 'run-1',
    trajectory_id: 'traj-1',
    agent: { name: 'relay', version: '1.0', model_name: 'policy' },
    steps: [
      { step_id: 1, source: 'user', message: 'Add 2 to the counter.' },
      {
        step_id: 2,
        source: 'agent',
        message: '',
        timestamp: '2026-01-02T03:04:05Z',
        reasoning_content: 'I should call the tool.',
        tool_calls: [{ tool_call_id: 'c1', function_name: 'increment_counter', arguments: { count: 2 } }],
        observation: { results: [{ source_call_id: 'c1', content: '{"success": true}' }] },
        metrics: { prompt_tokens: 10, completion_tokens: 4, cached_tokens: 2 },
      },
      { step_id: 3, source: 'agent', message: 'Done: the counter is 2.', metrics: { prompt_tokens: 20, completion_tokens: 5, cached_tokens: 0 }, extra: { provider: 'x' } },
    ],
    final_metrics: { total_prompt_tokens: 30, total_completion_tokens: 9, total_cached_tokens: 2, total_steps: 3 },
    ...overrides,
  };
}

/** Upstream's projection of each trajectory (one Python process: importing nemo_gym takes seconds). */
function upstreamResponses(trajectories: unknown[]): Record<string, unknown>[] {
  const script = [
    'import json, sys',
    'from nemo_gym.atif_v1_7 import AtifTrajectoryV1_7',
    'from nemo_gym.atif_reverification import atif_trajectory_to_response',
    'trajectories = [AtifTrajectoryV1_7.model_validate(item) for item in json.loads(sys.stdin.read())]',
    'print(json.dumps([atif_trajectory_to_response(item).model_dump(mode="json") for item in trajectories]))',
  ].join('\n');
  const result = spawnSync(PYTHON, ['-c', script], { input: JSON.stringify(trajectories), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as Record<string, unknown>[];
}

/** The fields of each item both sides set (upstream's models add defaults such as `encrypted_content: null`). */
function comparable(response: Record<string, unknown>) {
  const pick = (item: Record<string, unknown>, fields: string[]) => Object.fromEntries(fields.filter((field) => item[field] !== undefined && item[field] !== null).map((field) => [field, item[field]]));
  const usage = response.usage as Record<string, unknown> | null;
  return {
    id: response.id,
    model: response.model,
    created_at: response.created_at,
    parallel_tool_calls: response.parallel_tool_calls,
    usage: usage === null ? null : pick(usage, ['input_tokens', 'output_tokens', 'total_tokens', 'input_tokens_details', 'output_tokens_details']),
    output: (response.output as Record<string, unknown>[]).map((item) => ({
      ...pick(item, ['id', 'type', 'call_id', 'name', 'arguments', 'output', 'summary']),
      content: Array.isArray(item.content) ? (item.content as Record<string, unknown>[]).map((part) => part.text) : undefined,
    })),
  };
}

describe('ATIF projection', () => {
  it.skipIf(!existsSync(PYTHON))("matches upstream 0.7.0's, with and without a trajectory_id (project venv)", () => {
    const trajectories = [toolTrajectory(), toolTrajectory({ trajectory_id: null })];
    const ours = trajectories.map((trajectory) => comparable(atifResponse(parseAtifTrajectory(trajectory, 'test'))));
    expect(ours).toEqual(upstreamResponses(trajectories).map(comparable));
  }, 60_000);

  it('projects reasoning, the tool call with its result, the answer, and the token usage', () => {
    const response = atifResponse(parseAtifTrajectory(toolTrajectory(), 'test'));
    expect((response.output as { type: string }[]).map((item) => item.type)).toEqual(['reasoning', 'function_call', 'function_call_output', 'message']);
    expect(response.usage).toEqual({ input_tokens: 30, input_tokens_details: { cached_tokens: 2 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: null }, total_tokens: 39 });
  });

  it.each([
    ['an unknown field', { surprise: 1 }, 'Unrecognized key'],
    ['another schema version', { schema_version: 'ATIF-v1.6' }, 'schema_version'],
    ['steps out of sequence', { steps: [{ step_id: 2, source: 'agent', message: 'x' }] }, 'expected 1 (sequential from 1)'],
    ['text and tool calls in one step', { final_metrics: null, steps: [{ step_id: 1, source: 'agent', message: 'hi', tool_calls: [{ tool_call_id: 'c', function_name: 'f', arguments: {} }], observation: { results: [{ source_call_id: 'c', content: 'ok' }] } }] }, 'contains both message text and tool calls'],
    ['a tool call without its result', { final_metrics: null, steps: [{ step_id: 1, source: 'agent', message: '', tool_calls: [{ tool_call_id: 'c', function_name: 'f', arguments: {} }] }] }, "has no observation result for tool call(s) 'c'"],
    ['a user step after the agent', { final_metrics: null, steps: [{ step_id: 1, source: 'agent', message: 'a' }, { step_id: 2, source: 'user', message: 'b' }] }, 'appears after agent output'],
    ['totals that do not add up', { final_metrics: { total_prompt_tokens: 31, total_completion_tokens: 9 } }, 'do not match the complete per-model-step metrics'],
    ['an image', { final_metrics: null, steps: [{ step_id: 1, source: 'agent', message: [{ type: 'image', source: { media_type: 'image/png', path: 'a.png' } }] }] }, 'multimodal ATIF content'],
  ])('refuses %s, saying why', (_what, overrides, message) => {
    expect(() => atifResponse(parseAtifTrajectory(toolTrajectory(overrides), 'test'))).toThrow(message);
  });
});
