/**
 * ATIF input of `gym eval reverify --input-format atif`: trajectories in the Agent Trajectory Interchange Format
 * v1.7 (one JSON document each, written by an external agent harness), joined to Gym tasks by a manifest and
 * turned into the Responses-shaped `response` a verifier scores. The same bounded subset as upstream 0.7.0
 * (nemo_gym/atif_v1_7.py, nemo_gym/atif_reverification.py): text-only, one LLM call per agent step, no subagents,
 * no continued or copied context; anything else is refused with the reason, never guessed.
 *
 * The manifest is JSONL, one line per trajectory:
 *   {"trajectory_path": "traj/0.json", "_ng_task_index": 0, "_ng_rollout_index": 0, "expected_sha256": "<hex>"}
 * (`trajectory_path` relative to the manifest's folder; `expected_sha256` optional, pins the file's bytes). The
 * materialized inputs (`--inputs`) give each (task, rollout) its task row, which stays authoritative for the prompt,
 * verifier fields and agent routing; ATIF contributes only the response.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { isDict } from '../../config/tree.ts';
import { NgymError } from '../../errors.ts';
import { readJsonl } from '../../rollouts/jsonl.ts';

type Row = Record<string, unknown>;
export const ATIF_PROVENANCE_KEY = '_ng_atif_provenance';
const SCHEMA_VERSION = 'ATIF-v1.7';

const refuse = (message: string): never => {
  throw new NgymError('NGYM_INPUT_INVALID', message);
};

// Optional fields parse to null when absent, as upstream's models dump them (the content hash covers every field).
const optional = <Schema extends z.ZodType>(schema: Schema) => schema.nullable().default(null);
const record = z.record(z.string(), z.unknown());
const count = z.number().int().min(0);
const isTimestamp = (value: string) => !Number.isNaN(Date.parse(value));

const ContentPart = z
  .strictObject({
    type: z.enum(['text', 'image']),
    text: optional(z.string()),
    source: optional(z.strictObject({ media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']), path: z.string() })),
  })
  .superRefine((part, context) => {
    if (part.type === 'text' && (part.text === null || part.source !== null)) context.addIssue({ code: 'custom', message: 'a text content part has text and no image source' });
    if (part.type === 'image' && (part.source === null || part.text !== null)) context.addIssue({ code: 'custom', message: 'an image content part has a source and no text' });
  });
const Content = z.union([z.string(), z.array(ContentPart)]);
type AtifContent = z.infer<typeof Content>;

const ObservationResult = z.strictObject({ source_call_id: optional(z.string()), content: optional(Content), subagent_trajectory_ref: optional(z.array(record)), extra: optional(record) });
const StepMetrics = z.strictObject({
  prompt_tokens: optional(count),
  completion_tokens: optional(count),
  cached_tokens: optional(count),
  cost_usd: optional(z.number().min(0)),
  prompt_token_ids: optional(z.array(count)),
  completion_token_ids: optional(z.array(count)),
  logprobs: optional(z.array(z.number())),
  extra: optional(record),
});
const AGENT_ONLY_FIELDS = ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'] as const;
const Step = z
  .strictObject({
    step_id: z.number().int().min(1),
    source: z.enum(['system', 'user', 'agent']),
    message: Content,
    timestamp: optional(z.string().refine(isTimestamp, 'invalid ISO 8601 timestamp')),
    model_name: optional(z.string()),
    reasoning_effort: optional(z.union([z.string(), z.number()])),
    reasoning_content: optional(z.string()),
    tool_calls: optional(z.array(z.strictObject({ tool_call_id: z.string(), function_name: z.string(), arguments: record, extra: optional(record) }))),
    observation: optional(z.strictObject({ results: z.array(ObservationResult) })),
    metrics: optional(StepMetrics),
    llm_call_count: optional(count),
    is_copied_context: optional(z.boolean()),
    extra: optional(record),
  })
  .superRefine((step, context) => {
    if (step.source !== 'agent') {
      for (const field of AGENT_ONLY_FIELDS) if (step[field] !== null) context.addIssue({ code: 'custom', message: `field '${field}' is only valid for agent steps` });
    }
    if (step.llm_call_count === 0 && (step.reasoning_effort !== null || step.reasoning_content !== null || step.metrics !== null)) {
      context.addIssue({ code: 'custom', message: 'llm_call_count=0 cannot include reasoning or LLM metrics' });
    }
  });
type AtifStep = z.infer<typeof Step>;
const Trajectory = z
  .strictObject({
    schema_version: z.literal(SCHEMA_VERSION),
    session_id: optional(z.string()),
    trajectory_id: optional(z.string()),
    agent: z.strictObject({ name: z.string(), version: z.string(), model_name: optional(z.string()), tool_definitions: optional(z.array(record)), extra: optional(record) }),
    steps: z.array(Step).min(1),
    notes: optional(z.string()),
    final_metrics: optional(
      z.strictObject({
        total_prompt_tokens: optional(count),
        total_completion_tokens: optional(count),
        total_cached_tokens: optional(count),
        total_cost_usd: optional(z.number().min(0)),
        total_steps: optional(count),
        extra: optional(record),
      }),
    ),
    continued_trajectory_ref: optional(z.string()),
    subagent_trajectories: optional(z.array(record)),
    extra: optional(record),
  })
  .superRefine((trajectory, context) => {
    trajectory.steps.forEach((step, index) => {
      if (step.step_id !== index + 1) context.addIssue({ code: 'custom', message: `steps[${index}].step_id: expected ${index + 1} (sequential from 1), got ${step.step_id}` });
      const callIds = new Set((step.tool_calls ?? []).map((call) => call.tool_call_id));
      for (const result of step.observation?.results ?? []) {
        if (result.source_call_id !== null && !callIds.has(result.source_call_id)) context.addIssue({ code: 'custom', message: `step ${step.step_id} observation references unknown tool call '${result.source_call_id}'` });
      }
    });
    const totalSteps = trajectory.final_metrics?.total_steps;
    if (totalSteps !== null && totalSteps !== undefined && totalSteps !== trajectory.steps.length) {
      context.addIssue({ code: 'custom', message: `final_metrics.total_steps must equal the number of trajectory steps: expected ${trajectory.steps.length}, got ${totalSteps}` });
    }
  });
type AtifTrajectory = z.infer<typeof Trajectory>;

const ManifestEntry = z.strictObject({
  trajectory_path: z.string().min(1),
  _ng_task_index: z.number().int().min(0),
  _ng_rollout_index: z.number().int().min(0),
  expected_sha256: optional(z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256')),
});
type ManifestEntry = z.infer<typeof ManifestEntry>;

const issuesOf = (error: z.ZodError) => error.issues.map((issue) => `${issue.path.join('.') || '(document)'}: ${issue.message}`).join('; ');

/** JSON with sorted keys and no spaces, as Python's `json.dumps(sort_keys=True, separators=(",", ":"))`. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isDict(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  return JSON.stringify(value);
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** A hash of what the trajectory says, without producer metadata in `extra` (the fields this reader uses stay). */
function contentSha256(trajectory: AtifTrajectory): string {
  const canonical = structuredClone(trajectory) as Row & { agent: Row; steps: Row[]; final_metrics: Row | null };
  canonical.trajectory_id = null;
  delete canonical.agent.extra;
  const source = isDict(trajectory.extra) && isDict(trajectory.extra.nemo_gym) && isDict(trajectory.extra.nemo_gym.source) ? trajectory.extra.nemo_gym.source : undefined;
  if (isDict(canonical.extra)) canonical.extra = source === undefined ? null : { nemo_gym: { source } };
  if (canonical.final_metrics !== null) delete canonical.final_metrics.extra;
  for (const step of canonical.steps) {
    delete step.extra;
    for (const call of (step.tool_calls as Row[] | null) ?? []) delete call.extra;
    for (const result of ((step.observation as { results: Row[] } | null)?.results ?? [])) {
      result.extra = isDict(result.extra) && 'tool_result' in result.extra ? { tool_result: result.extra.tool_result } : null;
    }
    const metrics = step.metrics as Row | null;
    if (metrics === null) continue;
    const extra = isDict(metrics.extra) ? metrics.extra : {};
    const kept: Row = {};
    if (extra.total_tokens !== undefined && extra.total_tokens !== null) kept.total_tokens = extra.total_tokens;
    let reasoning = extra.reasoning_tokens;
    for (const name of ['output_tokens_details', 'completion_tokens_details']) {
      const details = extra[name];
      if ((reasoning === undefined || reasoning === null) && isDict(details)) reasoning = details.reasoning_tokens;
    }
    if (reasoning !== undefined && reasoning !== null) kept.reasoning_tokens = reasoning;
    metrics.extra = Object.keys(kept).length > 0 ? kept : null;
  }
  return sha256(canonicalJson(canonical));
}

function textParts(value: AtifContent, field: string): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (value.length === 0) refuse(`${field} contains an empty content-part list`);
  return value.map((part, index) => (part.type === 'text' && part.text !== null ? part.text : refuse(`${field} part ${index} is not losslessly projectable text`)));
}

/** The subset this reader projects without changing what is scored. */
function checkSupported(trajectory: AtifTrajectory): void {
  if (trajectory.continued_trajectory_ref !== null) refuse('continued ATIF trajectories are not supported by the reverify adapter');
  if ((trajectory.subagent_trajectories ?? []).length > 0) refuse('embedded subagent trajectories are not supported by the reverify adapter');
  const multimodal = trajectory.steps.some(
    (step) => (Array.isArray(step.message) && step.message.some((part) => part.type !== 'text')) || (step.observation?.results ?? []).some((result) => Array.isArray(result.content) && result.content.some((part) => part.type !== 'text')),
  );
  if (multimodal) refuse('multimodal ATIF content cannot be projected losslessly for reverification');
  const copied = trajectory.steps.filter((step) => step.is_copied_context === true).map((step) => step.step_id);
  if (copied.length > 0) refuse(`copied continuation context is not supported; copied step IDs: ${copied.join(', ')}`);
  let sawAgent = false;
  for (const step of trajectory.steps) {
    const metrics = step.metrics;
    if (metrics !== null && (metrics.prompt_token_ids !== null || metrics.completion_token_ids !== null || metrics.logprobs !== null)) {
      refuse(`step ${step.step_id} contains training token metadata that the reverify adapter does not support`);
    }
    if (step.source === 'agent') {
      if ((step.tool_calls ?? []).length > 0 && textParts(step.message, `step ${step.step_id} message`).length > 0) {
        refuse(`agent step ${step.step_id} contains both message text and tool calls; ATIF does not preserve their provider output-item ordering`);
      }
      if (step.llm_call_count !== null && step.llm_call_count > 1) refuse(`agent step ${step.step_id} aggregates ${step.llm_call_count} LLM calls and cannot be projected into one ordered Responses sequence`);
      sawAgent = true;
    } else if (sawAgent) refuse(`non-agent step ${step.step_id} appears after agent output and would change the scored conversation`);
    if (step.source !== 'agent' && step.observation !== null) refuse(`non-agent step ${step.step_id} contains an observation that cannot be projected into a response`);
    for (const [index, result] of (step.observation?.results ?? []).entries()) {
      if ((result.subagent_trajectory_ref ?? []).length > 0) refuse(`step ${step.step_id} observation ${index} references a subagent trajectory`);
    }
  }
}

/** A tool result: ATIF text content, or the structured result some producers (Relay) put in `extra.tool_result`. */
function observationOutput(result: z.infer<typeof ObservationResult>, field: string): string | Row[] {
  const toolResult = isDict(result.extra) && 'tool_result' in result.extra ? result.extra.tool_result : undefined;
  if (result.content !== null && toolResult !== undefined) refuse(`${field} contains both content and extra.tool_result`);
  if (result.content !== null) {
    if (typeof result.content === 'string') return result.content;
    const parts = textParts(result.content, field);
    return parts.map((text) => ({ type: 'input_text', text }));
  }
  if (toolResult !== undefined) return typeof toolResult === 'string' ? toolResult : canonicalJson(toolResult);
  return refuse(`${field} has neither content nor extra.tool_result`);
}

function itemId(seed: string, ...components: string[]): string {
  return `atif_${sha256([seed, ...components].join('\0')).slice(0, 20)}`;
}

function modelName(trajectory: AtifTrajectory, agentSteps: AtifStep[]): string {
  const names = agentSteps.map((step) => step.model_name ?? trajectory.agent.model_name);
  const known = new Set(names.filter((name): name is string => name !== null));
  if (known.size > 1) refuse('ATIF agent steps resolve to multiple model names and cannot be represented by one verifier response');
  if (known.size > 0 && names.includes(null)) refuse('ATIF agent steps mix known and unknown model identity and cannot be represented by one verifier response');
  return [...known][0] ?? 'unknown';
}

function createdAt(agentSteps: AtifStep[]): number {
  for (const step of [...agentSteps].reverse()) {
    if (step.timestamp === null) continue;
    if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(step.timestamp)) refuse(`agent step ${step.step_id} timestamp has no timezone and cannot produce a stable created_at`);
    return Date.parse(step.timestamp) / 1000;
  }
  return 0;
}

/** A non-negative integer a producer put in `metrics.extra`, or undefined. */
function extraCount(namespace: Row, field: string, stepId: number): number | undefined {
  const value = namespace[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) refuse(`step ${stepId} ATIF ${field} metadata is not a non-negative integer`);
  return value as number;
}

/** The response's usage: per-step counts must be complete and add up to the final totals; unknowns stay unknown, never 0. */
function usage(trajectory: AtifTrajectory): Row | null {
  const steps = trajectory.steps.filter((step) => step.source === 'agent' && step.llm_call_count !== 0);
  let reasoningTotal: number | undefined = 0;
  let reportedTotal: number | undefined = 0;
  let sawReasoning = false;
  let sawTotal = false;
  let stepUsage = false;
  for (const step of steps) {
    const metrics = step.metrics;
    if (metrics !== null && metrics.prompt_tokens !== null && metrics.cached_tokens !== null && metrics.cached_tokens > metrics.prompt_tokens) refuse(`step ${step.step_id} cached_tokens exceeds prompt_tokens; cached tokens must be a subset`);
    const extra = isDict(metrics?.extra) ? metrics.extra : {};
    const nested = ['output_tokens_details', 'completion_tokens_details'].flatMap((name) => {
      if (extra[name] !== undefined && extra[name] !== null && !isDict(extra[name])) refuse(`step ${step.step_id} metrics.extra.${name} is not an object`);
      const value = isDict(extra[name]) ? extraCount(extra[name], 'reasoning_tokens', step.step_id) : undefined;
      return value === undefined ? [] : [value];
    });
    if (new Set(nested).size > 1) refuse(`step ${step.step_id} ATIF reasoning_tokens metadata conflicts between nested token-detail fields`);
    const topLevel = extraCount(extra, 'reasoning_tokens', step.step_id);
    if (nested[0] !== undefined && topLevel !== undefined && nested[0] !== topLevel) refuse(`step ${step.step_id} ATIF reasoning_tokens metadata conflicts between metrics.extra.reasoning_tokens and a nested token-detail field`);
    const reasoning = nested[0] ?? topLevel;
    const total = extraCount(extra, 'total_tokens', step.step_id);
    if (metrics !== null) {
      if (total !== undefined && total < (metrics.prompt_tokens ?? 0) + (metrics.completion_tokens ?? 0)) refuse(`step ${step.step_id} ATIF total_tokens metadata is smaller than prompt_tokens + completion_tokens`);
      if (reasoning !== undefined && metrics.completion_tokens !== null && reasoning > metrics.completion_tokens) refuse(`step ${step.step_id} ATIF reasoning_tokens metadata exceeds completion_tokens`);
    }
    sawReasoning ||= reasoning !== undefined;
    sawTotal ||= total !== undefined;
    reasoningTotal = reasoning === undefined || reasoningTotal === undefined ? undefined : reasoningTotal + reasoning;
    reportedTotal = total === undefined || reportedTotal === undefined ? undefined : reportedTotal + total;
    stepUsage ||= metrics !== null && (metrics.prompt_tokens !== null || metrics.completion_tokens !== null || metrics.cached_tokens !== null || reasoning !== undefined || total !== undefined);
  }
  if (!sawReasoning) reasoningTotal = undefined;
  if (!sawTotal) reportedTotal = undefined;
  const completeSteps = steps.length > 0 && steps.every((step) => step.metrics !== null && step.metrics.prompt_tokens !== null && step.metrics.completion_tokens !== null);
  if (stepUsage && !completeSteps) refuse('ATIF contains partial per-model-step token metrics; every model step must provide both prompt_tokens and completion_tokens');
  const final = trajectory.final_metrics;
  if (final === null) return stepUsage ? refuse('ATIF contains per-step token metrics without final_metrics') : null;
  if (final.total_prompt_tokens !== null && final.total_cached_tokens !== null && final.total_cached_tokens > final.total_prompt_tokens) refuse('ATIF final total_cached_tokens exceeds total_prompt_tokens; cached tokens must be a subset');
  if (final.total_prompt_tokens === null && final.total_completion_tokens === null) {
    if (stepUsage) refuse('ATIF final_metrics omits token totals despite per-step token metrics');
    if (final.total_cached_tokens !== null) refuse('ATIF final_metrics cannot represent total_cached_tokens without prompt and completion token totals');
    return null;
  }
  if (final.total_prompt_tokens === null || final.total_completion_tokens === null) return refuse('ATIF final_metrics must provide both prompt and completion token totals');
  let prompt = final.total_prompt_tokens;
  let completion = final.total_completion_tokens;
  let cached: number | null = final.total_cached_tokens;
  if (stepUsage) {
    const metrics = steps.map((step) => step.metrics as z.infer<typeof StepMetrics>);
    prompt = metrics.reduce((sum, entry) => sum + (entry.prompt_tokens ?? 0), 0);
    completion = metrics.reduce((sum, entry) => sum + (entry.completion_tokens ?? 0), 0);
    if (prompt !== final.total_prompt_tokens || completion !== final.total_completion_tokens) refuse('ATIF final token totals do not match the complete per-model-step metrics');
    const cachedValues = metrics.map((entry) => entry.cached_tokens);
    const known = cachedValues.filter((value): value is number => value !== null);
    if (known.length === cachedValues.length) {
      cached = known.reduce((sum, value) => sum + value, 0);
      if (final.total_cached_tokens !== null && cached !== final.total_cached_tokens) refuse('ATIF final cached-token total does not match the per-model-step metrics');
    } else if (known.length > 0) cached = null; // partly observed: no honest aggregate
  }
  if (reportedTotal !== undefined && reportedTotal < prompt + completion) refuse('ATIF total_tokens metadata is smaller than prompt_tokens + completion_tokens');
  if (reasoningTotal !== undefined && reasoningTotal > completion) refuse('ATIF reasoning_tokens metadata exceeds total completion tokens');
  return {
    input_tokens: prompt,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: completion,
    output_tokens_details: { reasoning_tokens: reasoningTotal ?? null },
    total_tokens: reportedTotal ?? prompt + completion,
  };
}

/** The request fields a native response carries back; the materialized task's values are used. */
const RESPONSE_REQUEST_FIELDS = ['background', 'instructions', 'max_output_tokens', 'max_tool_calls', 'metadata', 'parallel_tool_calls', 'previous_response_id', 'prompt', 'reasoning', 'service_tier', 'temperature', 'text', 'tool_choice', 'tools', 'top_logprobs', 'top_p', 'truncation', 'user'];

/** One complete text-only trajectory as a Responses API response. */
export function atifResponse(trajectory: AtifTrajectory): Row {
  checkSupported(trajectory);
  const agentSteps = trajectory.steps.filter((step) => step.source === 'agent');
  if (agentSteps.length === 0) refuse('ATIF trajectory has no agent steps to score');
  const seed = trajectory.trajectory_id !== null && trajectory.trajectory_id.trim() !== '' ? trajectory.trajectory_id : `content:${contentSha256(trajectory)}`;
  const output: Row[] = [];
  const seenCalls = new Set<string>();
  const seenResults = new Set<string>();
  for (const step of agentSteps) {
    const prefix = `step ${step.step_id}`;
    if (step.reasoning_content !== null) output.push({ id: itemId(seed, 'reasoning', String(step.step_id)), type: 'reasoning', summary: [{ type: 'summary_text', text: step.reasoning_content }] });
    const calls = step.tool_calls ?? [];
    const texts = textParts(step.message, `${prefix} message`);
    if (texts.length > 0 || calls.length === 0) {
      output.push({
        id: itemId(seed, 'message', String(step.step_id)),
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: (texts.length > 0 ? texts : ['']).map((text) => ({ type: 'output_text', text, annotations: [], logprobs: null })),
      });
    }
    const stepCalls = new Set<string>();
    for (const call of calls) {
      if (call.tool_call_id.trim() === '') refuse(`${prefix} contains a tool call with a blank tool_call_id`);
      if (call.function_name.trim() === '') refuse(`${prefix} tool call '${call.tool_call_id}' has a blank function_name`);
      if (stepCalls.has(call.tool_call_id)) refuse(`${prefix} repeats tool_call_id '${call.tool_call_id}'`);
      if (seenCalls.has(call.tool_call_id)) refuse(`ATIF trajectory repeats tool_call_id '${call.tool_call_id}' across steps`);
      stepCalls.add(call.tool_call_id);
      seenCalls.add(call.tool_call_id);
      output.push({ id: itemId(seed, 'function-call', call.tool_call_id), type: 'function_call', call_id: call.tool_call_id, name: call.function_name, arguments: canonicalJson(call.arguments), status: 'completed' });
    }
    const answered = new Set<string>();
    for (const [index, result] of (step.observation?.results ?? []).entries()) {
      const field = `${prefix} observation ${index}`;
      if (result.source_call_id === null) return refuse(`${field} has no source_call_id`);
      if (!stepCalls.has(result.source_call_id)) refuse(`${field} references unknown tool call '${result.source_call_id}'`);
      if (seenResults.has(result.source_call_id)) refuse(`ATIF trajectory contains multiple outputs for tool call '${result.source_call_id}'`);
      seenResults.add(result.source_call_id);
      answered.add(result.source_call_id);
      output.push({ id: itemId(seed, 'function-output', result.source_call_id, String(index)), type: 'function_call_output', call_id: result.source_call_id, output: observationOutput(result, field), status: 'completed' });
    }
    const unanswered = [...stepCalls].filter((id) => !answered.has(id));
    if (unanswered.length > 0) refuse(`${prefix} has no observation result for tool call(s) ${unanswered.map((id) => `'${id}'`).join(', ')}`);
  }
  return {
    id: itemId(seed, 'response'),
    created_at: createdAt(agentSteps),
    model: modelName(trajectory, agentSteps),
    object: 'response',
    output,
    parallel_tool_calls: agentSteps.some((step) => (step.tool_calls ?? []).length > 1),
    tool_choice: 'auto',
    tools: [],
    status: 'completed',
    usage: usage(trajectory),
  };
}

export function parseAtifTrajectory(value: unknown, where: string): AtifTrajectory {
  const parsed = Trajectory.safeParse(value);
  if (!parsed.success) return refuse(`invalid ATIF trajectory ${where}: ${issuesOf(parsed.error)}`);
  return parsed.data;
}

/** The trajectory's own claim of which Gym rollout it is (`extra.nemo_gym.source`) must agree with the manifest. */
function checkDeclaredSource(trajectory: AtifTrajectory, entry: ManifestEntry): void {
  const source = isDict(trajectory.extra) && isDict(trajectory.extra.nemo_gym) && isDict(trajectory.extra.nemo_gym.source) ? trajectory.extra.nemo_gym.source : undefined;
  if (source === undefined) return;
  for (const [field, expected] of [['task_index', entry._ng_task_index], ['rollout_index', entry._ng_rollout_index]] as const) {
    if (!(field in source)) continue;
    const value = source[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) refuse(`Gym ATIF source ${field} is invalid: ${JSON.stringify(value)}`);
    if (value !== expected) refuse(`Gym ATIF source ${field} ${String(value)} conflicts with manifest value ${expected}`);
  }
}

async function jsonlRows(path: string, what: string): Promise<{ line: number; row: Row }[]> {
  const rows: { line: number; row: Row }[] = [];
  for await (const { line, value } of readJsonl(path)) {
    if (!isDict(value)) refuse(`${what} row ${line} in ${path} is not an object`);
    rows.push({ line, row: value as Row });
  }
  return rows;
}

/** Materialized inputs by (task, rollout): identity from the row's keys, never from its position. */
async function indexInputs(path: string): Promise<Map<string, Row>> {
  const indexed = new Map<string, Row>();
  for (const { line, row } of await jsonlRows(path, 'materialized input')) {
    for (const field of ['_ng_task_index', '_ng_rollout_index']) {
      const value = row[field];
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) refuse(`materialized input row ${line} has invalid ${field}: ${JSON.stringify(value)}`);
    }
    const agent = isDict(row.agent_ref) ? row.agent_ref.name : undefined;
    if (typeof agent !== 'string' || agent.trim() === '') refuse(`materialized input row ${line} has invalid agent_ref.name: ${JSON.stringify(agent ?? null)}`);
    const key = `${String(row._ng_task_index)}/${String(row._ng_rollout_index)}`;
    if (indexed.has(key)) refuse(`duplicate materialized input key (${key.replace('/', ', ')})`);
    indexed.set(key, row);
  }
  return indexed;
}

/**
 * The verify bodies of a manifest's trajectories (at most `limit`), each the materialized task with the projected
 * response and its provenance under `_ng_atif_provenance`. Every entry is checked before any is returned.
 */
export async function atifVerifyPayloads(inputsPath: string, manifestPath: string, limit?: number): Promise<Row[]> {
  const inputs = await indexInputs(inputsPath);
  const entries = (await jsonlRows(manifestPath, 'ATIF manifest')).map(({ line, row }) => {
    const parsed = ManifestEntry.safeParse(row);
    return parsed.success ? parsed.data : refuse(`invalid ATIF manifest row ${line} in ${manifestPath}: ${issuesOf(parsed.error)}`);
  });
  if (entries.length === 0) refuse(`ATIF manifest ${manifestPath} contains no entries`);
  const unpinned = entries.filter((entry) => entry.expected_sha256 === null).length;
  if (unpinned > 0) process.stderr.write(`Warning: ATIF manifest ${manifestPath} has ${unpinned} of ${entries.length} entries without expected_sha256; each observed source hash is recorded, but cannot be compared with a pinned digest.\n`);
  const seen = { rollouts: new Set<string>(), paths: new Set<string>(), hashes: new Set<string>(), identities: new Set<string>() };
  const payloads: Row[] = [];
  for (const entry of entries.slice(0, limit)) {
    const key = `${entry._ng_task_index}/${entry._ng_rollout_index}`;
    if (seen.rollouts.has(key)) refuse(`manifest maps materialized rollout (${entry._ng_task_index}, ${entry._ng_rollout_index}) more than once`);
    seen.rollouts.add(key);
    const path = isAbsolute(entry.trajectory_path) ? entry.trajectory_path : resolve(dirname(manifestPath), entry.trajectory_path);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      return refuse(`could not read ATIF trajectory ${path}: ${(error as Error).message}`);
    }
    const sourceSha256 = sha256(bytes);
    if (entry.expected_sha256 !== null && entry.expected_sha256 !== sourceSha256) refuse(`ATIF source hash mismatch for ${path}: expected ${entry.expected_sha256}, got ${sourceSha256}`);
    let document: unknown;
    try {
      document = JSON.parse(bytes.toString('utf8'));
    } catch (error) {
      return refuse(`invalid ATIF trajectory ${path}: not JSON (${(error as Error).message})`);
    }
    const trajectory = parseAtifTrajectory(document, path);
    checkDeclaredSource(trajectory, entry);
    const input = inputs.get(key) ?? refuse(`manifest entry ${path} has no matching materialized input (${entry._ng_task_index}, ${entry._ng_rollout_index})`);
    const params = input.responses_create_params;
    if (!isDict(params)) refuse('materialized input has no responses_create_params object');
    const response = atifResponse(trajectory);
    for (const field of RESPONSE_REQUEST_FIELDS) if (field in (params as Row)) response[field] = (params as Row)[field];
    if (seen.paths.has(path)) refuse(`manifest uses ATIF source path ${path} more than once`);
    seen.paths.add(path);
    if (seen.hashes.has(sourceSha256)) refuse(`manifest uses ATIF source content ${sourceSha256} more than once`);
    seen.hashes.add(sourceSha256);
    const trajectoryId = (trajectory.trajectory_id ?? '').trim();
    const identity = trajectoryId !== '' ? `trajectory_id ${trajectoryId}` : `content_sha256 ${contentSha256(trajectory)}`;
    if (seen.identities.has(identity)) refuse(`manifest repeats ATIF trajectory identity (${identity})`);
    seen.identities.add(identity);
    payloads.push({
      ...input,
      response,
      [ATIF_PROVENANCE_KEY]: { trajectory_id: trajectory.trajectory_id, session_id: trajectory.session_id, source_sha256: sourceSha256, schema_version: trajectory.schema_version, projection_status: 'complete' },
    });
  }
  return payloads;
}
