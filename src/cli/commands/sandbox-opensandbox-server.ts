/**
 * `ngym sandbox opensandbox-server`: an OpenSandbox-compatible server (src/sandbox/opensandbox-server/) backed by
 * ngym's docker provider on the engine DOCKER_HOST names, until Ctrl-C or SIGTERM, which remove its boxes. Its
 * options are described in `ngym sandbox --help` (sandbox.ts) and docs/sandbox.md, "OpenSandbox".
 */
import { parseArgs } from 'node:util';
import { NgymError } from '../../errors.ts';
import { startOpenSandboxServer } from '../../sandbox/opensandbox-server/server.ts';
import { DockerSandboxProvider } from '../../sandbox/providers/docker/docker-provider.ts';

function positiveInteger(value: string | undefined, option: string, allowZero = false): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < (allowZero ? 0 : 1)) throw new NgymError('NGYM_USAGE', `${option} must be a${allowZero ? ' non-negative' : ' positive'} integer, got ${JSON.stringify(value)}.`);
  return number;
}

export async function runOpenSandboxServerCommand(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: { host: { type: 'string' }, port: { type: 'string' }, 'api-key': { type: 'string' }, 'max-sandboxes': { type: 'string' }, 'public-url': { type: 'string' } },
      strict: true,
    }).values;
  } catch (error) {
    throw new NgymError('NGYM_USAGE', `${(error as Error).message} (see ngym sandbox --help).`);
  }
  const port = positiveInteger(values.port, '--port', true) ?? 8080;
  const maxSandboxes = positiveInteger(values['max-sandboxes'], '--max-sandboxes') ?? null;
  const running = await startOpenSandboxServer({
    provider: new DockerSandboxProvider({}, { maxSandboxes }),
    host: values.host ?? '127.0.0.1',
    port,
    apiKey: values['api-key'] ?? process.env.OPENSANDBOX_API_KEY ?? null,
    publicUrl: values['public-url'] ?? null,
  });
  process.stdout.write(`OpenSandbox-compatible server on ${running.url} (domain ${running.url.replace(/^http:\/\//, '')}), boxes on ${process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock'}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  process.stderr.write('Stopping: removing the boxes this server made.\n');
  await running.close();
  return 0;
}
