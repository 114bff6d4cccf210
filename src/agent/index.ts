export { runAgentRollout } from './rollout.ts';
export {
  refusedRow,
  relayAggregateMetrics,
  respondWithTools,
  runToolLoop,
  type ToolLoopConfig,
  type ToolLoopOptions,
  toolLoopOptions,
  type ToolLoopResult,
} from './tool-loop.ts';
export * from './harness/index.ts';
