/**
 * Environment servers (upstream 0.7.0's `environment_servers`): the server rollout collection sends a dataset
 * row to. Upstream's collector (`ng_collect_rollouts`, `RolloutCollectionHelper.run_examples`, so NeMo RL)
 * posts every row to the environment server that names the row's agent; an agent no environment server names
 * cannot be collected from. The kind has no routes of its own: an implementation declares them in `routes`.
 */
import { type BaseServerSpec, type ConfigShape, defineServerOfKind } from './base-server.ts';
import type { ServerDefinition } from './server-definition.ts';

export interface EnvironmentServerDefinition extends ServerDefinition {
  readonly kind: 'environment_servers';
}

export function defineEnvironmentServer<Shape extends ConfigShape = Record<never, never>, State = undefined>(
  spec: BaseServerSpec<Shape, State> & Required<Pick<BaseServerSpec<Shape, State>, 'routes'>>,
): EnvironmentServerDefinition {
  return defineServerOfKind('environment_servers', spec, () => {});
}
