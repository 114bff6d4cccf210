/** Test helpers, published as `ngym/testing`. */
export { type InProcessGym, type InProcessGymOptions, startInProcessGym } from '../gym/in-process.ts';
export {
  assistantMessage,
  functionCall,
  type ModelScript,
  modelResponse,
  type ScriptedCall,
  type ScriptedModel,
  scriptedModel,
  usage,
} from '../server/scripted-model.ts';
export { readJsonlRows } from './jsonl-rows.ts';
export { simpleAgentConfig, type SimpleAgentConfigOptions } from './agent-config.ts';
export { SHARED_DIR, SHARED_SKIP_MESSAGE, sharedFixture, sharedFixturesAvailable } from './shared-fixtures.ts';
export { type CliOptions, type CliResult, type GymProcess, runCli, startGymProcess } from './cli-process.ts';
export { type FakeEndpoint, type FakeHandler, type FakeRequest, startFakeEndpoint } from './fake-endpoint.ts';
export {
  replacePrefixTokens,
  type ScriptedGeneration,
  type ScriptedHttpReply,
  startVllmBackend,
  TOY_EOS,
  toyChatTemplate,
  toyPromptTokens,
  toyTokenize,
  type VllmBackend,
  type VllmBackendOptions,
  type VllmChatCall,
} from './vllm-backend.ts';
export { lastUserContent, type UpstreamRollout, type UpstreamRolloutsOptions, upstreamRollouts } from './upstream-rollouts.ts';
export { type UpstreamWheel, upstreamWheel } from './upstream-wheel.ts';
export { type ExampleData, exampleData, recordExampleRollouts, type ReplayedRollout, replayExampleRollouts, writeExampleData } from './example-data.ts';
export { callServer } from './server-call.ts';
export { type AttributeValue, decodeOtlpJson, type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.ts';
export { type ContainerEngineForTests, containerEngineForTests } from './container-engine.ts';
