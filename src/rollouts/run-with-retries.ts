/**
 * Running a rollout from this process: each attempt is POSTed to its agent under the stall watch (which can
 * abort it), and a retryable failure is tried again after a backoff, up to `maxRetries` times, unless the run
 * is stopping. A distributed run retries in its executor instead (src/rollouts/queue/).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerClient } from '../client/server-client.ts';
import type { CollectOptions } from './collect-options.ts';
import type { RolloutRunner } from './launch-rollouts.ts';
import type { FinishedRollout } from './rollout-outcome.ts';
import { rolloutRequest } from './rollout-request.ts';
import { attemptRollout } from './run-attempt.ts';
import type { StallWatch } from './stall-watch.ts';
import type { StopSignal } from './stop-signal.ts';
import type { Task } from './task-source.ts';

/** Exponential (capped at 30 s), with jitter over its upper half so rollouts that failed together spread out. */
function backoff(baseMs: number, attempt: number): number {
  const delay = Math.min(30_000, baseMs * 2 ** attempt);
  return delay / 2 + Math.random() * (delay / 2);
}

export class RetryingRunner implements RolloutRunner {
  constructor(
    private readonly client: ServerClient,
    private readonly options: Pick<CollectOptions, 'rolloutTimeoutMs' | 'maxRetries' | 'retryDelayMs'>,
    private readonly stallWatch: StallWatch | undefined,
    private readonly signal: StopSignal,
  ) {}

  async run(task: Task, rolloutIndex: number, attemptIndex?: number): Promise<FinishedRollout> {
    const options = this.options;
    const request = rolloutRequest(task, rolloutIndex, attemptIndex);
    const timeoutMs = options.rolloutTimeoutMs === undefined ? this.client.defaultTimeoutMs : options.rolloutTimeoutMs;
    const maxRetries = options.maxRetries ?? 3;
    const started = performance.now();
    const reference = () => ({ taskIndex: task.taskIndex, rolloutIndex, agent: task.agent, durationMs: performance.now() - started });
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController();
      const end = this.stallWatch?.begin(task.agent, (reason) => controller.abort(reason));
      const attempted = await attemptRollout(this.client, request, { timeoutMs, signal: controller.signal });
      end?.(attempted.ok || attempted.answered);
      if (attempted.ok) return { outcome: { ...reference(), status: 'completed', result: attempted.result, attempts: attempt + 1 }, line: attempted.line };
      const failure = attempted.failure;
      if (!failure.retryable || attempt >= maxRetries || this.signal.stopping) {
        return { outcome: { ...reference(), status: 'failed', failure, attempts: attempt + 1 } };
      }
      await sleep(backoff(options.retryDelayMs ?? 1000, attempt));
    }
  }
}
