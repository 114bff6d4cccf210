/**
 * Upstream's `_inherit_from`, `_copy` and `_delete_key` directives, as a benchmark config uses them: a server taken
 * under a new name with its own keys merged over it (the source leaves the config), copies that leave it in place,
 * keys removed, agents that moved followed by the environment servers naming them, and the errors.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGlobalConfig } from './global-config.ts';

function load(files: Record<string, string>, main: string) {
  const root = mkdtempSync(join(tmpdir(), 'ngym-inherit-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return loadGlobalConfig({ overrides: [`+config_paths=[${main}]`], cwd: root, searchRoots: [root], envYamlPath: null, warn: () => {} });
}

const SERVERS = `
judge:
  resources_servers:
    equivalence_llm_judge:
      entrypoint: app.ts
      domain: knowledge
      judge_label: "[[A=B]]"
      extra: keep
      model_server: {type: responses_api_models, name: policy_model}
judge_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.ts
      resources_server: {type: resources_servers, name: judge}
      model_server: {type: responses_api_models, name: policy_model}
judge_environment:
  environment_servers:
    legacy_agent:
      entrypoint: app.ts
      agent_server: {type: responses_api_agents, name: judge_agent}
policy_model:
  responses_api_models:
    openai_model: {entrypoint: app.ts, openai_base_url: x, openai_api_key: y, openai_model: z}
`;

describe('_inherit_from', () => {
  it("takes the source under the entry's name, merges the entry's keys over it, and removes the source", () => {
    const config = load(
      {
        'servers.yaml': SERVERS,
        'bench.yaml': `
config_paths: [servers.yaml]
bench_judge:
  _inherit_from: judge
  resources_servers:
    equivalence_llm_judge:
      judge_label: "Judgement: yes"
bench_agent:
  _inherit_from: judge_agent
  responses_api_agents:
    simple_agent:
      resources_server: {name: bench_judge}
      datasets: [{name: bench, type: benchmark, jsonl_fpath: data/bench.jsonl}]
bench_environment:
  _inherit_from: judge_environment
`,
      },
      'bench.yaml',
    );
    expect(config.servers.map((server) => server.name).sort()).toEqual(['bench_agent', 'bench_environment', 'bench_judge', 'policy_model']);
    expect(config.resolvedServerConfig('bench_judge')).toMatchObject({ entrypoint: 'app.ts', judge_label: 'Judgement: yes', extra: 'keep' });
    expect(config.resolvedServerConfig('bench_agent').resources_server).toEqual({ type: 'resources_servers', name: 'bench_judge' });
    // The environment server named the agent that moved; with one destination it follows it.
    expect(config.resolvedServerConfig('bench_environment').agent_server).toEqual({ type: 'responses_api_agents', name: 'bench_agent' });
    // Inherited keys keep the file they came from in messages.
    expect(config.sources.describe(['bench_judge', 'resources_servers', 'equivalence_llm_judge', 'extra'])).toContain('servers.yaml');
  });

  it('lets several entries take the same source, copies with _copy, and removes keys with _delete_key', () => {
    const config = load(
      {
        'servers.yaml': SERVERS,
        'two.yaml': `
config_paths: [servers.yaml]
first_judge: {_inherit_from: judge}
second_judge: {_inherit_from: judge}
bench_agent:
  _inherit_from: judge_agent
  responses_api_agents: {simple_agent: {resources_server: {name: second_judge}}}
copied: {_copy: policy_model}
trimmed:
  _copy: policy_model.responses_api_models.openai_model
  _delete_key: openai_api_key, openai_model
base_url: \${copy:policy_model.responses_api_models.openai_model.openai_base_url}
`,
      },
      'two.yaml',
    );
    const names = config.servers.map((server) => server.name).sort();
    expect(names).toEqual(['bench_agent', 'copied', 'first_judge', 'judge_environment', 'policy_model', 'second_judge'].sort());
    expect(config.resolvedServerConfig('second_judge')).toHaveProperty('extra', 'keep');
    expect(config.dict.trimmed).toEqual({ entrypoint: 'app.ts', openai_base_url: 'x' });
    expect(config.dict.base_url).toBe('x');
  });

  it('names a source that is not there, and an agent moved to two names that an environment server still names', () => {
    expect(() => load({ 'bad.yaml': 'x:\n  _inherit_from: nowhere\n' }, 'bad.yaml')).toThrow(/`x` inherits from `nowhere`, which is not in the config/);
    expect(() => load({ 'servers.yaml': SERVERS, 'delete.yaml': 'config_paths: [servers.yaml]\nx: {_copy: policy_model, _delete_key: absent}\n' }, 'delete.yaml')).toThrow(/`x` asks `_delete_key` to remove `absent`, which neither it nor `policy_model` has/);
    expect(() =>
      load({ 'servers.yaml': SERVERS, 'twice.yaml': 'config_paths: [servers.yaml]\na: {_inherit_from: judge_agent}\nb: {_inherit_from: judge_agent}\n' }, 'twice.yaml'),
    ).toThrow(/Agent 'judge_agent' was inherited into several names \(a, b\), but `judge_environment.environment_servers.legacy_agent.agent_server.name` still names 'judge_agent'/);
  });
});
