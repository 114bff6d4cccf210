/**
 * Strict server config: a misspelled key, server type or missing key is an error naming the key, the file and
 * its line (with a did-you-mean), and every config we ship passes the same check.
 */
import { mkdtempSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGlobalConfig } from '../config/global-config.ts';
import { ConfigError } from '../errors.ts';
import { userOverrideFor } from '../testing/user-completed-config.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { loadServerDefinition, locateServer, validatedServerConfig } from './hosting.ts';

function configFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ngym-strict-')), 'typo.yaml');
  writeFileSync(path, text);
  return path;
}

/** Loads the config and validates each server against its definition, as `ngym run` does before starting it. */
async function check(path: string, overrides: string[] = []): Promise<void> {
  const globalConfig = loadGlobalConfig({ cwd: PACKAGE_ROOT, overrides: [`+config_paths=[${path}]`, ...overrides], envYamlPath: null, warn: () => {} });
  for (const instance of globalConfig.servers) {
    const location = locateServer(globalConfig, instance);
    if (location.language !== 'typescript') continue;
    validatedServerConfig(globalConfig, instance, await loadServerDefinition(location.entrypoint));
  }
}

async function message(path: string, overrides: string[] = []): Promise<string> {
  try {
    await check(path, overrides);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const entry = (lines: string) => `example_multi_step:\n  resources_servers:\n    example_multi_step:\n      entrypoint: app.ts\n${lines}`;

describe('strict server config', () => {
  it('names an unknown key, its file and line, with the near known key', async () => {
    const path = configFile(entry('      domain: agent\n      verifed: true\n      prot: 1234\n'));
    const text = await message(path);
    expect(text).toContain(`unknown key \`example_multi_step.resources_servers.example_multi_step.verifed\` (from ${path}:6) (did you mean \`verified\`?)`);
    expect(text).toContain(`unknown key \`example_multi_step.resources_servers.example_multi_step.prot\` (from ${path}:7) (did you mean \`port\`?)`);
    expect(text).toContain('allow_extra_keys');
  });

  it('names a misspelled required key beside the missing one', async () => {
    const path = configFile(entry('      domian: agent\n'));
    const text = await message(path);
    expect(text).toContain(`\`example_multi_step.resources_servers.example_multi_step.domain\` (from ${path}:3): Field required`);
    expect(text).toContain(`found \`example_multi_step.resources_servers.example_multi_step.domian\` (from ${path}:5) instead`);
  });

  it('names a misspelled server type instead of finding no servers', async () => {
    const path = configFile('example_multi_step:\n  resource_servers:\n    example_multi_step:\n      entrypoint: app.ts\n      domain: agent\n');
    expect(await message(path)).toContain('found `resource_servers` (did you mean `resources_servers`?)');
  });

  it('names a key set on the command line as coming from there', async () => {
    const path = configFile(entry('      domain: agent\n'));
    expect(await message(path, ['+example_multi_step.resources_servers.example_multi_step.debugg=true'])).toContain(
      'unknown key `example_multi_step.resources_servers.example_multi_step.debugg` (from the command line)',
    );
  });

  it('lets deliberate extra keys through allow_extra_keys, and only those', async () => {
    await expect(check(configFile(entry('      domain: agent\n      my_key: 1\n      allow_extra_keys: [my_key]\n')))).resolves.toBeUndefined();
    await expect(check(configFile(entry('      domain: agent\n      my_key: 1\n      other: 2\n      allow_extra_keys: true\n')))).resolves.toBeUndefined();
    expect(await message(configFile(entry('      domain: agent\n      my_key: 1\n      other: 2\n      allow_extra_keys: [my_key]\n')))).toContain('unknown key `example_multi_step.resources_servers.example_multi_step.other`');
    expect(await message(configFile(entry('      domain: agent\n      allow_extra_keys: my_key\n')))).toContain('allow_extra_keys');
  });

  it('accepts every config we ship', async () => {
    const checked: string[] = [];
    for (const type of ['resources_servers', 'responses_api_agents', 'responses_api_models']) {
      for (const impl of readdirSync(join(PACKAGE_ROOT, type))) {
        const configs = join(PACKAGE_ROOT, type, impl, 'configs');
        if (!existsSync(configs)) continue;
        for (const file of readdirSync(configs).filter((name) => name.endsWith('.yaml'))) {
          // Interpolated secrets (policy_base_url, judge keys) get placeholders so only the keys are checked.
          const model = join(PACKAGE_ROOT, 'responses_api_models/openai_model/configs/openai_model.yaml');
          // An agent's own config names its model and resources server as `???`: a shipped environment fills them in.
          const environment = join(PACKAGE_ROOT, 'resources_servers/example_multi_step/configs/example_multi_step.yaml');
          // A `<env>_replay.yaml` brings its own models (replay_model) and completes the environment's main config.
          const replayOf = /^(.+)_replay\.yaml$/.exec(file)?.[1];
          const paths =
            type === 'responses_api_models'
              ? join(configs, file)
              : type === 'responses_api_agents'
                ? `${join(configs, file)},${model},${environment}`
                : replayOf !== undefined
                  ? `${join(configs, `${replayOf}.yaml`)},${join(configs, file)}`
                  : `${join(configs, file)},${model}`;
          const overrides = ['+policy_base_url=http://127.0.0.1:1/v1', '+policy_api_key=key', '+policy_model_name=model'];
          // Completed as a user would (a mandatory resources server gets the environment's above).
          for (;;) {
            const override = userOverrideFor(await message(paths, overrides).catch(() => ''), (key) =>
              key.endsWith('.resources_server.name') ? 'example_multi_step_resources_server' : 'policy_model',
            );
            if (override === undefined || overrides.includes(override)) break;
            overrides.push(override);
          }
          await check(paths, overrides);
          checked.push(`${type}/${impl}/${file}`);
        }
      }
    }
    expect(checked.length).toBeGreaterThan(15);
  });
});
