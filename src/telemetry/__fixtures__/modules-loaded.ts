/**
 * Hosts a resources server with the `telemetry:` block given as JSON in argv[2], makes one request, and prints the
 * packages (under node_modules) this process loaded, as JSON: what a server pays for telemetry at start-up.
 *
 * ES modules are seen through a module resolve hook (`module.register`, which every Node ngym supports runs on a
 * hooks thread that reports each resolved URL over a MessagePort); CommonJS ones are in `require.cache`.
 */
import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import type { ConfigDict } from '../../config/tree.ts';

const RESOLVE_HOOK = `
let port;
export function initialize(data) {
  port = data.port;
  // Echoes a flush request: the URLs posted before it have all arrived once its echo does.
  port.on('message', (message) => port.postMessage(message));
  port.unref();
}
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}`;

const loaded = new Set<string>();
const FLUSH = '\0flush';
const packageOf = (path: string) => {
  const inPackages = path.split('/node_modules/').at(-1);
  if (inPackages === undefined || inPackages === path) return;
  const [scope, name] = inPackages.split('/');
  loaded.add(scope?.startsWith('@') ? `${scope}/${name}` : (scope ?? ''));
};
const { port1, port2 } = new MessageChannel();
let flushed: (() => void) | undefined;
port1.on('message', (message: string) => (message === FLUSH ? flushed?.() : packageOf(message)));
register(`data:text/javascript,${encodeURIComponent(RESOLVE_HOOK)}`, { data: { port: port2 }, transferList: [port2] });

const { startInProcessGym } = await import('../../gym/in-process.ts');
const { defineResourcesServer } = await import('../../server/resources-server.ts');
const { stopTracing } = await import('../tracing.ts');
const environment = defineResourcesServer({ className: 'Quiet', verify: () => ({ reward: 1 }) });
const telemetry = JSON.parse(process.argv[2] ?? '{}') as ConfigDict;
const gym = await startInProcessGym({ config: { quiet: { resources_servers: { quiet: { entrypoint: 'app.ts', domain: 'other' } } }, telemetry }, definitions: { quiet: environment } });
const answer = await gym.client.post('quiet', '/seed_session', { responses_create_params: { input: 'hello' } });
await gym.close();
await stopTracing();
await new Promise<void>((resolve) => {
  flushed = resolve;
  port1.postMessage(FLUSH);
});
port1.close();
for (const path of Object.keys(createRequire(import.meta.url).cache)) packageOf(path);
process.stdout.write(`${JSON.stringify({ status: answer.status, packages: [...loaded].sort() })}\n`);
