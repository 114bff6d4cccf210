/**
 * Entry point of a server process launched by `ngym run`. Contract (as upstream): the global config YAML in
 * `NEMO_GYM_CONFIG_DICT`, this instance's name in `NEMO_GYM_CONFIG_PATH`. With `NGYM_LISTEN_HANDLE=1` the
 * parent sends the already-bound listening socket over IPC; otherwise the server binds its configured port.
 * The process reports readiness over IPC and exits when told to stop or when the parent goes away; every exit
 * path arms a deadline that SIGKILLs it should the exit itself hang (src/util/exit-deadline.ts).
 */
import type { Server as NetServer } from 'node:net';
import { CONFIG_DICT_ENV, CONFIG_PATH_ENV, globalConfigFromYaml } from '../config/global-config.ts';
import { defaultSearchRoots } from '../config/server-instances.ts';
import { NgymError } from '../errors.ts';
import { ServerClient } from '../client/server-client.ts';
import { type ChildMessage, HEAD_URL_ENV, LISTEN_HANDLE_ENV, type ListenProtocol, SEARCH_ROOTS_ENV, SHUTDOWN_GRACE_MS } from './child-protocol.ts';
import { hostServer, type HostedServer } from './hosting.ts';
import { exitWithin } from '../util/exit-deadline.ts';
import { limitHeapGrowth } from '../util/heap-growth.ts';

/** How long an exit with nothing left to drain may take before the process is killed. */
const EXIT_DEADLINE_MS = 2_000;

function exit(code: number): never {
  exitWithin(EXIT_DEADLINE_MS);
  process.exit(code);
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  exit(1);
}

/** The two listening sockets the parent sends: HTTP/1.1 and HTTP/2. */
function receiveHandles(): Promise<Record<ListenProtocol, NetServer>> {
  return new Promise((resolve) => {
    const handles: Partial<Record<ListenProtocol, NetServer>> = {};
    process.on('message', function onMessage(message: unknown, handle: unknown) {
      const listen = message as ChildMessage | null;
      if (listen?.type !== 'ngym:listen' || !handle) return;
      handles[listen.protocol] = handle as NetServer;
      if (handles.http !== undefined && handles.h2c !== undefined) {
        process.off('message', onMessage);
        resolve(handles as Record<ListenProtocol, NetServer>);
      }
    });
  });
}

async function main(): Promise<void> {
  try {
    limitHeapGrowth();
  } catch (error) {
    fail((error as Error).message);
  }
  // A parent that goes away while this server is still starting (even by SIGKILL) ends it at once: nothing to drain.
  const orphaned = () => exit(1);
  process.once('disconnect', orphaned);
  if (process.send !== undefined && !process.connected) orphaned();
  const yamlText = process.env[CONFIG_DICT_ENV];
  const name = process.env[CONFIG_PATH_ENV];
  if (!yamlText || !name) fail(`${CONFIG_DICT_ENV} and ${CONFIG_PATH_ENV} must be set; servers are started by \`ngym run\`.`);
  const searchRoots = process.env[SEARCH_ROOTS_ENV] ? (JSON.parse(process.env[SEARCH_ROOTS_ENV]) as string[]) : defaultSearchRoots();
  const globalConfig = globalConfigFromYaml(yamlText, searchRoots);
  const instance = globalConfig.server(name);
  if (instance === undefined) fail(`No server named '${name}' in ${CONFIG_DICT_ENV}.`);

  const handles = process.env[LISTEN_HANDLE_ENV] === '1' ? await receiveHandles() : undefined;
  const client = new ServerClient(globalConfig);
  const headUrl = process.env[HEAD_URL_ENV];
  if (headUrl) client.routeReplicasVia(headUrl);
  let hosted: HostedServer;
  try {
    hosted = await hostServer({
      globalConfig,
      name,
      client,
      listen:
        handles === undefined
          ? undefined
          : { http: { handle: handles.http, host: String(instance.config.host) }, h2c: { handle: handles.h2c, host: String(instance.config.host) } },
    });
  } catch (error) {
    fail(NgymError.isInstance(error) ? error.message : ((error as Error).stack ?? String(error)));
  }

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // Whatever close or exit waits on (a peer that never reads, an environment's own close hook, a write to a dead
    // pipe), the process is gone soon after the grace.
    exitWithin(SHUTDOWN_GRACE_MS + 5_000);
    await hosted.close(SHUTDOWN_GRACE_MS);
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // The parent went away (even by SIGKILL): never linger as an orphan.
  process.off('disconnect', orphaned);
  process.on('disconnect', stop);
  process.send?.({ type: 'ngym:ready', port: hosted.bound.port } satisfies ChildMessage);
}

await main();
