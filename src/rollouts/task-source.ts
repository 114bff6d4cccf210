/**
 * The tasks of a collection, streamed from the input: each valid row becomes a task with a stable
 * `_ng_task_index` (its position among the tasks, or the index the row was already stamped with), routed to its
 * agents and given its repeats by agent-routing.ts (`agent_map`/`+agent_name`, `fan_out`, `num_repeats`). A row
 * fanned out to several agents is one task per agent, with the same `_ng_task_index` and consecutive rollout
 * indices (agent a gets 0..k-1, agent b k..2k-1), as upstream numbers them.
 * Consecutive identical lines are one task (prepare-data lays repeats out as aaabbb), so pass@k groups
 * them; detecting only consecutive duplicates keeps memory flat in the number of rows.
 */
import { isDict } from '../config/tree.ts';
import { AgentRouter, type RoutingRules } from './agent-routing.ts';
import { JsonlLineError, readJsonl } from './jsonl.ts';
import { applyPrompt, type PromptConfig, PromptRowError } from './prompt-config.ts';
import { seedProblem } from './rollout-seed.ts';

export interface Task {
  taskIndex: number;
  /** 1-based line of the first input line of this task (0 for rows not read from a file). */
  line: number;
  agent: string;
  row: Record<string, unknown>;
  /** The rollout index of this task's first rollout: 0, or past those of the agents a fanned-out row ran on first. */
  firstRollout: number;
  /** Rollouts to run for this task: its repeats times the number of identical consecutive lines. */
  rollouts: number;
  /** Each rollout's `responses_create_params.metadata.extra_body` gets `seed: <rollout index>` (num_repeats_add_seed). */
  addSeed: boolean;
  /** The input line itself, when `row` is exactly what it says (no overrides applied). */
  text: string | undefined;
}

export interface InvalidInput {
  line: number;
  reason: string;
}

export interface TaskSourceOptions {
  input: string | Iterable<Record<string, unknown>> | AsyncIterable<Record<string, unknown>>;
  routing: RoutingRules;
  limit?: number | null;
  /** Shallow-merged over each row's `responses_create_params` (upstream's `+responses_create_params.*`). */
  responsesCreateParams?: Record<string, unknown>;
  /** Builds each row's `responses_create_params.input` (rows then need no `responses_create_params`). */
  prompt?: PromptConfig;
  addSeed?: boolean;
  onInvalid: (invalid: InvalidInput) => void;
  /** Routing the user should know about (rows re-routed away from the agent their data names). */
  onWarning: (message: string) => void;
  /** The router, when the caller wants what it saw (the routing keys, for upstream's typo warning). */
  router?: AgentRouter;
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
  let pending: { tasks: Task[]; lineText: string | undefined; repeats: number[] } | undefined;
  let nextIndex = 0;
  let rows = 0;
  const router = options.router ?? new AgentRouter(options.routing, options.onWarning);
  const overrides = options.responsesCreateParams !== undefined && Object.keys(options.responsesCreateParams).length > 0 ? options.responsesCreateParams : undefined;
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
    const routed = router.route(prompted);
    if (!routed.ok) {
      options.onInvalid({ line, reason: routed.reason });
      continue;
    }
    const row = overrides === undefined ? routed.row : { ...routed.row, responses_create_params: { ...(routed.row.responses_create_params as object), ...overrides } };
    const seedError = options.addSeed ? seedProblem(row) : undefined;
    if (seedError !== undefined) {
      options.onInvalid({ line, reason: seedError });
      continue;
    }
    rows++;
    if (pending !== undefined && text !== undefined && text === pending.lineText) {
      pending.tasks.forEach((task, position) => (task.rollouts += pending?.repeats[position] ?? 0));
      continue;
    }
    if (pending !== undefined) yield* numbered(pending.tasks);
    const stamped = typeof row._ng_task_index === 'number' && Number.isInteger(row._ng_task_index) ? row._ng_task_index : nextIndex;
    nextIndex = Math.max(nextIndex, stamped) + 1;
    const untouched = overrides === undefined && options.prompt === undefined;
    pending = {
      lineText: text,
      repeats: routed.targets.map((target) => target.rollouts),
      tasks: routed.targets.map((target) => {
        // A copy fanned out elsewhere than its row names gets agent_ref {name: <agent>}, as upstream restamps it.
        const ref = row.agent_ref;
        const taskRow = isDict(ref) && ref.name === target.agent ? row : { ...row, agent_ref: { name: target.agent } };
        return {
          taskIndex: stamped,
          line,
          agent: target.agent,
          row: taskRow,
          firstRollout: 0,
          rollouts: target.rollouts,
          addSeed: options.addSeed === true,
          text: untouched && taskRow === value ? text : undefined,
        };
      }),
    };
  }
  if (pending !== undefined) yield* numbered(pending.tasks);
}

/** A row's tasks (one per agent it runs on) take consecutive rollout indices, in the order the agents are listed. */
function* numbered(tasks: Task[]): Generator<Task> {
  let next = 0;
  for (const task of tasks) {
    task.firstRollout = next;
    next += task.rollouts;
    yield task;
  }
}
