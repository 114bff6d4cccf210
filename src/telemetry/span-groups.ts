/**
 * Span groups, with upstream 0.7.0's names and presets (nemo_gym/telemetry/span_groups.py): every site that makes
 * a span belongs to one group, and `telemetry.span_groups` picks the groups that are recorded. Trace context is
 * propagated whatever the groups, so turning a group off removes its spans, never a hop from the trace.
 */
export const SpanGroup = {
  /** The whole collection run (`gym.job`), its own trace; each rollout's trace links to it. */
  JOB: 'job',
  /** The SERVER span of every request a server answers (`POST /verify`). */
  SERVER: 'server',
  /** The CLIENT span of every call a process makes to another server (`HTTP POST`). */
  HTTP_CLIENT: 'http_client',
  /** One rollout: the collector's root (`gym.collect.rollout`) and the agent's `/run` (`gym.rollout`). */
  ROLLOUT: 'rollout',
  /** A resources server's `/verify` (`gym.verify`) and an agent's verify call. */
  VERIFY: 'verify',
  /** An agent's `/v1/responses` (`gym.agent.responses`) and its steps: seed_session, model and tool calls. */
  AGENT: 'agent',
  /** A model server's generation (`gym.model.responses`, `gym.model.chat_completions`). */
  MODEL_CALL: 'model_call',
  /** A sandbox box's start, exec and stop (`gym.sandbox.start|exec|stop`, src/sandbox/providers/provider-sandbox.ts). */
  SANDBOX: 'sandbox',
} as const;

export type SpanGroup = (typeof SpanGroup)[keyof typeof SpanGroup];

const ALL_GROUPS: ReadonlySet<SpanGroup> = new Set(Object.values(SpanGroup));
const SPINE: SpanGroup[] = [SpanGroup.SERVER, SpanGroup.HTTP_CLIENT, SpanGroup.ROLLOUT];

/** Upstream's presets; `all` is every group. */
const PRESETS: Record<string, SpanGroup[]> = {
  default: [SpanGroup.JOB, ...SPINE],
  per_rollout: [SpanGroup.VERIFY, SpanGroup.AGENT, SpanGroup.MODEL_CALL, ...SPINE],
  all: [...ALL_GROUPS],
};

/**
 * ngym's default: a trace per rollout with every step in it. (Upstream's is `default`, whose `gym.job` span holds
 * a whole run in one trace; ngym's `gym.job` is its own trace, so either preset gives one trace per rollout.)
 */
export const DEFAULT_SPAN_GROUPS = 'per_rollout';

/** The groups a spec selects, and the names in it that are neither a preset nor a group (ignored, as upstream). */
export function resolveSpanGroups(spec: string): { groups: Set<SpanGroup>; unknown: string[] } {
  const groups = new Set<SpanGroup>();
  const unknown: string[] = [];
  for (const name of spec.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const preset = PRESETS[name];
    if (preset !== undefined) for (const group of preset) groups.add(group);
    else if (ALL_GROUPS.has(name as SpanGroup)) groups.add(name as SpanGroup);
    else unknown.push(name);
  }
  return { groups, unknown };
}
