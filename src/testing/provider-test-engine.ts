/**
 * The container engine the sandbox provider tests use: DOCKER_HOST's engine and an image on it (the base image
 * `localhost/ngym/base:bookworm`, or NGYM_TEST_SANDBOX_IMAGE), or the reason to skip.
 */
import { EngineClient } from '../sandbox/providers/docker/engine-client.ts';

export type ProviderTestEngine = { dockerHost: string; baseImage: string } | { skipReason: string };

export async function providerTestEngine(): Promise<ProviderTestEngine> {
  const dockerHost = process.env.DOCKER_HOST;
  if (!dockerHost) return { skipReason: 'no container engine: DOCKER_HOST is not set (npm run setup:containers starts one)' };
  const baseImage = process.env.NGYM_TEST_SANDBOX_IMAGE || 'localhost/ngym/base:bookworm';
  const client = new EngineClient(dockerHost);
  try {
    await client.version();
    const images = await fetchImage(client, baseImage);
    return images ? { dockerHost, baseImage } : { skipReason: `the image ${baseImage} is not on the engine at ${dockerHost} (ngym sandbox image build)` };
  } catch (error) {
    return { skipReason: (error as Error).message };
  } finally {
    await client.close();
  }
}

async function fetchImage(client: EngineClient, image: string): Promise<boolean> {
  // A container is only made, never started: whether the engine has the image.
  const name = `nemo-gym-image-check-${process.pid}-${Date.now()}`;
  try {
    await client.createContainer(name, { Image: image, Entrypoint: ['/bin/sh'], Cmd: ['-c', 'true'], Labels: { 'ngym.sandbox': '1' } });
    return true;
  } catch {
    return false;
  } finally {
    await client.removeContainer(name).catch(() => false);
  }
}
