import { type ConfigDict, sharedHttpClient } from 'ngym';
import { assistantMessage, functionCall, type InProcessGym, scriptedModel, startInProcessGym } from 'ngym/testing';
import { afterEach, describe, expect, it } from 'vitest';
import environmentServer from './app.ts';
import resourcesServer from '../../resources_servers/example_single_tool_call/app.ts';

const config: ConfigDict = {
  weather: { resources_servers: { example_single_tool_call: { entrypoint: 'app.ts', domain: 'agent' } } },
  weather_agent: {
    responses_api_agents: {
      simple_agent: {
        entrypoint: 'app.ts',
        resources_server: { type: 'resources_servers', name: 'weather' },
        model_server: { type: 'responses_api_models', name: 'policy_model' },
      },
    },
  },
  weather_environment_server: {
    environment_servers: { legacy_agent: { entrypoint: 'app.ts', agent_server: { type: 'responses_api_agents', name: 'weather_agent' } } },
  },
  policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
};
const row = { responses_create_params: { input: [{ role: 'user', content: 'Weather in SF?' }] } };
const http = sharedHttpClient();
let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

async function start() {
  const model = scriptedModel(({ index }) => (index % 2 === 0 ? [functionCall('get_weather', { city: 'SF' })] : [assistantMessage('Cold.')]));
  gym = await startInProcessGym({ config, definitions: { weather: resourcesServer, weather_environment_server: environmentServer, policy_model: model.definition } });
  return gym;
}

describe('legacy_agent environment server', () => {
  it("answers /run with the agent's own answer: same status, same body, the agent's cookies", async () => {
    const { url } = await start();
    const relayed = await http.request(url('weather_environment_server', '/run'), { body: row });
    const direct = await http.request(url('weather_agent', '/run'), { body: row });
    expect(relayed.status, relayed.text).toBe(200);
    const strip = (text: string) => JSON.parse(text.replace(/"(id|call_id|created_at)": ?"?[^",}]*"?/g, '"$1": 0'));
    expect(strip(relayed.text)).toEqual(strip(direct.text));
    expect(relayed.json<{ reward: number }>().reward).toBe(1);
    expect(relayed.headers['content-type']).toContain('application/json');
    expect([...relayed.cookies.entries()].map(([name]) => name)).toEqual([...direct.cookies.entries()].map(([name]) => name));
  });

  it("passes the agent's refusal of a bad row back unchanged, and its answer to /aggregate_metrics", async () => {
    const { url } = await start();
    const refused = await http.request(url('weather_environment_server', '/run'), { body: { responses_create_params: { input: 5 } } });
    const direct = await http.request(url('weather_agent', '/run'), { body: { responses_create_params: { input: 5 } } });
    expect(refused.status).toBe(422);
    expect(refused.text).toBe(direct.text);
    const metrics = await http.request(url('weather_environment_server', '/aggregate_metrics'), { body: { verify_responses: [] } });
    const directMetrics = await http.request(url('weather_agent', '/aggregate_metrics'), { body: { verify_responses: [] } });
    expect(metrics.status).toBe(directMetrics.status);
    expect(metrics.text).toBe(directMetrics.text);
  });

  it('refuses a config without the agent it relays to', async () => {
    const broken = structuredClone(config);
    (broken.weather_environment_server as any).environment_servers.legacy_agent.agent_server = { type: 'responses_api_agents', name: 'no_such_agent' };
    await expect(startInProcessGym({ config: broken, definitions: { weather: resourcesServer, weather_environment_server: environmentServer } })).rejects.toThrow(/no_such_agent/);
  });
});
