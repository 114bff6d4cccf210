/**
 * Upstream 0.7.0's own provider YAMLs (from the venv) load unchanged, a server's `sandbox_provider:` resolves to a
 * provider, and the providers ngym lacks are refused by name with the list of those it has.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGlobalConfig } from '../../config/global-config.ts';
import type { ServerInstance } from '../../config/server-instances.ts';
import type { ConfigDict, ConfigValue } from '../../config/tree.ts';
import { upstreamWheel } from '../../testing/upstream-wheel.ts';
import { DockerSandboxProvider } from './docker/docker-provider.ts';
import { LocalSandboxProvider } from './local/local-provider.ts';
import { OpenSandboxProvider } from './opensandbox/opensandbox-provider.ts';
import { createSandboxProvider, registerSandboxProvider, sandboxProviderFor, sandboxProviderNames, sandboxReferenceProblems } from './registry.ts';

const wheel = upstreamWheel();
const providerYaml = (name: string) => join(wheel.sitePackages, 'nemo_gym', 'sandbox', 'providers', name, 'configs', `${name}.yaml`);

/** A config of one server that says `sandbox_provider: sandbox`, with the provider's YAML in config_paths. */
function configWith(yaml: string, extra: ConfigDict = {}) {
  return loadGlobalConfig({
    overrides: [`+config_paths=[${yaml}]`],
    envYamlPath: null,
    initialConfig: { swe: { resources_servers: { swe_env: { entrypoint: 'app.ts', domain: 'coding', sandbox_provider: 'sandbox' } } }, ...extra },
  });
}
const everyServer = (): boolean => true;
const noServer = (_instance: ServerInstance): boolean => false;

describe.skipIf(wheel.skipReason !== null)(`upstream's provider YAMLs${wheel.skipReason === null ? '' : ` (skipped: ${wheel.skipReason})`}`, () => {
  it("docker.yaml loads unchanged and its block makes ngym's docker provider with upstream's settings", async () => {
    const config = configWith(providerYaml('docker'), { max_sandboxes: 4 });
    expect(sandboxReferenceProblems(config, everyServer)).toEqual([]);
    const { provider, defaultMetadata } = sandboxProviderFor('sandbox', config, { dockerHost: 'unix:///nonexistent.sock' });
    expect(provider).toBeInstanceOf(DockerSandboxProvider);
    expect(defaultMetadata).toEqual({ 'sandbox-api': 'docker-cli' });
    const docker = provider as DockerSandboxProvider;
    expect(docker.config.create).toMatchObject({ keepalive_shell: '/bin/sh', start_timeout_s: 600, use_init: true, apply_resource_limits: true, publish_host: '127.0.0.1', network: null });
    expect(docker.config.exec).toMatchObject({ default_timeout_s: 180, concurrency: 32, exec_shell: null });
    expect(docker.config.probe).toMatchObject({ command: 'printf docker-sandbox-ready', expected_stdout: 'docker-sandbox-ready', timeout_s: 30, deadline_s: 60, stable_count: 1 });
    await provider.aclose();
  });

  it("local.yaml loads unchanged and makes ngym's bubblewrap-backed local provider", async () => {
    const config = configWith(providerYaml('local'));
    expect(sandboxReferenceProblems(config, everyServer)).toEqual([]);
    const { provider, defaultMetadata } = sandboxProviderFor('sandbox', config);
    expect(provider).toBeInstanceOf(LocalSandboxProvider);
    expect((provider as LocalSandboxProvider).config).toMatchObject({ shell: '/bin/bash', default_timeout_s: 180, concurrency: 8 });
    expect(defaultMetadata).toEqual({ 'sandbox-api': 'local-subprocess' });
    await provider.aclose();
  });

  it("opensandbox.yaml loads unchanged and makes ngym's opensandbox client with upstream's settings", async () => {
    const saved = { key: process.env.OPENSANDBOX_API_KEY, domain: process.env.OPENSANDBOX_DOMAIN };
    process.env.OPENSANDBOX_API_KEY = 'test-key';
    process.env.OPENSANDBOX_DOMAIN = 'https://sandbox.example:8443/prefix/';
    try {
      const config = configWith(providerYaml('opensandbox'));
      expect(sandboxReferenceProblems(config, everyServer)).toEqual([]);
      expect(sandboxReferenceProblems(config, noServer)).toEqual([]);
      const { provider, defaultMetadata } = sandboxProviderFor('sandbox', config);
      expect(provider).toBeInstanceOf(OpenSandboxProvider);
      expect(defaultMetadata).toEqual({ 'sandbox-api': 'opensandbox-sdk' });
      const client = provider as OpenSandboxProvider;
      // The scheme in the domain wins over protocol: http, as upstream.
      expect(client.apiUrl).toBe('https://sandbox.example:8443/prefix/v1');
      expect(client.config.connection).toMatchObject({ api_key: 'test-key', use_server_proxy: true, request_timeout_s: 300, tls_verify: false });
      expect(client.config.create).toMatchObject({ timeout_s: 1500, retries: 10, skip_health_check: false });
      expect(client.config.operations).toMatchObject({ background_exec: true, background_poll_interval_s: 30, command_retries: 0 });
      expect(client.config.attribution).toMatchObject({ enabled: true, key_prefix: 'nemo-gym.nvidia.com/' });
      await provider.aclose();
    } finally {
      for (const [name, value] of [['OPENSANDBOX_API_KEY', saved.key], ['OPENSANDBOX_DOMAIN', saved.domain]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('the providers ngym lacks are refused by name with those it has', () => {
    for (const name of ['daytona', 'e2b', 'apptainer', 'enroot', 'ecs_fargate', 'openshell']) {
      expect(() => createSandboxProvider({ [name]: {} })).toThrow(new RegExp(`'${name}', which ngym does not have .*ngym's providers: docker, local, opensandbox`));
    }
    expect(() => createSandboxProvider({ podman: {} })).toThrow(/unknown sandbox provider 'podman'. ngym's providers: docker, local, opensandbox/);
  });
});

describe('sandbox_provider references', () => {
  const inline = (sandboxProvider: ConfigValue, extra: ConfigDict = {}) =>
    loadGlobalConfig({ envYamlPath: null, initialConfig: { swe: { resources_servers: { swe_env: { entrypoint: 'app.ts', domain: 'coding', sandbox_provider: sandboxProvider } } }, ...extra } });

  it('names a missing block, a block with two providers, bad settings and a bad max_sandboxes', () => {
    expect(sandboxReferenceProblems(inline('sandbox'), everyServer)[0]).toMatch(/sandbox_provider: sandbox names no top-level block/);
    expect(sandboxReferenceProblems(inline('sandbox', { sandbox: { docker: {}, local: {} } }), everyServer)[0]).toMatch(/exactly one provider key.*docker, local/);
    expect(sandboxReferenceProblems(inline('sandbox', { sandbox: { docker: { creat: {} } } }), everyServer)[0]).toMatch(/creat: Extra inputs are not permitted/);
    expect(sandboxReferenceProblems(inline('sandbox', { sandbox: { docker: { create: { extra_run_args: ['--weird'] } } } }), everyServer)[0]).toMatch(/--weird is not one/);
    expect(sandboxReferenceProblems(inline({ docker: {} }, { max_sandboxes: 0 }), everyServer)[0]).toMatch(/max_sandboxes must be a positive integer/);
    expect(sandboxReferenceProblems(inline({ docker: { exec: { default_timeout_s: 5 } } }), everyServer)).toEqual([]);
  });

  it("reads the block's warm_pool beside the provider, and names a bad one", async () => {
    const config = inline('sandbox', { sandbox: { docker: {}, warm_pool: { size: 3 } } });
    expect(sandboxReferenceProblems(config, everyServer)).toEqual([]);
    const { provider } = sandboxProviderFor('sandbox', config, { dockerHost: 'unix:///nonexistent.sock' });
    expect((provider as DockerSandboxProvider).poolStats).toEqual({ hits: 0, misses: 0, made: 0 });
    await provider.aclose();
    expect(sandboxReferenceProblems(inline('sandbox', { sandbox: { docker: {}, warm_pool: { size: -1 } } }), everyServer)[0]).toMatch(/warm_pool must be \{size: N\}.*got \{"size":-1\}/);
    expect(sandboxReferenceProblems(inline('sandbox', { sandbox: { docker: {}, warm_pool: { images: [] } } }), everyServer)[0]).toMatch(/warm_pool must be/);
  });

  it("reads the block's image_map beside the provider, and names a bad one", async () => {
    const config = inline('sandbox', { sandbox: { docker: {}, image_map: { 'python:3.13-bookworm': 'localhost/ngym/base:bookworm' } } });
    expect(sandboxReferenceProblems(config, everyServer)).toEqual([]);
    const { provider } = sandboxProviderFor('sandbox', config, { dockerHost: 'unix:///nonexistent.sock' });
    expect(provider).toBeInstanceOf(DockerSandboxProvider);
    // The map is the provider's: a spec naming the mapped image would run the local one (the engine test runs it).
    expect((provider as DockerSandboxProvider).imageMap).toEqual({ 'python:3.13-bookworm': 'localhost/ngym/base:bookworm' });
    await provider.aclose();
    expect(sandboxReferenceProblems(inline('sandbox', { sandbox: { docker: {}, image_map: { 'docker.io/swebench/*': 'a*b*' } } }), everyServer)[0]).toMatch(/image_map: docker\.io\/swebench\/\*: .*exactly one/);
  });

  it('has a registration point for providers beyond the built-in ones', async () => {
    expect(() => registerSandboxProvider('docker', { create: () => new LocalSandboxProvider(), validate: () => {} })).toThrow(/already registered/);
    registerSandboxProvider('registry_test_provider', { create: (config) => new LocalSandboxProvider(config), validate: () => {} });
    expect(sandboxProviderNames()).toContain('registry_test_provider');
    const provider = createSandboxProvider({ registry_test_provider: { concurrency: 2 } });
    expect((provider as LocalSandboxProvider).config.concurrency).toBe(2);
    await provider.aclose();
  });
});
