/**
 * A server's Prometheus metrics, served at `GET /metrics`: requests in flight, latency per route, failures by
 * kind, and the process's own (event-loop delay, resident memory, heap, CPU, garbage collection). The HTTP
 * metrics take OpenTelemetry's HTTP semantic-convention names as Prometheus writes them
 * (`http.server.request.duration` is `http_server_request_duration_seconds`), which is what upstream 0.7.0
 * exports for its servers (nemo_gym/telemetry/metrics.py); the process metrics are prom-client's usual ones.
 *
 * prom-client loads when the first server of a process is made, not when ngym is imported.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import { droppedSpans } from './tracing.ts';

const require = createRequire(import.meta.url);

/** Seconds: OpenTelemetry's advised boundaries for HTTP durations, then the minutes and hour a rollout can take. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 300, 900, 3600];

/** One per process: several servers hosted in one process (tests, `startInProcessGym`) share it. */
let processRegistry: PromClient.Registry | undefined;

function processMetrics(client: typeof PromClient): PromClient.Registry {
  if (processRegistry !== undefined) return processRegistry;
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  let reported = 0;
  new client.Counter({
    name: 'gym_tracing_dropped_spans_total',
    help: 'Spans this process could not export (the OTLP endpoint was unreachable or slower than spans were made).',
    registers: [registry],
    collect() {
      const dropped = droppedSpans();
      if (dropped > reported) this.inc(dropped - reported);
      reported = dropped;
    },
  });
  processRegistry = registry;
  return registry;
}

export interface FinishedRequest {
  method: string;
  /** The matched route; undefined when none matched. */
  route: string | undefined;
  status: number;
  /** The `x-ngym-error-code` a failure was answered with. */
  errorType: string | undefined;
  seconds: number;
}

export class ServerMetrics {
  private readonly registry: PromClient.Registry;
  private readonly processRegistry: PromClient.Registry;
  private readonly inFlight: PromClient.Gauge<'http_request_method'>;
  private readonly duration: PromClient.Histogram<'http_request_method' | 'http_route' | 'http_response_status_code'>;
  private readonly failures: PromClient.Counter<'http_route' | 'error_type'>;
  private readonly admissionWaits: PromClient.Counter;
  private waitingForMemory: () => number = () => 0;
  /** Label children by their values: prom-client would hash the labels object on every request otherwise. */
  private readonly durationChildren = new Map<string, PromClient.Histogram.Internal<string>>();
  private readonly inFlightChildren = new Map<string, PromClient.Gauge.Internal<string>>();

  constructor() {
    const client = require('prom-client') as typeof PromClient;
    this.processRegistry = processMetrics(client);
    this.registry = new client.Registry();
    const registers = [this.registry];
    this.inFlight = new client.Gauge({ name: 'http_server_active_requests', help: 'Requests this server is answering now.', labelNames: ['http_request_method'], registers });
    this.duration = new client.Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Time to answer a request, by route, method and status.',
      labelNames: ['http_request_method', 'http_route', 'http_response_status_code'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.failures = new client.Counter({
      name: 'gym_server_request_failures_total',
      help: 'Requests answered with an error status, by route and kind (the x-ngym-error-code answered, else the status).',
      labelNames: ['http_route', 'error_type'],
      registers,
    });
    this.admissionWaits = new client.Counter({
      name: 'gym_admission_waits_total',
      help: 'Requests that had to wait before starting because this server was over its memory_budget.',
      registers,
    });
    const waitingNow = () => this.waitingForMemory();
    new client.Gauge({
      name: 'gym_admission_waiting',
      help: 'Requests waiting now for this server to fall under its memory_budget.',
      registers,
      collect() {
        this.set(waitingNow());
      },
    });
  }

  admissionWaited(): void {
    this.admissionWaits.inc();
  }

  /** Where each scrape reads the requests waiting for memory. */
  watchAdmission(waiting: () => number): void {
    this.waitingForMemory = waiting;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private inFlightOf(method: string): PromClient.Gauge.Internal<string> {
    let child = this.inFlightChildren.get(method);
    if (child === undefined) {
      child = this.inFlight.labels({ http_request_method: method });
      this.inFlightChildren.set(method, child);
    }
    return child;
  }

  requestStarted(method: string): void {
    this.inFlightOf(method).inc();
  }

  requestFinished(request: FinishedRequest): void {
    const route = request.route ?? '';
    this.inFlightOf(request.method).dec();
    const key = `${request.method} ${request.status} ${route}`;
    let child = this.durationChildren.get(key);
    if (child === undefined) {
      child = this.duration.labels({ http_request_method: request.method, http_route: route, http_response_status_code: request.status });
      this.durationChildren.set(key, child);
    }
    child.observe(request.seconds);
    if (request.status >= 400) this.failures.inc({ http_route: route, error_type: request.errorType ?? String(request.status) });
  }

  /** The exposition text: this server's metrics, then the process's. */
  async render(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), this.processRegistry.metrics()]);
    return `${own}\n${process}`;
  }
}
