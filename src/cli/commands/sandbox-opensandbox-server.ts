/**
 * `ngym sandbox opensandbox-server`: an OpenSandbox-compatible server (src/sandbox/opensandbox-server/) backed by
 * ngym's docker provider on the engine DOCKER_HOST names, until Ctrl-C or SIGTERM, which remove its boxes.
 */
import { parseArgs } from 'node:util';
import { NgymError } from '../../errors.ts';
import { startOpenSandboxServer } from '../../sandbox/opensandbox-server/server.ts';
import { DockerSandboxProvider } from '../../sandbox/providers/docker/docker-provider.ts';

export const OPENSANDBOX_SERVER_HELP = `Usage: ngym sandbox opensandbox-server [--host H] [--port P] [--api-key KEY] [--max-sandboxes N] [--public-url URL]

Serves the part of OpenSandbox's lifecycle API (/v1/sandboxes) and of its in-box execd API (commands, files)
that upstream NeMo Gym's opensandbox provider and the opensandbox SDK use, with boxes made by ngym's docker
provider on the engine DOCKER_HOST names (scripts/container-engine.sh start; or a Docker). Configs that name
the opensandbox provider then run on a cluster without OpenSandbox: point connection.domain at this server
(use_server_proxy: true or false both work; execd is served here, on the proxy path). docs/sandbox.md, "OpenSandbox".

  --host H            address to listen on (default 127.0.0.1)
  --port P            port (default 8080, OpenSandbox's; 0 picks a free one)
  --api-key KEY       require OPEN-SANDBOX-API-KEY: KEY on every request (default: OPENSANDBOX_API_KEY, else none)
  --max-sandboxes N   boxes held at once; creates beyond it wait (default: no bound)
  --public-url URL    the base clients reach this server at, for the endpoints it hands out (default: the
                      address each request came to)

Ctrl-C or SIGTERM stops it and removes every box it made.

Example:
  ngym sandbox opensandbox-server --port 8080 &
  OPENSANDBOX_DOMAIN=127.0.0.1:8080 ngym run "+config_paths=[..., nemo_gym/sandbox/providers/opensandbox/configs/opensandbox.yaml]"`;

function positiveInteger(value: string | undefined, option: string, allowZero = false): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < (allowZero ? 0 : 1)) throw new NgymError('NGYM_USAGE', `${option} must be a${allowZero ? ' non-negative' : ' positive'} integer, got ${JSON.stringify(value)}.`);
  return number;
}

export async function runOpenSandboxServerCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${OPENSANDBOX_SERVER_HELP}\n`);
    return 0;
  }
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: { host: { type: 'string' }, port: { type: 'string' }, 'api-key': { type: 'string' }, 'max-sandboxes': { type: 'string' }, 'public-url': { type: 'string' } },
      strict: true,
    }).values;
  } catch (error) {
    throw new NgymError('NGYM_USAGE', `${(error as Error).message} (see ngym sandbox opensandbox-server --help).`);
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
