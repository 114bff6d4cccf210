/**
 * Cross-adoption with upstream 0.7.0's unmodified DockerProvider (from the venv, driving the `docker` CLI against
 * the same engine): a box ngym's provider made is adopted by upstream's `connect` and runs its commands, and a box
 * upstream's provider made is adopted by ngym's. Skips without the venv or an engine.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { containerEngineForTests } from '../../../testing/container-engine.ts';
import { upstreamWheel } from '../../../testing/upstream-wheel.ts';
import { ownRunId } from '../run-identity.ts';
import { DockerSandboxProvider } from './docker-provider.ts';

const run = promisify(execFile);
const engine = await containerEngineForTests();
const wheel = upstreamWheel();
const skip = 'skipReason' in engine ? engine.skipReason : wheel.skipReason;

/** Upstream's side: `adopt <id>` runs a command in an existing box; `create <image>` makes one and prints its id. */
const UPSTREAM = `
import asyncio, json, sys
from nemo_gym.sandbox.providers.base import SandboxSpec
from nemo_gym.sandbox.providers.docker.provider import DockerProvider

async def main():
    provider = DockerProvider()
    if sys.argv[1] == "adopt":
        handle = await provider.connect({"sandbox_id": sys.argv[2]})
        result = await provider.exec(handle, "echo $MARK; echo $0; cat /tmp/from-ngym.txt")
        print(json.dumps({"shell": handle.raw.shell, "stdout": result.stdout, "return_code": result.return_code}))
    else:
        handle = await provider.create(SandboxSpec(image=sys.argv[2], env={"MARK": "upstream"}))
        await provider.exec(handle, "printf made-by-upstream > /tmp/from-upstream.txt")
        print(json.dumps(await provider.serialize_handle(handle)))

asyncio.run(main())
`;

describe.skipIf(skip !== null)(`cross-adoption with upstream's DockerProvider${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  const { dockerHost, baseImage } = engine as { dockerHost: string; baseImage: string };
  const upstream = async (...args: string[]) => {
    const { stdout } = await run(wheel.python, ['-c', UPSTREAM, ...args], { env: { ...process.env, DOCKER_HOST: dockerHost }, timeout: 180_000 });
    return JSON.parse(stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
  };

  it('upstream adopts a box ngym made, and ngym adopts a box upstream made', { timeout: 240_000 }, async () => {
    const provider = new DockerSandboxProvider({}, { dockerHost, runId: `${ownRunId()}-adoption-test` });
    let upstreamBox: string | undefined;
    try {
      const ours = await provider.create({ image: baseImage, env: { MARK: 'ngym' } });
      await provider.exec(ours, 'printf made-by-ngym > /tmp/from-ngym.txt');
      expect(await upstream('adopt', ours.sandbox_id)).toEqual({ shell: 'bash', stdout: 'ngym\nbash\nmade-by-ngym', return_code: 0 });

      const descriptor = await upstream('create', baseImage);
      upstreamBox = String(descriptor.sandbox_id);
      expect(upstreamBox).toMatch(/^nemo-gym-[0-9a-f]{32}$/);
      const adopted = await provider.connect({ sandbox_id: upstreamBox });
      expect(adopted.raw.shell).toBe('bash');
      expect(await provider.exec(adopted, 'echo $MARK; cat /tmp/from-upstream.txt')).toMatchObject({ stdout: 'upstream\nmade-by-upstream', return_code: 0 });
      await provider.close(ours);
    } finally {
      if (upstreamBox !== undefined) await provider.engine.removeContainer(upstreamBox);
      await provider.aclose();
    }
  });
});
