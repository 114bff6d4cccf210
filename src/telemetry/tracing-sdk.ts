/**
 * The OpenTelemetry SDK behind tracing.ts, loaded only when a process turns tracing on: one tracer provider per
 * service of the process (so each server is its own `service.name`, even when a test hosts several in one
 * process), all feeding one batching processor and one OTLP/HTTP exporter.
 *
 * Exporting never holds up a rollout: a span is queued when it ends and sent in batches in the background. When
 * the endpoint is unreachable, or slower than spans are made, spans are dropped instead of piling up: the queue
 * is bounded, every dropped span is counted, and the first drop is reported once in the log (the total when
 * tracing stops).
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { wholeNumberFromEnv } from '../util/env-number.ts';
import { createLogger, type Logger } from '../util/logger.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { OTLP_PROTOCOL, type TracingSettings } from './settings.ts';
import { spanSites } from './trace-context.ts';
import type { ServiceIdentity, TracingRuntime } from './tracing-types.ts';

const DEFAULT_EXPORT_TIMEOUT_MS = 2000;

/** Spans waiting to be sent, at most (`OTEL_BSP_MAX_QUEUE_SIZE`): about 1 KB each. */
const DEFAULT_MAX_QUEUE = 8192;

type ExportCallback = Parameters<SpanExporter['export']>[1];

/** Counts spans that never reached the endpoint; says so once in the log, and the total at the end. */
class DropCounter {
  count = 0;
  private lastReason = '';

  constructor(
    private readonly endpoint: string,
    private readonly logger: Logger,
  ) {}

  add(spans: number, reason: string): void {
    if (this.count === 0) {
      this.logger.warn(`Tracing: spans are being dropped, rollouts go on (${reason}; OTLP endpoint ${this.endpoint}). The total is reported when tracing stops.`);
    }
    this.count += spans;
    this.lastReason = reason;
  }

  reportTotal(): void {
    if (this.count > 0) this.logger.warn(`Tracing dropped ${this.count} spans in all (last: ${this.lastReason}; OTLP endpoint ${this.endpoint}).`);
  }
}

/**
 * The batching processor behind a bound on spans not yet exported (queued or being sent): past it, a span is
 * dropped and counted here, so the batch processor never drops one silently. Failed exports are counted too.
 */
class BoundedExport implements SpanProcessor {
  private pending = 0;
  private readonly batch: BatchSpanProcessor;
  /** Ends the flushes under way. */
  private readonly flushes = new Set<() => void>();

  constructor(
    exporter: SpanExporter,
    private readonly limit: number,
    private readonly drops: DropCounter,
  ) {
    const counting: SpanExporter = {
      export: (spans: ReadableSpan[], done: ExportCallback) =>
        exporter.export(spans, (result) => {
          this.pending -= spans.length;
          if (result.code !== ExportResultCode.SUCCESS) {
            this.drops.add(spans.length, `export failed: ${result.error?.message ?? 'unknown error'}`);
            for (const end of this.flushes) end();
          }
          done(result);
        }),
      shutdown: () => exporter.shutdown(),
    };
    this.batch = new BatchSpanProcessor(counting, {
      maxQueueSize: limit,
      maxExportBatchSize: Math.min(limit, wholeNumberFromEnv(process.env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? 512),
      scheduledDelayMillis: wholeNumberFromEnv(process.env, 'OTEL_BSP_SCHEDULE_DELAY') ?? 5000,
    });
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.pending >= this.limit) {
      this.drops.add(1, `more than ${this.limit} spans were waiting to be sent`);
      return;
    }
    this.pending++;
    this.batch.onEnd(span);
  }

  /**
   * Exports what is queued. Gives up at the first failed export: the endpoint is down, and a collection's or a
   * server's end must not wait on it (what is left is sent in the background while the process lives).
   */
  forceFlush(): Promise<void> {
    let end: () => void = () => {};
    return new Promise<void>((resolve) => {
      end = resolve;
      this.flushes.add(end);
      // A failed export is counted in `export`; flushing never throws into a collection or a server's close.
      this.batch.forceFlush().then(resolve, resolve);
    }).finally(() => this.flushes.delete(end));
  }

  async shutdown(): Promise<void> {
    await this.batch.shutdown().catch(() => {});
    this.drops.reportTotal();
  }
}

/**
 * How long one export may take, retries included: `OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT`, else 2 s (the SDK's 10 s
 * would hold a collection's end that long when the endpoint is down; a receiver takes a batch in milliseconds).
 */
function exportTimeoutMs(): number {
  return wholeNumberFromEnv(process.env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ?? wholeNumberFromEnv(process.env, 'OTEL_EXPORTER_OTLP_TIMEOUT') ?? DEFAULT_EXPORT_TIMEOUT_MS;
}

function ngymVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function startTracingRuntime(settings: TracingSettings, logger: Logger = createLogger('telemetry')): TracingRuntime {
  if (settings.unsupportedProtocol !== undefined) {
    logger.warn(`Tracing: OTLP protocol '${settings.unsupportedProtocol}' was asked for; ngym sends ${OTLP_PROTOCOL} to ${settings.endpoint} (an OTLP/HTTP receiver, usually port 4318, takes it).`);
  }
  if (settings.unknownGroups.length > 0) logger.warn(`Tracing: span groups ${settings.unknownGroups.join(', ')} name nothing and are ignored.`);
  const drops = new DropCounter(settings.endpoint, logger);
  const exporter = new OTLPTraceExporter({ url: settings.endpoint, headers: settings.headers, timeoutMillis: exportTimeoutMs() });
  const processor = new BoundedExport(exporter, wholeNumberFromEnv(process.env, 'OTEL_BSP_MAX_QUEUE_SIZE') ?? DEFAULT_MAX_QUEUE, drops);
  const version = ngymVersion();
  const resourceOf = (service: ServiceIdentity) =>
    resourceFromAttributes({
      [ATTR_SERVICE_NAME]: settings.serviceNamePerServer ? `${settings.serviceName}/${service.name}` : settings.serviceName,
      [ATTR_SERVICE_VERSION]: version,
      'nemo.gym.service_group': settings.serviceName,
      'nemo.gym.server.name': service.name,
      'nemo.gym.server.type': service.type,
      // Which machine and process: a queue's workers run the same services on many hosts.
      'host.name': hostname(),
      'process.pid': process.pid,
      ...(settings.runId === undefined ? {} : { 'nemo.run.id': settings.runId }),
    });
  // Registering one provider installs what every span needs: the async context (AsyncLocalStorage) and the W3C
  // trace-context propagator (the rollout's baggage is ngym's own, trace-context.ts). Spans come from the
  // per-service providers below.
  const global = new NodeTracerProvider({ resource: resourceOf({ name: 'process', type: 'process' }), spanProcessors: [processor] });
  global.register({ propagator: new W3CTraceContextPropagator() });
  const tracers = new Map<string, Tracer>();
  return {
    ...spanSites(settings.groups),
    settings,
    tracerFor(service) {
      const key = `${service.type}/${service.name}`;
      let tracer = tracers.get(key);
      if (tracer === undefined) {
        tracer = new NodeTracerProvider({ resource: resourceOf(service), spanProcessors: [processor] }).getTracer('ngym', version);
        tracers.set(key, tracer);
      }
      return tracer;
    },
    flush: () => processor.forceFlush(),
    get droppedSpans() {
      return drops.count;
    },
    async shutdown() {
      await processor.shutdown();
      // So that a later start (other settings) can register its own.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
