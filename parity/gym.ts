/**
 * One `ngym run` holding, for each environment, ngym's resources server (`<env>`, app.ts) and upstream 0.7.0's
 * (`<env>_upstream`, app.py from the installed wheel, started by ngym's mixed hosting).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { ServerClient } from '../src/client/server-client.ts';
import { type GymProcess, startGymProcess } from '../src/testing/cli-process.ts';
import { upstreamWheel } from '../src/testing/upstream-wheel.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { instanceOf, type ParityEnvironment } from './environment.ts';

export interface PythonSetup {
  executable: string;
  sitePackages: string;
}

/** The venv `npm run setup:python` makes, or a clear error saying to make it. */
export function pythonSetup(): PythonSetup {
  const { venv, python, sitePackages, skipReason } = upstreamWheel();
  if (skipReason !== null) {
    throw new Error(`Upstream NeMo Gym is not installed in ${venv}: run \`npm run setup:python\` first (the parity harness runs upstream's servers from it).`);
  }
  return { executable: python, sitePackages };
}

/** The resources server block named `environment` in a config file. */
function serverBlock(path: string, environment: string): Record<string, unknown> {
  const config = parse(readFileSync(path, 'utf8')) as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
  for (const entry of Object.values(config)) {
    const block = entry?.resources_servers?.[environment];
    if (block !== undefined) return block;
  }
  throw new Error(`${path} has no resources server ${environment}`);
}

export const upstreamInstance = (environment: string): string => `${environment}_upstream`;

function gymConfig(environments: readonly ParityEnvironment[], python: PythonSetup): Record<string, unknown> {
  // Every server's folder is looked up in these roots after ngym's own, whatever its language: the wheel's
  // environments (app.py) and the harness's own servers (parity/servers: the scripted judge, app.ts).
  const config: Record<string, unknown> = {
    python_executable: python.executable,
    python_server_roots: [python.sitePackages, join(PACKAGE_ROOT, 'parity', 'servers')],
    // Upstream's app.py, not ngym's TypeScript version of the same name, for the `_upstream` instances.
    prefer_upstream: true,
  };
  for (const environment of environments) {
    const ngym = serverBlock(join(PACKAGE_ROOT, 'resources_servers', environment.name, 'configs', environment.configs.ngym), environment.name);
    const overrides = typeof environment.overrides === 'function' ? environment.overrides(python) : environment.overrides;
    const upstream = serverBlock(join(python.sitePackages, 'resources_servers', environment.name, 'configs', environment.configs.upstream), environment.name);
    config[instanceOf(environment)] = { resources_servers: { [environment.name]: { ...ngym, ...overrides, entrypoint: 'app.ts' } } };
    config[upstreamInstance(instanceOf(environment))] = {
      resources_servers: { [environment.name]: { ...upstream, ...overrides, ...environment.upstreamOverrides, entrypoint: 'app.py' } },
    };
    Object.assign(config, environment.servers);
  }
  return config;
}

export interface RunningGym {
  client: ServerClient;
  stop(): Promise<void>;
}

export async function startParityGym(environments: readonly ParityEnvironment[], python: PythonSetup): Promise<RunningGym> {
  const folder = mkdtempSync(join(tmpdir(), 'ngym-parity-'));
  const path = join(folder, 'parity.yaml');
  writeFileSync(path, stringify(gymConfig(environments, python)));
  const gym: GymProcess = await startGymProcess([`+config_paths=[${path}]`]);
  try {
    const client = await ServerClient.fromHeadServer({ host: '127.0.0.1', port: gym.headPort });
    return {
      client,
      stop: async () => {
        await gym.stop();
      },
    };
  } catch (error) {
    await gym.stop();
    throw error;
  }
}
