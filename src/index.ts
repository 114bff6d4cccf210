/**
 * ngym: NeMo Gym in TypeScript. This entry is what an environment's author needs: define resources servers,
 * agents and model servers, the wire protocol's schemas and types, the server-to-server client, judges and the
 * verification helpers (math, sandbox, worker pools). Running a gym, metrics, dataset tooling, Python-compatible
 * helpers and test helpers have their own subpaths: `ngym/runtime`, `ngym/metrics`, `ngym/data`,
 * `ngym/python-compat`, `ngym/testing` (docs/api.md). public-api.test.ts keeps internal names out of it.
 */
export * from './agent/index.ts';
export * from './client/index.ts';
export { ModelEndpoint, type ModelEndpointOptions, openAiEndpointConfig, RETRY_STATUSES } from './client/model-endpoint.ts';
export {
  AgentServerRef,
  BaseServerConfig,
  DatasetConfig,
  DatasetType,
  Domain,
  License,
  ModelServerRef,
  ResourcesServerRef,
  ServerRef,
} from './config/schemas.ts';
export type { ConfigDict, ConfigValue } from './config/tree.ts';
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
export * from './judge/index.ts';
export { DEFAULT_MATH_TIMEOUT_SECONDS, lastBoxedContent, type MathCheck, MathVerifier, type MathVerifierOptions, type MathVerifyResult, sympyString } from './math/index.ts';
export * from './protocol/index.ts';
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
export * from './sandbox/index.ts';
export * from './server/index.ts';
export { AsyncQueue } from './util/async-queue.ts';
export type { Logger } from './util/logger.ts';
export { SeededRandom } from './util/seeded-random.ts';
export { Semaphore } from './util/semaphore.ts';
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
export * from './moved.ts';
