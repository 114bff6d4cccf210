export { bubblewrapUnavailableReason } from './availability.ts';
export { SANDBOX_PATH, SANDBOX_USER } from './bubblewrap.ts';
export { JsonLineProcess } from './json-line-process.ts';
export { SECCOMP_BLOCKED_CALLS } from './seccomp.ts';
export {
  Sandbox,
  type SandboxConfig,
  sandboxConfigSchema,
  type SandboxOptions,
  type SandboxProviderName,
  SandboxSession,
  type SessionOptions,
} from './sandbox.ts';
export {
  DEFAULT_LIMITS,
  onStdoutLines,
  SandboxError,
  type SandboxFile,
  type SandboxLimits,
  type SandboxRunHandle,
  type SandboxRunRequest,
  type SandboxRunResult,
  type SandboxRunStatus,
  succeeded,
} from './types.ts';
export * from './providers/index.ts';
