/**
 * Upstream NeMo Gym 0.7.0's own configs of the model servers ngym has in TypeScript load into them: a key
 * 0.7.0 accepts is not "unknown" here, so `ngym run` does not fall back to upstream's app.py for them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGlobalConfig } from '../src/config/global-config.ts';
import { locateAndValidate } from '../src/gym/launcher.ts';
import { upstreamWheel } from '../src/testing/upstream-wheel.ts';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';

const wheel = upstreamWheel();
const POLICY = ['+policy_base_url=http://127.0.0.1:1/v1', '+policy_api_key=test', '+policy_model_name=test'];
const CONFIGS: [config: string, extra: string[]][] = [
  ['openai_model/configs/openai_model.yaml', []],
  ['openai_model/configs/OpenAI/gpt-5-2025-08-07.yaml', ['++gpt-5-2025-08-07.responses_api_models.openai_model.openai_api_key=test']],
  ['vllm_model/configs/vllm_model.yaml', []],
  ['vllm_model/configs/vllm_model_for_training.yaml', []],
  ['azure_openai_model/configs/azure_openai_model.yaml', ['++policy_model.responses_api_models.azure_openai_model.default_query.api-version=2025-01-01']],
];

describe.skipIf(wheel.skipReason !== null)("upstream 0.7.0's model server configs", () => {
  it.each(CONFIGS)('%s runs on the TypeScript server', async (config, extra) => {
    const path = join(wheel.sitePackages, 'responses_api_models', config);
    expect(existsSync(path), path).toBe(true);
    const globalConfig = loadGlobalConfig({ cwd: PACKAGE_ROOT, overrides: [`+config_paths=[${path}]`, ...POLICY, ...extra], envYamlPath: null, warn: () => {} });
    const fellBack: string[] = [];
    const locations = await locateAndValidate(globalConfig, (line) => fellBack.push(line));
    expect(fellBack).toEqual([]);
    expect([...locations.values()].map((location) => location.language)).toEqual(['typescript']);
  });
});

if (wheel.skipReason !== null) console.warn(wheel.skipReason);
