/**
 * The four kinds of server, named as the global config's instance entries and the wire's `server_type` name them.
 */
/**
 * `environment_servers` (upstream 0.7.0) front agents for rollout collection: upstream's collector sends each row
 * to the environment server that names its agent, never to the agent itself.
 */
export const SERVER_TYPES = ['responses_api_models', 'resources_servers', 'responses_api_agents', 'environment_servers'] as const;
export type ServerType = (typeof SERVER_TYPES)[number];

export function isServerType(value: unknown): value is ServerType {
  return typeof value === 'string' && (SERVER_TYPES as readonly string[]).includes(value);
}
