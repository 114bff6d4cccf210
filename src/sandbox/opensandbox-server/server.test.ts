/**
 * What ngym's OpenSandbox-compatible server refuses, and how (OpenSandbox's `{code, message}` with the status the
 * SDK expects), before any box is made: no engine needed (the provider points at a socket that does not exist).
 * Boxes, commands and files are tested with real clients: opensandbox-provider.test.ts (ngym's client) and
 * python/tests/test_opensandbox_compat.py (the opensandbox SDK and upstream's OpenSandboxProvider).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandboxProvider } from '../providers/docker/docker-provider.ts';
import { type RunningOpenSandboxServer, startOpenSandboxServer } from './server.ts';

describe("ngym's OpenSandbox-compatible server refuses by name", () => {
  let server: RunningOpenSandboxServer;
  const key = { 'OPEN-SANDBOX-API-KEY': 'secret', 'content-type': 'application/json' };
  const post = (path: string, body: unknown, headers: Record<string, string> = key) => fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });

  beforeAll(async () => {
    server = await startOpenSandboxServer({ provider: new DockerSandboxProvider({}, { dockerHost: 'unix:///nonexistent/engine.sock' }), apiKey: 'secret' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('a request without the API key, features it lacks, bad bodies and unknown boxes', async () => {
    expect((await post('/v1/sandboxes', { image: { uri: 'x' } }, { 'content-type': 'application/json' })).status).toBe(401);
    const refusals: [unknown, RegExp][] = [
      [{ image: { uri: 'x' }, snapshotId: 's' }, /does not support snapshotId/],
      [{ image: { uri: 'x' }, networkPolicy: { defaultAction: 'deny' } }, /does not support networkPolicy/],
      [{ image: { uri: 'x' }, volumes: [{ name: 'data', pvc: { claimName: 'c' }, mountPath: '/data' }] }, /volume 'data'.*only host volumes/],
      [{ image: { uri: 'x' }, resourceLimits: { cpu: 'lots' } }, /resourceLimits.cpu "lots" is not a CPU quantity/],
      [{ image: { uri: 'x' }, resourceLimits: { 'nvidia.com/mig': '1' } }, /resourceLimits.nvidia.com\/mig is not a resource/],
      [{ entrypoint: ['sh'] }, /needs image.uri/],
      [{ image: { uri: 'x' }, timeout: 'soon' }, /Invalid sandbox request: timeout/],
    ];
    for (const [body, message] of refusals) {
      const response = await post('/v1/sandboxes', body);
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { code: string; message: string };
      expect(answer.code).toBe('INVALID_PARAMETER');
      expect(answer.message).toMatch(message);
    }
    for (const path of ['/v1/sandboxes/nemo-gym-0/pause', '/sandboxes/nemo-gym-0/renew-expiration']) {
      const response = await post(path, {});
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'SANDBOX_NOT_FOUND' });
    }
    const listed = await fetch(`${server.url}/v1/sandboxes?state=Running`, { headers: key });
    expect(await listed.json()).toEqual({ items: [], pagination: { page: 1, pageSize: 20, totalItems: 0, totalPages: 0, hasNextPage: false } });
  });

  it('an engine that is not there is a 503 naming it, not a hang', async () => {
    const response = await post('/v1/sandboxes', { image: { uri: 'localhost/ngym/base:bookworm' } });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { message: string }).message).toMatch(/nonexistent\/engine.sock/);
  });
});
