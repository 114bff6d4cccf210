/**
 * The ProviderSandbox facade over both providers (local: bubblewrap; docker: the engine of DOCKER_HOST), the local
 * provider's own contract, and the facade's spans with tracing on.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { containerEngineForTests } from '../../testing/container-engine.ts';
import { startOtlpReceiver } from '../../testing/otlp-receiver.ts';
import { telemetrySettings } from '../../telemetry/settings.ts';
import { configureTracing, flushTracing, inRolloutTrace, serviceTracer, stopTracing } from '../../telemetry/tracing.ts';
import { bubblewrapUnavailableReason } from '../availability.ts';
import type { SandboxProvider } from './contract.ts';
import { DockerSandboxProvider } from './docker/docker-provider.ts';
import { LocalSandboxProvider } from './local/local-provider.ts';
import { ProviderSandbox } from './provider-sandbox.ts';
import { ownRunId } from './run-identity.ts';

const scratch = mkdtempSync(join(tmpdir(), 'ngym-provider-sandbox-'));
const engine = await containerEngineForTests();
const bubblewrap = bubblewrapUnavailableReason();

interface Case {
  name: string;
  skip: string | null;
  image?: string;
  make: () => SandboxProvider;
}
const cases: Case[] = [
  { name: 'local', skip: bubblewrap, make: () => new LocalSandboxProvider({ default_timeout_s: 30 }) },
  {
    name: 'docker',
    skip: 'skipReason' in engine ? engine.skipReason : null,
    ...('baseImage' in engine ? { image: engine.baseImage } : {}),
    make: () => new DockerSandboxProvider({}, { dockerHost: (engine as { dockerHost: string }).dockerHost, runId: `${ownRunId()}-facade-test` }),
  },
];

for (const testCase of cases) {
  describe.skipIf(testCase.skip !== null)(`ProviderSandbox over the ${testCase.name} provider${testCase.skip === null ? '' : ` (skipped: ${testCase.skip})`}`, () => {
    const spec = { ...(testCase.image === undefined ? {} : { image: testCase.image }), workdir: '/work', env: { WHO: testCase.name }, files: { 'seed/hello.txt': 'seeded\n', '/tmp/abs.txt': 'absolute\n' } };

    it('starts with the spec files in place, runs in the workdir, moves files and stops', async () => {
      const sandbox = await new ProviderSandbox(testCase.make(), spec).start();
      try {
        expect(await sandbox.exec('cat seed/hello.txt /tmp/abs.txt; pwd; echo $WHO')).toMatchObject({ stdout: `seeded\nabsolute\n/work\n${testCase.name}\n`, return_code: 0, error_type: null });
        expect(await sandbox.exec('pwd', { cwd: '/tmp' })).toMatchObject({ stdout: '/tmp\n' });
        expect(await sandbox.exec('echo $EXTRA; exit 7', { env: { EXTRA: 'x' } })).toMatchObject({ stdout: 'x\n', return_code: 7 });
        expect(await sandbox.exec('sleep 60', { timeout_s: 1 })).toMatchObject({ return_code: 125, error_type: 'timeout' });
        const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
        writeFileSync(join(scratch, `${testCase.name}.bin`), bytes);
        await sandbox.upload(join(scratch, `${testCase.name}.bin`), 'data/blob.bin');
        await sandbox.download('/work/data/blob.bin', join(scratch, `${testCase.name}-back.bin`));
        expect(readFileSync(join(scratch, `${testCase.name}-back.bin`))).toEqual(bytes);
        await expect(sandbox.upload(join(scratch, `${testCase.name}.bin`), '../../etc/x')).rejects.toThrow(/leaves the sandbox's work directory/);
        expect(await sandbox.status()).toBe('running');
      } finally {
        await sandbox.stop();
      }
      expect(await sandbox.status()).toBe('stopped');
      await sandbox.stop();
    });

    it('ends the box when setup fails, and hands a box to another provider instance that disconnects without ending it', async () => {
      const failing = new ProviderSandbox(testCase.make(), spec);
      await expect(
        failing.startWithSetup(undefined, async (sandbox) => {
          await sandbox.exec('true');
          throw new Error('setup broke');
        }),
      ).rejects.toThrow('setup broke');
      expect(await failing.status()).toBe('stopped');

      const owner = await new ProviderSandbox(testCase.make(), spec).start();
      try {
        const descriptor = await owner.serialize();
        expect(descriptor).toMatchObject({ sandbox_id: owner.sandboxId, workdir: '/work' });
        const borrower = await ProviderSandbox.connect(JSON.parse(JSON.stringify(descriptor)), { provider: testCase.make() });
        await borrower.exec('echo from-borrower > note.txt');
        await borrower.disconnect();
        expect(await owner.exec('cat note.txt')).toMatchObject({ stdout: 'from-borrower\n' });
        await expect(owner.disconnect()).rejects.toThrow(/only for a sandbox adopted/);
      } finally {
        await owner.stop();
      }
    });
  });
}

describe.skipIf(bubblewrap !== null)(`local provider${bubblewrap === null ? '' : ` (skipped: ${bubblewrap})`}`, () => {
  const provider = new LocalSandboxProvider();
  afterAll(() => provider.aclose());

  it('isolates the box (no network, own processes, read-only system) and refuses what it cannot do', async () => {
    const handle = await provider.create({});
    expect((await provider.exec(handle, 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "')).stdout).toBe('lo\n');
    expect((await provider.exec(handle, 'touch /usr/x 2>&1; echo rc=$?')).stdout).toMatch(/Read-only file system[\s\S]*rc=1/);
    expect(await provider.exec(handle, 'kill -9 $$')).toMatchObject({ return_code: 137 });
    await expect(provider.exec(handle, 'true', { user: 'root' })).rejects.toThrow(/cannot run commands as another user/);
    await expect(provider.create({ image: 'python:3.12' })).rejects.toThrow(/runs no images/);
    await expect(provider.create({ ports: [8000] })).rejects.toThrow(/no network to serve ports/);
    await expect(provider.download_file(handle, 'missing.txt', join(scratch, 'missing'))).rejects.toThrow(/no such file in the box/);
    writeFileSync(join(scratch, 'upload.txt'), 'x');
    await expect(provider.upload_file(handle, join(scratch, 'upload.txt'), '/usr/local/x')).rejects.toThrow(/only its work directory/);
    await provider.close(handle);
    expect(await provider.status(handle)).toBe('stopped');
    expect(await provider.exec(handle, 'true')).toMatchObject({ return_code: 125, error_type: 'sandbox' });
    await expect(provider.connect({ sandbox_id: handle.sandbox_id })).rejects.toThrow(/No local box/);
  });

  it('records gym.sandbox.start, exec and stop spans with tracing on', async () => {
    const receiver = await startOtlpReceiver();
    try {
      await configureTracing(telemetrySettings({ enabled: true, otlp_endpoint: receiver.url, span_groups: 'all' }, {}).tracing);
      const tracer = serviceTracer({ name: 'sandbox_test', type: 'resources_servers' });
      await inRolloutTrace(tracer, 'gym.collect.rollout', { taskIndex: 0, rolloutIndex: 0 }, async () => {
        const sandbox = await new ProviderSandbox(new LocalSandboxProvider(), {}).start();
        await sandbox.exec('exit 3');
        await sandbox.stop();
      });
      await flushTracing();
      const names = receiver.spans.map((span) => span.name);
      expect(names).toEqual(expect.arrayContaining(['gym.sandbox.start', 'gym.sandbox.exec', 'gym.sandbox.stop']));
      const exec = receiver.spans.find((span) => span.name === 'gym.sandbox.exec');
      expect(exec?.attributes).toMatchObject({ 'nemo.gym.sandbox.provider': 'local', 'nemo.gym.sandbox.return_code': 3 });
      expect(JSON.stringify(exec?.attributes)).not.toContain('exit 3');
    } finally {
      await stopTracing();
      await receiver.close();
    }
  });
});
