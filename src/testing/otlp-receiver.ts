/**
 * An OTLP/HTTP trace receiver for tests and benchmarks: `POST /v1/traces` on a port-0 socket, each body decoded
 * as the OTLP JSON encoding (ExportTraceServiceRequest, gzip or not) into flat spans. Point a gym at it with
 * `telemetry: {enabled: true, otlp_endpoint: receiver.url}`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type AttributeValue = string | number | boolean | AttributeValue[] | null;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** The resource's attributes (`service.name`...). */
  resource: Record<string, AttributeValue>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** Trace and span ids this span links to. */
  links: { traceId: string; spanId: string }[];
}

export interface OtlpReceiver {
  /** The base URL, as `otlp_endpoint` / `OTEL_EXPORTER_OTLP_ENDPOINT` take it. */
  url: string;
  /** The spans received (none kept with `keepSpans: false`), and how many in all. */
  readonly spans: ReceivedSpan[];
  readonly spanCount: number;
  /** Export requests received, and their bytes as sent. */
  readonly requests: number;
  readonly bytes: number;
  close(): Promise<void>;
}

interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number };
  links?: { traceId: string; spanId: string }[];
}
interface ExportTraceServiceRequest {
  resourceSpans?: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function valueOf(value: OtlpAnyValue | undefined): AttributeValue {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  // int64 is a JSON string in OTLP's encoding, a number from some encoders.
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return null;
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, valueOf(entry.value)]));
}

/** The spans of one ExportTraceServiceRequest in OTLP's JSON encoding. */
export function decodeOtlpJson(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as ExportTraceServiceRequest;
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind ?? 0,
          attributes: attributesOf(span.attributes),
          resource,
          statusCode: span.status?.code ?? 0,
          links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
        });
      }
    }
  }
  return spans;
}

async function bodyOf(request: IncomingMessage): Promise<{ text: string; size: number }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const text = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  return { text, size: raw.length };
}

/** `keepSpans: false` only counts them (a benchmark's millions). */
export async function startOtlpReceiver(options: { keepSpans?: boolean } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  let bytes = 0;
  let spanCount = 0;
  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const { text, size } = await bodyOf(request);
      if (!String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(415, { 'content-type': 'text/plain' }).end('this receiver decodes OTLP JSON only');
        return;
      }
      const received = decodeOtlpJson(text);
      requests++;
      bytes += size;
      spanCount += received.length;
      if (options.keepSpans ?? true) spans.push(...received);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    })().catch(() => response.writeHead(400).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get spanCount() {
      return spanCount;
    },
    get requests() {
      return requests;
    },
    get bytes() {
      return bytes;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
