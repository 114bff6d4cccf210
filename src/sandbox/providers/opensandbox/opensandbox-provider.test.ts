/**
 * ngym's opensandbox provider against ngym's OpenSandbox-compatible server (in this process, port 0, backed by the
 * docker provider on the test engine): create, exec (stdout, stderr, exit code, timeout, cwd, user), upload and
 * download, endpoint, status, adoption by id, close, through the proxy and directly, streaming and background_exec.
 * The config checks need no engine.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerEngineForTests } from '../../../testing/container-engine.ts';
import { startOpenSandboxServer, type RunningOpenSandboxServer } from '../../opensandbox-server/server.ts';
import { SandboxProviderError } from '../contract.ts';
import { DockerSandboxProvider } from '../docker/docker-provider.ts';
import { EngineClient } from '../docker/engine-client.ts';
import { listSandboxBoxes } from '../docker/reaper.ts';
import { ownRunId } from '../run-identity.ts';
import { attributionMetadata, parseOpenSandboxConfig, parseOpenSandboxProviderOptions, serverAddressOf } from './opensandbox-config.ts';
import { OpenSandboxProvider } from './opensandbox-provider.ts';

describe('opensandbox provider config', () => {
  it("takes upstream's keys and refuses what ngym's client cannot do, by name", () => {
    expect(() => parseOpenSandboxConfig({ connection: { domian: 'x' } })).toThrow(/domian/);
    expect(() => parseOpenSandboxConfig({ networking: { enabled: true } })).toThrow(/does not support networking.enabled/);
    expect(() => parseOpenSandboxConfig({ shared_storage: { host_path: '/data' } })).toThrow(/does not support shared_storage/);
    expect(() => parseOpenSandboxConfig({ runtime_requirements: { capability_probes: { SYS_PTRACE: 'true' } } })).toThrow(/runtime_requirements/);
    expect(() => parseOpenSandboxConfig({ connection: { domain: 'ftp://host' } })).toThrow(/scheme 'ftp'/);
    expect(() => parseOpenSandboxConfig({ attribution: { key_prefix: 'Not_DNS/' } })).toThrow(/key_prefix/);
    expect(() => parseOpenSandboxProviderOptions({ volumes: [], run_args: [] })).toThrow(/Unknown OpenSandbox provider option\(s\): run_args. Supported: extensions, image_auth/);
    expect(serverAddressOf(parseOpenSandboxConfig({ connection: { domain: 'box.example:9000/', protocol: 'https' } }).connection)).toEqual({ baseUrl: 'https://box.example:9000', protocol: 'https' });
    const attribution = parseOpenSandboxConfig({ attribution: { team: 'rl', key_prefix: 'example.com' } }).attribution;
    expect(attributionMetadata(attribution, { NEMO_GYM_RUN_ID: 'run-7', SLURM_JOB_NAME: 'swe' })).toMatchObject({ 'example.com/team': 'rl', 'example.com/workload': 'swe', 'example.com/run': 'run-7' });
  });
});

const engine = await containerEngineForTests();
// This process's own run id (a suffixed one reads as a dead run, whose boxes any other provider's first create reaps).
const runId = ownRunId();

describe.skipIf('skipReason' in engine)(`opensandbox provider against ngym's OpenSandbox-compatible server${'skipReason' in engine ? ` (skipped: ${engine.skipReason})` : ''}`, () => {
  const { dockerHost, baseImage } = engine as { dockerHost: string; baseImage: string };
  const scratch = mkdtempSync(join(tmpdir(), 'ngym-opensandbox-test-'));
  const apiKey = 'test-key';
  let server: RunningOpenSandboxServer;
  const client = new EngineClient(dockerHost);
  const clients: OpenSandboxProvider[] = [];
  const connect = (connection: Record<string, unknown>, operations: Record<string, unknown> = {}) => {
    const provider = new OpenSandboxProvider({ connection: { domain: server.url, api_key: apiKey, request_timeout_s: 60, ...connection }, operations: { background_poll_initial_s: 0.05, background_poll_interval_s: 0.2, ...operations }, attribution: { enabled: false } });
    clients.push(provider);
    return provider;
  };

  beforeAll(async () => {
    server = await startOpenSandboxServer({ provider: new DockerSandboxProvider({}, { dockerHost, runId }), apiKey });
  });

  afterAll(async () => {
    await Promise.all(clients.map((provider) => provider.aclose()));
    await server.close();
    // Nothing of this test is left on the engine, whatever failed above.
    const left = (await listSandboxBoxes(client)).filter((box) => box.runId === runId);
    await Promise.all(left.map((box) => client.removeContainer(box.id)));
    await client.close();
    expect(left.map((box) => box.name)).toEqual([]);
  });

  it('runs a box through the server proxy: exec, timeout, files, endpoint, status, adoption, close', { timeout: 120_000 }, async () => {
    const provider = connect({ use_server_proxy: true });
    const handle = await provider.create({ image: baseImage, workdir: '/work', env: { GREETING: 'hello' }, files: { 'notes/a.txt': 'seeded' }, resources: { memory_mib: 256 } });
    expect(handle.sandbox_id).toMatch(/^nemo-gym-[0-9a-f]{32}$/);
    // The server's box has the resources the client asked for (through the lifecycle API).
    expect((await client.inspectContainer(handle.sandbox_id))?.HostConfig.Memory).toBe(256 * 1024 ** 2);

    // execd streams lines; upstream's provider joins them with newlines, and so does ngym's.
    expect(await provider.exec(handle, 'echo $GREETING; pwd; echo oops >&2; exit 3')).toEqual({ stdout: 'hello\n/work', stderr: 'oops\nCommandExecError: 3', return_code: 3, error_type: null });
    expect(await provider.exec(handle, 'cat notes/a.txt; echo; id -u', { user: 'nobody', env: { EXTRA: '1' }, cwd: '/work' })).toMatchObject({ stdout: 'seeded\n65534', return_code: 0 });
    expect((await provider.exec(handle, 'id -u', { user: 'root' })).stdout).toBe('0');
    const timedOut = await provider.exec(handle, 'sleep 30', { timeout_s: 1 });
    expect(timedOut).toMatchObject({ return_code: 125, error_type: 'timeout' });

    const local = join(scratch, 'up.bin');
    writeFileSync(local, Buffer.from([0, 1, 2, 255]));
    await provider.upload_file(handle, local, 'deep/up.bin');
    expect((await provider.exec(handle, 'od -An -tu1 /work/deep/up.bin')).stdout?.trim()).toBe('0   1   2 255');
    await provider.download_file(handle, '/work/deep/up.bin', join(scratch, 'down', 'up.bin'));
    expect([...readFileSync(join(scratch, 'down', 'up.bin'))]).toEqual([0, 1, 2, 255]);
    await expect(provider.download_file(handle, '/nope', join(scratch, 'nope'))).rejects.toThrow(/OpenSandbox server answered/);

    const endpoint = await provider.endpoint(handle, 8000);
    expect(endpoint).toEqual({ endpoint: `${server.url}/v1/sandboxes/${handle.sandbox_id}/proxy/8000`, headers: { 'OPEN-SANDBOX-API-KEY': apiKey } });
    expect(await provider.status(handle)).toBe('running');

    // Another provider (another process, say) adopts the box by its descriptor.
    const other = connect({ use_server_proxy: true });
    const adopted = await other.connect(await provider.serialize_handle(handle));
    expect((await other.exec(adopted, 'pwd')).stdout).toBe('/work');

    await provider.close(handle);
    expect(await provider.status(handle)).toBe('stopped');
    await provider.close(handle);
    await expect(other.connect({ sandbox_id: handle.sandbox_id })).rejects.toThrow(SandboxProviderError);
    expect(await client.inspectContainer(handle.sandbox_id)).toBeUndefined();
  });

  it('runs commands directly (no proxy flag) and with background_exec polling; a wrong key is refused', { timeout: 120_000 }, async () => {
    const provider = connect({ use_server_proxy: false }, { background_exec: true });
    const handle = await provider.create({ image: baseImage });
    // The logs endpoint is one combined stream: stdout carries both, as upstream's background path says.
    expect(await provider.exec(handle, 'echo out; echo err >&2; exit 4')).toEqual({ stdout: 'out\nerr\n', stderr: null, return_code: 4, error_type: null });
    expect(await provider.exec(handle, 'sleep 30', { timeout_s: 1 })).toMatchObject({ return_code: 125, error_type: 'timeout' });
    await provider.close(handle);

    const wrongKey = new OpenSandboxProvider({ connection: { domain: server.url, api_key: 'wrong' }, create: { retries: 0 }, attribution: { enabled: false } });
    clients.push(wrongKey);
    await expect(wrongKey.create({ image: baseImage })).rejects.toThrow(/answered 401/);
    const unsupported = connect({});
    await expect(unsupported.create({ image: baseImage, provider_options: { snapshot_id: 'snap-1' } })).rejects.toThrow(/does not support snapshotId/);
  });
});
