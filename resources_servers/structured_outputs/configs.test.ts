import { describe, expect, it } from 'vitest';
import { loadGlobalConfig, PACKAGE_ROOT } from 'ngym/runtime';

// Both format environments' configs compose with a policy model and keep upstream's instance names.
describe.each([
  ['instruction_following', 'instruction_following', 'instruction_following'],
  ['structured_outputs', 'structured_outputs_json', 'structured_outputs'],
])('%s config', (env, file, instance) => {
  it('loads with upstream instance names, app.ts entrypoints and the example dataset', () => {
    const config = loadGlobalConfig({
      overrides: [`+config_paths=[resources_servers/${env}/configs/${file}.yaml]`, '+policy_model={responses_api_models: {openai_model: {entrypoint: app.ts}}}'],
      cwd: PACKAGE_ROOT,
      envYamlPath: null,
      warn: () => {},
    });
    const server = config.server(instance);
    expect(server?.impl).toBe(env);
    expect(server?.config.entrypoint).toBe('app.ts');
    const agent = config.server(`${instance}_simple_agent`);
    expect(agent?.config.resources_server).toEqual({ type: 'resources_servers', name: instance });
    expect((agent?.config.datasets as { type: string; jsonl_fpath: string }[]).find((dataset) => dataset.type === 'example')?.jsonl_fpath).toBe(
      `resources_servers/${env}/data/example.jsonl`,
    );
  });
});
