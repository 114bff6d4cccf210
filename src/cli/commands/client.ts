/**
 * `ngym client`: NeMo Gym's quickstart step "talk to the running agent" (upstream runs
 * `python responses_api_agents/simple_agent/client.py`). Sends one request to an agent of a running gym and
 * prints the output items, so a user can check the whole stack before collecting rollouts.
 */
import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { raiseForStatus } from '../../client/server-client.ts';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { ConfigError } from '../../errors.ts';
import { type CliCommand, headServerClient, readParameters } from '../command.ts';

/** The quickstart's request: a developer prompt, a vague question about San Francisco, and the get_weather tool. */
export function quickstartRequest(message: string): Record<string, unknown> {
  return {
    input: [
      { role: 'developer', content: 'You are a helpful personal assistant that aims to be helpful and reduce any pain points the user has.' },
      { role: 'user', content: message },
    ],
    tools: [
      {
        type: 'function',
        name: 'get_weather',
        description: '',
        parameters: { type: 'object', properties: { city: { type: 'string', description: '' } }, required: ['city'], additionalProperties: false },
        strict: true,
      },
    ],
  };
}

/** The agents the quickstart's configs start, old name first: the first one the running gym has is used. */
const QUICKSTART_AGENTS = ['simple_weather_simple_agent', 'example_single_tool_call_simple_agent'];

const Parameters = z.object({
  agent_name: z.string().min(1).optional().meta({ description: 'Agent instance to call.', shownDefault: 'the quickstart agent that is running' }),
  message: z.string().min(1).default('going out in sf tn').describe("The user message of the quickstart's request."),
  url_path: z.string().startsWith('/').default('/v1/responses').describe('Agent endpoint: /v1/responses or /run.'),
  request_json_fpath: z.string().min(1).optional().describe('A JSON file holding the whole request body, sent instead of the quickstart request.'),
});

export const clientCommand: CliCommand = {
  name: 'client',
  summary: "Send the quickstart's request (or your own) to an agent of a running gym and print its output.",
  description: `
Needs a running gym (\`ngym run\`); the agent is found through its head server (+head_server.host,
+head_server.port; default 127.0.0.1:11000). Without +agent_name the quickstart's agent is used
(simple_weather_simple_agent or example_single_tool_call_simple_agent, whichever is running).
The request goes to /v1/responses (one model/tool loop, no verification) unless +url_path=/run, which
seeds the session, runs the loop and verifies; /run needs a whole dataset row, e.g. from +request_json_fpath.
Prints the response's output items (for /run: the whole verify response) as indented JSON.

Examples:
  ngym client
  ngym client +message="Should I bring an umbrella in Seattle?"
  ngym client +agent_name=stateful_counter_simple_agent +url_path=/run +request_json_fpath=row.json
Also runnable as upstream's \`python responses_api_agents/simple_agent/client.py\` with the project's Python venv.`,
  parameters: Parameters,
  async run(args) {
    const globalConfig = loadGlobalConfig({ overrides: args });
    const parameters = readParameters(globalConfig, Parameters);
    const client = await headServerClient(globalConfig);
    const agents = client.config.servers.filter((instance) => instance.serverType === 'responses_api_agents').map((instance) => instance.name);
    const agent = parameters.agent_name ?? QUICKSTART_AGENTS.find((name) => agents.includes(name));
    if (agent === undefined || !agents.includes(agent)) {
      throw new ConfigError(
        'NGYM_USAGE',
        `${agent === undefined ? 'No quickstart agent is running' : `No agent named '${agent}' is running`}; pass +agent_name=<one of: ${agents.join(', ') || '(none)'}>.`,
        { key: 'agent_name' },
      );
    }
    let body: unknown = quickstartRequest(parameters.message);
    if (parameters.request_json_fpath !== undefined) {
      try {
        body = JSON.parse(readFileSync(parameters.request_json_fpath, 'utf8'));
      } catch (error) {
        throw new ConfigError('NGYM_USAGE', `+request_json_fpath=${parameters.request_json_fpath}: ${(error as Error).message}`, { key: 'request_json_fpath' });
      }
    }
    const response = raiseForStatus(await client.post(agent, parameters.url_path, body));
    const answer = response.json<Record<string, unknown>>();
    process.stdout.write(`${JSON.stringify(parameters.url_path === '/v1/responses' ? answer.output : answer, null, 4)}\n`);
    return 0;
  },
};
