/**
 * `ngym/runtime`: running a gym from a program, as the `ngym` commands do. Load and compose the global config,
 * launch the head server and every configured server (`ngym run`), host or bind one server, collect rollouts
 * (`ngym collect`), and serve the rollout viewer (`ngym view`).
 */
export type { CliCommand } from './cli/command.ts';
export * from './config/index.ts';
export { createHeadServerApp, type ServerInstanceInfo } from './gym/head-server.ts';
export { type HostedServer, hostServer, loadServerDefinition, locateServer, validatedServerConfig } from './gym/hosting.ts';
export { launch, type LaunchOptions, RunningGym } from './gym/launcher.ts';
export { ServerStartError } from './errors.ts';
export {
  type CollectionSummary,
  type CollectOptions,
  collectRollouts,
  RolloutCollection,
  type RolloutOutcome,
} from './rollouts/collect.ts';
export type { FailureClass, RolloutFailure } from './rollouts/failures.ts';
export { computeMetricsFromFile } from './rollouts/file-metrics.ts';
export { createProgressReporter, type ProgressReporter } from './rollouts/progress.ts';
export { applyPrompt, type PromptConfig, readPromptConfig } from './rollouts/prompt-config.ts';
export { type BoundServer, bindServer, type ListenTarget } from './server/serve.ts';
export { limitHeapGrowth } from './util/heap-growth.ts';
export { createLogger, silentLogger } from './util/logger.ts';
export { PACKAGE_ROOT } from './util/package-root.ts';
export { createViewerApp, DEFAULT_VIEWER_PORT, type RunningViewer, startViewer, type StartViewerOptions, type ViewerOptions } from './viewer/app.tsx';
export { RolloutIndex, type RolloutSummary } from './viewer/rollout-index.ts';
