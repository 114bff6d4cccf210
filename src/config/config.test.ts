import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { loadGlobalConfig } from './global-config.ts';
import { resolveAll, resolveAt } from './interpolation.ts';
import { parseOverride, parseOverrideValue } from './overrides.ts';
import { redactSecrets } from './redact.ts';

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ngym-config-'));
  for (const [path, text] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, text);
  }
  return root;
}

function load(root: string, overrides: string[] = [], extra: Parameters<typeof loadGlobalConfig>[0] = {}) {
  return loadGlobalConfig({ cwd: root, searchRoots: [root], overrides, warn: () => {}, ...extra });
}

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('override values (Hydra grammar)', () => {
  it('types scalars like Hydra', () => {
    expect(parseOverrideValue('null')).toBeNull();
    expect(parseOverrideValue('true')).toBe(true);
    expect(parseOverrideValue('False')).toBe(false);
    expect(parseOverrideValue('42')).toBe(42);
    expect(parseOverrideValue('-7')).toBe(-7);
    expect(parseOverrideValue('0.7')).toBe(0.7);
    expect(parseOverrideValue('1e-3')).toBe(0.001);
    expect(parseOverrideValue('inf')).toBe(Infinity);
    expect(parseOverrideValue('010')).toBe('010');
    expect(parseOverrideValue('gpt-4o-mini')).toBe('gpt-4o-mini');
    expect(parseOverrideValue('http://localhost:8000/v1')).toBe('http://localhost:8000/v1');
    expect(parseOverrideValue('')).toBe('');
    expect(parseOverrideValue("'quoted, with comma'")).toBe('quoted, with comma');
    expect(parseOverrideValue('"1"')).toBe('1');
  });

  it('parses nested lists and dicts', () => {
    expect(parseOverrideValue('[a.yaml, b/c.yaml]')).toEqual(['a.yaml', 'b/c.yaml']);
    expect(parseOverrideValue('[]')).toEqual([]);
    expect(parseOverrideValue('{a: 1, b: [x, 2], c: {d: null}}')).toEqual({ a: 1, b: ['x', 2], c: { d: null } });
  });

  it('keeps interpolations verbatim, including commas inside them', () => {
    expect(parseOverrideValue('${my_paths}')).toBe('${my_paths}');
    expect(parseOverrideValue('[${oc.env:A,x}, b]')).toEqual(['${oc.env:A,x}', 'b']);
  });

  it('parses the operation and dotted key', () => {
    expect(parseOverride('+a.b.c=1')).toMatchObject({ operation: 'add', path: ['a', 'b', 'c'], value: 1 });
    expect(parseOverride('++x=[1,2]')).toMatchObject({ operation: 'force-add', path: ['x'], value: [1, 2] });
  });

  it('rejects plain key=value with a hint, and malformed values', () => {
    expect(configError(() => parseOverride('a=1')).message).toContain('+a=1');
    expect(configError(() => parseOverride('+a=[1,2')).message).toContain('list');
    expect(configError(() => parseOverride('+a=x,y')).message).toContain('ambiguous');
    expect(configError(() => parseOverride('+a')).message).toContain('key=value');
    expect(configError(() => parseOverride('+a b=1')).message).toContain('not a valid key');
  });
});

describe('interpolation', () => {
  const root = {
    policy_base_url: 'http://h:1/v1',
    port: 8000,
    nested: { url: 'http://${host}:${port}', sibling: '${.url}', parent: '${..port}' },
    host: 'localhost',
    list: ['${port}', 'x'],
    whole: '${nested}',
    missing: '???',
    uses_missing: '${missing}',
    env: '${oc.env:NGYM_TEST_VAR,fallback}',
    escaped: '\\${not.this}',
    cycle_a: '${cycle_b}',
    cycle_b: '${cycle_a}',
  };

  it('resolves absolute, relative, typed, concatenated and env values', () => {
    expect(resolveAt({ root }, ['nested', 'url'])).toBe('http://localhost:8000');
    expect(resolveAt({ root }, ['nested', 'sibling'])).toBe('http://localhost:8000');
    expect(resolveAt({ root }, ['nested', 'parent'])).toBe(8000);
    expect(resolveAt({ root }, ['list'])).toEqual([8000, 'x']);
    expect(resolveAt({ root }, ['whole'])).toEqual({ url: 'http://localhost:8000', sibling: 'http://localhost:8000', parent: 8000 });
    expect(resolveAt({ root, env: {} }, ['env'])).toBe('fallback');
    expect(resolveAt({ root, env: { NGYM_TEST_VAR: 'set' } }, ['env'])).toBe('set');
    expect(resolveAt({ root }, ['escaped'])).toBe('${not.this}');
  });

  it('resolves oc.select as OmegaConf: the key if set, else the typed default, else null', () => {
    const selecting = {
      set_key: 'tv-123',
      open_key: '???',
      nullable: null,
      server: {
        own: 'mine',
        key: '${oc.select:set_key,unused}',
        key_or_env: '${oc.select:tavily_api_key,${oc.env:NGYM_TEST_TAVILY,null}}',
        mode: '${oc.select:price_history_mode,live}',
        flag: '${oc.select:policy_uses_reasoning_parser,false}',
        count: '${oc.select:absent,3}',
        open: '${oc.select:open_key,fallback}',
        bare: '${oc.select:absent}',
        kept_null: '${oc.select:nullable,fallback}',
        sibling: '${oc.select:.own,x}',
        url: '${oc.select:judge_base_url,http://unset.local/v1}',
        quoted: "${oc.select:absent,'a, b'}",
      },
    };
    const server = (env: NodeJS.ProcessEnv) => resolveAt({ root: selecting, env }, ['server']) as Record<string, unknown>;
    expect(server({})).toEqual({
      own: 'mine',
      key: 'tv-123',
      key_or_env: null,
      mode: 'live',
      flag: false,
      count: 3,
      open: 'fallback',
      bare: null,
      kept_null: null,
      sibling: 'mine',
      url: 'http://unset.local/v1',
      quoted: 'a, b',
    });
    expect(server({ NGYM_TEST_TAVILY: 'from-env' }).key_or_env).toBe('from-env');
    // osworld_agent's keys: oc.decode types what oc.env hands back as text; a quoted default is its content.
    const decoding = { version: '${oc.decode:${oc.env:NGYM_TEST_VERSION,3}}', listed: "${oc.decode:'[a, 2]'}", path: '${oc.env:NGYM_TEST_A,${oc.env:NGYM_TEST_B,""}}' };
    expect(resolveAll({ root: decoding, env: {} })).toEqual({ version: 3, listed: ['a', 2], path: '' });
    expect(resolveAll({ root: decoding, env: { NGYM_TEST_VERSION: '2', NGYM_TEST_B: '/vm.qcow2' } })).toMatchObject({ version: 2, path: '/vm.qcow2' });
    expect(configError(() => resolveAt({ root: { a: '${oc.select:a,x}' } }, ['a'])).message).toContain('cycle');
    expect(configError(() => resolveAt({ root: { a: '${oc.select:b,x,y}' } }, ['a'])).message).toContain('takes a key and an optional default');
  });

  it('names the missing key and who needs it', () => {
    expect(configError(() => resolveAt({ root }, ['missing'])).message).toMatch(/Missing mandatory value `missing`/);
    const viaReference = configError(() => resolveAt({ root }, ['uses_missing']));
    expect(viaReference.message).toContain('`missing`');
    expect(viaReference.message).toContain('needed by `uses_missing`');
    expect(configError(() => resolveAt({ root }, ['cycle_a'])).message).toContain('cycle');
    expect(configError(() => resolveAll({ root: { a: '${nope.x}' } })).message).toContain('`nope.x` does not exist');
  });
});

const weather = `
weather:
  resources_servers:
    example_single_tool_call:
      entrypoint: app.ts
      domain: agent
weather_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.ts
      resources_server: {type: resources_servers, name: weather}
      model_server: {type: responses_api_models, name: policy_model}
`;
const model = `
policy_model:
  responses_api_models:
    openai_model:
      entrypoint: app.ts
      openai_base_url: \${policy_base_url}
      openai_api_key: \${policy_api_key}
`;

describe('loading the global config', () => {
  it('gives the upstream minimal result for an empty config', () => {
    const config = load(project({}));
    expect(config.dict).toEqual({ head_server: { host: '127.0.0.1', port: 11000 } });
    expect(config.servers).toEqual([]);
  });

  it('composes config files, env.yaml and the command line in precedence order', () => {
    const root = project({
      'configs/weather.yaml': weather,
      'configs/model.yaml': model,
      'env.yaml': 'policy_base_url: http://env/v1\npolicy_api_key: sk-env\nfrom_env: 1\n',
    });
    const config = load(root, ['+config_paths=[configs/weather.yaml,configs/model.yaml]', '+policy_base_url=http://cli/v1', '+weather.resources_servers.example_single_tool_call.port=1234']);
    expect(config.servers.map((server) => server.name)).toEqual(['weather', 'weather_agent', 'policy_model']);
    expect(config.resolvedServerConfig('policy_model')).toMatchObject({ openai_base_url: 'http://cli/v1', openai_api_key: 'sk-env', name: 'policy_model' });
    expect(config.serverUrl('weather')).toBe('http://127.0.0.1:1234');
    expect(config.dict.config_paths).toEqual(['configs/weather.yaml', 'configs/model.yaml']);
    expect(config.sources.sourceOf(['policy_base_url'])).toBe('the command line');
    expect(config.sources.sourceOf(['weather_agent', 'responses_api_agents'])).toBe('configs/weather.yaml');
    expect(config.dict.head_server).toEqual({ host: '127.0.0.1', port: 11000 });
  });

  // Upstream 0.7.0 (nemo_gym/global_config.py, load_extra_config_paths) merges the include tree in post-order: a file
  // overrides what it pulled in. v0.1.1 merged in the breadth-first list order, where `value` came out 'child'.
  it('expands nested config_paths breadth-first without duplicates, merging each file over its includes', () => {
    const root = project({
      'parent.yaml': 'config_paths: [child.yaml, shared.yaml]\nparent: 1\nvalue: parent\n',
      'child.yaml': 'config_paths: [grandchild.yaml, shared.yaml]\nchild: 1\nvalue: child\n',
      'grandchild.yaml': 'grandchild: 1\n',
      'shared.yaml': 'shared: 1\n',
      'other.yaml': 'other: 1\n',
    });
    const config = load(root, ['+config_paths=[other.yaml,parent.yaml]']);
    expect(config.dict.config_paths).toEqual(['other.yaml', 'parent.yaml', 'child.yaml', 'shared.yaml', 'grandchild.yaml']);
    expect(config.dict).toMatchObject({ parent: 1, child: 1, grandchild: 1, shared: 1, other: 1, value: 'parent' });
    expect(config.sources.sourceOf(['value'])).toBe('parent.yaml');
  });

  it('lets an including file fill or null what its include leaves open, and a later listed file win with its includes', () => {
    const root = project({
      'env_a.yaml': 'config_paths: [agent.yaml]\nagent: {resources_server: {name: env_a}, judge: null}\n',
      'agent.yaml': "agent: {resources_server: {name: '???'}, judge: {name: judge_model}, steps: 3}\nshared: from_agent\n",
      'env_b.yaml': 'config_paths: [b_base.yaml]\nb: 2\n',
      'b_base.yaml': 'shared: from_b_base\nb: 1\n',
    });
    const config = load(root, ['+config_paths=[env_a.yaml,env_b.yaml]']);
    expect(config.dict.agent).toEqual({ resources_server: { name: 'env_a' }, judge: null, steps: 3 });
    expect(config.dict).toMatchObject({ shared: 'from_b_base', b: 2 });
    expect(config.dict.config_paths).toEqual(['env_a.yaml', 'env_b.yaml', 'agent.yaml', 'b_base.yaml']);
  });

  it('lets config_paths interpolate a list kept in env.yaml', () => {
    const root = project({ 'a.yaml': 'a: 1\n', 'env.yaml': 'my_paths: [a.yaml]\n' });
    expect(load(root, ['+config_paths=${my_paths}']).dict.a).toBe(1);
  });

  it('merges dicts deeply and replaces lists', () => {
    const root = project({ 'a.yaml': 'x: {list: [1, 2], keep: 1, over: 1}\n', 'b.yaml': 'x: {list: [3], over: 2}\n' });
    expect(load(root, ['+config_paths=[a.yaml,b.yaml]']).dict.x).toEqual({ list: [3], keep: 1, over: 2 });
  });

  it('names the missing file and who listed it', () => {
    const root = project({ 'a.yaml': 'config_paths: [missing.yaml]\n' });
    const error = configError(() => load(root, ['+config_paths=[a.yaml]']));
    expect(error.message).toContain('missing.yaml');
    expect(error.message).toContain('listed in config_paths by a.yaml');
  });

  it('names file, line and column of invalid YAML', () => {
    const root = project({ 'bad.yaml': 'a: 1\nb: [unclosed\n' });
    expect(configError(() => load(root, ['+config_paths=[bad.yaml]'])).message).toMatch(/Invalid YAML in bad\.yaml:\d+:\d+/);
  });

  it('rejects a reference to a missing server or a server of another type, naming key and file', () => {
    const root = project({ 'weather.yaml': weather });
    const missing = configError(() => load(root, ['+config_paths=[weather.yaml]']));
    expect(missing.message).toContain('Could not find {type: responses_api_models, name: policy_model}');
    expect(missing.message).toContain('weather_agent.responses_api_agents.simple_agent.model_server');
    expect(missing.message).toContain('(from weather.yaml:12)');

    const wrongType = project({ 'weather.yaml': weather.replace('type: resources_servers, name: weather', 'type: resources_servers, name: weather_agent'), 'model.yaml': model });
    expect(configError(() => load(wrongType, ['+config_paths=[weather.yaml,model.yaml]'])).message).toContain('of type responses_api_agents');
  });

  it("accepts every domain of upstream 0.7.0's Domain enum (generative_reward_model's rlhf)", () => {
    for (const domain of ['math', 'coding', 'agent', 'knowledge', 'instruction_following', 'long_context', 'safety', 'games', 'translation', 'e2e', 'rlhf', 'other']) {
      const root = project({ 'judge.yaml': `judge:\n  resources_servers:\n    thing:\n      entrypoint: app.ts\n      domain: ${domain}\n` });
      expect(load(root, ['+config_paths=[judge.yaml]']).servers.map((server) => server.name), domain).toEqual(['judge']);
    }
  });

  it("ignores a benchmark dataset's license, as 0.7.0's BenchmarkDatasetConfig does (financebench's is not in the list)", () => {
    const agent = (type: string) => `
bench_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.ts
      datasets:
        - {name: bench, type: ${type}, jsonl_fpath: x.jsonl, prepare_script: prepare.py, license: Creative Commons Attribution-NonCommercial 4.0 International}
`;
    expect(load(project({ 'bench.yaml': agent('benchmark') }), ['+config_paths=[bench.yaml]']).servers.map((server) => server.name)).toEqual(['bench_agent']);
    expect(configError(() => load(project({ 'train.yaml': agent('train') }), ['+config_paths=[train.yaml]'])).message).toContain("Almost-server 'bench_agent'");
  });

  it('rejects almost-servers (bad domain, bad dataset license) unless told to only warn', () => {
    const bad = `
broken:
  resources_servers:
    thing:
      entrypoint: app.ts
      domain: cooking
broken_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.ts
      datasets:
        - {name: train, type: train, jsonl_fpath: x.jsonl, license: WTFPL}
`;
    const root = project({ 'bad.yaml': bad });
    const error = configError(() => load(root, ['+config_paths=[bad.yaml]']));
    expect(error.message).toContain("Almost-server 'broken'");
    expect(error.message).toContain("Almost-server 'broken_agent'");
    expect(error.message).toContain('broken.resources_servers.thing.domain');
    expect(error.message).toContain('license');
    expect(error.message).toContain('error_on_almost_servers=false');
    const warnings: string[] = [];
    const config = load(root, ['+config_paths=[bad.yaml]', '+error_on_almost_servers=false'], { warn: (message) => warnings.push(message) });
    expect(config.servers).toEqual([]);
    expect(warnings.join('\n')).toContain('will NOT be started');
  });

  it('takes replicas: N (a whole number >= 1) on a server entry, naming the key of a bad one', () => {
    const entry = (replicas: string) => `counter:\n  resources_servers:\n    thing:\n      entrypoint: app.ts\n      domain: agent\n      replicas: ${replicas}\n`;
    expect(load(project({ 'ok.yaml': entry('3') }), ['+config_paths=[ok.yaml]']).server('counter')?.config.replicas).toBe(3);
    for (const bad of ['0', '1.5', 'many']) {
      const error = configError(() => load(project({ 'bad.yaml': entry(bad) }), ['+config_paths=[bad.yaml]']));
      expect(error.message).toContain('counter.resources_servers.thing.replicas');
    }
  });

  it('leaves non-server entries alone and fills host and port defaults', () => {
    const root = project({ 'a.yaml': `${weather}${model}b: {c: {d: {}}}\nc: 2\n` });
    const config = load(root, ['+config_paths=[a.yaml]', '+default_host=0.0.0.0', '+head_server={port: 0}']);
    expect(config.dict.b).toEqual({ c: { d: {} } });
    expect(config.server('weather')?.config).toMatchObject({ host: '0.0.0.0', port: 0 });
    expect(config.headServer).toEqual({ host: '0.0.0.0', port: 0 });
  });

  it('rejects a duplicate +key and a non-list config_paths', () => {
    expect(configError(() => load(project({}), ['+a=1', '+a=2'])).message).toContain('++a=');
    expect(configError(() => load(project({}), ['+config_paths={a: 1}'])).message).toContain('must be a list');
  });
});

describe('secret redaction', () => {
  it('hides secret values but not token counts or tokenizer paths', () => {
    expect(
      redactSecrets({
        policy_api_key: 'sk-1',
        hf_token: 'hf_x',
        m: { openai_api_key: '${policy_api_key}', max_tokens: 5, tokenizer: 'a.json', password: 'p', session_secret: 's' },
      }),
    ).toEqual({
      policy_api_key: '<redacted>',
      hf_token: '<redacted>',
      m: { openai_api_key: '<redacted>', max_tokens: 5, tokenizer: 'a.json', password: '<redacted>', session_secret: '<redacted>' },
    });
  });
});
