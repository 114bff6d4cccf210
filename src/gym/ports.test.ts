import { describe, expect, it } from 'vitest';
import { bindPort, ephemeralPortRange, probeFreePort } from './ports.ts';

const range = ephemeralPortRange();

describe('probeFreePort', () => {
  it.skipIf(range === undefined)('probes below the ephemeral range, where no outgoing connection takes a port, and the port binds', async () => {
    const [low] = range!;
    for (let round = 0; round < 20; round++) {
      const port = await probeFreePort('127.0.0.1', new Set());
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
      const server = await bindPort('127.0.0.1', port);
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it.skipIf(range === undefined)('never hands out a disallowed port: with none left below the range, the kernel picks one', async () => {
    const [low] = range!;
    const below = new Set(Array.from({ length: low - 10_000 }, (_, index) => 10_000 + index));
    const port = await probeFreePort('127.0.0.1', below);
    expect(below.has(port)).toBe(false);
    expect(port).toBeGreaterThanOrEqual(low);
  });

  it('names the port when a configured one is taken', async () => {
    const held = await bindPort('127.0.0.1', 0);
    const port = (held.address() as { port: number }).port;
    await expect(bindPort('127.0.0.1', port)).rejects.toThrow(`Port ${port} on 127.0.0.1 is already in use`);
    await new Promise((resolve) => held.close(resolve));
  });
});
