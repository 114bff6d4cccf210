/**
 * The `ngym run` arguments that start an upstream config with replay_model in place of every model it names: the
 * policy model replays the recording, and every other model server the config names (a judge, a user simulator)
 * replays the model calls recorded inside the rollouts (empty when there are none, so such a call fails by name).
 * A model server the config defines itself is replaced in a copy of the config written beside the run's log.
 * Replay is strict: the tool outputs and observations the agent sends must equal the recorded ones, and a divergence
 * fails the rollout naming its first step (replay_model's `strict`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { PACKAGE_ROOT } from '../src/util/package-root.ts';
import { POLICY_MODEL, readConfig } from './upstream-servers.ts';

export const REPLAY_CONFIG = join(PACKAGE_ROOT, 'responses_api_models', 'replay_model', 'configs', 'replay_model.yaml');

export interface ReplaySetup {
  /** The upstream config file. */
  config: string;
  /** Configs started beside it (the other servers its usage line names). */
  companionConfigs?: readonly string[];
  /** Whether the policy model is replay_model (false when the config defines its own `policy_model`). */
  replayPolicy: boolean;
  /** Files the policy model replays. */
  policyRecordings: string[];
  /** Model servers besides the policy model, replayed from `otherRecordings`. */
  otherModels: readonly string[];
  otherRecordings: string[];
  /** Where to write the copy of the config when it defines a model server that is replaced. */
  workFolder: string;
  /** The policy model answers requests no recording agrees with from the nearest one (replay_model's `fallback: nearest`). */
  fallback?: boolean;
}

const list = (paths: readonly string[]) => `[${paths.join(',')}]`;

export function replayArguments(setup: ReplaySetup): string[] {
  const tree = readConfig(setup.config) ?? {};
  const replay = (recordings: readonly string[]) => ({ responses_api_models: { replay_model: { entrypoint: 'app.ts', rollouts_jsonl_fpath: [...recordings], strict: true } } });
  const defined = setup.otherModels.filter((name) => name in tree);
  let config = setup.config;
  if (defined.length > 0) {
    const copy: Record<string, unknown> = { ...tree };
    for (const name of defined) copy[name] = replay(setup.otherRecordings);
    config = join(setup.workFolder, 'config.yaml');
    writeFileSync(config, `# ${setup.config} with its model servers ${defined.join(', ')} replaced by replay_model.\n${stringify(copy)}`);
  }
  const configs = [config, ...(setup.companionConfigs ?? [])];
  const args = [`+config_paths=${list(setup.replayPolicy ? [...configs, REPLAY_CONFIG] : configs)}`];
  if (setup.replayPolicy) args.push(`+${POLICY_MODEL}.responses_api_models.replay_model.rollouts_jsonl_fpath=${list(setup.policyRecordings)}`, `+${POLICY_MODEL}.responses_api_models.replay_model.strict=true`);
  if (setup.replayPolicy && setup.fallback === true) args.push(`+${POLICY_MODEL}.responses_api_models.replay_model.fallback=nearest`);
  for (const name of setup.otherModels.filter((model) => !defined.includes(model))) {
    args.push(`+${name}={responses_api_models: {replay_model: {entrypoint: app.ts, rollouts_jsonl_fpath: ${list(setup.otherRecordings)}, strict: true}}}`);
  }
  return args;
}
