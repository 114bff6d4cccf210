import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { telemetrySettings } from './settings.ts';
import { resolveSpanGroups } from './span-groups.ts';

describe('telemetry settings', () => {
  it('traces nothing and serves metrics when the config says nothing', () => {
    expect(telemetrySettings(undefined, {})).toEqual({ tracing: undefined, metrics: true });
    expect(telemetrySettings({ enabled: true, traces_enabled: false, metrics_enabled: false }, {})).toEqual({ tracing: undefined, metrics: false });
  });

  it("reads upstream's keys, with OTLP's /v1/traces path and ngym's per_rollout groups by default", () => {
    const { tracing } = telemetrySettings({ enabled: true, otlp_endpoint: 'http://jaeger:4318/', otlp_headers: 'x-team=abc,authorization=Bearer%20t', run_id: 'r1' }, {});
    expect(tracing).toMatchObject({
      endpoint: 'http://jaeger:4318/v1/traces',
      headers: { 'x-team': 'abc', authorization: 'Bearer t' },
      serviceName: 'nemo-gym',
      serviceNamePerServer: true,
      runId: 'r1',
      unsupportedProtocol: undefined,
    });
    expect([...(tracing?.groups ?? [])].sort()).toEqual(['agent', 'http_client', 'model_call', 'rollout', 'server', 'verify']);
  });

  it('lets the environment win over the block, as upstream', () => {
    const env = {
      NEMO_LENS_ENABLED: '1',
      NEMO_GYM_OTEL_SPAN_GROUPS: 'default',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SERVICE_NAME: 'my-gym',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    };
    const { tracing } = telemetrySettings({ enabled: false, otlp_endpoint: 'http://ignored:1', span_groups: 'all' }, env);
    expect(tracing).toMatchObject({ endpoint: 'http://collector:4318/v1/traces', serviceName: 'my-gym', unsupportedProtocol: 'grpc' });
    expect([...(tracing?.groups ?? [])].sort()).toEqual(['http_client', 'job', 'rollout', 'server']);
    // NEMO_GYM_OTEL_* before NEMO_LENS_*; the signal-specific endpoint is taken as it is.
    expect(telemetrySettings({ enabled: true }, { NEMO_GYM_OTEL_ENABLED: 'false', NEMO_LENS_ENABLED: '1' }).tracing).toBeUndefined();
    expect(telemetrySettings({ enabled: true }, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example/traces' }).tracing?.endpoint).toBe('https://otlp.example/traces');
    expect(telemetrySettings(undefined, { NEMO_GYM_OTEL_METRICS_ENABLED: '0' }).metrics).toBe(false);
  });

  it('refuses bad values with the key that holds them', () => {
    const refusal = (block: unknown, env: Record<string, string> = {}) => {
      try {
        telemetrySettings(block, env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return { key: (error as ConfigError).key, message: (error as Error).message };
      }
      throw new Error('accepted');
    };
    expect(refusal({ enabled: 'yes' })).toMatchObject({ key: 'telemetry.enabled', message: expect.stringContaining('telemetry.enabled') });
    expect(refusal({ exporter: 'console' }).message).toContain('OTLP only');
    expect(refusal({ enabled: true, otlp_endpoint: 'localhost:4318' })).toMatchObject({ key: 'telemetry.otlp_endpoint', message: expect.stringContaining("got 'localhost:4318'") });
    expect(refusal({ enabled: true }, { OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' }).key).toBe('OTEL_EXPORTER_OTLP_HEADERS');
  });

  it("resolves span-group specs as upstream: presets, names, and unknown names set aside", () => {
    expect(resolveSpanGroups('default,model_call,bogus')).toEqual({ groups: new Set(['job', 'server', 'http_client', 'rollout', 'model_call']), unknown: ['bogus'] });
    expect(resolveSpanGroups('all').groups.size).toBe(8);
  });
});
