/** What a process loads for telemetry: nothing of OpenTelemetry while tracing is off, the SDK once it is on. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SOURCE_NODE_ARGS } from '../util/package-root.ts';

const FIXTURE = fileURLToPath(new URL('./__fixtures__/modules-loaded.ts', import.meta.url));

async function packagesLoaded(telemetry: Record<string, unknown>): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [...SOURCE_NODE_ARGS, '--import', import.meta.resolve('tsx'), FIXTURE, JSON.stringify(telemetry)], {
    env: { ...process.env, NGYM_LOG_LEVEL: 'silent' },
    timeout: 60_000,
  });
  const report = JSON.parse(stdout.trim().split('\n').at(-1) as string) as { status: number; packages: string[] };
  expect(report.status).toBe(200);
  return report.packages.filter((name) => name.startsWith('@opentelemetry/') || name === 'prom-client');
}

describe('loading telemetry', () => {
  it('loads no OpenTelemetry package with tracing off, and prom-client only for /metrics', async () => {
    expect(await packagesLoaded({ metrics_enabled: false })).toEqual([]);
    // prom-client brings the OpenTelemetry API (for its exemplars), not the SDK.
    expect(await packagesLoaded({})).toEqual(['@opentelemetry/api', 'prom-client']);
  });

  it('loads the SDK and the exporter once tracing is on', async () => {
    const packages = await packagesLoaded({ enabled: true, metrics_enabled: false, otlp_endpoint: 'http://127.0.0.1:9' });
    expect(packages).toEqual(expect.arrayContaining(['@opentelemetry/api', '@opentelemetry/sdk-trace-node', '@opentelemetry/exporter-trace-otlp-http']));
  });
});
