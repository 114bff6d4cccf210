/**
 * environments/<name>/config.yaml: every environment ngym ships (a resources_servers/<name> folder with app.ts)
 * has its package, and each package composes into a gym that `gym env start --environment <name>` can start
 * (every server found and its config valid), with its resources server, agent and datasets.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { locateAndValidate } from '../../gym/launcher.ts';
import { userOverrideFor } from '../../testing/user-completed-config.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { assetConfigPath } from './flags.ts';

const shipped = readdirSync(join(PACKAGE_ROOT, 'resources_servers')).filter((name) => existsSync(join(PACKAGE_ROOT, 'resources_servers', name, 'app.ts')));
const packaged = readdirSync(join(PACKAGE_ROOT, 'environments'));
const MODEL = ['responses_api_models/openai_model/configs/openai_model.yaml'];
const POLICY = ['+policy_base_url=http://127.0.0.1:1/v1', '+policy_api_key=k', '+policy_model_name=m'];

describe('environments/<name>/config.yaml', () => {
  it('packages every environment ngym ships, and nothing else', () => {
    expect(packaged.sort()).toEqual(shipped.sort());
  });

  it.each(packaged)('%s composes into a valid gym with its resources server, an agent with datasets, and an environment server', async (name) => {
    const config = assetConfigPath('environment', name, PACKAGE_ROOT);
    const overrides = [`+config_paths=[${config},${MODEL.join(',')}]`, ...POLICY];
    let globalConfig;
    for (;;) {
      try {
        globalConfig = loadGlobalConfig({ overrides, cwd: PACKAGE_ROOT, envYamlPath: null });
        await locateAndValidate(globalConfig);
        break;
      } catch (error) {
        // Completed as a user would: a judge's model server, a simulated user's model (user-completed-config.ts).
        const override = userOverrideFor((error as Error).message);
        if (override === undefined) throw error;
        overrides.push(override);
      }
    }
    const types = globalConfig.servers.map((instance) => instance.serverType);
    expect(types).toEqual(expect.arrayContaining(['resources_servers', 'responses_api_agents', 'environment_servers', 'responses_api_models']));
    expect(globalConfig.servers.some((instance) => instance.serverType === 'responses_api_agents' && Array.isArray(instance.config.datasets))).toBe(true);
  }, 60_000);
});
