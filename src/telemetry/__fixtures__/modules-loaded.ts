/**
 * Hosts a resources server with the `telemetry:` block given as JSON in argv[2], makes one request, and prints the
 * packages (under node_modules) this process loaded, as JSON: what a server pays for telemetry at start-up.
 */
import * as nodeModule from 'node:module';
import type { ConfigDict } from '../../config/tree.ts';

/** Node >= 22.15's synchronous module hooks (the project's @types/node is Node 20's). */
type ResolveHook = (specifier: string, context: object, next: (specifier: string, context: object) => { url: string }) => { url: string };
const { registerHooks } = nodeModule as unknown as { registerHooks(hooks: { resolve: ResolveHook }): void };

const loaded = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    const inPackages = resolved.url.split('/node_modules/').at(-1);
    if (inPackages !== undefined && inPackages !== resolved.url) {
      const [scope, name] = inPackages.split('/');
      loaded.add(scope?.startsWith('@') ? `${scope}/${name}` : (scope ?? ''));
    }
    return resolved;
  },
});

const { startInProcessGym } = await import('../../gym/in-process.ts');
const { defineResourcesServer } = await import('../../server/resources-server.ts');
const { stopTracing } = await import('../tracing.ts');
const environment = defineResourcesServer({ className: 'Quiet', verify: () => ({ reward: 1 }) });
const telemetry = JSON.parse(process.argv[2] ?? '{}') as ConfigDict;
const gym = await startInProcessGym({ config: { quiet: { resources_servers: { quiet: { entrypoint: 'app.ts', domain: 'other' } } }, telemetry }, definitions: { quiet: environment } });
const answer = await gym.client.post('quiet', '/seed_session', { responses_create_params: { input: 'hello' } });
await gym.close();
await stopTracing();
process.stdout.write(`${JSON.stringify({ status: answer.status, packages: [...loaded].sort() })}\n`);
