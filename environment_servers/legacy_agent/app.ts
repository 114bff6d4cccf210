/**
 * legacy_agent: an environment server that relays `POST /run` (and `/aggregate_metrics`) to one agent server,
 * unchanged both ways: the body as sent, the caller's cookies, the agent's status, body and Set-Cookie headers.
 * It is what lets upstream 0.7.0's collector, which only talks to environment servers, drive ngym's agents.
 * Same instance type, keys and defaults as NeMo Gym 0.7.0's `environment_servers/legacy_agent`.
 */
import {
  AgentServerRef,
  CookieJar,
  defineEnvironmentServer,
  ERROR_CODE_HEADER,
  type ServerApp,
  type ServerClient,
} from 'ngym';
import * as z from 'zod';

/** Response headers the relay passes back; the rest describe this hop's connection and framing. */
const RELAYED_HEADERS = ['content-type', 'set-cookie', ERROR_CODE_HEADER];

function relay(app: ServerApp, client: ServerClient, agent: string, path: string): void {
  app.post(path, async (http) => {
    const answer = await client.post(agent, path, await http.req.text(), { cookies: CookieJar.fromHeader(http.req.header('cookie')) });
    for (const name of RELAYED_HEADERS) {
      const value = answer.headers[name];
      for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) http.header(name, item, { append: true });
    }
    return http.body(answer.text, answer.status as 200);
  });
}

export default defineEnvironmentServer({
  className: 'LegacyAgentEnvironmentServer',
  config: {
    agent_server: AgentServerRef,
    // Upstream's episode limits, accepted for its configs; a relay enforces none of them (the agent keeps its own).
    max_concurrent_episodes: z.number().int().positive().nullable().optional(),
    queue_timeout_seconds: z.number().positive().nullable().optional(),
    default_episode_timeout_seconds: z.number().positive().default(21600),
    cleanup_timeout_seconds: z.number().positive().default(180),
  },
  routes: (app, { client, config }) => {
    relay(app, client, config.agent_server.name, '/run');
    relay(app, client, config.agent_server.name, '/aggregate_metrics');
  },
});
