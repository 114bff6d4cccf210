/**
 * The `/run` of a harness agent (claude_code_agent, codex_agent, opencode_agent): seed the environment, run
 * the CLI on the task in a sandbox box with the workspace the environment made (`workspace_path` in the
 * `/seed_session` answer), turn what the CLI printed into Responses output items, have the environment verify
 * that response, and deliver the rollout's captured token ids in it (token-capture.ts).
 *
 * A run that timed out, a CLI that exited non-zero or printed no answer, and a failed model call end the rollout
 * as a failure (`NGYM_ROLLOUT_FAILED`, which the collector records with the reason), never as a reward of 0.
 */
import { randomUUID } from 'node:crypto';
import { isAbsolute, join } from 'node:path';
import * as z from 'zod';
import { raiseForStatus } from '../../client/server-client.ts';
import { ModelServerRef, ResourcesServerRef } from '../../config/schemas.ts';
import { NgymError } from '../../errors.ts';
import { normalizeInput, type Response, type ResponseCreateParams, type ResponseItem } from '../../protocol/responses.ts';
import type { RunRequest, VerifyResponse } from '../../protocol/server-bodies.ts';
import type { RequestContext } from '../../server/base-server.ts';
import { Sandbox, sandboxConfigSchema } from '../../sandbox/sandbox.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { Semaphore } from '../../util/semaphore.ts';
import { refusedRow } from '../tool-loop.ts';
import { BOX_MODEL_URL, type HarnessInvocation, runHarness } from './harness-run.ts';
import { applyTokenDelivery, RolloutTokenCapture } from './token-capture.ts';

/** Config keys every harness agent has (upstream's names where upstream has them). */
export const harnessAgentConfig = {
  resources_server: ResourcesServerRef,
  model_server: ModelServerRef,
  concurrency: z.number().int().positive().default(8),
  /** Seconds for the whole CLI run (upstream's `timeout`). */
  timeout: z.number().positive().default(600),
  system_prompt: z.string().nullable().default(null),
  /** The model name sent to the model server; null: the model server's own. */
  model: z.string().nullable().default(null),
  /** The folder holding the pinned CLIs' node_modules; null: harness-cli/ of the ngym package. */
  cli_root: z.string().nullable().default(null),
  /** Record every model call's token ids and deliver them in the rollout (upstream's token_id_capture). */
  token_id_capture: z.boolean().default(true),
  sandbox: sandboxConfigSchema,
};

export interface HarnessAgentConfig {
  resources_server: { name: string };
  model_server: { name: string };
  concurrency: number;
  timeout: number;
  system_prompt: string | null;
  model: string | null;
  cli_root: string | null;
  token_id_capture: boolean;
}

export interface HarnessState {
  sandbox: Sandbox;
  slots: Semaphore;
  cliRoot: string;
}

/** What a harness turned its CLI's output into. */
export interface HarnessOutput {
  items: ResponseItem[];
  inputTokens: number;
  outputTokens: number;
  /** Why the run failed by the CLI's own account (an error result), or null. */
  failure: string | null;
}

export interface Harness<Config extends HarnessAgentConfig> {
  /** Upstream's agent name, for messages. */
  name: string;
  invocation: (task: { instruction: string; systemPrompt: string | null; modelUrl: string; config: Config }) => HarnessInvocation;
  parse: (stdout: string) => HarnessOutput;
}

type Context<Config> = RequestContext<Config, HarnessState>;

export async function harnessState(config: HarnessAgentConfig & { sandbox: z.infer<typeof sandboxConfigSchema> }): Promise<HarnessState> {
  // One box per rollout, started for it: no pool of idle boxes.
  const sandbox = await Sandbox.checkedFromConfig({ ...config.sandbox, pool_size: 0 });
  const cliRoot = config.cli_root ?? join(PACKAGE_ROOT, 'harness-cli');
  if (!isAbsolute(cliRoot)) throw new NgymError('NGYM_CONFIG_INVALID', `cli_root must be an absolute path, got ${cliRoot}`);
  return { sandbox, slots: new Semaphore(config.concurrency), cliRoot };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('');
}

/** The task: the last user message, and the system/developer messages and `instructions` joined (upstream's split). */
export function harnessInstruction(params: ResponseCreateParams, configured: string | null): { instruction: string; systemPrompt: string | null } {
  const items = normalizeInput(params.input) as { role?: string; content?: unknown }[];
  const system = items.filter((item) => item.role === 'system' || item.role === 'developer').map((item) => textOf(item.content));
  const instruction = textOf(items.findLast((item) => item.role === 'user')?.content);
  if (instruction === '') throw new NgymError('NGYM_INVALID_REQUEST', 'responses_create_params.input has no user message: a harness agent needs the task as a user message.', { status: 422 });
  const parts = [configured, typeof params.instructions === 'string' ? params.instructions : null, ...system].filter((part): part is string => typeof part === 'string' && part !== '');
  return { instruction, systemPrompt: parts.length === 0 ? null : parts.join('\n\n') };
}

function rolloutIdOf(row: RunRequest): string {
  const task = row._ng_task_index;
  const rollout = row._ng_rollout_index;
  return typeof task === 'number' && typeof rollout === 'number' ? `${task}-${rollout}` : randomUUID();
}

function failed(harness: string, reason: string): NgymError {
  return new NgymError('NGYM_ROLLOUT_FAILED', `${harness}: ${reason}`, { status: 502 });
}

export async function runHarnessRollout<Config extends HarnessAgentConfig>(row: RunRequest, context: Context<Config>, harness: Harness<Config>): Promise<VerifyResponse> {
  const { config, state } = context;
  await state.slots.acquire();
  try {
    const cookies = context.cookies.clone();
    const seeded = raiseForStatus(refusedRow(await context.client.post(config.resources_server.name, '/seed_session', row, { cookies })));
    cookies.merge(seeded.cookies);
    const seed = (seeded.text === '' ? {} : seeded.json()) as { workspace_path?: unknown };
    const workspace = typeof seed.workspace_path === 'string' ? seed.workspace_path : null;

    const params = row.responses_create_params;
    const { instruction, systemPrompt } = harnessInstruction(params, config.system_prompt);
    const capture = new RolloutTokenCapture(rolloutIdOf(row));
    const timeoutMs = config.timeout * 1000;
    const callModel = async (request: ResponseCreateParams): Promise<Response> =>
      raiseForStatus(await context.client.post(config.model_server.name, '/v1/responses', request, { cookies, timeoutMs })).json<Response>();

    const { result } = await runHarness({
      sandbox: state.sandbox,
      cliRoot: state.cliRoot,
      invocation: harness.invocation({ instruction, systemPrompt, modelUrl: BOX_MODEL_URL, config }),
      workspace,
      timeoutSeconds: config.timeout,
      relay: { callModel, capture, logger: context.logger, timeoutMs, model: config.model },
    });

    if (result.status === 'wall_timeout' || result.status === 'cpu_timeout') throw failed(harness.name, `the CLI did not finish within timeout (${config.timeout} s)`);
    const output = harness.parse(result.stdout);
    const modelFailure = capture.failures.at(-1);
    if (modelFailure !== undefined) throw failed(harness.name, `a model call failed (${modelFailure.dialect}, HTTP ${modelFailure.status}): ${modelFailure.message}`);
    if (result.status !== 'exited' || result.exitCode !== 0) {
      throw failed(harness.name, `the CLI ${result.status === 'exited' ? `exited with code ${result.exitCode}` : `stopped: ${result.status}${result.reason ? ` (${result.reason})` : ''}`}: ${output.failure ?? ''} ${result.stderr.slice(-1000)} ${result.stdout.slice(-1000)}`);
    }
    if (output.failure !== null) throw failed(harness.name, output.failure);
    if (output.items.length === 0) throw failed(harness.name, `the CLI printed no answer${result.stderr ? `: ${result.stderr.slice(-1000)}` : ''}`);

    const response: Response = {
      id: `resp_${randomUUID().replaceAll('-', '')}`,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      model: config.model ?? harness.name,
      output: output.items,
      parallel_tool_calls: params.parallel_tool_calls ?? true,
      tool_choice: params.tool_choice ?? 'auto',
      tools: params.tools ?? [],
      incomplete_details: null,
      usage: {
        input_tokens: output.inputTokens,
        output_tokens: output.outputTokens,
        total_tokens: output.inputTokens + output.outputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    } as Response;
    const verified = raiseForStatus(refusedRow(await context.client.post(config.resources_server.name, '/verify', { ...row, response }, { cookies })));
    context.responseCookies.merge(cookies);
    const rollout = verified.json<Record<string, unknown>>();
    return (config.token_id_capture ? applyTokenDelivery(rollout, capture.deliver()) : rollout) as VerifyResponse;
  } finally {
    state.slots.release();
  }
}
