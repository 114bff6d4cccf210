export { type Harness, type HarnessAgentConfig, harnessAgentConfig, harnessInstruction, type HarnessOutput, type HarnessState, harnessState, runHarnessRollout } from './harness-agent.ts';
export { BOX_CLI_ROOT, type HarnessInvocation, type HarnessRunOptions, type HarnessRunResult, runHarness } from './harness-run.ts';
export { mergeSettings } from './merge-settings.ts';
export { type CallModel, type ModelRelay, type ModelRelayOptions, modelRelayApp, startModelRelay } from './model-relay.ts';
export {
  applyTokenDelivery,
  type CapturedCall,
  MASK_SAMPLE_KEY,
  RolloutTokenCapture,
  TOKEN_CAPTURE_KEY,
  type TokenCaptureMetrics,
  type TokenDelivery,
} from './token-capture.ts';
