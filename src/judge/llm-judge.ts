/**
 * The LLM judge shared by judged environments: it sends a prompt to the model server named by the
 * environment's `judge_model_server` reference (`POST /v1/responses`), at most
 * `judge_endpoint_max_concurrency` calls at a time per server, and returns the exchange for the rollout
 * record. When the judge itself fails (unreachable, timeout, error status, a reply that is not a Response)
 * it throws `JudgeError` (`NGYM_JUDGE_FAILED`, HTTP 502, retryable): the rollout is recorded as a judge
 * failure and never scored as a wrong answer.
 */
import * as z from 'zod';
import type { ServerClient } from '../client/server-client.ts';
import { ModelServerRef } from '../config/schemas.ts';
import { describeError, NgymError } from '../errors.ts';
import { isValidResponse } from '../protocol/fast-checks.ts';
import { Response, ResponseCreateParams, type ResponseItem } from '../protocol/responses.ts';
import { Semaphore } from '../util/semaphore.ts';
import { parseVerdict, type Verdict, type VerdictLabels } from './verdict.ts';

export const DEFAULT_JUDGE_MAX_CONCURRENCY = 64;

/** Config keys of a judged environment, as upstream names them. */
export const judgeConfigShape = {
  judge_model_server: ModelServerRef,
  /** Sent with every judge call (temperature, max_output_tokens...); `input` is replaced by the prompt. */
  judge_responses_create_params: ResponseCreateParams.default({ input: [] }),
  /** Judge calls in flight at once from this server; null for no limit. */
  judge_endpoint_max_concurrency: z.number().int().min(1).nullable().default(DEFAULT_JUDGE_MAX_CONCURRENCY),
  /** Time limit of one judge call; null uses the server's request timeout. */
  judge_timeout_seconds: z.number().positive().nullable().default(null),
};

export interface JudgeConfig {
  judge_model_server: { name: string };
  judge_responses_create_params: ResponseCreateParams;
  judge_endpoint_max_concurrency: number | null;
  judge_timeout_seconds: number | null;
}

export class JudgeError extends NgymError {
  constructor(message: string, cause?: unknown) {
    super('NGYM_JUDGE_FAILED', message, { status: 502, retryable: true, cause });
  }
}

export interface JudgeMessage {
  role: 'system' | 'user' | 'developer' | 'assistant';
  content: string;
}

/** One judge exchange as rollouts record it (upstream's `JudgeEvaluation`). */
export interface JudgeEvaluation {
  responses_create_params: ResponseCreateParams;
  response: Response;
  verdict_label?: string | null;
}

export class LlmJudge {
  private readonly semaphore: Semaphore | undefined;

  constructor(
    private readonly client: ServerClient,
    readonly config: JudgeConfig,
  ) {
    const limit = config.judge_endpoint_max_concurrency;
    this.semaphore = limit === null ? undefined : new Semaphore(limit);
  }

  get inFlight(): number | undefined {
    return this.semaphore?.inFlight;
  }

  /** Sends `messages` to the judge model and returns the request and the reply. */
  async call(messages: JudgeMessage[]): Promise<JudgeEvaluation> {
    const params: ResponseCreateParams = {
      // The non-null defaults upstream's request model fills in, so the recorded request is the one it records.
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      ...structuredClone(this.config.judge_responses_create_params),
      input: messages.map((message) => ({ ...message, type: 'message' }) as ResponseItem),
    };
    const response = this.semaphore === undefined ? await this.post(params) : await this.semaphore.run(() => this.post(params));
    return { responses_create_params: params, response };
  }

  /** `call`, then the verdict read with `labels`; the evaluation records the label found. */
  async compare(messages: JudgeMessage[], labels: VerdictLabels): Promise<{ verdict: Verdict; evaluation: JudgeEvaluation }> {
    const evaluation = await this.call(messages);
    const verdict = parseVerdict(evaluation.response, labels);
    return { verdict, evaluation: { ...evaluation, verdict_label: verdict.label } };
  }

  private async post(params: ResponseCreateParams): Promise<Response> {
    const server = this.config.judge_model_server.name;
    const seconds = this.config.judge_timeout_seconds;
    let body: unknown;
    try {
      const reply = await this.client.post(server, '/v1/responses', params, seconds === null ? {} : { timeoutMs: seconds * 1000 });
      if (!reply.ok) throw new JudgeError(`The judge model server '${server}' answered HTTP ${reply.status}: ${reply.text.slice(0, 500)}`);
      body = reply.json();
    } catch (error) {
      if (error instanceof JudgeError) throw error;
      throw new JudgeError(`The judge model server '${server}' failed: ${describeError(error)}`, error);
    }
    // The allocation-free check passes a valid reply; zod (which copies the whole reply) runs only to say what is wrong.
    if (isValidResponse(body)) return body as Response;
    const parsed = Response.safeParse(body);
    if (!parsed.success) {
      throw new JudgeError(`The judge model server '${server}' answered something that is not a Response: ${z.prettifyError(parsed.error).slice(0, 500)}`);
    }
    return body as Response;
  }
}
