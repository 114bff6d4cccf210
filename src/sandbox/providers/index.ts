/**
 * Sandbox providers: long-lived boxes with upstream NeMo Gym 0.7.0's provider contract (docs/sandbox.md, "Sandbox
 * providers"). A server resolves its `sandbox_provider:` config to a provider, makes boxes with `ProviderSandbox`
 * (or the provider's methods directly) and hands their ids to other servers, which adopt them with `connect`.
 */
export {
  boxPath,
  parseSandboxSpec,
  runtimeFailure,
  SANDBOX_RUNTIME_RETURN_CODE,
  SANDBOX_STATUSES,
  type SandboxDescriptor,
  type SandboxEndpoint,
  type SandboxExecErrorType,
  type SandboxExecOptions,
  type SandboxExecResult,
  type SandboxFailureReason,
  type SandboxHandle,
  type SandboxProvider,
  SandboxProviderError,
  SandboxResources,
  SandboxSpec,
  type SandboxSpecInput,
  type SandboxStatus,
} from './contract.ts';
export { type DockerBox, DockerSandboxProvider, type ProviderRuntimeOptions } from './docker/docker-provider.ts';
export { type LocalBox, LocalSandboxProvider } from './local/local-provider.ts';
export { type OpenSandboxBox, OpenSandboxProvider } from './opensandbox/opensandbox-provider.ts';
export {
  type ConfiguredSandboxProvider,
  createSandboxProvider,
  registerSandboxProvider,
  type SandboxProviderFactory,
  sandboxProviderFor,
  sandboxProviderNames,
} from './registry.ts';
export { DEFAULT_EXEC_TIMEOUT_S, ProviderSandbox, type ProviderSandboxOptions } from './provider-sandbox.ts';
export { currentRunId, RUN_ID_ENV } from './run-identity.ts';
