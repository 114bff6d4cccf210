/**
 * The rollout health checks (upstream 0.7.0's `gym eval health-check` ids), each over one recorded rollout. A
 * check returns findings (evidence), never a verdict: a rollout with a finding is unhealthy, one a check could
 * not look at (no response recorded) is unobserved for that check.
 *
 * Upstream reads each rollout's `ng_trajectory` (per-call capture records its 0.7 collector writes); ngym's
 * collector does not write one, so the checks read what every rollout has: its `response` (the agent's final
 * Responses API object: the model's output items in order with the tool outputs between turns, the last call's
 * status and incomplete_details, usage summed over the calls) and its `reward`. A model turn is a run of the
 * model's items (messages, reasoning, tool calls) between tool outputs or user messages. The two checks that
 * compare trajectory capture records (`trajectory_capture_mismatch`, `rollout_token_count_mismatch`) have no
 * such evidence here; their ids are accepted by --ignore-checks and nothing else. ngym adds `model_call_truncated`
 * and the reward checks.
 */
import { isDict } from '../config/tree.ts';
import { NgymError } from '../errors.ts';

type Json = Record<string, unknown>;

export type Verdict = 'healthy' | 'unhealthy' | 'unobserved';
export type TaskIndex = number | string;

export interface Finding {
  check: string;
  subject: { _ng_task_index: TaskIndex; _ng_rollout_index?: TaskIndex };
  locator?: Record<string, number | string>;
  detail: Json;
}

export interface HealthCheckSpec {
  id: string;
  evaluation_scope: 'rollout' | 'task';
  /** Reads the rollout's response (unobserved without one). */
  readsResponse: boolean;
}

const rolloutCheck = (id: string, readsResponse: boolean): HealthCheckSpec => ({ id, evaluation_scope: 'rollout', readsResponse });
const taskCheck = (id: string): HealthCheckSpec => ({ id, evaluation_scope: 'task', readsResponse: false });

/** Every check, in report order (docs/evaluation.md says what each finds). */
export const HEALTH_CHECKS: readonly HealthCheckSpec[] = [
  rolloutCheck('check_execution_error', false), // a check failed on the rollout: a bug, not a property of the rollout
  rolloutCheck('record_unreadable', false),
  rolloutCheck('rollout_duplicate_identity', false),
  rolloutCheck('rollout_missing_agent_turns', true),
  rolloutCheck('rollout_ended_on_failed_model_call', true),
  rolloutCheck('agent_turn_hollow', true),
  rolloutCheck('model_call_zero_completion_tokens', true),
  rolloutCheck('model_call_missing_token_counts', true),
  rolloutCheck('model_call_failed', true),
  rolloutCheck('model_call_runaway_generation', true),
  rolloutCheck('model_call_truncated', true), // ngym
  rolloutCheck('rollout_reward_invalid', false), // ngym
  rolloutCheck('rollout_reward_out_of_range', false), // ngym
  taskCheck('task_consistently_unhealthy'),
  taskCheck('task_no_successful_model_calls'),
];

/** Upstream's checks of its trajectory capture records, which ngym's rollouts do not carry. */
const TRAJECTORY_CAPTURE_CHECKS = ['trajectory_capture_mismatch', 'rollout_token_count_mismatch'];

/** The ids to skip, from a comma-separated string or a list; an unknown id is an error naming it. */
export function normalizeIgnoredChecks(checks: string | readonly string[] | undefined): string[] {
  if (checks === undefined) return [];
  const names = [...new Set((typeof checks === 'string' ? checks.split(',') : checks).map((check) => check.trim()).filter((check) => check !== ''))];
  const known = new Set([...HEALTH_CHECKS.map((check) => check.id), ...TRAJECTORY_CAPTURE_CHECKS]);
  const unknown = names.filter((name) => !known.has(name)).sort();
  if (unknown.length > 0) throw new NgymError('NGYM_USAGE', `Unknown rollout health check(s): ${unknown.join(', ')}. Known: ${[...known].join(', ')}.`);
  return names;
}

export interface RecordCheckOptions {
  ignored: ReadonlySet<string>;
  /** Inclusive [low, high] a reward must lie in. */
  rewardRange: readonly [number, number];
}

/** What the run-level summary and the task checks need of one rollout besides its findings. */
export interface RecordEvidence {
  responseObserved: boolean;
  successfulModelCalls: number;
  failedModelCalls: number;
  /** The failed call's response status (`failed`, `error`, `cancelled`), for the summary's error counts. */
  failureStatus: string | null;
  promptTokens: number;
  completionTokens: number;
}

export interface RecordCheck {
  findings: Finding[];
  unobserved: string[];
  evidence: RecordEvidence;
}

const TOOL_CALL_TYPES = new Set([
  'function_call',
  'tool_call',
  'tool_use',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'file_search_call',
  'web_search_call',
  'computer_call',
  'image_generation_call',
  'code_interpreter_call',
  'local_shell_call',
  'custom_tool_call',
]);
const TEXT_KEYS = ['text', 'content', 'output_text', 'answer', 'refusal', 'encrypted_content', 'reasoning', 'reasoning_content', 'summary'];
const LENGTH_LIMIT_REASONS = new Set(['length', 'max_output_tokens', 'max_tokens']);
const FAILED_STATUSES = new Set(['failed', 'error', 'cancelled']);

/** Text somewhere in a value: a non-blank string, in a list, or under one of an item's text-bearing keys. */
function hasText(value: unknown): boolean {
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.some(hasText);
  if (isDict(value)) return TEXT_KEYS.some((key) => hasText(value[key]));
  return false;
}

/** An item the model produced (as opposed to a tool output or a user message between its turns). */
function isModelItem(item: unknown): boolean {
  if (!isDict(item)) return false;
  if (item.type === 'message' || (item.type === undefined && 'role' in item)) return item.role === 'assistant' || item.role === undefined;
  return item.type === 'reasoning' || TOOL_CALL_TYPES.has(String(item.type));
}

/** The model's turns: runs of its items between other items; also whether the output ends on one. */
function modelTurns(output: readonly unknown[]): { turns: unknown[][]; endsOnModelTurn: boolean } {
  const turns: unknown[][] = [];
  let current: unknown[] | undefined;
  for (const item of output) {
    if (!isModelItem(item)) {
      current = undefined;
      continue;
    }
    if (current === undefined) turns.push((current = []));
    current.push(item);
  }
  return { turns, endsOnModelTurn: current !== undefined };
}

const hasToolCall = (turn: readonly unknown[]) => turn.some((item) => isDict(item) && TOOL_CALL_TYPES.has(String(item.type)));

const tokenCount = (value: unknown): number | undefined => (Number.isInteger(value) && (value as number) >= 0 ? (value as number) : undefined);

function usageTokens(usage: unknown): { prompt: number | undefined; completion: number | undefined } {
  if (!isDict(usage)) return { prompt: undefined, completion: undefined };
  return { prompt: tokenCount(usage.input_tokens ?? usage.prompt_tokens), completion: tokenCount(usage.output_tokens ?? usage.completion_tokens) };
}

export function subjectOf(task: TaskIndex, rollout?: TaskIndex): Finding['subject'] {
  return rollout === undefined ? { _ng_task_index: task } : { _ng_task_index: task, _ng_rollout_index: rollout };
}

type RolloutCheck = (rollout: RolloutView, subject: Finding['subject']) => Finding[];

/** A rollout as the checks read it. */
interface RolloutView {
  response: Json;
  turns: unknown[][];
  endsOnModelTurn: boolean;
  failed: boolean;
  truncated: boolean;
  callLocator: { call_id: string };
}

function finding(check: string, subject: Finding['subject'], detail: Json, locator?: Finding['locator']): Finding {
  return locator === undefined ? { check, subject, detail } : { check, subject, locator, detail };
}

function failureDetail(view: RolloutView): Json {
  const error = isDict(view.response.error) ? view.response.error : {};
  return { status: view.response.status ?? null, error_category: error.code ?? error.type ?? null };
}

const ROLLOUT_CHECKS: Record<string, RolloutCheck> = {
  rollout_missing_agent_turns: (view, subject) => (view.turns.length === 0 ? [finding('rollout_missing_agent_turns', subject, { reason: 'no model output in the response' })] : []),
  rollout_ended_on_failed_model_call: (view, subject) => (view.failed ? [finding('rollout_ended_on_failed_model_call', subject, failureDetail(view), view.callLocator)] : []),
  agent_turn_hollow: (view, subject) =>
    view.turns.flatMap((turn, index) => (hasText(turn) || hasToolCall(turn) ? [] : [finding('agent_turn_hollow', subject, { reason: 'model turn without text or tool calls' }, { turn: index + 1 })])),
  model_call_zero_completion_tokens: (view, subject) =>
    usageTokens(view.response.usage).completion === 0 ? [finding('model_call_zero_completion_tokens', subject, { completion_tokens: 0 }, view.callLocator)] : [],
  model_call_missing_token_counts: (view, subject) => {
    const { prompt, completion } = usageTokens(view.response.usage);
    const missing = [...(prompt === undefined ? ['prompt_tokens'] : []), ...(completion === undefined ? ['completion_tokens'] : [])];
    return missing.length > 0 ? [finding('model_call_missing_token_counts', subject, { missing }, view.callLocator)] : [];
  },
  model_call_failed: (view, subject) => (view.failed ? [finding('model_call_failed', subject, { ...failureDetail(view), terminal: true }, view.callLocator)] : []),
  model_call_runaway_generation: (view, subject) =>
    view.truncated && !lastTurnHasText(view) ? [finding('model_call_runaway_generation', subject, { finish_reason: truncationReason(view) }, view.callLocator)] : [],
  model_call_truncated: (view, subject) => (view.truncated && lastTurnHasText(view) ? [finding('model_call_truncated', subject, { finish_reason: truncationReason(view) }, view.callLocator)] : []),
};

const lastTurnHasText = (view: RolloutView) => view.endsOnModelTurn && hasText(view.turns.at(-1));
const truncationReason = (view: RolloutView) => (isDict(view.response.incomplete_details) ? view.response.incomplete_details.reason : null);

function rewardFindings(record: Json, subject: Finding['subject'], options: RecordCheckOptions): Finding[] {
  const findings: Finding[] = [];
  const reward = record.reward;
  const valid = typeof reward === 'number' && Number.isFinite(reward);
  if (!options.ignored.has('rollout_reward_invalid') && !valid) {
    findings.push(finding('rollout_reward_invalid', subject, 'reward' in record ? { reason: 'not a finite number', reward } : { reason: 'no reward' }));
  }
  const [low, high] = options.rewardRange;
  if (!options.ignored.has('rollout_reward_out_of_range') && valid && (reward < low || reward > high)) {
    findings.push(finding('rollout_reward_out_of_range', subject, { reward, range: [low, high] }));
  }
  return findings;
}

function viewOf(record: Json): RolloutView | undefined {
  const response = record.response;
  if (!isDict(response) || !Array.isArray(response.output)) return undefined;
  const { turns, endsOnModelTurn } = modelTurns(response.output);
  return {
    response,
    turns,
    endsOnModelTurn,
    failed: (typeof response.status === 'string' && FAILED_STATUSES.has(response.status)) || isDict(response.error),
    truncated: isDict(response.incomplete_details) && LENGTH_LIMIT_REASONS.has(String(response.incomplete_details.reason)),
    callLocator: { call_id: typeof response.id === 'string' && response.id !== '' ? response.id : 'response' },
  };
}

export const NO_EVIDENCE: RecordEvidence = { responseObserved: false, successfulModelCalls: 0, failedModelCalls: 0, failureStatus: null, promptTokens: 0, completionTokens: 0 };

function evidenceOf(view: RolloutView | undefined): RecordEvidence {
  if (view === undefined) return NO_EVIDENCE;
  // A failed call usually returns no output: it is one more call than the turns show.
  const modelCalls = Math.max(1, view.turns.length + (view.failed && !view.endsOnModelTurn ? 1 : 0));
  const failedModelCalls = view.failed ? 1 : 0;
  const { prompt, completion } = usageTokens(view.response.usage);
  const failureStatus = view.failed ? String(view.response.status ?? 'error') : null;
  return { responseObserved: true, successfulModelCalls: modelCalls - failedModelCalls, failedModelCalls, failureStatus, promptTokens: prompt ?? 0, completionTokens: completion ?? 0 };
}

/** Every rollout check of one parsed record, except duplicates (which need the whole file). */
export function checkRecord(record: Json, subject: Finding['subject'], options: RecordCheckOptions): RecordCheck {
  const findings: Finding[] = [];
  const unobserved: string[] = [];
  const view = viewOf(record);
  for (const check of HEALTH_CHECKS) {
    const run = ROLLOUT_CHECKS[check.id];
    if (run === undefined || options.ignored.has(check.id)) continue;
    if (view === undefined) {
      unobserved.push(check.id);
      continue;
    }
    try {
      findings.push(...run(view, subject));
    } catch (error) {
      unobserved.push(check.id);
      if (!options.ignored.has('check_execution_error')) {
        findings.push(finding('check_execution_error', subject, { reason: 'the check threw', failed_check: check.id, error: (error as Error).name }));
      }
    }
  }
  findings.push(...rewardFindings(record, subject, options));
  return { findings, unobserved, evidence: evidenceOf(view) };
}
