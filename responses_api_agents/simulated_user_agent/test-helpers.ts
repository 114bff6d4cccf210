/** Config dicts for the simulated_user_agent tests: an environment, the agent over it, and its model servers. */
import type { ConfigDict } from 'ngym';

export const AGENT = 'episode_agent';

export interface EpisodeConfigOptions {
  /** The resources server's implementation folder (instance name `env`). */
  environment: string;
  agentConfig?: ConfigDict;
  /** Implementations of `policy_model` and `user_model` (scripted ones are given as definitions). */
  models?: { policy?: ConfigDict; user?: ConfigDict | null };
}

export function episodeConfig(options: EpisodeConfigOptions): ConfigDict {
  const config: ConfigDict = {
    env: { resources_servers: { [options.environment]: { entrypoint: 'app.ts', domain: 'agent' } } },
    [AGENT]: {
      responses_api_agents: {
        simulated_user_agent: {
          entrypoint: 'app.ts',
          resources_server: { type: 'resources_servers', name: 'env' },
          model_server: { type: 'responses_api_models', name: 'policy_model' },
          user_model_server: options.models?.user === null ? null : { type: 'responses_api_models', name: 'user_model' },
          ...options.agentConfig,
        },
      },
    },
    policy_model: { responses_api_models: options.models?.policy ?? { scripted: { entrypoint: 'app.ts' } } },
  };
  if (options.models?.user !== null) config.user_model = { responses_api_models: options.models?.user ?? { scripted: { entrypoint: 'app.ts' } } };
  return config;
}
