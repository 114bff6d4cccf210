/**
 * The matrix of `npm run parity:collect`: each case is an input file and the knobs both collectors get, the same
 * `+key=value` overrides for upstream 0.7.0's `ng_collect_rollouts` and `ngym collect`. A known difference is
 * declared on the aspect it touches with its reason (docs/parity.md lists them); any other difference fails.
 */

/** What is compared between the two collectors' runs (compare-runs.ts). */
export type Aspect = 'exit_code' | 'rows' | 'order' | 'failures' | 'aggregate_metrics' | 'plan' | 'warnings';

export interface CollectCase {
  name: string;
  /** What the case covers, for the report. */
  covers: string;
  /** The input file's lines, written as they are. */
  lines: string[];
  knobs: string[];
  /** Kill the collector (SIGKILL) once this many rows are in the output, then run it again with resume_from_cache. */
  killAfterRows?: number;
  /** Run the collector to its end, then again with resume_from_cache and these knobs. */
  resumeKnobs?: string[];
  /** Compare the order rows were written in (only with one rollout in flight, where it is the launch order). */
  ordered?: boolean;
  /** Aspects that differ for a reason docs/parity.md gives. */
  known?: Partial<Record<Aspect, string>>;
  /** In the CI sample (parity/collect/collect-parity.test.ts). */
  sample?: boolean;
}

interface RowOptions {
  agent?: string;
  /** The model answers after this many milliseconds. */
  delayMs?: number;
  /** The model answers 500. */
  fail?: boolean;
  /** More prompt words, for the servers of agent omega (parity/collect/servers: timeout_once, judge_invalid_once). */
  words?: string[];
}

/** Task `index`: its prompt steers collect_parity_model (parity/collect/servers); the answer is `a<index>`. */
function taskLine(index: number, options: RowOptions = {}): string {
  const words = [`q${index}`, `answer=a${index}`, ...(options.delayMs === undefined ? [] : [`delay=${options.delayMs}`]), ...(options.fail ? ['fail'] : []), ...(options.words ?? [])];
  return JSON.stringify({
    responses_create_params: { input: [{ role: 'user', content: words.join(' ') }] },
    expected_answer: `a${index}`,
    ...(options.agent === undefined ? {} : { agent_ref: { name: options.agent } }),
  });
}

const tasks = (count: number, options: (index: number) => RowOptions = () => ({})) => Array.from({ length: count }, (_, index) => taskLine(index, options(index)));

const DEFAULT_ROUTING = 'ngym defaults route_failures_to_sidecar to true (a failed rollout is recorded and the run goes on, as ngym always did); upstream 0.7.0 defaults it to false (the first failed /run ends the run)';
const ATTEMPT_LOG =
  "upstream's failures sidecar is a log of every failed attempt, kept across resumes (its retry count reads it); ngym's failures file lists what is still failed after the last run, so a rollout a resume completed leaves it";
const FAILURE_EXIT = 'ngym exits 1 when any rollout failed or was not started (its summary says so and how to resume); upstream exits 0 once any rollout produced a result';

export const CASES: CollectCase[] = [
  { name: 'agent_name_overrides_agent_ref', covers: 'agent_name routes every row, overriding agent_ref; the warning lists what it overrode', lines: [...tasks(3), taskLine(3, { agent: 'beta' })], knobs: ['+agent_name=alpha', '+num_repeats=2'] },
  { name: 'agent_ref_routing', covers: 'rows naming two agents, no run-level agent', lines: tasks(4, (index) => ({ agent: index % 2 === 0 ? 'alpha' : 'beta' })), knobs: ['+num_repeats=2'] },
  {
    name: 'agent_map',
    covers: 'agent_map re-routes one agent and sends rows without agent_ref to _default', lines: [taskLine(0, { agent: 'alpha' }), taskLine(1, { agent: 'beta' }), taskLine(2)], knobs: ['+agent_map={alpha: beta, _default: alpha}'],
    known: { warnings: "ngym reads the input as a stream and warns of each overridden (data's agent, chosen agent) pair when it first meets it, before that row's rollouts start; upstream reads the whole file first and warns once, listing every pair sorted. Same words, one line per pair in ngym" },
  },
  { name: 'agent_name_with_agent_map', covers: 'agent_name is agent_map._default: the same one is accepted', lines: [taskLine(0, { agent: 'beta' }), taskLine(1)], knobs: ['+agent_name=alpha', '+agent_map={_default: alpha}'] },
  { name: 'fan_out', covers: 'fan_out runs each row under two agents, consecutive rollout indices; metrics keyed by task and agent', lines: tasks(3, () => ({ agent: 'alpha' })), knobs: ['+fan_out={alpha: [alpha, beta]}', '+num_repeats=2'] },
  {
    name: 'routing_combined',
    covers: "agent_name overriding a row's agent_ref while fan_out keys on the agent the data named; repeats per (task, agent); the CI sample",
    lines: [taskLine(0), taskLine(1, { agent: 'beta' }), taskLine(2, { agent: 'alpha' })],
    knobs: ['+agent_name=alpha', '+fan_out={beta: [alpha, beta]}', '+num_repeats=2'],
    sample: true,
  },
  { name: 'per_agent_repeats', covers: 'num_repeats per agent with fan_out, an unknown key warned', lines: tasks(3, () => ({ agent: 'alpha' })), knobs: ['+fan_out={alpha: [alpha, beta]}', '+num_repeats={alpha: 1, beta: 3, gamma: 2}'] },
  { name: 'per_agent_repeats_default', covers: 'num_repeats map with _default', lines: tasks(4, (index) => ({ agent: index < 2 ? 'alpha' : 'beta' })), knobs: ['+num_repeats={beta: 3, _default: 2}'] },
  { name: 'seeds', covers: 'num_repeats_add_seed puts the rollout index in metadata.extra_body (the model reads it)', lines: tasks(3, () => ({ agent: 'alpha' })), knobs: ['+num_repeats=3', '+num_repeats_add_seed=true'] },
  { name: 'interleave', covers: 'interleave_repeats launches by rollout index (abcabc); one in flight, so the file is in launch order', lines: tasks(3, () => ({ agent: 'alpha' })), knobs: ['+num_repeats=2', '+interleave_repeats=true', '+num_samples_in_parallel=1'], ordered: true },
  { name: 'in_order', covers: 'without interleaving, repeats run together (aabbcc); one in flight', lines: tasks(3, () => ({ agent: 'beta' })), knobs: ['+num_repeats=2', '+num_samples_in_parallel=1'], ordered: true },
  { name: 'limit', covers: 'limit reads the first rows only', lines: tasks(5, () => ({ agent: 'alpha' })), knobs: ['+limit=2', '+num_repeats=2'] },
  { name: 'responses_create_params', covers: 'responses_create_params overrides every row', lines: tasks(2, () => ({ agent: 'alpha' })), knobs: ['+responses_create_params={temperature: 0.5, max_output_tokens: 64}'] },
  { name: 'consecutive_duplicates', covers: 'identical consecutive input lines are one task (rollout indices continue)', lines: [taskLine(0, { agent: 'alpha' }), taskLine(0, { agent: 'alpha' }), taskLine(1, { agent: 'alpha' })], knobs: ['+num_repeats=2'] },
  {
    name: 'scattered_duplicates',
    covers: 'identical input lines apart from each other',
    lines: [taskLine(0, { agent: 'alpha' }), taskLine(1, { agent: 'alpha' }), taskLine(0, { agent: 'alpha' })],
    knobs: ['+num_repeats=2'],
    known: {
      rows: 'upstream gives every identical input line the same task index wherever it is in the file; ngym merges only consecutive identical lines (memory flat in the number of rows), so the third line is task 2 in ngym and task 0 (rollouts 2, 3) upstream',
      aggregate_metrics: 'follows from the task indices (scattered duplicates)',
      plan: 'follows from the task indices (scattered duplicates)',
    },
  },
  {
    name: 'failures_sidecar',
    covers: 'route_failures_to_sidecar=true: a failed rollout goes to the failures file and the run goes on',
    lines: [taskLine(0, { agent: 'alpha' }), taskLine(1, { agent: 'alpha', fail: true }), taskLine(2, { agent: 'beta' })],
    knobs: ['+route_failures_to_sidecar=true', '+num_repeats=2'],
    known: { exit_code: FAILURE_EXIT },
  },
  {
    name: 'failures_stop',
    covers: 'route_failures_to_sidecar=false: the first failure stops the run',
    lines: [taskLine(0, { agent: 'alpha' }), taskLine(1, { agent: 'alpha', fail: true }), taskLine(2, { agent: 'alpha' })],
    knobs: ['+route_failures_to_sidecar=false', '+num_samples_in_parallel=1'],
    known: {
      failures: 'ngym records the failure that stopped the run in its failures file (a failure is always recorded); upstream raises it and writes no sidecar row for it',
      aggregate_metrics: "ngym still asks /aggregate_metrics for the rollouts that completed before the stop; upstream's run ends with the exception, before aggregation",
    },
  },
  {
    name: 'failures_default',
    covers: 'a failed rollout with route_failures_to_sidecar left at its default',
    lines: [taskLine(0, { agent: 'alpha' }), taskLine(1, { agent: 'alpha', fail: true }), taskLine(2, { agent: 'alpha' })],
    knobs: ['+num_samples_in_parallel=1'],
    known: { rows: DEFAULT_ROUTING, failures: DEFAULT_ROUTING, aggregate_metrics: DEFAULT_ROUTING },
  },
  {
    name: 'require_complete',
    covers: 'require_complete with a failed rollout: EVAL FAILED, exit 1',
    lines: [taskLine(0, { agent: 'alpha' }), taskLine(1, { agent: 'alpha', fail: true })],
    knobs: ['+require_complete=true', '+route_failures_to_sidecar=true'],
  },
  { name: 'require_complete_met', covers: 'require_complete when every rollout completes', lines: tasks(2, () => ({ agent: 'alpha' })), knobs: ['+require_complete=true', '+num_repeats=2'] },
  {
    name: 'dispatch_budget',
    covers: 'dispatch_budget_s runs out with a slow server: what is not started writes nothing',
    lines: tasks(4, () => ({ agent: 'alpha', delayMs: 2500 })),
    knobs: ['+dispatch_budget_s=2', '+drain_margin_s=0', '+num_samples_in_parallel=1'],
    known: { exit_code: FAILURE_EXIT },
  },
  { name: 'resume_after_kill', covers: 'the collector killed (SIGKILL) mid-run, then resume_from_cache=true finishes the rest', lines: tasks(4, () => ({ agent: 'alpha', delayMs: 300 })), knobs: ['+num_repeats=2', '+num_samples_in_parallel=1'], killAfterRows: 3 },
  { name: 'max_resident_rollout_tasks', covers: 'max_resident_rollout_tasks=1 caps the rollouts in flight at one: the file is in launch order', lines: tasks(3, () => ({ agent: 'alpha' })), knobs: ['+num_repeats=2', '+max_resident_rollout_tasks=1'], ordered: true },
  { name: 'retain_results_in_memory', covers: 'retain_results_in_memory=false, with disable_health_check and health_check_ignored_checks: the same files', lines: tasks(3, () => ({ agent: 'beta' })), knobs: ['+retain_results_in_memory=false', '+disable_health_check=true', '+health_check_ignored_checks=[model_call_missing_token_counts]'] },
  { name: 'disable_aggregation', covers: 'disable_aggregation: no aggregate metrics file', lines: tasks(2, () => ({ agent: 'beta' })), knobs: ['+disable_aggregation=true'] },
  {
    name: 'refuse_unknown_fan_out_agent',
    covers: 'fan_out naming an agent the gym lacks is refused before anything starts',
    lines: tasks(2, () => ({ agent: 'alpha' })),
    knobs: ['+fan_out={alpha: [alpha, gamma]}'],
    known: { warnings: "ngym's refusal has upstream's words plus the knob that named the agent ([fan_out.alpha])" },
  },
  {
    name: 'refuse_conflicting_default',
    covers: 'agent_name and a different agent_map._default are refused',
    lines: tasks(2),
    knobs: ['+agent_name=alpha', '+agent_map={_default: beta}'],
    known: {
      exit_code: "upstream's refusal is a pydantic validation error, which its CLI exits 2 for; ngym exits 1 for every refusal",
      warnings: 'the same sentence; upstream\'s pydantic wrapper leaves a stray ").)" after it',
    },
  },
  { name: 'refuse_repeats_without_entry', covers: 'a num_repeats map with no entry for a row and no _default is refused', lines: tasks(2, () => ({ agent: 'beta' })), knobs: ['+num_repeats={alpha: 2}'] },
  {
    name: 'refuse_row_without_agent',
    covers: 'a row naming no agent, with no agent_name',
    lines: [taskLine(0, { agent: 'alpha' }), taskLine(1)],
    knobs: [],
    known: {
      rows: 'upstream refuses the whole run before it starts ("No agent specified for rows [...]"); ngym reads the input as a stream, so it runs the rows it can route and lists the one it cannot as an invalid input line (exit 1, the line named with its reason)',
      aggregate_metrics: 'follows from ngym running the routable rows',
      warnings: "ngym's words are its invalid-input report (line 2: the row has no agent_ref.name and no +agent_name was given); upstream's list of rows says [0] for every row, as its row index stays 0 without +limit",
    },
  },
  {
    name: 'terminal_timeouts_kept',
    covers: "an agent's timeout stamped _ng_failure_terminal, then resume_from_cache: the terminal failure is not run again",
    lines: [taskLine(0, { agent: 'omega' }), taskLine(1, { agent: 'omega', words: ['timeout_once', 'elapsed=40'] }), taskLine(2, { agent: 'omega' })],
    knobs: ['+num_repeats=2'],
    resumeKnobs: [],
    known: { exit_code: FAILURE_EXIT },
  },
  {
    name: 'retry_terminal_timeouts',
    covers: "an agent's timeout stamped _ng_failure_terminal, then resume_from_cache with retry_terminal_timeouts: retried with _ng_attempt_index 1",
    lines: [taskLine(0, { agent: 'omega' }), taskLine(1, { agent: 'omega', words: ['timeout_once', 'elapsed=40'] }), taskLine(2, { agent: 'omega' })],
    knobs: ['+num_repeats=2'],
    resumeKnobs: ['+retry_terminal_timeouts=true'],
    known: { failures: ATTEMPT_LOG },
  },
  {
    name: 'retry_invalid_judge_responses',
    covers: 'a judge reply flagged invalid_judge_response (reward 0) on the first attempt, then resume_from_cache with retry_invalid_judge_responses: judged again with _ng_attempt_index 1',
    lines: [taskLine(0, { agent: 'omega' }), taskLine(1, { agent: 'omega', words: ['judge_invalid_once'] }), taskLine(2, { agent: 'omega' })],
    knobs: ['+num_repeats=2'],
    resumeKnobs: ['+retry_invalid_judge_responses=true'],
    known: { failures: ATTEMPT_LOG },
  },
  {
    name: 'count_failure_classes_as_zero',
    covers: "count_failure_classes_as_zero=[agent_run_error]: the failed rollout is a 0 in the aggregate metrics (ngym's server_error is upstream's agent_run_error)",
    lines: [taskLine(0, { agent: 'alpha' }), taskLine(1, { agent: 'alpha', fail: true }), taskLine(2, { agent: 'alpha' })],
    knobs: ['+route_failures_to_sidecar=true', '+count_failure_classes_as_zero=[agent_run_error]', '+num_repeats=2'],
    known: { exit_code: FAILURE_EXIT },
  },
  {
    name: 'count_missing_rollouts_as_zero',
    covers: 'count_missing_rollouts_as_zero with a dispatch budget that runs out: the rollouts not started are 0s in the aggregate metrics, with their task fields',
    lines: tasks(4, () => ({ agent: 'alpha', delayMs: 2500 })),
    knobs: ['+dispatch_budget_s=2', '+drain_margin_s=0', '+num_samples_in_parallel=1', '+count_missing_rollouts_as_zero=true'],
    known: { exit_code: FAILURE_EXIT },
  },
];
