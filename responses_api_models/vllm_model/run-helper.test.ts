/**
 * The Python bridge package (python/ngym_bridge, for NeMo RL and VeRL, which start Gym from Python), driven the
 * way NeMo RL's NemoGym actor drives upstream's RunHelper, with `ngym run` against a scripted vLLM engine:
 * token ids and the multi-turn prefix rule end to end. Skipped without python3 and PyYAML.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { startVllmBackend, TOY_EOS, type VllmChatCall } from 'ngym/testing';
import { nemoRlProcessResult, trlProcessRollout } from './trainer-replays.ts';

function pythonWithYaml(): boolean {
  try {
    execFileSync('python3', ['-c', 'import yaml'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What NeMo RL's NemoGym actor does: RunHelper.start with its config, one /run per row, shutdown. */
const DRIVER = `
import json, sys, urllib.request, yaml
from pathlib import Path
from ngym_bridge import GlobalConfigDictParserConfig, RunHelper

base_url, port = sys.argv[1], int(sys.argv[2])
initial = {
    "config_paths": [
        "responses_api_models/vllm_model/configs/vllm_model_for_training.yaml",
        "resources_servers/example_single_tool_call/configs/example_single_tool_call.yaml",
    ],
    "example_single_tool_call_simple_agent": {"responses_api_agents": {"simple_agent": {"max_steps": 6}}},
    "policy_model_name": "toy-model",
    "policy_api_key": "dummy_key",
    "policy_base_url": [base_url],
    "global_aiohttp_connector_limit_per_host": 16384,
    "global_aiohttp_connector_limit": 65536,
    "ray_head_node_address": "10.0.0.1:6379",
    "head_server": {"host": "0.0.0.0", "port": port},
}
rh = RunHelper()
rh.start(global_config_dict_parser_config=GlobalConfigDictParserConfig(
    dotenv_path=Path("/nonexistent/nemo_gym_env.yaml"), initial_global_config_dict=initial, skip_load_from_cli=True))
try:
    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/global_config_dict_yaml").read()
    config = yaml.safe_load(json.loads(body))
    agent = config["example_single_tool_call_simple_agent"]["responses_api_agents"]["simple_agent"]
    row = {
        "responses_create_params": {
            "input": [{"role": "user", "content": "Should I bring a jacket in Paris?"}],
            "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}],
            "temperature": 1.0,
            "top_p": 1.0,
        },
        "agent_ref": {"type": "responses_api_agents", "name": "example_single_tool_call_simple_agent"},
        "_rowidx": 0,
    }
    request = urllib.request.Request(f"http://{agent['host']}:{agent['port']}/run", data=json.dumps(row).encode(), headers={"content-type": "application/json"})
    print("RESULT " + urllib.request.urlopen(request, timeout=120).read().decode(), flush=True)
finally:
    rh.shutdown()
`;

function weather(call: VllmChatCall) {
  const messages = call.body.messages as Array<{ role: string }>;
  return messages.at(-1)?.role === 'tool'
    ? { content: 'It is cold in Paris. Bring a jacket.' }
    : { reasoning: 'Check the weather first.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };
}

describe.skipIf(!pythonWithYaml())('ngym_bridge.RunHelper (python/)', () => {
  it('starts ngym with a NeMo RL style config, serves /run with token ids, and shuts down', { timeout: 180_000 }, async () => {
    const engine = await startVllmBackend({ reply: weather });
    const directory = mkdtempSync(join(tmpdir(), 'ngym-run-helper-'));
    writeFileSync(join(directory, 'driver.py'), DRIVER);
    try {
      const child = spawn('python3', ['driver.py', engine.baseUrl, String(await freePort())], {
        cwd: directory,
        env: { ...process.env, NGYM_COMMAND: `${process.execPath} ${join(PACKAGE_ROOT, 'bin', 'ngym.js')}`, PYTHONPATH: [join(PACKAGE_ROOT, 'python'), directory].join(':') },
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, output).toBe(0);
      expect(output).toContain('[ngym] All 4 / 4 servers ready');
      const line = output.split('\n').find((text) => text.startsWith('RESULT '));
      expect(line, output).toBeDefined();
      const result = JSON.parse((line as string).slice('RESULT '.length));
      expect(result).toMatchObject({ reward: 1.0, _rowidx: 0 });
      expect(nemoRlProcessResult(result).messageLog).toHaveLength(4);
      expect(trlProcessRollout(result, TOY_EOS).failed).toBe(false);
      // The trainer's policy_base_url list reached vllm_model: both calls went to the scripted engine.
      expect(engine.chatRequests()).toHaveLength(2);
    } finally {
      await engine.close();
    }
  });
});

describe.skipIf(pythonWithYaml())('ngym_bridge.RunHelper (python/)', () => {
  it.skip('needs python3 with PyYAML; skipping', () => {});
});
