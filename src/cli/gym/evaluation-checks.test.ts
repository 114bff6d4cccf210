/**
 * `gym eval compare` and `gym eval health-check` in process (mainGym), on seeded runs written to a temporary
 * folder: the difference they find, their reports and their exit codes (0 pass, 1 found, 2 could not run).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureOutput } from './__fixtures__/captured-output.ts';
import { SeededRandom } from '../../util/seeded-random.ts';
import { mainGym } from './tree.ts';

const printed = captureOutput();

type Row = Record<string, unknown>;

interface RunSpec {
  /** Chance that a rollout of a task passes. */
  passRate: (task: number) => number;
  seed: number;
  tasks?: number;
  repeats?: number;
  agent?: string;
  /** What task `t` asks. */
  prompt?: (task: number) => string;
}

function rolloutsOf({ passRate, seed, tasks = 40, repeats = 4, agent = 'math_simple_agent', prompt = (task) => `What is ${task} + ${task}?` }: RunSpec): Row[] {
  const random = new SeededRandom(seed);
  return Array.from({ length: tasks }, (_, task) =>
    Array.from({ length: repeats }, (_, repeat) => ({
      _ng_task_index: task,
      _ng_rollout_index: repeat,
      agent_ref: { type: 'responses_api_agents', name: agent },
      responses_create_params: { input: [{ role: 'user', content: prompt(task) }] },
      response: { id: `resp_${task}_${repeat}`, status: 'completed', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: String(2 * task) }] }], usage: { input_tokens: 20, output_tokens: 4, total_tokens: 24 } },
      reward: random.chance(passRate(task)) ? 1 : 0,
    })),
  ).flat();
}

const root = () => mkdtempSync(join(tmpdir(), 'ngym-compare-'));

/** Writes `<dir>/<name>/rollouts.jsonl` and returns its path. */
function writeRun(dir: string, name: string, rows: readonly Row[]): string {
  mkdirSync(join(dir, name), { recursive: true });
  const path = join(dir, name, 'rollouts.jsonl');
  writeFileSync(path, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  return path;
}

const readReport = (dir: string) => JSON.parse(readFileSync(join(dir, 'compare_report.json'), 'utf8'));
const rewardRow = (report: { comparisons: { metrics: (Row & { metric: string; candidates: Row[] })[] }[] }) => report.comparisons[0]?.metrics.find((row) => row.metric === 'mean/reward') as Row & { candidates: Row[] };

describe('gym eval compare', () => {
  const weak = { passRate: () => 0.3, seed: 1 };
  const strong = { passRate: () => 0.7, seed: 2 };

  it('finds a known improvement, and exits 0', async () => {
    const dir = root();
    const [baseline, candidate] = [writeRun(dir, 'weak', rolloutsOf(weak)), writeRun(dir, 'strong', rolloutsOf(strong))];
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', candidate]), printed.err).toBe(0);
    expect(readdirSync(join(dir, 'strong')).sort()).toEqual(['compare_report.json', 'compare_report.md', 'rollouts.jsonl']);
    const report = readReport(join(dir, 'strong'));
    expect(report).toMatchObject({ schema_version: '1', baseline: { label: 'weak', metrics_source: 'rollouts', agent_names: ['math_simple_agent'] }, regressions: [] });
    expect(report.command).toBe(`gym eval compare --baseline ${baseline} --candidates ${candidate}`);
    const candidateValue = rewardRow(report).candidates[0] as Row;
    expect(candidateValue.delta as number).toBeGreaterThan(0.25);
    expect(candidateValue).toMatchObject({ significance: 'higher', paired_task_count: 40 });
    expect(candidateValue.paired_delta_ci_low as number).toBeGreaterThan(0);
    expect(report.comparisons[0].flips[0]).toMatchObject({ mode: 'binary', common_task_count: 40, pass_to_fail_count: expect.any(Number) });
    expect(report.comparisons[0].flips[0].fail_to_pass_count).toBeGreaterThan(report.comparisons[0].flips[0].pass_to_fail_count);
    expect(printed.out).toMatch(/^mean\/reward\s+\+0\.\d+ \(\+\d+\.\d%\)\s+\[\+0\.\d+, \+0\.\d+\]\s+higher/m);
    expect(printed.out).toContain('No significant drop of mean/reward.');
  });

  it('exits 1 on a significant drop, naming it', async () => {
    const dir = root();
    const [baseline, candidate] = [writeRun(dir, 'strong', rolloutsOf(strong)), writeRun(dir, 'weak', rolloutsOf(weak))];
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', candidate, '-o', join(dir, 'report'), '--report-format', 'json'])).toBe(1);
    expect(readdirSync(join(dir, 'report'))).toEqual(['compare_report.json']);
    expect(readReport(join(dir, 'report')).regressions).toEqual([expect.objectContaining({ agent: 'math_simple_agent', metric: 'mean/reward', interval: 'paired_over_tasks' })]);
    expect(printed.out).toMatch(/Regression: math_simple_agent mean\/reward -0\.\d+ \(95% CI \[-0\.\d+, -0\.\d+\]\)/);
  });

  it('finds no difference between two identical runs', async () => {
    const dir = root();
    const [baseline, candidate] = [writeRun(dir, 'a', rolloutsOf(weak)), writeRun(dir, 'b', rolloutsOf(weak))];
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', candidate])).toBe(0);
    const report = readReport(join(dir, 'b'));
    for (const row of report.comparisons[0].metrics) expect(row.candidates[0]).toMatchObject({ delta: 0, paired_delta: 0, significance: 'not_significant' });
    expect(report.comparisons[0].flips[0]).toMatchObject({ pass_to_fail_count: 0, fail_to_pass_count: 0, flips: [] });
    expect(readFileSync(join(dir, 'b', 'compare_report.md'), 'utf8')).toContain('0 pass→fail, 0 fail→pass (net +0)');
  });

  it('refuses runs over different tasks with exit 2, naming the difference', async () => {
    const dir = root();
    const baseline = writeRun(dir, 'all', rolloutsOf(weak));
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', writeRun(dir, 'limited', rolloutsOf({ ...weak, tasks: 35 }))])).toBe(2);
    expect(printed.err).toContain('The runs did not run the same tasks (agent math_simple_agent): the baseline ran 40 tasks and candidate[0] 35; only in the baseline: 35, 36, 37, 38, 39; only in candidate[0]: none.');
    expect(existsSync(join(dir, 'limited', 'compare_report.json'))).toBe(false);
    printed.err = '';
    const otherQuestions = writeRun(dir, 'other', rolloutsOf({ ...weak, prompt: (task) => `Name prime number ${task}.` }));
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', otherQuestions])).toBe(2);
    expect(printed.err).toContain('40 of 40 tasks ask something else; task 0: the baseline asks "What is 0 + 0?", candidate[0] asks "Name prime number 0."');
    // Upstream's behaviour on request: compared on the common task indices, with a warning.
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', otherQuestions, '+allow_task_mismatch=true'])).toBe(0);
    expect(readReport(join(dir, 'other')).warnings[0]).toMatch(/^Different tasks \(agent math_simple_agent\): 40 of 40 tasks ask something else/);
  });

  it("tells tasks apart by the dataset ngym collect recorded, so a prompt sweep compares", async () => {
    const dir = root();
    const manifest = (input: string, fingerprint: string) => `${JSON.stringify({ input, input_size: 1, input_fingerprint: fingerprint, num_repeats: 4, limit: null })}\n`;
    const baseline = writeRun(dir, 'prompt_a', rolloutsOf(weak));
    const sweep = writeRun(dir, 'prompt_b', rolloutsOf({ ...strong, prompt: (task) => `Compute ${task} plus ${task}.` }));
    writeFileSync(join(dir, 'prompt_a', 'rollouts_run.json'), manifest('data/math.jsonl', 'abc'));
    writeFileSync(join(dir, 'prompt_b', 'rollouts_run.json'), manifest('data/math.jsonl', 'abc'));
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', sweep]), printed.err).toBe(0);
    writeFileSync(join(dir, 'prompt_b', 'rollouts_run.json'), manifest('data/other.jsonl', 'def'));
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', sweep])).toBe(2);
    expect(printed.err).toContain('they read different datasets: the baseline data/math.jsonl, candidate[0] data/other.jsonl');
  });

  it("reads upstream's aggregate-metrics file and ngym collect's metrics file when they are there", async () => {
    const dir = root();
    const baseline = writeRun(dir, 'upstream', []);
    const candidate = writeRun(dir, 'ngym', []);
    // Metrics only (the rollouts files are empty): upstream's list of agent entries, and collect's agent answers.
    const profile = (spec: RunSpec) => {
      const rows = rolloutsOf(spec);
      const groups = Array.from({ length: 40 }, (_, task) => {
        const rewards = rows.filter((row) => row._ng_task_index === task).map((row) => row.reward as number);
        const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
        return { _ng_task_index: task, 'mean/reward': mean, 'min/reward': Math.min(...rewards), 'max/reward': Math.max(...rewards) };
      });
      return { agent_metrics: { 'mean/reward': groups.reduce((total, group) => total + group['mean/reward'], 0) / 40 }, key_metrics: { 'mean/reward': 0 }, group_level_metrics: groups, repeat_level_metrics: [] };
    };
    writeFileSync(join(dir, 'upstream', 'rollouts_aggregate_metrics.json'), JSON.stringify([{ agent_ref: { name: 'math_simple_agent' }, ...profile(weak) }]));
    writeFileSync(join(dir, 'ngym', 'rollouts_metrics.json'), JSON.stringify({ rollouts: 160, aggregate_metrics: { math_simple_agent: profile(strong) } }));
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', candidate]), printed.err).toBe(0);
    const report = readReport(join(dir, 'ngym'));
    expect([report.baseline.metrics_source, report.candidates[0].metrics_source]).toEqual(['aggregate_metrics', 'collect_metrics']);
    expect(report.baseline.aggregate_metrics_fpath).toBe(join(dir, 'upstream', 'rollouts_aggregate_metrics.json'));
    expect(rewardRow(report).candidates[0]).toMatchObject({ significance: 'higher', delta_ci_low: null });
  });

  it('compares every agent the runs share, or the one named; an unknown one is exit 2 with a suggestion', async () => {
    const dir = root();
    const both = (spec: RunSpec) => [...rolloutsOf({ ...spec, agent: 'math_agent' }), ...rolloutsOf({ ...spec, agent: 'code_agent' })];
    const [baseline, candidate] = [writeRun(dir, 'a', both(weak)), writeRun(dir, 'b', both(weak))];
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', candidate])).toBe(0);
    expect(readReport(join(dir, 'b')).comparisons.map((comparison: Row) => comparison.baseline_agent)).toEqual(['code_agent', 'math_agent']);
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', candidate, '--agent', 'math_agent'])).toBe(0);
    expect(readReport(join(dir, 'b')).comparisons.map((comparison: Row) => comparison.baseline_agent)).toEqual(['math_agent']);
    expect(await mainGym(['eval', 'compare', '--baseline', baseline, '--candidates', candidate, '--agent', 'math_agnet'])).toBe(2);
    expect(printed.err).toContain("Agent 'math_agnet' is not in the baseline run's metrics");
    expect(printed.err).toContain('(did you mean `math_agent`?)');
  });

  it('answers exit 2 without its runs, or with a run that is not there', async () => {
    expect(await mainGym(['eval', 'compare', '--candidates', 'b.jsonl'])).toBe(2);
    expect(printed.err).toContain('gym eval compare needs the runs: --baseline');
    printed.err = '';
    const dir = root();
    expect(await mainGym(['eval', 'compare', '--baseline', join(dir, 'missing.jsonl'), '--candidates', writeRun(dir, 'b', rolloutsOf(weak))])).toBe(2);
    expect(printed.err).toContain(`No metrics for the baseline run ${join(dir, 'missing.jsonl')}`);
  });
});

describe('gym eval health-check', () => {
  const healthy = rolloutsOf({ passRate: () => 0.5, seed: 3, tasks: 3, repeats: 2 });
  const faulty = healthy.map((row) => (row._ng_task_index === 1 && row._ng_rollout_index === 0 ? { ...row, response: { ...(row.response as Row), usage: { input_tokens: 20, output_tokens: 0 } } } : row));

  it('exits 0 on a healthy run, writing the reports into the run directory', async () => {
    const dir = root();
    writeRun(dir, 'run', healthy);
    expect(await mainGym(['eval', 'health-check', join(dir, 'run')]), printed.err).toBe(0);
    expect(printed.out).toContain('Rollout health: 6 checked, 6 healthy, 0 unhealthy, 0 unobserved');
    expect(readdirSync(join(dir, 'run')).sort()).toEqual(['quality_summary.json', 'rollout_verdicts.jsonl', 'rollouts.jsonl']);
  });

  it('exits 1 on unhealthy rollouts, listing them; --ignore-checks leaves a check out; --json prints the summary', async () => {
    const dir = root();
    writeRun(dir, 'run', faulty);
    expect(await mainGym(['eval', 'health-check', join(dir, 'run')])).toBe(1);
    expect(printed.out).toContain('Rollout health: 6 checked, 5 healthy, 1 unhealthy, 0 unobserved');
    expect(printed.out).toContain('  task 1 rollout 0: model_call_zero_completion_tokens (call_id resp_1_0)');
    printed.out = '';
    expect(await mainGym(['eval', 'health-check', join(dir, 'run'), '--json'])).toBe(1);
    expect(JSON.parse(printed.out).run).toMatchObject({ verdicts: { unhealthy: 1 }, issues: { model_call_zero_completion_tokens: 1 } });
    printed.out = '';
    expect(await mainGym(['eval', 'health-check', join(dir, 'run'), '--ignore', 'model_call_zero_completion_tokens'])).toBe(0);
    expect(printed.out).toContain('(ignored: model_call_zero_completion_tokens)');
  });

  it('takes a rollouts file itself, writing <stem>_quality_summary.json beside it', async () => {
    const dir = root();
    const path = writeRun(dir, 'results', faulty).replace(/rollouts\.jsonl$/, 'mcqa.jsonl');
    writeFileSync(path, faulty.map((row) => `${JSON.stringify(row)}\n`).join(''));
    expect(await mainGym(['eval', 'health-check', path])).toBe(1);
    expect(existsSync(join(dir, 'results', 'mcqa_quality_summary.json'))).toBe(true);
    expect(existsSync(join(dir, 'results', 'mcqa_rollout_verdicts.jsonl'))).toBe(true);
  });

  it('exits 2 when it cannot run: no run directory, no rollouts file, an unknown check, --workers 0', async () => {
    const dir = root();
    writeRun(dir, 'run', healthy);
    expect(await mainGym(['eval', 'health-check', join(dir, 'nope')])).toBe(2);
    expect(printed.err).toContain(`Run directory not found: ${join(dir, 'nope')}`);
    expect(await mainGym(['eval', 'health-check', join(dir, 'run'), '--rollouts-file', 'other.jsonl'])).toBe(2);
    expect(printed.err).toContain(`Rollout JSONL not found: ${join(dir, 'run', 'other.jsonl')}`);
    expect(await mainGym(['eval', 'health-check', join(dir, 'run'), '--ignore-checks', 'hollow'])).toBe(2);
    expect(printed.err).toContain('Unknown rollout health check(s): hollow');
    expect(await mainGym(['eval', 'health-check', join(dir, 'run'), '--workers', '0'])).toBe(2);
    expect(printed.err).toContain('--workers must be an integer >= 1');
  });

  it('gym eval aggregate health-checks the merged rollouts, unless --no-health-check', async () => {
    const dir = root();
    writeFileSync(join(dir, 'shard-0.jsonl'), faulty.slice(0, 3).map((row) => `${JSON.stringify(row)}\n`).join(''));
    writeFileSync(join(dir, 'shard-1.jsonl'), faulty.slice(3).map((row) => `${JSON.stringify(row)}\n`).join(''));
    expect(await mainGym(['eval', 'aggregate', '--input-glob', join(dir, 'shard-*.jsonl'), '-o', join(dir, 'merged.jsonl')]), printed.err).toBe(0);
    expect(printed.out).toContain('Rollout health: 6 checked, 5 healthy, 1 unhealthy, 0 unobserved');
    printed.out = '';
    expect(await mainGym(['eval', 'aggregate', '--input-glob', join(dir, 'shard-*.jsonl'), '-o', join(dir, 'merged.jsonl'), '--no-health-check'])).toBe(0);
    expect(printed.out).not.toContain('Rollout health');
  });
});
