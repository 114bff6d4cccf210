/**
 * The docker provider against a real engine (DOCKER_HOST: the project's podman service, or a Docker daemon) and the
 * base image. Skips with the reason when there is no engine or no image.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownRunId } from '../run-identity.ts';
import { SandboxProviderError } from '../contract.ts';
import { DockerSandboxProvider } from './docker-provider.ts';
import { EngineClient } from './engine-client.ts';
import { listSandboxBoxes, reapDeadRunBoxes } from './reaper.ts';
import { containerEngineForTests } from '../../../testing/container-engine.ts';

const engine = await containerEngineForTests();
const runId = `${ownRunId()}-docker-test`;

describe.skipIf('skipReason' in engine)(`docker sandbox provider${'skipReason' in engine ? ` (skipped: ${engine.skipReason})` : ''}`, () => {
  const { dockerHost, baseImage } = engine as { dockerHost: string; baseImage: string };
  const scratch = mkdtempSync(join(tmpdir(), 'ngym-docker-provider-'));
  let provider: DockerSandboxProvider;
  const client = new EngineClient(dockerHost);

  beforeAll(() => {
    provider = new DockerSandboxProvider({ probe: { deadline_s: 60 } }, { dockerHost, runId });
  });

  afterAll(async () => {
    await provider.aclose();
    // Nothing of this test is left on the engine, whatever failed above.
    const left = (await listSandboxBoxes(client)).filter((box) => box.runId?.startsWith(runId));
    await Promise.all(left.map((box) => client.removeContainer(box.id)));
    await client.close();
    expect(left.map((box) => box.name)).toEqual([]);
  });

  it('creates a box where exec, upload, download, status and endpoint work, and closes it', async () => {
    const handle = await provider.create({ image: baseImage, workdir: '/work', env: { GREETING: 'hello' }, ports: [8000], resources: { cpu: 1, memory_mib: 256 } });
    expect(handle.sandbox_id).toMatch(/^nemo-gym-[0-9a-f]{32}$/);
    expect(handle.raw.shell).toBe('bash');
    const inspected = await client.inspectContainer(handle.sandbox_id);
    expect(inspected?.Config.Labels).toMatchObject({ 'nemo-gym.sandbox': '1', 'ngym.sandbox': '1', 'ngym.run': runId });
    expect(inspected?.HostConfig.Memory).toBe(256 * 1024 ** 2);
    expect(inspected?.HostConfig.NanoCpus).toBe(1e9);

    expect(await provider.exec(handle, 'echo $GREETING; pwd; echo oops >&2; exit 3')).toEqual({ stdout: 'hello\n/work\n', stderr: 'oops\n', return_code: 3, error_type: null });
    const asOther = await provider.exec(handle, 'id -u; echo $EXTRA; pwd', { user: 'nobody', env: { EXTRA: 'more' }, cwd: '/tmp' });
    expect(asOther.stdout).toBe('65534\nmore\n/tmp\n');
    expect((await provider.exec(handle, 'id -u', { user: 'root' })).stdout).toBe('0\n');

    writeFileSync(join(scratch, 'in.txt'), 'uploaded\n');
    await provider.upload_file(handle, join(scratch, 'in.txt'), 'deep/dir/in.txt');
    expect((await provider.exec(handle, 'cat /work/deep/dir/in.txt')).stdout).toBe('uploaded\n');
    await provider.exec(handle, 'printf "made in the box" > /tmp/out.bin && ln -s /tmp/out.bin /tmp/link');
    await provider.download_file(handle, '/tmp/link', join(scratch, 'out/of/box.bin'));
    expect(readFileSync(join(scratch, 'out/of/box.bin'), 'utf8')).toBe('made in the box');
    await expect(provider.upload_file(handle, join(scratch, 'in.txt'), '../escape.txt')).rejects.toThrow(/leaves the sandbox's work directory/);
    await expect(provider.download_file(handle, '/nowhere/file', join(scratch, 'x'))).rejects.toThrow(/no such file in the box/);

    expect(await provider.status(handle)).toBe('running');
    expect((await provider.endpoint(handle, 8000)).endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(provider.endpoint(handle, 9000)).rejects.toThrow(/not declared/);

    await provider.close(handle);
    expect(await provider.status(handle)).toBe('stopped');
    await provider.close(handle);
  });

  it('ends a command at its timeout with 125/timeout and kills it in the box', async () => {
    const handle = await provider.create({ image: baseImage });
    const started = Date.now();
    const result = await provider.exec(handle, 'sleep 300 & sleep 301', { timeout_s: 1 });
    expect(result).toMatchObject({ return_code: 125, error_type: 'timeout', stdout: null });
    expect(Date.now() - started).toBeLessThan(30_000);
    const processes = await provider.exec(handle, 'ps -eo args');
    expect(processes.stdout).not.toMatch(/sleep 30[01]/);
    await provider.close(handle);
  });

  it('runs sh where the image has no bash, and bash where it does', async () => {
    const handle = await provider.create({ image: baseImage, provider_options: { run_args: ['--user', '0'] } });
    await provider.exec(handle, 'rm -f /bin/bash /usr/bin/bash', { user: 'root' });
    const adopted = await provider.connect(await provider.serialize_handle(handle));
    expect(adopted.raw.shell).toBe('sh');
    expect((await provider.exec(adopted, 'echo $0')).stdout).toBe('sh\n');
    await provider.close(handle);
  });

  it('reports an out-of-memory kill as 137 with error_type oom', async () => {
    const handle = await provider.create({ image: baseImage, resources: { memory_mib: 64 } });
    const result = await provider.exec(handle, 'python3 -c "b = bytearray(512 * 1024 * 1024)"');
    expect(result.return_code).toBe(137);
    expect(result.error_type).toBe('oom');
    expect(result.stderr).toMatch(/out-of-memory killer.*64 MiB/);
    await provider.close(handle);
  });

  it("runs the image a config names as the one image_map maps it to (no registry needed)", async () => {
    const mapped = new DockerSandboxProvider({}, { dockerHost, runId, imageMap: { 'docker.io/swebench/*': baseImage } });
    try {
      const handle = await mapped.create({ image: 'docker.io/swebench/sweb.eval.x86_64.astropy_1776_astropy-12907:latest' });
      expect((await mapped.exec(handle, 'python3 -c "print(6 * 7)"')).stdout).toBe('42\n');
      await mapped.close(handle);
    } finally {
      await mapped.aclose();
    }
  });

  it('lets a second provider adopt a box by its descriptor, and reports a box killed under it', async () => {
    const handle = await provider.create({ image: baseImage, env: { MARK: 'first' } });
    const other = new DockerSandboxProvider({}, { dockerHost, runId });
    try {
      const adopted = await other.connect({ sandbox_id: handle.sandbox_id, workdir: '/tmp', ports: [] });
      expect((await other.exec(adopted, 'echo $MARK; hostname')).stdout).toBe(`first\n${(await provider.exec(handle, 'hostname')).stdout}`);
      await client.removeContainer(handle.sandbox_id);
      expect(await other.exec(adopted, 'true')).toMatchObject({ return_code: 125, error_type: 'sandbox', stderr: expect.stringMatching(/is gone/) });
      await expect(other.connect({ sandbox_id: handle.sandbox_id })).rejects.toMatchObject({ reason: 'not_found' });
      expect(await provider.status(handle)).toBe('stopped');
    } finally {
      await other.aclose();
      await provider.close(handle);
    }
  });

  it('bounds the boxes held at once by max_sandboxes: a create waits for a close', async () => {
    // Its own run: max_sandboxes counts every box of the run on the engine, and this file's other boxes are not its.
    const bounded = new DockerSandboxProvider({}, { dockerHost, runId: `${runId}-bounded`, maxSandboxes: 1 });
    try {
      const first = await bounded.create({ image: baseImage });
      let secondMade = false;
      const second = bounded.create({ image: baseImage }).then((handle) => {
        secondMade = true;
        return handle;
      });
      // The second create can only pass the bound once the first box is closed.
      expect(await bounded.exec(first, 'true')).toMatchObject({ return_code: 0 });
      expect(secondMade).toBe(false);
      await bounded.close(first);
      const handle = await second;
      expect(bounded.openBoxes).toBe(1);
      await bounded.close(handle);
    } finally {
      await bounded.aclose();
    }
  });

  it('reaps the boxes of a dead run, and aclose removes the boxes a provider still holds', async () => {
    const deadRun = `${ownRunId().split(':')[0]}:2147483646:1`;
    const orphanMaker = new DockerSandboxProvider({}, { dockerHost, runId: deadRun });
    const orphan = await orphanMaker.create({ image: baseImage });
    const reaped = await reapDeadRunBoxes(client);
    expect(reaped.map((box) => box.name)).toContain(orphan.sandbox_id);
    expect(await client.inspectContainer(orphan.sandbox_id)).toBeUndefined();
    await orphanMaker.aclose();

    const holder = new DockerSandboxProvider({}, { dockerHost, runId });
    const held = await holder.create({ image: baseImage });
    await holder.aclose();
    expect(await client.inspectContainer(held.sandbox_id)).toBeUndefined();
  });

  it('names the image that does not exist, the socket that is not there, and refuses bad specs', async () => {
    await expect(provider.create({ image: 'localhost/ngym-test/no-such-image:1' })).rejects.toSatisfy(
      (error: SandboxProviderError) => error.reason === 'image_missing' && error.message.includes('localhost/ngym-test/no-such-image:1'),
    );
    const dead = new DockerSandboxProvider({}, { dockerHost: `unix://${join(scratch, 'no-engine.sock')}` });
    await expect(dead.create({ image: baseImage })).rejects.toSatisfy(
      (error: SandboxProviderError) => error.reason === 'engine_unreachable' && error.message.includes('no-engine.sock'),
    );
    await dead.aclose();
    await expect(provider.create({ image: baseImage, resources: { cpu: 1, memory: 5 } as never })).rejects.toThrow(/resources\.memory: Extra inputs are not permitted/);
    await expect(provider.create({ env: {} })).rejects.toThrow(/needs spec.image/);
    expect(() => new DockerSandboxProvider({ create: { extra_run_args: ['--frobnicate', 'x'] } })).toThrow(/--frobnicate is not one/);
    expect(() => new DockerSandboxProvider({ exec: { concurrency: 0 } })).toThrow(/concurrency must be >= 1/);
  });
});
