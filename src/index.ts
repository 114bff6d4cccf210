/**
 * ngym: NeMo Gym in TypeScript. Define environments (resources servers), agents and model servers, run
 * them as HTTP servers wire-compatible with NeMo Gym, and collect scored rollouts.
 */
export * from './client/index.ts';
export * from './config/index.ts';
export {
  ConfigError,
  describeError,
  ERROR_CODE_HEADER,
  errorCodeOf,
  NgymError,
  type NgymErrorCode,
  type NgymErrorOptions,
  UpstreamError,
} from './errors.ts';
export * from './protocol/index.ts';
export * from './server/index.ts';
export { pyFloat, PythonFloat, pythonExceptionRepr, pythonFloatRepr, pythonJsonDumps, pythonStringRepr } from './python-compat/python-json.ts';
export {
  type ComparisonOperator,
  isPythonDict,
  parsePythonFloat,
  PythonError,
  pythonCompare,
  pythonContains,
  pythonEquals,
  pythonInt,
  pythonLower,
  pythonNumber,
  pythonRepr,
  pythonStr,
  pythonTruthy,
  pythonTypeName,
  type PythonValue,
} from './python-compat/python-values.ts';
export { pythonJsonLoads, type PythonJsonLoadsOptions, pythonJsonLoadsWithFloats } from './python-compat/python-json-loads.ts';
export { PACKAGE_ROOT } from './util/package-root.ts';
export { Semaphore } from './util/semaphore.ts';
export { AsyncQueue } from './util/async-queue.ts';
export { SeededRandom } from './util/seeded-random.ts';
export { limitHeapGrowth } from './util/heap-growth.ts';
export {
  type CollectionSummary,
  type CollectOptions,
  collectRollouts,
  RolloutCollection,
  type RolloutOutcome,
} from './rollouts/collect.ts';
export type { FailureClass, RolloutFailure } from './rollouts/failures.ts';
export { computeMetrics, computeMetricsFromFile, MetricsAccumulator, passAtK, type RolloutMetrics } from './rollouts/rollout-metrics.ts';
export { createProgressReporter, type ProgressReporter } from './rollouts/progress.ts';
export { type AggregateMetrics, type AggregateMetricsHooks, computeAggregateMetrics } from './rollouts/reward-profile.ts';
export { addAverageSampleStdDev, computePassMajorityMetrics, computeSubsetMetrics, highestKMetrics, type PassMajorityResult, pickMetrics, type ScoreFunction } from './rollouts/pass-majority.ts';
export * from './data/index.ts';
export { createViewerApp, DEFAULT_VIEWER_PORT, type RunningViewer, startViewer, type StartViewerOptions, type ViewerOptions } from './viewer/app.tsx';
export { RolloutIndex, type RolloutSummary } from './viewer/rollout-index.ts';
export {
  chatCompletionToResponse,
  chatMessageToOutputItems,
  type ChatToResponsesOptions,
  foldReasoningIntoContent,
  moveThinkingToReasoningField,
  responsesToChatCompletion,
  type ResponsesToChatOptions,
  splitThinking,
  TOKEN_FIELDS,
} from './protocol/chat-conversion.ts';
export { ModelEndpoint, type ModelEndpointOptions, openAiEndpointConfig, RETRY_STATUSES } from './client/model-endpoint.ts';
export * from './judge/index.ts';
export * from './sandbox/index.ts';
export { DEFAULT_MATH_TIMEOUT_SECONDS, lastBoxedContent, type MathCheck, MathVerifier, type MathVerifierOptions, type MathVerifyResult, sympyString } from './math/index.ts';
export { type PythonMatch, PythonRegex, PythonRegexError, type PythonRegexFlags } from './python-compat/python-regex.ts';
export {
  comparePythonStrings,
  PYTHON_WHITESPACE,
  PYTHON_WORD,
  pythonIsAlpha,
  pythonIsLower,
  pythonIsUpper,
  pythonLength,
  pythonLstrip,
  pythonRstrip,
  pythonSlice,
  pythonSplit,
  pythonSplitlines,
  pythonStrip,
} from './python-compat/python-str.ts';
export {
  type VerifyWorkersConfig,
  verifyWorkersConfigShape,
  VerifyWorkerPool,
  type VerifyWorkerPoolOptions,
  WorkerPool,
  type WorkerPoolOptions,
  type WorkerPoolStats,
  WorkerTaskError,
} from './util/worker-pool.ts';
