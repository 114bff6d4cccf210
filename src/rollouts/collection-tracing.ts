/**
 * Tracing of a collection, when the gym's `telemetry:` block (or `NEMO_GYM_OTEL_ENABLED`) turns it on: each
 * rollout is the root of its own trace (`gym.collect.rollout`), which every server the rollout reaches joins;
 * the run itself is one `gym.job` span in a trace of its own, which each rollout's root links to.
 */
import type { ServerClient } from '../client/server-client.ts';
import { TELEMETRY_KEY, telemetrySettings } from '../telemetry/settings.ts';
import { configureTracing, flushTracing, inRolloutTrace, markSpanFailed, type ServiceIdentity, serviceTracer, type Span, startRootSpan, type Tracer } from '../telemetry/tracing.ts';
import type { FinishedRollout } from './rollout-outcome.ts';

/**
 * Traces this process as the gym's `telemetry:` block says (the environment's variables alone without a client),
 * and answers `service`'s tracer: undefined while tracing is off.
 */
export async function gymTracer(client: ServerClient | undefined, service: ServiceIdentity): Promise<Tracer | undefined> {
  await configureTracing(telemetrySettings(client?.config.resolvedValue([TELEMETRY_KEY])).tracing);
  return serviceTracer(service);
}

export class CollectionTracing {
  private constructor(
    private readonly tracer: Tracer | undefined,
    private readonly job: Span | undefined,
  ) {}

  /** Reads the settings from the gym's config (the environment's variables alone without a client). */
  static async start(client: ServerClient | undefined): Promise<CollectionTracing> {
    const tracer = await gymTracer(client, { name: 'collector', type: 'collector' });
    return new CollectionTracing(tracer, startRootSpan(tracer, 'job', 'gym.job'));
  }

  /** Runs one rollout (all its attempts) as the root of its trace. */
  rollout(taskIndex: number, rolloutIndex: number, run: () => Promise<FinishedRollout>): Promise<FinishedRollout> {
    if (this.tracer === undefined) return run();
    const links = this.job === undefined ? undefined : [{ context: this.job.spanContext() }];
    return inRolloutTrace(
      this.tracer,
      'gym.collect.rollout',
      { taskIndex, rolloutIndex },
      async (span) => {
        const finished = await run();
        const { outcome } = finished;
        span?.setAttributes({ 'nemo.gym.agent.name': outcome.agent, 'nemo.gym.rollout.attempts': outcome.attempts, 'nemo.gym.rollout.status': outcome.status });
        if (outcome.status === 'failed' && span !== undefined) markSpanFailed(span.setAttribute('nemo.gym.rollout.failure_class', outcome.failure.failureClass), outcome.failure.message);
        return finished;
      },
      { links },
    );
  }

  /** Ends the run's span and exports what is left, so the last rollouts' spans are not lost when the process exits. */
  async end(): Promise<void> {
    this.job?.end();
    await flushTracing();
  }
}
