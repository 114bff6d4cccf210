/**
 * `gym eval compare` and `gym eval health-check` against upstream NeMo Gym 0.7.0's own code (the project venv's
 * python), on the same files:
 *
 *   compare       both read the same `_aggregate_metrics.json` files (written by upstream's reward profile):
 *                 every metric row (values, intervals, deltas, Welch's interval) and every flip must agree.
 *   health-check  upstream reads a rollout's `ng_trajectory`, ngym its `response`; each rollout gets an
 *                 `ng_trajectory` that records the same calls (one per model turn, the tokens, the status, the
 *                 finish reason), and the verdicts and findings of the checks both have must agree.
 *
 * Skipped, saying why, when the venv has no upstream NeMo Gym.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { upstreamWheel } from '../testing/upstream-wheel.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { checkRolloutsHealth } from './rollout-health.ts';
import { buildComparison } from './run-comparison-files.ts';

const wheel = upstreamWheel();
type Row = Record<string, any>;

function runPython(script: string, args: string[]): string {
  const result = spawnSync(wheel.python, ['-c', script, ...args], { encoding: 'utf8', env: { ...process.env, WANDB_MODE: 'disabled', PYTHONWARNINGS: 'ignore' }, timeout: 120_000 });
  if (result.status !== 0) throw new Error(`upstream script failed: ${result.stderr}`);
  return result.stdout.trim().split('\n').at(-1) as string;
}

const writeJsonl = (path: string, rows: readonly (Row | string)[]) => writeFileSync(path, rows.map((row) => `${typeof row === 'string' ? row : JSON.stringify(row)}\n`).join(''));

const COMPARE_SCRIPT = `
import json, sys
from pathlib import Path
from nemo_gym.reward_profile import compute_aggregate_metrics
from nemo_gym.comparison.runner import build_comparison_result
from nemo_gym.comparison.schema import ComparisonConfig

def profile(path):
    rows = [json.loads(line) for line in open(path)]
    entries = []
    for agent in sorted({row["agent_ref"]["name"] for row in rows}):
        mine = [dict(row, response={"usage": row["response"].get("usage")}) for row in rows if row["agent_ref"]["name"] == agent]
        for row in mine:
            row.pop("responses_create_params", None)
        metrics = compute_aggregate_metrics(mine)
        entries.append({"agent_ref": {"name": agent}, "agent_metrics": metrics.agent_metrics, "key_metrics": metrics.key_metrics,
                        "group_level_metrics": metrics.group_level_metrics, "repeat_level_metrics": metrics.repeat_level_metrics})
    Path(path).with_name(Path(path).stem + "_aggregate_metrics.json").write_text(json.dumps(entries))

results = []
for baseline, candidate in zip(sys.argv[1::2], sys.argv[2::2]):
    profile(baseline)
    profile(candidate)
    config = ComparisonConfig.model_validate({"baseline_rollouts_jsonl_fpath": baseline, "candidate_rollouts_jsonl_fpaths": [candidate]})
    results.append(json.loads(build_comparison_result(config, "gym eval compare").model_dump_json()))
print(json.dumps(results))
`;

/** Rollouts whose rewards `reward(task, repeat, random)` draws. */
function runRows(seed: number, tasks: number, repeats: number, reward: (task: number, random: SeededRandom) => number): Row[] {
  const random = new SeededRandom(seed);
  return Array.from({ length: tasks }, (_, task) =>
    Array.from({ length: repeats }, (_, repeat) => ({
      _ng_task_index: task,
      _ng_rollout_index: repeat,
      agent_ref: { type: 'responses_api_agents', name: 'policy_agent' },
      responses_create_params: { input: [{ role: 'user', content: `task ${task}` }] },
      response: { output: [], usage: { input_tokens: 10 + task, output_tokens: 1 + random.int(0, 40), total_tokens: 0 } },
      reward: reward(task, random),
    })),
  ).flat();
}

const UPSTREAM_FIELDS = ['value', 'ci_low', 'ci_high', 'se_across_repeats', 'mean_across_repeats', 'std_err_across_runs'];
const CANDIDATE_FIELDS = [...UPSTREAM_FIELDS, 'delta', 'delta_pct', 'delta_ci_low', 'delta_ci_high'];

function expectClose(ours: unknown, theirs: unknown, where: string): void {
  if (theirs === null || ours === null) expect(ours, where).toBe(theirs);
  else expect(Math.abs((ours as number) - (theirs as number)), `${where}: ngym ${ours}, upstream ${theirs}`).toBeLessThan(1e-9 * Math.max(1, Math.abs(theirs as number)));
}

const SCENARIOS = [
  ['binary rewards, 4 repeats', (random: SeededRandom, better: boolean) => (random.chance(better ? 0.65 : 0.45) ? 1 : 0), 4],
  ['partial-credit rewards, 3 repeats', (random: SeededRandom) => random.int(0, 4) / 4, 3],
  ['one repeat', (random: SeededRandom, better: boolean) => (random.chance(better ? 0.7 : 0.4) ? 1 : 0), 1],
] as const;

describe.skipIf(wheel.skipReason !== null)("gym eval compare agrees with upstream's comparison", () => {
  // One python process for every scenario: importing nemo_gym takes seconds.
  const dir = mkdtempSync(join(tmpdir(), 'ngym-compare-parity-'));
  const runs = SCENARIOS.map(([, reward, repeats], scenario) => {
    const paths = ['baseline', 'candidate'].map((name) => {
      mkdirSync(join(dir, `${scenario}`, name), { recursive: true });
      return join(dir, `${scenario}`, name, 'rollouts.jsonl');
    }) as [string, string];
    writeJsonl(paths[0], runRows(1, 30, repeats, (_task, random) => reward(random, false)));
    writeJsonl(paths[1], runRows(2, 30, repeats, (_task, random) => reward(random, true)));
    return paths;
  });
  let upstream: Row[] = [];
  beforeAll(() => {
    upstream = JSON.parse(runPython(COMPARE_SCRIPT, runs.flat()));
  }, 120_000);

  it.each(SCENARIOS.map(([name], scenario) => [name, scenario] as const))('%s', async (_name, scenario) => {
    const [baseline, candidate] = runs[scenario] as [string, string];
    const ours = await buildComparison({ baseline_rollouts_jsonl_fpath: baseline, candidate_rollouts_jsonl_fpaths: [candidate], report_format: 'both' }, { command: 'gym eval compare', generator: 'ngym test' });
    expect(ours.baseline.metrics_source).toBe('aggregate_metrics');
    const [theirs, mine] = [(upstream[scenario] as Row).comparisons[0], ours.comparisons[0] as (typeof ours.comparisons)[number]];
    for (const key of ['baseline_agent', 'candidate_agents', 'baseline_task_count', 'candidate_task_counts', 'baseline_repeat_count', 'candidate_repeat_counts']) expect((mine as Row)[key], key).toEqual(theirs[key]);
    expect(mine.metrics.map((row) => row.metric)).toEqual(theirs.metrics.map((row: Row) => row.metric));
    for (const [index, row] of (theirs.metrics as Row[]).entries()) {
      const our = mine.metrics[index] as Row;
      expect([our.is_key_metric, our.present_in], row.metric).toEqual([row.is_key_metric, row.present_in]);
      for (const field of UPSTREAM_FIELDS) expectClose(our.baseline?.[field] ?? null, row.baseline?.[field] ?? null, `${row.metric} baseline.${field}`);
      for (const field of CANDIDATE_FIELDS) expectClose(our.candidates[0]?.[field] ?? null, row.candidates[0]?.[field] ?? null, `${row.metric} candidate.${field}`);
    }
    const { flips: theirFlips, ...theirSummary } = theirs.flips[0];
    const { flips: ourFlips, ...ourSummary } = mine.flips[0] as Row;
    expect(ourSummary).toEqual(theirSummary);
    expect(ourFlips).toEqual(theirFlips);
    expect(mine.metrics.length).toBeGreaterThan(3);
  });
});

/**
 * Gives each rollout an `ng_trajectory` recording the calls its response shows: one call per model turn (the
 * turn's items as its answer and response), a failed call after them when the response failed, the tokens on
 * the calls (summing to the response's usage), the finish reason on the last.
 */
const HEALTH_SCRIPT = `
import json, sys
from pathlib import Path
from nemo_gym.rollout_health import run_health_checks

TOOL_TYPES = {"function_call", "tool_call", "mcp_call", "custom_tool_call"}
def is_model_item(item):
    if item.get("type") == "message":
        return item.get("role") in (None, "assistant")
    return item.get("type") == "reasoning" or item.get("type") in TOOL_TYPES

def turns_of(output):
    turns, current = [], None
    for item in output:
        if not is_model_item(item):
            current = None
            continue
        if current is None:
            current = []
            turns.append(current)
        current.append(item)
    return turns, current is not None

def trajectory(row):
    response = row["response"]
    task, repeat = str(row["_ng_task_index"]), str(row["_ng_rollout_index"])
    turns, ends_on_turn = turns_of(response["output"])
    failed = response.get("status") == "failed"
    truncated = (response.get("incomplete_details") or {}).get("reason") == "max_output_tokens"
    answers = [list(turn) for turn in turns]
    if failed and not ends_on_turn or not answers:
        answers.append(None)
    usage = response.get("usage") or {}
    count = len(answers)
    def split(total):
        if total is None:
            return [None] * count
        if total == 0:
            return [0] * count
        return [1] * (count - 1) + [total - (count - 1)]
    prompts, completions = split(usage.get("input_tokens")), split(usage.get("output_tokens"))
    calls, refs = [], []
    for index, answer in enumerate(answers):
        last = index == count - 1
        call_failed = failed and last
        call_id = f"call-{task}-{repeat}-{index}"
        refs.append({"model_call_id": call_id})
        calls.append({
            "model_call_id": call_id, "started_at": float(index),
            "response": None if call_failed else {"output": answer or []},
            "response_metadata": {"response_id": f"{response.get('id')}-{index}", "model_ref": {"type": "responses_api_models", "name": "policy_model"},
                                  "status_code": 500 if call_failed else 200, "response_status": "failed" if call_failed else "completed",
                                  "finish_reason": "length" if truncated and last else "stop", "error_category": "server_error" if call_failed else None},
            "token_stats": {"prompt_tokens": prompts[index], "completion_tokens": completions[index]},
        })
    return {
        "task_id": task, "rollout_id": f"{task}-{repeat}",
        "invocations": [{"invocation_id": "inv", "model_calls": refs}],
        "turns": [{"invocation_id": "inv", "task_id": task, "rollout_id": f"{task}-{repeat}", "turn_no": index + 1, "timestamp": float(index),
                   "answer": turn, "step_count": index + 1, "model_calls": [refs[index]]} for index, turn in enumerate(turns)],
        "model_calls": calls,
    }

source, target = Path(sys.argv[1]), Path(sys.argv[2])
lines = []
for line in source.read_text().splitlines():
    try:
        row = json.loads(line)
    except ValueError:
        lines.append(line)
        continue
    if isinstance(row, dict) and isinstance(row.get("response"), dict):
        row["ng_trajectory"] = trajectory(row)
    lines.append(json.dumps(row))
target.write_text("\\n".join(lines) + "\\n")
result = run_health_checks(target, workers=1, ignored_checks=sys.argv[3].split(","))
print(json.dumps({"rollouts": [digest.model_dump(mode="json") for digest in result.rollouts], "tasks": result.summary["tasks"]}))
`;

describe.skipIf(wheel.skipReason !== null)("gym eval health-check agrees with upstream's checks on the same calls", () => {
  it('finds the same faults in the same rollouts', async () => {
    const message = (text: string) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
    const call = (args = '{}') => ({ type: 'function_call', name: 'lookup', arguments: args, call_id: 'c1' });
    const toolOutput = { type: 'function_call_output', call_id: 'c1', output: '{"ok": true}' };
    const usage = (input: number | null, output: number | null) => ({ input_tokens: input, output_tokens: output, total_tokens: (input ?? 0) + (output ?? 0) });
    const row = (task: number, repeat: number, response: Row): Row => ({
      _ng_task_index: task,
      _ng_rollout_index: repeat,
      reward: 1,
      response: { id: `resp_${task}_${repeat}`, status: 'completed', output: [call(), toolOutput, message('42')], usage: usage(100, 20), ...response },
    });
    const failed = { status: 'failed', error: { code: 'server_error' }, output: [call(), toolOutput] };
    const rows: (Row | string)[] = [
      row(0, 0, {}),
      row(0, 1, { output: [message('just text')], usage: usage(30, 5) }),
      row(1, 0, { output: [{ type: 'reasoning', summary: [{ type: 'summary_text', text: 'thinking' }] }, call(), toolOutput, message('done')] }),
      row(2, 0, { output: [call(), toolOutput, message(' ')] }),
      row(3, 0, { output: [message('0 tokens?')], usage: usage(30, 0) }),
      row(4, 0, { usage: null }),
      row(5, 0, failed),
      row(6, 0, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [call('{"q": "unterminated')] }),
      row(7, 0, { output: [] }),
      row(8, 0, { output: [message('')], usage: usage(10, 0) }),
      row(8, 1, { output: [message('')], usage: usage(10, 0) }),
      row(9, 0, {}),
      row(9, 0, {}),
      '{"_ng_task_index": 10, "reward": ',
    ];
    const dir = mkdtempSync(join(tmpdir(), 'ngym-health-parity-'));
    writeJsonl(join(dir, 'rollouts.jsonl'), rows);
    // Checks only one side has: ngym's additions, upstream's capture-record checks, and the task check whose evidence differs in kind.
    const upstream = JSON.parse(runPython(HEALTH_SCRIPT, [join(dir, 'rollouts.jsonl'), join(dir, 'with_trajectories.jsonl'), 'trajectory_capture_mismatch,rollout_token_count_mismatch,task_no_successful_model_calls']));
    const ours = await checkRolloutsHealth(join(dir, 'rollouts.jsonl'), { ignoredChecks: ['model_call_truncated', 'rollout_reward_invalid', 'rollout_reward_out_of_range', 'task_no_successful_model_calls'] });
    const view = (digests: { task_index: unknown; rollout_index: unknown; verdict: string; findings: { check: string }[] }[]) =>
      digests.map((digest) => `${digest.task_index}/${digest.rollout_index}: ${digest.verdict} ${[...new Set(digest.findings.map((finding) => finding.check))].sort().join(',')}`).sort();
    expect(view(ours.rollouts)).toEqual(view(upstream.rollouts));
    const flags = (tasks: Record<string, Row>) => Object.entries(tasks).map(([task, entry]) => `${task}: ${entry.flags.join(',')}`).sort();
    expect(flags(ours.summary.tasks)).toEqual(flags(upstream.tasks));
    // The faults were found at all (not two empty lists agreeing).
    expect(view(ours.rollouts).filter((line) => line.includes('unhealthy'))).toHaveLength(11);
  }, 120_000);
});

if (wheel.skipReason !== null) console.warn(wheel.skipReason);
