import { describe, expect, it } from 'vitest';
import { runCli } from '../../testing/cli-process.ts';

// The worker's runs against Redis are in faults/distributed.test.ts; these need neither Redis nor a gym.
describe('ngym worker', () => {
  it('names the missing or malformed queue key before connecting to anything', async () => {
    const missing = await runCli(['worker']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error: Missing required parameters: queue.url. Provide each as a +name=<value> override (see --help).\n');
    const malformed = await runCli(['worker', '+queue.url=http://10.0.0.5:6379']);
    expect(malformed.stderr).toBe('Error: Invalid parameters:\n  - +queue.url: must be redis://host:port, rediss://host:port or unix:///path/to/redis.sock\n');
    const typo = await runCli(['collect', '+input_jsonl_fpath=in.jsonl', '+output_jsonl_fpath=out.jsonl', '+queue.url=redis://h:6379', '+queue.nmae=x']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('+queue.nmae: Extra inputs are not permitted');
  });

  it('prints its help with the queue keys', async () => {
    const help = await runCli(['worker', '--help']);
    expect(help.code).toBe(0);
    for (const key of ['+queue.url (str)', '+queue.name', '+queue.lock_seconds', '+queue.max_stalled', '+concurrency']) expect(help.stdout).toContain(key);
  });
});
