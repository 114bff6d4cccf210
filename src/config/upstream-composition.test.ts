/**
 * Upstream 0.7.0's configs compose here as they do there: its own `ng_dump_config` and ngym give the same server
 * instances and the same agent -> resources server references. These configs set keys their includes leave open
 * (`resources_server.name: ???`), which only 0.7.0's merge order (a file over what it pulls in) fills.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { upstreamWheel } from '../testing/upstream-wheel.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { loadGlobalConfig } from './global-config.ts';
import { isDict } from './tree.ts';

const wheel = upstreamWheel();
const SERVER_TYPES = ['resources_servers', 'responses_api_agents', 'responses_api_models', 'environment_servers'];
const POLICY = ['+policy_base_url=http://127.0.0.1:1/v1', '+policy_api_key=test', '+policy_model_name=test'];
const CONFIGS = [
  'resources_servers/critpt/configs/critpt.yaml',
  'resources_servers/scicode/configs/scicode.yaml',
  'resources_servers/toolsandbox/configs/toolsandbox.yaml',
  'resources_servers/finance_sec_search/configs/finance_sec_search.yaml',
  'benchmarks/financebench/config.yaml',
];

/** Each server instance with the resources server its inner config names (null when none). */
function instances(dict: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(dict)) {
    if (!isDict(entry)) continue;
    const serverType = Object.keys(entry).find((key) => SERVER_TYPES.includes(key));
    const impls = serverType === undefined ? undefined : entry[serverType];
    const inner = isDict(impls) ? Object.values(impls)[0] : undefined;
    if (isDict(inner)) out[name] = (inner.resources_server as { name?: unknown } | undefined)?.name ?? null;
  }
  return out;
}

describe.skipIf(wheel.skipReason !== null)("upstream 0.7.0's configs compose as upstream composes them", () => {
  it.each(CONFIGS)('%s', (config) => {
    const paths = `+config_paths=[${join(wheel.sitePackages, config)},${join(wheel.sitePackages, 'responses_api_models/openai_model/configs/openai_model.yaml')}]`;
    const dumped = spawnSync(join(wheel.venv, 'bin', 'ng_dump_config'), [paths, ...POLICY], { cwd: wheel.sitePackages, encoding: 'utf8', timeout: 110_000 });
    expect(dumped.status, dumped.stderr).toBe(0);
    const upstream = parse(dumped.stdout.replace(/^.*deprecated.*\n/m, '')) as Record<string, unknown>;
    const ngym = loadGlobalConfig({ cwd: PACKAGE_ROOT, overrides: [paths, ...POLICY], envYamlPath: null, warn: () => {} });
    const composed = Object.fromEntries(ngym.servers.map((server) => [server.name, (ngym.resolvedServerConfig(server.name).resources_server as { name?: unknown } | undefined)?.name ?? null]));
    expect(composed).toEqual(instances(upstream));
  }, 120_000);
});

if (wheel.skipReason !== null) console.warn(wheel.skipReason);
