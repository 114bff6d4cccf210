/**
 * Images on a real engine (DOCKER_HOST; the vitest global setup starts the project's): the base image is cached by
 * content and runs Python, a Dockerfile FROM it builds (then is cached), and a missing image or an engine that is
 * not there gives an error naming the image or the socket. Skips with the reason when there is no engine.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { containerEngineForTests } from '../../testing/container-engine.ts';
import { BASE_IMAGE, ensureBaseImage, RECIPE_LABEL } from './base-image.ts';
import { buildDockerfileImage } from './dockerfile-image.ts';
import { ImageEngine } from './image-engine.ts';
import { ensureImage, resolveImage } from './image-map.ts';

const run = promisify(execFile);

it('an engine that is not running: the error names the socket and how to start one', async () => {
  const engine = new ImageEngine('unix:///run/ngym-no-engine-here/podman.sock');
  try {
    await expect(engine.ping()).rejects.toThrow(/Cannot reach the container engine at unix:\/\/\/run\/ngym-no-engine-here\/podman\.sock \(ENOENT\).*npm run setup:containers/);
    await expect(ensureImage(engine, resolveImage('python:3.13-bookworm'))).rejects.toMatchObject({ code: 'NGYM_SANDBOX', failure: 'engine_unreachable', retryable: true });
  } finally {
    await engine.close();
  }
});

const found = await containerEngineForTests();

describe.skipIf('skipReason' in found)(`sandbox images on the engine${'skipReason' in found ? ` (skipped: ${found.skipReason})` : ''}`, () => {
  const { dockerHost } = found as { dockerHost: string; baseImage: string };
  const engine = new ImageEngine(dockerHost);
  const scratch = mkdtempSync(join(tmpdir(), 'ngym-images-test-'));
  const tag = `localhost/ngym/images-test-${process.pid}:1`;

  afterAll(async () => {
    await engine.removeImage(tag).catch(() => false);
    await engine.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** Runs a command in a throwaway container of `image` (the podman or docker CLI on DOCKER_HOST's engine). */
  async function runIn(image: string, command: string): Promise<string> {
    const podman = ['podman', ['--remote', '--url', dockerHost]] as const;
    const [program, prefix] = await run('podman', ['--version']).then(
      () => podman,
      () => ['docker', []] as const,
    );
    const { stdout } = await run(program, [...prefix, 'run', '--rm', '--network', 'none', '--label', 'ngym.sandbox=1', image, 'bash', '-c', command], { env: { ...process.env, DOCKER_HOST: dockerHost }, timeout: 60_000 });
    return stdout;
  }

  it('the base image is cached by content and runs bash, Python, git and patch', async () => {
    const again = await ensureBaseImage(engine);
    expect(again).toMatchObject({ image: BASE_IMAGE, cached: true });
    expect(again.seconds).toBeLessThan(5);
    expect((await engine.inspectImage(BASE_IMAGE))?.Config?.Labels?.[RECIPE_LABEL]).toMatch(/^[0-9a-f]{64}$/);
    const output = await runIn(BASE_IMAGE, 'python3 --version && git --version && patch --version | head -1 && ps --version');
    expect(output).toMatch(/^Python 3\.11\.\d+\ngit version 2\.\d+/);
    expect(output).toContain('GNU patch');
  });

  it('builds a Dockerfile FROM the base, then finds it cached until the context changes', async () => {
    writeFileSync(join(scratch, 'Dockerfile'), `FROM ${BASE_IMAGE}\nCOPY task.txt /opt/task.txt\nRUN python3 -c "print(open('/opt/task.txt').read().upper())" > /opt/upper.txt\n`);
    writeFileSync(join(scratch, 'task.txt'), `task ${process.pid}`);
    const lines: string[] = [];
    const built = await buildDockerfileImage(engine, { dockerfile: join(scratch, 'Dockerfile'), tag, progress: (line) => lines.push(line) });
    expect(built).toMatchObject({ image: tag, cached: false });
    expect(lines.join('\n')).toContain('COPY task.txt');
    expect(await runIn(tag, 'cat /opt/upper.txt')).toBe(`TASK ${process.pid}\n`);

    const cached = await buildDockerfileImage(engine, { dockerfile: join(scratch, 'Dockerfile'), tag });
    expect(cached).toMatchObject({ image: tag, cached: true });
    writeFileSync(join(scratch, 'task.txt'), 'changed');
    expect(await buildDockerfileImage(engine, { dockerfile: join(scratch, 'Dockerfile'), tag })).toMatchObject({ cached: false });
    expect(await runIn(tag, 'cat /opt/upper.txt')).toBe('CHANGED\n');
  });

  it('a Dockerfile that fails says which step and why', async () => {
    writeFileSync(join(scratch, 'Broken.Dockerfile'), `FROM ${BASE_IMAGE}\nRUN exit 7\n`);
    await expect(buildDockerfileImage(engine, { dockerfile: join(scratch, 'Broken.Dockerfile'), tag: `${tag}-broken` })).rejects.toMatchObject({ failure: 'build_failed', message: expect.stringMatching(/Building .*-broken failed: .*(exit|7)/) });
  });

  it('a missing image: the error names it, the name the config used, the engine and the registry', async () => {
    const local = resolveImage('python:3.13-bookworm', { 'python:3.13-bookworm': 'localhost/ngym/absent-python:3.13' });
    await expect(ensureImage(engine, local)).rejects.toThrow(
      `The image localhost/ngym/absent-python:3.13 (the config names python:3.13-bookworm; image_map entry 'python:3.13-bookworm') is not on the engine at ${dockerHost}, and localhost/ images come from no registry.`,
    );
    const remote = resolveImage('docker.io/ngym-tests/does-not-exist:never');
    await expect(ensureImage(engine, remote)).rejects.toMatchObject({
      failure: 'image_missing',
      message: expect.stringContaining(`The image docker.io/ngym-tests/does-not-exist:never is not on the engine at ${dockerHost}, and pulling it from docker.io failed`),
    });
    // The image a mapping names is used as is when the engine has it.
    await expect(ensureImage(engine, resolveImage('python:3.13-bookworm', { 'python:*': BASE_IMAGE }))).resolves.toBeUndefined();
  });
});
