/**
 * The tasks of a collection, streamed from the input: each valid row becomes a task with a stable
 * `_ng_task_index` (its position among the tasks, or the index the row was already stamped with),
 * routed to its agent (agent-routing.ts: `+agent_name` re-routes every row, else its own `agent_ref.name`),
 * expanded into `repeats` rollouts.
 * Consecutive identical lines are one task (prepare-data lays repeats out as aaabbb), so pass@k groups
 * them; detecting only consecutive duplicates keeps memory flat in the number of rows.
 */
import { isDict } from '../config/tree.ts';
import { AgentRouter, DEFAULT_AGENT_KEY } from './agent-routing.ts';
import { JsonlLineError, readJsonl } from './jsonl.ts';
import { applyPrompt, type PromptConfig, PromptRowError } from './prompt-config.ts';

export interface Task {
  taskIndex: number;
  /** 1-based line of the first input line of this task (0 for rows not read from a file). */
  line: number;
  agent: string;
  row: Record<string, unknown>;
  /** Rollouts to run for this task: `numRepeats` times the number of identical consecutive lines. */
  rollouts: number;
  /** The input line itself, when `row` is exactly what it says (no overrides applied). */
  text: string | undefined;
}

export interface InvalidInput {
  line: number;
  reason: string;
}

export interface TaskSourceOptions {
  input: string | Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>;
  /** The agent every row runs on, whatever its `agent_ref` says (upstream's `agent_map._default`). */
  agentName?: string | null;
  limit?: number | null;
  numRepeats: number;
  /** Shallow-merged over each row's `responses_create_params` (upstream's `+responses_create_params.*`). */
  responsesCreateParams?: Record<string, unknown>;
  /** Builds each row's `responses_create_params.input` (rows then need no `responses_create_params`). */
  prompt?: PromptConfig;
  onInvalid: (invalid: InvalidInput) => void;
  /** Routing the user should know about (rows re-routed away from the agent their data names). */
  onWarning: (message: string) => void;
}

async function* linesOf(input: TaskSourceOptions['input'], onInvalid: (invalid: InvalidInput) => void) {
  if (typeof input !== 'string') {
    let index = 0;
    for await (const row of input as AsyncIterable<Record<string, unknown>>) yield { line: ++index, value: row as unknown, text: undefined };
    return;
  }
  const lines = readJsonl(input, { skipInvalid: true });
  for await (const entry of lines) {
    if (entry instanceof JsonlLineError) onInvalid({ line: entry.line, reason: entry.reason });
    else yield entry;
  }
}

function rowProblem(value: unknown, prompted: boolean): string | undefined {
  if (!isDict(value)) return 'a row must be a JSON object';
  if (!prompted && !isDict(value.responses_create_params)) return 'the row has no responses_create_params object';
  return undefined;
}

/** Yields tasks in input order. */
export async function* readTasks(options: TaskSourceOptions): AsyncGenerator<Task> {
  let pending: (Task & { line_text: string | undefined }) | undefined;
  let nextIndex = 0;
  let rows = 0;
  const router = new AgentRouter(options.agentName ? { [DEFAULT_AGENT_KEY]: options.agentName } : undefined, options.onWarning);
  for await (const { line, value, text } of linesOf(options.input, options.onInvalid)) {
    if (options.limit !== null && options.limit !== undefined && rows >= options.limit) break;
    const problem = rowProblem(value, options.prompt !== undefined);
    if (problem !== undefined) {
      options.onInvalid({ line, reason: problem });
      continue;
    }
    let prompted = value as Record<string, unknown>;
    // As upstream, the prompt sees the row as the data has it, before routing stamps its agent_ref.
    if (options.prompt !== undefined) {
      try {
        prompted = applyPrompt(options.prompt, prompted, text);
      } catch (error) {
        if (!(error instanceof PromptRowError)) throw error;
        options.onInvalid({ line, reason: error.message });
        continue;
      }
    }
    const { agent, row } = router.route(prompted);
    if (agent === undefined) {
      options.onInvalid({ line, reason: 'the row has no agent_ref.name and no +agent_name was given' });
      continue;
    }
    rows++;
    if (pending !== undefined && text !== undefined && text === pending.line_text) {
      pending.rollouts += options.numRepeats;
      continue;
    }
    if (pending !== undefined) yield pending;
    const stamped = typeof row._ng_task_index === 'number' && Number.isInteger(row._ng_task_index) ? row._ng_task_index : nextIndex;
    nextIndex = Math.max(nextIndex, stamped) + 1;
    const overridden = options.responsesCreateParams !== undefined && Object.keys(options.responsesCreateParams).length > 0;
    pending = {
      taskIndex: stamped,
      line,
      agent,
      row: overridden ? { ...row, responses_create_params: { ...(row.responses_create_params as object), ...options.responsesCreateParams } } : row,
      rollouts: options.numRepeats,
      text: overridden || options.prompt !== undefined || row !== value ? undefined : text,
      line_text: text,
    };
  }
  if (pending !== undefined) yield pending;
}
