/**
 * The container engine tests use (docs/sandbox.md, "Container engine"): the engine DOCKER_HOST names (the vitest
 * global setup starts the project's podman service and sets it when podman is installed and DOCKER_HOST is not)
 * with the base image on it (built once, cached by content), or the reason to skip. Tests that need an engine:
 *
 *   const engine = await containerEngineForTests();
 *   describe.skipIf('skipReason' in engine)(`... ${'skipReason' in engine ? `(skipped: ${engine.skipReason})` : ''}`, ...)
 */
import { BASE_IMAGE, ensureBaseImage } from '../sandbox/images/base-image.ts';
import { ImageEngine } from '../sandbox/images/image-engine.ts';

export type ContainerEngineForTests = { dockerHost: string; baseImage: string } | { skipReason: string };

/** Set by the global setup when it could not start the engine: why. */
export const ENGINE_SETUP_FAILURE_VARIABLE = 'NGYM_TEST_ENGINE_SETUP_FAILURE';

let pending: Promise<ContainerEngineForTests> | undefined;

/** The engine and base image, or why not; checked once per test process. */
export function containerEngineForTests(): Promise<ContainerEngineForTests> {
  pending ??= findEngine();
  return pending;
}

async function findEngine(): Promise<ContainerEngineForTests> {
  const dockerHost = process.env.DOCKER_HOST;
  if (!dockerHost) {
    const failure = process.env[ENGINE_SETUP_FAILURE_VARIABLE];
    return { skipReason: failure ? `no container engine: ${failure}` : 'no container engine: DOCKER_HOST is not set and podman is not installed (apt-get install podman crun conmon netavark iptables, or point DOCKER_HOST at a Docker)' };
  }
  const engine = new ImageEngine(dockerHost);
  try {
    await engine.ping();
    const requested = process.env.NGYM_TEST_SANDBOX_IMAGE;
    if (requested) {
      return (await engine.inspectImage(requested)) ? { dockerHost, baseImage: requested } : { skipReason: `NGYM_TEST_SANDBOX_IMAGE=${requested} is not on the engine at ${dockerHost}` };
    }
    // Cached: instant when the image of this recipe is there (CI builds it in npm run setup:containers).
    const built = await ensureBaseImage(engine, { progress: (line) => process.stderr.write(`[base image] ${line}\n`) });
    return { dockerHost, baseImage: built.image };
  } catch (error) {
    return { skipReason: `container engine at ${dockerHost} not usable for tests (${BASE_IMAGE}): ${(error as Error).message}` };
  } finally {
    await engine.close();
  }
}
